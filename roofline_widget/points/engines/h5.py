"""The sums engine of scope-profiler HDF5 files: per-region sums, reduced rank by rank while reading.

``ProfilingResults.from_h5`` builds one ``LikwidRegionResult`` per (rank,
region) with every array and attribute (about 1.3 ms per region).  A roofline
point needs far less: per region its tag, the metric-name list, the sum over
threads of every metric, the number of cpus and the maximum of ``times``
(and, for the tables, the maximum of ``call_counts`` and the group name).
:func:`read_scope_sums` asks :mod:`roofline_widget.io.scope.h5` for one rank's
region arrays at a time and reduces them at once (:func:`rank_rows`: one
stacked array per shape, through the one thread reduction of
:mod:`~roofline_widget.points.engines.threads`), keeping nothing per thread.

Ranks are read in chunks on any :class:`concurrent.futures.Executor` (a
process pool by default when the file is large), with a ``tqdm.auto``
progress bar after a second, and the sums are cached on disk
(:mod:`~roofline_widget.points.engines.h5_read`).  The result,
:class:`ScopeH5Source`, is a
:class:`~roofline_widget.points.engines.source.RegionSource` with the numbers
of :class:`~roofline_widget.points.engines.scope.ScopeResultsSource` on
``ProfilingResults.from_h5`` of the same file, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.escaping import file_name
from roofline_widget.io.scope.h5 import UnreadRank, read_ranks_h5py, read_ranks_raw, read_scope_version
from roofline_widget.io.scope.regions import group_label, thread_name
from roofline_widget.io.scope.regions_h5 import RegionArrays
from roofline_widget.io.scope.snapshot import FileVersion
from roofline_widget.model import CPU, LikwidRun
from roofline_widget.points.engines.threads import max_over_threads, nonfinite_threads, sum_over_threads
from roofline_widget.points.unmeasured import Unmeasured

__all__ = ["RankRows", "ScopeH5Source", "rank_rows", "read_rank_rows", "tabulate"]


@dataclass
class RankRows:
    """What one rank contributes: one row per region, in the file's order.

    Attributes
    ----------
    rank : int
    engine : str
        Which HDF5 engine read the rank (``"raw"`` or ``"h5py"``).
    tags : list of str
        Region tags.
    n_threads, runtime_s, call_count : numpy.ndarray
        Per region: cpus, max of ``times``, max of ``call_counts`` over threads.
    groups : list of str
        ``group_name``, or ``"Group <group_id>"`` when it is empty.
    name_lists : list of tuple of str
        The distinct metric-name lists of the rank.
    list_of_region : numpy.ndarray
        Per region the index of its list in ``name_lists``.
    sums : list of numpy.ndarray
        Per name list, a 2-D array: one row per region of that list (in the
        file's order), one column per name, the sums over threads.  A few
        arrays pickle far faster than one per region (what workers return).
    unmeasured : list of numpy.ndarray
        Shaped as ``sums``: how many threads have a non-finite value while
        another thread has a finite one (not measured there).
    unmeasured_names : dict
        {(region, name position): thread names ``"HWThread <cpu>"``} for the
        counts above that are not 0.
    """

    rank: int
    engine: str
    tags: list
    n_threads: np.ndarray
    runtime_s: np.ndarray
    call_count: np.ndarray
    groups: list
    name_lists: list
    list_of_region: np.ndarray
    sums: list
    unmeasured: list
    unmeasured_names: dict


def rank_rows(rank: int, regions: list[RegionArrays], engine: str = "raw") -> RankRows:
    """Reduce the threads of every region of one rank, all regions of one shape at once.

    Stacked, each region's reduction runs along the same contiguous last axis
    as alone (:func:`~roofline_widget.points.engines.threads.sum_over_threads`),
    so the sums are bit for bit those of one region at a time.
    """
    n = len(regions)
    list_index: dict[tuple, int] = {}
    lists = np.array([list_index.setdefault(tuple(r.metric_names), len(list_index))
                      for r in regions], dtype=np.intp)
    by_shape: dict[tuple, list[int]] = {}
    for i, region in enumerate(regions):
        by_shape.setdefault(region.metrics.shape, []).append(i)
    per_list = np.bincount(lists, minlength=len(list_index))
    # each region's row in the arrays of its list
    order = np.argsort(lists, kind="stable")
    row_in_list = np.empty(n, dtype=np.intp)
    row_in_list[order] = np.arange(n) - np.repeat(np.cumsum(per_list) - per_list, per_list)
    sums = [np.empty((k, len(names))) for k, names in zip(per_list, list_index)]
    unmeasured = [np.zeros(part.shape, dtype=np.int64) for part in sums]
    unmeasured_names: dict[tuple[int, int], tuple] = {}
    runtime, calls = np.empty(n), np.empty(n)
    n_threads = np.empty(n, dtype=np.int64)
    for (_, n_cpus), rows in by_shape.items():
        values = np.array([regions[i].metrics for i in rows])  # np.stack is 5x slower
        reduced = sum_over_threads(values)
        chosen_lists = lists[rows]
        for k in np.unique(chosen_lists).tolist():
            chosen = chosen_lists == k
            place = row_in_list[np.asarray(rows)[chosen]]
            sums[k][place] = reduced.sums[chosen]
            unmeasured[k][place] = reduced.unmeasured[chosen]
        for j, k in zip(*np.nonzero(reduced.unmeasured)):
            cpus = regions[rows[j]].cpus or []
            unmeasured_names[rows[j], int(k)] = tuple(
                thread_name(cpus[p]) for p in nonfinite_threads(values[j, k]).tolist())
        runtime[rows] = max_over_threads(np.array([regions[i].times for i in rows]))
        calls[rows] = max_over_threads(np.array([regions[i].call_counts for i in rows]))
        n_threads[rows] = n_cpus
    return RankRows(rank, engine, [r.tag for r in regions], n_threads, runtime, calls,
                    [group_label(r.group_name, r.group_id) for r in regions],
                    list(list_index), lists, sums, unmeasured, unmeasured_names)


def read_rank_rows(path: str, ranks: list[tuple[int, str]], engine: str = "raw"
                   ) -> list[RankRows | UnreadRank]:
    """Read and reduce the given ``(rank, group name)`` pairs of one file (what one worker does).

    ``engine``: ``"raw"`` (a layout the raw engine does not read is an
    error), ``"auto"`` (such a rank comes back as an :class:`UnreadRank`:
    h5py is never called here) or ``"h5py"`` (run it in a guarded worker,
    :mod:`roofline_widget.io.scope.guard`).
    """
    parts = read_ranks_h5py(path, ranks) if engine == "h5py" else \
        read_ranks_raw(path, ranks, skip_unsupported=engine == "auto")
    return [part if isinstance(part, UnreadRank) else rank_rows(part.rank, part.regions, part.engine)
            for part in parts]


def tabulate(blocks: list[RankRows]) -> dict:
    """Join the ranks into the columns :class:`ScopeH5Source` keeps (and the cache stores)."""
    lists = list(dict.fromkeys(names for b in blocks for names in b.name_lists))
    metric_names = list(dict.fromkeys(n for names in lists for n in names))
    column = {name: i for i, name in enumerate(metric_names)}
    total = sum(len(b.tags) for b in blocks)
    sums = np.full((len(metric_names), total), np.nan)
    unmeasured = np.zeros((len(metric_names), total), dtype=np.int64)
    named: dict[tuple[int, int], str] = {}
    start = 0
    for block in blocks:
        for index, names in enumerate(block.name_lists):
            where = np.flatnonzero(block.list_of_region == index)
            if len(where) and names:
                rows = np.array([column[n] for n in names], dtype=np.intp)
                sums[np.ix_(rows, start + where)] = block.sums[index].T
                unmeasured[np.ix_(rows, start + where)] = block.unmeasured[index].T
        for (i, k), threads in block.unmeasured_names.items():
            names = block.name_lists[block.list_of_region[i]]
            named[(column[names[k]], start + i)] = "\n".join(threads)
        start += len(block.tags)
    # the names of every non-zero count, in the order of np.nonzero(unmeasured)
    unmeasured_names = [named[(int(m), int(r))] for m, r in zip(*np.nonzero(unmeasured))]

    def joined(attr):
        parts = [getattr(b, attr) for b in blocks]
        return np.concatenate(parts) if parts else np.zeros(0)

    return {
        "metric_names": metric_names, "sums": sums,
        "unmeasured": unmeasured, "unmeasured_names": unmeasured_names,
        "rank": np.repeat(np.array([b.rank for b in blocks], dtype=np.int64),
                          [len(b.tags) for b in blocks]),
        "region": [t for b in blocks for t in b.tags],
        "groups": [g for b in blocks for g in b.groups],
        "n_threads": joined("n_threads").astype(np.int64), "runtime_s": joined("runtime_s"),
        "call_count": joined("call_count"),
    }


class ScopeH5Source:
    """Per-(rank, region) sums over threads of one scope-profiler HDF5 file.

    Build it with :func:`read_scope_sums`.  A
    :class:`~roofline_widget.points.engines.source.RegionSource`; the sums of
    every metric are computed while reading (one float64 per region and
    metric is kept).

    Attributes
    ----------
    label, source : str
        Run label (the file's ``metadata`` label, else its stem) and the path
        as named in tables and messages (bytes that are no UTF-8 as ``\\xNN``).
    path : str
        The path the file is read from.
    version : FileVersion or None
        The version of the file the sums were read from; :attr:`run` is read
        from the same content, or refused.
    metric_names : list of str
        Every metric name, in order of first appearance.
    keys : dict
        ``rank, region, device, n_threads, runtime_s, call_count, groups``,
        one value per (rank, region).
    from_cache : bool
        Whether the sums were read from the on-disk cache.
    engine : str
        The ``engine`` it was read with (``"auto"``, ``"h5py"`` or ``"raw"``);
        :attr:`run` is read with it too.
    """

    def __init__(self, source: str, label: str, table: dict, from_cache: bool = False,
                 engine: str = "auto", version: FileVersion | None = None):
        self.path, self.source = source, file_name(source)
        self.label, self.from_cache = label, from_cache
        self.engine, self.version = engine, version
        self.metric_names = list(table["metric_names"])
        self._sums = table["sums"]
        self._unmeasured = np.asarray(table["unmeasured"], dtype=np.int64)
        self._unmeasured_names = list(table["unmeasured_names"])
        self._row = {name: i for i, name in enumerate(self.metric_names)}
        n = len(table["rank"])
        self.keys = {
            "rank": np.asarray(table["rank"], dtype=np.int64),
            "region": _factorized(table["region"]),
            "device": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [CPU]),
            "n_threads": np.asarray(table["n_threads"], dtype=np.int64),
            "runtime_s": np.asarray(table["runtime_s"], dtype=float),
            "call_count": np.asarray(table["call_count"], dtype=float),
            "groups": _factorized(table["groups"]),
        }
        self._run: LikwidRun | None = None

    def __len__(self) -> int:
        return len(self.keys["rank"])

    def sums(self, metric: str) -> np.ndarray:
        """Per-row sum over threads of ``metric`` (native unit); NaN where not measured."""
        return self._sums[self._row[metric]]

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite (``"HWThread <cpu>"``).

        Counted while reading; a region with no finite value adds nothing.
        """
        row = self._row[metric]
        counts = self._unmeasured[row]
        threads = {}
        if counts.any():
            metric_rows, region_rows = np.nonzero(self._unmeasured)
            for k in np.flatnonzero(metric_rows == row).tolist():
                threads[int(region_rows[k])] = tuple(self._unmeasured_names[k].split("\n"))
        return Unmeasured(counts.copy(), threads)

    def table(self) -> dict:
        """The columns as plain arrays and lists (what the cache stores)."""
        return {"metric_names": self.metric_names, "sums": self._sums,
                "unmeasured": self._unmeasured, "unmeasured_names": self._unmeasured_names,
                "rank": self.keys["rank"], "region": list(self.keys["region"]),
                "groups": list(self.keys["groups"]), "n_threads": self.keys["n_threads"],
                "runtime_s": self.keys["runtime_s"], "call_count": self.keys["call_count"]}

    @property
    def run(self) -> LikwidRun:
        """The full per-thread :class:`LikwidRun` (read from the file on first use).

        Raises
        ------
        LikwidFormatError
            If the file no longer holds what the sums were read from.
        """
        if self._run is None:
            run, version = read_scope_version(self.path, self.label, engine=self.engine)
            if self.version is not None and not version.same_content(self.version):
                raise LikwidFormatError(self.source, None, "the file the sums were read from",
                                        "it changed since (read it again for its numbers)")
            self._run = run
        return self._run


def _factorized(labels) -> pd.Categorical:
    if isinstance(labels, pd.Categorical):
        return labels
    codes, categories = pd.factorize(np.asarray(list(labels), dtype=object), sort=False)
    return pd.Categorical.from_codes(codes, categories)
