"""Ceiling labels and axes against a real machine's ceilings, in the static plot and the widget.

The ceilings are sample 22's (AMD EPYC 7763, 16 cores; likwid-bench logs read by
``machine_roofline``): the peakflops kernels give DP AVX FMA 820.02222 GFLOP/s (820022.22
MFlops/s) and SP AVX FMA 1639.16687 GFLOP/s; the load kernel in likwid-perfctr -g L2 gives
L2 771.74215 GB/s (771742.15 MByte/s), stream_mem_avx_fma under -g MEM1 and MEM2, median MEM 41.265565 GB/s.  A
third bandwidth level comes from a rendered likwid-bench log (``tests/likwid_render.py``, not
a measurement): an L3 load kernel at 300 GB/s.  The points are the quickstart's (pmgpu and
GMGPolar).

Static plot: each label is the roof's short label, inside the axes, apart from every other
text (outlines as the Agg renderer draws them, turned along the slopes), covering no point,
sitting on its line; every ridge is inside the x range; ticks read as plain numbers.
Widget: the same texts, inside the narrowest plot and apart at every wider width, clear of
the points, stacked in the order of their lines; the provenance is in the roof's tooltip,
the "Ceilings" section and the static payload.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from likwid_render import bench
from text_outlines import text_outline

from roofline_widget import (
    BandwidthRoof,
    ComputeRoof,
    Roofline,
    RooflineWidget,
    machine_roofline,
    plot_roofline,
    read_likwid,
    sample_path,
)
from roofline_widget.look.ceiling_labels import POINT_CLEARANCE_PX, label_boxes_px, place_labels
from roofline_widget.look.ceiling_lines import ceiling_lines, ceiling_rows
from roofline_widget.look.log_axes import log_ticks, tick_text
from roofline_widget.look.plot_area import DEFAULT_AREA, MIN_PLOT_PX, PlotArea

matplotlib = pytest.importorskip("matplotlib")

MILAN = Path(sample_path("SOURCES.md")).parent / "machine_milan_epyc7763_16c"
SAMPLES = ("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
           "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
FOUR_LABELS = ["DP AVX FMA 820 GFLOP/s", "SP AVX FMA 1639 GFLOP/s", "L2 771.7 GB/s",
               "MEM 41.27 GB/s"]
WIDTHS = (MIN_PLOT_PX, 382, 700, 1284)  # 382: JupyterLab at 900 px; 1284: Voila at 1400


@pytest.fixture(scope="module")
def runs():
    return [read_likwid(sample_path(name)) for name in SAMPLES]


@pytest.fixture(scope="module")
def four_roofs():
    """Sample 22's DP and SP compute roofs, its L2 and MEM roofs."""
    logs = sorted(MILAN.glob("*.log"))
    dp, sp = machine_roofline(logs), machine_roofline(logs, precision="SP")
    return Roofline([*dp.compute, *sp.compute], list(dp.bandwidth))


@pytest.fixture(scope="module")
def three_levels(tmp_path_factory):
    """Sample 22's DP, L2 and MEM roofs and a rendered L3 load benchmark (300 GB/s)."""
    log = tmp_path_factory.mktemp("rendered") / "rendered_not_measured_l3_load_16c.txt"
    log.write_text(bench("load", 16, mflops=0.0, mbytes=300000.0, size_per_thread=2 * 2**20))
    return machine_roofline([*sorted(MILAN.glob("*.log")), log], level={"load": "L3"})


def test_the_roofs_and_their_labels_by_hand(four_roofs, three_levels):
    assert [row["label"] for row in ceiling_rows(four_roofs)] == [
        "SP AVX FMA 1639 GFLOP/s", "DP AVX FMA 820 GFLOP/s", "L2 771.7 GB/s", "MEM 41.27 GB/s"]
    assert [row["label"] for row in ceiling_rows(three_levels)] == [
        "DP AVX FMA 820 GFLOP/s", "L2 771.7 GB/s", "L3 300 GB/s", "MEM 41.27 GB/s"]
    mem = next(row for row in ceiling_rows(four_roofs) if row["level"] == "MEM")
    assert mem["name"] == "MEM (stream_mem_avx_fma, likwid-bench)"
    assert "milan_mem1_16c.log" in mem["provenance"]
    assert "level_decided_by: likwid-perfctr group MEM1 wrapping the benchmark" in mem["provenance"]


# ---------------------------------------------------------------------------
# the static plot
# ---------------------------------------------------------------------------
def _static(runs, roofs, tmp_path):
    path = tmp_path / "roofline.png"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the run and the ceilings are of different machines
        payload = plot_roofline(runs, ceilings=roofs, filepath=path, verbose=False)
    assert path.stat().st_size > 20_000
    return payload


@pytest.mark.parametrize("roofs", ["four_roofs", "three_levels"])
def test_static_labels_inside_apart_clear_of_points_and_on_their_lines(runs, roofs, request,
                                                                       tmp_path):
    roofline = request.getfixturevalue(roofs)
    payload = _static(runs, roofline, tmp_path)
    figure = payload["figure"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    frame = axes.get_window_extent(renderer)
    labels = {row["label"] for row in ceiling_rows(roofline)}
    ceiling_texts = [t for t in axes.texts if t.get_text() in labels]
    assert sorted(t.get_text() for t in ceiling_texts) == sorted(labels)  # one per roof
    outlines = {t.get_text(): text_outline(t, renderer) for t in axes.texts}
    for text in ceiling_texts:
        corners = outlines[text.get_text()].vertices[:-1]
        assert (corners[:, 0] >= frame.x0).all(), text
        assert (corners[:, 0] <= frame.x1).all(), text
        assert (corners[:, 1] >= frame.y0).all(), text
        assert (corners[:, 1] <= frame.y1).all(), text
    # no two texts of the axes (ceiling and region labels) overlap
    for (a, first), (b, second) in combinations(outlines.items(), 2):
        assert not first.intersects_path(second, filled=True), (a, b)
    # no ceiling label covers a point
    centres = axes.transData.transform(np.column_stack(
        [[p["arithmetic_intensity_flops_per_byte"] for p in payload["points"]],
         [p["performance_gflops"] for p in payload["points"]]]))
    for text in ceiling_texts:
        assert not outlines[text.get_text()].contains_points(centres).any(), text.get_text()
    # each label's anchor is a point of its line; a slope's label is turned as its line
    lines, _ = ceiling_lines(roofline, axes.get_xlim())
    for line in lines:
        (text,) = [t for t in ceiling_texts if t.get_text() == line.text]
        x, y = text.xy
        expected = line.value * x if line.kind == "bandwidth" else line.value
        assert y == pytest.approx(expected, rel=1e-9), line.text
        if line.kind == "bandwidth":
            (x0, y0), (x1, y1) = axes.transData.transform([(1.0, line.value),
                                                            (10.0, 10 * line.value)])
            angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
            assert text.get_rotation() == pytest.approx(angle % 360, abs=0.01)
        else:
            assert text.get_rotation() == 0


@pytest.mark.parametrize("roofs", ["four_roofs", "three_levels"])
def test_static_x_range_holds_every_ridge(runs, roofs, request, tmp_path):
    roofline = request.getfixturevalue(roofs)
    axes = _static(runs, roofline, tmp_path)["figure"].axes[0]
    x0, x1 = axes.get_xlim()
    top = roofline.compute[0]
    ridges = [roofline.ridge_point(bandwidth=b, compute=top) for b in roofline.bandwidth]
    ridges += [roofline.ridge_point(bandwidth=roofline.bandwidth[0], compute=c)
               for c in roofline.compute]
    # MEM: 1639.16687 / 41.265565 = 39.72 FLOP/byte (four roofs), 820.02222 / 41.265565 = 19.87
    assert max(ridges) == pytest.approx(
        top.gflops / 41.265565, rel=1e-9)
    for ridge in ridges:
        assert x0 < ridge < x1, (ridge, (x0, x1))


def test_static_ticks_read_as_plain_numbers(runs, four_roofs, tmp_path):
    figure = _static(runs, four_roofs, tmp_path)["figure"]
    axes = figure.axes[0]
    figure.canvas.draw()
    for axis, limits in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
        shown = [(tick.get_loc(), tick.label1.get_text()) for tick in axis.get_major_ticks()
                 if limits[0] <= tick.get_loc() <= limits[1]]
        assert [value for value, _ in shown] == pytest.approx(log_ticks(*limits).tolist())
        assert [text for _, text in shown] == [tick_text(value) for value, _ in shown]
        assert not any("$" in text or "\N{MULTIPLICATION SIGN}" in text for _, text in shown)
    # x: 0.0188 to 119 FLOP/byte (3.8 decades): 1, 2 and 5 x 10^k, as bqplot's axis shows them
    assert [t.label1.get_text() for t in axes.xaxis.get_major_ticks()][:6] == [
        "0.02", "0.05", "0.1", "0.2", "0.5", "1"]


def test_static_payload_and_json_export_hold_the_ceilings_table(runs, four_roofs, tmp_path):
    import json

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(runs, ceilings=four_roofs, data_filepath=tmp_path / "d.json",
                                data_format="json", verbose=False)
    assert payload["ceiling_table"] == ceiling_rows(four_roofs)
    exported = json.loads((tmp_path / "d.json").read_text())["ceiling_table"]
    assert [row["label"] for row in exported] == [row["label"] for row in ceiling_rows(four_roofs)]
    l2 = next(row for row in exported if row["level"] == "L2")
    assert l2["value"] == 771.74215
    assert "counted_gbs: 772.646" in l2["provenance"]  # the L2 group's own figure too


def test_the_legend_is_one_and_outside_the_axes(runs, four_roofs, tmp_path):
    figure = _static(runs, four_roofs, tmp_path)["figure"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    legends = [child for child in axes.get_children()
               if isinstance(child, matplotlib.legend.Legend)]
    assert len(legends) == 1
    assert legends[0].get_window_extent(renderer).x0 > axes.get_window_extent(renderer).x1


# ---------------------------------------------------------------------------
# the widget
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def widget(runs, four_roofs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(runs, ceilings=list(four_roofs), peak_flops=820.02222,
                              peak_bandwidth=100.0)


def _layout(widget):
    figure = widget.figure
    x_range = (figure.x_scale.min, figure.x_scale.max)
    y_range = (figure.y_scale.min, figure.y_scale.max)
    lines, segments = ceiling_lines(widget.roofline, x_range)
    layout = place_labels(lines, segments, (widget.roofline.ridge_point(),
                                            widget.roofline.peak_flops),
                          x_range, y_range, figure.plot_area(), figure.scene.obstacles)
    return layout, lines, x_range, y_range


def test_widget_labels_name_their_roofs_inside_apart_and_clear_of_points(widget):
    layout, lines, x_range, y_range = _layout(widget)
    texts = [spot.text for spot in layout.ceilings]
    assert texts == [line.text for line in lines]
    assert set(FOUR_LABELS) <= set(texts)
    assert "Peak bandwidth 100 GB/s" in texts
    # the figure draws exactly this layout
    drawn = [end or start for end, start in zip(widget.figure.ceiling_labels.text,
                                                widget.figure.ceiling_labels_start.text)]
    assert drawn == texts
    # the points and the layers' dots the labels keep clear of (their logarithms)
    x, y = 10.0 ** widget.figure.scene.obstacles.x, 10.0 ** widget.figure.scene.obstacles.y
    for width in WIDTHS:
        area = PlotArea(min_width=width, height=DEFAULT_AREA.height)
        boxes = label_boxes_px(layout, x_range, y_range, area)
        for text, left, right, bottom, top in boxes:
            assert -1e-6 <= left, (width, text)
            assert right <= width + 1e-6, (width, text)
            assert -1e-6 <= bottom, (width, text)
            assert top <= area.height + 1e-6, (width, text)
        for (a, *box_a), (b, *box_b) in combinations(boxes, 2):
            apart = (box_a[1] <= box_b[0] or box_b[1] <= box_a[0]
                     or box_a[3] <= box_b[2] or box_b[3] <= box_a[2])
            assert apart, (width, a, b)
        # every point's centre keeps its radius clear of every label box
        px = width * np.log10(x / x_range[0]) / math.log10(x_range[1] / x_range[0])
        py = area.height * np.log10(y / y_range[0]) / math.log10(y_range[1] / y_range[0])
        for text, left, right, bottom, top in boxes:
            inside = ((px > left - POINT_CLEARANCE_PX) & (px < right + POINT_CLEARANCE_PX)
                      & (py > bottom - POINT_CLEARANCE_PX) & (py < top + POINT_CLEARANCE_PX))
            assert not inside.any(), (width, text)


def test_widget_labels_are_stacked_in_the_order_of_their_lines(widget):
    layout, lines, x_range, y_range = _layout(widget)
    boxes = {text: box for text, *box in label_boxes_px(layout, x_range, y_range,
                                                        widget.figure.plot_area())}
    for kind in ("compute", "bandwidth"):
        ordered = sorted((line for line in lines if line.kind == kind), key=lambda item: -item.value)
        for higher, lower in combinations(ordered, 2):
            (h_left, h_right, h_bottom, h_top) = boxes[higher.text]
            (l_left, l_right, l_bottom, l_top) = boxes[lower.text]
            if h_left < l_right and l_left < h_right:  # they share columns: one above the other
                assert (l_bottom + l_top) / 2 < (h_bottom + h_top) / 2, (higher.text, lower.text)


def test_widget_x_range_holds_every_ridge(widget, four_roofs):
    x0, x1 = widget.figure.x_scale.min, widget.figure.x_scale.max
    roofline = widget.roofline
    for slope in roofline.bandwidth:
        assert x0 < roofline.ridge_point(bandwidth=slope) < x1, slope.name


def test_widget_roof_tooltip_and_ceilings_section_give_the_provenance(widget):
    figure = widget.figure
    # bqplot's hover message of a line of the ceilings' Lines mark: its name is its label
    figure.ceilings._handle_custom_msgs(
        figure.ceilings, {"event": "hover", "data": {"name": "MEM 41.27 GB/s"}})
    tooltip = figure.roof_tooltip.value
    assert "stream_mem_avx_fma" in tooltip
    assert "milan_mem1_16c.log" in tooltip
    assert figure.ceilings.tooltip is figure.roof_tooltip
    section = widget.controls.ceilings_section
    assert section.get_title(0) == "Ceilings (6)"  # four roofs and the two peaks
    assert section.selected_index is None  # collapsed
    widget.controls.ceilings_section.selected_index = 0  # opened: made now
    table = widget.controls.ceilings_html.value
    for text in FOUR_LABELS:
        assert (f"<td style='text-align:left;padding:1px 12px 1px 0;white-space:nowrap'>{text}</td>"
                in table)
    assert "likwid-perfctr group L2 wrapping the benchmark" in table
    # the status line stays short: the labels, not where the numbers came from
    status = widget.controls.status_html.value
    assert "L2 771.7 GB/s" in status
    assert "likwid-bench" not in status
    assert "milan" not in status


def test_a_hostile_roof_name_is_escaped_in_the_table_and_tooltip(runs):
    hostile = "<img src=x onerror=alert(1)>"
    w = RooflineWidget(runs, ceilings=[BandwidthRoof(hostile, 50.0, "user <b>")],
                       peak_flops=100.0, peak_bandwidth=20.0)
    w.controls.ceilings_section.selected_index = 0  # opened: made now
    table = w.controls.ceilings_html.value
    assert hostile not in table
    assert "&lt;img src=x onerror=alert(1)&gt;" in table
    label = f"{hostile} 50 GB/s"
    w.figure.ceilings._handle_custom_msgs(w.figure.ceilings,
                                          {"event": "hover", "data": {"name": label}})
    assert hostile not in w.figure.roof_tooltip.value
    assert "user &lt;b&gt;" in w.figure.roof_tooltip.value


def test_roofline_repr_html_is_the_ceilings_table(four_roofs):
    html = four_roofs._repr_html_()
    assert html.startswith("<table class='roofline-ceilings-table'>")
    assert html.count("<tr>") == 5  # the head and four roofs
    for text in FOUR_LABELS:
        assert text in html
    assert "peakflops_avx_fma" in html
    assert Roofline([ComputeRoof("a&b", 1.0)], [BandwidthRoof("c", 1.0)])._repr_html_().count(
        "a&amp;b") == 2  # its label and its name
