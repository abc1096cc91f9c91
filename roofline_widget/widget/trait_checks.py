"""The checks of :class:`~roofline_widget.RooflineWidget`'s trait values.

Each takes a proposed value and what it is checked against, and returns the
value to store or raises ``traitlets.TraitError`` saying what is valid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd
from traitlets import TraitError

from roofline_widget.points import normalize_ranks
from roofline_widget.widget.point_keys import key_index, normalize_key

__all__ = [
    "checked_levels",
    "checked_max_points",
    "checked_metric",
    "checked_peak",
    "checked_ranks",
    "checked_regions",
    "checked_selected",
]


def checked_metric(value: str | None, names: Sequence[str], detect: Callable[[], str | None],
                   role: str) -> str | None:
    """A metric name of ``names``; None: ``detect()`` (the detected metric)."""
    if value is None:
        return detect()
    if value not in names:
        valid = ", ".join(repr(n) for n in names) or f"none: the data has no {role} metric"
        raise TraitError(f"unknown {role} metric {value!r}; valid: {valid}")
    return value


def checked_ranks(value, known: Sequence[int]) -> list[int] | None:
    """Ranks of ``known`` (None: all)."""
    try:
        ranks = normalize_ranks(value)
    except ValueError as exc:
        raise TraitError(str(exc)) from None
    unknown = sorted(set(ranks or ()) - set(known))
    if unknown:
        raise TraitError(f"unknown rank(s) {unknown}; valid ranks: {list(known)}")
    return ranks


def checked_peak(name: str, value: float | None) -> float | None:
    """A positive finite peak (GFLOP/s for ``peak_flops``, GB/s otherwise), or None."""
    if value is not None and not (math.isfinite(value) and value > 0):
        unit = "GFLOP/s" if name == "peak_flops" else "GB/s"
        raise TraitError(f"{name} must be a positive finite number of {unit} or None "
                         f"(empirical), got {value!r}")
    return value


def checked_max_points(value: int) -> int:
    """A point budget of at least 1."""
    if value < 1:
        raise TraitError(f"max_points must be at least 1, got {value}")
    return value


def checked_selected(keys, points: pd.DataFrame | pd.MultiIndex | None) -> list[tuple]:
    """Distinct (file, rank, region) keys, all among ``points`` (when there are points yet).

    ``points`` is a points frame or its :func:`key_index` (built once by the caller).
    """
    keys = list(dict.fromkeys(normalize_key(k) for k in keys))
    if keys and points is not None:
        index = points if isinstance(points, pd.MultiIndex) else key_index(points)
        known = pd.MultiIndex.from_tuples(keys).isin(index)
        if not known.all():
            unknown = [k for k, ok in zip(keys, known) if not ok]
            raise TraitError(f"{len(unknown)} selected key(s) are not among the current "
                             f"points, e.g. {unknown[0]!r}; keys are (file, rank, region)")
    return keys


def checked_levels(value, available: Sequence[str]) -> list[str]:
    """Memory levels of ``available``, in its order (inner to outer)."""
    levels = list(dict.fromkeys(value or ()))
    unknown = [level for level in levels if level not in available]
    if unknown:
        raise TraitError(f"unknown memory level(s) {unknown}; levels measured in the data: "
                         f"{list(available) or 'none'}")
    return [level for level in available if level in levels]


def checked_regions(value, regions: Sequence[str]) -> list[str]:
    """Distinct region names of ``regions``."""
    chosen = list(dict.fromkeys(str(r) for r in value))
    known = set(regions)
    unknown = [r for r in chosen if r not in known]
    if unknown:
        raise TraitError(f"unknown region(s) {unknown}; valid: {list(regions)}")
    return chosen
