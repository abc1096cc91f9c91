"""``LevelMarks``: a scene's memory levels drawn with bqplot (a Scatter per level, joins, rings).

The dots, joins and rings are the scene's
(:func:`~roofline_widget.scene.levels.levels_part`); here each level's dots
are a Scatter with its marker (DOM class ``roofline-level-<level>``), the
joins one Lines mark, the rings a hollow Scatter drawn after the dots, each
with its hover text (:mod:`roofline_widget.widget.html`).  Arrays are sent
only when they changed (``set_if_changed``): a peak drag that leaves the
findings alone sends nothing.
"""

from __future__ import annotations

import bqplot as bq
import numpy as np
import pandas as pd

from roofline_widget.analysis.levels import LEVELS
from roofline_widget.analysis.sanity import merge_findings
from roofline_widget.look.colors import FINDING_COLOR, PALETTE, POINT_STROKE
from roofline_widget.look.markers import FINDING_RING, LEVEL_DOT, LEVEL_MARKERS, OUTLINE, RING_STROKE
from roofline_widget.scene.parts import LevelsPart
from roofline_widget.widget.html import (
    TOOLTIP_STYLE,
    level_tooltip_html,
    ring_tooltip_html,
)
from roofline_widget.widget.layers.base import draw_mark, hover_index

__all__ = ["LevelMarks"]

_EMPTY = np.zeros(0)


class LevelMarks:
    """The bqplot marks of a scene's :class:`~roofline_widget.scene.parts.LevelsPart`.

    Parameters
    ----------
    figure : RooflineFigure
        The figure whose scales the marks use.

    Attributes
    ----------
    dots : dict
        Level -> bqplot.Scatter (marker ``look.markers.LEVEL_MARKERS``), DOM class
        ``roofline-level-<level>``.
    joins : bqplot.Lines
        One thin line per region/rank through its level dots.
    rings : bqplot.Scatter
        A hollow ring (stroke :data:`~roofline_widget.look.colors.FINDING_COLOR`) over
        every drawn dot with a finding, drawn after the dots.
    tooltip, ring_tooltip : ipywidgets.HTML
        The hover texts of a level dot and of a ring (DOM classes ``roofline-level-tooltip``,
        ``roofline-finding-tooltip``).
    part : LevelsPart or None
        What is drawn (None: nothing).
    """

    def __init__(self, figure) -> None:
        scales = {"x": figure.x_scale, "y": figure.y_scale}
        colors = bq.ColorScale(colors=list(PALETTE), min=0, max=len(PALETTE) - 1)
        self.part: LevelsPart | None = None
        self.tooltip = figure.looks.html(css="roofline-level-tooltip")
        self.dots = {}
        for level in LEVELS:
            dots = bq.Scatter(x=_EMPTY, y=_EMPTY, color=_EMPTY, marker=LEVEL_MARKERS[level].bqplot,
                              scales={**scales, "color": colors}, default_size=LEVEL_DOT.bqplot,
                              stroke=POINT_STROKE, stroke_width=OUTLINE.bqplot,
                              tooltip=self.tooltip, tooltip_style=dict(TOOLTIP_STYLE),
                              interactions={"hover": "tooltip"}, visible=False,
                              labels=[level], display_legend=False)
            dots.on_hover(lambda mark, content, lv=level: self._on_hover(lv, content))
            self.dots[level] = dots
        self.joins = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=scales,
                              colors=["#888888"], stroke_width=1.0, opacities=[0.7],
                              labels_visibility="none", visible=False)
        self.ring_tooltip = figure.looks.html(css="roofline-finding-tooltip")
        self.rings = bq.Scatter(x=_EMPTY, y=_EMPTY, scales=scales, marker="circle", fill=False,
                                colors=[FINDING_COLOR], stroke_width=RING_STROKE.bqplot,
                                default_size=FINDING_RING.bqplot, tooltip=self.ring_tooltip,
                                tooltip_style=dict(TOOLTIP_STYLE),
                                interactions={"hover": "tooltip"}, visible=False,
                                labels=["sanity findings"], display_legend=False)
        self.rings.on_hover(lambda mark, content: self._on_ring_hover(content))

    @property
    def marks(self) -> tuple:
        """The joins, each level's dots, the rings."""
        return (self.joins, *self.dots.values(), self.rings)

    @property
    def frame(self) -> pd.DataFrame:
        """The rows drawn (empty while nothing is)."""
        return self.part.frame if self.part is not None else pd.DataFrame(
            columns=["file", "rank", "region", "level"])

    @property
    def findings(self) -> pd.DataFrame:
        """:func:`~roofline_widget.sanity_check` of the levels shown."""
        return self.part.findings if self.part is not None else merge_findings()

    @property
    def flagged(self) -> pd.DataFrame:
        """The drawn rows that have a ring, with their checks and details."""
        return self.part.rings.rows if self.part is not None else self.frame.iloc[:0]

    def draw(self, part: LevelsPart | None) -> None:
        """Draw ``part`` (None: no dots left in the page, every mark hidden)."""
        self.part = part
        for level, mark in self.dots.items():
            draw_mark(mark, part.dots[level] if part is not None else None,
                      visible=part is not None and level in part.levels)
        draw_mark(self.joins, part.joins if part is not None else None)
        if part is not None and len(part.joins):
            self.joins.opacities = [part.joins.opacity] * len(part.joins)
        draw_mark(self.rings, part.rings if part is not None else None)

    def _on_ring_hover(self, content: dict) -> None:
        index = hover_index(content, len(self.flagged))
        if index is not None:
            self.ring_tooltip.value = ring_tooltip_html(self.flagged.iloc[index])

    def _on_hover(self, level: str, content: dict) -> None:
        rows = self.part.dots[level].rows if self.part is not None else None
        index = hover_index(content, 0 if rows is None else len(rows))
        if rows is not None and index is not None:
            self.tooltip.value = level_tooltip_html(rows.iloc[index])
