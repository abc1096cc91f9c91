"""A baseline comparison in a scene: an arrow per region from a baseline point to the current one.

:func:`comparison_frame` compares the baseline run(s) with the plotted data by
:func:`~roofline_widget.compare_points`, with the plot's own selection (its
metrics, ranks, include/exclude patterns and rank grouping);
:func:`shown_rows` keeps the rows of the points drawn (the widget draws at
most ``max_points``); :func:`compare_part` makes the marks: a dashed arrow
from each region's baseline point to its current point (a chain of runs: one
per step, so the arrows make a path), coloured as the region's points, and
each baseline run's points hollow with a marker of its own
(``look.markers.RUN_MARKERS``, in chain order; the current run keeps its
filled circles).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.compare import compare_points
from roofline_widget.analysis.compare_summary import baseline_beyond_hardware
from roofline_widget.look.markers import ARROW_STROKE, RUN_POINT, RUN_STROKE, run_marker
from roofline_widget.look.texts import BASELINE_RUN_LABEL, CURRENT_RUN_LABEL
from roofline_widget.points import RegionSums, Selection
from roofline_widget.scene.parts import Coloring, ComparePart, Dots, Polylines

__all__ = [
    "ARROW_GID",
    "BASELINE_GID",
    "baseline_runs",
    "compare_part",
    "comparison_extent",
    "comparison_frame",
    "shown_rows",
]

#: Name (matplotlib ``gid``) of the arrows.
ARROW_GID = "roofline-compare-arrow"
#: Name of each baseline run's hollow points.
BASELINE_GID = "roofline-compare-baseline"
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


def baseline_runs(baseline) -> list[tuple[str, RegionSums]]:
    """The baseline as ``[(label, RegionSums), ...]`` in chain order.

    Parameters
    ----------
    baseline : run data or mapping
        Anything :class:`~roofline_widget.points.RegionSums` aggregates (a
        ``LikwidRun``, a path, ``ProfilingResults``, a list of them): ONE
        baseline run labelled ``"baseline"``; or an ordered mapping
        ``{label: run data}``: a chain whose last step ends at the plotted data.

    Raises
    ------
    ValueError
        For an empty mapping or a label equal to ``look.texts.CURRENT_RUN_LABEL``.
    """
    if isinstance(baseline, Mapping):
        if not baseline:
            raise ValueError("baseline mapping is empty; give at least one {label: run}")
        if CURRENT_RUN_LABEL in (str(label) for label in baseline):
            raise ValueError(f"baseline label {CURRENT_RUN_LABEL!r} is reserved for the plotted "
                             "(current) data; rename that run")
        return [(str(label), RegionSums.from_runs(data)) for label, data in baseline.items()]
    return [(BASELINE_RUN_LABEL, RegionSums.from_runs(baseline))]


def comparison_frame(runs: list[tuple[str, RegionSums]], current: RegionSums, *,
                     selection: Selection, match=None) -> pd.DataFrame:
    """The :func:`~roofline_widget.compare_points` rows from the baseline ``runs`` to ``current``.

    Returns
    -------
    pandas.DataFrame
        The pair frame (``run_before`` the run's label, ``run_after``
        ``"current"``) or the chain frame (``step`` first).

    Raises
    ------
    ValueError
        When a baseline run lacks the metrics.
    """
    if len(runs) == 1:
        frame = compare_points(runs[0][1], current, match=match, selection=selection)
        frame["run_before"], frame["run_after"] = runs[0][0], CURRENT_RUN_LABEL
        return frame
    return compare_points({**dict(runs), CURRENT_RUN_LABEL: current}, match=match,
                          selection=selection)


def shown_rows(frame: pd.DataFrame, points: pd.DataFrame, shown: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` whose current point is drawn, or that have no current point.

    A key (region, rank, device) whose current point is among ``points`` but
    not ``shown`` (over the widget's ``max_points``) loses its rows in every step.
    """
    if len(shown) == len(points):
        return frame.reset_index(drop=True)
    last = frame if "step" not in frame else frame[frame["step"] == frame["step"].max()]
    after = pd.MultiIndex.from_arrays([last["file_after"].astype(object).to_numpy(),
                                       last["rank"].to_numpy(dtype=np.int64),
                                       last["region_after"].astype(object).to_numpy()])
    hidden = after.isin(_keys(points)) & ~after.isin(_keys(shown))
    hidden_keys = pd.MultiIndex.from_frame(last.loc[hidden, ["region", "rank", "device"]])
    keys = pd.MultiIndex.from_frame(frame[["region", "rank", "device"]])
    return frame[~keys.isin(hidden_keys)].reset_index(drop=True)


def _keys(points: pd.DataFrame) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays([points["file"].astype(object).to_numpy(),
                                      points["rank"].to_numpy(dtype=np.int64),
                                      points["region"].astype(object).to_numpy()])


def comparison_extent(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The baseline points of ``frame`` the axes hold: not those beyond what their hardware can do
    (a broken counter, :func:`~roofline_widget.analysis.compare_summary.baseline_beyond_hardware`)."""
    if frame.empty:
        return np.zeros(0), np.zeros(0)
    drawn = frame[frame[_Y + "_before"].notna()]
    drawn = drawn[~baseline_beyond_hardware(drawn)]
    return (drawn[_X + "_before"].to_numpy(dtype=float),
            drawn[_Y + "_before"].to_numpy(dtype=float))


def row_codes(frame: pd.DataFrame, coloring: Coloring) -> np.ndarray:
    """Each row's colour code: its region's (run's, rank's), the current run's name first.

    The current name of a region is looked up first, the baseline's next; a
    name without a colour gets -1.
    """
    if coloring.column == "rank":
        return coloring.codes(frame["rank"].to_numpy(dtype=np.int64))
    after = coloring.codes(frame[f"{coloring.column}_after"])
    before = coloring.codes(frame[f"{coloring.column}_before"])
    return np.where(after >= 0, after, before)


def compare_part(frame: pd.DataFrame, labels, coloring: Coloring, *, error: str = "",
                 notes=()) -> ComparePart:
    """The arrows and the baseline runs' hollow points of the comparison rows ``frame``."""
    empty = frame.empty
    both = frame if empty else frame[frame["status"] == "both"]
    drawn = frame if empty else frame[frame[_Y + "_before"].notna()].reset_index(drop=True)
    columns = [_X + "_before", _X + "_after", _Y + "_before", _Y + "_after"]
    ends = np.zeros((0, 4)) if both.empty else both[columns].to_numpy(dtype=float)
    arrows = Polylines(ARROW_GID, ends[:, :2], ends[:, 2:],
                       tuple(coloring.colors(row_codes(both, coloring))) if len(both) else (),
                       style="dashed", stroke=ARROW_STROKE, opacity=0.85, heads=True, z=3)
    runs = []
    for index, label in enumerate(labels):
        rows = drawn if drawn.empty else drawn[drawn["run_before"] == label].reset_index(drop=True)
        codes = row_codes(rows, coloring) if len(rows) else np.zeros(0)
        runs.append(Dots(BASELINE_GID, rows[_X + "_before"].to_numpy(dtype=float) if len(rows)
                         else np.zeros(0),
                         rows[_Y + "_before"].to_numpy(dtype=float) if len(rows) else np.zeros(0),
                         run_marker(index), RUN_POINT, colors=tuple(coloring.colors(codes)),
                         hollow=True, stroke=RUN_STROKE, opacity=0.7, z=4, rows=rows,
                         legend=f"{label} (hollow)" if len(rows) else ""))
    return ComparePart(arrows, tuple(runs), tuple(labels), frame, error, tuple(notes))
