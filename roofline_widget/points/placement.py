"""Whether a selected row can be placed on the roofline, and if not, why.

:func:`giga_rates` converts one metric's sums to giga units for the selected
rows and gives every row a reason code (0: usable; else missing, zero,
negative, infinite, a unit that is no rate, a GPU region under a CPU-only
metric); :func:`joined_reasons` joins the reasons of the FLOP and the
bandwidth metric into one categorical column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget.points.columns import RegionColumns
from roofline_widget.points.combined_ranks import CombinedRanks
from roofline_widget.points.unmeasured import unmeasured_reason
from roofline_widget.units import UnitKind

__all__ = ["giga_rates", "joined_reasons", "unmeasured_union"]


def giga_rates(sums: RegionColumns, metric: str | None, role: str, expected_kind: str,
               rows: np.ndarray, groups: CombinedRanks | None = None, *, keep: bool = False
               ) -> tuple[np.ndarray, np.ndarray, list[str], dict]:
    """Values in giga units, a reason code per selected row, the reason texts, unmeasured threads.

    Parameters
    ----------
    sums : RegionColumns
        The sums (a :class:`~roofline_widget.points.RegionSums`).
    metric : str or None
        The metric (None: none was found in the data).
    role : str
        ``"FLOP-rate"`` or ``"bandwidth"``, for the reason texts.
    expected_kind : str
        ``UnitKind.FLOP_RATE`` (a uop rate is accepted too) or ``UnitKind.BYTE_RATE``.
    rows : numpy.ndarray
        The selected rows of ``sums``.
    groups : CombinedRanks, optional
        With it, one value per group (the sum over its rows) instead.
    keep : bool, default False
        Place a row with threads that did not measure ``metric`` (summed
        over the measured ones); by default it gets the reason
        ``"thread <name> not measured (<metric>)"``.

    Returns
    -------
    values : numpy.ndarray
        GFLOP/s or GB/s, one per row (or group).
    codes : numpy.ndarray
        Reason code per row (or group); code 0 (text ``""``) means usable.
    texts : list of str
        The reason texts, indexed by the codes.
    unmeasured : dict of int to dict of str to int
        Per row (or group) position with threads that did not measure
        ``metric``, their names and how many threads each stands for.
    """
    n = len(rows) if groups is None else groups.n
    problem = None
    if metric is None:
        problem = f"no {role} metric in the data"
    elif metric not in sums.units:
        problem = f"no metric {metric!r} in the data"
    else:
        unit = sums.units[metric]
        flops = expected_kind == UnitKind.FLOP_RATE
        kinds_ok = (UnitKind.FLOP_RATE, UnitKind.UOP_RATE) if flops else (UnitKind.BYTE_RATE,)
        if unit.kind not in kinds_ok:
            wanted = "a FLOP rate" if flops else "a byte rate"
            problem = f"unit of {metric!r} ({unit.text or 'none'}) is not {wanted}"
    if problem is not None or metric is None:
        return np.full(n, np.nan), np.ones(n, dtype=np.intp), ["", str(problem)], {}
    raw = sums.sums(metric)
    every = groups is None and len(rows) == len(raw)  # every row (rows ascend): none picked
    values = raw if every else raw[rows] if groups is None else groups.sum(raw[rows])
    values = values * unit.to_giga
    gpu = sums.gpu_rows if every else sums.gpu_rows[rows if groups is None else groups.first_rows]
    # "measured on CPUs only": no GPU row has a value, some CPU row has (a LIKWID GPU group
    # without memory traffic); a GPU metric that is NaN on every GPU row is "not measured"
    gpu_metric = bool(np.isfinite(raw[sums.gpu_rows]).any()
                      or not np.isfinite(raw[~sums.gpu_rows]).any())
    missing = _unmeasured_names(sums, metric, rows, groups)
    with np.errstate(invalid="ignore"):
        usable = values > 0  # False for NaN
    usable &= ~np.isinf(values)
    partial = np.zeros(n, dtype=bool)
    partial[list(missing)] = True
    with np.errstate(invalid="ignore"):
        conditions = [] if usable.all() else [  # every value a positive number: no reason
            np.isnan(values) & gpu & (not gpu_metric),
            np.isnan(values),
            np.isinf(values),
            (values == 0) & partial,
            values == 0,
            values < 0,
        ]
    texts = [
        "",
        f"GPU region: {metric!r} is measured on CPUs only",
        f"{metric!r} not measured in this region",
        f"{metric!r} is infinite",
        f"{metric!r} is zero on every measured thread",
        f"{metric!r} is zero on every thread",
        f"{metric!r} is negative",
    ]
    codes = (np.select(conditions, np.arange(1, len(texts)), default=0) if conditions
             else np.zeros(n, dtype=np.int64))
    if not keep and missing:
        # not measured on some thread: that is the reason, whatever the other threads say
        index: dict[str, int] = {}
        for position, names in missing.items():
            if codes[position] in (0, 4, 5, 6):
                text = unmeasured_reason(names, metric)
                codes[position] = index.setdefault(text, len(texts) + len(index))
        texts += list(index)
    return values, codes, texts, missing


def _unmeasured_names(sums: RegionColumns, metric: str, rows: np.ndarray,
                      groups: CombinedRanks | None) -> dict:
    """{row (or group) position: {name: threads it stands for}} of the threads that did
    not measure ``metric``.

    With ``groups`` (ranks summed) a rank whose every thread lacks the metric,
    while another rank of the group has it, is such a gap too:
    ``"rank 3 (8 threads)"``.
    """
    unmeasured = sums.unmeasured(metric)
    counts = unmeasured.counts[rows]
    missing: dict[int, dict] = {}
    for j in np.flatnonzero(counts > 0).tolist():
        position = j if groups is None else int(groups.codes[j])
        missing.setdefault(position, {}).update(
            dict.fromkeys(unmeasured.threads[int(rows[j])], 1))
    if groups is not None:
        lacking = np.isnan(sums.sums(metric)[rows])
        measured_groups = np.bincount(groups.codes[~lacking], minlength=groups.n) > 0
        gaps = np.flatnonzero(lacking & measured_groups[groups.codes])
        if len(gaps):
            ranks = sums.key_numbers("rank")[rows[gaps]]
            n_threads = sums.key_numbers("n_threads")[rows[gaps]]
            for j, rank, n in zip(gaps.tolist(), ranks.tolist(), n_threads.tolist()):
                label = f"rank {rank} ({n} thread{'s' if n != 1 else ''})"
                missing.setdefault(int(groups.codes[j]), {})[label] = n
    return missing


def unmeasured_union(first: dict, second: dict, positions: np.ndarray) -> np.ndarray:
    """Per position, how many threads did not measure the first or the second metric."""
    out = np.zeros(len(positions), dtype=np.int64)
    if first or second:
        for k, position in enumerate(positions.tolist()):
            out[k] = sum({**first.get(position, {}), **second.get(position, {})}.values())
    return out


def joined_reasons(first: list[str], second: list[str], first_codes: np.ndarray,
                   second_codes: np.ndarray) -> pd.Categorical:
    """Joined reason texts per row, from the reason codes of both metrics.

    ``first[first_codes[i]]`` and ``second[second_codes[i]]`` joined with
    ``"; "`` (either alone when the other is ``""``).
    """
    pairs, inverse = np.unique(first_codes.astype(np.int64) * len(second) + second_codes,
                               return_inverse=True)
    table = [f"{first[a]}; {second[b]}" if first[a] and second[b] else first[a] + second[b]
             for a, b in zip((pairs // len(second)).tolist(), (pairs % len(second)).tolist())]
    categories, text_inverse = np.unique(np.array(table, dtype=str), return_inverse=True)
    codes = np.asarray(text_inverse).ravel()[np.asarray(inverse).ravel()]
    return pd.Categorical.from_codes(codes, categories=categories)
