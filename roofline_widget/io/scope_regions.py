"""Columns from scope-profiler region objects: helpers shared by two readers of them.

:mod:`roofline_widget.io.scope` (the per-thread :class:`LikwidRun`) and
:mod:`roofline_widget.points.scope_sums` (per-region sums straight from the
arrays) both walk ``ProfilingResults.get_likwid_regions()`` and build
categorical key columns; the helpers here make one pass each at C speed.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["collect_regions", "repeated_categorical", "constant_categorical", "change_starts"]


def collect_regions(regions_by_rank: Mapping) -> tuple[list[int], list, list]:
    """Flatten ``{rank: {tag: result}}`` into parallel lists, in rank order.

    Returns
    -------
    ranks : list of int
        The rank of every region object.
    tags : list
        The region tag (the inner dict's key) of every region object.
    results : list
        The region objects (``LikwidRegionResult``).
    """
    ranks, tags, results = [], [], []
    for rank in sorted(regions_by_rank):
        regions = regions_by_rank[rank]
        ranks.extend([int(rank)] * len(regions))
        tags.extend(regions.keys())
        results.extend(regions.values())
    return ranks, tags, results


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
