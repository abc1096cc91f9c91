"""The one reduction over threads that every sums engine uses.

LIKWID prints a region's metrics per hardware thread; a roofline point sums
them.  The rule, written here once:

* the sum over a region's threads skips a thread whose value is not finite
  (LIKWID's ``-``, NaN, inf): that thread did not measure the metric;
* a region none of whose threads has a finite value stays NaN (never 0), and
  so does a region without threads;
* the threads skipped in a region that has a finite value elsewhere are
  counted (the *unmeasured* threads: :mod:`roofline_widget.points.unmeasured`
  names them and leaves such rows out by default);
* runtime and call count are the maxima over threads, NaN ignored.

Every sum is taken by numpy along the contiguous last axis of an array whose
last axis holds exactly one region's threads, so a region's sum does not
depend on how many regions are reduced with it, or on which engine does it:
the LikwidRun engine, the ``ProfilingResults`` engine and the HDF5 engine
give the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ThreadSums",
    "max_over_segments",
    "max_over_threads",
    "nonfinite_threads",
    "sum_over_segments",
    "sum_over_threads",
]


@dataclass(frozen=True)
class ThreadSums:
    """Per region (and metric) the sum over its threads and how many were not measured.

    Attributes
    ----------
    sums : numpy.ndarray
        float64; NaN where no thread has a finite value.
    unmeasured : numpy.ndarray
        int64, shaped like ``sums``: the threads whose value is not finite
        while another thread's is (0 where all or none are finite).
    """

    sums: np.ndarray
    unmeasured: np.ndarray


def sum_over_threads(values: np.ndarray) -> ThreadSums:
    """Sum over the last axis, one region's threads (see the module docstring).

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(..., threads)``; converted to a C-contiguous float64 array.

    Examples
    --------
    >>> out = sum_over_threads(np.array([[1.0, 2.0, np.nan], [np.nan, np.inf, np.nan]]))
    >>> out.sums.tolist(), out.unmeasured.tolist()
    ([3.0, nan], [1, 0])
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    shape, n_threads = values.shape[:-1], values.shape[-1]
    if n_threads == 0:
        return ThreadSums(np.full(shape, np.nan), np.zeros(shape, dtype=np.int64))
    bad = ~np.isfinite(values)
    if not bad.any():
        return ThreadSums(np.asarray(np.add.reduce(values, axis=-1)), np.zeros(shape, dtype=np.int64))
    n_bad = bad.sum(axis=-1)
    sums = np.where(n_bad == n_threads, np.nan, np.add.reduce(np.where(bad, 0.0, values), axis=-1))
    return ThreadSums(sums, np.where(n_bad < n_threads, n_bad, 0).astype(np.int64))


def max_over_threads(values: np.ndarray) -> np.ndarray:
    """The largest value over the last axis, NaN ignored; all-NaN or no thread: NaN.

    Examples
    --------
    >>> max_over_threads(np.array([[0.5, np.nan], [np.nan, np.nan]])).tolist()
    [0.5, nan]
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.shape[-1] == 0:
        return np.full(values.shape[:-1], np.nan)
    return np.fmax.reduce(values, axis=-1)


def _segments_by_length(counts: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(length, segment indices, their start offsets) per distinct thread count."""
    starts = np.cumsum(counts) - counts
    return [(int(length), chosen, starts[chosen])
            for length in np.unique(counts).tolist()
            for chosen in (np.flatnonzero(counts == length),)]


def _per_segment(values: np.ndarray, counts, reduce) -> tuple[np.ndarray, ...]:
    """``reduce`` (giving a tuple of arrays) applied to every segment of the last axis.

    Segments of one length are gathered into one ``(..., k, length)`` array,
    so each segment's threads lie along a contiguous last axis.
    """
    counts = np.asarray(counts, dtype=np.intp)
    values = np.asarray(values, dtype=np.float64)
    lead, n = values.shape[:-1], len(counts)
    if n and bool((counts == counts[0]).all()):
        return reduce(values.reshape(*lead, n, int(counts[0])))
    outputs: tuple[np.ndarray, ...] = ()
    for length, chosen, starts in _segments_by_length(counts):
        parts = reduce(values[..., starts[:, None] + np.arange(length)])
        if not outputs:
            outputs = tuple(np.empty((*lead, n), dtype=part.dtype) for part in parts)
        for out, part in zip(outputs, parts):
            out[..., chosen] = part
    return outputs or reduce(np.zeros((*lead, 0, 0)))


def _sum_and_count(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    reduced = sum_over_threads(values)
    return reduced.sums, reduced.unmeasured


def sum_over_segments(values: np.ndarray, counts) -> ThreadSums:
    """:func:`sum_over_threads` of consecutive segments of the last axis.

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(..., total)``: the threads of every region one after the other.
    counts : array of int
        The number of threads of each region (they add up to ``total``).

    Returns
    -------
    ThreadSums
        Shaped ``(..., len(counts))``.

    Examples
    --------
    >>> out = sum_over_segments(np.array([1.0, 2.0, 4.0, np.nan, 8.0]), [2, 0, 3])
    >>> out.sums.tolist(), out.unmeasured.tolist()
    ([3.0, nan, 12.0], [0, 0, 1])
    """
    sums, unmeasured = _per_segment(values, counts, _sum_and_count)
    return ThreadSums(sums, unmeasured)


def max_over_segments(values: np.ndarray, counts) -> np.ndarray:
    """:func:`max_over_threads` of consecutive segments of the last axis (as :func:`sum_over_segments`)."""
    return _per_segment(values, counts, lambda part: (max_over_threads(part),))[0]


def nonfinite_threads(values: np.ndarray) -> np.ndarray:
    """The positions of the threads of one region whose value is not finite (to name them)."""
    return np.flatnonzero(~np.isfinite(np.asarray(values, dtype=np.float64)))
