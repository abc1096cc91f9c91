"""Adapter from scope-profiler's LIKWID results to :class:`LikwidRun`.

scope-profiler (``ProfilingResults.get_likwid_regions()``) holds, per rank and
region tag, one ``LikwidRegionResult`` with per-thread arrays: ``cpus``,
``times``, ``call_counts``, ``events`` (nevents x nthreads) and ``metrics``
(nmetrics x nthreads).  This module turns them into the canonical table of
:mod:`roofline_widget.model` without building a
:class:`~roofline_widget.io._core.RegionBlock` per region: regions that share
one list of metric names are stacked with a single ``np.concatenate`` and
the key columns are built with ``np.repeat`` over per-region values, so the
only Python loop is the unavoidable one that collects the region objects.

scope-profiler is imported only inside :func:`read_scope_h5` (and not at
all by :func:`from_scope_profiler`, which only reads attributes), never when
:mod:`roofline_widget` is imported.

Conversions are cached per results object (a repeated call with the same
object and the same regions returns the same run, so that aggregates cached
on the run are reused); pass ``cache=False`` after changing a region's
arrays in place.
"""

from __future__ import annotations

import itertools
import operator
import weakref
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LikwidFormatError
from ..model import CPU, Layout, LikwidRun
from ._core import STATS_FRAME_COLUMNS, check_metric_names, key_table

__all__ = ["from_scope_profiler", "read_scope_h5"]

LAYOUT = Layout.SCOPE_PROFILER

# id(results) -> (weakref to results, label, region objects, run)
_CACHE: dict[int, tuple] = {}


def _collect(regions_by_rank):
    """Flatten ``{rank: {tag: result}}`` into parallel lists, in rank order."""
    ranks, tags, results = [], [], []
    for rank in sorted(regions_by_rank):
        regions = regions_by_rank[rank]
        ranks.extend([int(rank)] * len(regions))
        tags.extend(regions.keys())
        results.extend(regions.values())
    return ranks, tags, results


def _categorical(labels, counts) -> pd.Categorical:
    """One category code per region (order of appearance), repeated for its threads."""
    codes, categories = pd.factorize(np.asarray(labels, dtype=object), sort=False)
    return pd.Categorical.from_codes(np.repeat(codes, counts), categories)


def _constant_categorical(value: str, total: int) -> pd.Categorical:
    return pd.Categorical.from_codes(np.zeros(total, dtype=np.int8), [value])


def _changes(values) -> np.ndarray:
    """Indices where a list differs from the one before (0 always included)."""
    if not values:
        return np.zeros(0, dtype=np.intp)
    differs = np.fromiter(map(operator.ne, values[1:], values[:-1]), dtype=bool,
                          count=len(values) - 1)
    return np.concatenate([[0], np.flatnonzero(differs) + 1])


def _cpu_columns(results, counts):
    """The int64 ``cpu`` column and the ``"HWThread <cpu>"`` categorical.

    Consecutive regions usually run on the same cpus, so each run of equal
    lists is converted once and repeated.
    """
    cpu_lists = [r.cpus for r in results]
    starts = _changes(cpu_lists)
    ends = np.append(starts[1:], len(cpu_lists))
    distinct = [np.asarray(cpu_lists[i], dtype=np.int64) for i in starts]
    repeats = [np.tile(a, int(n)) for a, n in zip(distinct, ends - starts)]
    cpu = np.concatenate(repeats) if repeats else np.zeros(0, dtype=np.int64)
    if len(cpu) != int(counts.sum()):  # a region whose cpu list changed under us
        cpu = np.concatenate([np.asarray(c, dtype=np.int64) for c in cpu_lists])
    unique = np.unique(np.concatenate(distinct)) if distinct else np.zeros(0, dtype=np.int64)
    lookup = np.zeros(int(unique.max()) + 1 if unique.size else 0, dtype=np.int32)
    lookup[unique] = np.arange(unique.size)
    thread = pd.Categorical.from_codes(lookup[cpu], [f"HWThread {c}" for c in unique])
    return cpu, thread


def _event_names(result) -> list:
    """``"EVENT:COUNTER"``; scope-profiler's unique labels if counters are missing."""
    if not result.counter_names and not result.event_names:
        return []
    if len(result.counter_names) == len(result.event_names):
        return [f"{e}:{c}" for e, c in zip(result.event_names, result.counter_names)]
    return list(result.event_labels)


def _segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + length)`` for every pair."""
    begin = np.cumsum(lengths) - lengths
    return np.repeat(starts - begin, lengths) + np.arange(int(lengths.sum()))


def _stack(results, keys, names_of, values_of, counts, source, tags) -> pd.DataFrame:
    """Per-region (names x threads) arrays as one frame, one row per thread.

    Regions with equal name lists are stacked with one ``np.concatenate``;
    when all regions share one list (the usual case) that array is the frame.
    ``keys`` holds one comparable per region (equal keys: equal names);
    ``names_of(result)`` gives the column names of a region.
    """
    starts = _changes(keys)
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
                                   counts[indices], source, [tags[i] for i in indices])
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
        out[np.ix_([position[n] for n in names], rows)] = data
    return pd.DataFrame(out.T, columns=columns, copy=False)


def _concatenate(arrays, n_names, widths, source, tags) -> np.ndarray:
    """Stack (n_names x threads) arrays side by side, checking every shape."""
    try:
        data = np.concatenate(arrays, axis=1)
    except ValueError:
        data = None
    if data is None or data.shape != (n_names, int(widths.sum())):
        bad = next(i for i, a in enumerate(arrays) if np.shape(a) != (n_names, widths[i]))
        raise LikwidFormatError(source, None, f"{n_names} rows (one per name) and one column "
                                "per cpu in every region's metrics and events arrays",
                                f"shape {np.shape(arrays[bad])} in region {tags[bad]!r}")
    return data.astype(np.float64, copy=False)


def _per_thread(results, attr, counts, source, tags) -> np.ndarray:
    """Concatenate a per-thread attribute, checking it has one value per cpu."""
    values = np.concatenate([getattr(r, attr) for r in results]).astype(np.float64)
    if len(values) != int(counts.sum()):
        lengths = np.fromiter((len(getattr(r, attr)) for r in results), np.intp, len(results))
        i = int(np.flatnonzero(lengths != counts)[0])
        raise LikwidFormatError(source, None, f"as many {attr} as cpus in every region",
                                f"region {tags[i]!r}: {lengths[i]} {attr} for {counts[i]} cpus")
    return values


def _build(results_obj, label) -> LikwidRun:
    source = str(results_obj.file_path)
    ranks, tags, results = _collect(results_obj.get_likwid_regions())
    if not results:
        raise LikwidFormatError(source, None, "scope-profiler results with LIKWID regions "
                                "(run under likwid-perfctr -m)", "no LIKWID data")
    counts = np.fromiter((len(r.cpus) for r in results), np.intp, len(results))
    total = int(counts.sum())
    group_ids = [int(r.group_id) for r in results]
    groups = [r.group_name or f"Group {g}" for r, g in zip(results, group_ids)]
    cpu, thread = _cpu_columns(results, counts)
    keys = key_table(
        source=source, total=total,
        line=np.zeros(total, dtype=np.int64),
        rank=np.repeat(np.asarray(ranks, dtype=np.int64), counts),
        region=_categorical(tags, counts),
        group_index=np.repeat(np.asarray(group_ids, dtype=np.int64), counts),
        group=_categorical(groups, counts),
        thread=thread,
        host=_constant_categorical("", total),
        cpu=cpu,
        device=_constant_categorical(str(CPU), total),
        call_count=_per_thread(results, "call_counts", counts, source, tags),
        runtime_s=_per_thread(results, "times", counts, source, tags),
    )
    metrics = _stack(results, [r.metric_names for r in results],
                     operator.attrgetter("metric_names"), operator.attrgetter("metrics"),
                     counts, source, tags)
    check_metric_names(metrics.columns, source)
    table = pd.concat([keys, metrics], axis=1)
    events = _stack(results, [(r.event_names, r.counter_names) for r in results], _event_names,
                    operator.attrgetter("events"), counts, source, tags)
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
        return _build(results, label)
    regions = [r for _, regs in sorted(results.get_likwid_regions().items())
               for r in regs.values()]
    entry = _CACHE.get(id(results))
    if entry is not None:
        ref, cached_label, cached_regions, run = entry
        if (ref() is results and cached_label == label and len(cached_regions) == len(regions)
                and all(map(operator.is_, cached_regions, regions))):
            return run
    run = _build(results, label)
    try:
        _CACHE[id(results)] = (weakref.ref(results), label, regions, run)
        weakref.finalize(results, _CACHE.pop, id(results), None)
    except TypeError:  # not weak-referenceable: no caching
        pass
    return run


def read_scope_h5(path, label: str | None = None) -> LikwidRun:
    """Read a scope-profiler HDF5 file (``ProfilingResults.from_h5``) as a run.

    Parameters
    ----------
    path : str or path-like
        The merged profiling file.
    label : str, optional
        Name of the run (default: the run's label or the file stem).

    Raises
    ------
    LikwidFormatError
        If the file holds no LIKWID data.
    FileNotFoundError
        If the file does not exist.
    """
    from scope_profiler.results import ProfilingResults

    results = ProfilingResults.from_h5(Path(path))
    return from_scope_profiler(results, label, cache=False)


# --------------------------------------------------------------------------
# per-region sums straight from the results (the fast path of points.py)
# --------------------------------------------------------------------------
# Each helper below makes one pass over the region objects at C speed (map
# with an attrgetter, list.count, bytes.join); at 32,000 regions every such
# pass costs about 1.5 ms, so the passes are kept few.
_CPUS = operator.attrgetter("cpus")
_DTYPE = operator.attrgetter("dtype")
_GROUP_NAME = operator.attrgetter("group_name")
_METRIC_NAMES = operator.attrgetter("metric_names")
_METRICS = operator.attrgetter("metrics")
_SHAPE = operator.attrgetter("shape")


def _all_equal(items: list) -> bool:
    """True when every item equals the first (one C loop: ``list.count``)."""
    return not items or items.count(items[0]) == len(items)


def _region_categorical(tag_lists: list) -> pd.Categorical:
    """The region tag of every region, rank after rank, as a categorical.

    Usually every rank measured the same regions in the same order; then the
    codes are the first rank's positions repeated, found with one list
    comparison per rank. Otherwise the tags are factorized.
    """
    first = tag_lists[0]
    if len(set(first)) == len(first) and all(tags == first for tags in tag_lists[1:]):
        codes = np.tile(np.arange(len(first), dtype=np.int32), len(tag_lists))
        return pd.Categorical.from_codes(codes, first)
    return _categorical(list(itertools.chain.from_iterable(tag_lists)), 1)


def _take(items: list, where) -> list:
    """``items[where]`` for a slice or an index array (no Python loop)."""
    if isinstance(where, slice):
        return items[where]
    if len(where) == 1:
        return [items[int(where[0])]]
    return list(operator.itemgetter(*where.tolist())(items))


def _common_dtype(arrays: list):
    """The one numeric dtype of all arrays, or None (mixed, not numeric, or lists)."""
    try:
        dtypes = set(map(_DTYPE, arrays))
    except AttributeError:
        return None
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    return dtype if dtype is not None and dtype.kind in "fiub" else None


def _joined(arrays: list, counts: np.ndarray, uniform, dtype) -> np.ndarray:
    """Concatenate 1-D arrays as float64, shape (regions, uniform) if given.

    Arrays of one numeric ``dtype`` (see :func:`_common_dtype`) are joined as
    raw bytes (one C call, cheaper per array than ``np.concatenate``);
    anything else (``dtype`` None, strided rows) goes through
    ``np.concatenate``. The caller has checked that array ``k`` holds
    ``counts[k]`` values.
    """
    if not arrays:
        return np.zeros((0, uniform or 0)) if uniform is not None else np.zeros(0)
    values = None
    if dtype is not None:
        try:
            values = np.frombuffer(b"".join(arrays), dtype=dtype)
        except TypeError:
            pass  # a non-contiguous row: the general path below
    if values is None:
        values = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])
    values = values.astype(np.float64, copy=False)
    return values.reshape(len(counts), uniform) if uniform is not None else values


def _check_lengths(arrays: list, counts: np.ndarray, what: str, source: str, tags) -> None:
    """Raise LikwidFormatError naming the first region whose array has not one value per cpu."""
    lengths = np.fromiter(map(len, arrays), np.intp, len(arrays))
    if not np.array_equal(lengths, counts):
        i = int(np.flatnonzero(lengths != counts)[0])
        raise LikwidFormatError(source, None, f"one value per cpu in every region's {what}",
                                f"region {tags[i]!r}: {lengths[i]} values for {counts[i]} cpus")


def _check_shapes(shapes: list, n_rows: int, counts: np.ndarray, uniform, source: str,
                  tags) -> None:
    """Raise LikwidFormatError naming the first region whose array is not (n_rows, cpus)."""
    if uniform is not None and shapes.count((n_rows, uniform)) == len(shapes):
        return
    expected = list(zip(itertools.repeat(n_rows), counts.tolist()))
    if shapes == expected:
        return
    bad = next(i for i, (got, want) in enumerate(zip(shapes, expected)) if got != want)
    raise LikwidFormatError(source, None, f"{n_rows} rows (one per metric name) and one "
                            "column per cpu in every region's metrics array",
                            f"shape {shapes[bad]} in region {tags[bad]!r}")


def _reduce_threads(values, counts, uniform, ufunc) -> np.ndarray:
    """Per region ``ufunc`` over its threads, NaN ignored; all-NaN or no thread: NaN.

    ``ufunc`` is ``np.add`` (sum) or ``np.fmax`` (max); ``uniform`` is the
    common thread count when every region has the same (then ``values`` has
    shape (regions, uniform)), else None (then ``values`` is flat).
    """
    nan = np.isnan(values)
    has_nan = bool(nan.any())
    if has_nan and ufunc is np.add:
        values = np.where(nan, 0.0, values)
    if uniform is not None:
        # along the contiguous thread axis numpy sums pairwise, like np.nansum of one row
        out = ufunc.reduce(values, axis=1) if uniform else np.full(len(counts), np.nan)
        if has_nan:
            out[nan.all(axis=1)] = np.nan
        return out
    starts = np.cumsum(counts) - counts
    nonempty = counts > 0
    out = np.full(len(counts), np.nan)
    if nonempty.any():
        out[nonempty] = ufunc.reduceat(values, starts[nonempty])
        if has_nan:
            measured = np.add.reduceat((~nan).astype(np.intp), starts[nonempty])
            out[np.flatnonzero(nonempty)[measured == 0]] = np.nan
    return out


class _LazyColumns(dict):
    """A dict of key columns; a missing one is built by ``build(name)`` on first access."""

    def __init__(self, build, columns: dict):
        super().__init__(columns)
        self._build = build

    def __missing__(self, name: str):
        value = self[name] = self._build(name)
        return value


class ScopeSums:
    """Per-(rank, region) sums over threads, read straight from ``ProfilingResults``.

    What :class:`roofline_widget.points.RegionSums` needs, without building the
    per-thread table: the key columns once, then each metric's per-region sum
    over threads only when it is asked for (and kept). One metric costs one
    pass that takes that metric's row from every region and joins the rows
    into one array; nothing loops over regions in Python.

    scope-profiler keeps one ``LikwidRegionResult`` per (rank, region), so
    every row here is one region of one rank measured with one group; the
    sums equal those of :func:`from_scope_profiler` followed by the
    aggregation of :mod:`roofline_widget.points` (``NaN`` ignored, all-``NaN``
    stays ``NaN``; runtime and call count are the maxima over threads).

    Parameters
    ----------
    results : scope_profiler.ProfilingResults
    label : str, optional
        Run label (``results.display_label`` by default).

    Attributes
    ----------
    label : str
    metric_names : list of str
        Every metric name, in order of first appearance.
    keys : dict of numpy arrays and pandas Categoricals
        ``rank, region, device, n_threads, runtime_s, call_count, groups``,
        one value per row; ``call_count`` and ``groups`` are read from the
        regions on first access (a point dict needs neither).

    Raises
    ------
    LikwidFormatError
        If the results hold no LIKWID region, or a region's arrays do not
        have one value per cpu (``call_counts``: when ``call_count`` is
        first read).
    """

    def __init__(self, results, label: str | None = None):
        self.results = results
        self.label = label or results.display_label
        self.source = str(results.file_path)
        by_rank = results.get_likwid_regions()
        ranks, self._tags, self._regions = _collect(by_rank)
        if not self._regions:
            raise LikwidFormatError(self.source, None, "scope-profiler results with LIKWID "
                                    "regions (run under likwid-perfctr -m)", "no LIKWID data")
        regions = self._regions
        self._counts = np.fromiter(map(len, map(_CPUS, regions)), np.intp, len(regions))
        first = int(self._counts[0])
        self._uniform = first if bool((self._counts == first).all()) else None
        self._batches = self._name_batches()
        self.metric_names = list(dict.fromkeys(n for names in self._batches for n in names))
        self._sums: dict[str, np.ndarray] = {}
        self._arrays: dict[tuple, tuple] = {}
        self._run: LikwidRun | None = None
        self.keys = _LazyColumns(self._key_column, {
            "rank": np.asarray(ranks, dtype=np.int64),
            "region": _region_categorical([list(by_rank[rank]) for rank in sorted(by_rank)]),
            "device": _constant_categorical(CPU, len(regions)),
            "n_threads": self._counts.astype(np.int64),
            "runtime_s": self._per_region_max("times"),
        })

    def _key_column(self, name: str):
        """``call_count`` and ``groups``: read from the regions only when asked for."""
        if name == "call_count":
            return self._per_region_max("call_counts")
        if name == "groups":
            return self._group_categorical()
        raise KeyError(name)

    def __len__(self) -> int:
        return len(self._regions)

    def _group_categorical(self) -> pd.Categorical:
        names = list(map(_GROUP_NAME, self._regions))
        if names[0] and _all_equal(names):
            return _constant_categorical(names[0], len(names))
        if not all(names):
            names = [n or f"Group {int(r.group_id)}" for n, r in zip(names, self._regions)]
        return _categorical(names, 1)

    def _name_batches(self) -> dict:
        """{metric-name tuple: indices of the regions printing exactly those names}."""
        names = list(map(_METRIC_NAMES, self._regions))
        if _all_equal(names):
            return {tuple(names[0]): slice(None)}
        starts = _changes(names)
        ends = np.append(starts[1:], len(names))
        pieces: dict[tuple, list] = {}
        for start, end in zip(starts, ends):
            pieces.setdefault(tuple(names[start]), []).append(np.arange(start, end))
        return {key: np.concatenate(parts) for key, parts in pieces.items()}

    def _per_region_max(self, attr: str) -> np.ndarray:
        arrays = list(map(operator.attrgetter(attr), self._regions))
        _check_lengths(arrays, self._counts, attr, self.source, self._tags)
        values = _joined(arrays, self._counts, self._uniform, _common_dtype(arrays))
        return _reduce_threads(values, self._counts, self._uniform, np.fmax)

    def sums(self, metric: str) -> np.ndarray:
        """Per-row sum over threads of ``metric`` (native unit); NaN where not measured."""
        values = self._sums.get(metric)
        if values is None:
            values = self._sums[metric] = self._compute(metric)
        return values

    def _compute(self, metric: str) -> np.ndarray:
        out = np.full(len(self._regions), np.nan)
        for names, where in self._batches.items():
            if metric in names:
                arrays, dtype = self._metric_arrays(names, where)
                row = names.index(metric)
                rows = list(map(operator.itemgetter(row), arrays))  # same dtype as the arrays
                counts = self._counts[where]
                out[where] = _reduce_threads(_joined(rows, counts, self._uniform, dtype), counts,
                                             self._uniform, np.add)
        return out

    def _metric_arrays(self, names: tuple, where) -> tuple[list, object]:
        """The metrics arrays of one batch and their common dtype (or None), checked once.

        Checked: one row per name, one column per cpu.
        """
        cached = self._arrays.get(names)
        if cached is None:
            arrays = list(map(_METRICS, _take(self._regions, where)))
            try:
                shapes = list(map(_SHAPE, arrays))
            except AttributeError:  # lists of lists
                arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
                shapes = list(map(_SHAPE, arrays))
            _check_shapes(shapes, len(names), self._counts[where], self._uniform, self.source,
                          _take(self._tags, where))
            cached = self._arrays[names] = (arrays, _common_dtype(arrays))
        return cached

    @property
    def run(self) -> LikwidRun:
        """The full per-thread :class:`LikwidRun` (built on first use)."""
        if self._run is None:
            self._run = from_scope_profiler(self.results, self.label)
        return self._run
