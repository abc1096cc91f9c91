"""The baseline layer: one line per matched region from a baseline run's point to the current one.

:class:`CompareLayer` implements the :class:`~roofline_widget.widget.layers.Layer`
protocol.  After every refresh of the widget it calls
:func:`~roofline_widget.compare_points` with the widget's own selection (the
same metrics, ranks, include/exclude patterns and ``combine_ranks``) on the
baseline run(s) and the widget's data, keeps the rows of what the widget shows
(:meth:`CompareLayer.frame`), and draws

- ``lines``: a dashed line from each region's baseline point to its current
  point (a chain: one segment per step), coloured as the region's points;
- ``baseline_points``: the baseline points, hollow and faded, with a tooltip
  giving both points, the speed-up and the changes.

The direction of a line is read from its ends: hollow (baseline) to filled
(the widget's point).  bqplot 0.13 has no arrow-head marker that follows a
line's angle on screen without custom JavaScript, so none is drawn.

The status line says the median speed-up and how many regions are found in
one run only (names escaped).  A baseline that cannot be compared (it lacks
the widget's metric, ...) draws nothing and says why in the status line.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Mapping

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from .. import style
from ..compare import compare_points
from ..points import RegionSums
from .layers import LayerInput, set_if_changed
from .state import COLOR_COLUMN, color_categories

__all__ = ["CompareLayer", "baseline_runs", "CURRENT_LABEL", "NAMES_SHOWN"]

#: The label of the widget's own run in a comparison (``run_after`` of the last step).
CURRENT_LABEL = "current"
#: At most this many region names are listed per status sentence.
NAMES_SHOWN = 8
_BASELINE_LABEL = "baseline"
#: Colour of a baseline point whose region (run, rank) the widget's data lacks.
_UNKNOWN_COLOUR = "#7f7f7f"
_X = "arithmetic_intensity_flops_per_byte"
_Y = "performance_gflops"


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
    """Lines from baseline points to the widget's points (see the module docstring).

    Parameters
    ----------
    x_scale, y_scale : bqplot.LogScale
        The figure's scales.
    baseline : run data or mapping
        See :func:`baseline_runs`.
    match : dict or callable, optional
        Region renames, as ``compare_points(match=)``.

    Attributes
    ----------
    lines : bqplot.Lines
        One dashed line per row with both points (DOM class ``roofline-compare``).
    baseline_points : bqplot.Scatter
        The baseline points of the shown rows, hollow.
    tooltip : ipywidgets.HTML
        Hover text of a baseline point (DOM class ``roofline-compare-tooltip``).
    runs : list of (str, RegionSums)
        The baseline runs in chain order.
    error : str
        Why the last update compared nothing ("" when it did).
    """

    def __init__(self, x_scale, y_scale, baseline, *, match=None) -> None:
        self.runs = baseline_runs(baseline)
        self.match = match
        self.error = ""
        self.notes: list[str] = []
        self._frame = pd.DataFrame()
        self._drawn = pd.DataFrame()
        self._compared_for = None  # (points, runs) the frame was compared for
        scales = {"x": x_scale, "y": y_scale}
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-compare-tooltip")
        self.lines = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=scales,
                              line_style="dashed", stroke_width=2, opacities=[0.85],
                              labels_visibility="none", visible=False)
        self.baseline_points = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), scales=scales, fill=False, stroke_width=2,
            default_size=70, opacities=[0.7], colors=["gray"], tooltip=self.tooltip,
            interactions={"hover": "tooltip"}, visible=False)
        self.baseline_points.on_hover(self._on_hover)

    @property
    def labels(self) -> list[str]:
        """The baseline runs' labels, in chain order."""
        return [label for label, _ in self.runs]

    # ------------------------------------------------------------ the Layer protocol
    @property
    def marks(self) -> tuple:
        """The lines, then the hollow baseline points."""
        return self.lines, self.baseline_points

    def update(self, data: LayerInput) -> None:
        """Compare with the widget's selection, keep the shown rows, assign both marks.

        The comparison is computed once per selection (the widget's
        ``PointState``) and baseline; a peak change only restyles.
        """
        compared_for = self._compared_for
        if compared_for is None or compared_for[0] is not data.points \
                or compared_for[1] is not self.runs:
            self.error, self.notes = "", []
            frame = pd.DataFrame()
            if self.runs and data.select_options is not None:
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
        """Median speed-up and the regions found in one run only (escaped HTML)."""
        if self.error:
            return (f"<span class='roofline-compare-status'>Baseline not compared: "
                    f"{html.escape(self.error)}</span>")
        frame = self._frame
        if frame.empty:
            return ""
        parts = [self._speedup_text(frame)]
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

    # ------------------------------------------------------------ internals
    def _compare(self, data: LayerInput) -> pd.DataFrame:
        options = data.select_options
        runs = [*self.runs, (CURRENT_LABEL, data.sums)]
        keywords = {name: options[name] for name in ("flops_metric", "bandwidth_metric",
                                                     "ranks", "include", "exclude",
                                                     "combine_ranks")}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if len(runs) == 2:
                frame = compare_points(runs[0][1], runs[1][1], match=self.match, **keywords)
                frame["run_before"], frame["run_after"] = runs[0][0], CURRENT_LABEL
            else:
                frame = compare_points(dict(runs), match=self.match, **keywords)
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
        with self.lines.hold_sync(), self.baseline_points.hold_sync():
            if both.empty:
                self.lines.visible = False
            else:
                set_if_changed(self.lines, "x",
                               both[[_X + "_before", _X + "_after"]].to_numpy(dtype=float))
                set_if_changed(self.lines, "y",
                               both[[_Y + "_before", _Y + "_after"]].to_numpy(dtype=float))
                self.lines.colors = _colors(both, data)
                self.lines.visible = True
            drawn = self._drawn
            set_if_changed(self.baseline_points, "x", drawn[_X + "_before"].to_numpy(dtype=float)
                           if not drawn.empty else np.zeros(0))
            set_if_changed(self.baseline_points, "y", drawn[_Y + "_before"].to_numpy(dtype=float)
                           if not drawn.empty else np.zeros(0))
            self.baseline_points.colors = _colors(drawn, data) if not drawn.empty else ["gray"]
            self.baseline_points.visible = not drawn.empty

    def _on_hover(self, mark, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        if isinstance(index, int) and 0 <= index < len(self._drawn):
            self.tooltip.value = comparison_tooltip_html(self._drawn.iloc[index])


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
