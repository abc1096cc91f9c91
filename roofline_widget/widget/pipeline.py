"""The widget's one refresh pipeline: the scene of the trait values, updated where they changed.

:class:`RefreshPipeline` reads the widget's trait values, selects the points
(:func:`~roofline_widget.widget.state.select_points`), builds the ceilings
and the layers' parts (:class:`~roofline_widget.widget.scene_parts.SceneParts`:
a baseline's comparison, the memory levels, the rank spread), composes the
:class:`~roofline_widget.scene.parts.Scene`
(:func:`~roofline_widget.scene.build.compose_scene`) and only then hands it
to the figure and assigns the selection and the controls' texts.  An
exception before the assignment leaves the widget as it was (the widget puts
the trait back).  A peak change (:meth:`RefreshPipeline.refresh_roofline`)
keeps the points and the layers' rows: it makes the roofline, the level
findings against it, the ranges and the labels again, and the figure sends
no point arrays.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.ceiling_checks import ceiling_notes, warn_ceilings
from roofline_widget.look.axis_ranges import axis_ranges
from roofline_widget.look.ceiling_lines import ceiling_rows
from roofline_widget.look.no_flop import below_flop_work
from roofline_widget.points.rank_groups import check_group_ranks
from roofline_widget.roofs.hardware_bounds import keep_flags, largest_plausible
from roofline_widget.roofs.judging import unjudged_points_notes
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, RoofKeys, Roofline, roof_keys
from roofline_widget.scene.build import compose_scene, point_dots
from roofline_widget.scene.parts import Scene
from roofline_widget.widget import html
from roofline_widget.widget import state as point_state
from roofline_widget.widget.peak_controls import PEAK_TRAITS
from roofline_widget.widget.point_keys import key_index, surviving_keys
from roofline_widget.widget.point_style import marker_sizes, runtime_log_range
from roofline_widget.widget.points_mark import SVG_MAX_POINTS
from roofline_widget.widget.roofs import check_ceilings, classify, roof_basis, rooflines
from roofline_widget.widget.scene_parts import SceneParts
from roofline_widget.widget.state import PointState, UpdateGuard
from roofline_widget.widget.traits import SWEEP_TRAITS

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["RefreshPipeline"]


class RefreshPipeline:
    """Select, compose, draw: every refresh of one :class:`RooflineWidget`.

    Parameters
    ----------
    owner : RooflineWidget
        The widget whose traits are read and whose figure and controls are assigned.
    guard : UpdateGuard
        The widget's re-entrancy guard.
    ceilings : sequence of ComputeRoof / BandwidthRoof
        The extra ceilings (checked here).

    Attributes
    ----------
    points : PointState or None
        The current selection (None before the first refresh).
    roofline : Roofline or None
        The extra ceilings, the peaks' roofs (the main ones) and empirical
        roofs where neither gives one (:func:`~roofline_widget.widget.roofs.rooflines`,
        taken from the points and a baseline's points): what is drawn and
        judged against.
    scene : Scene or None
        What the figure draws.
    parts : SceneParts
        The layers' parts and the baseline runs.
    extra : tuple
        The extra ceilings.
    ceiling_notes : list of str
        What :mod:`~roofline_widget.analysis.ceiling_checks` found on the
        extra ceilings (a roof that may not bound its level, a run of another
        machine), for the status line.
    """

    def __init__(self, owner: RooflineWidget, guard: UpdateGuard, ceilings=()) -> None:
        self.owner = owner
        self.guard = guard
        self.points: PointState | None = None
        self.roofline: Roofline | None = None
        self.scene: Scene | None = None
        self.parts = SceneParts(owner)
        self.extra = check_ceilings(ceilings)
        self.ceiling_notes = warn_ceilings(owner.sums, self.extra, stacklevel=4)
        self._size_range: tuple[float, float] | None = None  # sized by runtime: worked out then
        self._no_flop = np.zeros(0, dtype=bool)
        self._budget_used = 0
        # per selection: the points empirical roofs come from, and the points' roof keys
        self._roof_basis: pd.DataFrame | None = None
        self._roofs_of: tuple = (None, None)  # the few rows the roofs depend on, their keys
        self._point_keys: RoofKeys | None = None

    @property
    def current(self) -> PointState:
        """The current selection (after the first refresh)."""
        if self.points is None:
            raise RuntimeError("the widget has not selected its points yet")
        return self.points

    # ------------------------------------------------------------ refreshes
    def after_change(self, name: str) -> None:
        """The refresh a change of the widget's trait ``name`` needs."""
        if name == "selected":
            self.show_selected()
        elif name in ("color_by", "size_by"):
            self.restyle()
        elif name in PEAK_TRAITS:
            self.refresh_roofline()
        elif name == SWEEP_TRAITS[1]:  # other groups, other steps: the last one ringed
            with self.guard.hold():
                self.owner.sweep_step = -1
            self.refresh_points()
        elif name in ("levels", SWEEP_TRAITS[0]) and self.budget() == self._budget_used:
            self.refresh_layers()  # else the SVG budget came or went with them
        else:
            self.refresh_points()

    def refresh_points(self) -> None:
        """Select the points, compose the scene, then draw it and assign the selection and texts."""
        owner, parts = self.owner, self.parts
        self._budget_used = budget = self.budget()
        points = point_state.select_points(
            owner.sums, flops_metric=owner.flops_metric, bandwidth_metric=owner.bandwidth_metric,
            ranks=owner.ranks, include=owner.include, exclude=owner.exclude,
            group_ranks=owner.group_ranks, combine_ranks=owner.combine_ranks, max_points=budget)
        sweep = parts.sweep(points)  # a chain drawn as a sweep: no arrows
        comparison = parts.comparison(points) if sweep is None else None
        baseline = parts.baseline_points() if sweep is None else sweep.frame  # off-path ones too
        self._roof_basis = points.points if baseline is None else keep_flags(
            pd.concat([points.points, baseline], ignore_index=True))
        self._point_keys = roof_keys(points.points)
        self._roofs_of = (self._roof_basis, self._point_keys if self._roof_basis is points.points
                          else roof_keys(self._roof_basis))
        roofline = self._roofline()
        levels = parts.levels(points, roofline, budget)
        spread, points = parts.spread(points, budget)
        selected = surviving_keys(owner.selected, points.keys) if owner.selected else []
        self.points, self.roofline = points, roofline
        scene = self._compose(self._dots(points), roofline, self._fitted(parts.extent(
            levels, comparison, spread, sweep)), levels=levels, comparison=comparison,
            spread=spread, sweep=sweep, title=html.empty_title(points, owner.ranks == []))
        self.scene = scene
        owner.figure.draw(scene, self.selected_indices(selected, points))
        # Outside the guard: observers of these traits (users' too) see a consistent widget.
        owner.selected = selected
        owner.set_trait("message", html.message_text(points, owner.ranks == []))
        self._show_texts()

    def refresh_roofline(self) -> None:
        """Peaks changed: the roofs, the level findings, the ranges (they only widen), the labels."""
        scene, points = self._drawn(), self.current
        self.roofline = roofline = self._roofline(drag=True)
        (x0, x1), (y0, y1) = self._fitted(self.parts.last_extent)
        xs, ys = self.owner.figure.x_scale, self.owner.figure.y_scale
        ranges = ((min(x0, xs.min or x0), max(x1, xs.max or 0)),
                  (min(y0, ys.min or y0), max(y1, ys.max or 0)))
        levels = self.parts.levels(points, roofline, self._budget_used)
        self._draw(self._compose(scene.points, roofline, ranges, levels=levels,
                                 comparison=scene.comparison, spread=scene.spread,
                                 sweep=scene.sweep, title=scene.title,
                                 obstacles=scene.obstacles))
        self.owner.controls.status_html.value = self.status()
        self.show_ceilings()
        self.show_peaks()

    def refresh_layers(self) -> None:
        """The levels (toggled) or a sweep's step changed: the scene with its layers again (a
        step: the rings moved); the points stay.  A step the sweep lacks raises ``ValueError``."""
        scene, parts = self._drawn(), self.parts
        levels = parts.levels(self.current, self.roofline, self._budget_used)
        sweep = parts.stepped(scene.sweep)
        extent = parts.extent(levels, scene.comparison, scene.spread, sweep)
        self._draw(self._compose(scene.points, self.roofline, self._fitted(extent),
                                 levels=levels, comparison=scene.comparison, spread=scene.spread,
                                 sweep=sweep, title=scene.title))
        self.owner.sweep_controls.show(sweep, parts.sweep_runs())
        self.owner.controls.status_html.value = self.status()

    def restyle(self) -> None:
        """Colours or sizes changed: the points' and the layers' colours, the legend."""
        scene, points = self._drawn(), self.current
        dots = self._dots(points)
        self._draw(replace(scene, points=replace(scene.points, codes=dots.codes,
                                                 sizes=dots.sizes),
                           coloring=self.parts.coloring(), **self.parts.recoloured(scene)))
        self.owner.controls.legend_html.value = self.legend()

    def show_selected(self) -> None:
        """``selected`` changed: the scatter's selection and the status line."""
        self.owner.figure.show_selected(self.selected_indices())
        self.owner.controls.status_html.value = self.status()

    def reset_view(self) -> None:
        """Fit the axes to the points, the ceilings and the layers again."""
        scene = self._drawn()
        self._draw(self._compose(scene.points, self.roofline, self._fitted(self.parts.last_extent),
                                 levels=scene.levels, comparison=scene.comparison,
                                 spread=scene.spread, sweep=scene.sweep, title=scene.title,
                                 obstacles=scene.obstacles))

    def set_extra(self, ceilings) -> tuple:
        """Replace the extra ceilings (checked); the previous ones are returned."""
        old, self.extra = self.extra, check_ceilings(ceilings)
        self.ceiling_notes = ceiling_notes(self.owner.sums, self.extra)
        return old

    # ------------------------------------------------------------ the scene
    def _drawn(self) -> Scene:
        if self.scene is None:
            raise RuntimeError("the widget has not drawn its scene yet")
        return self.scene

    def _roofline(self, drag: bool = False) -> Roofline | None:
        """The roofline of the peaks; on a drag, of the few points the roofs depend on."""
        basis, keys = self._roofs_of
        if drag and basis is self._roof_basis:
            self._roofs_of = basis, keys = roof_basis(basis, keys)
        return rooflines(self.owner.peak_flops, self.owner.peak_bandwidth, basis, self.extra, keys)

    def _fitted(self, extent) -> tuple:
        """The axis ranges holding the points, the layers' ``extent`` and every ridge."""
        points = self.current
        return axis_ranges(points.points, self.roofline, extent, bulk=points.flop_split[0])

    def _dots(self, points: PointState):
        if self.owner.size_by != "none" and self._size_range is None:  # the runtimes: once
            self._size_range = runtime_log_range(self.owner.sums)
        return point_dots(points.shown, self.parts.coloring(), marker_sizes(
            points.shown, self.owner.size_by, self._size_range or (0.0, 1.0)))

    def _compose(self, dots, roofline, ranges, **parts) -> Scene:
        if self.scene is None or dots.x is not self.scene.points.x:  # points new: which do no FLOPs
            shown = self.current.shown
            largest = largest_plausible(self.current.points, schema.PERFORMANCE)
            self._no_flop = (np.zeros(len(shown), dtype=bool) if largest is None else
                             below_flop_work(shown[schema.PERFORMANCE].to_numpy(float), largest))
        return compose_scene(dots, roofline, ranges, coloring=self.parts.coloring(),
                             no_flop=self._no_flop, canvas=self.owner.figure.canvas(), **parts)

    def _draw(self, scene: Scene) -> None:
        self.scene = scene
        self.owner.figure.draw(scene)

    # ------------------------------------------------------------ pieces
    def budget(self) -> int:
        """The most points drawn: ``max_points``, but at most ``SVG_MAX_POINTS`` when they are SVG.

        They are SVG when the browser has no WebGL, and so are the memory
        levels' dots and the baseline's arrows, one per drawn point: while
        those are shown the SVG budget applies too.
        """
        return min(self.owner.max_points, svg_budget(self.owner, self.parts) or self.owner.max_points)

    def legend(self) -> str:
        """The legend of the drawn categories (escaped HTML)."""
        return legend_of(self.current.shown, self.parts.coloring(), self.owner.color_by, self.scene)

    def status(self) -> str:
        """The status line (of a sweep two lines, the rest in ``SweepControls.details``)."""
        return self.owner.sweep_controls.status(self._drawn().sweep, self._full_status(),
                                                self.roofline, self._roof_basis)

    def _full_status(self) -> str:
        """The points, metrics, ceilings, the points' notes and each layer's note."""
        owner, points, keys = self.owner, self.current, self._point_keys
        scene = self._drawn()
        spread = scene.spread
        if spread is not None:  # the spread view hides rank points on purpose
            points = replace(points, shown=points.points)
        status = html.status_html(points, self.roofline, max_points=self.budget(),
                                  combine_ranks=check_group_ranks(
                                      owner.group_ranks, owner.combine_ranks) == "all",
                                  n_selected=len(owner.selected))
        judged = ([] if self.roofline is None
                  else unjudged_points_notes(self.roofline, points.points, keys))
        budget = svg_budget(self.owner, self.parts)
        if budget is not None and len(points.points) <= budget:
            budget = None  # a budget nothing reaches is not worth a note
        chain, hint = owner.file_chain, ""
        if spread is None and self.current.over_budget and len(owner.sums.ranks) >= 2:
            hint = html.points_budget_hint_html(len(self.current.shown), len(points.points),
                                                self._budget_used)
        notes = [html.chain_status_html(chain.summary()) if chain and owner.chain_shown else "",
                 html.points_mark_html(owner.figure.points.webgl, owner.figure.points.uses_webgl,
                                       owner.max_points, budget, bool(owner.levels)),
                 html.ceiling_notes_html([*judged, *self.ceiling_notes]),
                 html.point_notes_html(points, self._roof_basis, self.roofline, keys), hint,
                 *html.layer_notes_html(scene.levels, scene.comparison, spread)]
        return " ".join([status, *filter(None, notes)])

    def selected_indices(self, keys: list | None = None, points: PointState | None = None):
        """Row indices of the drawn points (of ``points``, the current ones by default) whose keys
        are selected (None: no selection)."""
        keys = self.owner.selected if keys is None else keys
        points = self.current if points is None else points
        if not keys:
            return None
        return np.flatnonzero(points.shown_keys.isin(keys))

    def selection_frame(self) -> pd.DataFrame:
        """The selected points classified, or their level rows while levels are shown (each
        judged against its level's roof)."""
        owner, levels = self.owner, self.scene.levels if self.scene is not None else None
        if owner.levels and levels is not None:
            rows = levels.frame
            return classify(rows[key_index(rows).isin(owner.selected)], self.roofline)
        current = self.current
        points = current.points
        chosen = points[current.keys.isin(owner.selected)] if owner.selected else points.iloc[:0]
        return classify(chosen, self.roofline)

    def keys_of(self, indices: np.ndarray) -> list[tuple]:
        """The (file, rank, region) keys of the drawn points ``indices``."""
        rows = self.current.shown.iloc[indices]
        return list(zip(rows["file"].astype(str), rows["rank"].astype(int),
                        rows["region"].astype(str)))

    def show_ceilings(self) -> None:
        """The "Ceilings" section: every roof drawn, with where its number came from."""
        rows = ceiling_rows(self.roofline) if self.roofline is not None else []
        self.owner.controls.show_ceilings(lambda: html.ceilings_table_html(rows), len(rows))

    def show_peaks(self) -> None:
        """The peak sliders, text boxes and 'empirical' buttons in step with the peak traits."""
        owner = self.owner
        kinds = {"peak_flops": ComputeRoof, "peak_bandwidth": BandwidthRoof}
        measured = {trait: any(isinstance(roof, kind) for roof in self.extra)
                    for trait, kind in kinds.items()}
        owner.controls.peaks.show({t: getattr(owner, t) for t in PEAK_TRAITS}, self.roofline,
                                  measured)

    def _show_texts(self) -> None:
        points = self.current
        self.owner.controls.show_texts(
            message_html=html.message_html(self.owner.message,
                                           bool(points.error) or not len(points.points)),
            left_out_html=lambda: html.left_out_html(points.left_out),
            left_out_count=len(points.left_out),
            legend_html=self.legend(), status_html=self.status())
        self.owner.sweep_controls.show(self._drawn().sweep, self.parts.sweep_runs())
        self.show_ceilings()
        self.show_peaks()



def legend_of(shown: pd.DataFrame, coloring, color_by: str, scene: Scene | None = None) -> str:
    """The legend of the categories of the drawn points ``shown`` (escaped HTML; coloured by
    region, the points' names: a host's point its host's, those ``scene`` drew if it drew ``shown``,
    worked out once for its dots and this legend)."""
    naming = scene.points.naming if scene is not None and scene.points.rows is shown else None
    if naming is not None and coloring.column == "region":  # the title: what names them
        values = naming.distinct[0]
        codes = coloring.codes(values[:html.LEGEND_ENTRIES_SHOWN])
        return html.legend_html(list(values), coloring.colors(codes), naming.kind)
    drawn = naming.names if naming is not None else None
    keys = drawn if drawn is not None and coloring.column == "region" else coloring.keys(shown)
    values = (pd.unique(keys) if coloring.column == "region"  # point names: str objects
              else pd.unique(pd.Series(keys).astype(object)))
    codes = coloring.codes(values[:html.LEGEND_ENTRIES_SHOWN])
    names = None
    if color_by == "rank":  # a socket's point is coloured as its lowest rank: named so
        first = shown.drop_duplicates(coloring.column).set_index(coloring.column)
        names = [html.rank_text(value, first.at[value, "rank_group"] if "rank_group" in first
                                else None) for value in values[:html.LEGEND_ENTRIES_SHOWN]]
    return html.legend_html(values, coloring.colors(codes), color_by, names=names, points=shown)


def svg_budget(owner: RooflineWidget, parts: SceneParts) -> int | None:
    """``SVG_MAX_POINTS`` while an SVG mark draws one element per point, else None."""
    if owner.figure.points.budget is not None or owner.levels or parts.runs:
        return SVG_MAX_POINTS
    return None
