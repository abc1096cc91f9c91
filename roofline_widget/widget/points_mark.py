"""The points' mark: SVG up to :data:`SVG_MAX_POINTS`, WebGL above it, SVG where WebGL is missing.

:class:`PointsMark` owns two bqplot marks with the same scales and look: an
SVG ``Scatter`` (anti-aliased strokes, one DOM element per point: tooltips and
clicks of its own) and a bqplot-gl ``ScatterGL`` (one WebGL draw for any
number of points; no per-point events, so hover, click, brush and lasso go
through the kernel, :mod:`roofline_widget.widget.pointer`).  Whichever draws
the points, the other one is empty.  A point beyond what its hardware can do
(the scene's ``flagged`` dots, a broken counter) is drawn hollow: fully
transparent in the drawing mark (which still carries its hover and click) and
as an outline in its colour in the SVG mark ``hollow`` under the SVG points
(:mod:`~roofline_widget.widget.hollow_points`).

A dense cloud is drawn with smaller markers (:func:`marker_look`): up to
:data:`SVG_MAX_POINTS` points every marker has the widget's size
(``POINT_SIZE``), beyond it the marker's area falls with the number of points
down to :data:`DENSE_POINT_SIZE` (about 3 px across at 50,000 points).  Small
markers overlap less, so a cloud of 50,000 reads as a density, and the browser
rasterises a tenth of the pixels (software WebGL draws each marker's square).

WebGL may be missing in a browser.  A figure whose first marks hold a
ScatterGL then fails as a whole (a blank plot), a ScatterGL added to a figure
already shown fails alone.  So the GL mark joins the figure's marks only once
the figure has a view in a browser, and the front end's view counts
(``_view_count``) tell the kernel whether the GL mark got one too: if it has
none :data:`WEBGL_CHECK_SECONDS` later, WebGL is taken as unavailable, the
mark leaves the figure and the points are drawn as SVG again
(:meth:`PointsMark.on_fallback`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

import bqplot as bq
import ipywidgets as widgets
import numpy as np
from bqplot_gl import ScatterGL

from roofline_widget.look.colors import POINT_STROKE
from roofline_widget.look.markers import POINT_SIZE
from roofline_widget.widget.hollow_points import UNSELECTED_OPACITY, HollowPoints
from roofline_widget.widget.html import TOOLTIP_STYLE

__all__ = ["DENSE_POINT_SIZE", "POINT_STROKE_WIDTH", "SVG_MAX_POINTS", "WEBGL",
           "WEBGL_CHECK_SECONDS", "PointsMark", "marker_look"]

#: Most points drawn as SVG: the SVG mark draws up to this many, WebGL more; without
#: WebGL it is the point budget (docs/performance.md: a filter costs about 1 s per
#: 2,000 SVG points on the test machine).
SVG_MAX_POINTS = 2000
#: Seconds after the figure is shown in which the WebGL mark must have a view too.
WEBGL_CHECK_SECONDS = 4.0
#: What the kernel knows about the browser's WebGL: not yet shown, working, missing.
WEBGL = ("unknown", "available", "unavailable")
_SELECTED_STYLE = {"opacity": 1.0, "stroke": "black", "stroke-width": 2.5}
#: ScatterGL draws fill, stroke and opacity of a style, not its stroke width.
_GL_SELECTED_STYLE = {"opacity": 1.0, "stroke": "black"}
_UNSELECTED_STYLE = {"opacity": UNSELECTED_OPACITY}
#: The outline's width (px) of a point drawn at ``POINT_SIZE``.
POINT_STROKE_WIDTH = 0.8
#: The smallest marker area (px², bqplot's ``default_size``) of a dense cloud: about 3.2 px
#: across in WebGL.
DENSE_POINT_SIZE = 10
#: How fast the marker's area falls beyond ``SVG_MAX_POINTS`` points: as ``count ** -0.75``.
_DENSITY_EXPONENT = 0.75


def marker_look(count: int) -> tuple[int, float]:
    """The markers' area (px², bqplot's integer ``default_size``) and outline width (px)
    for ``count`` points.

    ``POINT_SIZE`` and ``POINT_STROKE_WIDTH`` up to :data:`SVG_MAX_POINTS` points;
    beyond, the area falls as ``count ** -0.75`` down to :data:`DENSE_POINT_SIZE`, the
    outline with the marker's diameter.

    Examples
    --------
    >>> marker_look(50)
    (90, 0.8)
    >>> [marker_look(n)[0] for n in (5_000, 10_000, 50_000)]
    [45, 27, 10]
    """
    if count <= SVG_MAX_POINTS:
        return POINT_SIZE, POINT_STROKE_WIDTH
    size = max(DENSE_POINT_SIZE,
               round(POINT_SIZE * (SVG_MAX_POINTS / count) ** _DENSITY_EXPONENT))
    return size, POINT_STROKE_WIDTH * math.sqrt(size / POINT_SIZE)


class PointsMark:
    """The points of a roofline figure, drawn as SVG or WebGL by their count.

    Parameters
    ----------
    scales : dict
        ``x``, ``y`` (log) and ``color`` scales of the figure, and ``size`` (from 0 to 1; not
        given: one of its own).
    tooltip : ipywidgets.HTML
        The SVG points' hover text.
    plot : bqplot.Figure
        The figure; its ``_view_count`` is tracked from now on.
    on_marks : callable
        ``on_marks()`` when :attr:`marks` changed (the figure takes them again).

    Attributes
    ----------
    svg : bqplot.Scatter
        The SVG points (DOM ``.dot`` elements); a click on one is an element click.
    gl : bqplot_gl.ScatterGL
        The WebGL points; their ``x`` and ``y`` are sent as float32 (half the bytes: WebGL
        draws float32 positions, bqplot-gl converts any array to them; the tooltips, the
        pointer and the exports read the scene's float64 numbers).
    hollow : bqplot.Scatter
        The outlines of the flagged points (no fill, no hover: the points' own
        transparent markers above it carry the tooltip); in the figure only
        while there are some (:attr:`hollow_marks`), made when first points are flagged.
    webgl : str
        One of :data:`WEBGL`.
    threshold : int
        Above this many points WebGL draws them (:data:`SVG_MAX_POINTS`).
    """

    def __init__(self, scales: dict, tooltip: widgets.HTML, plot: bq.Figure,
                 on_marks: Callable[[], None]) -> None:
        self._plot = plot
        self._on_marks = on_marks
        self._scales = {name: scale for name, scale in scales.items() if name != "size"}
        size = scales.get("size")
        self._size_scale = bq.LinearScale(min=0, max=1) if size is None else size
        self._fallback: Callable[[], None] | None = None
        self._joined = False
        self._dim: np.ndarray | None = None
        self._xy = (np.zeros(0), np.zeros(0))  # the drawn points' float64 positions
        self.webgl = "unknown"
        self.threshold = SVG_MAX_POINTS
        look = dict(default_size=POINT_SIZE, stroke=POINT_STROKE, stroke_width=POINT_STROKE_WIDTH,
                    unselected_style=dict(_UNSELECTED_STYLE))
        # A click selects through the kernel (``on_element_click``): bqplot's own "click":
        # "select" fails while bqplot-gl's copy of d3 serves the page (docs/webgl.md, 0).
        self.svg = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
            scales={**self._scales, "size": self._size_scale}, tooltip=tooltip,
            tooltip_style=dict(TOOLTIP_STYLE), interactions={"hover": "tooltip"},
            # bqplot applies these only while a selection exists.
            selected_style=dict(_SELECTED_STYLE), **look)
        # No size scale while no sizes are given: ScatterGL would scale default_size too.
        self.gl = ScatterGL(x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
                            scales=dict(self._scales), selected_style=dict(_GL_SELECTED_STYLE),
                            interactions={}, visible=False, _view_count=0, **look)
        self._hollow = HollowPoints({**self._scales, "size": self._size_scale})
        self.gl.observe(self._on_gl_views, names="_view_count")
        if plot._view_count is None:
            plot._view_count = 0
        plot.observe(self._on_figure_views, names="_view_count")

    # ------------------------------------------------------------ which mark
    @property
    def marks(self) -> list:
        """The marks in the figure: the GL one (once joined), then the SVG one (on top)."""
        return [self.gl, self.svg] if self._joined else [self.svg]

    @property
    def hollow(self) -> bq.Scatter:
        """The flagged points' outlines (made now if no point was flagged before)."""
        return self._hollow.mark

    @property
    def hollow_marks(self) -> list:
        """``[hollow]`` while it draws outlines, else none (the figure's marks)."""
        return [self._hollow.mark] if self._hollow.drawn else []

    @property
    def uses_webgl(self) -> bool:
        """True when the GL mark draws the points (it may not have joined the figure yet)."""
        return self.webgl != "unavailable" and len(self.gl.x) > 0

    @property
    def active(self) -> bq.Scatter:
        """The mark drawing the points."""
        return self.gl if self.uses_webgl else self.svg

    @property
    def budget(self) -> int | None:
        """The most points the browser can take (:data:`SVG_MAX_POINTS` without WebGL), or None."""
        return SVG_MAX_POINTS if self.webgl == "unavailable" else None

    def on_fallback(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when WebGL turns out to be missing or comes back (re-select the points)."""
        self._fallback = callback

    # ------------------------------------------------------------ assigning
    def assign(self, x: np.ndarray, y: np.ndarray, colors: np.ndarray, sizes: np.ndarray | None,
               selected: np.ndarray | None, flagged: np.ndarray | None = None) -> None:
        """Draw the points with the mark their count asks for; the other mark is emptied.

        ``flagged``: per point, drawn hollow (None: none is).
        """
        gl = len(x) > self.threshold and self.webgl != "unavailable"
        draw, empty = (self.gl, self.svg) if gl else (self.svg, self.gl)
        if self._dim is not None and len(self._dim) != len(x):
            self._dim = None  # other points: whoever dimmed them dims them again
        self._hollow.flagged = flagged if flagged is not None and flagged.any() else None
        size, stroke_width = marker_look(len(x))
        self._xy = (x, y)
        with draw.hold_sync():
            if draw is self.gl:  # what WebGL draws: float32 positions
                draw.x, draw.y = (np.asarray(x, dtype=np.float32),
                                  np.asarray(y, dtype=np.float32))
            else:
                draw.x, draw.y = x, y
            if (draw.default_size, draw.stroke_width) != (size, stroke_width):
                draw.default_size, draw.stroke_width = size, stroke_width
            self._style(draw, colors, sizes)
            draw.selected = _selection(selected)
            self._show_looks(draw)
            draw.visible = True
        if len(empty.x):
            with empty.hold_sync():
                empty.x = empty.y = empty.color = np.zeros(0)
                empty.size = empty.selected = None
                empty.opacities = [1.0]
                empty.visible = empty is self.svg
        if self._hollow.draw(x, y, colors, sizes, size):
            self._on_marks()
        if gl:
            self._join()

    def restyle(self, colors: np.ndarray, sizes: np.ndarray | None) -> None:
        """New colour codes and sizes of the drawn points, in one message."""
        mark = self.active
        with mark.hold_sync():
            self._style(mark, colors, sizes)
        if self._hollow.flagged is not None:
            self._hollow.draw(*self._xy, colors, sizes)

    def show_selected(self, indices: np.ndarray | None) -> None:
        """Show the rows ``indices`` as selected (None or empty: no selection)."""
        mark = self.active
        with mark.hold_sync():
            mark.selected = _selection(indices)
            self._show_looks(mark)

    def dim(self, factors: np.ndarray | None) -> None:
        """Multiply the drawn points' opacities by ``factors`` (one per point; None: none dimmed).

        A highlighted region (``highlight_region``) fades the other regions' points so;
        it lasts until other points are drawn.
        """
        mark = self.active
        if factors is None and self._dim is None:
            return  # nothing dimmed: nothing to send
        self._dim = None if factors is None or len(factors) != len(mark.x) \
            else np.asarray(factors, dtype=float)
        with mark.hold_sync():
            self._show_looks(mark)

    def _show_looks(self, mark: bq.Scatter) -> None:
        """The selection's looks of ``mark``, the flagged points' markers kept transparent."""
        svg = mark is self.svg
        styles = (_SELECTED_STYLE if svg else _GL_SELECTED_STYLE, _UNSELECTED_STYLE)
        self._hollow.show(mark, mark.selected, styles, svg, self._dim)

    def _style(self, mark: bq.Scatter, colors: np.ndarray, sizes: np.ndarray | None) -> None:
        mark.color, mark.size = colors, sizes
        if mark is self.gl:
            scales = dict(self._scales)
            if sizes is not None:
                scales["size"] = self._size_scale
            if set(mark.scales) != set(scales):
                mark.scales = scales

    # ------------------------------------------------------------ WebGL in the browser
    def _join(self) -> None:
        """Put the GL mark into the figure once the figure is shown (never before)."""
        if self._joined or not self._plot._view_count:
            return
        self._joined = True
        self._on_marks()
        _later(WEBGL_CHECK_SECONDS, self.check_webgl)

    def check_webgl(self) -> None:
        """Decide whether WebGL works: the figure is shown, does the GL mark have a view too?

        Called :data:`WEBGL_CHECK_SECONDS` after the GL mark joined the figure.
        """
        if self.webgl != "unknown" or not self._plot._view_count:
            return
        if self.gl._view_count:
            self.webgl = "available"
            return
        self.webgl = "unavailable"
        self._joined = False
        self._on_marks()
        self._refresh()

    def _refresh(self) -> None:
        if self._fallback is not None:
            self._fallback()
        elif len(self.gl.x):  # no owner to re-select: the same points as SVG
            self.assign(np.asarray(self.gl.x), np.asarray(self.gl.y), np.asarray(self.gl.color),
                        self.gl.size, self.gl.selected, self._hollow.flagged)

    def _on_figure_views(self, change) -> None:
        if change.new and len(self.gl.x):
            self._join()

    def _on_gl_views(self, change) -> None:
        if not change.new:
            return
        came_back = self.webgl == "unavailable"
        self.webgl = "available"
        if came_back:  # a slow browser: the view arrived after the check
            self._joined = False
            self._refresh()


def _selection(indices: np.ndarray | None) -> np.ndarray | None:
    """None for no selection: ScatterGL fades every point for an empty one."""
    if indices is None or not len(indices):
        return None
    return np.asarray(indices)


def _later(seconds: float, callback: Callable[[], None]) -> None:
    """Run ``callback`` after ``seconds`` on the kernel's event loop.

    The front end's messages (a view count) are handled on that loop; outside
    one (a script, a test) nothing is scheduled: call ``callback`` yourself.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    loop.call_later(seconds, callback)
