"""The layers of one widget's scene, each worked out again only when what it depends on changes.

:class:`SceneParts` keeps, per selection of points, the comparison with the
baseline runs (:mod:`roofline_widget.scene.compare`), the memory levels' rows
and the findings that ignore the roofs (:mod:`roofline_widget.scene.levels`),
the rank spread (:mod:`roofline_widget.scene.spread`), a chain of runs as a
sweep (:mod:`roofline_widget.scene.sweep`: its runs' points selected again
only when the selection or the grouping changes, a step change only rings
other points), and the colours of the
widget's ``color_by``: a peak drag reruns no comparison, no level selection,
no ``sanity_check`` and no ``rank_spread``, only the ``above roof`` check
when the measured roofs changed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.analysis.compare_summary import before_points
from roofline_widget.analysis.sanity import checkable_roofs
from roofline_widget.io.chain import FileChain
from roofline_widget.look.colors import PALETTE
from roofline_widget.points import RegionSums
from roofline_widget.roofs.roofline import Roofline
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
    region_spread,
    spread_part,
)
from roofline_widget.scene.sweep import SweepPart, SweepRuns, sweep_part, sweep_rows, with_step
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
        self._kept: dict[str, tuple] = {}  # what each part was worked out from, and it
        self._compared: tuple | None = None    # (points, (frame, error, notes))
        self._levels_of: tuple | None = None   # (points, budget) of the levels shown

    def _keep(self, name: str, inputs: tuple, make: Callable):
        """The value ``make()`` gave for the same ``inputs`` (each the same object, or equal), kept."""
        kept = self._kept.get(name)
        if kept is None or len(kept[0]) != len(inputs) or not all(
                a is b or (type(a) is tuple and _equal(a, b)) for a, b in zip(kept[0], inputs)):
            kept = self._kept[name] = (inputs, make())
        return kept[1]

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
        return self._keep("coloring", ((owner.color_by, bool(owner.combine_ranks)),),
                          lambda: Coloring(COLOR_COLUMN[owner.color_by], tuple(color_categories(
                              owner.sums, owner.color_by, owner.combine_ranks)), PALETTE))

    # ------------------------------------------------------------ the comparison
    def _compare(self, points: PointState) -> tuple:
        """(frame, error, notes) of the selection's comparison (once per selection and baseline)."""
        def compare() -> tuple:
            if not self.runs or points.selection is None:
                return pd.DataFrame(), "", []
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    frame = comparison_frame(self.runs, self.owner.sums,
                                             selection=points.selection, match=self.match)
                return (shown_rows(frame, points.points, points.shown), "",
                        list(dict.fromkeys(str(w.message) for w in caught)))
            except (ValueError, TypeError) as exc:
                return pd.DataFrame(), str(exc), []

        self._compared = (points, self._keep("compared", (points, self.runs), compare))
        return self._compared[1]

    def comparison(self, points: PointState) -> ComparePart | None:
        """The baseline's arrows and points for ``points`` (None without a baseline)."""
        if not self.runs:
            return None
        compared, coloring = self._compare(points), self.coloring()
        labels = [label for label, _ in self.runs]
        return self._keep("comparison", (compared, coloring), lambda: compare_part(
            compared[0], labels, coloring, error=compared[1], notes=compared[2]))

    def comparison_rows(self, points: PointState) -> pd.DataFrame:
        """The comparison rows of ``points`` with the baseline (drawn or not: a sweep draws none).

        Raises
        ------
        ValueError
            Without a baseline, or when it cannot be compared (the message says why).
        """
        if not self.runs:
            raise ValueError("this widget has no baseline: RooflineWidget(data, "
                             "baseline=before) or widget.baseline = before")
        frame, error, _notes = self._compare(points)
        if error:
            raise ValueError(f"the baseline cannot be compared: {error}")
        return frame.reset_index(drop=True)

    def baseline_points(self) -> pd.DataFrame | None:
        """The baseline runs' points compared last (for the empirical roofs), None for none."""
        if not self.runs or self._compared is None or self._compared[1][0].empty:
            return None
        points = before_points(self._compared[1][0])
        return None if points.empty else points

    # ------------------------------------------------------------ the levels
    def levels(self, points: PointState, roofline: Roofline | None,
               budget: int) -> LevelsPart | None:
        """The levels shown, their findings against ``roofline``'s measured roofs (None: none)."""
        levels, selection = tuple(self.owner.levels or ()), points.selection
        if not levels or selection is None:
            self._levels_of = None
            return None
        rows: LevelRows = self._keep("rows", (points, levels, (budget,)), lambda: level_rows(
            self.owner.sums, levels, selection=selection, max_groups=budget))
        roofs = checkable_roofs(roofline)
        key = () if roofs is None else (tuple(roofs.compute), tuple(roofs.bandwidth))
        findings = self._keep("findings", (rows, key), lambda: level_findings(rows, roofline))
        coloring = self.coloring()
        self._levels_of = (points, budget)
        return self._keep("levels", (rows, findings, coloring),
                          lambda: levels_part(rows, findings, coloring))

    # ------------------------------------------------------------ the spread
    def spread(self, points: PointState, budget: int) -> tuple[SpreadPart | None, PointState]:
        """The spread view's part and the points drawn beside it (the expanded regions' ranks).

        In the points view: None and ``points`` as they are.
        """
        owner = self.owner
        view = effective_view(owner.rank_view, len(points.points), budget, len(owner.sums.ranks),
                              bool(owner.combine_ranks))
        selection = points.selection
        if view != "spread" or selection is None:
            return None, points
        spread = self._keep("spread", (points.points,),
                            lambda: region_spread(owner.sums, selection))
        notes = ([f"rank_view='auto': {len(points.points):,} points exceed "
                  f"max_points={budget:,}"] if owner.rank_view == "auto" else [])
        part = spread_part(spread, budget, notes)
        shown, note = expanded_points(points.points, owner.expanded_regions, budget,
                                      len(part.spread))
        part = replace(part, notes=(*part.notes, note))
        return part, replace(points, shown=shown)

    # ------------------------------------------------------------ the sweep
    def sweep_runs(self) -> SweepRuns | None:
        """The chain's runs grouped by ``group_runs_by`` (None: no chain drawn).

        Raises
        ------
        ValueError
            For a ``group_runs_by`` the runs do not differ in.
        """
        owner = self.owner
        if not owner.chain_shown or owner.file_chain is None:
            return None
        sums = self._sweep_sums(owner.file_chain)
        return self._keep("sweep_runs", (sums, (owner.group_runs_by,)), lambda: SweepRuns.of(
            sums.runs, sums.files, owner.group_runs_by or None))

    def _sweep_sums(self, chain: FileChain) -> RegionSums:
        return self._keep("sweep_sums", (chain,), lambda: RegionSums.from_runs(list(chain.runs)))

    def sweep(self, points: PointState) -> SweepPart | None:
        """The chain of runs as a sweep for ``points``' selection (None: no chain drawn).

        Raises
        ------
        ValueError
            For a ``sweep_step`` or ``group_runs_by`` the runs do not have.
        """
        runs, selection, chain = self.sweep_runs(), points.selection, self.owner.file_chain
        if runs is None or selection is None or chain is None:
            return None
        sums = self._sweep_sums(chain)
        rows = self._keep("sweep_rows", (runs, (selection,)), lambda: sweep_rows(
            sums.select(selection).points, runs))
        return self._coloured_sweep(rows, runs)

    def _coloured_sweep(self, rows: pd.DataFrame, runs: SweepRuns) -> SweepPart:
        """The sweep of ``rows`` in the widget's colours, its ``sweep_step`` ringed."""
        coloring = self.coloring()
        part = self._keep("sweep", (rows, coloring), lambda: sweep_part(rows, runs, coloring))
        return with_step(part, self.owner.sweep_step, coloring)

    def stepped(self, part: SweepPart | None) -> SweepPart | None:
        """``part`` with the widget's ``sweep_step`` ringed (None: no sweep drawn; the step
        must then be -1, the default).

        Raises
        ------
        ValueError
            For a step the sweep does not have, or any but -1 without a sweep.
        """
        if part is None:
            if self.owner.sweep_step != -1:
                raise ValueError("sweep_step rings the runs of a chain drawn as a sweep; "
                                 "this widget draws none")
            return None
        return with_step(part, self.owner.sweep_step, self.coloring())

    # ------------------------------------------------------------ the scene
    def extent(self, levels: LevelsPart | None, comparison: ComparePart | None,
               spread: SpreadPart | None,
               sweep: SweepPart | None = None) -> tuple[np.ndarray, np.ndarray]:
        """What the axes hold besides the points (kept as :attr:`last_extent`)."""
        self.last_extent = scene_extent(levels, comparison, spread, sweep)
        return self.last_extent

    def recoloured(self, scene: Scene) -> dict:
        """The layers of ``scene`` in the widget's colours now (``color_by`` changed)."""
        points = self._compared[0] if self._compared is not None else None
        levels = (self.levels(self._levels_of[0], scene.roofline, self._levels_of[1])
                  if self._levels_of is not None and scene.levels is not None else scene.levels)
        comparison = (self.comparison(points) if points is not None
                      and scene.comparison is not None else scene.comparison)
        sweep, runs = scene.sweep, self.sweep_runs()
        if sweep is not None and runs is not None:
            sweep = self._coloured_sweep(sweep.frame, runs)
        return {"levels": levels, "comparison": comparison, "sweep": sweep}


def _equal(a: tuple, b: tuple) -> bool:
    """Whether two tuples of values are equal (those holding frames: only the same frames)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
