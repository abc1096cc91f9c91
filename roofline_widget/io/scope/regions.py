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
    "change_starts",
    "collect_regions",
    "constant_categorical",
    "group_label",
    "no_likwid_data",
    "non_numeric_region",
    "repeated_categorical",
    "thread_name",
]

_METRIC_NAMES = operator.attrgetter("metric_names")


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


def group_label(group_name: str, group_id: int) -> str:
    """A region's group as the tables show it: its name, or ``"Group <id>"`` without one."""
    return group_name or f"Group {int(group_id)}"


def thread_name(cpu: int) -> str:
    """How a scope-profiler thread is named in tables and reasons: ``"HWThread <cpu>"``."""
    return f"HWThread {int(cpu)}"
