"""Rates no core reaches, per thread: the ``beyond hardware`` finding of ``sanity_check``.

A hardware thread (an MPI rank's, a GPU kernel's) whose GFLOP/s or GB/s is
above what one thread of its hardware can do
(:mod:`roofline_widget.roofs.hardware_bounds`: the core's peak from the CPU
table at a generous clock, 1,000 GFLOP/s where the CPU is unknown) is a
broken measurement: a hardware counter that overflowed or counted a broken
event.  A point that sums such a thread is flagged as a whole: the finding
names the file, the run, the rank, the thread, its rate and the bound, and,
where the run's raw counts are at hand (LIKWID files), the counter of that
thread that reads near 2^47 or 2^48, the value a wrapped 48-bit counter
shows ("near 2^47: a wrapped counter").  A point without per-thread rates
(scope-profiler results) is judged on its sum over ``n_threads``.  The point
stays in the data; the empirical roofs and the axes pass it over.  It
needs no ceilings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.beyond_hardware import RATE_UNITS, rate_text, threads_text
from roofline_widget.points import RegionSums, RunSource
from roofline_widget.roofs.hardware_bounds import (
    THREAD_COLUMNS,
    beyond_hardware,
    counters_near_wrap,
    hardware_bound,
    run_thread_bound,
    thread_limits,
)

__all__ = ["CHECK_BEYOND", "MAX_COUNTERS_NAMED", "beyond_hardware_findings", "broken_thread"]

#: The ``check`` of a finding on a rate beyond any hardware.
CHECK_BEYOND = "beyond hardware"
#: At most this many wrapped counters are named in one finding.
MAX_COUNTERS_NAMED = 3
_USUAL_CAUSE = "a counter overflow or a broken event is the usual cause"
#: The metric column naming each rate.
_METRIC = {schema.PERFORMANCE: "flops_metric", schema.BANDWIDTH: "bandwidth_metric"}


def _counter_text(events: pd.DataFrame, row: int) -> str:
    """The counters of one thread row near 2^47 / 2^48, or the usual cause."""
    if events.empty:
        return _USUAL_CAUSE
    found = counters_near_wrap(events.iloc[[row]])
    if not found:
        return _USUAL_CAUSE
    return "; ".join(f"{name} reads {value:,.0f}, near 2^{bits}: a wrapped counter"
                     for name, value, bits in found[:MAX_COUNTERS_NAMED])


def broken_thread(part: RunSource, region: str, metric: str, giga: float,
                  value: float) -> dict | None:
    """The thread of ``region`` whose ``metric`` (times ``giga``) is ``value``, or None.

    A point's ``thread_max_*`` is the largest rate of the threads it sums:
    the thread found is that one.

    Returns
    -------
    dict or None
        ``rank, thread`` (the column header, ``"f0702:61:61"``), ``printed``
        (the metric as LIKWID printed it), ``counters`` (the wrapped counters
        of the thread, or the usual cause).
    """
    run = part.run
    if metric not in run.table.columns or not np.isfinite(value):
        return None
    table = run.table
    values = table[metric].to_numpy(dtype=float)
    hit = np.flatnonzero((table["region"].astype(str).to_numpy() == str(region))
                         & np.isclose(values * giga, value, rtol=1e-12, atol=0.0))
    if not hit.size:
        return None
    row = int(hit[0])
    return {"rank": int(table["rank"].iloc[row]), "thread": str(table["thread"].iloc[row]),
            "printed": float(values[row]), "counters": _counter_text(run.events, row)}


def _printed(value: float) -> str:
    """A metric's value as a finding names it: ``"1,169,961"``, ``"931.3109"``."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.7g}"


def _run_text(part) -> str:
    run = part.run
    files = ", ".join(Path(str(source)).name for source in run.sources) or str(run.label)
    number = getattr(part, "run_number", 1)
    return f"file {files}, run {run.label!r}" + (f" (#{number})" if number != 1 else "")


def _thread_detail(row, column: str, sums: RegionSums, part, point: str) -> str | None:
    """The text naming a point's broken thread, or None when the thread is not found."""
    metric = getattr(row, _METRIC[column])
    if part is None or not isinstance(part, RunSource) or metric not in sums.units:
        return None
    unit = sums.units[metric]
    found = broken_thread(part, row.region, metric, unit.to_giga,
                          float(getattr(row, THREAD_COLUMNS[column])))
    if found is None:
        return None
    if column == schema.PERFORMANCE:
        bound = run_thread_bound(part.run, row.device, getattr(row, "device_name", "") or None)
        limit = f"at most {rate_text(bound.gflops, 'GFLOP/s')}: {bound.basis}"
    else:
        limit = (f"at most {rate_text(hardware_bound(row.device).gbs, 'GB/s')} per "
                 f"{hardware_bound(row.device).unit}")
    rate = rate_text(float(getattr(row, THREAD_COLUMNS[column])), RATE_UNITS[column])
    return (f"rank {found['rank']}, thread {found['thread']} ({_run_text(part)}) reads "
            f"{_printed(found['printed'])} {unit.text} ({metric}: {rate}), beyond what one "
            f"{hardware_bound(row.device).unit} can do ({limit}); {found['counters']}; {point}")


def _point_text(row, column: str) -> str:
    unit = RATE_UNITS[column]
    name = str(row.rank_group) if isinstance(getattr(row, "rank_group", None), str) \
        else f"rank {int(row.rank)}"
    return (f"the point of {name} in {row.region} sums it: {rate_text(getattr(row, column), unit)} on "
            f"{threads_text(int(row.n_threads), hardware_bound(row.device).unit)}, left out of "
            "empirical ceilings and axis ranges")


def _sum_detail(row, column: str) -> str:
    """The text of a point beyond the hardware on its sum (no per-thread rates)."""
    bound, unit = hardware_bound(row.device), RATE_UNITS[column]
    return (f"{rate_text(getattr(row, column), unit)} ({getattr(row, _METRIC[column])}) on "
            f"{threads_text(int(row.n_threads), bound.unit)} is beyond any {bound.device} (at "
            f"most {rate_text(bound.limit(column), unit)} per {bound.unit}): {_USUAL_CAUSE}; "
            "the point is left out of empirical ceilings and axis ranges")


def _thread_flags(points: pd.DataFrame, column: str) -> np.ndarray:
    """Which points sum a thread beyond its bound in ``column`` (not on the sum alone)."""
    if THREAD_COLUMNS[column] not in points.columns:
        return np.zeros(len(points), dtype=bool)
    values = pd.to_numeric(points[THREAD_COLUMNS[column]], errors="coerce").to_numpy(float)
    with np.errstate(invalid="ignore"):
        return values > thread_limits(points, column)


def beyond_hardware_findings(sums: RegionSums, points: pd.DataFrame) -> list[dict]:
    """The ``beyond hardware`` findings of hierarchical ``points`` (rows as ``sanity_check``'s).

    Parameters
    ----------
    sums : RegionSums
        The runs the points come from (their per-thread tables and raw counts
        name the broken thread and counter).
    points : pandas.DataFrame
        Hierarchical points (``level``, ``n_threads``, ``device``, the rates
        and the per-thread columns of :mod:`~roofline_widget.roofs.hardware_bounds`).

    Returns
    -------
    list of dict
        ``file, rank, region, level, check, detail``: a FLOP rate beyond the
        hardware once per point (level None: every level shares it), a
        bandwidth beyond it per level; keyed by the point (file, rank,
        region), the detail naming the broken thread.
    """
    flagged = {column: beyond_hardware(points, column) for column in _METRIC}
    hit = flagged[schema.PERFORMANCE] | flagged[schema.BANDWIDTH]
    if not hit.any():
        return []
    threads = {column: _thread_flags(points, column) for column in _METRIC}
    parts = dict(zip(sums.files, sums.sources))
    findings, seen = [], set()
    rows = points[hit]
    for position, row in zip(hit.nonzero()[0], rows.itertuples(index=False)):
        key = (str(row.file), int(row.rank), str(row.region))
        for column in _METRIC:
            if not flagged[column][position]:
                continue
            level = None if column == schema.PERFORMANCE else row.level
            if (key, level) in seen:
                continue
            seen.add((key, level))
            detail = None
            if threads[column][position]:
                detail = _thread_detail(row, column, sums, parts.get(key[0]),
                                        _point_text(row, column))
            if detail is None:  # no per-thread rates, or the thread not found
                detail = _sum_detail(row, column)
            what = "" if level is None else f"{level} bandwidth: "
            findings.append({"file": row.file, "rank": int(row.rank), "region": row.region,
                             "level": level, "check": CHECK_BEYOND, "detail": what + detail})
    return findings
