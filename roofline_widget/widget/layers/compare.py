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
  the line runs *on screen*, its tip at the edge of the end point (see
  below);
- ``run_points``: one hollow Scatter per baseline run, each run with its own
  marker shape (:data:`RUN_MARKERS`, in chain order; the widget's own run keeps
  its filled circles), with a tooltip giving both points, the speed-up and the
  changes.

Arrow heads without JavaScript
------------------------------
bqplot has no oriented arrow mark, but a ``Scatter`` turns each marker by its
``rotation`` value: the front end maps it through the mark's rotation scale
onto ``[0, 180]`` and applies SVG ``rotate(angle)`` (degrees, clockwise on
screen; a ``triangle-up`` points up at 0).  A ``LinearScale(min=0, max=180)``
is the identity, and d3 does not clamp, so any angle in degrees passes
unchanged (:data:`ROTATION_SCALE_RANGE`).

A line's direction on screen depends on the plot's size in pixels, which the
kernel never learns: :func:`plot_area_size` takes the figure's
``layout.width``/``layout.height`` when they are given in ``px`` (the
widget's figure is 500 px high), :data:`ASSUMED_FIGURE_WIDTH_PX` otherwise
(the figure is ``width: 100%``), applies bqplot's ``min_aspect_ratio``/
``max_aspect_ratio``, ``fig_margin`` and ``padding_x``/``padding_y``.  At
another width a head is turned by the error of that assumption (a segment at
45 degrees on the assumed plot is at 39.8 degrees on a plot 20 % wider), but
it always sits ON its line: it is placed by moving back from the end along
the line in log-log coordinates (:func:`head_positions`).  The rotations
and positions are computed again when the axis ranges change (a refresh, a
pan or zoom) or the figure's layout does; a peak drag that leaves the axes
alone sends nothing (``set_if_changed``).

The status line names each run's marker, says the median speed-up and how
many regions are found in one run only (names escaped).  A baseline that
cannot be compared (it lacks the widget's metric, ...) draws nothing and
says why in the status line.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Mapping

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.compare import compare_points
from roofline_widget.look import style
from roofline_widget.points import RegionSums
from roofline_widget.widget.layers.base import LayerInput, set_if_changed
from roofline_widget.widget.state import COLOR_COLUMN, color_categories

__all__ = [
    "ASSUMED_FIGURE_HEIGHT_PX",
    "ASSUMED_FIGURE_WIDTH_PX",
    "CURRENT_LABEL",
    "CURRENT_MARKER",
    "HEAD_GAP_PX",
    "HEAD_MARKER",
    "HEAD_SIZE",
    "MARKER_SYMBOLS",
    "NAMES_SHOWN",
    "ROTATION_SCALE_RANGE",
    "RUN_MARKERS",
    "CompareLayer",
    "baseline_runs",
    "bqplot_rotation",
    "comparison_tooltip_html",
    "head_positions",
    "head_rotation",
    "plot_area_size",
    "run_marker",
    "runs_legend_html",
    "screen_angle",
]

#: The label of the widget's own run in a comparison (``run_after`` of the last step).
CURRENT_LABEL = "current"
#: At most this many region names are listed per status sentence.
NAMES_SHOWN = 8
#: Marker shapes of the baseline runs, in chain order (cycled past the last, with a note).
RUN_MARKERS = ("square", "diamond", "cross", "triangle-down")
#: The marker of the widget's own points (its Scatter's default).
CURRENT_MARKER = "circle"
#: How the status line shows a marker shape (hollow baseline shapes, filled current points).
MARKER_SYMBOLS = {"square": "□", "diamond": "◇", "cross": "✚", "triangle-down": "▽",
                  "circle": "●"}
#: The arrow head: bqplot's triangle-up (points up at rotation 0).
HEAD_MARKER = "triangle-up"
#: Area of an arrow head in px² (bqplot's ``default_size``): 12.2 px wide, 5.3 px from centre to tip.
HEAD_SIZE = 64
#: The widget's points' ``default_size`` (px²): a radius of 5.35 px.
_POINT_SIZE = 90
#: Distance (px) from a line's end to its head's centre: the tip touches the end point's edge.
HEAD_GAP_PX = float(np.sqrt(_POINT_SIZE / np.pi) + np.sqrt(HEAD_SIZE / np.sqrt(3)) * np.sqrt(3) / 2)
#: Width (px) assumed for a figure whose ``layout.width`` is not in px (the widget's is 100%).
ASSUMED_FIGURE_WIDTH_PX = 900.0
#: Height (px) assumed for a figure whose ``layout.height`` is not in px (the widget's is 500px).
ASSUMED_FIGURE_HEIGHT_PX = 500.0
#: bqplot maps a Scatter's rotation scale onto this range (``ScatterBase.set_ranges``).
ROTATION_SCALE_RANGE = (0.0, 180.0)
_BASELINE_LABEL = "baseline"
#: Colour of a baseline point whose region (run, rank) the widget's data lacks.
_UNKNOWN_COLOUR = "#7f7f7f"
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


# ---------------------------------------------------------------------------
# arrow heads: pure geometry
# ---------------------------------------------------------------------------
def _pixels(length) -> float | None:
    """``"640px"`` or ``"640"`` as 640.0; None for anything else (``"100%"``, None)."""
    if length is None:
        return None
    text = str(length).strip()
    text = text[:-2] if text.endswith("px") else text
    try:
        value = float(text)
    except ValueError:
        return None
    return value if np.isfinite(value) and value > 0 else None


def plot_area_size(plot) -> tuple[float, float]:
    """The size (px) of the plot area of a ``bqplot.Figure``, as the front end lays it out.

    Parameters
    ----------
    plot : bqplot.Figure or None
        Its ``layout.width``/``layout.height`` when given in px, else
        :data:`ASSUMED_FIGURE_WIDTH_PX`/:data:`ASSUMED_FIGURE_HEIGHT_PX`;
        then bqplot's rule: the box is narrowed (or lowered) to stay within
        ``min_aspect_ratio``..``max_aspect_ratio``, less ``fig_margin``, less
        ``padding_x``/``padding_y`` (fractions of the plot area, each side).
        None: the assumed size, margins of the widget's figure.

    Returns
    -------
    (float, float)
        Width and height (px) over which the x and y scales' ranges are drawn.
    """
    layout = getattr(plot, "layout", None)
    width = _pixels(getattr(layout, "width", None)) or ASSUMED_FIGURE_WIDTH_PX
    height = _pixels(getattr(layout, "height", None)) or ASSUMED_FIGURE_HEIGHT_PX
    if plot is None:
        margin, low, high, pad_x, pad_y = ({"top": 24, "bottom": 50, "left": 70, "right": 16},
                                           0.01, 100.0, 0.0, 0.025)
    else:
        margin, low, high = plot.fig_margin, plot.min_aspect_ratio, plot.max_aspect_ratio
        pad_x, pad_y = plot.padding_x, plot.padding_y
    if width / height < low:
        height = width / low
    elif width / height > high:
        width = height * high
    area_w = width - margin.get("left", 0) - margin.get("right", 0)
    area_h = height - margin.get("top", 0) - margin.get("bottom", 0)
    return (max(area_w * (1 - 2 * pad_x), 1.0), max(area_h * (1 - 2 * pad_y), 1.0))


def _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size):
    """Each segment's run (right) and rise (up) on screen, px, on log-log axes."""
    width, height = plot_size
    x_decades = np.log10(x_range[1]) - np.log10(x_range[0])
    y_decades = np.log10(y_range[1]) - np.log10(y_range[0])
    dx = (_log10(x1) - _log10(x0)) / x_decades * width
    dy = (_log10(y1) - _log10(y0)) / y_decades * height
    return dx, dy


def _log10(values) -> np.ndarray:
    """log10 of positive values, NaN for the rest."""
    values = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(values > 0, np.log10(values), np.nan)


def screen_angle(x0, y0, x1, y1, x_range, y_range, plot_size) -> np.ndarray:
    """Direction on screen of segments from (x0, y0) to (x1, y1) on log-log axes.

    Parameters
    ----------
    x0, y0, x1, y1 : array_like
        The segments' starts and ends in data units (positive).
    x_range, y_range : (float, float)
        The axes' (min, max) in data units.
    plot_size : (float, float)
        Width and height (px) the ranges are drawn over (:func:`plot_area_size`).

    Returns
    -------
    numpy.ndarray
        Degrees counter-clockwise from the +x axis, y up (as a reader sees the
        plot), in (-180, 180]: ``atan2(Δlog10 y / y decades × height,
        Δlog10 x / x decades × width)``.  A segment of length 0 gives 0; a
        non-positive or NaN coordinate gives NaN.
    """
    dx, dy = _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size)
    return np.degrees(np.arctan2(dy, dx))


def bqplot_rotation(angle) -> np.ndarray:
    """The Scatter ``rotation`` (degrees) that turns a ``triangle-up`` to point at ``angle``.

    bqplot applies SVG ``rotate(r)``: clockwise on screen, and a
    ``triangle-up`` points up (90° counter-clockwise from +x) at r = 0, so
    ``r = (90 - angle) mod 360``: right is 90, down 180, left 270.  NaN stays NaN.
    """
    return np.mod(90.0 - np.asarray(angle, dtype=float), 360.0)


def head_rotation(x0, y0, x1, y1, x_range, y_range, plot_size) -> np.ndarray:
    """Rotation of each segment's head: :func:`bqplot_rotation` of :func:`screen_angle`."""
    return bqplot_rotation(screen_angle(x0, y0, x1, y1, x_range, y_range, plot_size))


def head_positions(x0, y0, x1, y1, x_range, y_range, plot_size,
                   gap_px: float = HEAD_GAP_PX) -> tuple[np.ndarray, np.ndarray]:
    """Where each head's centre goes: ``gap_px`` back from the segment's end, on the segment.

    The point is moved back along the segment in log10 coordinates (a straight
    line on log-log axes), by the fraction ``gap_px / length`` (length in px
    on ``plot_size``; at most the whole segment), so a head stays on its line
    whatever the plot's real size; only its distance from the end scales.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        x and y of the centres, in data units.
    """
    dx, dy = _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size)
    length = np.hypot(dx, dy)
    with np.errstate(divide="ignore", invalid="ignore"):
        back = np.where(length > gap_px, gap_px / length, 1.0)
    lx0, ly0, lx1, ly1 = _log10(x0), _log10(y0), _log10(x1), _log10(y1)
    return 10.0 ** (lx1 - back * (lx1 - lx0)), 10.0 ** (ly1 - back * (ly1 - ly0))


def run_marker(index: int) -> str:
    """The marker shape of the baseline run at chain position ``index`` (0-based), cycled."""
    return RUN_MARKERS[index % len(RUN_MARKERS)]


def runs_legend_html(labels: list[str]) -> str:
    """The status line's run -> shape legend, labels escaped.

    ``runs: 1t □ square → 2t ◇ diamond → current ● circle``, and past
    :data:`RUN_MARKERS` a note naming the runs that share a shape.
    """
    shapes = [run_marker(i) for i in range(len(labels))] + [CURRENT_MARKER]
    names = [*labels, CURRENT_LABEL]
    parts = [f"{html.escape(str(name))} {MARKER_SYMBOLS.get(shape, '')} {shape}"
             for name, shape in zip(names, shapes)]
    text = "runs: " + " → ".join(parts)
    if len(labels) > len(RUN_MARKERS):
        shared = [f"{html.escape(str(labels[i]))} as {html.escape(str(labels[i % len(RUN_MARKERS)]))}"
                  for i in range(len(RUN_MARKERS), len(labels))]
        text += (f" (only {len(RUN_MARKERS)} shapes: " + ", ".join(shared) + " share a shape)")
    return f"<span class='roofline-compare-runs'>{text}</span>"


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
        For an empty mapping or a label equal to :data:`CURRENT_LABEL`.
    """
    if isinstance(baseline, Mapping):
        if not baseline:
            raise ValueError("baseline mapping is empty; give at least one {label: run}")
        runs = [(str(label), RegionSums.from_runs(data)) for label, data in baseline.items()]
        if CURRENT_LABEL in (label for label, _ in runs):
            raise ValueError(f"baseline label {CURRENT_LABEL!r} is reserved for the widget's "
                             "own data; rename that run")
        return runs
    return [(_BASELINE_LABEL, RegionSums.from_runs(baseline))]


def _names_text(names: list[str]) -> str:
    shown = ", ".join(html.escape(str(n)) for n in names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _percent(value) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:+.1f}%"


def _number(value, spec=".4g") -> str:
    return "n/a" if value is None or not np.isfinite(value) else format(value, spec)


def comparison_tooltip_html(row: pd.Series) -> str:
    """Hover text of one comparison row: both points, speed-up and changes, escaped."""
    before, after = html.escape(str(row["run_before"])), html.escape(str(row["run_after"]))
    lines = [
        ("Region", html.escape(str(row["region"]))),
        (f"{style.X_LABEL} ({before} → {after})",
         f"{_number(row[_X + '_before'])} → {_number(row[_X + '_after'])}"),
        (f"{style.Y_LABEL} ({before} → {after})",
         f"{_number(row[_Y + '_before'])} → {_number(row[_Y + '_after'])}"),
        ("Runtime [s]", f"{_number(row['runtime_seconds_before'])} → "
                        f"{_number(row['runtime_seconds_after'])}"),
        ("Speed-up", _number(row["speedup"], ".3g") + "×"),
        ("GFLOP/s change", _percent(row["performance_change_percent"])),
        ("Intensity change", _percent(row["intensity_change_percent"])),
    ]
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(label, quote=False)}</th>"
                    f"<td>{value}</td></tr>" for label, value in lines)
    return f"<table>{cells}</table>"


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
        give the plot size the heads are turned for (:func:`plot_area_size`);
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
        marker :func:`run_marker` of its position.
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
        self._compared_for = None  # (points, runs) the frame was compared for
        self._scales = {"x": x_scale, "y": y_scale}
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-compare-tooltip")
        self.lines = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=self._scales,
                              line_style="dashed", stroke_width=2, opacities=[0.85],
                              labels_visibility="none", visible=False)
        rotation = bq.LinearScale(min=ROTATION_SCALE_RANGE[0], max=ROTATION_SCALE_RANGE[1])
        self.heads = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), rotation=np.zeros(0),
            scales={**self._scales, "rotation": rotation}, marker=HEAD_MARKER,
            default_size=HEAD_SIZE, colors=["gray"], opacities=[0.9], visible=False)
        self.run_points: list[bq.Scatter] = []
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

    def _run_scatter(self, index: int) -> bq.Scatter:
        scatter = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker=run_marker(index),
            fill=False, stroke_width=2, default_size=70, opacities=[0.7], colors=["gray"],
            tooltip=self.tooltip, tooltip_style=dict(style.TOOLTIP_STYLE),
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
        """The lines, the heads, then each run's hollow points."""
        return (self.lines, self.heads, *self.run_points)

    def update(self, data: LayerInput) -> None:
        """Compare with the widget's selection, keep the shown rows, assign the marks.

        The comparison is computed once per selection (the widget's
        ``PointState``) and baseline; a peak change only restyles.
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
        self._assign(self._frame, data)

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """The baseline points drawn (the current points are the widget's own)."""
        drawn = self._drawn
        if drawn.empty:
            return np.zeros(0), np.zeros(0)
        return (drawn[_X + "_before"].to_numpy(dtype=float),
                drawn[_Y + "_before"].to_numpy(dtype=float))

    def status(self) -> str:
        """Markers per run, median speed-up, regions found in one run only (escaped HTML)."""
        if self.error:
            return (f"<span class='roofline-compare-status'>Baseline not compared: "
                    f"{html.escape(self.error)}</span>")
        frame = self._frame
        if frame.empty:
            return ""
        parts = [self._speedup_text(frame), runs_legend_html(self.labels)]
        for status, side in (("only before", "run_before"), ("only after", "run_after")):
            rows = frame[frame["status"] == status]
            for run in dict.fromkeys(rows[side]):
                names = list(dict.fromkeys(rows.loc[rows[side] == run, "region"]))
                noun = "region" if len(names) == 1 else "regions"
                parts.append(f"{len(names)} {noun} only in {html.escape(str(run))}: "
                             f"{_names_text(names)}")
        parts += [html.escape(note) for note in self.notes]
        return f"<span class='roofline-compare-status'>{'; '.join(parts)}</span>"

    # ------------------------------------------------------------ public results
    def frame(self) -> pd.DataFrame:
        """The comparison rows of what the widget shows (:func:`compare_points` columns)."""
        return self._frame.reset_index(drop=True)

    def median_speedup(self) -> float:
        """Median speed-up of the current run over the first baseline run (NaN if none)."""
        frame = self._frame
        if frame.empty:
            return float("nan")
        column = "speedup_vs_first" if "step" in frame else "speedup"
        last = frame if "step" not in frame else frame[frame["step"] == frame["step"].max()]
        values = last.loc[last["status"] == "both", column].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        return float(np.median(values)) if values.size else float("nan")

    def drawn_points(self, label: str) -> pd.DataFrame:
        """The rows whose baseline point of run ``label`` is drawn (in its Scatter's order)."""
        index = self.labels.index(label)
        if index >= len(self._drawn_by_run):
            return self._drawn.iloc[0:0]
        return self._drawn_by_run[index]

    # ------------------------------------------------------------ internals
    def _compare(self, data: LayerInput) -> pd.DataFrame:
        runs = [*self.runs, (CURRENT_LABEL, data.sums)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if len(runs) == 2:
                frame = compare_points(runs[0][1], runs[1][1], match=self.match,
                                       selection=data.selection)
                frame["run_before"], frame["run_after"] = runs[0][0], CURRENT_LABEL
            else:
                frame = compare_points(dict(runs), match=self.match, selection=data.selection)
        self.notes = list(dict.fromkeys(str(w.message) for w in caught))
        return _shown_rows(frame, data.points.points, data.points.shown)

    def _speedup_text(self, frame: pd.DataFrame) -> str:
        median = self.median_speedup()
        first = html.escape(self.labels[0])
        count = int((frame["status"] == "both").sum()) if "step" not in frame else int(
            ((frame["status"] == "both") & (frame["step"] == frame["step"].max())).sum())
        if not np.isfinite(median):
            return f"no region placed in both {first} and {CURRENT_LABEL}"
        return (f"median speed-up vs {first}: {median:.3g}× over {count} "
                f"point{'s' if count != 1 else ''}")

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
        for index, scatter in enumerate(self.run_points):
            drawn = (self._drawn_by_run[index] if index < len(self._drawn_by_run)
                     else self._drawn.iloc[0:0])
            with scatter.hold_sync():
                set_if_changed(scatter, "x", drawn[_X + "_before"].to_numpy(dtype=float)
                               if not drawn.empty else np.zeros(0))
                set_if_changed(scatter, "y", drawn[_Y + "_before"].to_numpy(dtype=float)
                               if not drawn.empty else np.zeros(0))
                scatter.colors = _colors(drawn, data) if not drawn.empty else ["gray"]
                scatter.visible = not drawn.empty

    def _place_heads(self) -> None:
        """Heads at the lines' ends, turned for the scales' current ranges and the plot size."""
        segments = self._segments
        ranges = _scale_ranges(self.x_scale, self.y_scale)
        if ranges is None:
            return
        if not len(segments):
            values = {"x": np.zeros(0), "y": np.zeros(0), "rotation": np.zeros(0)}
        else:
            size = plot_area_size(self.plot)
            x, y = head_positions(*segments.T, *ranges, size)
            values = {"x": x, "y": y, "rotation": head_rotation(*segments.T, *ranges, size)}
        with self.heads.hold_sync():
            for name, value in values.items():
                set_if_changed(self.heads, name, value)

    def _on_axes(self, change) -> None:
        """An axis range or the figure's size changed: turn and place the heads again."""
        self._place_heads()

    def _on_hover(self, mark, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        runs = [i for i, scatter in enumerate(self.run_points) if scatter is mark] or [0]
        drawn = self._drawn_by_run[runs[0]] if runs[0] < len(self._drawn_by_run) else self._drawn
        if isinstance(index, int) and 0 <= index < len(drawn):
            self.tooltip.value = comparison_tooltip_html(drawn.iloc[index])


def _scale_ranges(x_scale, y_scale):
    """((x min, x max), (y min, y max)) of two log scales, or None while one is not valid."""
    ranges = ((x_scale.min, x_scale.max), (y_scale.min, y_scale.max))
    if all(low is not None and high is not None and 0 < low < high for low, high in ranges):
        return ranges
    return None


def _current_keys(points: pd.DataFrame) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays([points["file"].astype(object).to_numpy(),
                                      points["rank"].to_numpy(dtype=np.int64),
                                      points["region"].astype(object).to_numpy()])


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
    hidden = after.isin(_current_keys(points)) & ~after.isin(_current_keys(shown))
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
    known = like_points[COLOR_COLUMN[color_by]].isin(categories).to_numpy()
    colours = np.full(len(rows), _UNKNOWN_COLOUR, dtype=object)
    if known.any():
        codes = np.asarray(data.color_codes(like_points[known]), dtype=int)
        colours[known] = [style.PALETTE[code] for code in codes]
    return list(colours)
