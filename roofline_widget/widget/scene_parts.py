"""The layers of one widget's scene, each worked out again only when what it depends on changes.

:class:`SceneParts` keeps, per selection of points, the comparison with the
baseline runs (:mod:`roofline_widget.scene.compare`), the memory levels' rows
and the findings that ignore the roofs (:mod:`roofline_widget.scene.levels`),
the rank spread (:mod:`roofline_widget.scene.spread`), and the colours of the
widget's ``color_by``: a peak drag reruns no comparison, no level selection,
no ``sanity_check`` and no ``rank_spread``, only the ``above roof`` check
when the measured roofs changed.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.analysis.compare_summary import before_points
from roofline_widget.analysis.sanity import checkable_roofs
from roofline_widget.ceilings import Roofline
from roofline_widget.look.colors import PALETTE
from roofline_widget.scene.build import scene_extent
from roofline_widget.scene.compare import (
    baseline_runs,
    compare_part,
    comparison_frame,
    shown_rows,
)
from roofline_widget.scene.levels import LevelRows, level_findings, level_rows, levels_part
from roofline_widget.scene.parts import Coloring, ComparePart, LevelsPart, Scene, SpreadPart
from roofline_widget.scene.spread import (
    effective_view,
    expanded_points,
    rank_spread_rows,
    spread_part,
)
from roofline_widget.widget.point_style import COLOR_COLUMN, color_categories
from roofline_widget.widget.state import PointState

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["SceneParts"]


class SceneParts:
    """The comparison, levels and spread of one widget's scene, and their inputs kept.

    Parameters
    ----------
    owner : RooflineWidget
        The widget whose traits (``levels``, ``rank_view``, ``expanded_regions``,
        ``color_by``, ...) and sums are read.

    Attributes
    ----------
    runs : list of (str, RegionSums)
        The baseline runs in chain order (empty: no baseline).
    last_extent : (numpy.ndarray, numpy.ndarray)
        What the axes hold besides the points, of the parts last composed.
    """

    def __init__(self, owner: RooflineWidget) -> None:
        self.owner = owner
        self.runs: list = []
        self.match = None
        self.last_extent: tuple = (np.zeros(0), np.zeros(0))
        self._coloring: tuple | None = None
        self._compared: tuple | None = None     # (points, runs, frame, error, notes)
        self._comparison: tuple | None = None   # (compared, coloring, part)
        self._rows: tuple | None = None         # (points, levels, budget, LevelRows)
        self._findings: tuple | None = None     # (rows, roofs, findings)
        self._levels: tuple | None = None       # (rows, findings, coloring, part)
        self._spread: tuple | None = None       # (points frame, rank_spread rows)

    def set_baseline(self, baseline, match=None) -> None:
        """The baseline (run data, ``{label: run}`` chain, or None) the arrows start from.

        Raises
        ------
        ValueError
            For a baseline :func:`~roofline_widget.scene.compare.baseline_runs` refuses
            (nothing is changed).
        """
        self.runs = baseline_runs(baseline) if baseline is not None else []
        self.match = match

    def coloring(self) -> Coloring:
        """The points' colours: every value ``color_by`` takes in the data, on the palette."""
        owner = self.owner
        key = (owner.color_by, bool(owner.combine_ranks))
        if self._coloring is None or self._coloring[0] != key:
            categories = color_categories(owner.sums, owner.color_by, owner.combine_ranks)
            self._coloring = (key, Coloring(COLOR_COLUMN[owner.color_by], tuple(categories),
                                            PALETTE))
        return self._coloring[1]

    # ------------------------------------------------------------ the comparison
    def _compare(self, points: PointState) -> tuple:
        """(points, runs, frame, error, notes) of the selection, compared once per selection."""
        done = self._compared
        if done is not None and done[0] is points and done[1] is self.runs:
            return done
        frame, error, notes = pd.DataFrame(), "", []
        if self.runs and points.selection is not None:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    frame = comparison_frame(self.runs, self.owner.sums,
                                             selection=points.selection, match=self.match)
                notes = list(dict.fromkeys(str(w.message) for w in caught))
                frame = shown_rows(frame, points.points, points.shown)
            except (ValueError, TypeError) as exc:
                frame, error = pd.DataFrame(), str(exc)
        self._compared = (points, self.runs, frame, error, notes)
        return self._compared

    def comparison(self, points: PointState) -> ComparePart | None:
        """The baseline's arrows and points for ``points`` (None without a baseline)."""
        if not self.runs:
            return None
        compared, coloring = self._compare(points), self.coloring()
        done = self._comparison
        if done is None or done[0] is not compared or done[1] is not coloring:
            _points, runs, frame, error, notes = compared
            part = compare_part(frame, [label for label, _ in runs], coloring, error=error,
                                notes=notes)
            self._comparison = done = (compared, coloring, part)
        return done[2]

    def baseline_points(self) -> pd.DataFrame | None:
        """The baseline runs' points compared last (for the empirical roofs), None for none."""
        if not self.runs or self._compared is None or self._compared[2].empty:
            return None
        points = before_points(self._compared[2])
        return None if points.empty else points

    # ------------------------------------------------------------ the levels
    def levels(self, points: PointState, roofline: Roofline | None,
               budget: int) -> LevelsPart | None:
        """The levels shown, their findings against ``roofline``'s measured roofs (None: none)."""
        levels = tuple(self.owner.levels or ())
        if not levels or points.selection is None:
            self._rows = self._findings = self._levels = None
            return None
        done = self._rows
        if done is None or done[0] is not points or done[1] != levels or done[2] != budget:
            self._rows = done = (points, levels, budget, level_rows(
                self.owner.sums, levels, selection=points.selection, max_groups=budget))
        rows: LevelRows = done[3]
        roofs = checkable_roofs(roofline)
        key = None if roofs is None else (roofs.compute, roofs.bandwidth)
        found = self._findings
        if found is None or found[0] is not rows or found[1] != key:
            self._findings = found = (rows, key, level_findings(rows, roofline))
        coloring = self.coloring()
        drawn = self._levels
        if drawn is None or drawn[0] is not rows or drawn[1] is not found[2] \
                or drawn[2] is not coloring:
            self._levels = drawn = (rows, found[2], coloring,
                                    levels_part(rows, found[2], coloring))
        return drawn[3]

    # ------------------------------------------------------------ the spread
    def spread(self, points: PointState, budget: int) -> tuple[SpreadPart | None, PointState]:
        """The spread view's part and the points drawn beside it (the expanded regions' ranks).

        In the points view: None and ``points`` as they are.
        """
        owner = self.owner
        view = effective_view(owner.rank_view, len(points.points), budget, len(owner.sums.ranks),
                              bool(owner.combine_ranks))
        if view != "spread" or points.selection is None:
            return None, points
        done = self._spread
        if done is None or done[0] is not points.points:
            self._spread = done = (points.points, rank_spread_rows(owner.sums, points.selection))
        notes = ([f"rank_view='auto': {len(points.points):,} points exceed "
                  f"max_points={budget:,}"] if owner.rank_view == "auto" else [])
        part = spread_part(done[1], budget, notes)
        shown, note = expanded_points(points.points, owner.expanded_regions, budget,
                                      len(part.spread))
        part = replace(part, notes=(*part.notes, note))
        return part, replace(points, shown=shown)

    # ------------------------------------------------------------ the scene
    def extent(self, levels: LevelsPart | None, comparison: ComparePart | None,
               spread: SpreadPart | None) -> tuple[np.ndarray, np.ndarray]:
        """What the axes hold besides the points (kept as :attr:`last_extent`)."""
        self.last_extent = scene_extent(levels, comparison, spread)
        return self.last_extent

    def recoloured(self, scene: Scene) -> dict:
        """The layers of ``scene`` in the widget's colours now (``color_by`` changed)."""
        points = self._compared[0] if self._compared is not None else None
        levels = (self.levels(self._rows[0], scene.roofline, self._rows[2])
                  if self._rows is not None and scene.levels is not None else scene.levels)
        comparison = (self.comparison(points) if points is not None
                      and scene.comparison is not None else scene.comparison)
        return {"levels": levels, "comparison": comparison}
