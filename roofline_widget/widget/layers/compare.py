"""The baseline layer: one arrow per matched region from a baseline run's point to the current one.

:class:`CompareLayer` implements the :class:`~roofline_widget.widget.layers.base.Layer`
protocol.  After every refresh of the widget it calls
:func:`~roofline_widget.compare_points` with the widget's own selection (the
same metrics, ranks, include/exclude patterns and ``combine_ranks``) on the
baseline run(s) and the widget's data, keeps the rows of what the widget shows
(:meth:`CompareLayer.frame`), and draws

- ``lines``: a dashed line from each region's baseline point to its current
  point (a chain: one segment per step, so the segments make a path),
  coloured as the region's points;
- ``heads``: one filled ``triangle-up`` per line, turned along the line as
  the line runs *on screen*, its tip at the edge of the end point;
- ``run_points``: one hollow Scatter per baseline run, each run with its own
  marker shape (``look.markers.RUN_MARKERS``, in chain order; the widget's own run keeps
  its filled circles);
- ``run_hits``: over each, the same markers filled but fully transparent, which
  carry the tooltip (both points, the speed-up and the changes): a hollow SVG
  marker is hit on its outline only, a filled one anywhere inside.

The heads are turned and placed by :mod:`roofline_widget.look.arrows` for the
size the scales are drawn over (:func:`~roofline_widget.look.plot_area.scale_size`
of the figure), again when the axis ranges change (a refresh, a pan or zoom)
or the figure's layout does; a peak drag that leaves the axes alone sends
nothing (``set_if_changed``).  Hover texts and the status note are built in
:mod:`roofline_widget.widget.html`.

The status line gives the median speed-up and the worst region, names every
region that got slower, each run's marker and how many regions are found in
one run only (names escaped).  A baseline that
cannot be compared (it lacks the widget's metric, ...) draws nothing and
says why in the status line.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.compare import compare_points
from roofline_widget.analysis.compare_summary import (
    baseline_beyond_hardware,
    before_points,
    speedup_summary,
)
from roofline_widget.look.arrows import ROTATION_SCALE_RANGE, head_positions, head_rotation
from roofline_widget.look.colors import OTHER_COLOR, PALETTE
from roofline_widget.look.log_axes import log_ranges
from roofline_widget.look.markers import HEAD_MARKER, HEAD_SIZE, run_marker
from roofline_widget.look.plot_area import scale_size
from roofline_widget.look.texts import BASELINE_RUN_LABEL, CURRENT_RUN_LABEL
from roofline_widget.points import RegionSums
from roofline_widget.widget.html import TOOLTIP_STYLE, compare_status_html, comparison_tooltip_html
from roofline_widget.widget.layers.base import LayerInput, set_if_changed
from roofline_widget.widget.point_keys import key_index
from roofline_widget.widget.point_style import COLOR_COLUMN, color_categories
from roofline_widget.widget.state import PointState

__all__ = ["CompareLayer", "baseline_runs"]

_X = schema.INTENSITY
#: Marker size (bqplot's area units) of the baseline runs' points.
_RUN_MARKER_SIZE = 70
_Y = schema.PERFORMANCE


def baseline_runs(baseline) -> list[tuple[str, RegionSums]]:
    """The baseline as ``[(label, RegionSums), ...]`` in chain order.

    Parameters
    ----------
    baseline : run data or mapping
        Anything :class:`~roofline_widget.points.RegionSums` aggregates (a
        ``LikwidRun``, a path, ``ProfilingResults``, a list of them): ONE
        baseline run labelled ``"baseline"``; or an ordered mapping
        ``{label: run data}``: a chain whose last step ends at the widget's data.

    Raises
    ------
    ValueError
        For an empty mapping or a label equal to ``look.texts.CURRENT_RUN_LABEL``.
    """
    if isinstance(baseline, Mapping):
        if not baseline:
            raise ValueError("baseline mapping is empty; give at least one {label: run}")
        runs = [(str(label), RegionSums.from_runs(data)) for label, data in baseline.items()]
        if CURRENT_RUN_LABEL in (label for label, _ in runs):
            raise ValueError(f"baseline label {CURRENT_RUN_LABEL!r} is reserved for the widget's "
                             "own data; rename that run")
        return runs
    return [(BASELINE_RUN_LABEL, RegionSums.from_runs(baseline))]


class CompareLayer:
    """Arrows from baseline points to the widget's points (see the module docstring).

    Parameters
    ----------
    x_scale, y_scale : bqplot.LogScale
        The figure's scales (their ``min``/``max`` are observed: the heads turn
        when the axes move).
    baseline : run data or mapping
        See :func:`baseline_runs`.
    match : dict or callable, optional
        Region renames, as ``compare_points(match=)``.
    plot : bqplot.Figure, optional
        The figure the marks are drawn in: its layout, margins and padding
        give the plot size the heads are turned for (``look.plot_area.scale_size``);
        its ``layout.width``/``height`` are observed.  None: the assumed size.

    Attributes
    ----------
    lines : bqplot.Lines
        One dashed line per row with both points.
    heads : bqplot.Scatter
        One ``triangle-up`` per line, at its end, turned along it on screen
        (``rotation``, degrees clockwise from up, through a rotation scale
        that bqplot maps onto ``[0, 180]``: identity).
    run_points : list of bqplot.Scatter
        Per baseline run (chain order) its points of the shown rows, hollow,
        marker ``look.markers.run_marker`` of its position.
    baseline_points : bqplot.Scatter
        The first run's Scatter (``run_points[0]``).
    tooltip : ipywidgets.HTML
        Hover text of a baseline point (DOM class ``roofline-compare-tooltip``).
    runs : list of (str, RegionSums)
        The baseline runs in chain order.  Assigning a list with another number
        of runs makes new ``run_points`` (and so new ``marks``: the figure must
        take them again).
    error : str
        Why the last update compared nothing ("" when it did).
    """

    def __init__(self, x_scale, y_scale, baseline, *, match=None, plot=None) -> None:
        self.match = match
        self.error = ""
        self.notes: list[str] = []
        self.x_scale, self.y_scale, self.plot = x_scale, y_scale, plot
        self._frame = pd.DataFrame()
        self._drawn = pd.DataFrame()
        self._drawn_by_run: list[pd.DataFrame] = []
        self._segments = np.zeros((0, 4))  # x0, y0, x1, y1 of each line
        # (points, runs) the frame was compared for
        self._compared_for: tuple[PointState, list] | None = None
        self._scales = {"x": x_scale, "y": y_scale}
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-compare-tooltip")
        self.lines = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=self._scales,
                              line_style="dashed", stroke_width=2, opacities=[0.85],
                              labels_visibility="none", visible=False)
        rotation = bq.LinearScale(min=ROTATION_SCALE_RANGE[0], max=ROTATION_SCALE_RANGE[1])
        self.heads = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), rotation=np.zeros(0),
            scales={**self._scales, "rotation": rotation}, marker=HEAD_MARKER.bqplot,
            default_size=HEAD_SIZE, colors=["gray"], opacities=[0.9], visible=False)
        self.run_points: list[bq.Scatter] = []
        self.run_hits: list[bq.Scatter] = []
        self._runs: list[tuple[str, RegionSums]] = []
        self.runs = baseline_runs(baseline)
        for scale in (x_scale, y_scale):
            scale.observe(self._on_axes, names=["min", "max"])
        if plot is not None:
            plot.layout.observe(self._on_axes, names=["width", "height"])

    @property
    def runs(self) -> list[tuple[str, RegionSums]]:
        """The baseline runs ``[(label, RegionSums), ...]`` in chain order."""
        return self._runs

    @runs.setter
    def runs(self, runs: list[tuple[str, RegionSums]]) -> None:
        self._runs = runs
        if runs and len(runs) != len(self.run_points):
            self.run_points = [self._run_scatter(i) for i in range(len(runs))]
            self.run_hits = [self._hit_scatter(i) for i in range(len(runs))]

    def _run_scatter(self, index: int) -> bq.Scatter:
        """The hollow markers of baseline run ``index`` (seen, not hovered)."""
        return bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker=run_marker(index).bqplot,
            fill=False, stroke_width=2, default_size=_RUN_MARKER_SIZE, opacities=[0.7],
            colors=["gray"], interactions={}, visible=False)

    def _hit_scatter(self, index: int) -> bq.Scatter:
        """Transparent filled markers over run ``index``'s: hovered anywhere inside."""
        scatter = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker=run_marker(index).bqplot,
            fill=True, stroke_width=2, default_size=_RUN_MARKER_SIZE, opacities=[0.0],
            colors=["white"], tooltip=self.tooltip, tooltip_style=dict(TOOLTIP_STYLE),
            interactions={"hover": "tooltip"}, visible=False)
        scatter.on_hover(self._on_hover)
        return scatter

    @property
    def baseline_points(self) -> bq.Scatter:
        """The first baseline run's points (the only run of a pair)."""
        return self.run_points[0]

    @property
    def labels(self) -> list[str]:
        """The baseline runs' labels, in chain order."""
        return [label for label, _ in self.runs]

    # ------------------------------------------------------------ the Layer protocol
    @property
    def marks(self) -> tuple:
        """The lines, the heads, each run's hollow points, then their hover targets."""
        return (self.lines, self.heads, *self.run_points, *self.run_hits)

    def update(self, data: LayerInput) -> None:
        """Compare with the widget's selection, keep the shown rows, assign the marks.

        The comparison is computed once per selection (the widget's
        ``PointState``) and baseline; a peak change only restyles.
        """
        self._assign(self.compared(data), data)

    def compared(self, data: LayerInput) -> pd.DataFrame:
        """The comparison rows of the widget's selection (computed once per selection and baseline).

        ``data.roofline`` is not used: the widget asks for the rows before its
        ceilings are made, so that empirical roofs hold the baseline points too.
        """
        compared_for = self._compared_for
        if compared_for is None or compared_for[0] is not data.points \
                or compared_for[1] is not self.runs:
            self.error, self.notes = "", []
            frame = pd.DataFrame()
            if self.runs and data.selection is not None:
                try:
                    frame = self._compare(data)
                except (ValueError, TypeError) as exc:
                    self.error = str(exc)
            self._frame = frame
            self._compared_for = (data.points, self.runs)
        return self._frame

    def baseline_rows(self, data: LayerInput) -> pd.DataFrame:
        """The baseline runs' points of :meth:`compared` as point rows (for empirical roofs),
        :func:`~roofline_widget.analysis.compare_summary.before_points`."""
        return before_points(self.compared(data))

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """The baseline points drawn (the current points are the widget's own), but those
        beyond what their hardware can do (a broken counter: the axes follow the others)."""
        drawn = self._drawn
        if drawn.empty:
            return np.zeros(0), np.zeros(0)
        drawn = drawn[~baseline_beyond_hardware(drawn)]
        return (drawn[_X + "_before"].to_numpy(dtype=float),
                drawn[_Y + "_before"].to_numpy(dtype=float))

    def status(self) -> str:
        """Median and worst speed-up, slowdowns, markers per run, regions of one run (escaped HTML)."""
        frame = self._frame
        if self.error or frame.empty:
            return compare_status_html(error=self.error)
        only_in = []
        for status, side in (("only before", "run_before"), ("only after", "run_after")):
            rows = frame[frame["status"] == status]
            for run in dict.fromkeys(rows[side]):
                only_in.append((run, list(dict.fromkeys(rows.loc[rows[side] == run, "region"]))))
        summary = speedup_summary(frame)
        return compare_status_html(median=summary.median, count=summary.count,
                                   worst=summary.worst, slowdowns=summary.slowdowns,
                                   labels=self.labels, only_in=only_in, notes=self.notes)

    # ------------------------------------------------------------ public results
    def frame(self) -> pd.DataFrame:
        """The comparison rows of what the widget shows (:func:`compare_points` columns)."""
        return self._frame.reset_index(drop=True)

    def median_speedup(self) -> float:
        """Median speed-up of the current run over the first baseline run (NaN if none)."""
        return speedup_summary(self._frame).median

    def drawn_points(self, label: str) -> pd.DataFrame:
        """The rows whose baseline point of run ``label`` is drawn (in its Scatter's order)."""
        index = self.labels.index(label)
        if index >= len(self._drawn_by_run):
            return self._drawn.iloc[0:0]
        return self._drawn_by_run[index]

    # ------------------------------------------------------------ internals
    def _compare(self, data: LayerInput) -> pd.DataFrame:
        runs = [*self.runs, (CURRENT_RUN_LABEL, data.sums)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if len(runs) == 2:
                frame = compare_points(runs[0][1], runs[1][1], match=self.match,
                                       selection=data.selection)
                frame["run_before"], frame["run_after"] = runs[0][0], CURRENT_RUN_LABEL
            else:
                frame = compare_points(dict(runs), match=self.match, selection=data.selection)
        self.notes = list(dict.fromkeys(str(w.message) for w in caught))
        return _shown_rows(frame, data.points.points, data.points.shown)

    def _assign(self, frame: pd.DataFrame, data: LayerInput) -> None:
        both = frame[frame["status"] == "both"] if not frame.empty else frame
        has_before = (frame[frame[_Y + "_before"].notna()] if not frame.empty else frame)
        self._drawn = has_before.reset_index(drop=True)
        labels = self.labels
        self._drawn_by_run = [self._drawn[self._drawn["run_before"] == label].reset_index(
            drop=True) if not self._drawn.empty else self._drawn for label in labels]
        if both.empty:
            self._segments = np.zeros((0, 4))
        else:
            self._segments = both[[_X + "_before", _Y + "_before", _X + "_after",
                                   _Y + "_after"]].to_numpy(dtype=float)
        with self.lines.hold_sync(), self.heads.hold_sync():
            if both.empty:
                self.lines.visible = self.heads.visible = False
            else:
                set_if_changed(self.lines, "x", self._segments[:, [0, 2]])
                set_if_changed(self.lines, "y", self._segments[:, [1, 3]])
                colours = _colors(both, data)
                self.lines.colors = colours
                self.heads.colors = colours
                self._place_heads()
                self.lines.visible = self.heads.visible = True
        for index, (scatter, hit) in enumerate(zip(self.run_points, self.run_hits)):
            drawn = (self._drawn_by_run[index] if index < len(self._drawn_by_run)
                     else self._drawn.iloc[0:0])
            x = drawn[_X + "_before"].to_numpy(dtype=float) if not drawn.empty else np.zeros(0)
            y = drawn[_Y + "_before"].to_numpy(dtype=float) if not drawn.empty else np.zeros(0)
            with scatter.hold_sync(), hit.hold_sync():
                for mark in (scatter, hit):
                    set_if_changed(mark, "x", x)
                    set_if_changed(mark, "y", y)
                    mark.visible = not drawn.empty
                scatter.colors = _colors(drawn, data) if not drawn.empty else ["gray"]

    def _place_heads(self) -> None:
        """Heads at the lines' ends, turned for the scales' current ranges and the plot size."""
        segments = self._segments
        ranges = log_ranges(self.x_scale, self.y_scale)
        if ranges is None:
            return
        if not len(segments):
            values = {"x": np.zeros(0), "y": np.zeros(0), "rotation": np.zeros(0)}
        else:
            size = scale_size(self.plot)
            (x0, y0, x1, y1), (x_range, y_range) = segments.T, ranges
            x, y = head_positions(x0, y0, x1, y1, x_range, y_range, size)
            values = {"x": x, "y": y,
                      "rotation": head_rotation(x0, y0, x1, y1, x_range, y_range, size)}
        with self.heads.hold_sync():
            for name, value in values.items():
                set_if_changed(self.heads, name, value)

    def _on_axes(self, change) -> None:
        """An axis range or the figure's size changed: turn and place the heads again."""
        self._place_heads()

    def _on_hover(self, mark, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        runs = [i for i, (scatter, hit) in enumerate(zip(self.run_points, self.run_hits))
                if mark is scatter or mark is hit] or [0]
        drawn = self._drawn_by_run[runs[0]] if runs[0] < len(self._drawn_by_run) else self._drawn
        if isinstance(index, int) and 0 <= index < len(drawn):
            self.tooltip.value = comparison_tooltip_html(drawn.iloc[index])


def _shown_rows(frame: pd.DataFrame, points: pd.DataFrame, shown: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` whose current point is drawn, or that have no current point.

    A key (region, rank, device) whose current point is among the widget's
    points but not drawn (over ``max_points``) loses its rows in every step.
    """
    if len(shown) == len(points):
        return frame.reset_index(drop=True)
    last = frame if "step" not in frame else frame[frame["step"] == frame["step"].max()]
    after = pd.MultiIndex.from_arrays([last["file_after"].astype(object).to_numpy(),
                                       last["rank"].to_numpy(dtype=np.int64),
                                       last["region_after"].astype(object).to_numpy()])
    hidden = after.isin(key_index(points)) & ~after.isin(key_index(shown))
    hidden_keys = pd.MultiIndex.from_frame(last.loc[hidden, ["region", "rank", "device"]])
    keys = pd.MultiIndex.from_frame(frame[["region", "rank", "device"]])
    return frame[~keys.isin(hidden_keys)].reset_index(drop=True)


def _colors(rows: pd.DataFrame, data: LayerInput) -> list[str]:
    """The palette colour of each row: its region's (run's, rank's) colour in the widget.

    The region name is the current run's name where the last run has the
    region, so a region keeps the colour of its point; a region (run, rank)
    the widget's data lacks is grey.
    """
    region = rows["region_after"].where(rows["region_after"].notna(), rows["region_before"])
    file = rows["file_after"].where(rows["file_after"].notna(), rows["file_before"])
    like_points = pd.DataFrame({"region": region.astype(object).to_numpy(),
                                "file": file.astype(object).to_numpy(),
                                "rank": rows["rank"].to_numpy(dtype=np.int64)})
    color_by = data.options.get("color_by", "region")
    categories = color_categories(data.sums, color_by, bool(data.options.get("combine_ranks")))
    column = COLOR_COLUMN[color_by]  # a comparison's rows name no device family: grey then
    known = (like_points[column].isin(categories).to_numpy() if column in like_points
             else np.zeros(len(like_points), dtype=bool))
    colours = np.full(len(rows), OTHER_COLOR, dtype=object)
    if known.any():
        codes = np.asarray(data.color_codes(like_points[known]), dtype=int)
        colours[known] = [PALETTE[code] for code in codes]
    return list(colours)
