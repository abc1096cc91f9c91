"""WebGL points without a browser: the mark by count, the fallback, the kernel's brush, lasso and hover.

The browser's side is played by hand: ``plot._view_count`` and the GL
mark's ``_view_count`` are what the front ends report, ``pointer.handle``
gets the events ipyevents sends (positions relative to the figure element,
its size), and ``check_webgl`` is what the kernel's timer calls.  Where the
points lie on the page is checked against bqplot in the browser tests
(tests/browser/test_webgl_points.py); here the mouse's pixels come from the
figure's frame of data corners worked out by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_widget import synthetic_run

from roofline_widget import read_likwid, sample_path
from roofline_widget.look.hit_test import MAX_PATH_VERTICES, inside_box, inside_polygon, nearest_within
from roofline_widget.look.plot_area import mark_padding, plot_frame
from roofline_widget.widget import RooflineWidget
from roofline_widget.widget.points_mark import SVG_MAX_POINTS

PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
GMGPOLAR = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
SIZE = (900.0, 500.0)  # the figure element as a browser reports it


@pytest.fixture(scope="module")
def quickstart_runs():
    return [read_likwid(sample_path(PMGPU)), read_likwid(sample_path(GMGPOLAR))]


@pytest.fixture(scope="module")
def many():
    return synthetic_run(50, 100)  # 5,000 (rank, region) points


def shown(widget) -> RooflineWidget:
    """The figure is displayed in a browser with WebGL (both marks got a view)."""
    widget.figure.plot._view_count = 1
    widget.figure.points.gl._view_count = 1
    return widget


def event(kind: str, at, buttons: int = 0, **keys: bool) -> dict:
    """An ipyevents mouse event; ``keys``: ``ctrlKey``, ``shiftKey``, ``metaKey``."""
    return {"type": kind, "relativeX": float(at[0]), "relativeY": float(at[1]),
            "boundingRectWidth": SIZE[0], "boundingRectHeight": SIZE[1], "buttons": buttons,
            **keys}


def pixels(widget, x, y):
    """Pixel of data (x, y) in the figure element of ``SIZE``."""
    px, py = widget.figure.frame(*SIZE).to_pixels(np.array([x]), np.array([y]))
    return float(px[0]), float(py[0])


def regions(widget) -> list[str]:
    return sorted(region for _file, _rank, region in widget.selected)


# --------------------------------------------------------------------------
# the geometry
# --------------------------------------------------------------------------
def test_plot_frame_of_the_widget_figure_at_900_by_500_px():
    import bqplot as bq

    from roofline_widget.look.plot_area import FIG_MARGIN

    plot = bq.Figure(fig_margin=dict(FIG_MARGIN))
    # a Scatter of default_size 90 keeps sqrt(90) / 2 + 1 = 5.743 px free at each scale end;
    # a Lines mark of stroke 3 keeps 1.5 px
    padding = mark_padding([bq.Scatter(default_size=90), bq.Lines(stroke_width=3)])
    assert padding == pytest.approx(math.sqrt(90) / 2 + 1)
    frame = plot_frame(plot, 900, 500, (0.01, 100.0), (0.1, 1000.0), padding)
    # plot area: 900 - 70 - 16 = 814 px wide, 500 - 24 - 50 = 426 px high, from (70, 24)
    assert frame.plot_box == (70.0, 24.0, 884.0, 450.0)
    # x: 70 + 5.743 .. 884 - 5.743; y adds padding_y 0.025 x 426 = 10.65 px at each end
    assert frame.x_px == pytest.approx((75.743, 878.257), abs=1e-3)
    assert frame.y_px == pytest.approx((450 - 10.65 - 5.743, 24 + 10.65 + 5.743), abs=1e-3)
    # 1 FLOP/byte is the middle of 4 decades, 10 GFLOP/s the middle of 4 decades
    px, py = frame.to_pixels(np.array([1.0, 0.0]), np.array([10.0, 10.0]))
    assert px[0] == pytest.approx((75.743 + 878.257) / 2, abs=1e-3)
    assert py[0] == pytest.approx((433.607 + 40.393) / 2, abs=1e-3)
    assert np.isnan(px[1])  # zero is not on a log axis
    x, y = frame.to_data(px[:1], py[:1])
    assert (x[0], y[0]) == pytest.approx((1.0, 10.0))
    assert frame.contains(70, 24)
    assert not frame.contains(69, 100)


def test_hit_tests_in_pixels():
    px, py = np.array([0.0, 5.0, 10.0, np.nan]), np.array([0.0, 5.0, 10.0, 5.0])
    assert list(inside_box(px, py, (10, 10), (4, 4))) == [1, 2]  # corners in any order, edges in
    square = np.array([(1, 1), (9, 1), (9, 9), (1, 9)])
    assert list(inside_polygon(px, py, square)) == [1]
    assert list(inside_polygon(px, py, square[:2])) == []  # two vertices enclose nothing
    # a concave U: the notch (5, 6) is outside, the arms inside
    u_shape = np.array([(0, 0), (10, 0), (10, 10), (7, 10), (7, 3), (3, 3), (3, 10), (0, 10)])
    assert list(inside_polygon(np.array([5.0, 1.5, 8.5]), np.array([6.0, 6.0, 6.0]),
                               u_shape)) == [1, 2]
    assert nearest_within(px, py, (4.0, 4.0), 2.0) == 1  # sqrt(2) px away
    assert nearest_within(px, py, (2.5, 2.5), 3.0) is None  # 3.54 px to both neighbours
    assert nearest_within(np.array([1.0, 1.0]), np.array([1.0, 1.0]), (1, 1), 1) == 1  # on top
    # a path longer than MAX_PATH_VERTICES is cut there (bounded work for a long drag)
    long = np.array([(0, 0), (10, 0), (10, 10)] + [(0, 10)] * (MAX_PATH_VERTICES + 5))
    assert list(inside_polygon(np.array([9.0]), np.array([2.0]), long)) == [0]


# --------------------------------------------------------------------------
# the mark by count, the fallback
# --------------------------------------------------------------------------
def test_svg_up_to_the_threshold_webgl_above_it(many):
    w = RooflineWidget(many, rank_view="points", include="region_00000")
    points = w.figure.points
    assert len(points.svg.x) == 100
    assert len(points.gl.x) == 0
    assert points.gl not in w.figure.plot.marks  # never in a figure not yet shown
    w.include = ""
    assert len(points.gl.x) == 5000
    assert len(points.svg.x) == 0
    assert points.gl not in w.figure.plot.marks  # still not shown
    w.figure.plot._view_count = 1  # shown: the GL mark joins, under the SVG marks
    marks = w.figure.plot.marks
    assert marks.index(points.gl) < marks.index(points.svg)
    assert w.figure.pointer.proxy_marks == ()  # the hover proxy: made at the first hover
    proxy = w.figure.pointer.proxy  # made when read, joined between the GL and SVG points
    marks = w.figure.plot.marks
    assert marks.index(points.gl) < marks.index(proxy) < marks.index(points.svg)
    assert "WebGL draws the points" in w.controls.status_html.value
    # the same colour codes in both marks: code i is PALETTE[i]
    assert points.gl.scales["color"] is points.svg.scales["color"]
    w.include = "region_0000"  # region_00000 .. region_00009: 1,000 points, SVG again
    assert len(points.svg.x) == 1000
    assert len(points.gl.x) == 0
    assert "WebGL" not in w.controls.status_html.value


def test_webgl_sizes_selection_and_no_size_scale_without_sizes(many):
    w = shown(RooflineWidget(many, rank_view="points"))
    gl = w.figure.points.gl
    # bqplot-gl scales default_size through a size scale too: 90 would become 90 x 90
    assert "size" not in gl.scales
    assert gl.size is None
    w.size_by = "runtime"
    assert "size" in gl.scales
    assert len(gl.size) == 5000
    w.size_by = "none"
    assert "size" not in gl.scales
    assert gl.size is None
    key = w.to_dataframe().iloc[0]
    w.selected = [(key["file"], int(key["rank"]), key["region"])]
    assert len(gl.selected) == 1
    w.selected = []
    assert gl.selected is None  # ScatterGL fades every point for an empty selection


def test_without_webgl_the_points_fall_back_to_svg_with_a_note(many):
    w = RooflineWidget(many, rank_view="points")
    points = w.figure.points
    w.figure.plot._view_count = 1  # the figure has a view, the GL mark none
    points.check_webgl()  # what the kernel's timer does WEBGL_CHECK_SECONDS later
    assert points.webgl == "unavailable"
    assert points.gl not in w.figure.plot.marks
    assert len(points.svg.x) == SVG_MAX_POINTS
    assert len(points.gl.x) == 0
    status = w.controls.status_html.value
    assert "WebGL is not available in this browser" in status
    assert f"drawing the {SVG_MAX_POINTS:,} longest-running" in status
    assert w.max_points == 50_000  # the trait is the user's; the budget in force is SVG's
    points.gl._view_count = 1  # a slow browser: the GL view came after all
    assert points.webgl == "available"
    assert len(points.gl.x) == 5000
    assert len(points.svg.x) == 0
    assert points.gl in w.figure.plot.marks


def test_auto_spreads_over_the_svg_budget_without_webgl(many):
    w = RooflineWidget(many)  # rank_view="auto": 5,000 points within 50,000
    assert not w.figure.layers["ranks"].active
    w.figure.plot._view_count = 1
    w.figure.points.check_webgl()
    assert w.figure.layers["ranks"].active  # 5,000 > 2,000: the spread
    assert "WebGL is not available" in w.controls.status_html.value


def test_levels_and_a_baseline_cap_the_budget_at_svg(many):
    w = shown(RooflineWidget(many, rank_view="points"))
    assert len(w.figure.points.gl.x) == 5000
    w.levels = ["MEM"]  # one SVG level dot per point
    assert len(w.figure.scatter.x) == SVG_MAX_POINTS
    assert len(w.figure.points.gl.x) == 0
    assert "while memory levels are shown" in w.controls.status_html.value
    w.levels = []
    assert len(w.figure.points.gl.x) == 5000
    w.baseline = many  # one SVG arrow per point
    assert len(w.figure.scatter.x) == SVG_MAX_POINTS
    assert "while a baseline is shown" in w.controls.status_html.value


# --------------------------------------------------------------------------
# the mouse: brush, lasso, hover and click in the kernel
# --------------------------------------------------------------------------
def test_brush_selects_the_points_inside_in_the_kernel(quickstart_runs):
    w = RooflineWidget(quickstart_runs)
    w.controls.interaction_choice.value = "brush"
    assert w.figure.plot.interaction is None  # no bqplot selector: the kernel does it
    assert w.figure.pointer.events.prevent_default_action
    # GMGPolar's Setup (3.6 FLOP/byte, 1.95 GFLOP/s) and Solve (8.5, 4.38) lie in
    # 1..20 FLOP/byte x 1..10 GFLOP/s; pmgpu's regions are below 0.3 FLOP/byte
    start, end = pixels(w, 1.0, 10.0), pixels(w, 20.0, 1.0)
    pointer = w.figure.pointer
    pointer.handle(event("mousedown", start, 1))
    assert pointer.outline is None  # made at the first drag, not with the widget
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    pointer.handle(event("mousemove", middle, 1))
    assert pointer.outline.visible
    proxy = pointer.proxy  # made when read (no hover yet)
    marks = w.figure.plot.marks  # drawn under the points and the hover proxy
    assert marks.index(pointer.outline) == marks.index(proxy) - 1
    assert w.selected == []  # nothing is selected before the release
    pointer.handle(event("mouseup", end))
    assert regions(w) == ["Setup", "Solve"]
    # the rectangle is drawn in data coordinates: its corners are the drag's
    assert min(pointer.outline.x) == pytest.approx(1.0, rel=1e-6)
    assert max(pointer.outline.x) == pytest.approx(20.0, rel=1e-6)
    assert "2 selected" in w.controls.status_html.value
    # a drag that started outside the plot area is no brush
    pointer.handle(event("mousedown", (10, 10), 1))
    pointer.handle(event("mouseup", end))
    assert regions(w) == ["Setup", "Solve"]


def test_lasso_selects_the_points_inside_and_a_lost_release_ends_it(quickstart_runs):
    w = RooflineWidget(quickstart_runs)
    w.controls.interaction_choice.value = "lasso"
    pointer = w.figure.pointer
    # pmgpu's four <function_*> regions: 0.057 to 0.25 FLOP/byte, 0.50 to 2.1 GFLOP/s;
    # <init_datastructures> (7e-9 GFLOP/s) lies far below, Setup and Solve far right
    corners = [(0.03, 0.3), (0.5, 0.3), (0.5, 3.0), (0.03, 3.0)]
    path = [pixels(w, x, y) for x, y in corners]
    pointer.handle(event("mousedown", path[0], 1))
    for vertex in path[1:]:
        pointer.handle(event("mousemove", vertex, 1))
    assert len(pointer.path) == 4
    # the button came up outside the figure: the next move without it ends the lasso
    pointer.handle(event("mousemove", path[0], 0))
    assert regions(w) == ["<function_a>", "<function_b>", "<function_c>", "<function_d>"]
    assert pointer.path == []


def test_a_click_on_an_svg_point_selects_in_the_kernel_but_not_while_brushing(quickstart_runs):
    w = RooflineWidget(quickstart_runs)
    scatter = w.figure.scatter
    # no bqplot "click": "select" (its handler fails while bqplot-gl's d3 serves the page)
    assert scatter.interactions == {"hover": "tooltip"}
    solve = list(w.figure.scene.points.rows["region"]).index("Solve")
    click = {"event": "element_click", "data": {"index": solve}}
    scatter._handle_custom_msgs(scatter, click)  # what bqplot sends for a click on the dot
    assert regions(w) == ["Solve"]
    assert list(scatter.selected) == [solve]
    w.selected = []
    w.controls.interaction_choice.value = "brush"
    assert w.figure.pointer.events.prevent_default_action
    scatter._handle_custom_msgs(scatter, click)  # the end of a tiny drag on the dot
    assert w.selected == []
    w.controls.interaction_choice.value = "inspect"
    assert not w.figure.pointer.events.prevent_default_action


def test_ctrl_or_shift_adds_to_the_selection_and_ctrl_click_takes_a_point_out(quickstart_runs):
    w = RooflineWidget(quickstart_runs)
    w.controls.interaction_choice.value = "brush"
    pointer = w.figure.pointer
    # a brush around GMGPolar's Setup (3.6 FLOP/byte, 1.95 GFLOP/s) and Solve (8.5, 4.38)
    pointer.handle(event("mousedown", pixels(w, 1.0, 10.0), 1))
    pointer.handle(event("mouseup", pixels(w, 20.0, 1.0)))
    assert regions(w) == ["Setup", "Solve"]
    # Shift-brush around pmgpu's <function_a..d> (0.057..0.25 FLOP/byte, 0.50..2.1 GFLOP/s): added
    pointer.handle(event("mousedown", pixels(w, 0.03, 3.0), 1, shiftKey=True))
    pointer.handle(event("mouseup", pixels(w, 0.5, 0.3)))
    assert regions(w) == ["<function_a>", "<function_b>", "<function_c>", "<function_d>",
                          "Setup", "Solve"]
    # a plain brush replaces the selection again
    pointer.handle(event("mousedown", pixels(w, 1.0, 10.0), 1))
    pointer.handle(event("mouseup", pixels(w, 5.0, 1.0)))
    assert regions(w) == ["Setup"]
    # in "inspect", a Ctrl-click on an SVG dot adds it; a second Ctrl-click takes it out
    w.controls.interaction_choice.value = "inspect"
    points = list(w.figure.scene.points.rows["region"])
    scatter = w.figure.scatter

    def click(region, **keys):
        pointer.handle(event("mousedown", (0, 0), 1, **keys))  # ipyevents sees the button
        scatter._handle_custom_msgs(scatter, {"event": "element_click",
                                              "data": {"index": points.index(region)}})

    click("Solve", ctrlKey=True)
    assert regions(w) == ["Setup", "Solve"]
    assert sorted(w.figure.scene.points.rows["region"].iloc[list(scatter.selected)]) == ["Setup", "Solve"]
    click("Setup", metaKey=True)
    assert regions(w) == ["Solve"]
    click("<function_a>")  # no key held: the click replaces the selection
    assert regions(w) == ["<function_a>"]


def test_hover_on_webgl_points_moves_the_proxy_and_fills_the_tooltip(many):
    w = shown(RooflineWidget(many, rank_view="points"))
    pointer, drawn = w.figure.pointer, w.figure.scene.points.rows
    row = drawn.iloc[1234]
    at = pixels(w, row["arithmetic_intensity_flops_per_byte"], row["performance_gflops"])
    pointer.handle(event("mousemove", at))
    hovered = drawn.iloc[pointer.hovered]
    hovered_at = pixels(w, hovered["arithmetic_intensity_flops_per_byte"],
                        hovered["performance_gflops"])
    assert math.dist(hovered_at, at) < 1e-6  # point 1234 or one drawn on the same pixel
    assert list(pointer.proxy.x) == [hovered["arithmetic_intensity_flops_per_byte"]]
    assert list(pointer.proxy.color) == [w.figure.scene.points.codes[pointer.hovered]]
    assert hovered["region"] in w.figure.tooltip.value
    # a click on the proxy (bqplot's element click) selects the hovered point
    pointer.proxy._handle_custom_msgs(pointer.proxy, {"event": "element_click",
                                                      "data": {"index": 0}})
    assert w.selected == [(hovered["file"], int(hovered["rank"]), hovered["region"])]
    pointer.handle(event("mouseleave", at))
    assert len(pointer.proxy.x) == 0
    assert pointer.hovered is None
    far = pixels(w, 1e-6, 1e-6)  # nowhere near a point: no proxy
    pointer.handle(event("mousemove", far))
    assert len(pointer.proxy.x) == 0


def test_hover_on_svg_points_is_left_to_bqplot(quickstart_runs):
    w = RooflineWidget(quickstart_runs)
    solve = pixels(w, 8.5, 4.38)
    w.figure.pointer.handle(event("mousemove", solve))
    assert len(w.figure.pointer.proxy.x) == 0


def test_peak_change_with_webgl_points_leaves_the_pointer_alone(many):
    w = shown(RooflineWidget(many, rank_view="points"))
    touched = []
    for mark in (w.figure.points.gl, *w.figure.pointer.marks):  # no outline before a drag
        mark.observe(lambda change: touched.append(change.name), names=["x", "y", "color"])
    w.peak_flops = 1e5
    assert touched == []
    assert w.figure.pointer.outline is None


def test_spread_view_expanded_ranks_are_webgl_points_that_hover_and_click(many):
    w = shown(RooflineWidget(many, rank_view="spread"))
    layer = w.figure.layers["ranks"]
    assert layer.active
    assert len(layer.medians.x) == 50  # one SVG square per region, clicked to expand
    layer.medians._handle_custom_msgs(layer.medians, {"event": "element_click",
                                                      "data": {"index": 0}})
    assert len(w.expanded_regions) == 1
    # 25 regions x 100 ranks = 2,500 expanded rank points: WebGL
    w.expanded_regions = [f"region_{i:05d}" for i in range(25)]
    assert len(w.figure.points.gl.x) == 2500
    assert len(w.figure.scatter.x) == 0
    row = w.figure.scene.points.rows.iloc[7]
    at = pixels(w, row["arithmetic_intensity_flops_per_byte"], row["performance_gflops"])
    w.figure.pointer.handle(event("mousemove", at))
    proxy = w.figure.pointer.proxy
    assert len(proxy.x) == 1
    proxy._handle_custom_msgs(proxy, {"event": "element_click", "data": {"index": 0}})
    hovered = w.figure.scene.points.rows.iloc[w.figure.pointer.hovered]
    assert w.selected == [(hovered["file"], int(hovered["rank"]), hovered["region"])]
    assert hovered["region"] in w.expanded_regions
