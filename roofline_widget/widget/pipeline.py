"""The widget's one refresh pipeline: compute everything first, then assign.

:class:`RefreshPipeline` reads the widget's trait values, selects the points
(:func:`~roofline_widget.widget.state.select_points`), builds the ceilings,
hands the selection to the layers, works out the axis ranges
(:func:`~roofline_widget.look.axis_ranges.axis_ranges`), colours and sizes,
and only then assigns the figure, the selection and the controls' texts.  An
exception before the assignment leaves the widget as it was (the widget puts
the trait back).  A peak change (:meth:`RefreshPipeline.refresh_roofline`)
moves the ceilings and sends no point arrays.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.analysis.ceiling_checks import ceiling_notes, warn_ceilings
from roofline_widget.look.axis_ranges import axis_ranges
from roofline_widget.look.ceiling_lines import ceiling_rows
from roofline_widget.look.colors import palette_color
from roofline_widget.points.rank_groups import check_group_ranks
from roofline_widget.roofs.hardware_bounds import keep_flags
from roofline_widget.roofs.judging import unjudged_points_notes
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, RoofKeys, Roofline, roof_keys
from roofline_widget.widget import html
from roofline_widget.widget import state as point_state
from roofline_widget.widget.figure_state import FigureState
from roofline_widget.widget.layer_stack import LayerStack
from roofline_widget.widget.layers.base import LayerInput
from roofline_widget.widget.peak_controls import PEAK_TRAITS
from roofline_widget.widget.point_keys import key_index, surviving_keys
from roofline_widget.widget.point_style import (
    COLOR_COLUMN,
    color_categories,
    color_codes,
    marker_sizes,
    runtime_log_range,
)
from roofline_widget.widget.points_mark import SVG_MAX_POINTS
from roofline_widget.widget.roofs import check_ceilings, classify, rooflines
from roofline_widget.widget.state import PointState, UpdateGuard
from roofline_widget.widget.traits import RooflineTraits

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["RefreshPipeline"]


class RefreshPipeline:
    """Select, compute, assign: every refresh of one :class:`RooflineWidget`.

    Parameters
    ----------
    owner : RooflineWidget
        The widget whose traits are read and whose figure, controls and
        layers are assigned.
    layers : LayerStack
        The widget's layers.
    guard : UpdateGuard
        The widget's re-entrancy guard (held while the layers assign their marks).
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
    extra : tuple
        The extra ceilings.
    ceiling_notes : list of str
        What :mod:`~roofline_widget.analysis.ceiling_checks` found on the
        extra ceilings (a roof that may not bound its level, a run of another
        machine), for the status line.
    """

    def __init__(self, owner: RooflineWidget, layers: LayerStack, guard: UpdateGuard,
                 ceilings=()) -> None:
        self.owner = owner
        self.layers = layers
        self.guard = guard
        self.points: PointState | None = None
        self.roofline: Roofline | None = None
        self.extra = check_ceilings(ceilings)
        self.ceiling_notes = warn_ceilings(owner.sums, self.extra, stacklevel=4)
        self._size_range = runtime_log_range(owner.sums)
        self._budget_used = 0
        # per selection: the points empirical roofs come from, their and the points' roof keys
        self._roof_basis: pd.DataFrame | None = None
        self._basis_keys: RoofKeys | None = None
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
        elif name == "levels":
            self.layers.show_levels(self.owner.levels)
            if self.budget() != self._budget_used:  # the SVG budget came or went with them
                self.refresh_points()
            else:
                self.refresh_layers()
        else:
            self.refresh_points()

    def refresh_points(self) -> None:
        """Select the points, then assign the figure, the selection and the texts."""
        owner = self.owner
        self._budget_used = self.budget()
        points = point_state.select_points(
            owner.sums, flops_metric=owner.flops_metric, bandwidth_metric=owner.bandwidth_metric,
            ranks=owner.ranks, include=owner.include, exclude=owner.exclude,
            group_ranks=owner.group_ranks, combine_ranks=owner.combine_ranks,
            max_points=self._budget_used)
        self._roof_basis = self._basis(points)
        self._point_keys = roof_keys(points.points)
        self._basis_keys = (self._point_keys if self._roof_basis is points.points
                            else roof_keys(self._roof_basis))
        roofline = rooflines(owner.peak_flops, owner.peak_bandwidth, self._roof_basis,
                             self.extra, self._basis_keys)
        self._update_layers(points, roofline)
        points = self._ranks_points(points)
        extent = self.layers.extent()
        x_range, y_range = axis_ranges(points.points, roofline, extent, bulk=points.flop_split[0])
        selected = surviving_keys(owner.selected, points.keys)
        shown = points.shown
        figure_state = FigureState(
            points=shown, colors=self.color_codes(shown),
            sizes=marker_sizes(shown, owner.size_by, self._size_range),
            selected=self.selected_indices(selected, points), roofline=roofline,
            x_range=x_range, y_range=y_range, title=html.empty_title(points, owner.ranks == []),
            layer_points=extent)
        self.points, self.roofline = points, roofline
        owner.figure.assign(figure_state)
        # Outside the guard: observers of these traits (users' too) see a consistent widget.
        owner.selected = selected
        owner.set_trait("message", html.message_text(points, owner.ranks == []))
        self._show_texts()

    def refresh_roofline(self) -> None:
        """Peaks changed: move the ceilings and the ridge marker only (the axes only widen)."""
        owner, points = self.owner, self.current
        roofline = rooflines(owner.peak_flops, owner.peak_bandwidth, self._roof_basis,
                             self.extra, self._basis_keys)
        self._update_layers(points, roofline)
        extent = self.layers.extent()
        (x0, x1), (y0, y1) = axis_ranges(points.points, roofline, extent,
                                         bulk=points.flop_split[0])
        xs, ys = owner.figure.x_scale, owner.figure.y_scale
        x_range = (min(x0, xs.min or x0), max(x1, xs.max or 0))
        y_range = (min(y0, ys.min or y0), max(y1, ys.max or 0))
        owner.figure.assign_roofline(roofline, x_range, y_range, extent)
        self.roofline = roofline
        owner.controls.status_html.value = self.status()
        self.show_ceilings()
        self.show_peaks()

    def refresh_layers(self) -> None:
        """The layers changed (levels toggled): their marks, the axes and the status; the points stay."""
        points = self.current
        self._update_layers(points, self.roofline)
        self.reset_view()
        self.owner.controls.status_html.value = self.status()

    def restyle(self) -> None:
        """Colours or sizes changed: one message to the scatter, the layers and the legend."""
        points = self.current
        self._update_layers(points, self.roofline)
        shown = points.shown
        self.owner.figure.restyle(self.color_codes(shown),
                                  marker_sizes(shown, self.owner.size_by, self._size_range))
        self.owner.controls.legend_html.value = self.legend()

    def show_selected(self) -> None:
        """``selected`` changed: the scatter's selection and the status line."""
        self.owner.figure.show_selected(self.selected_indices())
        self.owner.controls.status_html.value = self.status()

    def reset_view(self) -> None:
        """Fit the axes to the points, the ceilings and the layers again."""
        points = self.current
        extent = self.layers.extent()
        x_range, y_range = axis_ranges(points.points, self.roofline, extent,
                                       bulk=points.flop_split[0])
        self.owner.figure.assign_roofline(self.roofline, x_range, y_range, extent)

    def set_extra(self, ceilings) -> tuple:
        """Replace the extra ceilings (checked); the previous ones are returned."""
        old, self.extra = self.extra, check_ceilings(ceilings)
        self.ceiling_notes = ceiling_notes(self.owner.sums, self.extra)
        return old

    # ------------------------------------------------------------ pieces
    def budget(self) -> int:
        """The most points drawn: ``max_points``, but at most ``SVG_MAX_POINTS`` when they are SVG.

        They are SVG when the browser has no WebGL, and so are the memory
        levels' dots and the baseline's arrows, one per drawn point: while
        those are shown the SVG budget applies too.
        """
        return min(self.owner.max_points, self._svg_budget() or self.owner.max_points)

    def _svg_budget(self) -> int | None:
        """``SVG_MAX_POINTS`` while an SVG mark draws one element per point, else None."""
        baseline = self.layers.baseline
        if self.owner.figure.points.budget is not None or self.owner.levels \
                or (baseline is not None and baseline.runs):
            return SVG_MAX_POINTS
        return None

    def color_codes(self, shown: pd.DataFrame) -> np.ndarray:
        """The colour codes of ``shown`` for the widget's ``color_by``."""
        owner = self.owner
        categories = color_categories(owner.sums, owner.color_by, owner.combine_ranks)
        return color_codes(shown, owner.color_by, categories)

    def legend(self) -> str:
        """The legend of the drawn categories (escaped HTML)."""
        owner, shown = self.owner, self.current.shown
        column = COLOR_COLUMN[owner.color_by]
        values = pd.unique(shown[column].astype(object))
        categories = color_categories(owner.sums, owner.color_by, owner.combine_ranks)
        codes = pd.Index(categories, dtype=object).get_indexer(values[:html.LEGEND_ENTRIES_SHOWN])
        names = None
        if owner.color_by == "rank":  # a socket's point is coloured as its lowest rank: named so
            first = shown.drop_duplicates(column).set_index(column)
            names = [html.rank_text(value, first.at[value, "rank_group"] if "rank_group" in first
                                    else None) for value in values[:html.LEGEND_ENTRIES_SHOWN]]
        return html.legend_html(values, [palette_color(code) for code in codes], owner.color_by,
                                names=names)

    def status(self) -> str:
        """The status line: points, metrics, ceilings, the points' notes and each layer's note."""
        owner, points = self.owner, self.current
        if self.layers.ranks.active:  # the spread view hides rank points on purpose
            points = replace(points, shown=points.points)
        status = html.status_html(points, self.roofline, max_points=self.budget(),
                                  combine_ranks=check_group_ranks(
                                      owner.group_ranks, owner.combine_ranks) == "all",
                                  n_selected=len(owner.selected))
        judged = ([] if self.roofline is None
                  else unjudged_points_notes(self.roofline, points.points, self._point_keys))
        budget = self._svg_budget()
        if budget is not None and len(points.points) <= budget:
            budget = None  # a budget nothing reaches is not worth a note
        chain = owner.file_chain
        notes = [html.chain_status_html(chain.summary()) if chain and owner.chain_shown else "",
                 html.points_mark_html(owner.figure.points.webgl, owner.figure.points.uses_webgl,
                                       owner.max_points, budget, bool(owner.levels)),
                 html.ceiling_notes_html([*judged, *self.ceiling_notes]),
                 html.point_notes_html(points, self._roof_basis, self.roofline),
                 *self.layers.statuses()]
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
        owner, layer = self.owner, self.layers.levels
        if owner.levels and layer is not None:
            rows = layer.frame
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
        self.owner.controls.show_ceilings(html.ceilings_table_html(rows), len(rows))

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
            left_out_html=html.left_out_html(points.left_out),
            left_out_count=len(points.left_out),
            legend_html=self.legend(), status_html=self.status())
        self.show_ceilings()
        self.show_peaks()

    def _update_layers(self, points: PointState, roofline: Roofline | None) -> None:
        """Hand the new selection to every layer (they assign their own marks)."""
        owner = self.owner
        data = LayerInput(sums=owner.sums, selection=points.selection, points=points,
                          roofline=roofline, color_codes=self.color_codes,
                          options={**{name: getattr(owner, name)
                                      for name in RooflineTraits.class_own_traits()},
                                   "max_points": self.budget()})
        with self.guard.hold():
            self.layers.update(data)

    def _basis(self, points: PointState) -> pd.DataFrame:
        """The points empirical roofs are taken from: the selection's and a baseline's."""
        owner = self.owner
        baseline = self.layers.baseline_points(LayerInput(
            sums=owner.sums, selection=points.selection, points=points, roofline=None,
            color_codes=self.color_codes, options={}))
        if baseline is None or baseline.empty:
            return points.points
        return keep_flags(pd.concat([points.points, baseline], ignore_index=True))

    def _ranks_points(self, points: PointState) -> PointState:
        """In the spread view the scatter shows only the expanded regions' ranks."""
        owner = self.owner
        shown = self.layers.ranks.scatter_points(points, owner.expanded_regions, self.budget())
        return points if shown is None else replace(points, shown=shown)
