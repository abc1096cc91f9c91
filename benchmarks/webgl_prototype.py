"""Prototype (outside the package): the roofline's points as a WebGL mark (bqplot-gl ``ScatterGL``).

Used by ``benchmarks/probe_webgl.py`` (what works with ScatterGL, timed in
headless Chromium) and ``benchmarks/bench_browser_ranks.py`` (today's SVG
widget against the same widget with its points drawn by ScatterGL).  Nothing
in ``roofline_widget`` imports it: it is a measuring tool for the design in
``docs/webgl.md``, to be replaced by the package's own switch.

Two pieces:

* :func:`points_figure` - a bare bqplot Figure on log scales with ``n``
  roofline-like points, a roof (SVG Lines) and the widget's interactions
  (brush, lasso), drawn by ``ScatterGL`` or by bqplot's SVG ``Scatter``.
* :func:`draw_points_with_webgl` - swaps a :class:`RooflineWidget`'s point
  scatter for a ``ScatterGL`` with the same traits, scales and interactions,
  so that the widget's own refresh pipeline (filters, peaks, colours) drives it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import bqplot as bq
import numpy as np
from bqplot.interacts import BrushSelector, LassoSelector
from bqplot_gl import ScatterGL

#: The widget's point palette (``roofline_widget.look.style.PALETTE``) is used through
#: the same fixed ColorScale: code i is colour i.
SCATTER_TRAITS = ("x", "y", "color", "size", "selected", "default_size", "stroke",
                  "stroke_width", "selected_style", "unselected_style", "interactions",
                  "tooltip", "tooltip_style", "visible", "marker", "opacities")


def roofline_like_points(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` points under a roof of 200 GB/s and 2,000 GFLOP/s, and a colour code 0-9 each.

    Intensity log-uniform over 0.01-100 FLOP/byte; performance a log-normal
    fraction (median 20 %, at most 100 %) of the attainable GFLOP/s there.
    """
    rng = np.random.default_rng(seed)
    x = 10 ** rng.uniform(-2, 2, n)
    attainable = np.minimum(2000.0, 200.0 * x)
    y = attainable * np.minimum(np.exp(rng.normal(np.log(0.2), 0.8, n)), 1.0)
    return x, y, rng.integers(0, 10, n).astype(float)


@dataclass
class PointsFigure:
    """What :func:`points_figure` builds (the browser probe addresses its parts)."""

    figure: bq.Figure
    points: bq.Scatter
    roof: bq.Lines
    x_scale: bq.LogScale
    y_scale: bq.LogScale
    color_scale: bq.ColorScale
    tooltip: object
    brush: BrushSelector
    lasso: LassoSelector


def points_figure(n: int, *, gl: bool, seed: int = 0, palette=None) -> PointsFigure:
    """A roofline-like Figure of ``n`` points drawn by ScatterGL (``gl``) or by SVG Scatter.

    The Scatter gets the widget's traits: colour codes through a fixed
    ColorScale, black stroke, ``selected_style``/``unselected_style``, hover
    tooltip and click selection.  DOM class ``probe-figure``.
    """
    import ipywidgets as widgets

    from roofline_widget.look import style

    x, y, codes = roofline_like_points(n, seed)
    palette = list(palette or style.PALETTE)
    x_scale, y_scale = bq.LogScale(min=0.005, max=200.0), bq.LogScale(min=1e-3, max=5000.0)
    color_scale = bq.ColorScale(colors=palette, min=0, max=len(palette) - 1)
    tooltip = widgets.HTML("<b>hover</b>")
    mark = ScatterGL if gl else bq.Scatter
    points = mark(x=x, y=y, color=codes,
                  scales={"x": x_scale, "y": y_scale, "color": color_scale},
                  default_size=64, stroke="#222222", stroke_width=0.8, tooltip=tooltip,
                  interactions={"click": "select", "hover": "tooltip"},
                  selected_style={"opacity": 1.0, "stroke": "black", "stroke-width": 2.5},
                  unselected_style={"opacity": 0.45})
    roof_x = np.array([0.005, 10.0, 200.0])
    roof = bq.Lines(x=roof_x, y=np.minimum(2000.0, 200.0 * roof_x), colors=["black"],
                    stroke_width=3, scales={"x": x_scale, "y": y_scale})
    brush = BrushSelector(x_scale=x_scale, y_scale=y_scale, marks=[points], color="steelblue")
    lasso = LassoSelector(x_scale=x_scale, y_scale=y_scale, marks=[points])
    figure = bq.Figure(marks=[roof, points],
                       axes=[bq.Axis(scale=x_scale, label="intensity", tick_format="~g"),
                             bq.Axis(scale=y_scale, orientation="vertical", label="GFLOP/s",
                                     tick_format="~g")],
                       fig_margin={"top": 20, "bottom": 50, "left": 70, "right": 20},
                       animation_duration=0,
                       layout=widgets.Layout(width="800px", height="500px"))
    figure.add_class("probe-figure")
    return PointsFigure(figure, points, roof, x_scale, y_scale, color_scale, tooltip, brush,
                        lasso)


def draw_points_with_webgl(widget) -> ScatterGL:
    """Draw ``widget``'s points with a ScatterGL instead of its SVG Scatter; return the mark.

    The new mark takes every drawing trait of ``widget.figure.scatter``, its
    place in the figure's marks and in the brush/lasso interactions, and the
    figure's attribute ``scatter`` (so the widget's refresh pipeline assigns
    it from then on).  A browser selection on it sets ``widget.selected`` by
    key, as the SVG scatter's does.
    """
    figure = widget.figure
    svg = figure.scatter

    def scales_for(size):
        # ScatterGL applies a size scale to ``default_size`` too when ``size`` is None
        # (90 -> 90 * 90 area: markers 200 px wide); the SVG Scatter does not.
        return svg.scales if size is not None else {
            key: scale for key, scale in svg.scales.items() if key != "size"}

    gl = ScatterGL(scales=scales_for(svg.size),
                   **{name: getattr(svg, name) for name in SCATTER_TRAITS})
    gl.observe(lambda change: setattr(gl, "scales", scales_for(change.new)), names="size")
    for handler in svg._hover_handlers.callbacks:  # the figure's tooltip filler
        gl.on_hover(handler)
    figure.scatter = gl
    figure.plot.marks = [gl if mark is svg else mark for mark in figure.plot.marks]
    for name in ("brush", "lasso"):
        figure.interactions[name].marks = [gl]

    def to_keys(change):
        scene = figure.scene
        if change.new is None or scene is None:
            return
        indices = np.asarray(change.new, dtype=np.intp)
        rows = scene.point_rows.iloc[indices[(indices >= 0) & (indices < len(scene.points))]]
        widget.selected = list(zip(rows["file"].astype(str), rows["rank"].astype(int),
                                   rows["region"].astype(str)))

    gl.observe(to_keys, names="selected")
    svg.visible = False
    return gl


def record_selected(mark, path: str | Path) -> None:
    """Write ``{"n": len(selected), "time": wall clock}`` to ``path`` whenever ``mark.selected`` changes.

    The browser probe reads the file: a kernel-side timestamp of a selection.
    """
    path = Path(path)

    def write(change):
        n = 0 if change.new is None else len(change.new)
        path.write_text(json.dumps({"n": n, "time": time.time()}))

    mark.observe(write, names="selected")
