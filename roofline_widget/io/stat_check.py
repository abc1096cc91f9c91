"""Self-check against LIKWID's own sums: the STAT ``Sum`` column against the threads read.

Where likwid-perfctr printed STAT tables (more than one thread), its ``Sum``
column is LIKWID's own sum over the threads of the region.  Summing the
per-thread values that were read and comparing them with it catches what no
format check sees: truncated numbers, dropped threads, a parser slip on a
layout nobody has seen yet.  :func:`check_stat_sums` does that per (file,
rank, region, group) and metric or event, with a tolerance derived from the
printed precision, and warns :class:`StatSumMismatchWarning` naming file,
region, metric and both values; the findings are also kept in
``run.warnings``.

Each STAT table is matched to the region block it was printed in (the
block's header ``line``, kept in both :attr:`LikwidRun.stats` and
:attr:`LikwidRun.table`): likwid-mpirun prints one STAT table over every
rank's threads of a region, and a log of several likwid-perfctr runs repeats
a region once per run.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget.errors import StatSumMismatchWarning
from roofline_widget.model import LikwidRun

__all__ = [
    "ABSOLUTE_DIGIT",
    "COMPARISON_COLUMNS",
    "LISTED",
    "RELATIVE_DIGITS",
    "StatMismatch",
    "check_stat_sums",
    "stat_comparisons",
    "stat_mismatches",
]

#: Half a unit of the last printed digit of a fixed-point value (LIKWID prints 4 decimals).
ABSOLUTE_DIGIT = 5e-5
#: The relative rounding allowed per value (LIKWID prints about 6 significant digits,
#: ``2.556572e+06``); ten times half a unit of the 6th digit, for margin.
RELATIVE_DIGITS = 5e-6
#: How many columns are reduced at a time (bounds the temporary arrays).
CHUNK = 8
#: How many mismatches one warning lists before it says "and N more".
LISTED = 10

#: A STAT table belongs to the region block printed at ``line`` of ``source`` (as the table's rows).
_KEYS = ["line", "region", "group_index"]


@dataclass(frozen=True)
class StatMismatch:
    """One metric (or event) of one region whose summed threads differ from the STAT Sum.

    Attributes
    ----------
    source : str
        The file.
    rank : int or None
        The rank of the block's threads (None: several, likwid-mpirun).
    region, group : str
        The region and group names.
    name : str
        The metric (or ``"EVENT:COUNTER"``) as printed.
    summed : float
        The sum over the threads read.
    stat_sum : float
        LIKWID's STAT ``Sum``.
    tolerance : float
        The largest difference the printed precision explains.
    """

    source: str
    rank: int | None
    region: str
    group: str
    name: str
    summed: float
    stat_sum: float
    tolerance: float

    def __str__(self) -> str:
        rank = "" if self.rank is None else f", rank {self.rank}"
        return (f"{self.source}: region {self.region!r} (group {self.group}{rank}): "
                f"{self.name!r} summed over the threads read is {self.summed:.7g}, "
                f"LIKWID's STAT Sum is {self.stat_sum:.7g}")


def _group_sums(columns: list[pd.Series], codes: np.ndarray, n_groups: int) -> tuple:
    """Per group (rows with one code) and column: sum of finite values, of magnitudes, count.

    One stable sort, then ``np.add.reduceat`` over :data:`CHUNK` columns at a
    time (so the temporary arrays stay small); no Python loop over rows.
    """
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    present = sorted_codes[starts]
    out = [np.zeros((n_groups, len(columns))) for _ in range(3)]
    if not len(codes):
        return tuple(out)
    for first in range(0, len(columns), CHUNK):
        chunk = columns[first:first + CHUNK]
        values = np.column_stack([c.to_numpy(dtype=float)[order] for c in chunk])
        finite = np.isfinite(values)
        values[~finite] = 0.0
        where = slice(first, first + len(chunk))
        out[0][present, where] = np.add.reduceat(values, starts, axis=0)
        out[2][present, where] = np.add.reduceat(finite, starts, axis=0, dtype=float)
        np.abs(values, out=values)
        out[1][present, where] = np.add.reduceat(values, starts, axis=0)
    return tuple(out)


def _columns_of(stats: pd.DataFrame, metric_names: list, event_names: list) -> np.ndarray:
    """Per STAT row its column among ``metric_names + event_names`` (by kind), -1 if none."""
    metrics = {name: i for i, name in reversed(list(enumerate(metric_names)))}
    offset = len(metric_names)
    events = {name: offset + i for i, name in reversed(list(enumerate(event_names)))}
    names = pd.Categorical(stats["name"])  # each distinct name looked up once
    as_metric = np.array([metrics.get(n, -1) for n in names.categories] + [-1], dtype=np.intp)
    as_event = np.array([events.get(n, -1) for n in names.categories] + [-1], dtype=np.intp)
    is_event = (stats["kind"] == "event").to_numpy(dtype=bool)
    return np.where(is_event, as_event[names.codes], as_metric[names.codes])


def _block_rank(table: pd.DataFrame, codes: np.ndarray, group_of: np.ndarray,
                n_groups: int) -> np.ndarray:
    """Per STAT row (its block number in ``group_of``) the rank of the block's threads,
    -1 where they are of several ranks (likwid-mpirun)."""
    ranks = table["rank"].to_numpy(dtype=np.int64)
    low = np.full(n_groups, np.iinfo(np.int64).max)
    high = np.full(n_groups, np.iinfo(np.int64).min)
    np.minimum.at(low, codes, ranks)
    np.maximum.at(high, codes, ranks)
    rank = np.where(low == high, low, -1)
    return rank[group_of]


def _joint_codes(table: pd.DataFrame, stats: pd.DataFrame, by: list[str]) -> tuple:
    """Group numbers of the table rows (0 .. n-1) and of the STAT rows (-1: no such group)."""
    n = len(table)
    joint = np.zeros(n + len(stats), dtype=np.int64)
    for name in by:
        # numbers as numbers, names as references to their strings: no object per row
        both = np.concatenate([table[name].to_numpy(), stats[name].to_numpy()])
        codes, uniques = pd.factorize(both)
        joint = joint * (len(uniques) + 1) + codes
    codes, uniques = pd.factorize(joint[:n])
    group_of = pd.Index(uniques).get_indexer(joint[n:])
    return codes, group_of, len(uniques)


COMPARISON_COLUMNS = ["source", "rank", "region", "group", "name", "summed", "stat_sum",
                      "tolerance", "agree"]


def stat_comparisons(run: LikwidRun) -> pd.DataFrame:
    """Every STAT ``Sum`` LIKWID printed, next to the sum of the threads read.

    The tolerance per comparison is the rounding the printed numbers allow:
    per value read (and for the Sum itself) :data:`ABSOLUTE_DIGIT` plus
    :data:`RELATIVE_DIGITS` of its magnitude.  STAT cells that are NaN
    (``-``), and metrics no thread of the region has a finite value of, are
    not compared.

    Parameters
    ----------
    run : LikwidRun
        A run as :func:`~roofline_widget.read_likwid` returns it (its ``stats`` and ``table``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COMPARISON_COLUMNS`, one row per comparison, in the
        order of the STAT rows; ``rank`` is -1 where the block's threads are
        of several ranks (likwid-mpirun), ``agree`` whether the difference is within
        ``tolerance``.
    """
    stats = run.stats
    parts = []
    if stats is None or not len(stats) or not len(run.table):
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    metric_names = run.metric_names
    by = _KEYS
    for source in pd.unique(stats["source"].to_numpy(dtype=object)):
        rows = (run.table["source"] == source).to_numpy()
        table = run.table if rows.all() else run.table[rows]
        wanted = stats[(stats["source"] == source) & stats["Sum"].notna()]
        if not len(table) or not len(wanted):
            continue
        codes, group_of, n_groups = _joint_codes(table, wanted, by)
        events = run.events if rows.all() else run.events[rows]
        columns = [table[m] for m in metric_names] + [events[e] for e in events.columns]
        summed, magnitude, count = _group_sums(columns, codes, n_groups)
        column_of = _columns_of(wanted, metric_names, list(events.columns))
        known = (group_of >= 0) & (column_of >= 0)
        g, c = group_of[known], column_of[known]
        compared = count[g, c] > 0
        wanted, g, c = wanted[known][compared], g[compared], c[compared]
        total, stat_sum = summed[g, c], wanted["Sum"].to_numpy(dtype=float)
        tolerance = (ABSOLUTE_DIGIT * (count[g, c] + 1)
                     + RELATIVE_DIGITS * (magnitude[g, c] + np.abs(stat_sum)))
        parts.append(pd.DataFrame({
            "source": wanted["source"].array,
            "rank": _block_rank(table, codes, g, n_groups),
            "region": wanted["region"].array,
            "group": wanted["group"].array,
            "name": wanted["name"].array,
            "summed": total, "stat_sum": stat_sum, "tolerance": tolerance,
            "agree": np.abs(total - stat_sum) <= tolerance,
        }))
    if not parts:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def stat_mismatches(run: LikwidRun) -> list[StatMismatch]:
    """The comparisons of :func:`stat_comparisons` that disagree, as :class:`StatMismatch`.

    Parameters
    ----------
    run : LikwidRun

    Returns
    -------
    list of StatMismatch
        In the order of the STAT rows; empty when the run has none.
    """
    frame = stat_comparisons(run)
    bad = frame[~frame["agree"].astype(bool)]
    return [StatMismatch(str(r.source), None if r.rank < 0 else int(r.rank), str(r.region),
                         str(r.group), str(r.name), float(r.summed), float(r.stat_sum),
                         float(r.tolerance))
            for r in bad.itertuples(index=False)]


def check_stat_sums(run: LikwidRun, stacklevel: int = 2) -> list[StatMismatch]:
    """Compare ``run``'s summed threads with LIKWID's STAT sums; warn and record mismatches.

    Calls :func:`stat_mismatches`; if any, warns one
    :class:`StatSumMismatchWarning` per run listing them (the first
    :data:`LISTED`, then a count) and appends one line per mismatch to
    ``run.warnings``.

    Returns
    -------
    list of StatMismatch
    """
    found = stat_mismatches(run)
    if found:
        lines = [str(m) for m in found]
        run.warnings.extend(f"STAT Sum mismatch: {line}" for line in lines)
        listed = "\n".join(f"  - {line}" for line in lines[:LISTED])
        if len(lines) > LISTED:
            listed += f"\n  - and {len(lines) - LISTED} more (all in run.warnings)"
        warnings.warn(f"{len(found)} summed metric(s)/event(s) differ from LIKWID's STAT Sum "
                      f"beyond the printed precision (truncated numbers, dropped threads or a "
                      f"misread table?):\n{listed}", StatSumMismatchWarning,
                      stacklevel=stacklevel + 1)
    return found
