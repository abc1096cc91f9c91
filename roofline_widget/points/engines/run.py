"""The sums engine of a :class:`LikwidRun`: per (rank, region, device) sums over threads.

:func:`cached_run_frame` aggregates a run's per-thread table once with
pandas: per (rank, region, device, group) the sum over threads of every
metric (``min_count=1``: all-NaN stays NaN), then per (rank, region,
device) the first group (in file order) with a value for each metric.  That
joins a FLOPS_DP run and a MEM_DP run of the same regions into one row and
never counts a metric twice when both groups print it (``DP [MFLOP/s]``).
The frame is cached per run object; :class:`RunSums` serves it as a
:class:`~roofline_widget.points.engines.source.RegionSource`.
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd

from roofline_widget.model import LikwidRun
from roofline_widget.points.unmeasured import Unmeasured
from roofline_widget.schema import SOURCE_KEYS

__all__ = ["RunSums", "cached_run_frame", "unmeasured_threads"]

# id(run) -> (weakref to the run, its table, the table's shape, the frame)
_RUN_CACHE: dict[int, tuple] = {}


def _group_labels(stage1: pd.DataFrame, group_id: np.ndarray, n_keys: int) -> np.ndarray:
    """'MEM_DP+FLOPS_DP' per (rank, region, device), without a loop per region."""
    names = pd.unique(stage1["group"].astype(object))
    codes = pd.Categorical(stage1["group"].astype(object), categories=names).codes
    present = np.zeros((n_keys, len(names)), dtype=bool)
    present[group_id, codes] = True
    patterns, inverse = np.unique(present, axis=0, return_inverse=True)
    labels = np.array(["+".join(names[row]) for row in patterns], dtype=object)
    return labels[np.asarray(inverse).ravel()]


def _aggregate_run(run: LikwidRun) -> pd.DataFrame:
    """Per (rank, region, device) sums over threads; see the module docstring."""
    table = run.table
    metrics = run.metric_names
    if metrics and np.isinf(table[metrics].to_numpy(dtype=float)).any():
        # a non-finite thread is not measured: summed like NaN (and counted, see unmeasured_threads)
        table = table.assign(**{m: table[m].where(np.isfinite(table[m])) for m in metrics})
    stage1_keys = ["rank", "region", "device", "group"]
    grouped = table.groupby(stage1_keys, observed=True, sort=False)
    stage1 = grouped[metrics].sum(min_count=1) if metrics else grouped.size().to_frame().iloc[:, :0]
    stage1["n_threads"] = grouped.size()
    stage1["runtime_s"] = grouped["runtime_s"].max()
    stage1["call_count"] = grouped["call_count"].max()
    stage1 = stage1.reset_index()
    grouped2 = stage1.groupby(["rank", "region", "device"], observed=True, sort=False)
    group_id = grouped2.ngroup().to_numpy()
    frame = grouped2[["runtime_s", "call_count", *metrics]].first()
    frame.insert(0, "n_threads", grouped2["n_threads"].max())
    frame = frame.reset_index()
    frame.insert(frame.columns.get_loc("call_count") + 1, "groups", _group_labels(stage1, group_id, len(frame)))
    frame["region"] = frame["region"].astype(object)
    frame["device"] = frame["device"].astype(object)
    frame["rank"] = frame["rank"].astype(np.int64)
    return frame


def cached_run_frame(run: LikwidRun) -> pd.DataFrame:
    """The per-(rank, region, device) sums of ``run``, computed once per run object.

    Parameters
    ----------
    run : LikwidRun

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~roofline_widget.points.engines.source.SOURCE_KEYS`, then one
        column per metric (sum over threads, native unit).  The same object
        is returned until the run's table is replaced or resized.
    """
    entry = _RUN_CACHE.get(id(run))
    if entry is not None:
        ref, table, shape, frame = entry
        if ref() is run and table is run.table and shape == run.table.shape:
            return frame
    frame = _aggregate_run(run)
    _RUN_CACHE[id(run)] = (weakref.ref(run), run.table, run.table.shape, frame)
    weakref.finalize(run, _RUN_CACHE.pop, id(run), None)
    return frame


def _group_codes(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per table row its (rank, region, device, group) number and per such group its
    (rank, region, device) number: the row of the sums frame (both in first-appearance order)."""
    stage1 = table.groupby(["rank", "region", "device", "group"], observed=True,
                           sort=False).ngroup().to_numpy()
    stage2 = table.groupby(["rank", "region", "device"], observed=True,
                           sort=False).ngroup().to_numpy()
    row_of_group = np.zeros(int(stage1.max()) + 1 if len(stage1) else 0, dtype=np.intp)
    row_of_group[stage1] = stage2
    return stage1, row_of_group


def unmeasured_threads(run: LikwidRun, metric: str, n_rows: int,
                       codes: tuple[np.ndarray, np.ndarray] | None = None) -> Unmeasured:
    """The threads of each sums row whose ``metric`` is not finite.

    Per (rank, region, device) row the group that gives the sum (the first
    one, in file order, with a finite value on some thread) is looked at:
    its threads whose value is NaN or infinite are counted and named (the
    ``thread`` column: the header as printed).  A group without any finite
    value does not give the sum, so it adds nothing.

    Parameters
    ----------
    run : LikwidRun
    metric : str
        A metric of ``run``.
    n_rows : int
        The number of rows of the sums frame.
    codes : tuple, optional
        :func:`_group_codes` of the run's table, if already computed.
    """
    table = run.table
    stage1, row_of_group = codes if codes is not None else _group_codes(table)
    finite = np.isfinite(table[metric].to_numpy(dtype=float))
    counts = np.zeros(n_rows, dtype=np.int64)
    if finite.all() or not len(stage1):
        return Unmeasured(counts, {})
    n_groups = len(row_of_group)
    has_value = np.bincount(stage1[finite], minlength=n_groups) > 0
    bad_count = np.bincount(stage1[~finite], minlength=n_groups)
    candidates = np.flatnonzero(has_value)  # ascending: first appearance, i.e. file order
    rows, first = np.unique(row_of_group[candidates], return_index=True)
    chosen = candidates[first]
    counts[rows] = bad_count[chosen]
    bad_groups = chosen[bad_count[chosen] > 0]
    threads: dict[int, tuple] = {}
    if len(bad_groups):
        where = np.flatnonzero(~finite & np.isin(stage1, bad_groups))
        labels = table["thread"].to_numpy(dtype=object)[where]
        for group, label in zip(stage1[where].tolist(), labels.tolist()):
            row = int(row_of_group[group])
            threads[row] = (*threads.get(row, ()), str(label))
    return Unmeasured(counts, threads)


class RunSums:
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
    """

    def __init__(self, run: LikwidRun):
        self.run = run
        self.label = run.label
        self.run_number = 1 if run.run_info is None else int(run.run_info.number)
        self._frame = frame = cached_run_frame(run)
        self.metric_names = list(frame.columns[len(SOURCE_KEYS):])
        self.keys = {name: frame[name].to_numpy() for name in SOURCE_KEYS}
        self._codes: tuple | None = None
        for name in ("region", "device", "groups"):
            self.keys[name] = pd.Categorical(self.keys[name])

    def __len__(self) -> int:
        """The number of (rank, region, device) rows."""
        return len(self._frame)

    def sums(self, metric: str) -> np.ndarray:
        """Per row the sum over threads of ``metric`` (native unit); NaN where not measured."""
        return self._frame[metric].to_numpy(dtype=float)

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite (see :func:`unmeasured_threads`)."""
        if self._codes is None:
            self._codes = _group_codes(self.run.table)
        return unmeasured_threads(self.run, metric, len(self._frame), self._codes)
