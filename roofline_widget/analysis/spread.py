"""How the ranks of an MPI job spread, per region: :func:`rank_spread`.

Thousands of ranks make a roofline of one point per rank unreadable; what a
developer wants first is, per region, the range the ranks cover and how
unbalanced they are.  :func:`rank_spread` reads the per-rank sums of
:meth:`roofline_widget.points.RegionSums.select` (its ``frame``: every
selected row, placed on the roofline or not) and reduces them per (run,
region, device) with pandas.

Where likwid-mpirun counts memory traffic on one rank per socket (0 on the
others), a rank's own bandwidth is no measure of its traffic: the spread
pairs each rank's FLOPs with its **share** of the traffic of the ranks its
point sums under the grouping in effect (``group_ranks``: a socket, a host,
the job), the group's bandwidth divided by its ranks
(:func:`bandwidth_shares`).  Its intensities then spread around the
intensity of the grouped points the roofline draws, instead of sitting a
factor of the socket's ranks below them.  The counters cannot say which
rank moved which bytes: an equal share is the one assumption, written down
in ``docs/guide/ranks.md``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.points import RegionSums, Selection, selection_parameters
from roofline_widget.points.rank_groups import split_runs

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["SPREAD_QUANTITIES", "bandwidth_shares", "rank_spread"]

#: Output column stem -> what it is; each gets ``_min``, ``_median`` and ``_max`` columns.
SPREAD_QUANTITIES = {
    schema.PERFORMANCE: "sum over the rank's threads of the FLOP metric, GFLOP/s",
    schema.BANDWIDTH: ("sum over the rank's threads of the bandwidth metric, GB/s; where memory "
                       "is counted on one rank per socket, the rank's share of its group's"),
    schema.INTENSITY: "GFLOP/s / GB/s of the rank (NaN when GB/s is 0)",
    schema.RUNTIME: "the rank's runtime (max over its threads)",
}
_GROUP_KEYS = ["file", "region", "device"]
_KEYS = ["file", "rank", "region", "device"]
_SOCKET_PLACE = re.compile(r"(?:^| )socket -?[0-9]+$")


def _place_kind(place: str) -> str:
    """What a group's place is: ``"socket"``, ``"host"`` or ``"all ranks"`` (``""``: none)."""
    if not place:
        return ""
    if place == "all ranks":
        return place
    return "socket" if _SOCKET_PLACE.search(place) else "host"


def bandwidth_shares(sums: RegionSums, group_ranks: str, metric: str | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``sums``: the bandwidth to pair with its rank's FLOPs, and what it is a share of.

    Parameters
    ----------
    sums : RegionSums
    group_ranks : {"auto", "rank", "socket", "host", "all"}
        The grouping in effect (:mod:`roofline_widget.points.rank_groups`).
    metric : str or None
        The bandwidth metric.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The bandwidth per row (native unit of ``metric``; NaN without it):
        in a run whose ``metric`` is counted on some ranks only (LIKWID's
        uncore counters on a socket's leader), the sum over the ranks of the
        row's group (its socket, host or job, as ``group_ranks`` groups the
        points; all-NaN stays NaN) divided by their number, taken over every
        rank of the data, selected or not; elsewhere the row's own.  Then per
        row ``"socket"``, ``"host"``, ``"all ranks"`` (a share) or ``""``.
    """
    n = len(sums)
    if metric is None or metric not in sums.units:
        return np.full(n, np.nan), np.full(n, "", dtype=object)
    own = sums.sums(metric)
    grouping = sums.rank_grouping(group_ranks, (metric,))
    if grouping is None:
        return own, np.full(n, "", dtype=object)
    groups = grouping.group_of_row
    measured = np.isfinite(own)
    totals = np.bincount(groups, weights=np.where(measured, own, 0.0), minlength=grouping.n_groups)
    totals[np.bincount(groups[measured], minlength=grouping.n_groups) == 0] = np.nan
    ranks = np.bincount(groups, minlength=grouping.n_groups)
    shared = split_runs(sums, [metric])[sums.label_codes("file")[0]] & grouping.grouped[groups]
    kinds = np.array([_place_kind(str(place)) for place in grouping.places], dtype=object)
    return (np.where(shared, (totals / np.maximum(ranks, 1))[groups], own),
            np.where(shared, kinds[groups], ""))


def _rows_of(sums: RegionSums, frame: pd.DataFrame) -> np.ndarray:
    """The row of ``sums`` of each row of a per-rank selection frame (keyed by run, rank, region, device)."""
    def index(file, rank, region, device) -> pd.MultiIndex:
        return pd.MultiIndex.from_arrays([np.asarray(file, dtype=object), np.asarray(rank, np.int64),
                                          np.asarray(region, dtype=object),
                                          np.asarray(device, dtype=object)])

    every = index(sums.key("file"), sums.key_numbers("rank"), sums.key("region"),
                  sums.key("device"))
    return every.get_indexer(index(*(frame[key] for key in _KEYS)))


def _giga(frame: pd.DataFrame, sums: RegionSums, metric: str | None) -> np.ndarray:
    """The metric's per-row sums in giga units; NaN when there is no such metric."""
    if metric is None or metric not in sums.units:
        return np.full(len(frame), np.nan)
    return frame[metric].to_numpy(dtype=float) * sums.units[metric].to_giga


def _per_rank(data: object, selection: Selection, grouping: str
              ) -> tuple[pd.DataFrame, str | None, str | None]:
    """Per selected rank its rates (bandwidth: its share where memory is counted per socket)."""
    sums = RegionSums.from_runs(data)
    chosen = sums.select(selection)
    frame = chosen.frame
    performance = _giga(frame, sums, chosen.flops_metric)
    rows = _rows_of(sums, frame)
    shares, shared_by = bandwidth_shares(sums, grouping, chosen.bandwidth_metric)
    bandwidth = np.full(len(frame), np.nan)
    if chosen.bandwidth_metric is not None and chosen.bandwidth_metric in sums.units:
        bandwidth = shares[rows] * sums.units[chosen.bandwidth_metric].to_giga
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(bandwidth > 0, performance / bandwidth, np.nan)
    table = pd.DataFrame({
        "file": frame["file"].astype(object), "region": frame["region"].astype(object),
        "device": frame["device"].astype(object), "rank": frame["rank"].to_numpy(),
        schema.PERFORMANCE: performance, schema.BANDWIDTH: bandwidth,
        schema.INTENSITY: intensity,
        schema.RUNTIME: frame["runtime_s"].to_numpy(dtype=float),
        "bandwidth_share": shared_by[rows] if len(rows) else np.zeros(0, dtype=object),
    })
    return table, chosen.flops_metric, chosen.bandwidth_metric


def _ranks_and_shares(table: pd.DataFrame, grouped) -> tuple[list, list]:
    """Per group its ranks (a sorted tuple) and what its bandwidths are a share of."""
    ranks = [tuple(sorted(int(r) for r in values)) for values in grouped["rank"].agg(list)]
    shares = [next((kind for kind in kinds if kind), "")
              for kinds in grouped["bandwidth_share"].agg(list)]
    return ranks, shares


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


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks")
def rank_spread(data: object, *, selection: Selection | None = None,
                **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Per region, how the ranks spread: min / median / max, imbalance, slowest rank, its ranks.

    The spread is always over ranks (FLOP rate and runtime are per-core
    metrics); ``group_ranks`` (and ``combine_ranks``, its ``"all"``) says
    which ranks the roofline's points sum, and so whose memory traffic a
    rank shares where it is counted on one rank per socket (see the module
    docstring and :func:`bandwidth_shares`).

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
        also those the roofline leaves out), then ``imbalance`` (max / mean
        runtime; 1 is perfect balance), ``slowest_rank``, ``flops_metric``,
        ``bandwidth_metric``, ``bandwidth_share`` (``"socket"``, ``"host"``,
        ``"all ranks"``: the ranks' bandwidths are their shares of that
        group's traffic; ``""``: each rank's own) and ``ranks`` (the sorted
        tuple of the ranks summarised: what a click on the region's square
        expands to).  A selection of no rank or region gives no row.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> spread = rank_spread(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt"),
    ...                      bandwidth_metric="L1 to/from L2 bandwidth [MBytes/s]")
    >>> int(spread.loc[0, "n_ranks"]), spread.loc[0, "ranks"][:3]
    (48, (0, 1, 2))
    """
    chosen = Selection.of(selection, **keywords)
    grouping = "all" if chosen.combine_ranks else chosen.group_ranks
    # per rank, always: the spread of per-core metrics (FLOP rate, runtime) over the ranks
    table, flops_metric, bandwidth_metric = _per_rank(
        data, replace(chosen, group_ranks="rank"), grouping)
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
    ranks_of, shares = _ranks_and_shares(table, grouped) if len(table) else ([], [])
    out["bandwidth_share"] = pd.Series(shares, index=out.index, dtype=object)
    out["ranks"] = pd.Series(ranks_of, index=out.index, dtype=object)
    return out.reset_index()
