"""The sums engine of a :class:`LikwidRun`: per (rank, region, device) sums over threads.

:func:`cached_run_frame` aggregates a run's per-thread table once: per
(rank, region, device, group) the sum over threads of every metric, through
the one thread reduction (:mod:`~roofline_widget.points.engines.threads`:
a non-finite thread is not measured, all-NaN stays NaN, the unmeasured
threads counted), then per (rank, region, device) the first group (in file
order) with a value for each metric.  That joins a FLOPS_DP run and a MEM_DP
run of the same regions into one row and never counts a metric twice when
both groups print it (``DP [MFLOP/s]``).  The frame is cached per run
object; :class:`RunSource` serves it as a
:class:`~roofline_widget.points.engines.source.RegionSource`.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from roofline_widget.io.key_codes import (
    column_codes,
    first_appearance,
    first_rows,
    first_valid,
    integer_codes,
    sorted_categorical,
)
from roofline_widget.model import LikwidRun, device_family
from roofline_widget.points.engines.threads import max_over_segments, nonfinite_threads, sum_over_segments
from roofline_widget.points.unmeasured import Unmeasured
from roofline_widget.roofs.hardware_bounds import run_thread_bound
from roofline_widget.schema import KEY_COLUMNS, SOURCE_KEYS

__all__ = ["RankPlaces", "RunAggregate", "RunSource", "cached_run_frame", "rank_places",
           "run_aggregate"]

_GROUP_KEYS = ["rank", "region", "device", "group"]

# id(run) -> (weakref to the run, its table, the table's shape, the aggregate)
_RUN_CACHE: dict[int, tuple] = {}


@dataclass(frozen=True)
class RunAggregate:
    """A run's sums: their columns (a frame of them on first use), and what names its
    unmeasured threads.

    Attributes
    ----------
    columns : dict of str to array
        One value per (rank, region, device) row: the numeric :data:`SOURCE_KEYS`
        (``region``, ``device`` and ``groups`` are :attr:`categoricals`), then one
        column per metric (sum over threads, native unit); with those, the columns of
        :attr:`frame`.
    metric_names : list of str
        The metrics, in the run's order.
    group_rows : numpy.ndarray
        Per (rank, region, device, group), its row of ``frame``.
    group_sums, unmeasured : numpy.ndarray
        (metrics, groups): the sums and the unmeasured threads of each group
        (:class:`~roofline_widget.points.engines.threads.ThreadSums`).
    order, starts : numpy.ndarray
        The table rows sorted by group, and where each group starts in that order.
    categoricals : dict of str to pandas.Categorical
        The ``region``, ``device`` and ``groups`` columns of ``frame`` as
        categoricals (the values present, sorted), built from codes.
    """

    columns: dict[str, np.ndarray]
    metric_names: list[str]
    group_rows: np.ndarray
    group_sums: np.ndarray
    unmeasured: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    categoricals: dict[str, pd.Categorical]

    def __len__(self) -> int:
        """The number of (rank, region, device) rows."""
        return len(self.columns["rank"])

    @functools.cached_property
    def frame(self) -> pd.DataFrame:
        """The :attr:`columns` as one DataFrame (built on first use: the sums engine reads the
        arrays; a frame costs more than a small run's sums)."""
        data = dict(self.columns)
        texts = {name: np.asarray(self.categoricals[name], dtype=object)
                 for name in ("region", "device", "groups")}
        for name in ("region", "device"):
            data[name] = pd.Series(texts[name], dtype=object, copy=False)
        data["groups"] = pd.Series(texts["groups"]).array  # labels inferred (str)
        return pd.DataFrame(data, columns=[*SOURCE_KEYS, *self.metric_names])


def _group_labels(group_codes: np.ndarray, names: np.ndarray, rows: np.ndarray,
                  n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """'MEM_DP+FLOPS_DP' per (rank, region, device): (per row a code, the labels).

    ``group_codes`` per (rank, region, device, group) its group's code into
    ``names`` (numbered in file order), ``rows`` its (rank, region, device)
    row; a label joins a row's groups in file order.
    """
    if len(names) == 1:  # one group (every row's): no pattern to find
        return np.zeros(n_rows, dtype=np.int64), np.array([str(names[0])], dtype=object)
    present = np.zeros((n_rows, len(names)), dtype=bool)
    present[rows, group_codes] = True
    if len(names) < 63:  # each row's set of groups as the bits of one integer
        codes, patterns = pd.factorize(present @ (np.int64(1) << np.arange(len(names), dtype=np.int64)))
        masks = (patterns[:, None] >> np.arange(len(names))) & 1 == 1
    else:
        masks, codes = np.unique(present, axis=0, return_inverse=True)
    labels = np.array(["+".join(str(name) for name in names[mask]) for mask in masks], dtype=object)
    return np.asarray(codes, dtype=np.int64).ravel(), labels


def _aggregate_run(run: LikwidRun) -> RunAggregate:
    """Per (rank, region, device) sums over threads; see the module docstring.

    Grouped on the key columns' integer codes (:mod:`~roofline_widget.io.key_codes`): keys are
    numbered in order of first appearance, as ``groupby(sort=False)``.
    """
    table = run.table
    metrics = run.metric_names
    keys = {name: column_codes(table[name]) for name in _GROUP_KEYS[1:]}
    keys["rank"] = (integer_codes(table["rank"].to_numpy()), np.zeros(0, dtype=object))
    codes = first_appearance([keys[name][0] for name in _GROUP_KEYS])
    used = codes >= 0  # a row without a key (none in practice) belongs to no group
    n_groups = int(codes.max()) + 1 if used.any() else 0
    in_order = n_groups == len(codes)  # every row a group of its own, numbered as the rows are
    if in_order:
        order = starts = group_first = np.arange(n_groups)
        counts = np.ones(n_groups, dtype=np.int64)
    else:
        order = np.flatnonzero(used)[np.argsort(codes[used], kind="stable")]
        counts = np.bincount(codes[used], minlength=n_groups)
        starts = np.cumsum(counts) - counts
        group_first = order[starts]
    # the metric columns by position (``table[metrics]`` looks each name up: costlier than the sums)
    values = (table.iloc[:, len(KEY_COLUMNS):].to_numpy(dtype=float).T if metrics
              else np.zeros((0, len(order))))
    reduced = sum_over_segments(values if in_order else values[:, order], counts)
    # the largest over a group's threads (over one thread: its own value)
    maxima = np.array([table[name].to_numpy(dtype=float) if in_order
                       else max_over_segments(table[name].to_numpy(dtype=float)[order], counts)
                       for name in ("runtime_s", "call_count")]).reshape(2, len(counts))
    group_keys = keys["group"][0]
    if len(group_keys) and int(group_keys.min()) == int(group_keys.max()) >= 0:
        # one group: a (rank, region, device) per key, every key of that group
        group_rows = np.arange(len(group_first))
        group_codes = np.zeros(len(group_first), dtype=np.int64)
        group_names = group_keys[:1 if len(group_first) else 0]
    else:
        group_rows = first_appearance([keys[name][0][group_first] for name in _GROUP_KEYS[:3]])
        group_codes = first_appearance([group_keys[group_first]])
        group_names = group_keys[group_first[first_rows(group_codes)]]
    n_rows = int(group_rows.max()) + 1 if len(group_rows) else 0
    numbers = np.concatenate([maxima, reduced.sums])
    if n_rows < len(group_rows):  # several groups of a (rank, region, device): the first valued
        numbers = first_valid(numbers, group_rows, n_rows)
    n_threads = np.zeros(n_rows, dtype=np.int64)
    np.maximum.at(n_threads, group_rows, counts)
    row_first = group_first[first_rows(group_rows)]
    label_codes, labels = _group_labels(group_codes, keys["group"][1][group_names], group_rows,
                                        n_rows)
    labelled = {name: (keys[name][0][row_first], keys[name][1]) for name in ("region", "device")}
    labelled["groups"] = (label_codes, labels)
    columns = {
        "rank": table["rank"].to_numpy(dtype=np.int64)[row_first],
        "n_threads": n_threads, "runtime_s": numbers[0], "call_count": numbers[1],
        **dict(zip(metrics, numbers[2:]))}
    categoricals = {name: sorted_categorical(row_codes, texts)
                    for name, (row_codes, texts) in labelled.items()}
    return RunAggregate(columns, list(metrics), group_rows, reduced.sums, reduced.unmeasured,
                        order, starts, categoricals)


def run_aggregate(run: LikwidRun) -> RunAggregate:
    """The :class:`RunAggregate` of ``run``, computed once per run object.

    The same object is returned until the run's table is replaced or resized.
    """
    entry = _RUN_CACHE.get(id(run))
    if entry is not None:
        ref, table, shape, aggregate = entry
        if ref() is run and table is run.table and shape == run.table.shape:
            return aggregate
    aggregate = _aggregate_run(run)
    _RUN_CACHE[id(run)] = (weakref.ref(run), run.table, run.table.shape, aggregate)
    weakref.finalize(run, _RUN_CACHE.pop, id(run), None)
    return aggregate


def cached_run_frame(run: LikwidRun) -> pd.DataFrame:
    """The per-(rank, region, device) sums of ``run`` (:attr:`RunAggregate.frame`), computed once.

    Parameters
    ----------
    run : LikwidRun

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~roofline_widget.schema.SOURCE_KEYS`, then one
        column per metric (sum over threads, native unit).
    """
    return run_aggregate(run).frame


class RankPlaces(NamedTuple):
    """Where each row's rank ran: its host and its socket.

    A source with host and cpu columns (likwid-mpirun output) offers it as
    ``rank_places()``; :mod:`roofline_widget.points.rank_groups` groups the
    ranks of a socket or host with it.

    Attributes
    ----------
    hosts : numpy.ndarray
        Per row, the host name as likwid-mpirun printed it (``""`` unknown).
    sockets : numpy.ndarray
        Per row (int64), the socket of the rank's hardware threads from the
        run's likwid-topology block; -1 when the log has none, or the rank's
        threads are not all on one listed socket.
    """

    hosts: np.ndarray
    sockets: np.ndarray


def rank_places(run: LikwidRun, ranks: np.ndarray) -> RankPlaces:
    """The :class:`RankPlaces` of rows whose ranks are ``ranks`` (the run's table read once).

    A rank's host is that of its first thread row; its socket the one of
    its threads' cpus (``run.topology``), -1 if unknown or several.
    """
    table = run.table
    host_codes, host_names = column_codes(table["host"])
    texts = np.array(["" if host is None or host != host else str(host) for host in host_names]
                     + [""], dtype=object)  # a missing host (code -1) is ""
    socket_of_cpu = _socket_of_cpu(run)
    if not texts.astype(bool).any() and not socket_of_cpu:  # no place named (a points
        return RankPlaces(np.full(len(ranks), "", dtype=object),  # table, likwid-perfctr)
                          np.full(len(ranks), -1, dtype=np.int64))
    rank_codes, known = pd.factorize(table["rank"].to_numpy(dtype=np.int64))
    hosts = texts[host_codes[first_rows(rank_codes)]]  # a rank's host: its first thread's
    sockets = _cpu_sockets(socket_of_cpu, table["cpu"].to_numpy(dtype=np.int64))
    lowest = np.full(len(known), np.iinfo(np.int64).max)
    highest = np.full(len(known), np.iinfo(np.int64).min)
    np.minimum.at(lowest, rank_codes, sockets)
    np.maximum.at(highest, rank_codes, sockets)
    rank_sockets = np.where(lowest == highest, lowest, -1)  # -1: threads on several sockets
    where = pd.Index(known).get_indexer(np.asarray(ranks, dtype=np.int64))
    found = where >= 0
    return RankPlaces(np.where(found, hosts[where], "").astype(object),
                      np.where(found, rank_sockets[where], -1).astype(np.int64))


def _socket_of_cpu(run: LikwidRun) -> dict[int, int]:
    """The socket of each cpu the run's likwid-topology block places (empty: none)."""
    socket_of_cpu: dict[int, int] = {}
    if run.topology is not None:
        for socket, threads in run.topology.socket_threads.items():
            socket_of_cpu.update(dict.fromkeys(threads, int(socket)))
    return socket_of_cpu


def _cpu_sockets(socket_of_cpu: dict[int, int], cpus: np.ndarray) -> np.ndarray:
    """Per cpu its socket (``socket_of_cpu``: :func:`_socket_of_cpu`); -1 where unknown."""
    if not socket_of_cpu:
        return np.full(len(cpus), -1, dtype=np.int64)
    known = pd.Index(np.fromiter(socket_of_cpu, dtype=np.int64, count=len(socket_of_cpu)))
    sockets = np.fromiter(socket_of_cpu.values(), dtype=np.int64, count=len(socket_of_cpu))
    where = known.get_indexer(cpus)
    return np.where(where >= 0, sockets[where], -1)


def _summed_groups(aggregate: RunAggregate, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(frame rows, the group each row's sum of metric ``index`` comes from): the first group
    (file order) with a value."""
    candidates = np.flatnonzero(~np.isnan(aggregate.group_sums[index]))
    if len(aggregate.group_rows) == len(aggregate):  # a group per row: the row's own
        return candidates, candidates
    first = np.full(len(aggregate), len(aggregate.group_rows), dtype=np.int64)
    np.minimum.at(first, aggregate.group_rows[candidates], candidates)  # the first in file order
    rows = np.flatnonzero(first < len(aggregate.group_rows))
    return rows, first[rows]


def _thread_maxima(run: LikwidRun, aggregate: RunAggregate, metric: str) -> np.ndarray:
    """Per frame row the largest value of ``metric`` among the threads its sum adds up
    (the group the sum comes from); NaN where it has none."""
    index = aggregate.metric_names.index(metric)
    values = run.table[metric].to_numpy(dtype=float)
    if len(aggregate.order) == len(aggregate.starts) == len(aggregate.group_rows) \
            == len(aggregate):  # a thread per group, a group per row: where its sum is a value
        return np.where(np.isnan(aggregate.group_sums[index]), np.nan, values[aggregate.order])
    if len(aggregate.order) == len(aggregate.starts) == len(values):  # a thread per group
        per_group = values[aggregate.order]  # the largest of one: itself
    else:
        counts = np.diff(np.append(aggregate.starts, len(aggregate.order)))
        per_group = max_over_segments(values[aggregate.order], counts)
    out = np.full(len(aggregate), np.nan)
    rows, groups = _summed_groups(aggregate, index)
    out[rows] = per_group[groups]
    return out


def _unmeasured_threads(run: LikwidRun, aggregate: RunAggregate, metric: str) -> Unmeasured:
    """The threads of each row whose ``metric`` is not finite.

    Per (rank, region, device) row the group that gives the sum (the first
    one, in file order, with a finite value on some thread) is looked at:
    its unmeasured threads are counted and named (the ``thread`` column:
    the header as printed).  A group without any finite value does not give
    the sum, so it adds nothing.
    """
    index = aggregate.metric_names.index(metric)
    group_counts = aggregate.unmeasured[index]
    counts = np.zeros(len(aggregate), dtype=np.int64)
    if not group_counts.any():
        return Unmeasured(counts, {})
    values = run.table[metric].to_numpy(dtype=float)
    rows, chosen = _summed_groups(aggregate, index)  # the group whose sum the frame took
    counts[rows] = group_counts[chosen]
    labels = run.table["thread"].to_numpy(dtype=object)
    threads: dict[int, tuple] = {}
    sizes = np.diff(np.append(aggregate.starts, len(aggregate.order)))
    for group in chosen[group_counts[chosen] > 0].tolist():
        rows_of_group = aggregate.order[aggregate.starts[group]:aggregate.starts[group] + sizes[group]]
        bad = rows_of_group[nonfinite_threads(values[rows_of_group])]
        threads[int(aggregate.group_rows[group])] = tuple(str(label) for label in labels[bad])
    return Unmeasured(counts, threads)


class RunSource:
    """The per-region sums of one :class:`LikwidRun` (its cached groupby frame).

    A :class:`~roofline_widget.points.engines.source.RegionSource`.

    Parameters
    ----------
    run : LikwidRun

    Attributes
    ----------
    run : LikwidRun
    label : str
        The run's label.
    run_number : int
        The run's 1-based number in its file (1 unless the file holds several runs).
    metric_names : list of str
        The run's metrics, in the order LIKWID printed them.
    keys : dict
        The :data:`~roofline_widget.points.engines.source.SOURCE_KEYS` columns.
    thread_limit : numpy.ndarray
        Per row the FLOP-rate bound of one unit of its device, GFLOP/s: a
        hardware thread of the run's CPU, or the GPU the row names
        (:func:`~roofline_widget.roofs.hardware_bounds.run_thread_bound`).
    """

    def __init__(self, run: LikwidRun):
        self.run = run
        self.label = run.label
        self.run_number = 1 if run.run_info is None else int(run.run_info.number)
        self._aggregate = run_aggregate(run)
        columns = self._columns = self._aggregate.columns
        self.metric_names = list(self._aggregate.metric_names)
        categoricals = self._aggregate.categoricals
        self.keys: dict[str, Any] = {name: categoricals[name] if name in categoricals
                                     else columns[name] for name in SOURCE_KEYS}
        self._maxima: dict[str, np.ndarray] = {}
        self._limits: np.ndarray | None = None
        self._devices: dict[str, pd.Categorical] | None = None
        self._places: RankPlaces | None = None

    @property
    def thread_limit(self) -> np.ndarray:
        """Per row the FLOP-rate bound of one unit of its device (a CPU's hardware thread, the
        GPU it names), GFLOP/s (worked out once per run and device)."""
        if self._limits is None:
            devices = self.keys["device"]
            gpu = np.asarray(devices == "gpu")  # per row, on the categorical's codes
            if not gpu.any():  # every row a CPU's (any device but a GPU): the run's one bound
                self._limits = np.full(len(gpu), run_thread_bound(self.run).gflops)
                return self._limits
            names = self.device_labels()["device_name"]
            # a row's bound depends on its device, and on a GPU's name
            kinds = devices.codes * (len(names.categories) + 1) + np.where(gpu, names.codes, -1) + 1
            kind_codes = pd.factorize(kinds)[0]
            bounds = np.array([run_thread_bound(self.run, str(devices[row]),
                                                str(names[row]) if gpu[row] else "").gflops
                               for row in first_rows(kind_codes).tolist()], dtype=float)
            self._limits = bounds[kind_codes]
        return self._limits

    def thread_maxima(self, metric: str) -> np.ndarray:
        """Per row the largest value of ``metric`` among the threads summed (native unit; kept)."""
        found = self._maxima.get(metric)
        if found is None:
            found = self._maxima[metric] = _thread_maxima(self.run, self._aggregate, metric)
        return found

    def __len__(self) -> int:
        """The number of (rank, region, device) rows."""
        return len(self._aggregate)

    def sums(self, metric: str) -> np.ndarray:
        """Per row the sum over threads of ``metric`` (native unit); NaN where not measured."""
        return np.asarray(self._columns[metric], dtype=float)

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite, named as the table prints them.

        Per row the group that gives its sum (the first, in file order, with
        a finite value on some thread) is looked at; a group without any
        finite value does not give the sum, so it adds nothing.
        """
        return _unmeasured_threads(self.run, self._aggregate, metric)

    def device_labels(self) -> dict[str, pd.Categorical]:
        """Per row its ``"device_family"`` and ``"device_name"`` (worked out once, from codes;
        categoricals of the values present, sorted).

        The family from the row's device and groups and the run's layout
        (:func:`~roofline_widget.model.device_family`: an ``NCU`` row is NVIDIA's, a
        ``ROCPROF`` row AMD's, also in a run merged from several files); the name is the
        run's ``cpu_name`` on the rows of the device it names (the GPU's of a run read from
        one GPU profiler, else the CPU's), ``""`` elsewhere and in a run merged from files of
        several layouts.
        """
        if self._devices is None:
            devices, groups = self.keys["device"], self.keys["groups"]
            pair_codes = first_appearance([np.asarray(devices.codes, dtype=np.int64),
                                           np.asarray(groups.codes, dtype=np.int64)])
            families = np.array([str(device_family(self.run.layout, str(devices[row]),
                                                   str(groups[row])))
                                 for row in first_rows(pair_codes).tolist()], dtype=object)
            gpu_run = str(device_family(self.run.layout, "gpu")) != "gpu"
            merged = " / " in str(self.run.layout)  # its cpu_name joins the files' names: whose?
            named = np.asarray(devices == ("gpu" if gpu_run else "cpu"))  # on codes
            names = np.array(["", self.run.cpu_name or ""], dtype=object)
            self._devices = {
                "device_family": sorted_categorical(pair_codes, families),
                "device_name": sorted_categorical((named & (not merged)).astype(np.int64), names)}
        return self._devices

    def rank_places(self) -> RankPlaces:
        """Per row the host and socket of its rank (see :class:`RankPlaces`; worked out once)."""
        if self._places is None:
            self._places = rank_places(self.run, self.keys["rank"])
        return self._places
