"""Whether a selected row can be placed on the roofline, and if not, why.

:func:`giga_rates` converts one metric's sums to giga units for the selected
rows and gives every row a reason code (0: usable; else missing, zero,
negative, infinite, a unit that is no rate, a GPU region under a CPU-only
metric); :func:`joined_reasons` joins the reasons of the FLOP and the
bandwidth metric into one categorical column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..units import BYTE_RATE, FLOP_RATE, UOP_RATE
from .rank_groups import RankGroups

if TYPE_CHECKING:
    from .region_sums import RegionSums

__all__ = ["giga_rates", "joined_reasons"]


def giga_rates(sums: RegionSums, metric: str | None, role: str, expected_kind: str,
               rows: np.ndarray, groups: RankGroups | None = None
               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Values in giga units, a reason code per selected row, and the reason texts.

    Parameters
    ----------
    sums : RegionSums
    metric : str or None
        The metric (None: none was found in the data).
    role : str
        ``"FLOP-rate"`` or ``"bandwidth"``, for the reason texts.
    expected_kind : str
        ``FLOP_RATE`` (a uop rate is accepted too) or ``BYTE_RATE``.
    rows : numpy.ndarray
        The selected rows of ``sums``.
    groups : RankGroups, optional
        With it, one value per group (the sum over its rows) instead.

    Returns
    -------
    values : numpy.ndarray
        GFLOP/s or GB/s, one per row (or group).
    codes : numpy.ndarray
        Reason code per row (or group); code 0 (text ``""``) means usable.
    texts : list of str
        The reason texts, indexed by the codes.
    """
    n = len(rows) if groups is None else groups.n
    problem = None
    if metric is None:
        problem = f"no {role} metric in the data"
    elif metric not in sums.units:
        problem = f"no metric {metric!r} in the data"
    else:
        unit = sums.units[metric]
        kinds_ok = (FLOP_RATE, UOP_RATE) if expected_kind == FLOP_RATE else (BYTE_RATE,)
        if unit.kind not in kinds_ok:
            wanted = "a FLOP rate" if expected_kind == FLOP_RATE else "a byte rate"
            problem = f"unit of {metric!r} ({unit.text or 'none'}) is not {wanted}"
    if problem is not None:
        return np.full(n, np.nan), np.ones(n, dtype=np.intp), ["", problem]
    raw = sums.sums(metric)
    values = raw[rows] if groups is None else groups.sum(raw[rows])
    values = values * unit.to_giga
    gpu = sums.gpu_rows[rows if groups is None else groups.first_rows]
    gpu_metric = bool(np.isfinite(raw[sums.gpu_rows]).any())
    with np.errstate(invalid="ignore"):
        conditions = [
            np.isnan(values) & gpu & (not gpu_metric),
            np.isnan(values),
            np.isinf(values),
            values == 0,
            values < 0,
        ]
    texts = [
        "",
        f"GPU region: {metric!r} is measured on CPUs only",
        f"{metric!r} not measured in this region",
        f"{metric!r} is infinite",
        f"{metric!r} is zero on every thread",
        f"{metric!r} is negative",
    ]
    codes = np.select(conditions, np.arange(1, len(texts)), default=0)
    return values, codes, texts


def joined_reasons(first: list[str], second: list[str], first_codes: np.ndarray,
                   second_codes: np.ndarray) -> pd.Categorical:
    """Joined reason texts per row, from the reason codes of both metrics.

    ``first[first_codes[i]]`` and ``second[second_codes[i]]`` joined with
    ``"; "`` (either alone when the other is ``""``).
    """
    table = [f"{a}; {b}" if a and b else a + b for a in first for b in second]
    categories, inverse = np.unique(np.array(table, dtype=str), return_inverse=True)
    codes = np.asarray(inverse).ravel()[first_codes * len(second) + second_codes]
    return pd.Categorical.from_codes(codes, categories=categories)
