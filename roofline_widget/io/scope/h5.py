"""Fast reader of scope-profiler HDF5 files: per-region sums straight from h5py.

``ProfilingResults.from_h5`` builds one ``LikwidRegionResult`` per (rank,
region) with every array and attribute (about 1.3 ms per region).  A roofline
point needs far less: per region its tag, the metric-name list, the sum over
threads of every metric, the number of cpus and the maximum of ``times``
(and, for the tables, the maximum of ``call_counts`` and the group name).
:func:`read_scope_sums` reads only that, and keeps nothing per thread.  Each
rank is read straight from a memory map of the file
(:mod:`~roofline_widget.io.scope.h5_raw`, about four times faster than h5py, whose
every object opened costs 100-300 us) when the file has the layout h5py
writes by default; a rank that module refuses (another layout, damage) is
read through h5py's low-level API (no ``Group``/``Dataset`` wrappers,
buffers filled in place), which also makes the error messages.  The threads
of a rank are reduced at once with numpy, one stacked array per shape.

Layout read (what scope-profiler's ``write_likwid_results`` writes)::

    rank<r>/likwid/regions/<tag with "/" as "|">/
        attrs: tag, group_id, group_name, metric_names
        datasets: cpus, times, call_counts, metrics (names x cpus)

The result, :class:`ScopeH5Sums`, has the interface
:class:`~roofline_widget.points.RegionSums` aggregates (``keys``,
``metric_names``, ``len``, ``sums(metric)``, ``run``), with the numbers of
:class:`~roofline_widget.points.ScopeSums` on ``ProfilingResults.from_h5``.

Reading is parallel over ranks with any :class:`concurrent.futures.Executor`
(a process pool by default when the file is large), shows a ``tqdm.auto``
progress bar when it takes more than a second, and is cached on disk
(:mod:`roofline_widget.io.scope.cache`).
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.scope import cache as scope_cache
from roofline_widget.io.scope.check import (
    H5_ERRORS,
    REGIONS_PATH,
    check_metric_names_value,
    damaged,
    missing_dataset,
    open_h5,
)
from roofline_widget.io.scope.h5_raw import PARSE_ERRORS, NotSupported, RawDataset, RawH5
from roofline_widget.model import CPU, LikwidRun

__all__ = [
    "PARALLEL_MIN_REGIONS",
    "RankSums",
    "ScopeH5Sums",
    "is_hdf5",
    "rank_groups",
    "read_rank_h5py",
    "read_rank_raw",
    "read_rank_sums",
    "read_scope_sums",
]

#: Files with at least this many (rank, region) groups are read by a process pool by default.
PARALLEL_MIN_REGIONS = 4000
_REGIONS_PATH = REGIONS_PATH


@dataclass
class RankSums:
    """What one rank contributes: one entry per region, in the file's order.

    Attributes
    ----------
    rank : int
    tags : list of str
        Region tags (the ``tag`` attribute).
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


def is_hdf5(path) -> bool:
    """Whether ``path`` is a readable file starting with the HDF5 signature."""
    try:
        with open(path, "rb") as handle:
            return handle.read(8) == b"\x89HDF\r\n\x1a\n"
    except OSError:
        return False


def rank_groups(path) -> list[tuple[int, str]]:
    """(rank, group name) of every ``rank<r>`` group holding LIKWID regions, ranks ascending."""
    with open_h5(path) as handle:
        try:
            names = [name for name in handle if name.startswith("rank") and name[4:].isdigit()]
            found = [(int(name[4:]), name) for name in names
                     if f"{name}/{_REGIONS_PATH}" in handle]
        except H5_ERRORS as exc:
            raise damaged(str(path), exc) from None
    return sorted(found)


def _string_attribute(object_id, name: bytes):
    """A string (or list of strings) attribute read with the low-level API; None if absent."""
    import h5py

    if not h5py.h5a.exists(object_id, name):
        return None
    attribute = h5py.h5a.open(object_id, name)
    dtype = attribute.dtype
    buffer = np.empty(attribute.shape or (), dtype=dtype)
    attribute.read(buffer, mtype=h5py.h5t.py_create(dtype))
    value = buffer.tolist()
    return [_text(v) for v in value] if isinstance(value, list) else _text(value)


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _scalar_attribute(object_id, name: bytes) -> int:
    import h5py

    if not h5py.h5a.exists(object_id, name):
        return -1
    attribute = h5py.h5a.open(object_id, name)
    buffer = np.empty(attribute.shape or (), dtype=np.int64)
    attribute.read(buffer)
    return int(buffer)


def _read_vector(region_id, name: bytes, where: str) -> np.ndarray:
    """A 1-D dataset of one region as float64 (HDF5 converts the type)."""
    import h5py

    try:
        dataset = h5py.h5d.open(region_id, name)
    except KeyError:
        raise LikwidFormatError(where, None, f"a {name.decode()!r} dataset in every "
                                "scope-profiler LIKWID region", "none") from None
    out = np.empty(dataset.shape, dtype=np.float64)
    if out.size:
        dataset.read(h5py.h5s.ALL, h5py.h5s.ALL, out)
    return out.ravel()


def _thread_reduce(values: np.ndarray, ufunc) -> np.ndarray:
    """``ufunc`` over the last (thread) axis, NaN ignored; all-NaN or no thread: NaN.

    For the sum an infinite value is not measured either (ignored like NaN).

    The same reduction :class:`~roofline_widget.points.ScopeSums` applies,
    along a contiguous axis, so the sums are bit for bit the same.
    """
    if values.shape[-1] == 0:
        return np.full(values.shape[:-1], np.nan)
    nan = ~np.isfinite(values) if ufunc is np.add else np.isnan(values)
    if not nan.any():
        return ufunc.reduce(values, axis=-1)
    if ufunc is np.add:
        values = np.where(nan, 0.0, values)
    out = np.asarray(ufunc.reduce(values, axis=-1))
    return np.where(nan.all(axis=-1), np.nan, out)


class _RegionReader:
    """Collects the regions of one rank group; one ``add`` per region, checked there."""

    def __init__(self, path: str, rank: int):
        self.path, self.rank = path, rank
        self.tags, self.groups, self.lists = [], [], []
        self._values, self._times, self._calls, self._cpus = [], [], [], []
        self._by_shape: dict[tuple, list[int]] = {}
        self._list_index: dict[tuple, int] = {}

    def where(self, tag: str) -> str:
        """How errors name a region of this rank."""
        return f"{self.path} (rank {self.rank}, region {tag!r})"

    def check_names(self, names, tag: str) -> tuple:
        """The ``metric_names`` attribute as a tuple; one string is refused."""
        names = names or ()
        check_metric_names_value(names, self.where(tag))
        return tuple(names)

    def check_shape(self, shape: tuple, names: tuple, tag: str) -> None:
        """``metrics`` must have one row per metric name."""
        if len(shape) != 2 or shape[0] != len(names):
            raise LikwidFormatError(self.where(tag), None, f"{len(names)} rows (one per metric "
                                    "name) and one column per cpu in the metrics array",
                                    f"shape {shape}")

    def add(self, tag: str, names: tuple, values: np.ndarray, times: np.ndarray,
            calls: np.ndarray, group: str, cpus) -> None:
        """Keep one region; its threads are reduced in :meth:`result`, with its rank's.

        ``values`` is the float64 ``metrics`` array (names x cpus) after
        :meth:`check_shape`; ``cpus()`` reads the ``cpus`` dataset (only
        called when some thread of a metric was not measured).
        """
        n_cpus = values.shape[1]
        # the cpus themselves are not needed: their count is the metrics' width, and
        # times and call_counts must have as many values (opening "cpus" costs ~20 %)
        for what, column in (("times", times), ("call_counts", calls)):
            if len(column) != n_cpus:
                raise LikwidFormatError(self.where(tag), None, f"one value per cpu in {what} "
                                        "and one column per cpu in metrics",
                                        f"{len(column)} {what} for {n_cpus} metrics columns")
        self._by_shape.setdefault(values.shape, []).append(len(self.tags))
        self.tags.append(tag)
        self.groups.append(group)
        self.lists.append(self._list_index.setdefault(names, len(self._list_index)))
        self._values.append(values)
        self._times.append(times)
        self._calls.append(calls)
        self._cpus.append(cpus)

    def result(self) -> RankSums:
        """Reduce the threads of every region kept, all regions of one shape at once.

        Stacked, each region's reduction runs along the same contiguous last
        axis as alone, so the sums are bit for bit those of one region at a time.
        """
        n, lists = len(self.tags), np.asarray(self.lists, dtype=np.intp)
        per_list = np.bincount(lists, minlength=len(self._list_index))
        # each region's row in the arrays of its list
        order = np.argsort(lists, kind="stable")
        row_in_list = np.empty(n, dtype=np.intp)
        row_in_list[order] = np.arange(n) - np.repeat(np.cumsum(per_list) - per_list, per_list)
        sums = [np.empty((k, len(names))) for k, names in zip(per_list, self._list_index)]
        unmeasured = [np.zeros(part.shape, dtype=np.int64) for part in sums]
        unmeasured_names: dict[tuple[int, int], tuple] = {}
        runtime, calls = np.empty(n), np.empty(n)
        n_threads = np.empty(n, dtype=np.int64)
        for (_, n_cpus), rows in self._by_shape.items():
            values = np.array([self._values[i] for i in rows])  # np.stack is 5x slower
            block_sums = _thread_reduce(values, np.add)
            bad = ~np.isfinite(values)
            n_bad = bad.sum(axis=2)
            partial = (n_bad > 0) & (n_bad < n_cpus)
            counts = np.where(partial, n_bad, 0)
            rows = np.asarray(rows, dtype=np.intp)
            for k in np.unique(lists[rows]).tolist():
                chosen = lists[rows] == k
                sums[k][row_in_list[rows[chosen]]] = block_sums[chosen]
                unmeasured[k][row_in_list[rows[chosen]]] = counts[chosen]
            for j, k in zip(*np.nonzero(partial)):
                cpu_ids = self._cpus[rows[j]]()
                unmeasured_names[int(rows[j]), int(k)] = tuple(
                    f"HWThread {int(c)}" for c in cpu_ids[bad[j, k]])
            runtime[rows] = _thread_reduce(_rows(self._times, rows, n_cpus), np.fmax)
            calls[rows] = _thread_reduce(_rows(self._calls, rows, n_cpus), np.fmax)
            n_threads[rows] = n_cpus
        return RankSums(self.rank, self.tags, n_threads, runtime, calls, self.groups,
                        list(self._list_index), lists, sums, unmeasured, unmeasured_names)


def _rows(vectors: list, rows: list, width: int) -> np.ndarray:
    """The given 1-D arrays of one length as the rows of a 2-D array."""
    return np.array([vectors[i] for i in rows]) if width else np.empty((len(rows), 0))


def read_rank_h5py(handle, path: str, rank: int, group: str) -> RankSums:
    """One rank through h5py's low-level API: reads every HDF5 file, makes the errors.

    Parameters
    ----------
    handle : h5py.File
        The open file (:func:`~roofline_widget.io.scope.check.open_h5`).
    path : str
        Its path, for the messages.
    rank : int
    group : str
        The rank's group (``"rank<r>"``).

    Raises
    ------
    LikwidFormatError
        For a damaged or incomplete region, naming file, rank and region.
    """
    try:
        regions_id = handle[f"{group}/{_REGIONS_PATH}"].id
        links = list(regions_id)  # name order, as h5py's Group.values()
    except H5_ERRORS as exc:
        raise damaged(f"{path} (rank {rank})", exc) from None
    reader = _RegionReader(path, rank)
    for link in links:
        try:
            _h5py_region(reader, regions_id, link)
        except H5_ERRORS as exc:
            raise _problem(reader, regions_id, link, exc) from None
    return reader.result()


def _problem(reader: _RegionReader, regions_id, link: bytes,
             exc: BaseException) -> LikwidFormatError:
    """What is wrong with a region whose read failed: a missing dataset, or damage."""
    import h5py

    where = reader.where(link.decode("utf-8", "replace").replace("|", "/"))
    try:
        error = missing_dataset(h5py.Group(h5py.h5o.open(regions_id, link)), where,
                                ("metrics", "times", "call_counts"))
    except H5_ERRORS:
        error = None
    return error or damaged(where, exc)


def _h5py_region(reader: _RegionReader, regions_id, link: bytes) -> None:
    import h5py

    region = h5py.h5o.open(regions_id, link)
    name = link.decode("utf-8", "replace")
    # scope-profiler writes the tag with "/" replaced by "|" as the group name
    tag = name if "|" not in name else (_string_attribute(region, b"tag") or "")
    where = reader.where(tag)
    names = reader.check_names(_string_attribute(region, b"metric_names"), tag)
    metrics = h5py.h5d.open(region, b"metrics")
    reader.check_shape(tuple(metrics.shape), names, tag)
    values = np.empty(tuple(metrics.shape), dtype=np.float64)
    if values.size:
        metrics.read(h5py.h5s.ALL, h5py.h5s.ALL, values)
    times = _read_vector(region, b"times", where)
    calls = _read_vector(region, b"call_counts", where)
    group = _string_attribute(region, b"group_name") or \
        f"Group {_scalar_attribute(region, b'group_id')}"
    reader.add(tag, names, values, times, calls, group,
               lambda: _read_vector(region, b"cpus", where))


def read_rank_raw(raw: RawH5, path: str, rank: int, group: str) -> RankSums:
    """One rank read straight from the file (:mod:`~roofline_widget.io.scope.h5_raw`).

    Same parameters and result as :func:`read_rank_h5py`, with ``raw`` the
    open :class:`~roofline_widget.io.scope.h5_raw.RawH5` of ``path``; about four
    times faster (no HDF5 library call per object).

    Raises
    ------
    NotSupported, struct.error, ValueError, ...
        One of :data:`~roofline_widget.io.scope.h5_raw.PARSE_ERRORS` when the rank is
        outside what that module reads, or damaged: read it with
        :func:`read_rank_h5py` then (which names what is wrong).
    LikwidFormatError
        For what both readers refuse alike (``metric_names`` one string,
        ``metrics`` of the wrong shape, ``times`` of another length).
    """
    regions = raw.member(raw.header(raw.root), f"{group}/{_REGIONS_PATH}")
    reader = _RegionReader(path, rank)
    for name, address in raw.links(regions):
        _raw_region(reader, raw, name, address)
    return reader.result()


def _raw_region(reader: _RegionReader, raw: RawH5, name: str, address: int) -> None:
    header = raw.header(address)
    tag = name if "|" not in name else (header.attribute("tag") or "")
    names = reader.check_names(header.attribute("metric_names"), tag)
    members = dict(raw.links(header))
    metrics = _raw_dataset(raw, members, "metrics")
    reader.check_shape(metrics.shape, names, tag)
    values = raw.values(metrics, np.float64)
    times = raw.values(_raw_dataset(raw, members, "times"), np.float64).ravel()
    calls = raw.values(_raw_dataset(raw, members, "call_counts"), np.float64).ravel()
    group = header.attribute("group_name")
    if not group:
        group_id = header.attribute("group_id")
        if group_id is not None and not isinstance(group_id, int):
            raise NotSupported("group_id not one integer")
        group = f"Group {-1 if group_id is None else group_id}"
    reader.add(tag, names, values, times, calls, group,
               lambda: raw.values(_raw_dataset(raw, members, "cpus"), np.float64).ravel())


def _raw_dataset(raw: RawH5, members: dict, name: str) -> RawDataset:
    if name not in members:
        raise NotSupported(f"no {name!r} dataset")  # h5py's path names it
    return raw.dataset(members[name])


def _open_raw(path: str) -> RawH5 | None:
    try:
        return RawH5(path)
    except PARSE_ERRORS:
        return None


def read_rank_sums(path, ranks: list[tuple[int, str]]) -> list[RankSums]:
    """Read the given ``(rank, group name)`` pairs of one file (what one worker does).

    Each rank is read straight from the file by
    :mod:`~roofline_widget.io.scope.h5_raw` when it can, else (another layout,
    damage) through h5py, which also makes the errors.

    Parameters
    ----------
    path : str
        The HDF5 file.
    ranks : list of (int, str)
        As :func:`rank_groups` returns them.

    Returns
    -------
    list of RankSums
        In the order given.
    """
    path, out, handle = str(path), [], None
    raw = _open_raw(path)
    try:
        for rank, group in ranks:
            if raw is not None:
                try:
                    out.append(read_rank_raw(raw, path, rank, group))
                    continue
                except PARSE_ERRORS:
                    pass
            if handle is None:
                handle = open_h5(path)
            out.append(read_rank_h5py(handle, path, rank, group))
    finally:
        if raw is not None:
            raw.close()
        if handle is not None:
            handle.close()
    return out


def _chunks(items: list, n: int) -> list[list]:
    size = max(1, -(-len(items) // n))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _count_regions(path, first_group: str) -> int:
    with open_h5(path) as handle:
        try:
            return len(handle[f"{first_group}/{_REGIONS_PATH}"])
        except H5_ERRORS as exc:
            raise damaged(str(path), exc) from None


def _read_all(path: str, ranks: list, executor, progress: bool) -> list[RankSums]:
    """Read every rank, serially or on ``executor``, with a progress bar after ~1 s."""
    from tqdm.auto import tqdm

    own_pool = None
    if executor is None and ranks:
        if _count_regions(path, ranks[0][1]) * len(ranks) >= PARALLEL_MIN_REGIONS:
            executor = own_pool = ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1,
                                                                      len(ranks)))
    bar = tqdm(total=len(ranks), unit="rank", desc=f"reading {Path(path).name}", delay=1.0,
               disable=not progress, leave=False)
    try:
        if executor is None:
            results = []
            for item in ranks:
                results += read_rank_sums(path, [item])
                bar.update(1)
            return results
        chunks = _chunks(ranks, 8 * (os.cpu_count() or 1))
        futures = [executor.submit(read_rank_sums, path, chunk) for chunk in chunks]
        results = []
        for chunk, future in zip(chunks, futures):  # in order; the bar moves as they finish
            results += future.result()
            bar.update(len(chunk))
        return results
    finally:
        bar.close()
        if own_pool is not None:
            own_pool.shutdown()


def _label_of(path) -> str:
    with open_h5(path) as handle:
        try:
            label = handle["metadata"].attrs.get("label") if "metadata" in handle else None
        except H5_ERRORS as exc:
            raise damaged(str(path), exc) from None
        if label is not None:
            if isinstance(label, bytes):
                label = label.decode("utf-8", "replace")
            if label:
                return str(label)
    return Path(path).stem


def _tabulate(blocks: list[RankSums]) -> dict:
    """Join the ranks into the columns :class:`ScopeH5Sums` keeps (and the cache stores)."""
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
                rows = [column[n] for n in names]
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


class ScopeH5Sums:
    """Per-(rank, region) sums over threads of one scope-profiler HDF5 file.

    Build it with :func:`read_scope_sums`.  Same interface as
    :class:`~roofline_widget.points.ScopeSums`; the sums of every metric
    are computed while reading (one float64 per region and metric is kept).

    Attributes
    ----------
    label, source : str
        Run label (the file's ``metadata`` label, else its stem) and the path.
    metric_names : list of str
        Every metric name, in order of first appearance.
    keys : dict
        ``rank, region, device, n_threads, runtime_s, call_count, groups``,
        one value per (rank, region).
    from_cache : bool
        Whether the sums were read from the on-disk cache.
    """

    def __init__(self, source: str, label: str, table: dict, from_cache: bool = False):
        self.source, self.label, self.from_cache = source, label, from_cache
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

    def unmeasured(self, metric: str) -> tuple[np.ndarray, dict]:
        """Per row the threads whose ``metric`` is not finite (``"HWThread <cpu>"``).

        ``(counts, {row: thread names})``, as
        :class:`roofline_widget.points.unmeasured.Unmeasured`; counted while
        reading; a region with no finite value adds nothing.
        """
        row = self._row[metric]
        counts = self._unmeasured[row]
        threads = {}
        if counts.any():
            metric_rows, region_rows = np.nonzero(self._unmeasured)
            for k in np.flatnonzero(metric_rows == row).tolist():
                threads[int(region_rows[k])] = tuple(self._unmeasured_names[k].split("\n"))
        return counts.copy(), threads

    def table(self) -> dict:
        """The columns as plain arrays and lists (what the cache stores)."""
        return {"metric_names": self.metric_names, "sums": self._sums,
                "unmeasured": self._unmeasured, "unmeasured_names": self._unmeasured_names,
                "rank": self.keys["rank"], "region": list(self.keys["region"]),
                "groups": list(self.keys["groups"]), "n_threads": self.keys["n_threads"],
                "runtime_s": self.keys["runtime_s"], "call_count": self.keys["call_count"]}

    @property
    def run(self) -> LikwidRun:
        """The full per-thread :class:`LikwidRun` (read with scope-profiler on first use; slow)."""
        if self._run is None:
            from roofline_widget.io.scope.objects import read_scope_h5
            self._run = read_scope_h5(self.source, self.label)
        return self._run


def _factorized(labels) -> pd.Categorical:
    if isinstance(labels, pd.Categorical):
        return labels
    codes, categories = pd.factorize(np.asarray(list(labels), dtype=object), sort=False)
    return pd.Categorical.from_codes(codes, categories)


def read_scope_sums(path, *, label: str | None = None, executor: Executor | None = None,
                    cache: bool = True, cache_dir=None, progress: bool = True) -> ScopeH5Sums:
    """Read the per-region sums of a scope-profiler HDF5 file, fast.

    Parameters
    ----------
    path : str or path-like
        A file written by scope-profiler (``rank<r>/likwid/regions/...``).
    label : str, optional
        Run label; default the file's ``metadata`` label, else its stem.
    executor : concurrent.futures.Executor, optional
        Where to read the ranks (in chunks): any ``Executor``, e.g. a
        ``ProcessPoolExecutor`` or a dask ``Client.get_executor()``.  By
        default a process pool sized to the machine when the file has at least
        :data:`PARALLEL_MIN_REGIONS` regions, else serial in this process.
    cache : bool
        Read from and write to the on-disk cache (default True); see
        :mod:`roofline_widget.io.scope.cache`.
    cache_dir : str or path-like, optional
        The cache directory (default: the user cache dir of platformdirs).
    progress : bool
        Show a ``tqdm.auto`` bar when reading takes more than a second.

    Returns
    -------
    ScopeH5Sums

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    LikwidFormatError
        If it holds no LIKWID region, or a region's arrays do not have one
        column per cpu (the message names the rank and the region).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"scope-profiler HDF5 file not found: {path}")
    source = str(path)
    label = label or _label_of(path)
    if cache:
        key = scope_cache.cache_key(path)
        table = scope_cache.load(path, cache_dir)
        if table is not None:
            return ScopeH5Sums(source, label, table, from_cache=True)
    ranks = rank_groups(path)
    table = _tabulate(_read_all(source, ranks, executor, progress))
    if not len(table["rank"]):
        raise LikwidFormatError(source, None, "scope-profiler results with LIKWID regions "
                                "(run under likwid-perfctr -m)", "no LIKWID data")
    if cache:
        scope_cache.store(path, cache_dir, table, key)
    return ScopeH5Sums(source, label, table)
