"""What a comparison of runs says in a line: the median speed-up, the worst region, the slowdowns.

:func:`speedup_summary` reads a :func:`~roofline_widget.compare_points`
frame (a pair, or a chain: its last step against the first run); a median
alone hides a region that got slower, so the summary names the worst region
and every slowdown.  :func:`before_points` gives the baseline's points as
point rows, for the empirical roofs of a comparison (the baseline's points
must lie under the roofs as the current ones do);
:func:`baseline_beyond_hardware` says which rows' baseline point reports a
rate no hardware reaches (kept out of the axis ranges, as a current point).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.roofs.hardware_bounds import beyond_hardware

__all__ = ["SpeedupSummary", "baseline_beyond_hardware", "before_points", "speedup_summary"]

#: The baseline's numbers a point row takes (``<name>_before`` in the comparison).
_BEFORE_COLUMNS = (schema.PERFORMANCE, schema.BANDWIDTH, schema.INTENSITY, "n_threads")
#: The baseline's names a point row takes: point column -> comparison column.
_BEFORE_NAMES = {"file": "file_before", "region": "region_before", "run_label": "run_before",
                 "rank": "rank", "rank_group": "rank_group_before", "device": "device",
                 "flops_metric": "flops_metric", "bandwidth_metric": "bandwidth_metric"}


@dataclass(frozen=True)
class SpeedupSummary:
    """The speed-ups of the points placed in both runs.

    Attributes
    ----------
    median : float
        Median speed-up (runtime before / after; NaN: no point in both runs).
    count : int
        The points it is the median of.
    worst : tuple of (str, float) or None
        The region (with its rank where the runs have several) of the smallest speed-up.
    slowdowns : list of (str, float)
        Every region whose speed-up is below 1, slowest first.
    """

    median: float = float("nan")
    count: int = 0
    worst: tuple[str, float] | None = None
    slowdowns: list[tuple[str, float]] = field(default_factory=list)


def _last_step(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    if "step" not in frame:
        return frame, "speedup"
    return frame[frame["step"] == frame["step"].max()], "speedup_vs_first"


def speedup_summary(frame: pd.DataFrame) -> SpeedupSummary:
    """The :class:`SpeedupSummary` of a comparison frame (of a chain: its last run vs its first).

    Examples
    --------
    >>> frame = pd.DataFrame({"region": ["Setup", "Solve", "IO"], "rank": [0, 0, 0],
    ...                       "status": ["both", "both", "only after"],
    ...                       "speedup": [1 / 1.75, 2.0, np.nan]})
    >>> summary = speedup_summary(frame)
    >>> round(summary.median, 3), summary.count, summary.worst
    (1.286, 2, ('Setup', 0.5714285714285714))
    """
    if frame.empty:
        return SpeedupSummary()
    last, column = _last_step(frame)
    both = last[last["status"] == "both"]
    values = both[column].to_numpy(dtype=float)
    keep = np.isfinite(values)
    both, values = both[keep], values[keep]
    if not len(values):
        return SpeedupSummary()
    several_ranks = both["rank"].nunique() > 1
    names = [f"{region} (rank {rank})" if several_ranks else str(region)
             for region, rank in zip(both["region"], both["rank"])]
    order = np.argsort(values, kind="stable")
    slowdowns = [(names[i], float(values[i])) for i in order if values[i] < 1.0]
    return SpeedupSummary(float(np.median(values)), len(values),
                          (names[order[0]], float(values[order[0]])), slowdowns)


def _before_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Every row's baseline side as a point row (NaN where the comparison lacks a column)."""
    out = {name: pd.to_numeric(frame.get(f"{name}_before", np.nan), errors="coerce")
           for name in _BEFORE_COLUMNS}
    out.update((name, frame.get(column, pd.Series(None, index=frame.index, dtype=object))
                .astype(object)) for name, column in _BEFORE_NAMES.items())
    return pd.DataFrame(out, index=frame.index,
                        columns=[*_BEFORE_COLUMNS, *_BEFORE_NAMES]).reset_index(drop=True)


def before_points(frame: pd.DataFrame) -> pd.DataFrame:
    """The points of the earlier run of each row placed there, as point rows.

    Columns ``performance_gflops``, ``bandwidth_gbs``, the intensity,
    ``n_threads``, ``file``, ``region``, ``run_label`` (the baseline run's
    label in the comparison), ``rank``, ``rank_group``, ``device``,
    ``flops_metric``, ``bandwidth_metric`` (what empirical roofs, the choice
    of roofs and the hardware bound read); no rows for an empty frame.
    """
    rows = _before_rows(frame)
    return rows[rows[schema.PERFORMANCE].notna().to_numpy()].reset_index(drop=True)


def baseline_beyond_hardware(frame: pd.DataFrame) -> np.ndarray:
    """Which rows of a comparison have a baseline point beyond what its hardware can do.

    :func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware` of the
    rows' baseline side (False where the row has none).
    """
    return beyond_hardware(_before_rows(frame))
