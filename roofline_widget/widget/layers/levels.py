"""``LevelsLayer``: the hierarchical roofline drawn in the widget (one dot per memory level).

A region/rank measured at several memory levels (L2, L3 and memory traffic,
see :mod:`roofline_widget.analysis.levels`) has one intensity per level and one FLOP
rate.  This layer draws one bqplot Scatter per level with its own marker
(``look.markers.LEVEL_MARKERS``, the static plot's shapes), joins the dots of
one region/rank by a thin line in the region's colour, and says in the status
line which levels are shown, how many rows each level left out and what
:func:`~roofline_widget.sanity_check` found.
Every drawn dot with a finding gets a hollow ring (``layer.rings``, colour
:data:`~roofline_widget.look.colors.FINDING_COLOR`) whose tooltip names the checks
and their details (hover texts and the status note: :mod:`roofline_widget.widget.html`).

The findings are computed in two parts: the checks that do not depend on the
ceilings (intensity order, uncore on one socket) once per selection, and the
``above roof`` check (:func:`~roofline_widget.analysis.sanity.above_roof_findings`, a
pass over the level points) again only when the measured roofs change, so a
peak drag reruns no :func:`~roofline_widget.sanity_check`; the ring arrays
are assigned only when they change.

The levels come from the widget's ``levels`` trait (``data.options["levels"]``,
``[]``: the layer draws nothing); the selection is the widget's
(``data.selection``), passed on to
:func:`~roofline_widget.analysis.levels.select_levels`.  The bandwidth roofs of the
levels are the widget's ceilings (``ceilings=machine_roofline(...)``), which
the figure already draws, one labelled slope each.
"""

from __future__ import annotations

from dataclasses import dataclass

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.levels import LEVELS, LevelSelection, detect_levels, select_levels
from roofline_widget.analysis.sanity import (
    above_roof_findings,
    checkable_roofs,
    flagged_points,
    merge_findings,
    sanity_check,
)
from roofline_widget.look.colors import FINDING_COLOR, PALETTE, POINT_STROKE, palette_color
from roofline_widget.look.markers import LEVEL_MARKERS
from roofline_widget.points import Selection
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.widget.html import (
    TOOLTIP_STYLE,
    level_tooltip_html,
    levels_status_html,
    ring_tooltip_html,
)
from roofline_widget.widget.layers.base import LayerInput, set_if_changed

__all__ = [
    "RING_SIZE",
    "LevelsLayer",
    "available_levels",
    "limit_groups",
    "measured_roofs",
    "shown_findings",
]

_KEY = ["file", "rank", "region"]
_X = schema.INTENSITY
_Y = schema.PERFORMANCE
_DOT_SIZE = 60
#: bqplot marker area of a finding's ring (a dot is 60).
RING_SIZE = 260
_EMPTY = np.zeros(0)


def available_levels(bandwidth_metrics) -> list[str]:
    """The memory levels measured in data with these bandwidth metrics, inner to outer."""
    chosen, _notes = detect_levels(bandwidth_metrics)
    return [level for level in LEVELS if level in chosen]


def limit_groups(frame: pd.DataFrame, max_groups: int) -> pd.DataFrame:
    """The rows of the ``max_groups`` longest-running (file, rank, region) groups, order kept."""
    keys = pd.MultiIndex.from_frame(frame[_KEY].astype({"file": str, "region": str}))
    groups = pd.unique(keys)
    if len(groups) <= max_groups:
        return frame
    runtime = frame.groupby([keys.get_level_values(i) for i in range(3)], sort=False)[
        schema.RUNTIME].max()
    kept = runtime.sort_values(ascending=False, kind="stable").index[:max_groups]
    return frame[keys.isin(kept)]


def shown_findings(findings: pd.DataFrame, levels) -> pd.DataFrame:
    """The findings of the shown ``levels``, and those of whole regions (no level)."""
    level = findings["level"]
    keep = level.isna() | level.astype(str).isin(list(levels))
    return findings[keep.to_numpy()].reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class _Drawn:
    """What the layer computed for one selection (kept while only the peaks change)."""

    points: object          # the widget's PointState the selection was made for
    levels: tuple
    selection: LevelSelection
    frame: pd.DataFrame     # the drawn rows (levels shown, budget applied)


class LevelsLayer:
    """Dots per memory level, joined per region/rank (a :class:`~roofline_widget.widget.layers.base.Layer`).

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
    tooltip : ipywidgets.HTML
        The hover text of a level dot (DOM class ``roofline-level-tooltip``).
    ring_tooltip : ipywidgets.HTML
        The hover text of a ring (DOM class ``roofline-finding-tooltip``).
    frame : pandas.DataFrame
        The rows drawn (:attr:`LevelSelection.points` of the shown levels).
    findings : pandas.DataFrame
        :func:`~roofline_widget.sanity_check` of the shown levels (and of whole regions).
    flagged : pandas.DataFrame
        The drawn rows that have a ring (:func:`~roofline_widget.analysis.sanity.flagged_points`).
    """

    def __init__(self, figure) -> None:
        scales = {"x": figure.x_scale, "y": figure.y_scale}
        colors = bq.ColorScale(colors=list(PALETTE), min=0, max=len(PALETTE) - 1)
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-level-tooltip")
        self.dots = {}
        for level in LEVELS:
            dots = bq.Scatter(x=_EMPTY, y=_EMPTY, color=_EMPTY, marker=LEVEL_MARKERS[level].bqplot,
                              scales={**scales, "color": colors}, default_size=_DOT_SIZE,
                              stroke=POINT_STROKE, stroke_width=0.8, tooltip=self.tooltip,
                              tooltip_style=dict(TOOLTIP_STYLE),
                              interactions={"hover": "tooltip"}, visible=False,
                              labels=[level], display_legend=False)
            dots.on_hover(lambda mark, content, lv=level: self._on_hover(lv, content))
            self.dots[level] = dots
        self.joins = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=scales,
                              colors=["#888888"], stroke_width=1.0, opacities=[0.7],
                              labels_visibility="none", visible=False)
        self.ring_tooltip = widgets.HTML()
        self.ring_tooltip.add_class("roofline-finding-tooltip")
        self.rings = bq.Scatter(x=_EMPTY, y=_EMPTY, scales=scales, marker="circle", fill=False,
                                colors=[FINDING_COLOR], stroke_width=2.5,
                                default_size=RING_SIZE, tooltip=self.ring_tooltip,
                                tooltip_style=dict(TOOLTIP_STYLE),
                                interactions={"hover": "tooltip"}, visible=False,
                                labels=["sanity findings"], display_legend=False)
        self.rings.on_hover(lambda mark, content: self._on_ring_hover(content))
        self.frame = pd.DataFrame(columns=[*_KEY, "level", _X, _Y])
        self.findings = merge_findings()
        self.flagged = flagged_points(self.frame, self.findings)
        self._drawn: _Drawn | None = None
        # (drawn, findings of the checks without ceilings)
        self._base_findings: tuple[_Drawn, pd.DataFrame] | None = None
        self._findings_key: tuple | None = None
        self._frames: dict = {}
        self._status = ""

    # ------------------------------------------------------------ Layer protocol
    @property
    def marks(self) -> tuple:
        return (self.joins, *self.dots.values(), self.rings)

    def update(self, data: LayerInput) -> None:
        """Select the level points for the widget's selection and assign the marks."""
        levels = tuple(data.options.get("levels") or ())
        if not levels or data.selection is None:
            self._hide()
            return
        drawn = self._drawn
        if drawn is None or drawn.points is not data.points or drawn.levels != levels:
            selection = select_levels(data.sums, selection=data.selection)
            frame = selection.points[selection.points["level"].astype(str).isin(levels)]
            frame = limit_groups(frame, int(data.options.get("max_points") or len(frame) or 1))
            drawn = _Drawn(data.points, levels, selection, frame.reset_index(drop=True))
            self._drawn = drawn
        self.frame = drawn.frame
        roofs = measured_roofs(data.roofline)
        key = (drawn, None if roofs is None else (roofs.compute, roofs.bandwidth))
        if self._findings_key != key:
            self.findings = self._sanity(data, data.selection, drawn, roofs)
            self.flagged = flagged_points(drawn.frame, self.findings)
            self._findings_key = key
        self._assign(drawn.frame, levels, data.color_codes(drawn.frame))
        self._assign_rings(self.flagged)
        self._status = levels_status_html(list(levels), drawn.selection.left_out, self.findings)

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        return (self.frame[_X].to_numpy(dtype=float), self.frame[_Y].to_numpy(dtype=float))

    def status(self) -> str:
        return self._status

    # ------------------------------------------------------------ helpers
    def _sanity(self, data: LayerInput, selection: Selection, drawn: _Drawn,
                roofs: Roofline | None) -> pd.DataFrame:
        """sanity_check(sums, ceilings=roofs) of the shown levels, its roof-free part cached.

        sanity_check takes a second on 48 ranks: the checks that ignore the
        ceilings run once per selection, the roof check again per set of roofs.
        """
        base = self._base_findings
        if base is None or base[0] is not drawn:
            base = self._base_findings = (drawn, sanity_check(data.sums, ceilings=None,
                                                              selection=selection))
        roof = above_roof_findings(drawn.selection.points, roofs)
        return shown_findings(merge_findings(base[1], roof), drawn.levels)

    def _hide(self) -> None:
        self._drawn = None
        self._base_findings = None
        self._findings_key = None
        self.frame = self.frame.iloc[:0]
        self.findings = self.findings.iloc[:0]
        self.flagged = self.flagged.iloc[:0]
        self._assign_rings(self.flagged)
        self._frames = {}
        self._status = ""
        for dots in self.dots.values():  # no dots left in the page (hidden or not)
            with dots.hold_sync():
                for name in ("x", "y", "color"):
                    set_if_changed(dots, name, _EMPTY)
                dots.visible = False
        self.joins.visible = False

    def _assign(self, frame: pd.DataFrame, levels: tuple, codes: np.ndarray) -> None:
        level_of = frame["level"].astype(str).to_numpy()
        self._frames = {}
        for level, dots in self.dots.items():
            mask = level_of == level
            shown = level in levels and bool(mask.any())
            self._frames[level] = frame[mask].reset_index(drop=True)
            with dots.hold_sync():
                set_if_changed(dots, "x", frame[_X].to_numpy(dtype=float)[mask])
                set_if_changed(dots, "y", frame[_Y].to_numpy(dtype=float)[mask])
                set_if_changed(dots, "color", np.asarray(codes, dtype=float)[mask])
                dots.visible = shown
        x, y, line_codes = _join_lines(frame, codes)
        with self.joins.hold_sync():
            if len(x):
                set_if_changed(self.joins, "x", x)
                set_if_changed(self.joins, "y", y)
                self.joins.colors = [palette_color(c) for c in line_codes]
                self.joins.opacities = [0.7] * len(x)
            self.joins.visible = bool(len(x))

    def _assign_rings(self, flagged: pd.DataFrame) -> None:
        """Rings at the flagged dots; arrays sent only when they changed."""
        with self.rings.hold_sync():
            set_if_changed(self.rings, "x", flagged[_X].to_numpy(dtype=float))
            set_if_changed(self.rings, "y", flagged[_Y].to_numpy(dtype=float))
            self.rings.visible = bool(len(flagged))

    def _on_ring_hover(self, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        if isinstance(index, int) and 0 <= index < len(self.flagged):
            self.ring_tooltip.value = ring_tooltip_html(self.flagged.iloc[index])

    def _on_hover(self, level: str, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        frame = self._frames.get(level)
        if frame is None or not isinstance(index, int) or not 0 <= index < len(frame):
            return
        self.tooltip.value = level_tooltip_html(frame.iloc[index])


def measured_roofs(roofline: Roofline | None) -> Roofline | None:
    """The roofs of ``roofline`` that are not empirical.

    See :func:`~roofline_widget.analysis.sanity.checkable_roofs`.
    """
    return checkable_roofs(roofline)


def _join_lines(frame: pd.DataFrame, codes: np.ndarray) -> tuple:
    """(x, y, colour code) of one line per (file, rank, region) with two or more dots.

    The rows of one group are consecutive (inner level first); shorter lines
    are padded with their last vertex so that bqplot gets rectangular arrays.
    """
    if frame.empty:
        return _EMPTY, _EMPTY, _EMPTY
    keys = frame[_KEY].astype({"file": str, "region": str})
    starts = np.flatnonzero((keys != keys.shift()).any(axis=1).to_numpy())
    ends = np.append(starts[1:], len(frame))
    keep = (ends - starts) >= 2
    starts, ends = starts[keep], ends[keep]
    if not len(starts):
        return _EMPTY, _EMPTY, _EMPTY
    width = int((ends - starts).max())
    xs, ys = frame[_X].to_numpy(dtype=float), frame[_Y].to_numpy(dtype=float)
    index = np.minimum(starts[:, None] + np.arange(width)[None, :], ends[:, None] - 1)
    return xs[index], ys[index], np.asarray(codes, dtype=float)[starts]
