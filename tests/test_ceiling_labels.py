"""Ceiling and ridge labels of the widget: inside the plot and apart at every width from the narrowest.

The numbers are the quickstart's: pmgpu and GMGPolar with the EPYC 7702 spec-sheet peaks (2048
GFLOP/s, 204.8 GB/s: ridge at 10 FLOP/byte) and the "1 core" ceiling of 53.6 GFLOP/s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from roofline_widget import (
    BandwidthRoof,
    ComputeRoof,
    Roofline,
    RooflineWidget,
    sample_path,
)
from roofline_widget.look.ceiling_labels import (
    LABEL_HALF_HEIGHT_PX,
    LABEL_LINE_GAP_PX,
    label_boxes_px,
    place_labels,
)
from roofline_widget.look.ceiling_lines import ceiling_lines
from roofline_widget.look.plot_area import DEFAULT_AREA, MIN_PLOT_PX, PlotArea
from roofline_widget.look.texts import text_px
from roofline_widget.widget.html import TOOLTIP_CSS, TOOLTIP_STYLE

ONE_CORE = ComputeRoof("1 core at 3.35 GHz boost", 53.6, source="spec sheet")
WIDTHS = (MIN_PLOT_PX, 382, 700, 1284)  # 382: JupyterLab at 900 px; 1284: Voila at 1400


@pytest.fixture(scope="module")
def quickstart(pmgpu, gmgpolar):
    w = RooflineWidget([pmgpu, gmgpolar], ceilings=[ONE_CORE])
    w.peak_flops, w.peak_bandwidth = 2048.0, 204.8
    return w


def layout_of(roofline: Roofline, x_range, y_range, area=DEFAULT_AREA, points=((), ())):
    lines, segments = ceiling_lines(roofline, x_range)
    return place_labels(lines, segments, (roofline.ridge_point(), roofline.peak_flops),
                        x_range, y_range, area, points), [line.segment for line in lines]


def drawn_texts(figure) -> list[str]:
    """The label of each ceiling as drawn: by the end-aligned or the start-aligned mark."""
    return [end or start for end, start in zip(figure.ceiling_labels.text,
                                                figure.ceiling_labels_start.text)]


def ranges(widget):
    figure = widget.figure
    return (figure.x_scale.min, figure.x_scale.max), (figure.y_scale.min, figure.y_scale.max)


def assert_inside_and_apart(boxes, area: PlotArea):
    for text, left, right, bottom, top in boxes:
        assert left >= -1e-6, (text, left)
        assert right <= area.min_width + 1e-6, (text, right)
        assert bottom >= -1e-6, (text, bottom)
        assert top <= area.height + 1e-6, (text, top)
    for i, (text, left, right, bottom, top) in enumerate(boxes):
        for other, o_left, o_right, o_bottom, o_top in boxes[i + 1:]:
            apart = right <= o_left or o_right <= left or top <= o_bottom or o_top <= bottom
            assert apart, f"{text!r} overlaps {other!r}"


def test_figure_min_width_and_height_are_what_the_labels_are_placed_for(quickstart):
    layout = quickstart.figure.plot.layout
    # 360 px of plot + 70 + 16 px of margins; 426 + 24 + 50 px
    assert (layout.min_width, layout.height) == ("446px", "500px")
    assert quickstart.figure.plot_area() == PlotArea(min_width=360.0, height=426.0)
    quickstart.figure.plot.layout.height = "600px"
    try:
        assert quickstart.figure.plot_area().height == 526.0
    finally:
        quickstart.figure.plot.layout.height = "500px"


def test_quickstart_labels_fit_at_every_width_from_the_narrowest(quickstart):
    x_range, y_range = ranges(quickstart)
    layout, _ = layout_of(quickstart.roofline, x_range, y_range)
    texts = [spot.text for spot in layout.ceilings]
    assert texts == ["Peak bandwidth 204.8 GB/s", "Peak 2048 GFLOP/s",
                     "1 core at 3.35 GHz boost 53.6 GFLOP/s"]  # full texts, all of them
    assert layout.ridge.text == "ridge 10 FLOP/byte"
    assert all(spot.inside and spot.clear for spot in [*layout.ceilings, layout.ridge])
    # A wider plot draws the same texts (same px) on wider decades: still inside and apart.
    for width in WIDTHS:
        area = PlotArea(min_width=width, height=DEFAULT_AREA.height)
        assert_inside_and_apart(label_boxes_px(layout, x_range, y_range, area), area)


def test_labels_sit_on_their_lines(quickstart):
    x_range, y_range = ranges(quickstart)
    layout, ceilings = layout_of(quickstart.roofline, x_range, y_range)
    height, decades_y = DEFAULT_AREA.height, math.log10(y_range[1] / y_range[0])
    above = LABEL_LINE_GAP_PX + LABEL_HALF_HEIGHT_PX  # 2 + 7.2 px
    for spot, segment in zip(layout.ceilings, ceilings):
        line_y = segment["value"] * (spot.x if segment["kind"] == "bandwidth" else 1.0)
        px_above = math.log10(spot.y / line_y) / decades_y * height
        # a label ending at its anchor sits above its line, one starting there below it
        assert px_above == pytest.approx(above if spot.align == "end" else -above), spot
        if segment["kind"] == "compute":
            assert spot.x == pytest.approx(x_range[1])  # ends at the right edge
        else:  # ends on its slope, left of the ridge (10 FLOP/byte)
            assert x_range[0] < spot.x <= 10.0
    # the ridge label keeps the ridge point and hangs 12 px below and right of it
    ridge = layout.ridge
    assert (ridge.x, ridge.y, ridge.align, ridge.y_offset_px) == (10.0, 2048.0, "start", 12)


def test_the_widget_draws_the_placement(quickstart):
    figure = quickstart.figure
    layout, _ = layout_of(quickstart.roofline, *ranges(quickstart), figure.plot_area(),
                          figure.scene.obstacles)
    for mark in (figure.ceiling_labels, figure.ceiling_labels_start):
        np.testing.assert_allclose(mark.x, [spot.x for spot in layout.ceilings])
        np.testing.assert_allclose(mark.y, [spot.y for spot in layout.ceilings])
    assert list(figure.ceiling_labels.text) == [
        spot.text if spot.align == "end" else "" for spot in layout.ceilings]
    assert list(figure.ceiling_labels_start.text) == [
        spot.text if spot.align == "start" else "" for spot in layout.ceilings]
    # the scene's labels are the placement, the widget's marks draw them
    assert [label.text for label in figure.scene.ceiling_labels] == [
        spot.text for spot in layout.ceilings]
    assert (figure.ceiling_labels.align, figure.ceiling_labels.x_offset) == ("end", -5)
    assert (figure.ceiling_labels_start.align, figure.ceiling_labels_start.x_offset) == ("start", 5)
    assert figure.ceiling_labels.y_offset == figure.ceiling_labels_start.y_offset == 0
    assert (figure.ridge.align, figure.ridge.x_offset, figure.ridge.y_offset) == ("start", 5, 12)


def test_crowded_ceilings_stay_inside_and_apart():
    # A memory hierarchy: four slopes a factor of 2 to 4 apart, three compute roofs.
    roofline = Roofline(
        [ComputeRoof("Peak", 2048.0), ComputeRoof("AVX2 without FMA", 1024.0),
         ComputeRoof("scalar", 128.0)],
        [BandwidthRoof("L1", 6000.0, level="L1"), BandwidthRoof("L2", 2500.0, level="L2"),
         BandwidthRoof("L3", 900.0, level="L3"), BandwidthRoof("MEM", 204.8, level="MEM")])
    x_range, y_range = (0.01, 300.0), (0.3, 8000.0)
    layout, _ = layout_of(roofline, x_range, y_range)
    assert all(spot.inside for spot in [*layout.ceilings, layout.ridge])
    for width in WIDTHS:
        area = PlotArea(min_width=width, height=DEFAULT_AREA.height)
        assert_inside_and_apart(label_boxes_px(layout, x_range, y_range, area), area)


def test_a_name_too_long_for_the_plot_is_cut_and_keeps_its_value():
    name = "a compute ceiling whose name is much longer than the narrowest plot is wide"
    roofline = Roofline([ComputeRoof("Peak", 2048.0), ComputeRoof(name, 53.6)],
                        [BandwidthRoof("Peak bandwidth", 204.8)])
    assert text_px(name) > MIN_PLOT_PX
    layout, _ = layout_of(roofline, (0.02, 2000.0), (0.2, 6000.0))
    texts = [spot.text for spot in layout.ceilings]
    (cut,) = [text for text in texts if text.endswith("\u2026 53.6 GFLOP/s")]
    assert name.startswith(cut.removesuffix("\u2026 53.6 GFLOP/s"))
    assert text_px(cut) <= MIN_PLOT_PX
    assert all(spot.inside for spot in layout.ceilings)


def test_text_width_estimate_is_above_what_chromium_draws():
    # Widths of the 12 px labels measured in Chromium (DejaVu Sans) at 900 and 1400 px.
    for text, drawn in [("Peak bandwidth: 204.8 GB/s", 152.1), ("Peak: 2048 GFLOP/s", 114.1),
                        ("1 core at 3.35 GHz boost: 53.6 GFLOP/s", 216.8),
                        ("ridge 10 FLOP/byte", 104.4)]:
        assert drawn < text_px(text) < 1.3 * drawn


def test_every_tooltip_lets_clicks_through(quickstart):
    figure = quickstart.figure
    assert figure.scatter.tooltip_style == TOOLTIP_STYLE
    assert TOOLTIP_STYLE["pointer-events"] == "none"
    # The stylesheet for bqplot's tooltip container is rendered with the ridge label (as its
    # tooltip, never shown), into the figure's tooltip container.
    assert figure.ridge.tooltip is figure.tooltip_css
    assert figure.ridge.enable_hover is False
    assert figure.tooltip_css.value == f"<style>{TOOLTIP_CSS}</style>"
    assert ".bqplot_tooltip_div:has(.roofline-tooltip)" in TOOLTIP_CSS
    assert figure.tooltip_css.layout.display == "none"


def test_the_spread_squares_tooltip_lets_clicks_through(pmgpu):
    w = RooflineWidget(pmgpu)
    layer = w.figure.layers["ranks"]
    assert layer.medians.tooltip_style == TOOLTIP_STYLE


def test_a_zoom_drops_the_labels_of_lines_out_of_view(pmgpu):
    w = RooflineWidget(pmgpu)  # empirical: 28.58 GB/s, 2.134 GFLOP/s (ridge 0.0747 FLOP/byte)
    w.figure.x_scale.min, w.figure.x_scale.max = 1.0, 2.0  # a zoom in the browser
    # the slope is at 28.6 to 57 GFLOP/s there, above the y axis' 6.4: no label; the
    # compute roof (2.134) runs across the view and keeps its label, as does no ridge
    texts = dict(zip(w.figure.ceilings.labels, drawn_texts(w.figure)))
    assert texts["Empirical bandwidth 28.58 GB/s"] == ""
    assert texts["Empirical peak 2.134 GFLOP/s"] == "Empirical peak 2.134 GFLOP/s"
    assert list(w.figure.ridge.text) == [""]


def test_the_level_and_comparison_tooltips_let_clicks_through():
    rendered = [sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
                for group in ("L2", "L3", "MEM_DP")]
    levels = RooflineWidget(rendered, levels=["L2", "L3", "MEM"])
    compared = RooflineWidget(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"),
                              baseline=sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    for widget in (levels, compared):
        hovered = [mark for mark in widget.figure.plot.marks
                   if mark.tooltip is not None and mark.enable_hover
                   and (mark.interactions or {}).get("hover") == "tooltip"]
        assert len(hovered) >= 2  # the main scatter and the layer's marks
        for mark in hovered:
            assert mark.tooltip_style.get("pointer-events") == "none", mark


def test_point_rows_count_what_the_whole_array_counts():
    # The label placement counts the points under a box on rows of pixels (PointRows): the
    # counts equal those of every point compared (TextBox.covers on the (n, 2) array), for
    # boxes inside, across and outside the points, with points on the boxes' edges.
    from roofline_widget.look.label_boxes import PointRows, TextBox

    rng = np.random.default_rng(7)
    pixels = np.column_stack([rng.uniform(-50, 650, 20_000), rng.uniform(-30, 430, 20_000)])
    pixels[:200] = np.round(pixels[:200])  # whole pixels: on the edges of whole-pixel boxes
    pixels[200] = (np.nan, 5.0)  # no box holds a point that is not finite
    rows = PointRows(pixels)
    assert len(rows) == 20_000 - 1
    checked = 0
    for _ in range(300):
        left, bottom = rng.uniform(-100, 700), rng.uniform(-60, 460)
        box = TextBox(float(np.round(left)), float(np.round(left + rng.uniform(1, 300))),
                      float(np.round(bottom)), float(np.round(bottom + rng.uniform(1, 40))))
        reach = float(rng.choice([0.0, 3.5]))
        expected = box.covers(pixels, reach)
        assert box.covers(rows, reach) == expected
        checked += expected > 0
    assert checked > 100  # most boxes hold points: the counts compared are not all 0
    assert PointRows(np.zeros((0, 2))).count(-1e9, 1e9, -1e9, 1e9) == 0


def test_lulesh_sweep_under_milan_ceilings_labels_clear_of_the_roof_and_the_l2_end():
    """Sample 19 (seven LULESH sizes) under sample 22's EPYC 7763 ceilings, in the widget.

    The roofs (likwid-bench logs): DP 820.02222 GFLOP/s, L2 771.7 GB/s, MEM 41.265565 GB/s;
    the roofline is MEM under DP: ridge 820.02222 / 41.265565 = 19.872 FLOP/byte.  The axes
    (the widget's): x 4.925e-7 ... 1667.85, 9.5297 decades over 360 px (37.78 px/decade);
    y 6.6667e-6 ... 2460.07 (3 x 820.02), 8.5670 decades over 426 px (49.73 px/decade).
    In pixels: the roof at log10(820.02 / 6.6667e-6) = 8.0900 decades up, 8.0900 * 49.73 =
    402.27 px (23.7 px below the top: one label row above it); the ridge at
    log10(19.872 / 4.925e-7) = 7.6058 decades, 287.3 px (72.7 px left to the right edge);
    the dashed L2 line stops at the roof's height at 820.02 / 771.7 = 1.0626 FLOP/byte,
    log10(1.0626 / 4.925e-7) = 6.3340 decades, 239.3 px.

    "EPYC 7763 DP AVX FMA 820 GFLOP/s" (256 px and the 5 px gap) fits only at the right edge;
    below the roof it would reach left to 99 px, across the slope (402 px high at the ridge,
    1.32 px lower per px left); so it sits above the roof, 5 px clear of the L2 line's end
    (4 px and a pixel), which it spans.  Then "ridge 19.9 FLOP/byte" (146 px) fits neither right
    of the ridge (72.7 px) nor left of it above the roof (the DP label's row): "ridge 19.9"
    (67 px) fits right of the ridge below the roof.
    """
    from glob import glob
    from pathlib import Path

    from roofline_widget import machine_roofline, read_likwid

    logs = sorted(glob(str(Path(sample_path("SOURCES.md")).parent
                           / "machine_milan_epyc7763_16c" / "*.log")))
    milan = machine_roofline(logs, label="EPYC 7763")
    lulesh = read_likwid(Path(__file__).parent / "data"
                         / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv")
    with pytest.warns(UserWarning, match="roofs of another machine"):
        w = RooflineWidget(lulesh, ceilings=milan)
    x_range, y_range = ranges(w)
    assert x_range == pytest.approx((4.925e-7, 1667.85), rel=1e-4)
    assert y_range == pytest.approx((6.6667e-6, 2460.07), rel=1e-4)
    layout, _segments = layout_of(w.figure.scene.roofline, x_range, y_range,
                                  points=w.figure.scene.obstacles)
    assert all(spot.clear for spot in layout.ceilings)
    assert layout.ridge.clear
    boxes = {text: box for text, *box in label_boxes_px(layout, x_range, y_range, DEFAULT_AREA)}
    roof, ridge, l2_end = 402.27, 287.3, 239.3
    left, right, bottom, top = boxes["EPYC 7763 DP AVX FMA 820 GFLOP/s"]
    assert right == pytest.approx(MIN_PLOT_PX)
    assert left < l2_end < right
    assert bottom == pytest.approx(roof + 5, abs=0.05)
    assert top <= 426
    left, right, bottom, top = boxes["ridge 19.9"]
    assert left == pytest.approx(ridge, abs=0.05)
    assert right <= MIN_PLOT_PX
    assert top <= roof - LABEL_LINE_GAP_PX
    assert drawn_texts(w.figure) == ["EPYC 7763 L2 771.7 GB/s", "EPYC 7763 MEM 41.27 GB/s",
                                     "EPYC 7763 DP AVX FMA 820 GFLOP/s"]
    assert w.figure.ridge.text[0] == "ridge 19.9"


def test_free_ends_are_the_line_ends_inside_the_plot_on_no_other_line():
    from roofline_widget.look.label_boxes import free_ends, segment_distance

    # a 100 x 50 px plot: a slope from the left edge to (60, 40) meeting a roof from there to
    # the right edge (the ridge: no free end), and a ceiling cut at (30, 40) in the open
    slope = [((0.0, 10.0), (60.0, 40.0))]
    roof = [((60.0, 40.0), (100.0, 40.0))]
    ceiling = [((0.0, 25.0), (30.0, 40.0))]
    assert free_ends([slope, roof, ceiling], 100.0, 50.0) == [(2, (30.0, 40.0))]
    # 3-4-5: (3, 4) is 5 px from the segment's end (0, 0); (5, 1) is 1 px above (0..10, 0)
    assert segment_distance((3.0, 4.0), (0.0, 0.0), (-10.0, 0.0)) == 5.0
    assert segment_distance((5.0, 1.0), (0.0, 0.0), (10.0, 0.0)) == 1.0
