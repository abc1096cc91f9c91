"""``SpreadMarks``: a scene's rank spread drawn with bqplot (median squares, min-max whiskers).

The medians and whiskers are the scene's (:func:`~roofline_widget.scene.spread.spread_part`),
coloured by imbalance through a colour scale of the part's shade; clicking a
median square calls ``on_click(square)`` with its row of the spread (the
widget shows its ranks, :mod:`roofline_widget.widget.square_ranks`).
"""

from __future__ import annotations

from collections.abc import Callable

import bqplot as bq
import numpy as np
import pandas as pd

from roofline_widget.look.colors import IMBALANCE_COLORS, POINT_STROKE
from roofline_widget.look.markers import MEDIAN_DOT, SQUARE, WHISKER_STROKE
from roofline_widget.scene.parts import SpreadPart
from roofline_widget.widget.html import TOOLTIP_STYLE, spread_tooltip_html
from roofline_widget.widget.layers.base import draw_mark, hover_index

__all__ = ["SpreadMarks"]


class SpreadMarks:
    """The bqplot marks of a scene's :class:`~roofline_widget.scene.parts.SpreadPart`.

    Parameters
    ----------
    figure : RooflineFigure
        The figure whose scales the marks use.

    Attributes
    ----------
    whiskers : bqplot.Lines
        Two lines per drawn region (intensity, then GFLOP/s), coloured by imbalance.
    medians : bqplot.Scatter
        One square per drawn region at its rank median (DOM: ``.dot``).
    color_scale : bqplot.ColorScale
        Imbalance from 1 to the largest drawn.
    tooltip : ipywidgets.HTML
        The medians' hover text (DOM class ``roofline-spread-tooltip``).
    on_click : callable or None
        ``on_click(square)`` when a median square is clicked (its row of :attr:`spread`).
    part : SpreadPart or None
        What is drawn (None: the points view).
    """

    def __init__(self, figure) -> None:
        self.on_click: Callable[[pd.Series], None] | None = None
        self.part: SpreadPart | None = None
        self.color_scale = bq.ColorScale(colors=list(IMBALANCE_COLORS), min=1.0, max=1.1)
        scales = {"x": figure.x_scale, "y": figure.y_scale, "color": self.color_scale}
        self.whiskers = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), color=np.ones(1),
                                 scales=scales, stroke_width=WHISKER_STROKE.bqplot, visible=False,
                                 labels_visibility="none")
        self.tooltip = figure.looks.html(css="roofline-spread-tooltip")
        self.medians = bq.Scatter(x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
                                  scales=scales, marker=SQUARE.bqplot,
                                  default_size=MEDIAN_DOT.bqplot, stroke=POINT_STROKE,
                                  stroke_width=1.2, visible=False, tooltip=self.tooltip,
                                  tooltip_style=dict(TOOLTIP_STYLE),
                                  # no "click": "select": bqplot's select handler fails
                                  # while bqplot-gl's d3 serves the page (docs/webgl.md, 0)
                                  interactions={"hover": "tooltip"})
        self.medians.on_hover(self._hover)
        self.medians.on_element_click(self._click)

    @property
    def marks(self) -> tuple:
        """The whiskers, then the median points."""
        return self.whiskers, self.medians

    @property
    def active(self) -> bool:
        """True while the spread is drawn (the rank points are hidden)."""
        return self.part is not None

    @property
    def spread(self) -> pd.DataFrame | None:
        """:func:`~roofline_widget.rank_spread` of the drawn regions (None in the points view)."""
        return self.part.spread if self.part is not None else None

    def draw(self, part: SpreadPart | None) -> None:
        """Draw ``part`` (None or no region: the marks hidden)."""
        self.part = part
        if part is not None and part.medians.shade is not None:
            shade = part.medians.shade
            self.color_scale.min, self.color_scale.max = shade.low, shade.high
        draw_mark(self.whiskers, part.whiskers if part is not None else None)
        draw_mark(self.medians, part.medians if part is not None else None)
        self.medians.selected = None

    def _row(self, content: dict) -> pd.Series | None:
        spread = self.spread
        index = hover_index(content, 0 if spread is None else len(spread))
        return None if spread is None or index is None else spread.iloc[index]

    def _hover(self, mark, content: dict) -> None:
        row = self._row(content)
        if row is not None:
            self.tooltip.value = spread_tooltip_html(row)

    def _click(self, mark, content: dict) -> None:
        row = self._row(content)
        if row is not None and self.on_click is not None:
            self.on_click(row)
