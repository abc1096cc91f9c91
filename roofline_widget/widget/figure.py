"""``RooflineFigure``: the widget's bqplot figure, its scales, marks and tooltip.

The figure draws what it is given (:class:`FigureState`, :meth:`RooflineFigure.assign`)
and computes nothing about the data itself except where ceiling labels sit.
To draw more (memory levels, a baseline run, rank whiskers): write a
:class:`~roofline_widget.widget.layers.Layer` and register it with
:meth:`RooflineFigure.add_layer`; its marks are drawn between the ceilings
and the points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd
from bqplot.interacts import BrushSelector, LassoSelector, PanZoom

from .. import style
from ..ceilings import Roofline
from .state import UpdateGuard, classify
from .text import tooltip_html

__all__ = ["FigureState", "RooflineFigure", "INTERACTIONS", "roof_marks_data"]

#: Figure interactions by name; "inspect" is none (bqplot's PanZoom swallows hover and
#: click, bqplot issue #1352), so it gives tooltips and click selection.
INTERACTIONS = ("inspect", "pan-zoom", "brush", "lasso")
_LABEL_OFFSET = (-5, -9)      # px: ceiling labels end left of and sit above their anchor
#: A bandwidth label's right end sits at least this far (a fraction of the decades)
#: along the part of its slope inside the axes.
_SLOPE_LABEL_ALONG = 0.2
_POINTS_PER_LINE = 3          # every ceiling line is padded to this many vertices


@dataclass(frozen=True)
class FigureState:
    """What the figure draws.

    Attributes
    ----------
    points : pandas.DataFrame
        The points drawn (x: ``arithmetic_intensity_flops_per_byte``, y:
        ``performance_gflops``), one Scatter dot per row.
    colors : numpy.ndarray
        Colour code per point (index into ``style.PALETTE``).
    sizes : numpy.ndarray or None
        Marker size per point in [0, 1], None for the default size.
    selected : numpy.ndarray or None
        Row indices of ``points`` shown selected.
    roofline : Roofline or None
        The ceilings (None: no ceilings drawn).
    x_range, y_range : (float, float)
        Axis limits.
    title : str
        Figure title ("" when there are points).
    """

    points: pd.DataFrame
    colors: np.ndarray
    sizes: np.ndarray | None
    selected: np.ndarray | None
    roofline: Roofline | None
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    title: str = ""


def _pad(values) -> list:
    return list(values) + [values[-1]] * (_POINTS_PER_LINE - len(values))


def _label_anchors(ceilings: list[dict], x_range, y_range):
    """Where each ceiling label ends (right-aligned text, drawn just above the point).

    A compute roof's label ends at the right edge of the plot, on its line; a
    bandwidth slope's label sits on the lower-left part of the slope that is
    inside the axes, far enough from the left edge for the text.
    """
    lx0, lx1 = np.log10(x_range)
    ly0, ly1 = np.log10(y_range)
    values = np.array([s["value"] for s in ceilings], dtype=float)
    bandwidth = np.array([s["kind"] == "bandwidth" for s in ceilings])
    slope_end = np.log10([s["x"][-1] for s in ceilings])
    log_b = np.log10(values)
    start = np.maximum(lx0, ly0 - log_b)              # the slope enters the axes here
    end = np.minimum.reduce([slope_end, np.full_like(log_b, lx1), ly1 - log_b])
    # Room for the text left of the anchor, in a plot style.MIN_PLOT_PX wide.
    room = np.array([style.text_px(style.ceiling_label(s)) for s in ceilings]) / style.MIN_PLOT_PX
    anchor = np.maximum(start + _SLOPE_LABEL_ALONG * (end - start), lx0 + room * (lx1 - lx0))
    anchor = np.minimum(anchor, np.maximum(end, start))
    x = np.where(bandwidth, 10.0 ** anchor, x_range[1])
    y = np.where(bandwidth, values * x, values)
    return x, y


def roof_marks_data(roofline: Roofline | None, x_range: tuple[float, float],
                    y_range: tuple[float, float]) -> dict:
    """Arrays for the ceiling Lines and labels, the main roof and the ridge marks ({} for None)."""
    if roofline is None:
        return {}
    segments = roofline.lines(*x_range)
    ceilings = [s for s in segments if s["kind"] != "roof"]
    roof = segments[-1]
    ridge_x = roofline.ridge_point()
    label_x, label_y = _label_anchors(ceilings, x_range, y_range)
    return {
        "ceiling_x": np.array([_pad(s["x"]) for s in ceilings]),
        "ceiling_y": np.array([_pad(s["y"]) for s in ceilings]),
        "ceiling_labels": [style.ceiling_label(s) for s in ceilings],
        "ceiling_colors": [style.LINE_COLORS[s["kind"]] for s in ceilings],
        "label_x": label_x,
        "label_y": label_y,
        "roof_x": np.array(roof["x"]),
        "roof_y": np.array(roof["y"]),
        "roof_labels": [roof["label"]],
        "ridge_x": np.array([ridge_x]),
        "ridge_y": np.array([roofline.peak_flops]),
        "ridge_text": [style.ridge_text(ridge_x)],
    }


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

    Attributes
    ----------
    plot : bqplot.Figure
        The figure widget (DOM class ``roofline-figure``).
    x_scale, y_scale : bqplot.LogScale
    x_axis, y_axis : bqplot.Axis
    scatter : bqplot.Scatter
        The points; its ``selected`` holds row indices of ``state.points``.
    ceilings : bqplot.Lines
        Every ceiling but the main roof, one line each.
    ceiling_labels : bqplot.Label
        The ceilings' names and values, on their lines inside the plot.
    roof : bqplot.Lines
        The main roofline, through the ridge point.
    ridge : bqplot.Label
        The ridge point's label.
    tooltip : ipywidgets.HTML
        The hover text of a point (DOM class ``roofline-tooltip``).
    interactions : dict
        bqplot interactions by name (``INTERACTIONS``).
    layers : dict
        The registered layers by name (:meth:`add_layer`).
    state : FigureState or None
        What is drawn.
    """

    def __init__(self, guard: UpdateGuard) -> None:
        self._guard = guard
        self.state: FigureState | None = None
        self.layers: dict = {}
        self._build_marks()
        self.x_axis = bq.Axis(scale=self.x_scale, label=style.X_LABEL, tick_format="~g",
                              grid_color="#e6e6e6", label_offset="36px")
        self.y_axis = bq.Axis(scale=self.y_scale, label=style.Y_LABEL, side="left",
                              tick_format="~g", grid_color="#e6e6e6", label_offset="52px")
        self.interactions = {
            "inspect": None,
            "pan-zoom": PanZoom(scales={"x": [self.x_scale], "y": [self.y_scale]}),
            "brush": BrushSelector(x_scale=self.x_scale, y_scale=self.y_scale,
                                   marks=[self.scatter], color="steelblue"),
            "lasso": LassoSelector(x_scale=self.x_scale, y_scale=self.y_scale,
                                   marks=[self.scatter]),
        }
        self.plot = bq.Figure(
            marks=self.marks, axes=[self.x_axis, self.y_axis], interaction=None,
            fig_margin={"top": 24, "bottom": 50, "left": 70, "right": 16},
            layout=widgets.Layout(width="100%", min_width="320px", height="500px"))
        self.plot.add_class("roofline-figure")
        self.scatter.on_hover(self._on_hover)
        for scale in (self.x_scale, self.y_scale):
            scale.observe(self._on_zoom, names=["min", "max"])

    def _build_marks(self) -> None:
        self.x_scale = bq.LogScale()
        self.y_scale = bq.LogScale()
        # A fixed scale (code i is PALETTE[i]): only the points' codes change with
        # ``color_by``, in one message, so the browser never mixes old codes and new colours.
        color_scale = bq.ColorScale(colors=list(style.PALETTE), min=0, max=len(style.PALETTE) - 1)
        self.tooltip = widgets.HTML()
        self.tooltip.add_class("roofline-tooltip")
        self.scatter = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
            scales={"x": self.x_scale, "y": self.y_scale, "color": color_scale,
                    "size": bq.LinearScale(min=0, max=1)},
            default_size=90, stroke="#222222", stroke_width=0.8, tooltip=self.tooltip,
            interactions={"click": "select", "hover": "tooltip"},
            # bqplot applies these only while a selection exists.
            selected_style={"opacity": 1.0, "stroke": "black", "stroke-width": 2.5},
            unselected_style={"opacity": 0.45})
        scales = {"x": self.x_scale, "y": self.y_scale}
        # The Lines' own labels sit at the line ends, clipped at the right edge:
        # ``ceiling_labels`` draws them on the lines instead.
        self.ceilings = bq.Lines(
            x=np.ones((1, _POINTS_PER_LINE)), y=np.ones((1, _POINTS_PER_LINE)), scales=scales,
            line_style="dashed", stroke_width=1.5, labels_visibility="none", visible=False)
        self.roof = bq.Lines(x=np.ones(2), y=np.ones(2), scales=scales, colors=["black"],
                             stroke_width=3, visible=False)
        # Labels, not Scatters: the browser tests count the points' ``.dot`` elements.
        self.ceiling_labels = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=scales, default_size=style.LABEL_SIZE,
            font_weight="normal", align="end", x_offset=_LABEL_OFFSET[0],
            y_offset=_LABEL_OFFSET[1], visible=False)
        self.ridge = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=scales, colors=[style.RIDGE_COLOR],
            default_size=style.LABEL_SIZE, font_weight="normal", align="start", x_offset=6,
            y_offset=12, visible=False)

    @property
    def marks(self) -> list:
        """Every mark, in drawing order (the layers over the ceilings, the points on top)."""
        layer_marks = [mark for layer in self.layers.values() for mark in layer.marks]
        return [*self.roof_marks, *layer_marks, self.scatter]

    def add_layer(self, name: str, layer) -> None:
        """Register ``layer`` (a :class:`~roofline_widget.widget.layers.Layer`) as ``name``.

        Its marks join the figure at once, drawn over the ceilings and under
        the points, in the order the layers were added.
        """
        if name in self.layers:
            raise ValueError(f"a layer named {name!r} is already registered")
        self.layers[name] = layer
        self.plot.marks = self.marks

    @property
    def roof_marks(self) -> tuple:
        """The marks drawn from the ceilings."""
        return self.ceilings, self.roof, self.ceiling_labels, self.ridge

    # ------------------------------------------------------------ assigning
    def assign(self, state: FigureState) -> None:
        """Draw ``state``: every mark's data replaced in place, one message per mark."""
        roof_data = roof_marks_data(state.roofline, state.x_range, state.y_range)
        points = state.points
        x = points["arithmetic_intensity_flops_per_byte"].to_numpy(dtype=float)
        y = points["performance_gflops"].to_numpy(dtype=float)
        with self._guard.hold(), holding(self.scatter, self.x_scale, self.y_scale,
                                         *self.roof_marks):
            self.state = state
            self.scatter.x, self.scatter.y = x, y
            self.scatter.color, self.scatter.size = state.colors, state.sizes
            self.scatter.selected = state.selected
            self._set_ranges(state.x_range, state.y_range)
            self._assign_roof_marks(roof_data)
        self.plot.title = state.title

    def assign_roofline(self, roofline: Roofline | None, x_range: tuple[float, float],
                        y_range: tuple[float, float]) -> None:
        """New ceilings and axis limits; the points' arrays are not sent again."""
        roof_data = roof_marks_data(roofline, x_range, y_range)
        with self._guard.hold(), holding(self.x_scale, self.y_scale, *self.roof_marks):
            self.state = _replace(self.state, roofline=roofline, x_range=x_range,
                                  y_range=y_range)
            self._set_ranges(x_range, y_range)
            self._assign_roof_marks(roof_data)

    def restyle(self, colors: np.ndarray, sizes: np.ndarray | None) -> None:
        """New colour codes and sizes of the drawn points, in one message."""
        with self._guard.hold(), self.scatter.hold_sync():
            self.state = _replace(self.state, colors=colors, sizes=sizes)
            self.scatter.color, self.scatter.size = colors, sizes

    def show_selected(self, indices: np.ndarray | None) -> None:
        """Show the rows ``indices`` of the drawn points as selected (None: no selection)."""
        with self._guard.hold():
            self.state = _replace(self.state, selected=indices)
            self.scatter.selected = indices

    def set_interaction(self, name: str) -> None:
        """Switch the figure's interaction (one of ``INTERACTIONS``)."""
        self.plot.interaction = self.interactions[name]

    def scale_ranges(self) -> tuple | None:
        """The (x, y) ranges of the scales, or None while one is not a valid log range."""
        ranges = ((self.x_scale.min, self.x_scale.max), (self.y_scale.min, self.y_scale.max))
        if all(low is not None and high is not None and 0 < low < high for low, high in ranges):
            return ranges
        return None

    def on_select(self, callback: Callable[[np.ndarray], None]) -> None:
        """Call ``callback(indices)`` when the browser selects points (click, brush, lasso)."""
        def forward(change):
            if self._guard.active or self.state is None:
                return
            indices = np.asarray(change.new if change.new is not None else [], dtype=np.intp)
            callback(indices[(indices >= 0) & (indices < len(self.state.points))])

        self.scatter.observe(forward, names="selected")

    def _set_ranges(self, x_range, y_range) -> None:
        self.x_scale.min, self.x_scale.max = x_range
        self.y_scale.min, self.y_scale.max = y_range
        self._set_tick_formats(x_range, y_range)

    def _set_tick_formats(self, x_range, y_range) -> None:
        self.x_axis.tick_format = style.tick_format(*x_range)
        self.y_axis.tick_format = style.tick_format(*y_range)

    def _assign_roof_marks(self, data: dict) -> None:
        visible = bool(data)
        for mark in self.roof_marks:
            mark.visible = visible
        if not visible:
            return
        self.ceilings.x, self.ceilings.y = data["ceiling_x"], data["ceiling_y"]
        self.ceilings.labels = data["ceiling_labels"]
        self.ceilings.colors = data["ceiling_colors"]
        self.ceiling_labels.x, self.ceiling_labels.y = data["label_x"], data["label_y"]
        self.ceiling_labels.text = data["ceiling_labels"]
        self.ceiling_labels.colors = data["ceiling_colors"]
        self.roof.x, self.roof.y = data["roof_x"], data["roof_y"]
        self.roof.labels = data["roof_labels"]
        self.ridge.x, self.ridge.y = data["ridge_x"], data["ridge_y"]
        self.ridge.text = data["ridge_text"]

    # ------------------------------------------------------------ browser events
    def _on_hover(self, mark, content: dict) -> None:
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        state = self.state
        if state is None or not isinstance(index, int) or not 0 <= index < len(state.points):
            return
        row = classify(state.points.iloc[[index]], state.roofline).iloc[0]
        self.tooltip.value = tooltip_html(row)

    def _on_zoom(self, change) -> None:
        """A scale's range changed (pan/zoom in the browser): new ticks, ceilings redrawn."""
        ranges = self.scale_ranges()
        if ranges is None:
            return
        self._set_tick_formats(*ranges)
        if self._guard.active or self.state is None or self.state.roofline is None:
            return
        data = roof_marks_data(self.state.roofline, *ranges)
        with self._guard.hold(), holding(*self.roof_marks):
            self._assign_roof_marks(data)


def _replace(state: FigureState | None, **changes) -> FigureState | None:
    """``state`` with some fields changed (None stays None)."""
    return None if state is None else replace(state, **changes)
