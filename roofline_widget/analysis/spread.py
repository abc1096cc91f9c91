"""How the ranks of an MPI job spread, per region: :func:`rank_spread`.

Thousands of ranks make a roofline of one point per rank unreadable; what a
developer wants first is, per region, the range the ranks cover and how
unbalanced they are.  :func:`rank_spread` reads the per-rank sums of
:meth:`roofline_widget.points.RegionSums.select` (its ``frame``: every
selected row, placed on the roofline or not) and reduces them per (run,
region, device) with pandas.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.points import RegionSums, Selection, selection_parameters

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["SPREAD_QUANTITIES", "rank_spread"]

#: Output column stem -> what it is; each gets ``_min``, ``_median`` and ``_max`` columns.
SPREAD_QUANTITIES = {
    schema.PERFORMANCE: "sum over the rank's threads of the FLOP metric, GFLOP/s",
    schema.BANDWIDTH: "sum over the rank's threads of the bandwidth metric, GB/s",
    schema.INTENSITY: "GFLOP/s / GB/s of the rank (NaN when GB/s is 0)",
    schema.RUNTIME: "the rank's runtime (max over its threads)",
}
_GROUP_KEYS = ["file", "region", "device"]


def _giga(frame: pd.DataFrame, sums: RegionSums, metric: str | None) -> np.ndarray:
    """The metric's per-row sums in giga units; NaN when there is no such metric."""
    if metric is None or metric not in sums.units:
        return np.full(len(frame), np.nan)
    return frame[metric].to_numpy(dtype=float) * sums.units[metric].to_giga


def _per_rank(data: object, selection: Selection) -> tuple[pd.DataFrame, str | None, str | None]:
    sums = RegionSums.from_runs(data)
    chosen = sums.select(selection)
    frame = chosen.frame
    performance = _giga(frame, sums, chosen.flops_metric)
    bandwidth = _giga(frame, sums, chosen.bandwidth_metric)
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(bandwidth > 0, performance / bandwidth, np.nan)
    table = pd.DataFrame({
        "file": frame["file"].astype(object), "region": frame["region"].astype(object),
        "device": frame["device"].astype(object), "rank": frame["rank"].to_numpy(),
        schema.PERFORMANCE: performance, schema.BANDWIDTH: bandwidth,
        schema.INTENSITY: intensity,
        schema.RUNTIME: frame["runtime_s"].to_numpy(dtype=float),
    })
    return table, chosen.flops_metric, chosen.bandwidth_metric


def _slowest_rank(table: pd.DataFrame, grouped) -> pd.Series:
    """Per group the rank with the longest runtime (the first such rank on ties; -1 if none)."""
    if not len(table):  # nothing selected: no group
        return pd.Series(np.zeros(0, dtype=np.int64), index=grouped.size().index)
    codes = grouped.ngroup().to_numpy()  # groups numbered in order of appearance, as grouped
    runtime = table[schema.RUNTIME].to_numpy(dtype=float)
    ranks = table["rank"].to_numpy()
    missing = np.isnan(runtime)
    # per group: measured runtimes first, the longest first, then the lowest rank
    order = np.lexsort((ranks, -np.where(missing, 0.0, runtime), missing, codes))
    starts = order[np.r_[True, codes[order][1:] != codes[order][:-1]]]
    return pd.Series(np.where(missing[starts], -1, ranks[starts]), index=grouped.size().index)


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude")
def rank_spread(data: object, *, selection: Selection | None = None,
                **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Per region, how the ranks spread: min / median / max, imbalance, slowest rank.

    Parameters
    ----------
    data : anything :meth:`RegionSums.from_runs` accepts
        LIKWID files, runs, scope-profiler results or HDF5 files.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        One row per (run, region, device), in order of appearance:
        ``file, region, device, n_ranks``, then for each of
        ``performance_gflops, bandwidth_gbs, arithmetic_intensity_flops_per_byte,
        runtime_seconds`` the columns ``<name>_min, <name>_median, <name>_max``
        over the region's ranks (NaN values skipped; every selected rank counts,
        also those the roofline leaves out, e.g. zero uncore bandwidth on ranks
        without a socket's lock thread), then ``imbalance`` (max / mean runtime;
        1 is perfect balance), ``slowest_rank``, ``flops_metric`` and
        ``bandwidth_metric``.  A selection of no rank or region gives no row.

    Raises
    ------
    TypeError
        For a ``selection`` with ``combine_ranks=True`` or ``group_ranks``
        ``"socket"``, ``"host"``, ``"all"``: the spread over ranks needs them
        apart (``"auto"`` is taken as ``"rank"`` here).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> spread = rank_spread(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt"),
    ...                      bandwidth_metric="L1 to/from L2 bandwidth [MBytes/s]")
    >>> int(spread.loc[0, "n_ranks"])
    48
    """
    chosen = Selection.of(selection, **keywords)
    if chosen.combine_ranks:
        raise TypeError("rank_spread reports the spread over ranks; combine_ranks is not accepted")
    if chosen.group_ranks not in ("auto", "rank"):
        raise TypeError("rank_spread reports the spread over ranks, one rank at a time; "
                        f"group_ranks={chosen.group_ranks!r} is not accepted")
    # per rank, always: the spread of per-core metrics (FLOP rate, runtime) over the ranks
    table, flops_metric, bandwidth_metric = _per_rank(data, replace(chosen, group_ranks="rank"))
    grouped = table.groupby(_GROUP_KEYS, sort=False)
    out = grouped.size().rename("n_ranks").to_frame()
    for name in SPREAD_QUANTITIES:
        column = grouped[name]
        out[f"{name}_min"] = column.min()
        out[f"{name}_median"] = column.median()
        out[f"{name}_max"] = column.max()
    runtime = grouped[schema.RUNTIME]
    out["imbalance"] = runtime.max() / runtime.mean()
    out["slowest_rank"] = _slowest_rank(table, grouped).astype(np.int64)
    out["flops_metric"] = flops_metric
    out["bandwidth_metric"] = bandwidth_metric
    return out.reset_index()
