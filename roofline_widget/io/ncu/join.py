"""Profiling passes joined into processes, processes numbered as ranks (:func:`join_passes`).

``ncu`` often cannot collect every counter of a roofline in one replay, so
users profile the program twice (NERSC's method: bytes and cycles in one
pass, FLOP counters in the other), into one file or two.  Each pass is
another run of the program, hence another ``Process ID``, but its launches
have the same IDs and kernel names.  A *part* is what one process id of one
file holds; parts are joined into one process when

* their launches (ID, kernel name) agree -- one set holds the other, and they share
  at least one launch,
* the later part adds metrics the process lacks, and
* no MPI rank (a column, or the file name) tells them apart.

Parts with the same metrics are different processes (MPI ranks that run
the same kernels).  A metric exported by two joined parts is taken from the
first and noted in the warnings.  Each process becomes a rank: the MPI
rank its rows or file name give, else the first number not taken, in order
of appearance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.ncu.export import LAUNCH_COLUMNS, NcuExport

__all__ = ["JOIN_KEYS", "join_passes"]

#: What identifies a launch across passes.
JOIN_KEYS = ["launch", "kernel"]


@dataclass
class _Process:
    """One process: its parts' launches, metrics and MPI rank (None if nothing says)."""

    frame: pd.DataFrame
    keys: frozenset
    metrics: set[str]
    rank: int | None
    parts: list[str] = field(default_factory=list)

    def accepts(self, keys: frozenset, metrics: set[str], rank: int | None) -> bool:
        nested = keys <= self.keys or self.keys <= keys
        same_rank = rank is None or self.rank is None or rank == self.rank
        return nested and bool(keys & self.keys) and bool(metrics - self.metrics) and same_rank


def _part_rank(frame: pd.DataFrame, source: str) -> int | None:
    ranks = pd.unique(frame["rank"])
    if len(ranks) > 1:
        raise LikwidFormatError(source, int(frame["line"].iloc[0]),
                                "one MPI rank per process id", f"ranks {sorted(ranks)}")
    return None if ranks[0] < 0 else int(ranks[0])


def _parts(exports: Sequence[NcuExport]):
    for export in exports:
        for pid, frame in export.launches.groupby("pid", sort=False):
            metrics = set(export.exported.get(int(pid), ()))
            keys = frozenset(zip(frame["launch"], frame["kernel"]))
            columns = [*LAUNCH_COLUMNS, *(m for m in export.metrics if m in metrics)]
            yield (f"{export.source} (process {pid})", frame[columns].reset_index(drop=True),
                   keys, metrics, _part_rank(frame, export.source))


def _join(process: _Process, frame: pd.DataFrame, name: str, metrics: set[str],
          notes: list[str]) -> None:
    """Add a part's metrics to the process's launches (the process's values kept)."""
    shared = sorted(process.metrics & metrics)
    if shared:
        notes.append(f"{name}: {', '.join(shared)} also in the pass before "
                     f"({process.parts[0]}); that pass's values are used")
    added = [m for m in frame.columns[len(LAUNCH_COLUMNS):] if m in metrics - process.metrics]
    right = frame[JOIN_KEYS + added]
    merged = process.frame.merge(right, on=JOIN_KEYS, how="outer", sort=False)
    for column in LAUNCH_COLUMNS:  # launches only the new part holds: their keys from it
        if column in JOIN_KEYS:
            continue
        extra = frame.set_index(JOIN_KEYS)[column]
        missing = merged[column].isna()
        if missing.any():
            index = pd.MultiIndex.from_frame(merged.loc[missing, JOIN_KEYS])
            merged.loc[missing, column] = extra.reindex(index).to_numpy()
    process.frame = merged
    process.keys = process.keys | frozenset(zip(frame["launch"], frame["kernel"]))
    process.metrics |= metrics
    process.parts.append(name)


def _number_ranks(processes: list[_Process], notes: list[str]) -> list[int]:
    given = [p.rank for p in processes if p.rank is not None]
    taken = set(given)
    if len(taken) < len(given):
        twice = sorted(r for r, n in Counter(given).items() if n > 1)
        raise LikwidFormatError(processes[0].parts[0], None, "each MPI rank in one process "
                                "(or passes of one process that add metrics)",
                                f"rank(s) {twice} in several processes with the same metrics")
    free = (n for n in range(len(processes) + len(given) + 1) if n not in taken)
    ranks = [p.rank if p.rank is not None else next(free) for p in processes]
    if len(processes) > 1 and not given:
        notes.append(f"{len(processes)} processes and nothing names their MPI ranks: numbered "
                     "0.. in order of appearance (" + "; ".join(
                         f"rank {r}: {', '.join(p.parts)}" for r, p in zip(ranks, processes)) + ")")
    return ranks


def join_passes(exports: Sequence[NcuExport]) -> tuple[pd.DataFrame, list[str]]:
    """One row per (process, launch) of all exports, passes of one process joined.

    Parameters
    ----------
    exports : sequence of NcuExport
        The files of one job, in the order given.

    Returns
    -------
    launches : pandas.DataFrame
        :data:`~.export.LAUNCH_COLUMNS` (``rank`` set for every row, ``pid``
        the first pass's), then every used metric of any export (NaN where a
        process lacks it); rows per process in launch order.
    notes : list of str
        Metrics taken from one of two passes, ranks numbered by order.
    """
    processes: list[_Process] = []
    notes: list[str] = []
    for name, frame, keys, metrics, rank in _parts(exports):
        process = next((p for p in processes if p.accepts(keys, metrics, rank)), None)
        if process is None:
            processes.append(_Process(frame, keys, metrics, rank, [name]))
            continue
        _join(process, frame, name, metrics, notes)
        if process.rank is None:
            process.rank = rank
    ranks = _number_ranks(processes, notes)
    frames = []
    for rank, process in zip(ranks, processes):
        frame = process.frame.sort_values("launch", kind="stable")
        frames.append(frame.assign(rank=np.int64(rank)))
    launches = pd.concat(frames, ignore_index=True, sort=False)
    metric_order = list(dict.fromkeys(m for e in exports for m in e.metrics))
    launches = launches.reindex(columns=[*LAUNCH_COLUMNS, *metric_order])
    for column in ("line", "pid", "launch", "device", "rank"):
        launches[column] = launches[column].astype(np.int64)
    return launches, notes
