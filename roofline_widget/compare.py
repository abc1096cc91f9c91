"""Compare runs: the same regions before and after a change, or along a chain of runs.

:func:`compare_points` matches the points of two runs (or of consecutive runs
of a chain: a thread-scaling series, ``{"give": a, "take": b}``) by region
name and rank and reports, per matched pair, both points and how they changed.
Speed-up (from runtimes) and the GFLOP/s change are reported side by side: a
rewrite that does fewer FLOPs can be faster at a lower FLOP rate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .points import RegionSums

BOTH, ONLY_BEFORE, ONLY_AFTER = "both", "only before", "only after"
STATUSES = (BOTH, ONLY_BEFORE, ONLY_AFTER)
VALUE_COLUMNS = ("performance_gflops", "bandwidth_gbs", "arithmetic_intensity_flops_per_byte",
                 "runtime_seconds")
_CHANGES = {"performance_change_percent": "performance_gflops",
            "intensity_change_percent": "arithmetic_intensity_flops_per_byte",
            "bandwidth_change_percent": "bandwidth_gbs"}


@dataclass(frozen=True)
class RunPoints:
    """The placed and left-out points of one run, keyed by (matched region, rank)."""

    label: str
    points: pd.DataFrame
    left_out: pd.DataFrame
    flops_metric: str | None
    bandwidth_metric: str | None


def _renamer(match) -> Callable[[str], str]:
    if match is None:
        return lambda name: name
    if isinstance(match, Mapping):
        return lambda name: match.get(name, name)
    if callable(match):
        return match
    raise TypeError(f"match must be a dict or a callable, got {type(match).__name__}")


def _run_points(data, label: str, rename, selection: dict) -> RunPoints:
    chosen = RegionSums.from_runs(data).select(**selection)
    frames = []
    for frame, columns in ((chosen.points, list(VALUE_COLUMNS)), (chosen.left_out, ["reason"])):
        frame = frame[["region", "rank", *columns]].copy()
        frame["region"] = frame["region"].astype(str)
        frame.insert(0, "matched_region", frame["region"].map(rename).astype(str))
        frames.append(frame)
    points, left_out = frames
    keys = pd.concat([points, left_out])[["matched_region", "rank"]]
    repeated = keys[keys.duplicated()]
    if len(repeated):
        region, rank = repeated.iloc[0]
        raise ValueError(f"run {label!r} has region {region!r} rank {rank} more than once (several "
                         "files of one run for the same rank, or match= maps two regions onto one); "
                         "compare one measurement per region and rank")
    return RunPoints(label, points, left_out, chosen.flops_metric, chosen.bandwidth_metric)


def _percent_change(before: pd.Series, after: pd.Series) -> pd.Series:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (after / before - 1.0) * 100.0


def _pair(first: RunPoints, second: RunPoints) -> pd.DataFrame:
    """One row per (region, rank) found in either run, both points side by side."""
    def side(run: RunPoints, suffix: str) -> pd.DataFrame:
        placed = run.points.rename(columns={"region": "region"})
        reasons = run.left_out.rename(columns={"reason": "left_out_reason"})
        frame = pd.concat([placed, reasons], ignore_index=True)
        return frame.rename(columns={c: f"{c}{suffix}" for c in frame.columns
                                     if c not in ("matched_region", "rank")})

    merged = side(first, "_before").merge(side(second, "_after"), on=["matched_region", "rank"],
                                          how="outer", sort=False)
    present_before = merged["region_before"].notna()
    present_after = merged["region_after"].notna()
    merged.insert(2, "status", np.where(present_before & present_after, BOTH,
                                        np.where(present_before, ONLY_BEFORE, ONLY_AFTER)))
    merged.insert(0, "run_before", first.label)
    merged.insert(1, "run_after", second.label)
    merged = merged.rename(columns={"matched_region": "region"})
    merged["speedup"] = merged["runtime_seconds_before"] / merged["runtime_seconds_after"]
    for change, column in _CHANGES.items():
        merged[change] = _percent_change(merged[f"{column}_before"], merged[f"{column}_after"])
    merged["status"] = pd.Categorical(merged["status"], categories=STATUSES)
    return merged


def _chain(before, after) -> list[tuple[str, object]]:
    if after is not None:
        return [("before", before), ("after", after)]
    if isinstance(before, Mapping):
        runs = [(str(label), data) for label, data in before.items()]
    elif isinstance(before, (list, tuple)):
        runs = [(f"run {i + 1}", data) for i, data in enumerate(before)]
    else:
        raise TypeError("compare_points(before, after) compares two runs; for a chain pass one "
                        "ordered mapping or list of runs and no 'after'")
    if len(runs) < 2:
        raise ValueError(f"a chain needs at least two runs, got {len(runs)}")
    return runs


def compare_points(before, after=None, *, flops_metric: str | None = None,
                   bandwidth_metric: str | None = None, ranks=None, include=None, exclude=None,
                   combine_ranks: bool = False, match=None) -> pd.DataFrame:
    """Match the points of two runs (or of a chain of runs) and report the changes.

    Parameters
    ----------
    before, after : run data
        Anything :func:`~roofline_widget.points_dataframe` accepts (a
        :class:`~roofline_widget.LikwidRun`, a path, scope-profiler results, a
        list of these merged into one run).  With ``after`` omitted, ``before``
        is a chain: an ordered mapping ``{label: run}`` or a list of runs (one
        item per run), compared step by step (each run against the previous one).
    flops_metric, bandwidth_metric : str, optional
        Exact metric names.  When omitted they are detected on the FIRST run and
        the same names are used for every run, so both points of a row always
        measure the same thing; a run without them has its regions left out
        (``left_out_reason_*`` says why), never silently compared.
    ranks, include, exclude, combine_ranks
        Applied to every run, as in :func:`~roofline_widget.points_dataframe`.
    match : dict or callable, optional
        Maps a region name (of any run) to the name it is matched by, for
        renamed regions: ``{"Solve_old": "Solve"}`` or ``str.lower``.

    Returns
    -------
    pandas.DataFrame
        One row per step (``run_before`` -> ``run_after``; for two runs the
        labels ``"before"``/``"after"``) and (matched ``region``, ``rank``)
        found in either run: ``status`` (``"both"``, ``"only before"``,
        ``"only after"``), the region names as printed (``region_before``,
        ``region_after``), ``performance_gflops``, ``bandwidth_gbs``,
        ``arithmetic_intensity_flops_per_byte`` and ``runtime_seconds`` suffixed
        ``_before``/``_after``, ``left_out_reason_before``/``_after`` (a region
        present but not placeable), ``speedup`` (runtime before / runtime
        after), ``performance_change_percent``, ``intensity_change_percent``,
        ``bandwidth_change_percent``, ``flops_metric`` and ``bandwidth_metric``.
        Regions missing from one run have NaN on that side.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> table = compare_points(
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"))
    >>> table[["region", "status", "speedup"]].round(3).to_string(index=False)
    'region status  speedup\\n Setup   both    0.713\\n Solve   both    2.251'
    """
    runs = _chain(before, after)
    rename = _renamer(match)
    selection = {"flops_metric": flops_metric, "bandwidth_metric": bandwidth_metric,
                 "ranks": ranks, "include": include, "exclude": exclude,
                 "combine_ranks": combine_ranks}
    first_label, first_data = runs[0]
    first = _run_points(first_data, first_label, rename, selection)
    selection.update(flops_metric=first.flops_metric, bandwidth_metric=first.bandwidth_metric)
    computed = [first] + [_run_points(data, label, rename, selection) for label, data in runs[1:]]
    steps = [_pair(a, b) for a, b in zip(computed, computed[1:])]
    table = pd.concat(steps, ignore_index=True)
    table["flops_metric"] = first.flops_metric
    table["bandwidth_metric"] = first.bandwidth_metric
    return table
