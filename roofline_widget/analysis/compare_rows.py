"""The rows of a comparison of runs, built with arrays: every step of a chain at once.

:func:`stack_sides` stacks the selected points of every run of a comparison
into ONE side table (a row per selected (region, rank, device) of each run,
the run's position in ``run``); :func:`comparison_rows` turns it into the
rows of every consecutive pair of runs (a chain of 18 runs: 17 steps) with
one lookup per column: each row is a (before row, after row) pair of
positions into the side table, ``-1`` where a run has no row for the key.
No Python loop runs per pair of runs or per row (but per row a run lacks,
whose reason is a sentence naming the region or rank).

:func:`~roofline_widget.compare_points` documents the columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.points import SelectedPoints

__all__ = ["CHANGE_COLUMNS", "POINT_COLUMNS", "STATUSES", "SideTable", "comparison_rows",
           "stack_sides"]

#: Values of the ``status`` column: in which of the two runs the point could be placed.
STATUSES = ("both", "only before", "only after", "neither")
#: The per-point columns that get a ``_before`` and an ``_after`` copy.
POINT_COLUMNS = (schema.PERFORMANCE, schema.BANDWIDTH, schema.INTENSITY,
                 schema.RUNTIME, "n_threads", "call_count")
#: Change column -> the point column it compares (after / before - 1, in percent).
CHANGE_COLUMNS = {
    "performance_change_percent": schema.PERFORMANCE,
    "intensity_change_percent": schema.INTENSITY,
    "bandwidth_change_percent": schema.BANDWIDTH,
}
_KEYS = ["run", "file", "region", "rank", "device"]
#: The text columns of a side that get a ``_before`` and an ``_after`` copy.
_NAME_COLUMNS = ("region", "file", "rank_group")


@dataclass(frozen=True)
class SideTable:
    """Every run's selected points, stacked: one row per (run, region, rank, device).

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``run`` (the run's position), ``key`` (the matched region
        name), ``rank``, ``device``, ``region`` (the run's own name),
        ``file``, ``rank_group``, the :data:`POINT_COLUMNS` (NaN where the
        point could not be placed) and ``reason`` (``""`` when placed).
    labels : tuple of str
        The runs' comparison labels, by position.
    """

    frame: pd.DataFrame
    labels: tuple[str, ...]


def _values(column: pd.Series, dtype) -> np.ndarray:
    """``np.asarray(column, dtype)``; a categorical column taken from its categories (quicker)."""
    if isinstance(column.dtype, pd.CategoricalDtype) and dtype is object:
        categories = np.append(np.asarray(column.cat.categories, dtype=object), np.nan)
        return categories[column.cat.codes.to_numpy()]  # code -1 (NaN) takes the NaN
    return np.asarray(column, dtype=dtype)


def _stacked(frames: Sequence[pd.DataFrame], columns: dict[str, object]) -> pd.DataFrame:
    """The ``columns`` of ``frames`` one under the other, and ``run``: each row's frame position.

    ``columns`` maps a column name to its dtype; ``"a:b"`` is column ``a`` named ``b``.
    """
    out = {"run": np.repeat(np.arange(len(frames), dtype=np.int64), [len(f) for f in frames])}
    for name, dtype in columns.items():
        source, _, target = name.partition(":")
        parts = [_values(f[source], dtype) for f in frames]
        out[target or source] = (np.concatenate(parts) if parts
                                 else np.empty(0, dtype=dtype))  # type: ignore[call-overload]
    return pd.DataFrame(out)


def stack_sides(selected: Sequence[SelectedPoints], labels: Sequence[str],
                rename: Callable[[str], str]) -> SideTable:
    """The :class:`SideTable` of the selected points of each run (``labels``: the runs' labels).

    Raises
    ------
    ValueError
        When a run has two rows for one matched (region, rank, device).
    """
    keys = {"file": object, "region": object, "rank": np.int64, "device": object}
    table = _stacked([s.frame for s in selected], {
        **keys, f"runtime_s:{schema.RUNTIME}": float, "n_threads": float, "call_count": float})
    placed = _stacked([s.points for s in selected], {
        **keys, **{name: float for name in POINT_COLUMNS[:3]},
        "rank_group:placed_group": object})
    reasons = _stacked([s.left_out for s in selected], {
        **keys, "reason": object, "rank_group:left_out_group": object})
    table = table.merge(placed, on=_KEYS, how="left").merge(reasons, on=_KEYS, how="left")
    table["reason"] = table["reason"].fillna("")
    table["rank_group"] = table["placed_group"].where(table["placed_group"].notna(),
                                                      table["left_out_group"])
    names, uniques = pd.factorize(table["region"].to_numpy(dtype=object), use_na_sentinel=False)
    table["key"] = np.array([rename(name) for name in uniques], dtype=object)[names]
    _check_unique(table, labels)
    return SideTable(table[["run", "key", "rank", "device", *_NAME_COLUMNS, *POINT_COLUMNS,
                            "reason"]], tuple(labels))


def _check_unique(table: pd.DataFrame, labels: Sequence[str]) -> None:
    duplicated = table.duplicated(["run", "key", "rank", "device"], keep=False)
    if not duplicated.any():
        return
    first = table[duplicated].iloc[0]
    label = labels[first["run"]]
    same = table[duplicated & (table["run"] == first["run"]) & (table["key"] == first["key"])
                 & (table["rank"] == first["rank"]) & (table["device"] == first["device"])]
    names = list(dict.fromkeys(same["region"]))
    if len(names) > 1:
        raise ValueError(f"match maps the regions {names} of the {label} run all to "
                         f"{first['key']!r}; each region needs its own name")
    raise ValueError(
        f"the {label} run has {len(same)} points for region {first['region']!r}, rank "
        f"{first['rank']} (files {list(same['file'])}); compare one run per side "
        "(read_likwid([...]) merges the files of one run into one)")


class _Rows:
    """Finds the side table's row of a (run, key) pair: -1 where the run has none."""

    def __init__(self, runs: np.ndarray, codes: np.ndarray, n_codes: int) -> None:
        self.n_codes = max(n_codes, 1)
        pairs = runs * self.n_codes + codes
        self.order = np.argsort(pairs, kind="stable")
        self.sorted = pairs[self.order]

    def find(self, runs: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The row of each (run, code) pair, -1 where there is none."""
        wanted = runs * self.n_codes + codes
        if not len(self.sorted):
            return np.full(len(wanted), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.sorted, wanted), len(self.sorted) - 1)
        return np.where(self.sorted[at] == wanted, self.order[at], -1)


def _codes(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, int]:
    """An integer per distinct combination of ``columns`` (NaN a value like any other)."""
    codes = frame.groupby(columns, sort=False, dropna=False).ngroup().to_numpy(dtype=np.int64)
    return codes, int(codes.max()) + 1 if len(codes) else 0


def _step_rows(runs: np.ndarray, codes: np.ndarray, rows: _Rows, n_runs: int):
    """Per comparison row: its step (1: runs 0 and 1), the before row and the after row (-1: none).

    A step's rows are the earlier run's keys in its order, then the keys new
    in the later run in that run's order.
    """
    position = np.arange(len(runs))
    earlier = runs < n_runs - 1
    after_of_earlier = rows.find(runs[earlier] + 1, codes[earlier])
    later = runs > 0
    new = later.copy()
    new[later] = rows.find(runs[later] - 1, codes[later]) < 0
    step = np.concatenate([runs[earlier] + 1, runs[new]])
    part = np.concatenate([np.zeros(earlier.sum(), dtype=np.int64),
                           np.ones(new.sum(), dtype=np.int64)])
    before = np.concatenate([position[earlier], np.full(new.sum(), -1, dtype=np.int64)])
    after = np.concatenate([after_of_earlier, position[new]])
    order = np.lexsort((np.concatenate([position[earlier], position[new]]), part, step))
    return step[order], before[order], after[order]


def _take(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``, NaN where ``rows`` is -1."""
    if values.dtype != object:
        values = values.astype(float)
    out = values[np.maximum(rows, 0)] if len(values) else np.full(len(rows), np.nan, values.dtype)
    out[rows < 0] = np.nan
    return out


def _change_percent(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (after / before - 1.0) * 100.0


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / denominator


@dataclass(frozen=True)
class _Pairs:
    """The comparison's rows as positions into the side table: one (before, after) pair each."""

    step: np.ndarray  # 1 compares runs 0 and 1
    sides: dict[str, tuple[np.ndarray, np.ndarray]]  # suffix -> (side table row or -1, run)
    key_row: np.ndarray  # the row whose key (region, rank, device) the comparison row has


def _pairs(runs: np.ndarray, codes: np.ndarray, rows: _Rows, n_runs: int) -> _Pairs:
    step, before, after = _step_rows(runs, codes, rows, n_runs)
    return _Pairs(step, {"before": (before, step - 1), "after": (after, step)},
                  np.where(before >= 0, before, after))


def _reasons(table: pd.DataFrame, labels: Sequence[str], pairs: _Pairs, suffix: str,
             region_found: np.ndarray) -> np.ndarray:
    """Each row's reason on one side: the run's own, or why the run has no row for its key."""
    side, runs = pairs.sides[suffix]
    reason = _take(table["reason"].to_numpy(dtype=object), side)
    keys = table["key"].to_numpy(dtype=object)[pairs.key_row]
    ranks = table["rank"].to_numpy(dtype=np.int64)[pairs.key_row]
    for i in np.flatnonzero(side < 0):
        label = labels[runs[i]]
        reason[i] = (f"rank {ranks[i]} not in the {label} run" if region_found[i]
                     else f"region {keys[i]!r} not in the {label} run")
    return reason


def _side_columns(table: pd.DataFrame, pairs: _Pairs) -> dict[str, object]:
    """The ``<name>_before`` and ``<name>_after`` columns, the speed-up and the changes."""
    columns: dict[str, object] = {}
    for name in _NAME_COLUMNS:
        for suffix, (side, _) in pairs.sides.items():
            columns[f"{name}_{suffix}"] = _take(table[name].to_numpy(dtype=object), side)
    values = {}
    for name in POINT_COLUMNS:
        for suffix, (side, _) in pairs.sides.items():
            values[f"{name}_{suffix}"] = _take(table[name].to_numpy(dtype=float), side)
            series = pd.Series(values[f"{name}_{suffix}"])
            columns[f"{name}_{suffix}"] = series.astype("Int64") if name == "n_threads" else series
    columns["speedup"] = _ratio(values["runtime_seconds_before"], values["runtime_seconds_after"])
    for change, name in CHANGE_COLUMNS.items():
        columns[change] = _change_percent(values[f"{name}_before"], values[f"{name}_after"])
    return columns


def _changes_vs_first(table: pd.DataFrame, pairs: _Pairs, first: np.ndarray) -> dict:
    """The ``after`` point of each row against the first run's point of its key (row ``first``)."""
    def after(name: str) -> np.ndarray:
        return _take(table[name].to_numpy(dtype=float), pairs.sides["after"][0])

    def base(name: str) -> np.ndarray:
        return _take(table[name].to_numpy(dtype=float), first)

    columns = {"speedup_vs_first": _ratio(base(schema.RUNTIME), after(schema.RUNTIME))}
    for change, name in CHANGE_COLUMNS.items():
        columns[change.replace("_percent", "_vs_first_percent")] = _change_percent(base(name),
                                                                                  after(name))
    return columns


def comparison_rows(sides: SideTable, chain: bool, metrics: dict[str, str]) -> pd.DataFrame:
    """The comparison frame of :func:`~roofline_widget.compare_points`.

    ``chain``: a ``step`` column first and the changes against the first run
    last; else the one pair of runs 0 and 1.  ``metrics``: columns of one
    value each (the metric names), after the reasons.
    """
    table, labels = sides.frame, sides.labels
    runs = table["run"].to_numpy(dtype=np.int64)
    codes, n_codes = _codes(table, ["key", "rank", "device"])
    rows = _Rows(runs, codes, n_codes)
    pairs = _pairs(runs, codes, rows, len(labels))
    performance = {suffix: ~np.isnan(_take(table[schema.PERFORMANCE].to_numpy(dtype=float), side))
                   for suffix, (side, _) in pairs.sides.items()}
    placed_before, placed_after = performance["before"], performance["after"]
    label_of = np.array(labels, dtype=object)
    columns: dict[str, object] = {"step": pairs.step} if chain else {}
    columns.update(
        region=table["key"].to_numpy(dtype=object)[pairs.key_row],
        rank=table["rank"].to_numpy(dtype=np.int64)[pairs.key_row],
        device=table["device"].to_numpy(dtype=object)[pairs.key_row],
        status=np.select([placed_before & placed_after, placed_before, placed_after],
                         list(STATUSES[:3]), default=STATUSES[3]),
        # dtype str: a label's column as one label broadcast would be, also when empty
        run_before=pd.Series(label_of[pairs.step - 1], dtype=str),
        run_after=pd.Series(label_of[pairs.step], dtype=str))
    columns.update(_side_columns(table, pairs))
    names, n_names = _codes(table, ["key"])
    regions = _Rows(runs, names, n_names)
    for suffix, (_, side_runs) in pairs.sides.items():
        found = regions.find(side_runs, names[pairs.key_row]) >= 0
        columns[f"reason_{suffix}"] = _reasons(table, labels, pairs, suffix, found)
    columns.update(metrics)
    if chain:
        first = rows.find(np.zeros(len(pairs.key_row), dtype=np.int64), codes[pairs.key_row])
        columns.update(_changes_vs_first(table, pairs, first))
    return pd.DataFrame(columns)
