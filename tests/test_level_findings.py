"""Sanity findings marked on the level dots: rings in the widget and in the static plot.

Real data: the pmgpu sample (AMD EPYC 7702, MEM_DP and FLOPS_DP runs of 5 regions on one
hardware thread; its memory bandwidth is the MEM level).  Its MEM_DP group prints, per region,
``DP [MFLOP/s]`` and ``Memory bandwidth [MBytes/s]`` (the FLOP rate used is MEM_DP's, the first):

=======================  ============  ==============
region                   DP [MFLOP/s]  Memory [MB/s]
=======================  ============  ==============
<init_datastructures>    6.864286e-06  14905.7212
<function_d>             1616.3005     28580.9575
<function_b>             759.4276      9270.3090
<function_a>             2134.1472     8554.1612
<function_c>             495.4019      8775.4462
=======================  ============  ==============

Against a 9 GB/s MEM roof and a 2 GFLOP/s peak: <init_datastructures>, <function_d> and
<function_b> exceed the roof (14.9, 28.6, 9.27 GB/s), <function_a> the peak (2.134 GFLOP/s);
<function_c> (8.78 GB/s, 0.495 GFLOP/s) is below both.
"""

import warnings
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import render_likwid

from roofline_widget import RooflineWidget, plot_roofline, read_likwid, sample_path, sanity_check
from roofline_widget.analysis.levels import hierarchical_points
from roofline_widget.analysis.sanity import checkable_roofs as measured_roofs
from roofline_widget.analysis.sanity import flagged_points, merge_findings
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.scene import levels as levels_layer
from roofline_widget.scene.levels import FINDING_GID
from roofline_widget.widget.html import ring_tooltip_html

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
X = "arithmetic_intensity_flops_per_byte"
Y = "performance_gflops"
CEILINGS = [BandwidthRoof("DRAM (bench)", 9.0, level="MEM"), ComputeRoof("bench peak", 2.0)]
# (region, intensity = MFLOP/s / MBytes/s, GFLOP/s) of the flagged dots, in the sample's order
FLAGGED = [("<init_datastructures>", 6.864286e-06 / 14905.7212, 6.864286e-09),
           ("<function_d>", 1616.3005 / 28580.9575, 1.6163005),
           ("<function_b>", 759.4276 / 9270.3090, 0.7594276),
           ("<function_a>", 2134.1472 / 8554.1612, 2.1341472)]


def _widget(data=PMGPU, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(data, **kwargs)


def _rings(layer):
    return list(zip(layer.rings.x.tolist(), layer.rings.y.tolist()))


def test_rings_mark_the_points_above_the_roof_or_the_peak():
    widget = _widget(levels=["MEM"], ceilings=CEILINGS)
    layer = widget.figure.layers["levels"]
    assert layer.rings.visible
    assert layer.rings in widget.figure.plot.marks
    assert layer.rings.fill is False
    assert layer.rings.default_size > layer.dots["MEM"].default_size
    np.testing.assert_allclose(layer.rings.x, [x for _, x, _ in FLAGGED], rtol=1e-12)
    np.testing.assert_allclose(layer.rings.y, [y for _, _, y in FLAGGED], rtol=1e-12)
    assert layer.flagged["region"].tolist() == [r for r, _, _ in FLAGGED]
    assert set(layer.flagged["checks"]) == {"above roof"}
    # the findings are those of sanity_check against the widget's measured roofs
    expected = sanity_check(widget.sums, ceilings=measured_roofs(widget.roofline))
    pd.testing.assert_frame_equal(layer.findings, expected)
    # the tooltip of <function_a>'s ring names the check and the detail, escaped
    layer._on_ring_hover({"data": {"index": 3}})
    tooltip = layer.ring_tooltip.value
    assert "&lt;function_a&gt;" in tooltip
    assert "<function_a>" not in tooltip
    assert "above roof: 2.134 GFLOP/s (DP [MFLOP/s]) is above the peak bench peak: 2 GFLOP/s" \
        in tooltip


def test_rings_follow_the_filters():
    widget = _widget(levels=["MEM"], ceilings=CEILINGS)
    layer = widget.figure.layers["levels"]
    widget.include = "<function_[ab]"
    np.testing.assert_allclose(layer.rings.x, [FLAGGED[2][1], FLAGGED[3][1]], rtol=1e-12)
    assert layer.flagged["region"].tolist() == ["<function_b>", "<function_a>"]
    widget.include = "<function_c"  # below both roofs: no ring
    assert not layer.rings.visible
    assert len(layer.rings.x) == 0
    widget.include = None
    assert len(layer.rings.x) == 4
    widget.levels = []
    assert not layer.rings.visible
    assert len(layer.rings.x) == 0


def test_peak_drag_reruns_only_the_roof_check_and_sends_rings_only_when_they_change(monkeypatch):
    widget = _widget(levels=["MEM"], ceilings=CEILINGS)
    layer = widget.figure.layers["levels"]
    calls = []
    original = levels_layer.sanity_check
    monkeypatch.setattr(levels_layer, "sanity_check",
                        lambda *a, **k: calls.append(k) or original(*a, **k))
    x, y = layer.rings.x, layer.rings.y
    # the slider's roof is the MEM roof of the plotted (memory-bandwidth) points; at the bench
    # figure: the same four rings
    widget.peak_bandwidth = 9.0
    assert widget.roofline.main_bandwidth.level == "MEM"
    assert layer.rings.x is x
    assert layer.rings.y is y
    widget.peak_flops = 1.0  # the highest compute roof is still the 2 GFLOP/s bench peak
    assert layer.rings.x is x
    widget.peak_flops = 3.0  # 3 GFLOP/s on top: <function_a> (2.134) is below the peak now
    assert layer.flagged["region"].tolist() == [r for r, _, _ in FLAGGED[:3]]
    np.testing.assert_allclose(layer.rings.x, [x for _, x, _ in FLAGGED[:3]], rtol=1e-12)
    assert calls == []  # the checks without ceilings ran once, before the drags
    expected = sanity_check(widget.sums, ceilings=measured_roofs(widget.roofline))
    pd.testing.assert_frame_equal(layer.findings, expected)
    widget.include = "<function"  # a new selection: all checks again, once
    assert len(calls) == 1
    assert [p.pattern for p in calls[0]["selection"].include] == ["<function"]


def test_empirical_roofs_mark_nothing_and_a_region_finding_marks_every_level(monkeypatch,
                                                                             tmp_path):
    # the rendered L2/L3/MEM_DP runs of one program (tests/render_likwid.py): the only finding
    # is stencil<3d>'s L3 dot; a finding without a level (a whole region) rings all its dots
    paths = render_likwid.render_program(tmp_path)
    run = read_likwid([paths["L2"], paths["L3"], paths["MEM_DP"]])
    original = levels_layer.sanity_check

    def with_region_finding(*args, **kwargs):
        found = original(*args, **kwargs)
        region = pd.DataFrame([{"file": found["file"].iloc[0], "rank": 0, "region": "triad",
                                "level": None, "check": "uncore on one socket",
                                "detail": "<made up> for the test"}])
        return merge_findings(found, region)

    monkeypatch.setattr(levels_layer, "sanity_check", with_region_finding)
    widget = _widget(run, levels=["L2", "L3", "MEM"])  # empirical roofs: no roof check
    layer = widget.figure.layers["levels"]
    assert layer.flagged[["region", "level"]].astype(str).values.tolist() == [
        ["triad", "L2"], ["triad", "L3"], ["triad", "MEM"], ["stencil<3d>", "L3"]]
    # triad: 7.4 GFLOP/s over 46.336, 21.12, 11.52 GB/s; stencil<3d>: 3.04 over 22.4 GB/s
    np.testing.assert_allclose(layer.rings.x, [7.4 / 46.336, 7.4 / 21.12, 7.4 / 11.52,
                                               3.04 / 22.4], rtol=1e-12)
    np.testing.assert_allclose(layer.rings.y, [7.4, 7.4, 7.4, 3.04], rtol=1e-12)
    status = widget.controls.status_html.value
    assert "triad (rank 0, all levels, uncore on one socket): &lt;made up&gt;" in status
    widget.levels = ["MEM"]  # the region's finding stays, on its one shown dot
    assert layer.flagged[["region", "level"]].astype(str).values.tolist() == [["triad", "MEM"]]


def test_flagged_points_joins_checks_per_dot():
    points = hierarchical_points(PMGPU)
    findings = sanity_check(PMGPU, ceilings=Roofline([ComputeRoof("peak", 1.0)],
                                                     [BandwidthRoof("DRAM", 9.0, level="MEM")]))
    flagged = flagged_points(points, findings)
    # <function_d>: 28.58 GB/s above 9 and 1.616 GFLOP/s above 1: two findings, one ring
    row = flagged[flagged["region"] == "<function_d>"].iloc[0]
    assert row["checks"] == "above roof"
    assert len(row["details"]) == 2
    assert flagged["region"].tolist() == [r for r, _, _ in FLAGGED]
    text = ring_tooltip_html(row)
    assert text.count("<li>") == 2
    assert "&lt;function_d&gt;" in text
    assert len(flagged_points(points, findings.iloc[:0])) == 0


def test_static_plot_rings_the_same_points(tmp_path):
    path = tmp_path / "levels.png"
    payload = plot_roofline(PMGPU, levels=["MEM"], ceilings=Roofline(CEILINGS[1:], CEILINGS[:1]),
                            filepath=path, verbose=False)
    assert path.stat().st_size > 10_000
    axes = payload["figure"].axes[0]
    rings = [c for c in axes.collections if c.get_gid() == FINDING_GID]
    assert len(rings) == 1
    np.testing.assert_allclose(rings[0].get_offsets(), [[x, y] for _, x, y in FLAGGED],
                               rtol=1e-12)
    assert len(rings[0].get_facecolors()) == 0 or not rings[0].get_facecolors()[:, 3].any()
    assert [f["region"] for f in payload["level_findings"]] == [r for r, _, _ in FLAGGED]
    # in the file written: an SVG group with that id, one hollow ring marker per flagged dot
    svg = tmp_path / "levels.svg"
    plot_roofline(PMGPU, levels=["MEM"], ceilings=Roofline(CEILINGS[1:], CEILINGS[:1]),
                  filepath=svg, verbose=False)
    group = next(g for g in ElementTree.parse(svg).iter("{http://www.w3.org/2000/svg}g")
                 if g.get("id") == FINDING_GID)
    marks = list(group.iter("{http://www.w3.org/2000/svg}use"))
    assert len(marks) == 4
    assert all("fill: none" in m.get("style") and "stroke: #e8590c" in m.get("style")
               for m in marks)
    # empirical ceilings are no limits: nothing to ring
    plain = plot_roofline(PMGPU, levels=["MEM"], verbose=False)
    assert not [c for c in plain["figure"].axes[0].collections if c.get_gid() == FINDING_GID]
    assert plain["level_findings"] == []


def test_split_findings_equal_sanity_check_with_two_checks(tmp_path):
    # rendered runs: stencil<3d>'s L3 intensity order, and triad's 46.336 GB/s L2 traffic above
    # a 40 GB/s L2 roof; the layer's cached part plus the roof check is sanity_check's frame
    paths = render_likwid.render_program(tmp_path)
    run = read_likwid([paths["L2"], paths["L3"], paths["MEM_DP"]])
    widget = _widget(run, levels=["L2", "L3", "MEM"], peak_flops=100.0,
                     ceilings=[BandwidthRoof("L2 (bench)", 40.0, level="L2")])
    layer = widget.figure.layers["levels"]
    expected = sanity_check(widget.sums, ceilings=measured_roofs(widget.roofline))
    assert expected["check"].tolist() == ["intensity order", "above roof"]
    pd.testing.assert_frame_equal(layer.findings, expected)
    np.testing.assert_allclose(layer.rings.x, [7.4 / 46.336, 3.04 / 22.4], rtol=1e-12)
    widget.peak_flops = 5.0  # triad's 7.4 GFLOP/s now above the peak at every level
    expected = sanity_check(widget.sums, ceilings=measured_roofs(widget.roofline))
    pd.testing.assert_frame_equal(layer.findings, expected)
    assert layer.flagged[["region", "level", "checks"]].astype(str).values.tolist() == [
        ["triad", "L2", "above roof"], ["triad", "L3", "above roof"],
        ["triad", "MEM", "above roof"], ["stencil<3d>", "L3", "intensity order"]]
    assert len(layer.flagged["details"].iloc[0]) == 2  # the L2 roof and the peak
