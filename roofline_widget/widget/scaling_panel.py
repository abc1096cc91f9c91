"""The scaling panel: a sweep's speed-up against threads beside the roofline, hover-linked to it.

While a widget draws a chain of runs as a sweep (``RooflineWidget.chain_shown``),
:class:`ScalingPanel` draws :func:`~roofline_widget.scaling_table`'s rows of
the same runs, grouped as the sweep groups them (``group_runs_by``), in a
second bqplot figure inside the collapsed "Scaling" accordion: one line per
region and group in the colour and line style of the region's path in the
roofline (:func:`~roofline_widget.scene.scaling.scaling_lines`), the ideal
speed-up dashed, the runs of the sweep's chosen step (``sweep_step``) ringed.
Where the runs do different work (problem sizes), y is GFLOP/s and the title
says why.

The panel and the roofline are linked through the widget's public trait
``highlight_region``: hovering (or clicking) a region's point in the panel sets
it, hovering a point in the roofline (a run's point on a path, or a current
point) or selecting points there (``selected``) sets it too, and a change lights the region up in both figures
(every other line and point faded).

On log axes (a sweep over more than a 64-fold range) the tick labels follow the
roofline's rule: bqplot's ticks, the labels that would crowd another left
empty, for the panel's width (:func:`~roofline_widget.widget.axes.label_log_axes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd

from roofline_widget.analysis.scaling import scaling_table
from roofline_widget.look.log_axes import log_ranges
from roofline_widget.scene.scaling import SPEEDUP, ScalingLines, scaling_lines
from roofline_widget.scene.sweep import SweepPart
from roofline_widget.widget.axes import follow_plot_size, label_log_axes
from roofline_widget.widget.html import TOOLTIP_STYLE
from roofline_widget.widget.html.controls import (
    scaling_failed_html,
    scaling_note_html,
    scaling_tooltip_html,
)
from roofline_widget.widget.layers.base import hover_index
from roofline_widget.widget.layers.sweep import FADED, faded

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["FADED", "ScalingPanel"]

_IDEAL_COLOR = "#555555"


def _extent(values: np.ndarray) -> tuple[float, float] | None:
    """Smallest to largest of ``values``; None when empty."""
    return (float(values.min()), float(values.max())) if len(values) else None


def _padded(values: list[np.ndarray]) -> np.ndarray:
    """Lines of unequal length as one array (a shorter one repeats its last value)."""
    length = max((len(v) for v in values), default=0)
    return np.array([np.pad(v, (0, length - len(v)), mode="edge") for v in values], float)


class ScalingPanel:
    """The scaling figure of a sweep, its tooltip and the accordion it sits in.

    The accordion is built with the panel, the figure and its marks when the accordion
    is first opened (:meth:`open`, or a click in the browser): a sweep whose panel is
    never opened sends none of them.

    Attributes
    ----------
    figure : bqplot.Figure or None
        Speed-up (or GFLOP/s) against threads (DOM class ``roofline-scaling``); None until the
        accordion is first opened, and with it the marks, scales, axes and tooltip below.
    lines : list of bqplot.Lines
        One mark per group of runs, one line per region (``lines[g].labels``: the regions).
    ideal : bqplot.Lines
        The ideal speed-up (the threads ratio), dashed; hidden for GFLOP/s.
    points : bqplot.Scatter
        Every line's points, hovered or clicked to highlight their region.
    chosen : bqplot.Scatter
        Rings on the points of the sweep's chosen step.
    tooltip : ipywidgets.HTML
        A hovered point's region (escaped), group and value.
    box : ipywidgets.Accordion
        "Scaling", collapsed at first (:meth:`open`, or ``box.selected_index = 0``, opens it);
        hidden without a sweep (DOM class ``roofline-scaling-box``).
    content : ipywidgets.VBox
        The accordion's child: the note, and the figure once the accordion was opened.
    view : ScalingLines or None
        What is drawn.
    table : pandas.DataFrame or None
        The :func:`~roofline_widget.scaling_table` rows it comes from.
    """

    def __init__(self) -> None:
        self._owner: RooflineWidget | None = None
        self._key: tuple | None = None
        self._hooked: object | None = None
        self.view: ScalingLines | None = None
        self.table: pd.DataFrame | None = None
        self._point_regions: list[str] = []
        self._chosen_regions: list[str] = []
        self.figure: bq.Figure | None = None
        self.note_html = widgets.HTML()
        # The figure joins the page when the accordion is first opened: a figure laid out in a
        # collapsed box has no size (bqplot draws rectangles of negative width).
        self.content = widgets.VBox([self.note_html])
        self.box = widgets.Accordion(children=[self.content], selected_index=None,
                                     titles=("Scaling",), layout=widgets.Layout(display="none"),
                                     _dom_classes=("roofline-scaling-box",))
        self.box.observe(self._opened, names="selected_index")

    def open(self) -> None:
        """Open the accordion (the figure is built and drawn the first time)."""
        self.box.selected_index = 0

    def _build_figure(self) -> None:
        """The figure, its scales, axes, marks and tooltip."""
        self._scales = {"x": bq.LinearScale(), "y": bq.LinearScale()}
        self._log_scales = {"x": bq.LogScale(), "y": bq.LogScale()}
        self.x_axis = bq.Axis(scale=self._scales["x"], label="threads", grid_lines="dashed",
                              tick_format="~g", label_offset="36px")
        self.y_axis = bq.Axis(scale=self._scales["y"], side="left", label="speed-up",
                              grid_lines="dashed", tick_format="~g", label_offset="44px")
        self.lines: list[bq.Lines] = []
        self.ideal = bq.Lines(x=np.ones(2), y=np.ones(2), scales=self._scales, colors=[_IDEAL_COLOR],
                              line_style="dashed", stroke_width=1.5, labels=["ideal"],
                              display_legend=False, interactions={})
        self.tooltip = widgets.HTML(_dom_classes=("roofline-scaling-tooltip",))
        self.points = bq.Scatter(x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker="circle",
                                 default_size=28, stroke="white", tooltip=self.tooltip,
                                 tooltip_style=dict(TOOLTIP_STYLE),
                                 interactions={"hover": "tooltip", "click": "select"})
        self.points.on_hover(self._hovered)
        self.points.on_element_click(self._hovered)
        self.chosen = bq.Scatter(x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker="circle",
                                 fill=False, default_size=110, stroke_width=2, colors=["black"],
                                 interactions={})
        self.figure = bq.Figure(marks=[self.ideal, self.points, self.chosen],
                                axes=[self.x_axis, self.y_axis], title="",
                                fig_margin={"top": 40, "bottom": 50, "left": 60, "right": 20},
                                layout=widgets.Layout(width="680px", height="380px"),
                                _dom_classes=("roofline-scaling",))
        follow_plot_size(self.figure, self._label_axes)

    def _opened(self, change) -> None:
        if change.new is None or self.figure is not None:
            return
        self._build_figure()
        if self.view is not None:
            self._draw(self.view)
            self.highlight(self._owner.highlight_region if self._owner is not None else "")
        self.content.children = [self.figure, self.note_html]

    # ------------------------------------------------------------ linking
    def link(self, owner: RooflineWidget) -> None:
        """Follow ``owner.highlight_region``, and set it from ``owner.selected``."""
        self._owner = owner
        owner.observe(lambda change: self.highlight(change.new), names="highlight_region")

        def selected(change) -> None:
            keys = change.new
            owner.highlight_region = str(keys[-1][2]) if keys else ""
        owner.observe(selected, names="selected")
        owner.figure.scatter.on_hover(self._point_hovered)

    def _set_region(self, region: str) -> None:
        if self._owner is not None:
            self._owner.highlight_region = region
        else:
            self.highlight(region)

    def _hovered(self, mark, content: dict) -> None:
        index = hover_index(content, len(self._point_regions))
        if index is None or self.view is None:
            return
        region = self._point_regions[index]
        self.tooltip.value = self._tooltip(index, region)
        self._set_region(region)

    def _point_hovered(self, mark, content: dict) -> None:
        """A current point of the roofline hovered (while the panel draws a sweep)."""
        scene = self._owner.figure.scene if self._owner is not None else None
        rows = scene.point_rows if scene is not None and self.view is not None else None
        index = hover_index(content, 0 if rows is None else len(rows))
        if rows is not None and index is not None:
            self._set_region(str(rows["region"].iloc[index]))

    def _sweep_hovered(self, mark, content: dict) -> None:
        layer = self._owner.figure.layers.get("sweep") if self._owner is not None else None
        rows = layer.part.runs.rows if layer is not None and layer.part is not None else None
        index = hover_index(content, 0 if rows is None else len(rows))
        if rows is not None and index is not None:
            self._set_region(str(rows["region"].iloc[index]))

    # ------------------------------------------------------------ drawing
    def show(self, part: SweepPart | None) -> None:
        """Draw the scaling of ``part``'s runs (None, or no runs drawn: the panel hidden)."""
        owner = self._owner
        if part is None or owner is None or owner.file_chain is None or not len(part.drawn):
            self.view = None
            self.box.layout.display = "none"
            if owner is not None:  # no sweep: no region highlighted among the points
                owner.figure.points.dim(None)
            return
        self._hook_sweep(owner)
        try:
            self.view = scaling_lines(self._table(owner, part), part)
        except ValueError as exc:  # a grouping scaling_table refuses: said, nothing drawn
            self.view = None
            self.note_html.value = scaling_failed_html(str(exc))
            self.box.layout.display = ""
            return
        view = self.view
        self.box.set_title(0, f"Scaling: {view.y_label} against {view.x_label.split(' (')[0]}")
        self.note_html.value = self._note(view)
        if self.figure is not None:
            self._draw(view)
        self.box.layout.display = ""
        self.highlight(owner.highlight_region)

    def _hook_sweep(self, owner: RooflineWidget) -> None:
        layer = owner.figure.layers.get("sweep")
        if layer is not None and self._hooked is not layer:
            layer.runs.on_hover(self._sweep_hovered)
            self._hooked = layer

    def _table(self, owner: RooflineWidget, part: SweepPart) -> pd.DataFrame:
        """scaling_table of the chain's runs as the sweep groups them (kept while nothing changes)."""
        ranks = None if owner.ranks is None else tuple(owner.ranks)
        chain = owner.file_chain
        assert chain is not None  # show() draws a chain only
        key = (chain, part.group_by, owner.flops_metric, owner.bandwidth_metric, ranks)
        if key != self._key or self.table is None:
            self.table = scaling_table(list(chain.runs), group_by=list(part.group_by) or None,
                                       flops_metric=owner.flops_metric,
                                       bandwidth_metric=owner.bandwidth_metric, ranks=ranks)
            self._key = key
        return self.table

    def _draw(self, view: ScalingLines) -> None:
        scales = self._log_scales if view.log else self._scales
        groups = list(dict.fromkeys(line.group for line in view.lines))
        if len(groups) != len(self.lines):
            self.lines = [bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=scales,
                                   stroke_width=2, labels_visibility="none", interactions={})
                          for _ in groups]
        for mark, group in zip(self.lines, groups):
            drawn = [line for line in view.lines if line.group == group]
            with mark.hold_sync():
                mark.scales = scales
                mark.x, mark.y = _padded([ln.x for ln in drawn]), _padded([ln.y for ln in drawn])
                mark.colors = [line.color for line in drawn]
                mark.labels = [line.region for line in drawn]
                mark.line_style = drawn[0].style
                mark.opacities = [1.0] * len(drawn)
        every = list(view.lines)
        self._point_regions = [ln.region for ln in every for _ in ln.x]
        with self.points.hold_sync():
            self.points.scales = scales
            self.points.x = np.concatenate([ln.x for ln in every]) if every else np.zeros(0)
            self.points.y = np.concatenate([ln.y for ln in every]) if every else np.zeros(0)
            self.points.colors = [ln.color for ln in every for _ in ln.x] or ["black"]
        chosen = [(x, y, ln.color) for ln in every for x, y, f in zip(ln.x, ln.y, ln.files)
                  if f in view.chosen]
        self._chosen_regions = [ln.region for ln in every for f in ln.files if f in view.chosen]
        with self.chosen.hold_sync():
            self.chosen.scales = scales
            self.chosen.x = np.array([x for x, _, _ in chosen], float)
            self.chosen.y = np.array([y for _, y, _ in chosen], float)
            self.chosen.colors = [color for _, _, color in chosen] or ["black"]
        with self.ideal.hold_sync():
            self.ideal.scales = scales
            self.ideal.visible = view.measure == SPEEDUP and len(view.ideal_x) > 1
            if self.ideal.visible:
                self.ideal.x, self.ideal.y = view.ideal_x, view.ideal_y
            elif len(self.points.x):  # hidden, it still stretches its scales: onto a point
                self.ideal.x, self.ideal.y = self.points.x[:1], self.points.y[:1]
        x = _extent(np.asarray(self.points.x, float))
        if view.log and x is not None:  # the log axis holds the points with a margin, nothing else
            scales["x"].min, scales["x"].max = x[0] / 1.5, x[1] * 1.5
        y = _extent(np.concatenate([self.points.y, self.ideal.y if self.ideal.visible else []]))
        if view.log:  # what bqplot would fit, set here: the labels' range (one value: bqplot's)
            scales["y"].min, scales["y"].max = y if y is not None and y[0] < y[1] else (None, None)
        self.x_axis.scale, self.y_axis.scale = scales["x"], scales["y"]
        self.x_axis.label, self.y_axis.label = view.x_label, view.y_label
        assert self.figure is not None  # drawn once built
        self.figure.title = view.title
        # a hidden mark still stretches its scales: the ideal line joins only when drawn
        ideal = [self.ideal] if self.ideal.visible else []
        self.figure.marks = [*self.lines, *ideal, self.points, self.chosen]
        self._label_axes()

    def _label_axes(self) -> None:
        """Log axes: the roofline's tick-label rule at the figure's width; linear: bqplot's labels."""
        ranges = log_ranges(*self._log_scales.values()) if self.view and self.view.log else None
        if ranges is not None:
            label_log_axes(self.figure, *ranges)
            return
        for axis in (self.x_axis, self.y_axis):
            axis.tick_labels = {}

    @staticmethod
    def _note(view: ScalingLines) -> str:
        parts = ["dashed grey: ideal speed-up (the threads ratio)"] if view.measure == SPEEDUP else \
            ["the runs do different work, so a speed-up (runtime against runtime) would compare "
             "different work: GFLOP/s compares them"]
        parts += ["rings: the run slider's step", "hover a point to light its region up in the roofline"]
        if view.left_out:
            parts.append(f"{view.left_out} point(s) beyond the hardware left out (see sanity_check)")
        return scaling_note_html(parts)

    def _tooltip(self, index: int, region: str) -> str:
        view = self.view
        assert view is not None
        x, y = float(self.points.x[index]), float(self.points.y[index])
        line = next(ln for ln in view.lines if ln.region == region and
                    np.any((ln.x == x) & (ln.y == y)))
        return scaling_tooltip_html(region, line.group, view.x_label.split(' (')[0], x,
                                    view.y_label, y)

    # ------------------------------------------------------------ highlighting
    def highlight(self, region: str) -> None:
        """Light ``region`` up in the panel and in the roofline's sweep ("": every region as drawn)."""
        if self.view is None:
            return
        self._highlight_sweep(region)
        if self.figure is None:  # the panel never opened: the roofline only
            return
        for mark in self.lines:
            mark.opacities = faded(list(mark.labels or []), region, 1.0)
        self.points.opacities = faded(self._point_regions, region) if region else []
        self.chosen.opacities = faded(self._chosen_regions, region) if region else []

    def _highlight_sweep(self, region: str) -> None:
        figure = self._owner.figure if self._owner is not None else None
        layer = figure.layers.get("sweep") if figure is not None else None
        if figure is None or layer is None:
            return
        scene = figure.scene
        layer.highlight(region, (figure.points, scene.point_rows if scene is not None else None))
