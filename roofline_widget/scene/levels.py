"""Memory levels in a scene: a dot per level, a line joining a region's dots, rings over findings.

A region/rank measured at several memory levels (L2, L3 and memory traffic,
:mod:`roofline_widget.analysis.levels`) has one intensity per level and one
FLOP rate.  :func:`level_rows` selects the rows of the levels shown (the
longest-running regions within a budget), :func:`level_findings` runs
:func:`~roofline_widget.sanity_check` on them against the measured (not
empirical) roofs, and :func:`levels_part` makes the marks: one marker per
level (``look.markers.LEVEL_MARKERS``), the dots of one region/rank joined by
a thin line in its colour, a ring (:data:`~roofline_widget.look.colors.FINDING_COLOR`)
over every dot with a finding.

The findings come in two parts: the checks that do not depend on the roofs
(intensity order, uncore on one socket) once per selection
(:attr:`LevelRows.base_findings`), the ``above roof`` check again when the
roofs change: a peak drag in the widget reruns no ``sanity_check``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.levels import LEVELS, LevelSelection, detect_levels, select_levels
from roofline_widget.analysis.sanity import (
    above_roof_findings,
    checkable_roofs,
    flagged_points,
    merge_findings,
    sanity_check,
)
from roofline_widget.errors import SettingError
from roofline_widget.look.colors import FINDING_COLOR
from roofline_widget.look.markers import (
    CIRCLE,
    FINDING_RING,
    JOIN_STROKE,
    LEVEL_DOT,
    LEVEL_MARKERS,
    RING_STROKE,
)
from roofline_widget.points import RegionSums, Selection
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.scene.parts import Coloring, Dots, LevelsPart, Polylines
from roofline_widget.settings import check
from roofline_widget.settings.rules import levels_in_data

__all__ = [
    "FINDING_GID",
    "LEVEL_GID",
    "LevelRows",
    "available_levels",
    "level_findings",
    "level_rows",
    "levels_part",
    "limit_groups",
    "shown_findings",
]

#: Name (matplotlib ``gid``) of a level's dots, formatted with the level.
LEVEL_GID = "roofline-level-{}"
#: Name of the rings over the level dots with a sanity finding.
FINDING_GID = "roofline-level-findings"
_KEY = ["file", "rank", "region"]
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


def available_levels(bandwidth_metrics) -> list[str]:
    """The memory levels measured in data with these bandwidth metrics, inner to outer."""
    chosen, _notes = detect_levels(bandwidth_metrics)
    return [level for level in LEVELS if level in chosen]


def limit_groups(frame: pd.DataFrame, max_groups: int) -> pd.DataFrame:
    """The rows of the ``max_groups`` longest-running (file, rank, region) groups, order kept."""
    keys = pd.MultiIndex.from_frame(frame[_KEY].astype({"file": str, "region": str}))
    groups = pd.unique(keys)
    if len(groups) <= max_groups:
        return frame
    runtime = frame.groupby([keys.get_level_values(i) for i in range(3)], sort=False)[
        schema.RUNTIME].max()
    kept = runtime.sort_values(ascending=False, kind="stable").index[:max_groups]
    return frame[keys.isin(kept)]


def shown_findings(findings: pd.DataFrame, levels) -> pd.DataFrame:
    """The findings of the shown ``levels``, and those of whole regions (no level)."""
    level = findings["level"]
    keep = level.isna() | level.astype(str).isin(list(levels))
    return findings[keep.to_numpy()].reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class LevelRows:
    """The level points of one selection: every level's, and the rows of the levels shown.

    Attributes
    ----------
    sums : RegionSums
    selection : Selection
        The points' selection (its bandwidth metric unused: each level has its own).
    chosen : LevelSelection
        :func:`~roofline_widget.analysis.levels.select_levels` of the selection.
    levels : tuple of str
        The levels shown.
    frame : pandas.DataFrame
        The rows drawn (the levels shown, within the budget), index reset.
    """

    sums: RegionSums
    selection: Selection
    chosen: LevelSelection
    levels: tuple[str, ...]
    frame: pd.DataFrame

    @cached_property
    def base_findings(self) -> pd.DataFrame:
        """The findings of the checks that ignore the roofs (worked out once)."""
        return sanity_check(self.sums, ceilings=None, selection=self.selection)


def level_rows(sums: RegionSums, levels, *, selection: Selection, max_groups: int | None = None,
               strict: int = 0) -> LevelRows:
    """The rows of the memory ``levels`` for ``selection``.

    Parameters
    ----------
    sums : RegionSums
    levels : sequence of str
        ``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``.
    selection : Selection
    max_groups : int, optional
        Draw at most this many (file, rank, region) groups, the longest-running.
    strict : int
        Not 0: raise for a level not measured or levels without a placed point,
        and warn about the rows left out (a static plot), the warnings naming the
        caller ``strict`` frames up; 0: show what there is.

    Raises
    ------
    SettingError
        (a ``ValueError``; ``strict``) For a level that is none of L1, L2, L3,
        MEM (the ``levels`` setting's rule), or one not measured in the data.
    ValueError
        (``strict``) When no point is placed.
    """
    levels = tuple(check("levels", levels) if strict else levels)
    chosen = select_levels(sums, selection=selection)
    if strict:
        problem = levels_in_data(levels, [level for level in LEVELS if level in chosen.levels])
        if problem:
            raise SettingError(problem)
        chosen.left_out = chosen.left_out[chosen.left_out["level"].astype(str).isin(levels)]
        chosen.warn(stacklevel=strict + 1)
    frame = chosen.points[chosen.points["level"].astype(str).isin(levels)]
    if max_groups is not None:
        frame = limit_groups(frame, max(max_groups, 1))
    if strict and frame.empty:
        raise ValueError(f"no point of the levels {list(levels)} could be placed; see "
                         "hierarchical_left_out() for the reasons")
    return LevelRows(sums, selection, chosen, levels, frame.reset_index(drop=True))


def level_findings(rows: LevelRows, roofline: Roofline | None, *,
                   ceiling_checks: bool = False) -> pd.DataFrame:
    """:func:`~roofline_widget.sanity_check` of the shown levels against ``roofline``'s measured roofs.

    The roof-free checks are ``rows.base_findings`` (kept while the selection
    stays); the roofs are :func:`~roofline_widget.analysis.sanity.checkable_roofs`.
    ``ceiling_checks``: also the checks of the roofs themselves (a level roof
    that may not bound its level, a run of another machine), which the widget
    reports in its status line instead.
    """
    roofs = checkable_roofs(roofline)
    if ceiling_checks:
        found = sanity_check(rows.sums, ceilings=roofs, selection=rows.selection)
    else:
        found = merge_findings(rows.base_findings, above_roof_findings(rows.chosen.points, roofs))
    return shown_findings(found, rows.levels)


def _join_lines(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, first row) of one line per (file, rank, region) with two or more dots.

    The rows of one group are consecutive (inner level first); shorter lines
    are padded with their last vertex, so that a line mark gets rectangular arrays.
    """
    empty = np.zeros((0, 2))
    if frame.empty:
        return empty, empty, np.zeros(0, dtype=int)
    keys = frame[_KEY].astype({"file": str, "region": str})
    starts = np.flatnonzero((keys != keys.shift()).any(axis=1).to_numpy())
    ends = np.append(starts[1:], len(frame))
    keep = (ends - starts) >= 2
    starts, ends = starts[keep], ends[keep]
    if not len(starts):
        return empty, empty, starts
    width = int((ends - starts).max())
    xs, ys = frame[_X].to_numpy(dtype=float), frame[_Y].to_numpy(dtype=float)
    index = np.minimum(starts[:, None] + np.arange(width)[None, :], ends[:, None] - 1)
    return xs[index], ys[index], starts


def levels_part(rows: LevelRows, findings: pd.DataFrame, coloring: Coloring) -> LevelsPart:
    """The marks of the levels shown: dots per level, joins and rings, coloured as the points."""
    frame = rows.frame
    codes = coloring.codes(coloring.keys(frame))
    level_of = frame["level"].astype(str).to_numpy()
    metrics = frame.groupby(level_of, sort=False)["bandwidth_metric"].first()
    dots = {}
    for level in LEVELS:
        mask = level_of == level
        shown = level in rows.levels and bool(mask.any())
        dots[level] = Dots(LEVEL_GID.format(level), frame[_X].to_numpy(dtype=float)[mask],
                           frame[_Y].to_numpy(dtype=float)[mask], LEVEL_MARKERS[level], LEVEL_DOT,
                           codes=codes[mask], rows=frame[mask].reset_index(drop=True), z=5,
                           legend=f"{level}: {metrics[level]}" if shown else "")
    x, y, starts = _join_lines(frame)
    joins = Polylines("roofline-level-joins", x, y, tuple(coloring.colors(codes[starts])),
                      stroke=JOIN_STROKE, opacity=0.7, z=4)
    flagged = flagged_points(frame, findings)
    rings = Dots(FINDING_GID, flagged[_X].to_numpy(dtype=float),
                 flagged[_Y].to_numpy(dtype=float), CIRCLE, FINDING_RING,
                 colors=(FINDING_COLOR,), hollow=True, stroke=RING_STROKE, z=6, rows=flagged,
                 legend=f"sanity finding ({len(flagged)})" if len(flagged) else "")
    return LevelsPart(rows.levels, dots, joins, rings, frame, findings, rows.chosen.left_out)
