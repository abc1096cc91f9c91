"""Mouse gestures on the figure, handled in the kernel: brush, lasso, and hover and click on WebGL points.

bqplot's own selectors cannot serve the widget: with bqplot-gl installed
its lab extension's copy of d3 wins the page's module sharing and bqplot's
BrushSelector never sees its events (docs/webgl.md, 3.1), and the
LassoSelector selects nothing on a ScatterGL.  WebGL points have no DOM
element either, so bqplot has no hover or click on them.  So the widget
takes the mouse from ipyevents (a pip-installed widget extension: the
pointer's position in the figure element, throttled) and does the rest in
the kernel, one rule for SVG and WebGL points:

- brush and lasso: the drag's path is drawn as a bqplot ``Lines`` mark (the
  rectangle or the free shape), and on release the points inside it
  (:mod:`roofline_widget.look.hit_test`, in pixels of
  :meth:`RooflineFigure.frame`) become the selection;
- hover on WebGL points: the nearest drawn point within
  :data:`HOVER_RADIUS_PX` gets a one-dot SVG "proxy" under the pointer,
  with the figure's tooltip filled for that point; bqplot shows the tooltip
  and a click on the proxy selects the point.

With Ctrl, Shift or Cmd held when the button goes down, what a gesture or a
click selects is added to the selection (:attr:`PointerTool.adding`; the
rule is :func:`~roofline_widget.widget.point_keys.with_keys`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import bqplot as bq
import numpy as np
from ipyevents import Event

from roofline_widget.look.hit_test import MAX_PATH_VERTICES, inside_box, inside_polygon, nearest_within
from roofline_widget.look.markers import POINT_SIZE
from roofline_widget.widget.html import TOOLTIP_STYLE, tooltip_html
from roofline_widget.widget.roofs import classify

if TYPE_CHECKING:
    from roofline_widget.widget.figure import RooflineFigure

__all__ = ["HOVER_RADIUS_PX", "MOVE_WAIT_MS", "SELECTION_COLOR", "PointerTool"]

#: Most distance (CSS px) from the pointer to a WebGL point it hovers.
HOVER_RADIUS_PX = 9.0
#: While hovering, mouse moves reach the kernel at most once per this many milliseconds;
#: while dragging a shape every move does (the lasso keeps each vertex), and the kernel
#: redraws the outline at most this often.
MOVE_WAIT_MS = 50
#: The colour of the brush rectangle and the lasso's path.
SELECTION_COLOR = "steelblue"
_GESTURES = ("brush", "lasso")
_EVENTS = ["mousedown", "mousemove", "mouseup", "mouseleave"]


class PointerTool:
    """The mouse in one figure: brush, lasso, hover and click on WebGL points.

    Parameters
    ----------
    figure : RooflineFigure
        Its scales, drawn points (``figure.scene.points``) and :meth:`~RooflineFigure.frame`.
    on_new_mark : callable
        ``on_new_mark()`` when a mark was made (the outline, the proxy): the figure takes
        :attr:`marks` again.

    Attributes
    ----------
    events : ipyevents.Event
        The mouse events of ``figure.plot``.
    outline : bqplot.Lines or None
        The brush rectangle or the lasso path, made at the first drag (None until then).
    proxy : bqplot.Scatter
        One dot over the hovered WebGL point (no dot otherwise: the tests count the
        figure's ``.dot`` elements), with the figure's tooltip; made and joined to the
        figure at the first hover over a WebGL point (or when first read).
    mode : str
        The figure's interaction (``figure.INTERACTIONS``); only "inspect",
        "brush" and "lasso" use the mouse here.
    hovered : int or None
        The drawn point under the proxy.
    path : list of (float, float)
        The pixels of the drag in progress (empty when none).
    adding : bool
        Ctrl, Shift or Cmd was held at the last mousedown: the next selection adds to
        the current one.
    """

    def __init__(self, figure: RooflineFigure, on_new_mark: Callable[[], None]) -> None:
        self._figure = figure
        self._on_new_mark = on_new_mark
        self._select: Callable[[np.ndarray, bool], None] | None = None
        self._pixels: tuple | None = None
        self.mode = "inspect"
        self.hovered: int | None = None
        self.path: list[tuple[float, float]] = []
        self.adding = False
        self._drawn_at = 0.0
        self.outline: bq.Lines | None = None
        self._proxy: bq.Scatter | None = None
        self.events = Event(source=figure.plot, watched_events=list(_EVENTS), wait=MOVE_WAIT_MS,
                            throttle_or_debounce="throttle")
        self.events.on_dom_event(self.handle)

    @property
    def marks(self) -> tuple:
        """The outline (under the points) and the proxy, those made so far."""
        return (*(() if self.outline is None else (self.outline,)), *self.proxy_marks)

    @property
    def proxy_marks(self) -> tuple:
        """The proxy once made (the first hover over a WebGL point, or :attr:`proxy` read)."""
        return () if self._proxy is None else (self._proxy,)

    @property
    def proxy(self) -> bq.Scatter:
        """The hover proxy, made (and joined to the figure) when first needed."""
        if self._proxy is None:
            figure = self._figure
            self._proxy = bq.Scatter(
                x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
                scales={"x": figure.x_scale, "y": figure.y_scale, "color": figure.color_scale},
                default_size=POINT_SIZE, stroke="black", stroke_width=1.5, tooltip=figure.tooltip,
                tooltip_style=dict(TOOLTIP_STYLE), interactions={"hover": "tooltip"})
            self._proxy.on_element_click(lambda _mark, _content: self._click_hovered())
            self._on_new_mark()
        return self._proxy

    def on_select(self, callback: Callable[[np.ndarray, bool], None]) -> None:
        """Call ``callback(indices, adding)`` (rows of the drawn points; :attr:`adding`) after a
        brush, lasso or proxy click."""
        self._select = callback

    def set_mode(self, mode: str) -> None:
        """Switch the gesture ("brush", "lasso", anything else: hover only)."""
        self.mode = mode
        self.path = []
        self._hide_proxy()
        gesture = mode in _GESTURES
        with self.events.hold_sync():
            # no text selection or page scroll while dragging a shape; every vertex of it
            self.events.prevent_default_action = gesture
            self.events.wait = 0 if gesture else MOVE_WAIT_MS

    def forget_points(self) -> None:
        """The drawn points or the axes changed: pixels are worked out again, the proxy hidden."""
        self._pixels = None
        self._hide_proxy()

    # ------------------------------------------------------------ events
    def handle(self, event: dict) -> None:
        """One mouse event from ipyevents (``type``, ``relativeX/Y``, ``boundingRectWidth/Height``)."""
        kind = event.get("type")
        if kind == "mousedown":
            self.adding = any(bool(event.get(key)) for key in ("ctrlKey", "shiftKey", "metaKey"))
        try:
            at = (float(event["relativeX"]), float(event["relativeY"]))
            size = (float(event["boundingRectWidth"]), float(event["boundingRectHeight"]))
        except (KeyError, TypeError, ValueError):
            return
        if self.mode in _GESTURES:
            self._gesture(kind, at, size, int(event.get("buttons") or 0))
        elif self.mode == "inspect":
            self._hover(kind, at, size)

    def _gesture(self, kind, at, size, buttons: int) -> None:
        frame = self._figure.frame(*size)
        if frame is None:
            return
        if kind == "mousedown":
            self.path = [at] if frame.contains(*at) else []
            return
        if not self.path:
            return
        released = kind in ("mouseup", "mouseleave") or (kind == "mousemove" and not buttons & 1)
        if self.mode == "brush":
            self.path = [self.path[0], at]
        elif len(self.path) < MAX_PATH_VERTICES:
            self.path.append(at)
        now = time.monotonic()
        if released or now - self._drawn_at >= MOVE_WAIT_MS / 1000:
            self._drawn_at = now
            self._draw_outline(frame)
        if released:
            self._finish(frame)

    def _outline_pixels(self) -> np.ndarray:
        if self.mode == "brush":
            (x0, y0), (x1, y1) = self.path[0], self.path[-1]
            return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)])
        return np.array([*self.path, self.path[0]])

    def _draw_outline(self, frame) -> None:
        x, y = frame.to_data(*self._outline_pixels().T)
        if self.outline is None:  # the first drag: no mark for it before
            figure = self._figure
            self.outline = bq.Lines(x=x, y=y, scales={"x": figure.x_scale, "y": figure.y_scale},
                                    colors=[SELECTION_COLOR], fill="inside",
                                    fill_colors=[SELECTION_COLOR], fill_opacities=[0.12],
                                    stroke_width=1.5, labels_visibility="none")
            self._on_new_mark()
            return
        with self.outline.hold_sync():
            self.outline.x, self.outline.y = x, y
            self.outline.visible = True

    def _finish(self, frame) -> None:
        px, py = self._points_pixels(frame)
        if self.mode == "brush":
            rows = inside_box(px, py, self.path[0], self.path[-1])
        else:
            rows = inside_polygon(px, py, np.array(self.path))
        self.path = []
        if self._select is not None:
            self._select(rows, self.adding)

    def _points_pixels(self, frame) -> tuple[np.ndarray, np.ndarray]:
        """Pixels of the drawn points in ``frame``, computed once per points and frame."""
        scene = self._figure.scene
        if scene is None:
            return np.zeros(0), np.zeros(0)
        points = scene.points.x
        if self._pixels is None or self._pixels[0] is not points or self._pixels[1] != frame:
            pixels = frame.to_pixels(points, scene.points.y)
            self._pixels = (points, frame, pixels)
        return self._pixels[2]

    # ------------------------------------------------------------ hover on WebGL points
    def _hover(self, kind, at, size) -> None:
        if kind == "mouseleave" or not self._figure.points.uses_webgl:
            self._hide_proxy()
            return
        if kind != "mousemove":
            return
        frame = self._figure.frame(*size)
        if frame is None:
            return
        index = nearest_within(*self._points_pixels(frame), at, HOVER_RADIUS_PX)
        if index is None:
            self._hide_proxy()
        elif index != self.hovered:
            self._show_proxy(index)

    def _show_proxy(self, index: int) -> None:
        scene = self._figure.scene
        if scene is None or not 0 <= index < len(scene.points):
            return
        points = scene.points
        judged = classify(scene.point_rows.iloc[[index]], scene.roofline).iloc[0]
        self._figure.tooltip.value = tooltip_html(judged, guidance=self._figure.guidance_line(judged),
                                                   name=points.name_of(index))
        self.hovered = index
        with self.proxy.hold_sync():
            self.proxy.x, self.proxy.y = points.x[index:index + 1], points.y[index:index + 1]
            codes = points.codes if points.codes is not None else np.zeros(len(points))
            self.proxy.color = np.asarray(codes[index:index + 1], dtype=float)

    def _hide_proxy(self) -> None:
        self.hovered = None
        if self._proxy is not None and len(self._proxy.x):
            with self.proxy.hold_sync():
                self.proxy.x = self.proxy.y = self.proxy.color = np.zeros(0)

    def _click_hovered(self) -> None:
        if self.hovered is not None and self._select is not None:
            self._select(np.array([self.hovered], dtype=np.intp), self.adding)
