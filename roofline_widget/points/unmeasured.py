"""Threads that were not measured: counted per row, named in reasons, never silently dropped.

A cell LIKWID printed as ``-`` (or ``nan``, ``inf``, an overflowing ``1e400``)
is a thread that did not measure the metric.  Summing over the other threads
would silently shrink the region's total (one ``-`` on a socket's lock
thread halves a two-socket bandwidth), so every sums engine reports, per row
and metric, how many of its threads were not finite and which ones
(:class:`Unmeasured`).  :meth:`RegionSums.select
<roofline_widget.points.RegionSums.select>` then leaves such a row out with
:func:`unmeasured_reason` as the reason (``unmeasured="leave_out"``, the
default) or keeps it summed over the measured threads and marked
(``unmeasured="keep"``: the ``unmeasured_threads`` column of the points).

A row whose every thread lacks the metric is not "unmeasured threads": its
sum is NaN and its reason stays "not measured in this region".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

__all__ = [
    "NAMED_THREADS",
    "Unmeasured",
    "joined_unmeasured",
    "no_unmeasured",
    "union_unmeasured",
    "unmeasured_reason",
]

#: How many thread names a reason lists before it says "and N more".
NAMED_THREADS = 3


class Unmeasured(NamedTuple):
    """Per row of a sums engine, the threads whose value of one metric is not finite.

    A named pair, so a source below :mod:`roofline_widget.points` (the HDF5
    reader) returns a plain ``(counts, threads)`` tuple without importing it.

    Attributes
    ----------
    counts : numpy.ndarray
        int64, one per row: how many threads of the row were not measured
        (0 where all were, and where none was: then the sum is NaN).
    threads : dict of int to tuple of str
        For the rows with a count > 0, the thread names as the table
        header printed them (``"HWThread 14"``, ``"sonata:1:25"``), in
        table order.
    """

    counts: np.ndarray
    threads: dict


def no_unmeasured(n: int) -> Unmeasured:
    """``n`` rows, every thread measured (for sources that cannot tell)."""
    return Unmeasured(np.zeros(n, dtype=np.int64), {})


def joined_unmeasured(parts: Sequence[Unmeasured]) -> Unmeasured:
    """The rows of several sources one after the other (row numbers shifted)."""
    if len(parts) == 1:
        return parts[0]
    threads: dict[int, tuple[str, ...]] = {}
    offset = 0
    for part in parts:
        threads.update((offset + row, names) for row, names in part.threads.items())
        offset += len(part.counts)
    counts = np.concatenate([part.counts for part in parts]) if parts else np.zeros(0, np.int64)
    return Unmeasured(counts.astype(np.int64), threads)


def union_unmeasured(parts: Sequence[Unmeasured]) -> Unmeasured:
    """Per row the threads not measured in any of ``parts`` (a channel total's pieces)."""
    threads: dict[int, tuple[str, ...]] = {}
    for part in parts:
        for row, names in part.threads.items():
            threads[row] = tuple(dict.fromkeys(threads.get(row, ()) + tuple(names)))
    counts = np.zeros(len(parts[0].counts), dtype=np.int64)
    for row, names in threads.items():
        counts[row] = len(names)
    return Unmeasured(counts, threads)


def unmeasured_reason(names: Mapping[str, int] | Sequence[str], metric: str) -> str:
    """``"thread HWThread 14 not measured (Memory bandwidth [MBytes/s])"``.

    ``names`` maps each name to how many threads it stands for (a thread
    name: 1; ``"rank 3 (8 threads)"``, a rank whose every thread lacks the
    metric in a sum over ranks: 8); a plain sequence means 1 each.  Several:
    the first :data:`NAMED_THREADS` and ``"and N more"``.
    """
    weights = dict(names) if isinstance(names, Mapping) else dict.fromkeys(names, 1)
    labels = list(weights)
    shown = ", ".join(labels[:NAMED_THREADS])
    if len(labels) > NAMED_THREADS:
        shown += f" and {len(labels) - NAMED_THREADS} more"
    if any(weight != 1 for weight in weights.values()):
        return f"{shown} not measured ({metric})"
    word = "thread" if len(labels) == 1 else f"{len(labels)} threads"
    return f"{word} {shown} not measured ({metric})"
