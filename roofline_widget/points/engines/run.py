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

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from roofline_widget.model import LikwidRun, device_family
from roofline_widget.points.engines.threads import max_over_segments, nonfinite_threads, sum_over_segments
from roofline_widget.points.unmeasured import Unmeasured
from roofline_widget.roofs.hardware_bounds import run_thread_bound
from roofline_widget.schema import SOURCE_KEYS

__all__ = ["RankPlaces", "RunAggregate", "RunSource", "cached_run_frame", "rank_places",
           "run_aggregate"]

_GROUP_KEYS = ["rank", "region", "device", "group"]

# id(run) -> (weakref to the run, its table, the table's shape, the aggregate)
_RUN_CACHE: dict[int, tuple] = {}


@dataclass(frozen=True)
class RunAggregate:
    """A run's sums: the frame, and what names its unmeasured threads.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per (rank, region, device): the :data:`SOURCE_KEYS`, then one
        column per metric (sum over threads, native unit).
    group_rows : numpy.ndarray
        Per (rank, region, device, group), its row of ``frame``.
    group_sums, unmeasured : numpy.ndarray
        (metrics, groups): the sums and the unmeasured threads of each group
        (:class:`~roofline_widget.points.engines.threads.ThreadSums`).
    order, starts : numpy.ndarray
        The table rows sorted by group, and where each group starts in that order.
    """

    frame: pd.DataFrame
    group_rows: np.ndarray
    group_sums: np.ndarray
    unmeasured: np.ndarray
    order: np.ndarray
    starts: np.ndarray


def _group_labels(stage1: pd.DataFrame, group_id: np.ndarray, n_keys: int) -> np.ndarray:
    """'MEM_DP+FLOPS_DP' per (rank, region, device), without a loop per region."""
    names = pd.unique(stage1["group"].astype(object))
    codes = pd.Categorical(stage1["group"].astype(object), categories=names).codes
    present = np.zeros((n_keys, len(names)), dtype=bool)
    present[group_id, codes] = True
    patterns, inverse = np.unique(present, axis=0, return_inverse=True)
    labels = np.array(["+".join(names[row]) for row in patterns], dtype=object)
    return labels[np.asarray(inverse).ravel()]


def _aggregate_run(run: LikwidRun) -> RunAggregate:
    """Per (rank, region, device) sums over threads; see the module docstring."""
    table = run.table
    metrics = run.metric_names
    codes = table.groupby(_GROUP_KEYS, observed=True, sort=False).ngroup().to_numpy()
    used = codes >= 0  # a row without a key (none in practice) belongs to no group
    order = np.flatnonzero(used)[np.argsort(codes[used], kind="stable")]
    counts = np.bincount(codes[used], minlength=int(codes.max()) + 1 if used.any() else 0)
    starts = np.cumsum(counts) - counts
    first_rows = order[starts]
    values = table[metrics].to_numpy(dtype=float).T[:, order] if metrics else np.zeros((0, len(order)))
    reduced = sum_over_segments(values, counts)
    stage1 = table[_GROUP_KEYS].iloc[first_rows].reset_index(drop=True)
    stage1 = pd.concat([stage1, pd.DataFrame(reduced.sums.T, columns=metrics)], axis=1)
    stage1["n_threads"] = counts
    for name in ("runtime_s", "call_count"):
        stage1[name] = max_over_segments(table[name].to_numpy(dtype=float)[order], counts)
    grouped2 = stage1.groupby(["rank", "region", "device"], observed=True, sort=False)
    group_rows = grouped2.ngroup().to_numpy()
    frame = grouped2[["runtime_s", "call_count", *metrics]].first()
    frame.insert(0, "n_threads", grouped2["n_threads"].max())
    frame = frame.reset_index()
    frame.insert(frame.columns.get_loc("call_count") + 1, "groups",
                 _group_labels(stage1, group_rows, len(frame)))
    frame["region"] = frame["region"].astype(object)
    frame["device"] = frame["device"].astype(object)
    frame["rank"] = frame["rank"].astype(np.int64)
    return RunAggregate(frame, group_rows, reduced.sums, reduced.unmeasured, order, starts)


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
    pairs = table[["rank", "host", "cpu"]].drop_duplicates()
    socket_of_cpu: dict[int, int] = {}
    topology = run.topology
    if topology is not None:
        for socket, threads in topology.socket_threads.items():
            socket_of_cpu.update(dict.fromkeys(threads, int(socket)))
    host_of: dict[int, str] = {}
    socket_of: dict[int, int] = {}
    for rank, host, cpu in zip(pairs["rank"].tolist(), pairs["host"].astype(object).tolist(),
                               pairs["cpu"].tolist()):
        host_of.setdefault(rank, "" if host is None or host != host else str(host))
        socket = socket_of_cpu.get(int(cpu), -1)
        socket_of[rank] = socket if socket_of.get(rank, socket) == socket else -1
    rank_list = np.asarray(ranks).tolist()
    return RankPlaces(np.array([host_of.get(r, "") for r in rank_list], dtype=object),
                      np.array([socket_of.get(r, -1) for r in rank_list], dtype=np.int64))


def _summed_groups(aggregate: RunAggregate, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(frame rows, the group each row's sum of metric ``index`` comes from): the first group
    (file order) with a value."""
    candidates = np.flatnonzero(~np.isnan(aggregate.group_sums[index]))
    rows, first = np.unique(aggregate.group_rows[candidates], return_index=True)
    return rows, candidates[first]


def _thread_maxima(run: LikwidRun, aggregate: RunAggregate, metric: str) -> np.ndarray:
    """Per frame row the largest value of ``metric`` among the threads its sum adds up
    (the group the sum comes from); NaN where it has none."""
    index = run.metric_names.index(metric)
    values = run.table[metric].to_numpy(dtype=float)[aggregate.order]
    counts = np.diff(np.append(aggregate.starts, len(aggregate.order)))
    per_group = max_over_segments(values, counts)
    out = np.full(len(aggregate.frame), np.nan)
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
    index = run.metric_names.index(metric)
    group_counts = aggregate.unmeasured[index]
    counts = np.zeros(len(aggregate.frame), dtype=np.int64)
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
        frame = self._frame = self._aggregate.frame
        self.metric_names = list(frame.columns[len(SOURCE_KEYS):])
        self.keys = {name: frame[name].to_numpy() for name in SOURCE_KEYS}
        for name in ("region", "device", "groups"):
            self.keys[name] = pd.Categorical(self.keys[name])
        self._maxima: dict[str, np.ndarray] = {}
        self._limits: np.ndarray | None = None

    @property
    def thread_limit(self) -> np.ndarray:
        """Per row the FLOP-rate bound of one unit of its device (a CPU's hardware thread, the
        GPU it names), GFLOP/s (worked out once per run and device)."""
        if self._limits is None:
            devices = np.asarray(self.keys["device"], dtype=object).astype(str)
            names = self.device_labels()["device_name"].astype(str)
            limits = np.full(len(devices), np.nan)
            for device, name in {(d, n if d == "gpu" else "") for d, n in zip(devices, names)}:
                rows = (devices == device) & ((names == name) if device == "gpu" else True)
                limits[rows] = run_thread_bound(self.run, device, name).gflops
            self._limits = limits
        return self._limits

    def thread_maxima(self, metric: str) -> np.ndarray:
        """Per row the largest value of ``metric`` among the threads summed (native unit; kept)."""
        found = self._maxima.get(metric)
        if found is None:
            found = self._maxima[metric] = _thread_maxima(self.run, self._aggregate, metric)
        return found

    def __len__(self) -> int:
        """The number of (rank, region, device) rows."""
        return len(self._frame)

    def sums(self, metric: str) -> np.ndarray:
        """Per row the sum over threads of ``metric`` (native unit); NaN where not measured."""
        return self._frame[metric].to_numpy(dtype=float)

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite, named as the table prints them.

        Per row the group that gives its sum (the first, in file order, with
        a finite value on some thread) is looked at; a group without any
        finite value does not give the sum, so it adds nothing.
        """
        return _unmeasured_threads(self.run, self._aggregate, metric)

    def device_labels(self) -> dict[str, np.ndarray]:
        """Per row its ``"device_family"`` and ``"device_name"``.

        The family from the row's device and groups and the run's layout
        (:func:`~roofline_widget.model.device_family`: an ``NCU`` row is NVIDIA's, a
        ``ROCPROF`` row AMD's, also in a run merged from several files); the name is the
        run's ``cpu_name`` on the rows of the device it names (the GPU's of a run read from
        one GPU profiler, else the CPU's), ``""`` elsewhere and in a run merged from files of
        several layouts.
        """
        devices = np.asarray(self.keys["device"], dtype=object)
        groups = np.asarray(self.keys["groups"], dtype=object)
        pairs, inverse = np.unique(np.stack([devices.astype(str), groups.astype(str)]), axis=1,
                                   return_inverse=True)
        families = np.array([str(device_family(self.run.layout, d, g)) for d, g in pairs.T],
                            dtype=object)[np.asarray(inverse).ravel()]
        gpu_run = str(device_family(self.run.layout, "gpu")) != "gpu"
        merged = " / " in str(self.run.layout)  # its cpu_name joins the files' names: whose?
        named = (devices.astype(str) == ("gpu" if gpu_run else "cpu")) & (not merged)
        names = np.where(named, self.run.cpu_name or "", "").astype(object)
        return {"device_family": families, "device_name": names}

    def rank_places(self) -> RankPlaces:
        """Per row the host and socket of its rank (see :class:`RankPlaces`)."""
        return rank_places(self.run, self.keys["rank"])
