"""The sums engine of scope-profiler results: per-region sums straight from the arrays.

:class:`ScopeResultsSource` is the fast path of :class:`~roofline_widget.points.RegionSums`
for ``ProfilingResults``: it never builds the per-thread table of
:func:`~roofline_widget.io.scope.objects.from_scope_profiler`, only the key columns
and, per metric asked for, one pass that joins that metric's row of every
region into one array and reduces the threads with numpy.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.scope.objects import from_scope_profiler
from roofline_widget.io.scope.regions import (
    change_starts,
    collect_regions,
    constant_categorical,
    group_label,
    no_likwid_data,
    non_numeric_region,
    repeated_categorical,
    thread_name,
)
from roofline_widget.model import CPU, LikwidRun
from roofline_widget.points.engines.threads import max_over_segments, nonfinite_threads, sum_over_segments
from roofline_widget.points.unmeasured import Unmeasured

__all__ = ["ScopeResultsSource"]

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
    return repeated_categorical(list(itertools.chain.from_iterable(tag_lists)), 1)


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


class _LazyColumns(dict):
    """A dict of key columns; a missing one is built by ``build(name)`` on first access."""

    def __init__(self, build, columns: dict):
        super().__init__(columns)
        self._build = build

    def __missing__(self, name: str):
        value = self[name] = self._build(name)
        return value


class ScopeResultsSource:
    """Per-(rank, region) sums over threads, read straight from ``ProfilingResults``.

    A :class:`~roofline_widget.points.engines.source.RegionSource`: what
    :class:`~roofline_widget.points.RegionSums` needs, without building the
    per-thread table: the key columns once, then each metric's per-region sum
    over threads only when it is asked for (and kept). One metric costs one
    pass that takes that metric's row from every region and joins the rows
    into one array; nothing loops over regions in Python.

    scope-profiler keeps one ``LikwidRegionResult`` per (rank, region), so
    every row here is one region of one rank measured with one group; the
    sums equal those of :func:`~roofline_widget.io.scope.objects.from_scope_profiler`
    followed by :class:`~roofline_widget.points.engines.run.RunSource` (``NaN``
    ignored, all-``NaN`` stays ``NaN``; runtime and call count are the maxima
    over threads).

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
        ranks, self._tags, self._regions = collect_regions(by_rank, self.source)
        self._ranks = ranks
        if not self._regions:
            raise no_likwid_data(self.source)
        regions = self._regions
        self._counts = np.fromiter(map(len, map(_CPUS, regions)), np.intp, len(regions))
        first = int(self._counts[0])
        self._uniform = first if bool((self._counts == first).all()) else None
        self._batches = self._name_batches()
        self.metric_names = list(dict.fromkeys(n for names in self._batches for n in names))
        self._sums: dict[str, np.ndarray] = {}
        self._unmeasured: dict[str, Unmeasured] = {}
        self._arrays: dict[tuple, tuple] = {}
        self._run: LikwidRun | None = None
        self.keys = _LazyColumns(self._key_column, {
            "rank": np.asarray(ranks, dtype=np.int64),
            "region": _region_categorical([list(by_rank[rank]) for rank in sorted(by_rank)]),
            "device": constant_categorical(str(CPU), len(regions)),
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
            return constant_categorical(names[0], len(names))
        if not all(names):
            names = [group_label(n, r.group_id) for n, r in zip(names, self._regions)]
        return repeated_categorical(names, 1)

    def _name_batches(self) -> dict:
        """{metric-name tuple: indices of the regions printing exactly those names}."""
        names = list(map(_METRIC_NAMES, self._regions))
        if _all_equal(names):
            return {tuple(names[0]): slice(None)}
        starts = change_starts(names)
        ends = np.append(starts[1:], len(names))
        pieces: dict[tuple, list] = {}
        for start, end in zip(starts, ends):
            pieces.setdefault(tuple(names[start]), []).append(np.arange(start, end))
        return {key: np.concatenate(parts) for key, parts in pieces.items()}

    def _per_region_max(self, attr: str) -> np.ndarray:
        arrays = list(map(operator.attrgetter(attr), self._regions))
        _check_lengths(arrays, self._counts, attr, self.source, self._tags)
        values = self._numbers(arrays, self._counts, _common_dtype(arrays), attr, slice(None))
        return max_over_segments(values.ravel(), self._counts)

    def sums(self, metric: str) -> np.ndarray:
        """Per-row sum over threads of ``metric`` (native unit); NaN where not measured."""
        values = self._sums.get(metric)
        if values is None:
            values = self._sums[metric] = self._compute(metric)
        return values

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite (``"HWThread <cpu>"``).

        Counted in the same pass as :meth:`sums` (and kept with it).  A region
        none of whose threads has a finite value adds nothing (its sum is NaN:
        the metric was not measured there at all).
        """
        self.sums(metric)
        return self._unmeasured[metric]

    def _compute(self, metric: str) -> np.ndarray:
        out = np.full(len(self._regions), np.nan)
        counts = np.zeros(len(self._regions), dtype=np.int64)
        threads: dict[int, tuple] = {}
        for names, where in self._batches.items():
            if metric in names:
                arrays, dtype = self._metric_arrays(names, where)
                row = names.index(metric)
                rows = list(map(operator.itemgetter(row), arrays))  # same dtype as the arrays
                region_counts = self._counts[where]
                values = self._numbers(rows, region_counts, dtype, f"metric {metric!r}",
                                       where).ravel()
                reduced = sum_over_segments(values, region_counts)
                regions = np.arange(len(out))[where]
                out[regions] = reduced.sums
                counts[regions] = reduced.unmeasured
                starts = np.cumsum(region_counts) - region_counts
                for k in np.flatnonzero(reduced.unmeasured).tolist():
                    region = int(regions[k])
                    bad = nonfinite_threads(values[starts[k]:starts[k] + region_counts[k]])
                    cpus = np.asarray(self._regions[region].cpus)[bad]
                    threads[region] = tuple(map(thread_name, cpus.tolist()))
        self._unmeasured[metric] = Unmeasured(counts, threads)
        return out

    def _numbers(self, arrays, counts, dtype, what: str, where) -> np.ndarray:
        """:func:`_joined`; a LikwidFormatError naming the region holding a non-number."""
        try:
            return _joined(arrays, counts, self._uniform, dtype)
        except (TypeError, ValueError):
            ranks = _take(self._ranks, where)
            places = [f"{self.source} (rank {r}, region {t!r})"
                      for r, t in zip(ranks, _take(self._tags, where))]
            error = non_numeric_region(arrays, what, places)
            if error is None:
                raise
            raise error from None

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
