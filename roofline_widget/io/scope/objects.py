"""Adapter from scope-profiler's LIKWID results to :class:`LikwidRun`.

scope-profiler (``ProfilingResults.get_likwid_regions()``) holds, per rank and
region tag, one ``LikwidRegionResult`` with per-thread arrays: ``cpus``,
``times``, ``call_counts``, ``events`` (nevents x nthreads) and ``metrics``
(nmetrics x nthreads).  This module turns them into the canonical table of
:mod:`roofline_widget.model` without building a
:class:`~roofline_widget.io.parsed.RegionBlock` per region: regions that share
one list of metric names are stacked with a single ``np.concatenate`` and
the key columns are built with ``np.repeat`` over per-region values, so the
only Python loop is the unavoidable one that collects the region objects.

scope-profiler is never imported: :func:`from_scope_profiler` only reads
attributes, and :func:`run_from_regions` takes any region objects with the
attributes of ``LikwidRegionResult`` (the HDF5 reader's
:class:`~roofline_widget.io.scope.regions_h5.RegionArrays` among them).

Conversions are cached per results object (a repeated call with the same
object and the same regions returns the same run, so that aggregates cached
on the run are reused); pass ``cache=False`` after changing a region's
arrays in place.
"""

from __future__ import annotations

import operator
import weakref

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.blocks import event_names
from roofline_widget.io.parsed import STATS_FRAME_COLUMNS, check_metric_names, key_table
from roofline_widget.io.scope.regions import (
    change_starts,
    checked_cpus,
    checked_group_id,
    collect_regions,
    constant_categorical,
    group_label,
    no_likwid_data,
    non_numeric_region,
    repeated_categorical,
    thread_name,
)
from roofline_widget.model import CPU, Layout, LikwidRun

__all__ = ["from_scope_profiler", "run_from_regions"]

LAYOUT = Layout.SCOPE_PROFILER

# id(results) -> (weakref to results, label, region objects, run)
_CACHE: dict[int, tuple] = {}


def _cpu_columns(results, counts, source: str, places: list):
    """The int64 ``cpu`` column and the ``"HWThread <cpu>"`` categorical (cpus checked).

    Consecutive regions usually run on the same cpus, so each run of equal
    lists is converted once and repeated.
    """
    cpu_lists = [r.cpus for r in results]
    starts = change_starts(cpu_lists)
    ends = np.append(starts[1:], len(cpu_lists))
    distinct = [np.asarray(checked_cpus(cpu_lists[i], f"{source} ({_place(places[i])})"),
                           dtype=np.int64) for i in starts]
    repeats = [np.tile(a, int(n)) for a, n in zip(distinct, ends - starts)]
    cpu = np.concatenate(repeats) if repeats else np.zeros(0, dtype=np.int64)
    if len(cpu) != int(counts.sum()):  # a region whose cpu list changed under us
        cpu = np.concatenate([np.asarray(checked_cpus(c, f"{source} ({_place(place)})"),
                                         dtype=np.int64) for c, place in zip(cpu_lists, places)])
    unique = np.unique(np.concatenate(distinct)) if distinct else np.zeros(0, dtype=np.int64)
    codes = np.searchsorted(unique, cpu)  # no table indexed by cpu: a huge number costs nothing
    thread = pd.Categorical.from_codes(codes, [thread_name(c) for c in unique.tolist()])
    return cpu, thread


def _event_names(result) -> list:
    """``"EVENT:COUNTER"``; scope-profiler's unique labels if counters are missing."""
    if not result.counter_names and not result.event_names:
        return []
    if len(result.counter_names) == len(result.event_names):
        return event_names(result.event_names, result.counter_names)
    return list(result.event_labels)


def _segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + length)`` for every pair."""
    begin = np.cumsum(lengths) - lengths
    return np.repeat(starts - begin, lengths) + np.arange(int(lengths.sum()))


def _stack(results, keys, names_of, values_of, counts, source, tags, what) -> pd.DataFrame:
    """Per-region (names x threads) arrays as one frame, one row per thread.

    Regions with equal name lists are stacked with one ``np.concatenate``;
    when all regions share one list (the usual case) that array is the frame.
    ``keys`` holds one comparable per region (equal keys: equal names);
    ``names_of(result)`` gives the column names of a region.
    """
    starts = change_starts(keys)
    ends = np.append(starts[1:], len(keys))
    pieces: dict[tuple, list] = {}
    for start, end in zip(starts, ends):
        pieces.setdefault(tuple(names_of(results[start])), []).append(np.arange(start, end))
    batches = {names: np.concatenate(parts) for names, parts in pieces.items()}
    total = int(counts.sum())
    columns = list(dict.fromkeys(n for names in batches for n in names))
    if not columns:
        return pd.DataFrame(index=pd.RangeIndex(total))
    stacked = {names: _concatenate([values_of(results[i]) for i in indices], len(names),
                                   counts[indices], source, [tags[i] for i in indices], what)
               for names, indices in batches.items() if names}
    if len(batches) == 1:
        (names, data), = stacked.items()
        return pd.DataFrame(data.T, columns=list(names), copy=False)
    position = {name: i for i, name in enumerate(columns)}
    starts = np.cumsum(counts) - counts
    out = np.full((len(columns), total), np.nan)
    for names, data in stacked.items():
        indices = batches[names]
        rows = _segments(starts[indices], counts[indices])
        out[np.ix_(np.array([position[n] for n in names], dtype=np.intp), rows)] = data
    return pd.DataFrame(out.T, columns=columns, copy=False)


def _concatenate(arrays, n_names, widths, source, tags, what) -> np.ndarray:
    """Stack (n_names x threads) arrays side by side, checking every shape and the numbers."""
    try:
        data = np.concatenate(arrays, axis=1)
    except ValueError:
        data = None
    if data is None or data.shape != (n_names, int(widths.sum())):
        bad = next(i for i, a in enumerate(arrays) if np.shape(a) != (n_names, widths[i]))
        raise LikwidFormatError(source, None, f"{n_names} rows (one per name) and one column "
                                "per cpu in every region's metrics and events arrays",
                                f"shape {np.shape(arrays[bad])} in {_place(tags[bad])}")
    return _as_float(data, arrays, what, source, tags)


def _place(rank_and_tag) -> str:
    rank, tag = rank_and_tag
    return f"rank {rank}, region {tag!r}"


def _as_float(data, arrays, what, source, tags) -> np.ndarray:
    """``data`` as float64; an error naming the region whose ``arrays`` hold a non-number."""
    try:
        return np.asarray(data).astype(np.float64, copy=False)
    except (TypeError, ValueError):
        error = non_numeric_region(arrays, what, [f"{source} ({_place(t)})" for t in tags])
        if error is None:
            raise
        raise error from None


def _per_thread(results, attr, counts, source, tags) -> np.ndarray:
    """Concatenate a per-thread attribute, checking it has one value per cpu."""
    arrays = [getattr(r, attr) for r in results]
    values = _as_float(np.concatenate(arrays), arrays, attr, source, tags)
    if len(values) != int(counts.sum()):
        lengths = np.fromiter((len(getattr(r, attr)) for r in results), np.intp, len(results))
        i = int(np.flatnonzero(lengths != counts)[0])
        raise LikwidFormatError(source, None, f"as many {attr} as cpus in every region",
                                f"{_place(tags[i])}: {lengths[i]} {attr} for {counts[i]} cpus")
    return values


def run_from_regions(regions_by_rank, source: str, label: str) -> LikwidRun:
    """The per-thread :class:`LikwidRun` of ``{rank: {tag: region}}``.

    Parameters
    ----------
    regions_by_rank : mapping
        Region objects with the attributes of scope-profiler's
        ``LikwidRegionResult`` (``ProfilingResults.get_likwid_regions()``, or
        the :class:`~roofline_widget.io.scope.regions_h5.RegionArrays` the
        HDF5 reader makes).
    source, label : str
        The file named in the run and in errors; the run's label.

    Raises
    ------
    LikwidFormatError
        If there is no region, or a region's arrays do not have one column per cpu.
    """
    ranks, tags, results = collect_regions(regions_by_rank, source)
    if not results:
        raise no_likwid_data(source)
    counts = np.fromiter((len(r.cpus) for r in results), np.intp, len(results))
    total = int(counts.sum())
    places = list(zip(ranks, tags))  # (rank, tag): what the errors below name
    group_ids = [checked_group_id(r.group_id, f"{source} ({_place(place)})")
                 for r, place in zip(results, places)]
    groups = [group_label(r.group_name, g) for r, g in zip(results, group_ids)]
    cpu, thread = _cpu_columns(results, counts, source, places)
    keys = key_table(
        source=source, total=total,
        line=np.zeros(total, dtype=np.int64),
        rank=np.repeat(np.asarray(ranks, dtype=np.int64), counts),
        region=repeated_categorical(tags, counts),
        group_index=np.repeat(np.asarray(group_ids, dtype=np.int64), counts),
        group=repeated_categorical(groups, counts),
        thread=thread,
        host=constant_categorical("", total),
        cpu=cpu,
        device=constant_categorical(str(CPU), total),
        call_count=_per_thread(results, "call_counts", counts, source, places),
        runtime_s=_per_thread(results, "times", counts, source, places),
    )
    metrics = _stack(results, [r.metric_names for r in results],
                     operator.attrgetter("metric_names"), operator.attrgetter("metrics"),
                     counts, source, places, "metrics")
    check_metric_names(metrics.columns, source)
    table = pd.concat([keys, metrics], axis=1)
    events = _stack(results, [(r.event_names, r.counter_names) for r in results], _event_names,
                    operator.attrgetter("events"), counts, source, places, "events")
    return LikwidRun(label=label, sources=(source,), table=table, events=events,
                     stats=pd.DataFrame(columns=STATS_FRAME_COLUMNS), layout=LAYOUT)


def from_scope_profiler(results, label: str | None = None, *, cache: bool = True) -> LikwidRun:
    """Convert scope-profiler ``ProfilingResults`` to a :class:`LikwidRun`.

    Parameters
    ----------
    results : scope_profiler.ProfilingResults
        In memory (``finalize(return_results=True)``) or read from HDF5.
    label : str, optional
        Name of the run; ``results.display_label`` (the run's label or the
        file stem) by default.
    cache : bool
        Reuse the run built for this same object when its regions are the
        same objects as then (default). Pass False after changing region
        arrays in place.

    Returns
    -------
    LikwidRun
        One row per (rank, region, hardware thread): rank from the dict key,
        thread ``"HWThread <cpu>"``, device ``"cpu"``, ``runtime_s`` from
        ``times``, ``call_count`` from ``call_counts``, ``line`` 0 (there
        are no lines), events named ``"EVENT:COUNTER"``, no STAT rows;
        layout ``"scope-profiler"``.

    Raises
    ------
    LikwidFormatError
        If the results hold no LIKWID region, or a region's arrays do not
        have one column per cpu.
    """
    label = label or results.display_label
    if not cache:
        return run_from_regions(results.get_likwid_regions(), str(results.file_path), label)
    regions = [r for _, regs in sorted(results.get_likwid_regions().items())
               for r in regs.values()]
    entry = _CACHE.get(id(results))
    if entry is not None:
        ref, cached_label, cached_regions, run = entry
        if (ref() is results and cached_label == label and len(cached_regions) == len(regions)
                and all(map(operator.is_, cached_regions, regions))):
            return run
    run = run_from_regions(results.get_likwid_regions(), str(results.file_path), label)
    try:
        _CACHE[id(results)] = (weakref.ref(results), label, regions, run)
        weakref.finalize(results, _CACHE.pop, id(results), None)
    except TypeError:  # not weak-referenceable: no caching
        pass
    return run
