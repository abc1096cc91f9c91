"""Points whose rates no hardware reaches: the ``beyond hardware`` finding of ``sanity_check``.

A point whose GFLOP/s or GB/s is above what its hardware threads (or GPUs)
can do at all (:mod:`roofline_widget.roofs.hardware_bounds`) is a broken
measurement: a hardware counter that overflowed or counted a broken event.
The finding names the rate, the thread count and the bound; where the run's
raw counts are at hand (LIKWID files) it names every counter of the region
that reads near 2^47 or 2^48, the value a wrapped 48-bit counter shows.
It needs no ceilings.  The point stays in the data; the empirical roofs and
the axes pass it over.
"""

from __future__ import annotations

import pandas as pd

from roofline_widget import schema
from roofline_widget.look.beyond_hardware import RATE_UNITS, rate_text, threads_text
from roofline_widget.points import RegionSums, RunSource
from roofline_widget.roofs.hardware_bounds import (
    beyond_hardware,
    counters_near_wrap,
    hardware_bound,
)

__all__ = ["CHECK_BEYOND", "MAX_COUNTERS_NAMED", "beyond_hardware_findings"]

#: The ``check`` of a finding on a rate beyond any hardware.
CHECK_BEYOND = "beyond hardware"
#: At most this many wrapped counters are named in one finding.
MAX_COUNTERS_NAMED = 3
_USUAL_CAUSE = "a counter overflow or a broken event is the usual cause"
#: The metric column naming each rate.
_METRIC = {schema.PERFORMANCE: "flops_metric", schema.BANDWIDTH: "bandwidth_metric"}


def _wrapped_counters(sums: RegionSums, keys: set[tuple]) -> dict[tuple, str]:
    """(file, rank, region) -> the text naming its counters near 2^47 / 2^48 (LIKWID runs only)."""
    texts = {}
    for label, part in zip(sums.files, sums.sources):
        wanted = {(rank, region) for file, rank, region in keys if file == label}
        if not wanted or not isinstance(part, RunSource) or part.run.events.empty:
            continue
        table, events = part.run.table, part.run.events
        for (rank, region), rows in table.groupby(["rank", "region"], observed=True).indices.items():
            chosen = [(r, g) for r, g in wanted
                      if g == region and (r == rank or r == schema.ALL_RANKS)]
            if not chosen:
                continue
            found = counters_near_wrap(events.iloc[rows])
            if found:
                named = "; ".join(f"{name} reads {value:,.0f}, near 2^{bits}"
                                  for name, value, bits in found[:MAX_COUNTERS_NAMED])
                for key in chosen:
                    texts[(label, key[0], key[1])] = f"{named}: a counter that wrapped or broke"
    return texts


def beyond_hardware_findings(sums: RegionSums, points: pd.DataFrame) -> list[dict]:
    """The ``beyond hardware`` findings of hierarchical ``points`` (rows as ``sanity_check``'s).

    Parameters
    ----------
    sums : RegionSums
        The runs the points come from (their raw counts name the broken counter).
    points : pandas.DataFrame
        Hierarchical points (``level``, ``n_threads``, ``device`` and the rates).

    Returns
    -------
    list of dict
        ``file, rank, region, level, check, detail``: a FLOP rate beyond the
        hardware once per region (level None: every level shares it), a
        bandwidth beyond it per level.
    """
    flagged = {column: beyond_hardware(points, column) for column in _METRIC}
    hit = flagged[schema.PERFORMANCE] | flagged[schema.BANDWIDTH]
    if not hit.any():
        return []
    rows = points[hit]
    keys = {(str(r.file), int(r.rank), str(r.region)) for r in rows.itertuples(index=False)}
    causes = _wrapped_counters(sums, keys)
    findings, seen = [], set()
    for position, row in zip(hit.nonzero()[0], rows.itertuples(index=False)):
        key = (str(row.file), int(row.rank), str(row.region))
        for column, metric in _METRIC.items():
            if not flagged[column][position]:
                continue
            level = None if column == schema.PERFORMANCE else row.level
            if (key, level) in seen:
                continue
            seen.add((key, level))
            bound = hardware_bound(row.device)
            what = "" if level is None else f"{level} bandwidth "
            unit = RATE_UNITS[column]
            detail = (f"{what}{rate_text(getattr(row, column), unit)} ({getattr(row, metric)}) on "
                      f"{threads_text(int(row.n_threads), bound.unit)} is beyond any "
                      f"{bound.device} (at most {rate_text(bound.limit(column), unit)} per "
                      f"{bound.unit}): {causes.get(key, _USUAL_CAUSE)}; the point is left out "
                      "of empirical ceilings and axis ranges")
            findings.append({"file": row.file, "rank": int(row.rank), "region": row.region,
                             "level": level, "check": CHECK_BEYOND, "detail": detail})
    return findings
