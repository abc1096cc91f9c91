"""Compare runs: matched roofline points of two runs (or a chain of runs) in one table.

:func:`compare_points` puts the point of every (region, rank, device) of a
``before`` run and an ``after`` run in ONE row: both points' coordinates
(``performance_gflops_before`` / ``_after``, ...), the speed-up and the
relative changes.  Regions found in one run only, or measured but not
placeable (no FLOPs, no bandwidth, ...), keep their row with a ``status`` and
the reason, so nothing is dropped silently.  A chain (a thread-scaling series,
``{"1t": a, "2t": b, "8t": c}``) is the same table for every consecutive pair,
one ``step`` after the other, with the changes relative to the first run too.

The points come from :meth:`roofline_widget.points.RegionSums.select`, so they
are the same numbers as :func:`~roofline_widget.points_dataframe`: per-thread
rates summed per region.  ONE FLOP metric and ONE bandwidth metric are used
for every run, detected on the union of the runs' metrics when not given.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import MetricChoiceWarning
from roofline_widget.points import (
    RegionSums,
    SelectedPoints,
    Selection,
    detect_bandwidth_metric,
    detect_flops_metric,
    note_warning,
    selection_parameters,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["CHANGE_COLUMNS", "STATUSES", "compare_points"]

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
_SIDE = ["region", "file", "rank_group", *POINT_COLUMNS, "reason"]


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks")
def compare_points(before: object, after: object = None, *, selection: Selection | None = None,
                   match: Mapping[str, str] | Callable[[str], str | None] | None = None,
                   **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Match the roofline points of two runs (or a chain of runs) and compute the changes.

    The selection applies to every run alike (``include``/``exclude`` match
    each run's own region names); the metrics, given or detected on the
    union of all runs' metrics, are used for every run.

    Parameters
    ----------
    before, after : run data
        Anything :func:`~roofline_widget.points_dataframe` accepts (a
        :class:`~roofline_widget.LikwidRun`, a path, scope-profiler results, a
        list of them, a :class:`~roofline_widget.points.RegionSums`).
        Without ``after``, ``before`` is a CHAIN: an ordered mapping
        ``{label: run data}`` or a list of run data (labels: the runs' file
        labels), at least two; each pair of consecutive runs is compared.
    {selection_parameters}
    match : dict or callable, optional
        For renamed regions: maps a region name (of any run) to the name it
        is matched by, ``{"Solve_old": "Solve"}`` (names not in the dict are
        kept) or a function such as ``str.lower`` (returning None keeps the
        name).  Applied to the region names of every run.

    Returns
    -------
    pandas.DataFrame
        One row per (region, rank, device) found in either run, in the order
        of the ``before`` run, then the regions new in ``after``.  Columns:

        - ``region`` (the matched name, after ``match``), ``rank``
          (-1 for a sum of every rank, ``combine_ranks``; a socket's or
          host's sum is keyed by its lowest rank, so socket 0 pairs with
          socket 0), ``device``;
        - ``status``: ``"both"``, ``"only before"``, ``"only after"`` (the point
          could be placed in that run only) or ``"neither"`` (the region ran,
          but could be placed in no run);
        - ``run_before``, ``run_after``: the comparison labels (``"before"``,
          ``"after"``, or the chain's labels);
        - ``region_before``, ``region_after``, ``file_before``, ``file_after``,
          ``rank_group_before``, ``rank_group_after``: the original region
          names, the runs' file labels and the ranks each point sums
          (``"f0472 socket 0 (ranks 0-23)"``, ``"rank 3"``);
        - ``performance_gflops``, ``bandwidth_gbs``,
          ``arithmetic_intensity_flops_per_byte``, ``runtime_seconds``,
          ``n_threads`` (nullable integers), ``call_count``, each suffixed ``_before`` and
          ``_after``: the two points' coordinates side by side;
        - ``speedup`` = runtime before / runtime after (given whenever the
          region ran in both runs, even if it could not be placed);
        - ``performance_change_percent``, ``intensity_change_percent``,
          ``bandwidth_change_percent``: (after / before - 1) * 100, for
          ``status == "both"``.  Speed-up and GFLOP/s change can disagree
          (fewer FLOPs done faster): both are given;
        - ``reason_before``, ``reason_after``: why a run has no point for
          the row (``""`` when it has one): the left-out reason of
          :func:`~roofline_widget.left_out_regions`, or that the region or
          rank is not in that run;
        - ``flops_metric``, ``bandwidth_metric``: the metrics used.

        A chain has a ``step`` column first (1 compares the first and second
        run) and, last, ``speedup_vs_first`` and
        ``performance_change_vs_first_percent``,
        ``intensity_change_vs_first_percent``,
        ``bandwidth_change_vs_first_percent``: the ``after`` point against
        the first run's point of the same region (NaN where the first run
        has none; the step-1 rows say why).  A pair's rows are the chain
        ``{"before": before, "after": after}`` without those columns.

    Raises
    ------
    ValueError
        If a run lacks the chosen metric (or none could be detected), a run
        has two points for one region and rank (several files of one side:
        merge them with ``read_likwid([...])``), ``match`` maps two regions
        of a run to one name, or a chain has fewer than two runs.
    TypeError
        For a ``match`` that is neither a mapping nor callable.

    Warns
    -----
    MetricChoiceWarning
        When the metric detection is ambiguous or requested ranks are absent
        from a run.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> table = compare_points(
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"))
    >>> table[["region", "status"]].values.tolist()
    [['Setup', 'both'], ['Solve', 'both']]
    """
    chosen = Selection.of(selection, **keywords)
    chain = after is None
    items = _chain_items(before) if chain else [("before", before), ("after", after)]
    sums = [(label, RegionSums.from_runs(data)) for label, data in items]
    flops_metric = _common_metric(sums, chosen.flops_metric, "flop_metrics", detect_flops_metric,
                                  "FLOP-rate", "flops_metric")
    bandwidth_metric = _common_metric(sums, chosen.bandwidth_metric, "bandwidth_metrics",
                                      detect_bandwidth_metric, "bandwidth", "bandwidth_metric")
    chosen = replace(chosen, flops_metric=flops_metric, bandwidth_metric=bandwidth_metric)
    rename = _renamer(match)
    tables = []
    for label, run_sums in sums:
        selected = run_sums.select(chosen)
        for note in selected.notes:
            warnings.warn(f"{label} run: {note}", note_warning(note), stacklevel=2)
        tables.append(_side_table(selected, label, rename))
    steps = []
    for step in range(1, len(tables)):
        frame = _pair_frame(tables[step - 1], tables[step], sums[step - 1][0], sums[step][0])
        if chain:
            frame.insert(0, "step", step)
            _add_changes_vs_first(frame, tables[0])
        steps.append(frame)
    result = pd.concat(steps, ignore_index=True) if len(steps) > 1 else steps[0]
    result["flops_metric"] = flops_metric
    result["bandwidth_metric"] = bandwidth_metric
    if chain:  # the vs-first columns last, after the metrics
        vs_first = [c for c in result.columns if "vs_first" in c]
        result = result[[c for c in result.columns if c not in vs_first] + vs_first]
    return result


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------
def _chain_items(runs) -> list[tuple[str, object]]:
    """(label, run data) of a chain: an ordered mapping, or a list labelled by file labels."""
    if isinstance(runs, Mapping):
        items = [(str(label), data) for label, data in runs.items()]
    elif isinstance(runs, (list, tuple)):
        items = [(" + ".join(RegionSums.from_runs(data).files), data) for data in runs]
        labels = [label for label, _ in items]
        if len(set(labels)) < len(labels):
            items = [(f"run {i + 1}", data) for i, (_, data) in enumerate(items)]
    else:
        raise TypeError("compare_points(before, after) compares two runs; for a chain pass one "
                        "ordered mapping {label: run} or a list of runs and no `after` (got "
                        f"{type(runs).__name__})")
    if len(items) < 2:
        raise ValueError(f"a chain of runs needs at least two runs, got {len(items)}; "
                         "for two runs call compare_points(before, after)")
    return items


def _common_metric(sums, metric, attribute: str, detect, role: str, keyword: str) -> str:
    """One metric for all runs: the given one or detected on the union; every run must have it."""
    if metric is None:
        union = list(dict.fromkeys(m for _, s in sums for m in getattr(s, attribute)))
        metric, notes = detect(union)
        for note in notes:
            warnings.warn(note, MetricChoiceWarning, stacklevel=3)
        if metric is None:
            raise ValueError(f"no {role} metric in any of the runs "
                             f"({', '.join(label for label, _ in sums)})")
    for label, run_sums in sums:
        present = getattr(run_sums, attribute)
        if metric not in present:
            raise ValueError(
                f"the {label} run has no {role} metric {metric!r} (its {role} metrics: "
                f"{present or 'none'}); pass {keyword}= with a metric every run measured")
    return metric


def _renamer(match) -> Callable[[str], str]:
    if match is None:
        return lambda name: name
    if isinstance(match, Mapping):
        return lambda name: str(match.get(name, name))
    if callable(match):
        def rename(name: str) -> str:
            new = match(name)
            if new is None:
                return name
            if not isinstance(new, str):
                raise TypeError(f"match({name!r}) returned {new!r}; expected a region name "
                                "(str) or None")
            return new
        return rename
    raise TypeError(f"match must be a dict or a callable, got {type(match).__name__}")


# --------------------------------------------------------------------------
# one run's points and left-out rows, keyed by (region, rank, device)
# --------------------------------------------------------------------------
def _plain(column) -> np.ndarray:
    return np.asarray(column, dtype=object)


def _side_table(selected: SelectedPoints, label: str, rename: Callable[[str], str]) -> pd.DataFrame:
    """One row per selected (region, rank, device): the point's values, or NaN and the reason.

    Indexed by (matched region name, rank, device); column ``region`` keeps
    the run's own name.
    """
    keys = ["file", "region", "rank", "device"]
    every = selected.frame
    table = pd.DataFrame({
        "file": _plain(every["file"]), "region": _plain(every["region"]),
        "rank": np.asarray(every["rank"], dtype=np.int64), "device": _plain(every["device"]),
        schema.RUNTIME: np.asarray(every["runtime_s"], dtype=float),
        "n_threads": np.asarray(every["n_threads"], dtype=float),
        "call_count": np.asarray(every["call_count"], dtype=float),
    })
    points = selected.points
    placed = pd.DataFrame({
        "file": _plain(points["file"]), "region": _plain(points["region"]),
        "rank": np.asarray(points["rank"], dtype=np.int64), "device": _plain(points["device"]),
        **{name: np.asarray(points[name], dtype=float) for name in POINT_COLUMNS[:3]},
        "placed_group": _plain(points["rank_group"]),
    })
    left_out = selected.left_out
    reasons = pd.DataFrame({
        "file": _plain(left_out["file"]), "region": _plain(left_out["region"]),
        "rank": np.asarray(left_out["rank"], dtype=np.int64),
        "device": _plain(left_out["device"]), "reason": _plain(left_out["reason"]),
        "left_out_group": _plain(left_out["rank_group"]),
    })
    table = table.merge(placed, on=keys, how="left").merge(reasons, on=keys, how="left")
    table["reason"] = table["reason"].fillna("")
    table["rank_group"] = table["placed_group"].where(table["placed_group"].notna(),
                                                      table["left_out_group"])
    table["key"] = table["region"].map(rename)
    _check_unique(table, label)
    return table.set_index(["key", "rank", "device"])[_SIDE]


def _check_unique(table: pd.DataFrame, label: str) -> None:
    duplicated = table.duplicated(["key", "rank", "device"], keep=False)
    if not duplicated.any():
        return
    first = table[duplicated].iloc[0]
    same = table[duplicated & (table["key"] == first["key"]) & (table["rank"] == first["rank"])
                 & (table["device"] == first["device"])]
    names = list(dict.fromkeys(same["region"]))
    if len(names) > 1:
        raise ValueError(f"match maps the regions {names} of the {label} run all to "
                         f"{first['key']!r}; each region needs its own name")
    raise ValueError(
        f"the {label} run has {len(same)} points for region {first['region']!r}, rank "
        f"{first['rank']} (files {list(same['file'])}); compare one run per side "
        "(read_likwid([...]) merges the files of one run into one)")


# --------------------------------------------------------------------------
# the comparison frame
# --------------------------------------------------------------------------
def _absent_reasons(index: pd.MultiIndex, table: pd.DataFrame, label: str) -> np.ndarray:
    """Why a run has no row for each key of ``index`` (rank missing or region missing)."""
    regions = set(table.index.get_level_values(0))
    return np.array([f"rank {rank} not in the {label} run" if key in regions
                     else f"region {key!r} not in the {label} run"
                     for key, rank, _ in index], dtype=object)


def _change_percent(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (after / before - 1.0) * 100.0


def _pair_frame(table_a: pd.DataFrame, table_b: pd.DataFrame, label_a: str,
                label_b: str) -> pd.DataFrame:
    """The comparison rows of two side tables (see :func:`compare_points`)."""
    index = table_a.index.append(table_b.index[~table_b.index.isin(table_a.index)])
    sides = {}
    for suffix, table, label in (("before", table_a, label_a), ("after", table_b, label_b)):
        side = table.reindex(index)
        present = index.isin(table.index)
        reason = side["reason"].to_numpy(dtype=object, copy=True)
        reason[~present] = _absent_reasons(index[~present], table, label)
        side["reason"] = reason
        sides[suffix] = side
    placed = {s: sides[s][schema.PERFORMANCE].notna().to_numpy() for s in sides}
    status = np.select([placed["before"] & placed["after"], placed["before"], placed["after"]],
                       list(STATUSES[:3]), default=STATUSES[3])
    frame = pd.DataFrame({
        "region": index.get_level_values(0).to_numpy(dtype=object),
        "rank": index.get_level_values(1).to_numpy(dtype=np.int64),
        "device": index.get_level_values(2).to_numpy(dtype=object),
        "status": status, "run_before": label_a, "run_after": label_b,
    })
    for name in ("region", "file", "rank_group"):
        for suffix in sides:
            frame[f"{name}_{suffix}"] = sides[suffix][name].to_numpy(dtype=object)
    for name in POINT_COLUMNS:
        for suffix in sides:
            values = pd.Series(sides[suffix][name].to_numpy(dtype=float))
            frame[f"{name}_{suffix}"] = values.astype("Int64") if name == "n_threads" else values
    frame["speedup"] = _ratio(frame["runtime_seconds_before"], frame["runtime_seconds_after"])
    for change, name in CHANGE_COLUMNS.items():
        frame[change] = _change_percent(frame[f"{name}_before"].to_numpy(),
                                        frame[f"{name}_after"].to_numpy())
    for suffix in sides:
        frame[f"reason_{suffix}"] = sides[suffix]["reason"].to_numpy(dtype=object)
    return frame


def _ratio(numerator, denominator) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(numerator, dtype=float) / np.asarray(denominator, dtype=float)


def _add_changes_vs_first(frame: pd.DataFrame, first: pd.DataFrame) -> None:
    """The ``after`` point of each row against the first run's point of the same key."""
    index = pd.MultiIndex.from_arrays([frame["region"], frame["rank"], frame["device"]])
    base = first.reindex(index)
    frame["speedup_vs_first"] = _ratio(base[schema.RUNTIME], frame["runtime_seconds_after"])
    for change, name in CHANGE_COLUMNS.items():
        frame[change.replace("_percent", "_vs_first_percent")] = _change_percent(
            base[name].to_numpy(dtype=float), frame[f"{name}_after"].to_numpy())
