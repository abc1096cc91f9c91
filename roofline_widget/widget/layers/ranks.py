"""The ranks view: one point per region with whiskers over its ranks (:class:`RanksLayer`).

With many MPI ranks one point per rank is unreadable (and past the widget's
``max_points`` budget only the longest-running ranks are drawn).  In the
widget's ``rank_view="spread"`` this layer draws, per region, the rank
median (median intensity, median GFLOP/s, each over the region's ranks) and
two whiskers from the minimum to the maximum over the ranks, one in
intensity and one in GFLOP/s, coloured by :func:`~roofline_widget.rank_spread`'s
imbalance (max / mean runtime).  Regions named in ``expanded_regions`` show
their ranks as the widget's own points (:meth:`RanksLayer.scatter_points`);
clicking a median point toggles that.
"""

from __future__ import annotations

from collections.abc import Callable

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.spread import rank_spread
from roofline_widget.look.colors import IMBALANCE_COLORS, POINT_STROKE
from roofline_widget.look.markers import SQUARE
from roofline_widget.points import Selection
from roofline_widget.settings import RANK_VIEW_CHOICES
from roofline_widget.widget.html import (
    TOOLTIP_STYLE,
    points_budget_hint_html,
    spread_status_html,
    spread_tooltip_html,
)
from roofline_widget.widget.layers.base import LayerInput, set_if_changed
from roofline_widget.widget.state import PointState, apply_budget

__all__ = ["RANK_VIEWS", "RanksLayer", "effective_view", "whisker_arrays"]

#: Values of the widget's ``rank_view``: one point per rank, the spread per region, or
#: the spread only when the rank points exceed ``max_points``.
RANK_VIEWS = RANK_VIEW_CHOICES
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


def effective_view(rank_view: str, n_points: int, max_points: int, n_ranks: int,
                   combine_ranks: bool) -> str:
    """"points" or "spread": what ``rank_view`` means for this selection.

    ``"auto"`` is "spread" when more points than ``max_points`` are selected
    from more than one rank; summed ranks (``combine_ranks``) are one point
    per region already, so they are always drawn as points.
    """
    if combine_ranks or n_ranks < 2:
        return "points"
    if rank_view == "auto":
        return "spread" if n_points > max_points else "points"
    return rank_view


def _positive_or(values: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """``values`` where positive and finite (drawable on a log axis), else ``fallback``."""
    return np.where(np.isfinite(values) & (values > 0), values, fallback)


def _drawable(spread: pd.DataFrame) -> pd.DataFrame:
    """The regions whose median point lies on the log axes."""
    x, y = spread[f"{_X}_median"], spread[f"{_Y}_median"]
    return spread[np.isfinite(x) & (x > 0) & np.isfinite(y) & (y > 0)].reset_index(drop=True)


def whisker_arrays(spread: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """x and y of the whiskers, shape (2 * regions, 2): per region intensity then GFLOP/s.

    A whisker end that is not positive (a rank with zero FLOPs) starts at the median.
    """
    xm, ym = spread[f"{_X}_median"].to_numpy(float), spread[f"{_Y}_median"].to_numpy(float)
    x0 = _positive_or(spread[f"{_X}_min"].to_numpy(float), xm)
    x1 = _positive_or(spread[f"{_X}_max"].to_numpy(float), xm)
    y0 = _positive_or(spread[f"{_Y}_min"].to_numpy(float), ym)
    y1 = _positive_or(spread[f"{_Y}_max"].to_numpy(float), ym)
    n = len(spread)
    xs, ys = np.empty((2 * n, 2)), np.empty((2 * n, 2))
    xs[0::2], ys[0::2] = np.column_stack([x0, x1]), np.column_stack([ym, ym])
    xs[1::2], ys[1::2] = np.column_stack([xm, xm]), np.column_stack([y0, y1])
    return xs, ys


class RanksLayer:
    """Rank medians and min–max whiskers per region (a :class:`~roofline_widget.widget.layers.base.Layer`).

    Parameters
    ----------
    figure : RooflineFigure
        The figure whose scales the marks use.
    on_click : callable, optional
        ``on_click(region)`` when a region's median point is clicked (the
        widget toggles the region in ``expanded_regions``).

    Attributes
    ----------
    whiskers : bqplot.Lines
        Two lines per drawn region (intensity, then GFLOP/s), coloured by imbalance.
    medians : bqplot.Scatter
        One square per drawn region at its rank median (DOM: ``.dot``).
    tooltip : ipywidgets.HTML
        The medians' hover text (DOM class ``roofline-spread-tooltip``).
    spread : pandas.DataFrame or None
        :func:`rank_spread` of the drawn regions (None while the layer is off).
    view : str
        "points" or "spread": what the last update drew.
    """

    def __init__(self, figure, on_click: Callable[[str], None] | None = None) -> None:
        self._on_click = on_click
        self._cache: tuple | None = None
        self._notes: list[str] = []
        self._expanded_note = ""
        self._points_hint = ""
        self.spread: pd.DataFrame | None = None
        self.view = "points"
        self.n_regions = 0
        self.color_scale = bq.ColorScale(colors=list(IMBALANCE_COLORS), min=1.0, max=1.1)
        scales = {"x": figure.x_scale, "y": figure.y_scale, "color": self.color_scale}
        self.whiskers = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), color=np.ones(1),
                                 scales=scales, stroke_width=2, visible=False,
                                 labels_visibility="none")
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-spread-tooltip")
        self.medians = bq.Scatter(x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
                                  scales=scales, marker=SQUARE.bqplot, default_size=80,
                                  stroke=POINT_STROKE, stroke_width=1.2, visible=False,
                                  tooltip=self.tooltip,
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
        """True when the last update drew the spread (the rank points are hidden)."""
        return self.view == "spread"

    # ------------------------------------------------------------ Layer protocol
    def update(self, data: LayerInput) -> None:
        """Compute the spread of the widget's selection and draw it (or hide the marks)."""
        options = data.options
        points = data.points
        self._notes = []
        self.view = effective_view(options.get("rank_view", "points"), len(points.points),
                                   options["max_points"], len(data.sums.ranks),
                                   bool(options.get("combine_ranks")))
        self._points_hint = self._hint(points, options["max_points"], len(data.sums.ranks))
        if self.view != "spread" or data.selection is None:
            self.view = "points"
            self.spread = None
            self.n_regions = 0
            self._hide()
            return
        if options.get("rank_view") == "auto":
            self._notes.append(f"rank_view='auto': {len(points.points):,} points exceed "
                               f"max_points={options['max_points']:,}")
        spread = self._spread(data, data.selection)
        drawable = _drawable(spread)
        if len(drawable) < len(spread):
            self._notes.append(f"{len(spread) - len(drawable):,} region(s) without a positive "
                               "median FLOP rate and intensity not drawn")
        budget = options["max_points"]
        if len(drawable) > budget:
            self._notes.append(f"drawing the {budget:,} of {len(drawable):,} regions with the "
                               f"longest rank runtime (max_points={budget:,})")
            drawable = drawable.sort_values("runtime_seconds_max", ascending=False,
                                            kind="stable").head(budget).reset_index(drop=True)
        self.spread = drawable
        self.n_regions = len(drawable)
        self._draw(drawable)

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """The whisker ends (nothing while the layer is off)."""
        if not self.active or self.spread is None or not len(self.spread):
            return np.zeros(0), np.zeros(0)
        xs, ys = whisker_arrays(self.spread)
        return xs.ravel(), ys.ravel()

    def status(self) -> str:
        """What the ranks view draws, its colour scale, or a hint past the budget."""
        if not self.active:
            return self._points_hint
        return spread_status_html(self.n_regions, float(self.color_scale.max),
                                  [*self._notes, self._expanded_note])

    # ------------------------------------------------------------ for the widget
    def scatter_points(self, points: PointState, expanded: list, max_points: int):
        """The rank points the widget's scatter draws in the spread view, or None.

        None in the points view (the widget draws ``points.shown``).  In the
        spread view: the points of the ``expanded`` regions, at most
        ``max_points`` minus the median points drawn (the longest-running).
        """
        if not self.active:
            return None
        frame = points.points
        rows = frame[frame["region"].astype(object).isin(list(expanded))]
        budget = max(max_points - self.n_regions, 0)
        self._expanded_note = ""
        if len(rows) > budget:
            self._expanded_note = (f"expanded: drawing {budget:,} of {len(rows):,} rank "
                                   f"points (max_points={max_points:,} includes the medians)")
        return apply_budget(rows.reset_index(drop=True), budget).head(budget)

    # ------------------------------------------------------------ internals
    def _hint(self, points: PointState, max_points: int, n_ranks: int) -> str:
        """The points view past the budget: how many are drawn, and the spread suggested."""
        if self.view == "spread" or not points.over_budget or n_ranks < 2:
            return ""
        return points_budget_hint_html(len(points.shown), len(points.points), max_points)

    def _spread(self, data: LayerInput, selection: Selection) -> pd.DataFrame:
        """rank_spread of the selection, computed once per selection."""
        key = id(data.points.points)
        if self._cache is not None and self._cache[0] == key \
                and self._cache[1] is data.points.points:
            return self._cache[2]
        # over ranks, each rank's bandwidth its share of what its point sums (the grouping in effect)
        spread = rank_spread(data.sums, selection=selection)
        self._cache = (key, data.points.points, spread)
        return spread

    def _draw(self, spread: pd.DataFrame) -> None:
        imbalance = spread["imbalance"].to_numpy(float)
        imbalance = np.where(np.isfinite(imbalance), imbalance, 1.0)
        if not len(spread):
            self._hide()
            return
        xs, ys = whisker_arrays(spread)
        high = max(float(imbalance.max()), 1.0 + 1e-3)
        with self.whiskers.hold_sync(), self.medians.hold_sync(), self.color_scale.hold_sync():
            self.color_scale.min, self.color_scale.max = 1.0, high
            set_if_changed(self.whiskers, "x", xs)
            set_if_changed(self.whiskers, "y", ys)
            set_if_changed(self.whiskers, "color", np.repeat(imbalance, 2))
            set_if_changed(self.medians, "x", spread[f"{_X}_median"].to_numpy(float))
            set_if_changed(self.medians, "y", spread[f"{_Y}_median"].to_numpy(float))
            set_if_changed(self.medians, "color", imbalance)
            self.medians.selected = None
            self.whiskers.visible = self.medians.visible = True

    def _hide(self) -> None:
        if not self.medians.visible and not self.whiskers.visible:
            return
        with self.whiskers.hold_sync(), self.medians.hold_sync():
            self.whiskers.visible = self.medians.visible = False
            self.medians.x, self.medians.y, self.medians.color = (np.zeros(0),) * 3

    def _row(self, content: dict) -> pd.Series | None:
        point = content.get("data") or content.get("point") or {}
        index = point.get("index")
        spread = self.spread
        if spread is None or not isinstance(index, int) or not 0 <= index < len(spread):
            return None
        return spread.iloc[index]

    def _hover(self, mark, content: dict) -> None:
        row = self._row(content)
        if row is not None:
            self.tooltip.value = spread_tooltip_html(row)

    def _click(self, mark, content: dict) -> None:
        row = self._row(content)
        if row is not None and self._on_click is not None:
            self._on_click(str(row["region"]))
