"""``RooflineFigure``: the bqplot renderer, a :class:`~roofline_widget.scene.parts.Scene` drawn.

The figure draws the scene it is given (:meth:`RooflineFigure.draw`) and
computes nothing about the data: the points, the roofs and their labels, the
axis ranges and the layers (rank spread, memory levels, a baseline's arrows,
``widget.layers``, their marks between the ceilings and the points) are the
scene's.  A part of the scene that is the same object as the one drawn is not
sent again (a peak drag sends the roofs, the labels and the ranges, no point
arrays).  Only a pan or zoom in the browser moves the labels here: they are
placed again for the new ranges (:func:`~roofline_widget.scene.build.roof_part`).
The axes' tick labels follow every new range, kept apart
(:mod:`~roofline_widget.widget.axes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager

import bqplot as bq
import ipywidgets as widgets
import numpy as np
from bqplot.interacts import PanZoom

from roofline_widget.look.ceiling_labels import WIDGET_CANVAS, LabelCanvas
from roofline_widget.look.colors import AXIS_GRID_COLOR, PALETTE
from roofline_widget.look.log_axes import log_ranges
from roofline_widget.look.plot_area import (
    FIG_MARGIN,
    MIN_PLOT_PX,
    PLOT_HEIGHT_PX,
    PlotArea,
    PlotFrame,
    figure_px,
    label_area,
    mark_padding,
    plot_frame,
)
from roofline_widget.look.texts import X_LABEL, Y_LABEL
from roofline_widget.scene.build import roof_part
from roofline_widget.scene.parts import Scene
from roofline_widget.widget.axes import follow_plot_size, label_log_axes
from roofline_widget.widget.html import TOOLTIP_CLASS, tooltip_css_html, tooltip_html
from roofline_widget.widget.layers.compare import CompareMarks
from roofline_widget.widget.layers.levels import LevelMarks
from roofline_widget.widget.layers.ranks import SpreadMarks
from roofline_widget.widget.layers.sweep import SweepMarks
from roofline_widget.widget.pointer import PointerTool
from roofline_widget.widget.points_mark import PointsMark
from roofline_widget.widget.roof_marks import CeilingMarks
from roofline_widget.widget.roofs import classify
from roofline_widget.widget.shared_looks import SharedLooks
from roofline_widget.widget.state import UpdateGuard

__all__ = ["INTERACTIONS", "Interactions", "LazyLayers", "RooflineFigure"]

#: Figure interactions by name; "inspect" is none (bqplot's PanZoom swallows hover and
#: click, bqplot issue #1352), so it gives tooltips and click selection; "brush" and
#: "lasso" are none too: the kernel selects from the mouse path (``widget.pointer``).
INTERACTIONS = ("inspect", "pan-zoom", "brush", "lasso")


@contextmanager
def holding(*items) -> Iterator[None]:
    """``hold_sync`` on several widgets at once: one message per widget."""
    with ExitStack() as stack:
        for item in items:
            stack.enter_context(item.hold_sync())
        yield


class RooflineFigure:
    """The bqplot figure of a roofline: scales, axes, marks, tooltip and interactions.

    Parameters
    ----------
    guard : UpdateGuard
        The widget's re-entrancy guard: the figure holds it while it assigns
        its marks, so that the widget's observers of the marks stay quiet.
    looks : SharedLooks, optional
        The layouts and styles its widgets share with the controls around it
        (None: a set of its own, :attr:`looks`).

    Attributes
    ----------
    plot : bqplot.Figure
        The figure widget (DOM class ``roofline-figure``).
    x_scale, y_scale, unit_scale : bqplot.LogScale, bqplot.LogScale, bqplot.LinearScale
        ``unit_scale``: from 0 to 1, the figure's ``scale_x`` and ``scale_y`` and the points' sizes.
    x_axis, y_axis : bqplot.Axis
    points : PointsMark
        The points' marks: SVG up to ``points.threshold`` points, WebGL above
        (``points.active`` draws them; its ``selected`` holds row indices of
        ``scene.points``).
    scatter : bqplot.Scatter
        The SVG points (``points.svg``).
    pointer : PointerTool
        Brush, lasso, and hover and click on WebGL points, from the mouse in the kernel.
    ceilings : bqplot.Lines
        Every ceiling but the main roof, one line each (its ``labels`` are the
        ceilings' labels, not drawn); hovering one shows where its number came
        from (``roof_tooltip``).
    ceiling_labels, ceiling_labels_start : bqplot.Label
        The ceilings' names and values, on their lines inside the plot: the labels
        that end at their anchor, and those that start there (a label below a slope
        starts on it); each holds every ceiling, the other's texts "".
    roof_tooltip : ipywidgets.HTML
        The hover text of a ceiling (DOM class ``roofline-roof-tooltip``).
    roof : bqplot.Lines
        The main roofline, through the ridge point.
    ridge : bqplot.Label
        The ridge point's label.
    tooltip : ipywidgets.HTML
        The hover text of a point (DOM class ``roofline-tooltip``).
    tooltip_css : ipywidgets.HTML
        ``html.TOOLTIP_CSS`` in a hidden ``<style>``, the never shown tooltip of
        ``ridge``: every tooltip of the figure lets clicks through to the marks.
    interactions : Mapping
        bqplot interactions by name (``INTERACTIONS``; None where the kernel does it); the
        pan-zoom interaction is made when first asked for (:class:`Interactions`).
    layers : dict
        The marks of the scene's layers by name (``"ranks"``:
        :class:`~roofline_widget.widget.layers.ranks.SpreadMarks`, ``"levels"``,
        ``"baseline"``, ``"sweep"``), made when first needed (:meth:`layer`, or
        ``layers[name]`` read; what to do with a layer's marks once made:
        :meth:`LazyLayers.when_made`), the spread first, the others in the order they were made.
    scene : Scene or None
        What is drawn.
    looks : SharedLooks
        The layouts and styles shared by the figure's widgets and the controls.
    guidance_line : callable
        ``guidance_line(row)``: the last line of a point's tooltip (its classified
        row), the point's limiting factor and advice; set by the widget ("" until then).
    """

    def __init__(self, guard: UpdateGuard, *, looks: SharedLooks | None = None) -> None:
        self._guard = guard
        self.looks = looks or SharedLooks()
        self.scene: Scene | None = None
        self.guidance_line: Callable[..., str] = lambda _row: ""
        self.layers = LazyLayers(self.layer)
        self._build_marks()
        self.x_axis = bq.Axis(scale=self.x_scale, label=X_LABEL, tick_format="~g",
                              grid_color=AXIS_GRID_COLOR, label_offset="36px")
        self.y_axis = bq.Axis(scale=self.y_scale, label=Y_LABEL, side="left",
                              tick_format="~g", grid_color=AXIS_GRID_COLOR, label_offset="52px")
        self.interactions = Interactions(
            lambda: PanZoom(scales={"x": [self.x_scale], "y": [self.y_scale]}))
        self.plot = bq.Figure(
            marks=[], axes=[self.x_axis, self.y_axis], interaction=None,
            scale_x=self.unit_scale, scale_y=self.unit_scale,
            fig_margin=dict(FIG_MARGIN), layout=widgets.Layout(
                width="100%", min_width=f"{figure_px(MIN_PLOT_PX, 'left', 'right')}px",
                height=f"{figure_px(PLOT_HEIGHT_PX, 'top', 'bottom')}px"),
            _dom_classes=("roofline-figure",), _view_count=0)  # views tracked: PointsMark
        self.points = PointsMark({"x": self.x_scale, "y": self.y_scale, "color": self.color_scale,
                                  "size": self.unit_scale}, self.tooltip, self.plot,
                                 on_marks=self._update_marks)
        self.scatter = self.points.svg
        self.pointer = PointerTool(self, on_new_mark=self._update_marks)
        self._update_marks()
        self.scatter.on_hover(self._on_hover)
        for scale in (self.x_scale, self.y_scale):
            scale.observe(self._on_zoom, names=["min", "max"])
        follow_plot_size(self.plot, lambda: self._on_zoom(None))  # a new width: labels re-spaced

    def _build_marks(self) -> None:
        self.x_scale, self.y_scale = bq.LogScale(), bq.LogScale()
        # A fixed scale (code i is the palette's i-th colour): only the points' codes change
        # with ``color_by``, in one message, so the browser never mixes old codes and new colours.
        self.color_scale = bq.ColorScale(colors=list(PALETTE), min=0, max=len(PALETTE) - 1)
        # the figure's two (each view gets its pixel range) and the sizes': one widget, not 3
        self.unit_scale = bq.LinearScale(min=0, max=1, allow_padding=False)
        self.tooltip = self.looks.html(css=TOOLTIP_CLASS)
        # A <style> applies wherever it is in the page, shown or not; this one is there as long
        # as the figure: bqplot renders a mark's tooltip with the mark (the ridge's, never shown).
        self.tooltip_css = self.looks.html(tooltip_css_html(), display="none")
        self.ceiling_marks = CeilingMarks({"x": self.x_scale, "y": self.y_scale},
                                          self.tooltip_css, looks=self.looks)
        marks = self.ceiling_marks
        self.ceilings, self.roof, self.roof_tooltip = marks.ceilings, marks.roof, marks.roof_tooltip
        self.ceiling_labels, self.ceiling_labels_start = marks.labels, marks.labels_start
        self.ridge = marks.ridge

    @property
    def marks(self) -> list:
        """Every mark, in drawing order (the layers over the ceilings, the points on top).

        The selection outline lies under the points, the hover proxy over the
        WebGL points (whose canvas is always under the SVG marks) and under the SVG ones, the
        flagged points' outlines under the SVG points (whose transparent markers take the hover).
        """
        made = sorted(self.layers, key=lambda name: name != "ranks")  # the spread first
        layer_marks = [mark for name in made for mark in self.layers[name].marks]
        *gl, svg = self.points.marks
        pointer = self.pointer  # the outline once a drag made it, the proxy once a hover did
        outline = [pointer.outline] if pointer.outline is not None else []
        return [*self.roof_marks, *layer_marks, *outline, *gl, *pointer.proxy_marks,
                *self.points.hollow_marks, svg]

    def _update_marks(self) -> None:
        if hasattr(self, "pointer") and self.plot.marks != self.marks:
            self.plot.marks = self.marks

    @property
    def roof_marks(self) -> tuple:
        """The marks drawn from the ceilings."""
        return self.ceiling_marks.marks

    def plot_area(self) -> PlotArea:
        """The plot's height and smallest width (px), from the figure's layout and margins.

        The labels are placed for it (:func:`~roofline_widget.look.plot_area.label_area`).
        A size not given in px (``"60vh"``) counts as the default one.
        """
        return label_area(self.plot)

    def canvas(self) -> LabelCanvas:
        """What the scene's labels are placed for: the widget's canvas of :meth:`plot_area`."""
        return WIDGET_CANVAS.with_area(self.plot_area())

    def frame(self, width: float, height: float) -> PlotFrame | None:
        """Where the scales lie in the figure element drawn ``width`` x ``height`` px (None: no valid range).

        The mouse's pixels become data through it
        (:func:`~roofline_widget.look.plot_area.plot_frame`).
        """
        ranges = self.scale_ranges()
        return None if ranges is None else plot_frame(
            self.plot, width, height, ranges[0], ranges[1], padding_px=mark_padding(self.plot.marks))

    # ------------------------------------------------------------ drawing
    def draw(self, scene: Scene, selected: np.ndarray | None = None) -> None:
        """Draw ``scene``: what changed since the last one, each mark's data replaced in place.

        ``selected``: the rows of ``scene.points`` shown selected, when the points are new.
        """
        previous = self.scene
        points = scene.points
        new_points = previous is None or points is not previous.points
        moved = new_points and (previous is None or points.x is not previous.points.x
                                or points.y is not previous.points.y)
        palette = list(scene.coloring.palette) * (2 if len(scene.coloring.palette) == 1 else 1)
        with self._guard.hold(), holding(self.x_scale, self.y_scale, *self.roof_marks):
            self.scene = scene
            if list(self.color_scale.colors) != palette:  # a colour scale needs two stops
                self.color_scale.colors, self.color_scale.max = palette, len(palette) - 1
            codes = points.codes if points.codes is not None else np.zeros(len(points))
            if moved:
                self.points.assign(points.x, points.y, codes, points.sizes, selected,
                                   points.flagged)
            elif new_points:
                self.points.restyle(codes, points.sizes)
            self._set_ranges(scene.x_range, scene.y_range)
            self.ceiling_marks.draw(scene.roofs, scene.labels)
            self._draw_layers(scene, previous)
            self._update_marks()  # a first theoretical roofline brings its mark
        if moved:
            self.pointer.forget_points()
        self.plot.title = scene.title

    def layer(self, name: str):
        """The marks of the layer ``name`` (``"ranks"``, ``"levels"``, ``"baseline"``), made
        and joined to the figure (after those made before) when first asked for."""
        if name not in self.layers:
            self.layers.add(name, _LAYERS[name][1](self))
            self._update_marks()
        return self.layers[name]

    def _draw_layers(self, scene: Scene, previous: Scene | None) -> None:
        """Each layer's marks draw their part of ``scene`` (a part drawn already is skipped)."""
        drawn = False
        for name, (attribute, _marks) in _LAYERS.items():
            part = getattr(scene, attribute)
            if name not in self.layers and part is None:
                continue
            if previous is not None and name in self.layers \
                    and part is getattr(previous, attribute):
                continue
            self.layer(name).draw(part)
            drawn = True
        if drawn:  # a baseline of another number of runs brings new marks
            self._update_marks()

    def show_selected(self, indices: np.ndarray | None) -> None:
        """Show the rows ``indices`` of the drawn points as selected (None: no selection)."""
        with self._guard.hold():
            self.points.show_selected(indices)

    def set_interaction(self, name: str) -> None:
        """Switch the figure's interaction (one of ``INTERACTIONS``)."""
        self.plot.interaction = self.interactions[name]
        self.pointer.set_mode(name)

    def scale_ranges(self) -> tuple | None:
        """The (x, y) ranges of the scales, or None while one is not a valid log range."""
        return log_ranges(self.x_scale, self.y_scale)

    def on_select(self, callback: Callable[[np.ndarray, bool], None]) -> None:
        """Call ``callback(indices, adding)`` when the browser selects points (click, brush, lasso).

        A click on an SVG point (bqplot's element click, in "inspect"), a brush,
        a lasso and a click on a WebGL point (``pointer``) all select in the
        kernel; a front end that sets the SVG mark's ``selected`` selects too.
        Each gives rows of ``scene.points``; ``adding`` is True when Ctrl, Shift
        or Cmd was held (:attr:`PointerTool.adding`; never for the mark's ``selected``).
        """
        def forward(indices, adding: bool = False):
            if self._guard.active or self.scene is None:
                return
            indices = np.asarray(indices if indices is not None else [], dtype=np.intp)
            callback(indices[(indices >= 0) & (indices < len(self.scene.points))], adding)

        def clicked(_mark, content: dict) -> None:
            index = (content.get("data") or {}).get("index")
            if isinstance(index, int) and self.pointer.mode == "inspect":
                forward([index], self.pointer.adding)

        self.scatter.observe(lambda change: forward(change.new), names="selected")
        self.scatter.on_element_click(clicked)
        self.pointer.on_select(forward)

    def _set_ranges(self, x_range, y_range) -> None:
        self.x_scale.min, self.x_scale.max = x_range
        self.y_scale.min, self.y_scale.max = y_range
        self._set_ticks(x_range, y_range)

    def _set_ticks(self, x_range, y_range) -> None:
        """Both axes' tick format and labels for the ranges, kept apart at the figure's known
        width (:func:`~roofline_widget.widget.axes.label_log_axes`)."""
        label_log_axes(self.plot, x_range, y_range)

    # ------------------------------------------------------------ browser events
    def _on_hover(self, mark, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        scene = self.scene
        if scene is None or not isinstance(index, int) or not 0 <= index < len(scene.points):
            return
        row = classify(scene.point_rows.iloc[[index]], scene.roofline).iloc[0]
        self.tooltip.value = tooltip_html(row, guidance=self.guidance_line(row),
                                          name=scene.points.name_of(index))

    def _on_zoom(self, change) -> None:
        """A scale's range changed (pan/zoom in the browser): new ticks, labels placed again.

        A range the figure sets itself (:meth:`draw`) gets its ticks there, once both scales are set.
        """
        ranges = self.scale_ranges()
        if ranges is None or self._guard.active:
            return
        self._set_ticks(*ranges)
        scene = self.scene
        if scene is None or scene.roofline is None:
            return
        x_range, y_range = ranges
        roofs, labels, _ridge = roof_part(scene.roofline, x_range, y_range, self.canvas(),
                                          scene.obstacles)
        with self._guard.hold(), holding(*self.roof_marks):
            self.ceiling_marks.draw(roofs, labels)


class LazyLayers(dict):
    """The figure's layers by name: a layer not made yet is made when read (``layers["ranks"]``).

    ``name in layers``, ``layers.get(name)`` and iterating see the layers made so far.

    Parameters
    ----------
    make : callable
        ``make(name)`` makes the layer ``name`` and joins it to the figure
        (:meth:`RooflineFigure.layer`, which :meth:`add` s it).
    """

    def __init__(self, make: Callable[[str], object]) -> None:
        super().__init__()
        self._make = make
        self._setup: dict[str, list[Callable]] = {}

    def __missing__(self, name: str):
        if name not in _LAYERS:
            raise KeyError(name)
        return self._make(name)

    def add(self, name: str, marks) -> None:
        """The layer ``name``'s marks, just made: each :meth:`when_made` callback gets them."""
        self[name] = marks
        for setup in self._setup.pop(name, ()):
            setup(marks)

    def when_made(self, name: str, setup: Callable[..., None]) -> None:
        """Call ``setup(marks)`` with the marks of the layer ``name`` once they are made
        (now if they are): a layer nothing draws is never made for it."""
        if name in self:
            setup(self[name])
        else:
            self._setup.setdefault(name, []).append(setup)


class Interactions(Mapping):
    """The figure's bqplot interactions by name (``INTERACTIONS``), None where the kernel does it.

    The pan-zoom interaction is made when first asked for (the user picks it):
    a figure that is never panned sends none to the browser.

    Parameters
    ----------
    pan_zoom : callable
        ``pan_zoom()`` makes the figure's ``bqplot.interacts.PanZoom``.
    """

    def __init__(self, pan_zoom: Callable[[], PanZoom]) -> None:
        self._make = pan_zoom
        self._pan_zoom: PanZoom | None = None

    def __getitem__(self, name: str) -> PanZoom | None:
        if name not in INTERACTIONS:
            raise KeyError(name)
        if name != "pan-zoom":
            return None
        if self._pan_zoom is None:
            self._pan_zoom = self._make()
        return self._pan_zoom

    def __iter__(self) -> Iterator[str]:
        return iter(INTERACTIONS)

    def __len__(self) -> int:
        return len(INTERACTIONS)


#: Each layer's part of the scene and its marks, in drawing order.
_LAYERS = {"ranks": ("spread", SpreadMarks), "levels": ("levels", LevelMarks),
           "baseline": ("comparison", CompareMarks), "sweep": ("sweep", SweepMarks)}
