"""Memory levels: which metric measures the traffic of L1, L2, L3 and memory, and points per level.

LIKWID measures the levels in separate groups (``L2``, ``L3``, ``MEM``/``MEM_DP``,
``CACHES`` on Intel; ``L2``, ``L3``, ``MEM1``/``MEM2`` on Zen), usually in
separate runs of one program that :func:`~roofline_widget.read_likwid` joins by
rank, region and thread.  :func:`detect_levels` maps metric names to levels:
the *total* traffic of a level (``L2 bandwidth``, ``L1 to/from L2 bandwidth``,
``L3 access bandwidth``, ``Memory bandwidth``, ...), a load-only or evict-only
part only when no total was measured (with a note).  The traffic between two
levels belongs to the outer one: ``L1 to/from L2`` is L2 traffic, ``L2 to/from
L3`` is L3 traffic, ``L3 to/from system`` is memory traffic.

:func:`hierarchical_points` builds on :class:`~roofline_widget.points.RegionSums`
(sums over threads as everywhere else): one row per (file, rank, region,
level) with the same FLOP rate for every level of a region.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import RegionsLeftOutWarning
from roofline_widget.metric_names import LEVELS, LevelMetric, metric_level
from roofline_widget.points import (
    RegionSums,
    SelectedPoints,
    Selection,
    note_warning,
    selection_parameters,
)
from roofline_widget.settings.rules import level_metrics
from roofline_widget.units import UnitKind, parse_unit

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = [
    "LEVELS",
    "LevelSelection",
    "detect_levels",
    "hierarchical_left_out",
    "hierarchical_points",
    "metric_level",
    "select_levels",
]

LEVEL_DTYPE = pd.CategoricalDtype(list(LEVELS), ordered=True)

_CHANNELS = re.compile(r"\(channels (\d+)-(\d+)\)")


def _channel_width(name: str) -> int:
    match = _CHANNELS.search(name)
    return 0 if match is None else int(match[2]) - int(match[1]) + 1


def detect_levels(names, levels: dict | None = None) -> tuple[dict[str, str], list[str]]:
    """One bandwidth metric per memory level.

    Parameters
    ----------
    names : iterable of str
        Metric names (non-bandwidth names are ignored).
    levels : dict, optional
        ``{"L2": "exact metric name", ...}`` overrides for some levels.

    Returns
    -------
    chosen : dict
        Level -> metric, inner to outer, only the levels measured.
    notes : list of str
        Why a choice may not be the one meant: several totals of one level,
        or only a load/evict part measured.

    Raises
    ------
    ValueError
        For an unknown level or a metric not among ``names`` (the message
        lists the valid ones).

    Examples
    --------
    >>> detect_levels(["L3 load bandwidth [MBytes/s]", "L3 bandwidth [MBytes/s]"])
    ({'L3': 'L3 bandwidth [MBytes/s]'}, [])
    """
    names = list(dict.fromkeys(names))
    overrides = level_metrics("levels", levels or {})
    bandwidths = [n for n in names if parse_unit(n).kind == UnitKind.BYTE_RATE]
    for level, metric in overrides.items():
        if metric not in bandwidths:
            raise ValueError(f"no bandwidth metric {metric!r} (given for {level}) in the data; "
                             f"bandwidth metrics: {bandwidths}")
    candidates: dict[str, list[LevelMetric]] = {}
    for name in bandwidths:
        found = metric_level(name)
        if found is not None:
            candidates.setdefault(found.level, []).append(found)
    chosen, notes = {}, []
    for level in LEVELS:
        if level in overrides:
            chosen[level] = overrides[level]
            continue
        options = candidates.get(level)
        if not options:
            continue
        best = min(options, key=lambda m: (m.tier, -_channel_width(m.name), bandwidths.index(m.name)))
        chosen[level] = best.name
        notes += _choice_notes(level, best, options)
    return chosen, notes


def _choice_notes(level: str, best: LevelMetric, options: list[LevelMetric]) -> list[str]:
    rivals = [m.name for m in options if m.tier == best.tier and m.name != best.name
              and _channel_width(m.name) == _channel_width(best.name)]
    notes = []
    if rivals:
        notes.append(f"{level}: several total-traffic metrics measured ({[best.name, *rivals]}); "
                     f"using {best.name!r}. Pass levels={{{level!r}: 'exact name'}} to choose another")
    if not best.total:
        part = "evict/write" if best.tier == 3 else "load/read"
        notes.append(f"{level}: no total traffic measured, only the {part} part {best.name!r}: "
                     "the intensity at this level is overstated")
    return notes


# --------------------------------------------------------------------------
# points per level
# --------------------------------------------------------------------------
_ORDER = ["file", "rank", "rank_group", "region", "level"]


@dataclass
class LevelSelection:
    """The points of every level of one selection, and what was left out.

    Attributes
    ----------
    points : pandas.DataFrame
        One row per (file, rank, region, level): ``file, rank, region,
        level`` (ordered categorical L1 < L2 < L3 < MEM), ``bandwidth_metric,
        bandwidth_gbs, performance_gflops, arithmetic_intensity_flops_per_byte,
        runtime_seconds, flops_metric, device, n_threads, call_count, groups,
        rank_group`` (the ranks a point sums: every level of a region sums
        the same ones).  Sorted by file, rank, rank group, region (order of
        appearance) and level, so the dots of one region are consecutive
        rows, inner level first.
    left_out : pandas.DataFrame
        ``file, rank, region, level, bandwidth_metric, bandwidth_gbs`` (NaN
        where not measured), ``reason``: a region/rank missing a level, or
        with no usable FLOP rate; ``rank_group``.
    levels : dict
        Level -> bandwidth metric used.
    flops_metric : str or None
    notes : list of str
        Remarks on the metric choices; :meth:`warn` emits them.
    """

    points: pd.DataFrame
    left_out: pd.DataFrame
    levels: dict
    flops_metric: str | None
    notes: list = field(default_factory=list)

    def warn(self, stacklevel: int = 3) -> None:
        """Emit the notes (MetricChoiceWarning) and one RegionsLeftOutWarning if rows were left out."""
        for note in self.notes:
            warnings.warn(note, note_warning(note), stacklevel=stacklevel)
        if len(self.left_out):
            counts = self.left_out.groupby("level", observed=True).size()
            summary = ", ".join(f"{level}: {count}" for level, count in counts.items())
            warnings.warn(f"{len(self.left_out)} (region, rank, level) row(s) left out of the "
                          f"hierarchical roofline ({summary}); see hierarchical_left_out() for "
                          "the reasons", RegionsLeftOutWarning, stacklevel=stacklevel)


def _with_level(frame: pd.DataFrame, level: str) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(frame.columns.get_loc("region") + 1, "level",
                 pd.Categorical([level] * len(frame), dtype=LEVEL_DTYPE))
    return frame


def _left_out_bandwidth(sums: RegionSums, selected: SelectedPoints, metric: str) -> np.ndarray:
    """The level's bandwidth (GB/s) of the left-out rows, NaN where not measured."""
    return selected.left_out_sums(metric) * sums.units[metric].to_giga


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=LEVEL_DTYPE if c == "level" else object)
                             for c in columns})
    out = pd.concat([f.astype({c: object for c in ("file", "region", "device", "device_family",
                                                   "device_name", "groups", "flops_metric",
                                                   "bandwidth_metric", "reason", "rank_group")
                               if c in f}) for f in frames], ignore_index=True)
    out["level"] = out["level"].astype(LEVEL_DTYPE)
    for name in ("file", "region", "rank_group"):
        out[name] = pd.Categorical(out[name], categories=list(dict.fromkeys(out[name])))
    codes = [out[c].cat.codes if c in ("file", "region", "level", "rank_group") else out[c]
             for c in _ORDER]
    order = np.lexsort([np.asarray(c) for c in reversed(codes)])
    return out.iloc[order].reset_index(drop=True)[columns]


_POINT_COLUMNS = ["file", "rank", "region", "level", "bandwidth_metric", schema.BANDWIDTH,
                  schema.PERFORMANCE, schema.INTENSITY, schema.RUNTIME,
                  "flops_metric", "device", "device_family", "device_name", "n_threads",
                  "call_count", "groups", "rank_group",
                  "thread_max_gflops", "thread_max_gbs", "thread_limit_gflops"]
_LEFT_OUT_COLUMNS = ["file", "rank", "region", "level", "bandwidth_metric", schema.BANDWIDTH,
                     "reason", "rank_group"]


@selection_parameters("selection", "flops_metric", "levels", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def select_levels(data: object, *, selection: Selection | None = None,
                  **keywords: Unpack[SelectionKeywords]) -> LevelSelection:
    """The points of every measured memory level, without warning (see :func:`hierarchical_points`).

    A ``selection``'s ``bandwidth_metric`` is not used: each level has its own.

    Parameters
    ----------
    data : LikwidRun, path, RegionSums, or a sequence of them
        As for :func:`hierarchical_points`.
    {selection_parameters}

    Raises
    ------
    ValueError
        For an unknown level or metric, or data without any level's bandwidth.
    """
    chosen = Selection.of(selection, **keywords)
    sums = RegionSums.from_runs(data)
    metrics, notes = detect_levels(sums.bandwidth_metrics, chosen.level_overrides)
    if not metrics:
        raise ValueError("no bandwidth metric of a memory level (L1, L2, L3, MEM) in the data; "
                         f"bandwidth metrics: {sums.bandwidth_metrics}")
    points, left_out = [], []
    for level, metric in metrics.items():
        # every level of a region sums the same ranks: any level counted on some ranks
        # only groups them all
        selected = sums.select(replace(chosen, bandwidth_metric=metric),
                               uncore_metrics=tuple(metrics.values()))
        chosen = replace(chosen, flops_metric=selected.flops_metric)
        notes += [n for n in selected.notes if n not in notes]
        points.append(_with_level(selected.points, level))
        left = _with_level(selected.left_out, level)
        left["bandwidth_metric"] = metric
        left[schema.BANDWIDTH] = _left_out_bandwidth(sums, selected, metric) if len(left) else []
        left_out.append(left)
    return LevelSelection(_concat(points, _POINT_COLUMNS), _concat(left_out, _LEFT_OUT_COLUMNS),
                          metrics, chosen.flops_metric, notes)


@selection_parameters("selection", "flops_metric", "levels", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def hierarchical_points(data: object, *, selection: Selection | None = None,
                        **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Roofline points at every memory level: one row per (file, rank, region, level).

    Parameters
    ----------
    data : LikwidRun, path, RegionSums, or a sequence of them
        For example the L2, L3 and MEM_DP runs of one program.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        See :attr:`LevelSelection.points`.  ``performance_gflops`` is the same
        for every level of a region; the bandwidth is the level's traffic
        summed over threads (the socket totals for memory).

    Warns
    -----
    MetricChoiceWarning
        When a level's metric is ambiguous or only a part of the traffic.
    RegionsLeftOutWarning
        When a region lacks a level; :func:`hierarchical_left_out` lists them.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> points = hierarchical_points(sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"))
    >>> list(points["level"].unique())
    ['MEM']
    """
    chosen = select_levels(data, selection=selection, **keywords)
    chosen.warn()
    return chosen.points


@selection_parameters("selection", "flops_metric", "levels", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def hierarchical_left_out(data: object, *, selection: Selection | None = None,
                          **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """The (region, rank, level) rows :func:`hierarchical_points` could not place, with the reason.

    Parameters
    ----------
    data : LikwidRun, path, RegionSums, or a sequence of them
        As for :func:`hierarchical_points`.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        See :attr:`LevelSelection.left_out` for the columns.
    """
    return select_levels(data, selection=selection, **keywords).left_out
