"""Arrow heads and per-run markers of the widget's baseline layer (widget/compare_layer.py).

The head geometry is checked on hand-worked segments first; then on the real pair (samples 2
and 16: "give" the baseline, "take" the widget's data) and the real thread-scaling chain
(sample 17: GMGPolar "give" on 1537x2048 with 1, 2 and 8 threads, MEM_DP).
"""

from __future__ import annotations

import math

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pytest

from roofline_widget import RooflineWidget, compare_points, points_dataframe, read_likwid, sample_path
from roofline_widget.look.arrows import (
    HEAD_GAP_PX,
    bqplot_rotation,
    head_positions,
    head_rotation,
    screen_angle,
)
from roofline_widget.look.markers import HEAD_MARKER, RUN_MARKERS, run_marker
from roofline_widget.look.plot_area import ASSUMED_FIGURE_WIDTH_PX, scale_size
from roofline_widget.widget.html import runs_legend_html

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
CHAIN = {f"{n}t": f"gmgpolar_skx4s_lw50_MEM_DP_compact{n}t_1537x2048_give.txt" for n in (1, 2, 8)}
X, Y = "arithmetic_intensity_flops_per_byte", "performance_gflops"

# Sample 17 worked by hand (MEM_DP; per region the SUM over threads of DP [MFLOP/s] and of
# Memory bandwidth [MBytes/s], both / 1000):
# 1t (Core 0 only): Setup 886.0070 MFLOP/s, 383.2403 MB/s; Solve 1253.7118, 444.7203
# 2t: Setup 731.8279 + 707.4428 = 1439.2707 (STAT Sum 1439.2707), 747.5346 + 0;
#     Solve 1218.4619 + 1214.3463 = 2432.8082 (STAT Sum 2432.8082), 1058.3472 + 0
BY_HAND = {
    "1t": {"Setup": (886.0070 / 383.2403, 0.8860070),
           "Solve": (1253.7118 / 444.7203, 1.2537118)},
    "2t": {"Setup": ((731.8279 + 707.4428) / 747.5346, (731.8279 + 707.4428) / 1000),
           "Solve": ((1218.4619 + 1214.3463) / 1058.3472, (1218.4619 + 1214.3463) / 1000)},
}


def run(name):
    return read_likwid(sample_path(name))


def angle_between(a, b) -> float:
    """Smallest difference of two angles in degrees."""
    d = abs(a - b) % 360
    return min(d, 360 - d)


# ---------------------------------------------------------------------------
# the geometry, by hand
# ---------------------------------------------------------------------------
SQUARE = (400.0, 400.0)
TWO_DECADES = (1.0, 100.0)


def test_one_decade_right_and_up_on_a_square_plot_is_45_degrees():
    # +1 decade in x and in y; both axes show 2 decades over 400 px: 200 px right, 200 px up
    angle = screen_angle(1.0, 1.0, 10.0, 10.0, TWO_DECADES, TWO_DECADES, SQUARE)
    assert angle == pytest.approx(45.0)
    # bqplot turns a triangle-up (pointing up at 0) clockwise: up-right is 45 degrees
    assert bqplot_rotation(angle) == pytest.approx(45.0)
    assert head_rotation(1.0, 1.0, 10.0, 10.0, TWO_DECADES, TWO_DECADES, SQUARE) == \
        pytest.approx(45.0)


@pytest.mark.parametrize(("end", "angle", "rotation"), [
    ((10.0, 1.0), 0.0, 90.0),      # right
    ((1.0, 10.0), 90.0, 0.0),      # up
    ((0.1, 1.0), 180.0, 270.0),    # left
    ((1.0, 0.1), -90.0, 180.0),    # down
    ((0.1, 10.0), 135.0, 315.0),   # up-left
    ((0.1, 0.1), -135.0, 225.0),   # down-left
])
def test_the_four_directions_and_diagonals(end, angle, rotation):
    ranges = (0.01, 100.0)
    assert screen_angle(1.0, 1.0, *end, ranges, ranges, SQUARE) == pytest.approx(angle)
    assert head_rotation(1.0, 1.0, *end, ranges, ranges, SQUARE) == pytest.approx(rotation)


def test_decades_and_pixels_of_each_axis_count():
    # x: 4 decades over 800 px (200 px per decade), y: 1 decade over 400 px (400 px per
    # decade): +1 decade in both is 200 px right, 400 px up: atan2(400, 200) = 63.43 degrees
    angle = screen_angle(1.0, 1.0, 10.0, 10.0, (1.0, 1e4), (1.0, 10.0), (800.0, 400.0))
    assert angle == pytest.approx(math.degrees(math.atan2(400, 200)))
    assert angle == pytest.approx(63.434948822922)
    assert bqplot_rotation(angle) == pytest.approx(90 - 63.434948822922)
    # the same segment on a plot twice as wide: 400 px right, 400 px up
    assert screen_angle(1.0, 1.0, 10.0, 10.0, (1.0, 1e4), (1.0, 10.0), (1600.0, 400.0)) == \
        pytest.approx(45.0)


def test_many_segments_at_once_and_bad_coordinates():
    x0, y0 = np.array([1.0, 1.0, 1.0, -1.0]), np.array([1.0, 1.0, 1.0, 1.0])
    x1, y1 = np.array([10.0, 1.0, 1.0, 10.0]), np.array([10.0, 0.1, 1.0, 10.0])
    angles = screen_angle(x0, y0, x1, y1, (0.01, 100.0), (0.01, 100.0), SQUARE)
    assert angles[:3] == pytest.approx([45.0, -90.0, 0.0])  # length 0: 0
    assert np.isnan(angles[3])  # a negative coordinate has no place on a log axis
    assert np.isnan(bqplot_rotation(angles)[3])


def test_head_positions_step_back_along_the_segment():
    # 2 decades to the right over 200 px on a 2-decade axis: 200 px long; 20 px back from
    # the end is 0.2 decades back: x = 10**1.8, y stays 1
    x, y = head_positions(1.0, 1.0, 100.0, 1.0, TWO_DECADES, TWO_DECADES, (200.0, 200.0),
                          gap_px=20.0)
    assert x == pytest.approx(10 ** 1.8)
    assert y == pytest.approx(1.0)
    # a diagonal: 10 px back from the end of a 200*sqrt(2) px segment, on the segment
    x, y = head_positions(1.0, 1.0, 100.0, 100.0, TWO_DECADES, TWO_DECADES, (200.0, 200.0),
                          gap_px=10.0)
    back = 10.0 / (200.0 * math.sqrt(2)) * 2  # decades
    assert math.log10(x) == pytest.approx(2 - back)
    assert math.log10(y) == pytest.approx(2 - back)
    # shorter than the gap: the head sits at the start
    x, y = head_positions(1.0, 1.0, 1.1, 1.1, TWO_DECADES, TWO_DECADES, SQUARE, gap_px=50.0)
    assert (x, y) == (pytest.approx(1.0), pytest.approx(1.0))


def test_head_position_stays_on_the_line_whatever_the_plot_size():
    segment = (0.5, 2.0, 20.0, 0.3)
    ranges = ((0.1, 100.0), (0.1, 10.0))
    for size in [(300.0, 600.0), (800.0, 400.0), (2000.0, 300.0)]:
        x, y = head_positions(*segment, *ranges, size)
        # (log x, log y) on the straight line through the ends, between them
        t = (math.log10(x) - math.log10(0.5)) / (math.log10(20.0) - math.log10(0.5))
        assert 0 < t < 1
        assert math.log10(y) == pytest.approx(math.log10(2.0) + t * (math.log10(0.3) -
                                                                      math.log10(2.0)))


def test_scale_size_from_the_figure_layout():
    w = RooflineWidget(run(TAKE))
    plot = w.figure.plot
    assert (plot.layout.width, plot.layout.height) == ("100%", "500px")
    # width unknown: the assumed 900 px less the margins 70 + 16; 500 px less 24 + 50, and
    # bqplot's padding_y 0.025 of it on each side
    assert scale_size(plot) == pytest.approx((ASSUMED_FIGURE_WIDTH_PX - 86, 426 * 0.95))
    assert scale_size(None) == pytest.approx((ASSUMED_FIGURE_WIDTH_PX - 86, 426 * 0.95))
    figure = bq.Figure(layout=widgets.Layout(width="640px", height="300px"),
                       fig_margin={"top": 10, "bottom": 10, "left": 20, "right": 20},
                       padding_x=0.1, padding_y=0.0)
    assert scale_size(figure) == pytest.approx((600 * 0.8, 280))
    # bqplot keeps the box within the aspect ratios: 640 x 300 with at most 1.5 is 450 x 300
    figure.max_aspect_ratio = 1.5
    assert scale_size(figure) == pytest.approx((410 * 0.8, 280))


# ---------------------------------------------------------------------------
# heads in the widget
# ---------------------------------------------------------------------------
@pytest.fixture
def widget():
    return RooflineWidget(run(TAKE), baseline=run(GIVE))


def scale_ranges(w):
    xs, ys = w.figure.x_scale, w.figure.y_scale
    return (xs.min, xs.max), (ys.min, ys.max)


def expected_heads(w):
    lines = w.baseline_layer.lines
    x, y = np.atleast_2d(lines.x), np.atleast_2d(lines.y)
    size = scale_size(w.figure.plot)
    ends = (x[:, 0], y[:, 0], x[:, 1], y[:, 1])
    hx, hy = head_positions(*ends, *scale_ranges(w), size)
    return hx, hy, head_rotation(*ends, *scale_ranges(w), size)


def test_one_head_per_line_at_its_end_turned_along_it(widget):
    layer = widget.baseline_layer
    heads = layer.heads
    assert heads in widget.figure.plot.marks
    assert heads.visible
    assert heads.marker == HEAD_MARKER.bqplot == "triangle-up"
    rotation_scale = heads.scales["rotation"]
    assert isinstance(rotation_scale, bq.LinearScale)
    assert (rotation_scale.min, rotation_scale.max) == (0.0, 180.0)  # identity onto [0, 180]
    assert len(heads.x) == len(heads.rotation) == len(layer.lines.x) == 2
    hx, hy, rotation = expected_heads(widget)
    np.testing.assert_allclose(heads.x, hx, rtol=1e-12)
    np.testing.assert_allclose(heads.y, hy, rtol=1e-12)
    np.testing.assert_allclose(heads.rotation, rotation, rtol=1e-12)
    assert heads.colors == layer.lines.colors
    # Solve goes from give (8.54 FLOP/byte, 4.38 GFLOP/s) to take (1.34, 3.73): left and a
    # little down, so the head points left-down (rotation a bit under 270)
    solve = list(widget.comparison_dataframe()["region"]).index("Solve")
    assert 255 < heads.rotation[solve] < 270
    # the head sits on the line between its ends, near the take point: HEAD_GAP_PX back from
    # it on the assumed plot, the radius of a point (default_size 90 px²: 5.352 px) plus the
    # head's centre-to-tip (bqplot's triangle-up of 64 px²: "M0,-5.264...", as the page shows)
    assert layer.lines.x[solve][1] < heads.x[solve] < layer.lines.x[solve][0]
    assert HEAD_GAP_PX == pytest.approx(math.sqrt(90 / math.pi) + 5.26429605, rel=1e-8)
    (x_lo, x_hi), (y_lo, y_hi) = scale_ranges(widget)
    width, height = scale_size(widget.figure.plot)
    right = math.log10(layer.lines.x[solve][1] / heads.x[solve]) / math.log10(x_hi / x_lo) * width
    up = math.log10(layer.lines.y[solve][1] / heads.y[solve]) / math.log10(y_hi / y_lo) * height
    assert math.hypot(right, up) == pytest.approx(HEAD_GAP_PX, rel=1e-9)


def test_rotation_worked_from_the_axes(widget):
    """Solve's head angle from the scales' ranges by hand."""
    layer = widget.baseline_layer
    solve = list(widget.comparison_dataframe()["region"]).index("Solve")
    (x_lo, x_hi), (y_lo, y_hi) = scale_ranges(widget)
    width, height = (900 - 86, 426 * 0.95)
    (bx, ax), (by, ay) = layer.lines.x[solve], layer.lines.y[solve]
    right = math.log10(ax / bx) / math.log10(x_hi / x_lo) * width
    up = math.log10(ay / by) / math.log10(y_hi / y_lo) * height
    assert layer.heads.rotation[solve] == pytest.approx(
        (90 - math.degrees(math.atan2(up, right))) % 360, rel=1e-12)


def record(mark, names=("x", "y", "rotation")):
    changes = []
    mark.observe(lambda change: changes.append(change.name), names=list(names))
    return changes


def test_peak_drag_that_keeps_the_axes_sends_no_head_arrays(widget):
    heads = widget.baseline_layer.heads
    widget.peak_flops = 4.0  # the ridge moves right: the x axis grows (a drag only grows it)
    ranges, rotation = scale_ranges(widget), heads.rotation
    changes = record(heads)
    widget.peak_flops = 3.9  # dragging back: the axes stay
    widget.peak_flops = 3.8
    assert scale_ranges(widget) == ranges
    assert changes == []
    assert heads.rotation is rotation


def test_heads_turn_again_when_the_axes_move(widget):
    heads = widget.baseline_layer.heads
    before = np.array(heads.rotation)
    changes = record(heads)
    widget.peak_flops = 1000.0  # the y axis grows to hold the roof: lines look flatter
    assert "rotation" in changes
    _, _, rotation = expected_heads(widget)
    np.testing.assert_allclose(heads.rotation, rotation, rtol=1e-12)
    assert not np.allclose(heads.rotation, before)
    # a zoom in the browser sets the scales' ranges: the heads follow
    widget.figure.x_scale.min, widget.figure.x_scale.max = 0.5, 10.0
    hx, _hy, rotation = expected_heads(widget)
    np.testing.assert_allclose(heads.rotation, rotation, rtol=1e-12)
    np.testing.assert_allclose(heads.x, hx, rtol=1e-12)


def test_heads_turn_again_when_the_figure_size_is_given(widget):
    heads = widget.baseline_layer.heads
    before = np.array(heads.rotation)
    widget.figure.plot.layout.width = "500px"  # narrower than assumed: lines look steeper
    assert scale_size(widget.figure.plot)[0] == 500 - 86
    _, _, rotation = expected_heads(widget)
    np.testing.assert_allclose(heads.rotation, rotation, rtol=1e-12)
    assert not np.allclose(heads.rotation, before)


def test_heads_follow_the_filter_and_hide_with_the_lines(widget):
    heads = widget.baseline_layer.heads
    widget.include = "Solve"
    assert len(heads.x) == 1
    assert len(np.atleast_2d(widget.baseline_layer.lines.x)) == 1
    widget.include = "Nothing"
    assert not heads.visible
    assert not widget.baseline_layer.lines.visible
    widget.include = ""
    assert heads.visible
    assert len(heads.x) == 2
    widget.baseline = None
    assert not heads.visible
    assert not any(s.visible for s in widget.baseline_layer.run_points)


# ---------------------------------------------------------------------------
# one marker per run in a chain (sample 17)
# ---------------------------------------------------------------------------
@pytest.fixture
def chain_widget():
    chain = {label: run(name) for label, name in CHAIN.items() if label != "8t"}
    return RooflineWidget(run(CHAIN["8t"]), baseline=chain)


def test_each_run_of_the_chain_has_its_own_scatter_and_shape(chain_widget):
    layer = chain_widget.baseline_layer
    marks = chain_widget.figure.plot.marks
    assert len(layer.run_points) == 2
    assert all(scatter in marks for scatter in layer.run_points)
    assert [s.marker for s in layer.run_points] == ["square", "diamond"] == [m.bqplot for m in RUN_MARKERS[:2]]
    assert chain_widget.figure.scatter.marker == "circle"  # the current run: 8 threads
    assert all(s.fill is False for s in layer.run_points)
    # the chain is drawn as a path: 2 regions x 2 steps, one head per segment
    assert layer.lines.x.shape == (4, 2)
    assert len(layer.heads.x) == 4
    for label, scatter in zip(("1t", "2t"), layer.run_points):
        drawn = layer.drawn_points(label)
        assert list(drawn["run_before"]) == [label] * 2
        assert len(scatter.x) == 2
        # the run's points by hand from its file ...
        for region, x, y in zip(drawn["region"], scatter.x, scatter.y):
            assert (x, y) == (pytest.approx(BY_HAND[label][region][0], rel=1e-12),
                              pytest.approx(BY_HAND[label][region][1], rel=1e-12)), region
        # ... and by points_dataframe on that file alone
        alone = points_dataframe(run(CHAIN[label])).set_index("region")
        np.testing.assert_allclose(scatter.x, alone.loc[list(drawn["region"]), X], rtol=1e-12)
        np.testing.assert_allclose(scatter.y, alone.loc[list(drawn["region"]), Y], rtol=1e-12)
    # the widget's own scatter holds the 8-thread points
    alone = points_dataframe(run(CHAIN["8t"])).set_index("region")
    shown = chain_widget.figure.scene.points.rows
    np.testing.assert_allclose(chain_widget.figure.scatter.x, alone.loc[list(shown["region"]), X],
                               rtol=1e-12)


def test_the_chain_path_joins_the_runs_in_order(chain_widget):
    layer = chain_widget.baseline_layer
    table = compare_points([run(CHAIN["1t"]), run(CHAIN["2t"]), run(CHAIN["8t"])])
    np.testing.assert_allclose(layer.lines.x, table[[X + "_before", X + "_after"]], rtol=1e-12)
    np.testing.assert_allclose(layer.lines.y, table[[Y + "_before", Y + "_after"]], rtol=1e-12)
    # every segment of step 1 starts at a 1t marker and ends where step 2 starts (2t marker)
    one, two = layer.run_points
    assert set(np.round(layer.lines.x[:2, 0], 12)) == set(np.round(one.x, 12))
    assert set(np.round(layer.lines.x[2:, 0], 12)) == set(np.round(two.x, 12))
    _hx, _hy, rotation = expected_heads(chain_widget)
    np.testing.assert_allclose(layer.heads.rotation, rotation, rtol=1e-12)


def test_status_names_each_runs_shape(chain_widget):
    status = chain_widget.controls.status_html.value
    assert "runs: 1t □ square → 2t ◇ diamond → current ● circle" in status


def test_a_hollow_marker_is_hovered_anywhere_inside(chain_widget):
    """A hollow SVG marker is hit on its outline only: over each run's hollow markers lie
    the same markers filled and fully transparent, which carry the tooltip."""
    layer = chain_widget.baseline_layer
    marks = list(chain_widget.figure.plot.marks)
    assert len(layer.run_hits) == len(layer.run_points) == 2
    for seen, hit in zip(layer.run_points, layer.run_hits):
        assert marks.index(hit) > marks.index(seen)  # drawn over it
        assert (hit.marker, hit.default_size) == (seen.marker, seen.default_size)
        np.testing.assert_array_equal(hit.x, seen.x)
        np.testing.assert_array_equal(hit.y, seen.y)
        assert hit.visible
        assert seen.visible
        assert hit.fill is True
        assert hit.opacities == [0.0]
        assert hit.tooltip is layer.tooltip
        assert hit.interactions == {"hover": "tooltip"}
        assert seen.fill is False
        assert seen.tooltip is None
        assert seen.interactions == {}
    assert chain_widget.figure.scatter.marker == "circle"


def test_hover_on_a_runs_marker_shows_that_runs_row(chain_widget):
    layer = chain_widget.baseline_layer
    two = layer.run_hits[1]
    drawn = layer.drawn_points("2t")
    layer._on_hover(two, {"data": {"index": 1}})
    region = drawn.iloc[1]["region"]
    text = layer.tooltip.value
    assert region in text
    assert "2t → current" in text
    assert f"{BY_HAND['2t'][region][1]:.4g} →" in text


def test_labels_are_escaped_and_shapes_cycle_with_a_note():
    labels = ["<1t>", "2t", "a", "b", "c"]
    text = runs_legend_html(labels)
    assert "&lt;1t&gt; □ square" in text
    assert "<1t>" not in text
    assert [run_marker(i) for i in range(5)] == [*RUN_MARKERS, RUN_MARKERS[0]]
    assert "only 4 shapes: c as &lt;1t&gt; share a shape" in text
    w = RooflineWidget(run(CHAIN["8t"]), baseline={label: run(CHAIN["1t"]) for label in labels})
    assert [s.marker for s in w.baseline_layer.run_points] == [
        "square", "diamond", "cross", "triangle-down", "square"]
    assert "&lt;1t&gt; □ square" in w.controls.status_html.value


def test_a_longer_chain_set_later_brings_its_marks():
    w = RooflineWidget(run(CHAIN["8t"]), baseline=run(CHAIN["1t"]))
    layer = w.baseline_layer
    assert len(layer.run_points) == 1
    assert layer.baseline_points.marker == "square"
    w.baseline = {"1t": run(CHAIN["1t"]), "2t": run(CHAIN["2t"])}
    assert len(layer.run_points) == 2
    assert all(scatter in w.figure.plot.marks for scatter in layer.run_points)
    assert layer.lines.x.shape == (4, 2)
    assert len(layer.heads.x) == 4
    assert [len(s.x) for s in layer.run_points] == [2, 2]


# ---------------------------------------------------------------------------
# the same shapes in plot_roofline(baseline=)
# ---------------------------------------------------------------------------
def test_static_plot_draws_one_shape_per_run():
    pytest.importorskip("matplotlib")
    from matplotlib.markers import MarkerStyle

    from roofline_widget.scene.compare import BASELINE_GID
    from roofline_widget.static.plot import plot_roofline

    # the widget's shapes, as matplotlib names them (one table: look.markers)
    assert {m.bqplot: m.matplotlib for m in RUN_MARKERS} == {
        "square": "s", "diamond": "D", "cross": "P", "triangle-down": "v"}
    chain = {label: run(name) for label, name in CHAIN.items() if label != "8t"}
    payload = plot_roofline(run(CHAIN["8t"]), baseline=chain, verbose=False)
    axes = payload["figure"].axes[0]
    hollow = [c for c in axes.collections if c.get_gid() == BASELINE_GID]
    assert len(hollow) == 2
    frame = payload["comparison"]
    for collection, label, marker in zip(hollow, ("1t", "2t"), ("s", "D")):
        expected = MarkerStyle(marker).get_path().transformed(
            MarkerStyle(marker).get_transform()).vertices
        np.testing.assert_allclose(collection.get_paths()[0].vertices, expected)
        rows = frame[frame["run_before"] == label]
        for (x, y), region in zip(collection.get_offsets(), rows["region"]):
            assert (x, y) == (pytest.approx(BY_HAND[label][region][0], rel=1e-12),
                              pytest.approx(BY_HAND[label][region][1], rel=1e-12))
