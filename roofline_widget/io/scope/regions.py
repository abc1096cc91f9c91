"""Columns from scope-profiler region objects: helpers shared by two readers of them.

:mod:`roofline_widget.io.scope.objects` (the per-thread :class:`LikwidRun`) and
:mod:`roofline_widget.points.engines.scope` (per-region sums straight from the
arrays) both walk ``ProfilingResults.get_likwid_regions()`` and build
categorical key columns; the helpers here make one pass each at C speed.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError

__all__ = [
    "MAX_CPU",
    "change_starts",
    "checked_cpus",
    "checked_group_id",
    "collect_regions",
    "constant_categorical",
    "group_label",
    "no_likwid_data",
    "non_numeric_region",
    "repeated_categorical",
    "thread_name",
]

_METRIC_NAMES = operator.attrgetter("metric_names")
#: The largest hardware thread number read (LIKWID numbers the machine's threads from 0).
MAX_CPU = 2**31 - 1
_INT64 = (-(2**63), 2**63 - 1)


def _rank_number(rank, source: str) -> int:
    """The rank key as an int; TypeError if not an integer, LikwidFormatError if negative."""
    try:
        number = operator.index(rank)
    except TypeError:
        raise TypeError(f"{source}: scope-profiler LIKWID results are keyed by integer ranks; "
                        f"got rank key {rank!r} ({type(rank).__name__})") from None
    if number < 0:
        raise LikwidFormatError(source, None, "ranks >= 0 (rank -1 means 'all ranks' here)",
                                f"rank {number}")
    return number


def collect_regions(regions_by_rank: Mapping, source: str = "<scope-profiler results>"
                    ) -> tuple[list[int], list, list]:
    """Flatten ``{rank: {tag: result}}`` into parallel lists, in rank order.

    Parameters
    ----------
    regions_by_rank : mapping
        ``ProfilingResults.get_likwid_regions()``.
    source : str
        The results' file, named in errors.

    Raises
    ------
    TypeError
        If a rank key is not an integer.
    LikwidFormatError
        If a rank is negative, or a region's ``metric_names`` is one string
        instead of a list of names.

    Returns
    -------
    ranks : list of int
        The rank of every region object.
    tags : list
        The region tag (the inner dict's key) of every region object.
    results : list
        The region objects (``LikwidRegionResult``).
    """
    numbers = {_rank_number(rank, source): rank for rank in regions_by_rank}
    ranks, tags, results = [], [], []
    for number in sorted(numbers):
        regions = regions_by_rank[numbers[number]]
        ranks.extend([number] * len(regions))
        tags.extend(regions.keys())
        results.extend(regions.values())
    _check_name_lists(results, ranks, tags, source)
    return ranks, tags, results


def _check_name_lists(results: list, ranks: list, tags: list, source: str) -> None:
    """Refuse a region whose ``metric_names`` is one string (one pass over the types)."""
    try:
        types = set(map(type, map(_METRIC_NAMES, results)))
    except AttributeError:
        return  # not region objects: the readers report what is missing
    if not any(issubclass(t, (str, bytes)) for t in types):
        return
    i = next(i for i, r in enumerate(results) if isinstance(r.metric_names, (str, bytes)))
    raise LikwidFormatError(
        f"{source} (rank {ranks[i]}, region {tags[i]!r})", None,
        "metric_names to be a list of metric names",
        f"one string {results[i].metric_names!r}, not a list")


def non_numeric_region(arrays: Sequence, what: str, where: Sequence[str]) -> LikwidFormatError | None:
    """The error naming the first array that does not convert to float64, or None.

    Called when converting many regions' arrays at once failed, to say which
    region holds what (an object array holding ``'abc'``, say).

    Parameters
    ----------
    arrays : sequence of array-like
        One per region.
    what : str
        The attribute (``"metrics"``, ``"times"``, ...).
    where : sequence of str
        Per region the description named in the error (file, rank, region).
    """
    for array, place in zip(arrays, where):
        try:
            np.asarray(array, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            values = np.asarray(array, dtype=object).ravel()
            bad = next((v for v in values if not _is_number(v)), None)
            found = str(bad) if bad is not None else str(exc)
            return LikwidFormatError(place, None, f"numbers in {what}", found)
    return None


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def repeated_categorical(labels: Sequence, counts) -> pd.Categorical:
    """One category code per region (order of appearance), repeated ``counts`` times.

    Parameters
    ----------
    labels : sequence of str
        One label per region.
    counts : int or array of int
        How many rows each region has (its threads; 1 for one row per region).
    """
    codes, categories = pd.factorize(np.asarray(labels, dtype=object), sort=False)
    return pd.Categorical.from_codes(np.repeat(codes, counts), categories)


def constant_categorical(value: str, total: int) -> pd.Categorical:
    """``total`` rows of the one category ``value``."""
    return pd.Categorical.from_codes(np.zeros(total, dtype=np.int8), [value])


def change_starts(values: Sequence) -> np.ndarray:
    """Indices where a list differs from the one before (0 always included)."""
    if not values:
        return np.zeros(0, dtype=np.intp)
    differs = np.fromiter(map(operator.ne, values[1:], values[:-1]), dtype=bool,
                          count=len(values) - 1)
    return np.concatenate([[0], np.flatnonzero(differs) + 1])


def no_likwid_data(source: str) -> LikwidFormatError:
    """The error for results or a file without any LIKWID region."""
    return LikwidFormatError(source, None, "scope-profiler results with LIKWID regions "
                             "(run under likwid-perfctr -m)", "no LIKWID data")


def group_label(group_name: str, group_id: int, where: str = "<scope-profiler results>") -> str:
    """A region's group as the tables show it: its name, or ``"Group <id>"`` without one.

    Raises
    ------
    LikwidFormatError
        For a group id that is no 64-bit integer (:func:`checked_group_id`).
    """
    return group_name or f"Group {checked_group_id(group_id, where)}"


def checked_group_id(value: object, where: str) -> int:
    """``value`` as an int if it is an integer that fits 64 bits (as LIKWID's group ids do).

    Raises
    ------
    LikwidFormatError
        Naming ``where``, for a bool, a non-integer or an integer past 64 bits
        (a 5,001-digit id cannot even be printed).
    """
    try:
        if isinstance(value, bool):
            raise TypeError
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise LikwidFormatError(where, None, "group_id to be one integer",
                                f"{type(value).__name__} {str(value)[:40]!r}") from None
    if not _INT64[0] <= number <= _INT64[1]:
        raise LikwidFormatError(where, None, "group_id to be an integer of at most 64 bits",
                                f"an integer of {number.bit_length()} bits")
    return number


def checked_cpus(values, where: str) -> list[int]:
    """Hardware thread numbers as ints: integers from 0 to :data:`MAX_CPU`.

    Raises
    ------
    LikwidFormatError
        Naming ``where``, for a number that is negative, fractional, not
        finite or past :data:`MAX_CPU` (a table indexed by cpu would wrap
        around or blow up).
    """
    try:
        numbers = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError, OverflowError):
        numbers = None
    if numbers is not None:
        bad = ~(np.isfinite(numbers) & (numbers >= 0) & (numbers <= MAX_CPU)
                & (numbers == np.floor(numbers)))
        if not bad.any():
            return numbers.astype(np.int64).tolist()
    shown = [_shown(v) for v in list(np.asarray(values, dtype=object).ravel())[:8]]
    raise LikwidFormatError(where, None, f"cpu numbers: integers from 0 to {MAX_CPU:,}",
                            f"cpus [{', '.join(shown)}]")


def _shown(value: object) -> str:
    """A value for a message (an integer too long to print by its size)."""
    try:
        return str(value)[:20]
    except ValueError:
        return f"<an integer of {operator.index(value).bit_length()} bits>"  # type: ignore[arg-type]


def thread_name(cpu: int) -> str:
    """How a scope-profiler thread is named in tables and reasons: ``"HWThread <cpu>"``."""
    return f"HWThread {int(cpu)}"
