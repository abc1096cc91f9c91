"""The widget's scaling panel: a sweep's speed-up against threads, the ideal line, hover-linked.

Worked by hand on the generated 54-run sweep (``study_files.write_sweep``: 18 thread counts x 3
cases, three regions, grouped by case as ``scaling_table`` groups it):

- CalcKinematics of case sedov takes 42.04 s on 1 thread, 35.0588 s on 5, 12.37 s on 18
  (``KINEMATICS_SEDOV``): speed-up = runtime first / runtime = 42.04 / 35.0588 = 1.199128 on 5
  threads and 42.04 / 12.37 = 3.398545 on 18; efficiency = speed-up / threads ratio =
  3.398545 / 18 = 0.188808 (18.9 %, the issue's example);
- CalcHourglass of case noh: 8.0 s on 1 thread, serial fraction 0.05, on 18 threads
  8 x (0.05 + 0.95 / 18) = 0.822222, printed 0.8222 s: speed-up 8 / 0.8222 = 9.729992;
- the ideal speed-up is the threads ratio against the first run, 1 thread: 1, 2, ..., 18.

Sample 19 (``LULESH_SIZES``, seven problem sizes on one thread) varies in size: the speed-up
compares different work, so the panel draws GFLOP/s: InitStressTermsForElems at 30^3 reads
``DP [MFLOP/s],384.5010`` (line 379 of the CSV) on its one thread: 0.384501 GFLOP/s; the five
points beyond the hardware (a wrapped counter, see test_widget_sweep.py) are left out.
"""

from __future__ import annotations

import html

import numpy as np
import pytest
from study_files import CASES, THREADS
from test_widget_axes import assert_apart
from wild_samples import LULESH_SIZES

from roofline_widget import RooflineWidget, sample_path, scaling_table
from roofline_widget.scene.scaling import GFLOPS, SPEEDUP, size_value
from roofline_widget.widget.axes import tick_lengths
from roofline_widget.widget.scaling_panel import FADED


@pytest.fixture
def sweep(sweep_file):
    return RooflineWidget(sweep_file)


@pytest.fixture(scope="module")
def lulesh():
    return RooflineWidget(LULESH_SIZES)


def _hover(mark, index: int) -> None:
    """What bqplot does with the message the browser sends when a point is hovered."""
    mark._handle_custom_msgs(mark, {"event": "hover", "data": {"index": index}})


def _line(panel, group: str, region: str):
    return next(line for line in panel.view.lines if (line.group, line.region) == (group, region))


def test_the_panel_draws_scaling_tables_speed_ups_per_region_and_case(sweep, sweep_file):
    panel = sweep.sweep_controls.scaling
    assert panel.box.layout.display == ""
    assert panel.box.selected_index is None  # collapsed: the roofline's layout as it was
    assert panel.figure is None  # built (and sent) when first opened
    assert list(panel.content.children) == [panel.note_html]
    assert "ideal speed-up" in panel.note_html.value  # the note and title without the figure
    assert panel.box.titles == ("Scaling: speed-up against threads per rank",)
    panel.box.selected_index = 0  # opened in the browser: the figure is built and drawn
    assert list(panel.content.children) == [panel.figure, panel.note_html]
    assert panel.view.measure == SPEEDUP
    assert "Speed-up against threads" in panel.figure.title
    assert panel.y_axis.label == "speed-up"
    assert not panel.view.log  # 1 ... 18 threads: linear axes
    # one Lines mark per case (the sweep's line styles), one line per region
    assert len(panel.lines) == 3
    assert [mark.line_style for mark in panel.lines] == ["solid", "dashed", "dotted"]
    assert all(list(mark.labels) == ["CalcKinematics", "CalcHourglass", "UpdateVolumes"]
               for mark in panel.lines)
    kinematics = _line(panel, "case=sedov", "CalcKinematics")
    assert kinematics.x.tolist() == [float(t) for t in THREADS]
    assert kinematics.y[[0, 4, 17]] == pytest.approx([1.0, 42.04 / 35.0588, 42.04 / 12.37], rel=1e-6)
    assert kinematics.y[17] / 18 == pytest.approx(0.188808, rel=1e-5)  # efficiency 18.9 %
    assert _line(panel, "case=noh", "CalcHourglass").y[17] == pytest.approx(8 / 0.8222, rel=1e-6)
    # every line is scaling_table's numbers, drawn on the marks
    table = scaling_table(sweep_file, group_by="case")
    for group_number, case in enumerate(CASES):
        mark = panel.lines[group_number]
        for line_number, region in enumerate(mark.labels):
            rows = table[(table["group"] == f"case={case}") & (table["region"] == region)]
            assert np.asarray(mark.x)[line_number] == pytest.approx(rows["threads"].to_numpy(float))
            assert np.asarray(mark.y)[line_number] == pytest.approx(rows["speedup"].to_numpy())
    # each line in its region's path colour in the roofline
    paths = sweep.figure.layers["sweep"].paths
    assert [list(mark.colors) for mark in panel.lines] == [list(path.colors) for path in paths]


def test_the_ideal_line_is_the_threads_ratio_dashed(sweep):
    sweep.sweep_controls.scaling.open()
    ideal = sweep.sweep_controls.scaling.ideal
    assert ideal.visible
    assert ideal.line_style == "dashed"
    assert np.asarray(ideal.x).tolist() == [float(t) for t in THREADS]
    assert np.asarray(ideal.y).tolist() == [float(t) for t in THREADS]


def test_the_run_slider_step_is_ringed_in_the_panel(sweep):
    sweep.sweep_controls.scaling.open()
    chosen = sweep.sweep_controls.scaling.chosen
    assert np.asarray(chosen.x).tolist() == [18.0] * 9  # the last step, 9 lines
    sweep.sweep_step = 4  # 5 threads
    assert np.asarray(chosen.x).tolist() == [5.0] * 9
    assert 42.04 / 35.0588 == pytest.approx(np.asarray(chosen.y)[0], rel=1e-6)


def test_hovering_a_point_in_the_panel_lights_its_region_up_in_the_roofline(sweep):
    panel, layer = sweep.sweep_controls.scaling, sweep.figure.layers["sweep"]
    panel.open()
    # the points run line by line: sedov's CalcKinematics (18), then sedov's CalcHourglass
    _hover(panel.points, 18)
    assert sweep.highlight_region == "CalcHourglass"
    tooltip = html.unescape(panel.tooltip.value)
    assert "CalcHourglass" in tooltip
    assert "case=sedov" in tooltip
    assert "threads per rank 1" in tooltip
    assert [list(mark.opacities) for mark in layer.paths] == [[FADED, 0.75, FADED]] * 3
    regions = layer.part.runs.rows["region"].astype(str).to_numpy()
    opacities = np.asarray(layer.runs.opacities)
    assert (opacities[regions == "CalcHourglass"] == 1.0).all()
    assert (opacities[regions != "CalcHourglass"] == FADED).all()
    assert [list(mark.opacities) for mark in panel.lines] == [[FADED, 1.0, FADED]] * 3
    # the rings of the step: CalcHourglass's of each case lit, the others faded, in both figures
    rings = layer.part.ring.rows["region"].astype(str).to_numpy()
    assert (np.asarray(layer.ring.opacities)[rings == "CalcHourglass"] == 1.0).all()
    assert sorted(panel.chosen.opacities) == [FADED] * 6 + [1.0] * 3
    sweep.highlight_region = ""
    assert [list(mark.opacities) for mark in layer.paths] == [[0.75] * 3] * 3
    assert list(layer.runs.opacities) == []


def test_hovering_or_selecting_in_the_roofline_lights_the_line_up_in_the_panel(sweep):
    panel, layer = sweep.sweep_controls.scaling, sweep.figure.layers["sweep"]
    rows = layer.part.runs.rows
    # the roofline lights the region up while the panel is closed (its figure not built) ...
    _hover(layer.runs, int(np.flatnonzero(rows["region"].astype(str).to_numpy() == "CalcHourglass")[0]))
    assert panel.figure is None
    assert [list(mark.opacities) for mark in layer.paths] == [[FADED, 0.75, FADED]] * 3
    panel.open()  # ... and the panel opened shows the region lit up
    assert [list(mark.opacities) for mark in panel.lines] == [[FADED, 1.0, FADED]] * 3
    index = int(np.flatnonzero(rows["region"].astype(str).to_numpy() == "UpdateVolumes")[3])
    _hover(layer.runs, index)
    assert sweep.highlight_region == "UpdateVolumes"
    assert [list(mark.opacities) for mark in panel.lines] == [[FADED, FADED, 1.0]] * 3
    # a current point (the last run's) hovered
    points = sweep.figure.scene.point_rows["region"].astype(str).tolist()
    _hover(sweep.figure.scatter, points.index("CalcHourglass"))
    assert sweep.highlight_region == "CalcHourglass"
    assert [list(mark.opacities) for mark in panel.lines] == [[FADED, 1.0, FADED]] * 3
    # a click (selection) of a current point of CalcKinematics
    key = next(k for k in sweep.drawn_keys if k[2] == "CalcKinematics")
    sweep.selected = [key]
    assert sweep.highlight_region == "CalcKinematics"
    assert [list(mark.opacities) for mark in panel.lines] == [[1.0, FADED, FADED]] * 3
    sweep.selected = []
    assert sweep.highlight_region == ""
    assert [list(mark.opacities) for mark in panel.lines] == [[1.0] * 3] * 3


def test_grouping_the_runs_by_threads_compares_the_cases(sweep):
    panel = sweep.sweep_controls.scaling
    panel.open()
    sweep.group_runs_by = "threads"
    assert len(panel.lines) == 18  # a line per thread count and region, through the 3 cases
    assert panel.x_axis.label == "case (1 = sedov, 2 = noh, 3 = sod)"
    assert not panel.ideal.visible  # no more hardware along a line: no ideal speed-up


def test_sample_19_varies_in_size_so_the_panel_shows_gflops_and_says_why(lulesh):
    panel = lulesh.sweep_controls.scaling
    panel.open()
    view = panel.view
    assert view.measure == GFLOPS
    assert panel.y_axis.label == "GFLOP/s"
    assert "differ in size" in panel.figure.title
    assert "different work" in panel.figure.title
    assert not panel.ideal.visible
    assert panel.ideal not in panel.figure.marks  # its x would stretch the axis down to 1
    assert view.log  # 27,000 ... 42,875,000 elements
    assert panel.x_axis.label == "problem size (elements)"
    assert size_value("30^3") == 27000.0
    assert size_value("1537x2048") == 1537 * 2048
    assert len(view.regions) == 22
    assert view.left_out == 5  # the five points beyond the hardware
    assert "5 point(s) beyond the hardware" in panel.note_html.value
    stress = _line(panel, "", "InitStressTermsForElems")
    assert stress.x[0] == 27000.0
    assert stress.y[0] == pytest.approx(0.384501)  # DP [MFLOP/s] 384.5010 on one thread
    table = scaling_table(LULESH_SIZES)
    rows = table[(table["region"] == "InitStressTermsForElems") & ~table["beyond_hardware"]]
    assert stress.y == pytest.approx(rows["performance_gflops"].to_numpy())


def test_the_panels_log_axes_keep_their_tick_labels_apart_at_its_width():
    # sample 19 on log axes: x from 27,000 / 1.5 = 18,000 to 42,875,000 x 1.5 = 64,312,500
    # elements (3.55 decades), y the drawn points' GFLOP/s, 0.00002 to 7.83 (5.59 decades)
    panel = RooflineWidget(LULESH_SIZES).sweep_controls.scaling
    panel.open()
    x_scale, y_scale = panel.x_axis.scale, panel.y_axis.scale
    assert (x_scale.min, x_scale.max) == pytest.approx((18000.0, 64312500.0))
    assert (y_scale.min, y_scale.max) == (min(panel.points.y), max(panel.points.y))
    assert y_scale.min == pytest.approx(2e-5)
    # the 680 x 380 px figure less its margins (60 + 20, 40 + 50), bqplot's 2.5 % at each end
    # of y and sqrt(110) / 2 + 1 = 6.24 px at each end for the rings: 587.5 x 263.0 px
    assert tick_lengths(panel.figure) == pytest.approx((587.5, 263.0), abs=0.05)
    # y: 47.0 px a decade; 1 -> 2 is 14.2 px, 20 needed for 12 px labels: powers of ten only
    # (bqplot printed 1, 2 and 5 x 10^k, 11 pairs touching in Chromium)
    assert assert_apart(panel.y_axis, y_scale, 263.0, vertical=True) == [
        "0.0001", "0.001", "0.01", "0.1", "1"]
    # x, from 18,000 up past a million: SI prefixes ("~s"), never "500000" next to "1e+6"
    # (d3's "~g" wrote both on this axis); y starts below 1, where a prefix would read as
    # a unit ("100m"): plain numbers
    assert panel.x_axis.tick_format == "~s"
    assert panel.y_axis.tick_format == "~g"
    # x: 165.4 px a decade; 1 -> 2 x 10^k is 49.8 px, the widest pair ("100k", "200k",
    # 33.8 px each) needs 37.8: every 1, 2 and 5 x 10^k keeps its label
    assert assert_apart(panel.x_axis, x_scale, 587.5, vertical=False) == [
        "20k", "50k", "100k", "200k", "500k", "1M", "2M", "5M", "10M", "20M", "50M"]
    # the panel made narrower: 400 - 80 - 12.5 = 307.5 px, 86.5 px a decade, 1 -> 2 x 10^k
    # 26.0 px: the powers of ten only
    panel.figure.layout.width = "400px"
    assert assert_apart(panel.x_axis, x_scale, 307.5, vertical=False) == ["100k", "1M", "10M"]


def test_the_panels_linear_axes_keep_bqplots_labels(sweep):
    panel = sweep.sweep_controls.scaling
    panel.open()
    assert not panel.view.log  # 1 ... 18 threads
    assert panel.x_axis.tick_labels == panel.y_axis.tick_labels == {}


def test_no_panel_for_a_single_run():
    w = RooflineWidget(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    # no chain: neither the sweep controls nor the panel are built (none sent to the browser)
    assert not w.sweep_controls.built
    assert not hasattr(w.sweep_controls, "scaling")
    assert not any("roofline-scaling-box" in child._dom_classes for child in w.children)


def test_region_names_are_escaped_in_the_panel(tmp_path, sweep_file):
    hostile = tmp_path / "hostile.txt"
    hostile.write_text(sweep_file.read_text().replace("CalcHourglass", "Calc<b>Hourglass"))
    w = RooflineWidget(hostile)
    panel = w.sweep_controls.scaling
    panel.open()
    index = next(i for i, line in enumerate(panel.view.lines) if line.region == "Calc<b>Hourglass")
    _hover(panel.points, index * 18)
    assert w.highlight_region == "Calc<b>Hourglass"
    assert "Calc&lt;b&gt;Hourglass" in panel.tooltip.value
    assert "<b>Hourglass" not in panel.tooltip.value


def test_the_panel_follows_the_region_filter_and_goes_with_the_chain(sweep):
    panel = sweep.sweep_controls.scaling
    panel.open()
    sweep.include = "Calc"
    assert panel.view.regions == ["CalcKinematics", "CalcHourglass"]
    assert [list(mark.labels) for mark in panel.lines] == [["CalcKinematics", "CalcHourglass"]] * 3
    sweep.baseline = None  # the chain replaced: no sweep, no panel
    assert not sweep.chain_shown
    assert panel.box.layout.display == "none"
    assert panel.view is None


def test_a_highlighted_region_fades_every_mark_of_the_others_the_last_run_s_points_too():
    # sample 19: the current points are the last run's (350^3), 22 regions, one point each
    w = RooflineWidget(LULESH_SIZES)
    layer, points = w.figure.layers["sweep"], w.figure.points
    region = "CalcHourglassControlForElems"

    def faded_by_region(mark, rows) -> dict[str, set[float]]:
        opacities = np.broadcast_to(np.asarray(mark.opacities, float), len(rows))
        found: dict[str, set[float]] = {}
        for name, opacity in zip(rows["region"].astype(str), opacities):
            found.setdefault("lit" if name == region else "other", set()).add(float(opacity))
        return found

    w.highlight_region = region
    current = w.figure.scene.point_rows
    assert len(current) == 22
    assert faded_by_region(points.active, current) == {"lit": {1.0}, "other": {FADED}}
    assert faded_by_region(layer.runs, layer.part.runs.rows) == {"lit": {1.0}, "other": {FADED}}
    assert faded_by_region(layer.ring, layer.part.ring.rows) == {"lit": {1.0}, "other": {FADED}}
    w.sweep_step = 2  # the ring moves; the points stay faded
    assert faded_by_region(points.active, current) == {"lit": {1.0}, "other": {FADED}}
    assert faded_by_region(layer.ring, layer.part.ring.rows) == {"lit": {1.0}, "other": {FADED}}
    w.include = "Calc"  # other points drawn: faded again as they are
    current = w.figure.scene.point_rows
    assert len(current) < 22
    assert faded_by_region(points.active, current) == {"lit": {1.0}, "other": {FADED}}
    w.highlight_region = ""
    assert list(points.active.opacities) == [1.0]
    assert list(layer.runs.opacities) == []


def test_the_points_fade_no_more_once_the_sweep_is_gone(sweep_file):
    w = RooflineWidget(sweep_file)
    w.highlight_region = "CalcHourglass"
    assert sorted(np.asarray(w.figure.points.active.opacities).tolist()) == [FADED, FADED, 1.0]
    w.baseline = sweep_file  # compared with a baseline: the chain is no longer drawn as a sweep
    assert w.figure.layers["sweep"].part is None
    assert list(w.figure.points.active.opacities) == [1.0]
