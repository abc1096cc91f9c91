"""A chain of runs in the widget drawn as a sweep: a path per region, shades, the run slider.

Two studies:

- sample 19 (``LULESH_SIZES``: seven LULESH problem sizes, 30^3 ... 350^3, appended to one CSV
  log, 22 regions on one thread): the runs vary in size only, so one group, one path per
  region; five points report rates beyond any CPU (a wrapped 512B counter, the table of
  test_beyond_hardware.py: CalcPressureForElems of run #1 at 19,514,360 GFLOP/s,
  CalcEnergyForElems:KERNEL_5 and CalcCourantConstraintForElems of #2, KERNEL_5 of #3,
  KERNEL_1 of #6) and are left off the paths;
- the generated 54-run sweep (``study_files.write_sweep``: 18 thread counts x 3 cases, three
  regions): grouped by case (as ``scaling_table`` groups it) each path varies in threads.
  CalcKinematics of case sedov takes 42.04 s on 1 thread, 35.0588 s on 5 and 12.37 s on 18
  (``KINEMATICS_SEDOV``) for 40 GFLOP and 20 GB on every thread count: on 5 threads
  40 / 35.0588 = 1.14094 GFLOP/s at 40 / 20 = 2.0 FLOP/byte; UpdateVolumes of case sod on 5
  threads 0.6 x (0.5 + 0.5 / 5) = 0.36 s for 0.5 GFLOP and 2 GB: 1.38889 GFLOP/s at 0.25.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from study_files import CASES, THREADS
from traitlets import TraitError
from wild_samples import LULESH_SIZES

from roofline_widget import RooflineWidget
from roofline_widget.look.colors import SWEEP_COLORS
from roofline_widget.look.markers import RUN_MARKERS
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.widget.html import STATUS_LINE_CHARS


@pytest.fixture
def sweep(sweep_file):
    return RooflineWidget(sweep_file)


@pytest.fixture(scope="module")
def lulesh():
    return RooflineWidget(LULESH_SIZES)


def _layer(w):
    return w.figure.layers["sweep"]


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value))


def _paths(w) -> list[np.ndarray]:
    """Every drawn path as an (n, 2) array of its distinct vertices (the padding repeats the last)."""
    found = []
    for lines in _layer(w).paths:
        for x, y in zip(np.asarray(lines.x, float), np.asarray(lines.y, float)):
            vertices = np.column_stack([x, y])
            keep = np.r_[True, np.any(np.diff(vertices, axis=0) != 0, axis=1)]
            found.append(vertices[keep])
    return found


def test_sample_19_one_path_per_region_through_the_seven_sizes(lulesh):
    part = lulesh.figure.scene.sweep
    assert part.key.name == "size"
    assert part.key.labels == ("30^3", "60^3", "90^3", "120^3", "150^3", "250^3", "350^3")
    layer = _layer(lulesh)
    assert len(layer.paths) == 1  # one group
    assert np.shape(layer.paths[0].x) == (22, 7)  # 22 regions, a line each (padded to 7)
    regions = part.drawn.drop_duplicates("sweep_path")["region"].astype(str)
    assert regions.nunique() == 22
    # each path's colour is its region's points' colour (the legend's)
    points = lulesh.figure.scene
    colors = dict(zip(points.point_rows["region"].astype(str),
                      points.coloring.colors(points.points.codes)))
    assert list(layer.paths[0].colors) == [colors[r] for r in regions]
    # the five points beyond the hardware (run #1's wrapped counter) are off the paths
    left = part.left_out
    assert len(left) == 5
    assert beyond_hardware(left).all()
    assert sorted(left["sweep_run"]) == [0, 1, 1, 2, 5]  # runs #1, #2, #2, #3, #6
    assert sorted(left["region"].astype(str).str.strip()) == sorted([
        "CalcPressureForElems", "CalcEnergyForElems:KERNEL_5", "CalcCourantConstraintForElems",
        "CalcEnergyForElems:KERNEL_5", "CalcEnergyForElems:KERNEL_1"])
    assert len(layer.runs.x) == 22 * 7 - 5


def test_sample_19_shades_follow_the_problem_size(lulesh):
    layer, part = _layer(lulesh), lulesh.figure.scene.sweep
    # the shade is the size's step, 1 (30^3) ... 7 (350^3), light to dark
    assert (layer.color_scale.min, layer.color_scale.max) == (1.0, 7.0)
    assert list(layer.color_scale.colors) == list(SWEEP_COLORS)
    values = np.asarray(layer.runs.color)
    steps = part.drawn["sweep_step"].to_numpy()
    assert np.array_equal(values, steps + 1.0)
    grey = [int(color[1:3], 16) for color in part.key.colors()]
    assert grey == sorted(grey, reverse=True)  # darker each size
    assert len(set(grey)) == 7


def test_the_54_runs_make_one_path_per_region_and_case_shaded_by_threads(sweep):
    part, layer = sweep.figure.scene.sweep, _layer(sweep)
    assert part.group_by == ("case",)
    assert part.groups == tuple(f"case={case}" for case in CASES)
    assert [lines.line_style for lines in layer.paths] == ["solid", "dashed", "dotted"]
    assert part.path_count() == 9  # 3 regions x 3 cases
    paths = _paths(sweep)
    assert all(len(path) == 18 for path in paths)
    # the shade is the thread count itself; along each path it grows 1 ... 18
    assert (layer.color_scale.min, layer.color_scale.max) == (1.0, 18.0)
    drawn = part.drawn
    for _, path in drawn.groupby("sweep_path"):
        assert path["sweep_value"].tolist() == [float(t) for t in THREADS]
        assert path["n_threads"].tolist() == list(THREADS)
    assert np.array_equal(np.asarray(layer.runs.color), drawn["n_threads"].to_numpy(float))
    # CalcKinematics of sedov: 1 thread 40 / 42.04 = 0.951475 GFLOP/s, 18 threads 40 / 12.37
    kinematics = drawn[(drawn["region"] == "CalcKinematics")
                       & (drawn["sweep_group"] == "case=sedov")]
    assert kinematics["performance_gflops"].iloc[[0, -1]].tolist() == pytest.approx(
        [40 / 42.04, 40 / 12.37], rel=1e-6)
    assert kinematics["arithmetic_intensity_flops_per_byte"].to_numpy() == pytest.approx(2.0)
    # the colour bar names the key and the groups' line styles
    key = _text(sweep.sweep_controls.key_html.value)
    assert "shade: threads 1" in key
    assert key.count("18") == 1
    assert "case=sedov ───" in key
    assert "case=noh - - -" in key


def test_the_run_slider_moves_the_ring_along_every_path(sweep):
    layer, controls = _layer(sweep), sweep.sweep_controls
    assert sweep.sweep_step == 17  # the last step ringed (-1 given): 18 threads
    assert controls.slider.value == controls.slider.max == controls.play.max == 17
    assert len(layer.ring.x) == 9
    sweep.sweep_step = 4  # 5 threads
    assert controls.slider.value == 4
    assert _text(controls.step_html.value) == "threads = 5"
    ring = sweep.figure.scene.sweep.ring.rows
    assert len(ring) == 9
    assert set(ring["n_threads"]) == {5}
    points = dict(zip(zip(ring["region"].astype(str), ring["sweep_group"]),
                      zip(layer.ring.x, layer.ring.y)))
    assert points["CalcKinematics", "case=sedov"] == pytest.approx((2.0, 40 / 35.0588), rel=1e-5)
    assert points["UpdateVolumes", "case=sod"] == pytest.approx((0.25, 0.5 / 0.36), rel=1e-5)
    # every ring sits on a vertex of a path
    vertices = {tuple(np.round(v, 9)) for path in _paths(sweep) for v in path}
    assert all((round(x, 9), round(y, 9)) in vertices for x, y in zip(layer.ring.x, layer.ring.y))
    # the slider sets the trait (as the play button does in the browser)
    controls.slider.value = 17
    assert sweep.sweep_step == 17
    assert set(sweep.figure.scene.sweep.ring.rows["n_threads"]) == {18}
    # a step the sweep lacks is refused and the ring stays
    with pytest.raises((ValueError, TraitError), match="steps 0 to 17"):
        sweep.sweep_step = 18
    assert sweep.sweep_step == 17
    assert set(sweep.figure.scene.sweep.ring.rows["n_threads"]) == {18}


def test_a_step_change_sends_only_the_rings(sweep):
    layer = _layer(sweep)
    runs_x, path_x, points_x = layer.runs.x, layer.paths[0].x, sweep.figure.scatter.x
    sweep.sweep_step = 2
    assert layer.runs.x is runs_x
    assert layer.paths[0].x is path_x
    assert sweep.figure.scatter.x is points_x


def test_group_runs_by_threads_makes_each_path_vary_in_the_case(sweep):
    controls = sweep.sweep_controls
    assert list(controls.group_choice.options) == ["threads", "case"]
    assert controls.group_choice.value == "case"
    assert controls.group_choice.layout.display != "none"
    sweep.sweep_step = 3
    controls.group_choice.value = "threads"
    assert sweep.group_runs_by == "threads"
    part = sweep.figure.scene.sweep
    assert part.key.name == "case"
    assert part.key.labels == CASES
    assert len(part.groups) == 18
    assert part.path_count() == 3 * 18
    assert all(len(path) == 3 for path in _paths(sweep))
    assert sweep.sweep_step == 2  # the last again: sod
    ring = part.ring.rows
    assert len(ring) == 3 * 18
    assert ring["file"].astype(str).str.endswith("-c sod)").all()
    assert np.asarray(_layer(sweep).runs.color).tolist() == \
        part.drawn["sweep_step"].add(1.0).tolist()
    assert "in 18 groups by threads" in _text(sweep.controls.status_html.value)
    # back
    sweep.group_runs_by = ""
    assert sweep.figure.scene.sweep.group_by == ("case",)


def test_sample_19_has_nothing_to_group_by(lulesh):
    controls = lulesh.sweep_controls
    assert list(controls.group_choice.options) == []
    assert controls.group_choice.layout.display == "none"
    with pytest.raises((ValueError, TraitError), match="group the runs by one of"):
        lulesh.group_runs_by = "case"
    assert lulesh.group_runs_by == ""


@pytest.mark.parametrize("which", ["lulesh", "sweep"])
def test_the_status_of_a_chain_keeps_to_two_lines(which, request):
    w = request.getfixturevalue(which)
    status = w.controls.status_html.value
    text = _text(status)
    assert len(text) <= 2 * STATUS_LINE_CHARS, text
    assert "<br" not in status
    assert "<div" not in status
    assert "as a sweep" in text
    assert "details below" in text
    # the full status (metrics, ceilings, notes) is in the collapsed details
    assert w.sweep_controls.details.selected_index is None
    w.sweep_controls.details.selected_index = 0  # opened: made now
    details = w.sweep_controls.details_html.value
    assert "FLOP rate" in details
    if which == "lulesh":  # and what the paths leave out
        assert "5 of the runs&#x27; 154 points not on the paths (5 beyond the hardware" in details
    assert "drawn as a chain" in details
    assert w.sweep_controls.details in w.children


@pytest.mark.parametrize("which", ["lulesh", "sweep"])
def test_no_marker_shape_tells_runs_apart(which, request):
    w = request.getfixturevalue(which)
    assert w.baseline_layer is None  # no hollow marker per run, no arrows
    drawn = [mark for mark in w.figure.plot.marks
             if getattr(mark, "marker", None) and mark.visible and len(mark.x)]
    assert {mark.marker for mark in drawn} == {"circle"}
    assert not {m.bqplot for m in RUN_MARKERS} & {mark.marker for mark in drawn}
    # the legend names regions, never a run
    legend = w.controls.legend_html.value
    assert not any(label in legend for label in w.file_chain.labels)


@pytest.mark.parametrize("which", ["lulesh", "sweep"])
def test_every_point_drawn_lies_inside_the_axes(which, request):
    w = request.getfixturevalue(which)
    figure = w.figure
    x0, x1, y0, y1 = (figure.x_scale.min, figure.x_scale.max, figure.y_scale.min,
                      figure.y_scale.max)
    layer = _layer(w)
    marks = [layer.runs, layer.ring, *layer.paths, figure.scatter]
    for mark in marks:
        x, y = np.asarray(mark.x, float).ravel(), np.asarray(mark.y, float).ravel()
        assert len(x)
        assert ((x >= x0) & (x <= x1)).all(), (mark, x.min(), x.max(), x0, x1)
        assert ((y >= y0) & (y <= y1)).all(), (mark, y.min(), y.max(), y0, y1)
    for step in range(len(w.figure.scene.sweep.key)):
        w.sweep_step = step
        assert ((layer.ring.x >= x0) & (layer.ring.x <= x1)).all()


def test_a_region_name_and_a_case_are_escaped(tmp_path, sweep_file):
    text = sweep_file.read_text().replace("-c sod", "-c <b>sod</b>").replace(
        "UpdateVolumes", "Update<i>Volumes")
    path = tmp_path / "escaped.txt"
    path.write_text(text)
    w = RooflineWidget(path)
    assert "<b>sod</b>" not in w.sweep_controls.key_html.value
    w.group_runs_by = "threads"
    assert "&lt;b&gt;sod&lt;/b&gt;" in w.sweep_controls.key_html.value
    w.sweep_step = 2
    assert w.sweep_controls.step_html.value == "<b>case = &lt;b&gt;sod&lt;/b&gt;</b>"
    layer = _layer(w)
    index = int(np.flatnonzero(w.figure.scene.sweep.drawn["region"].astype(str)
                               == "Update<i>Volumes")[0])
    # what bqplot does with the message the browser sends when a point is hovered
    layer.runs._handle_custom_msgs(layer.runs, {"event": "hover", "data": {"index": index}})
    assert "Update&lt;i&gt;Volumes" in layer.tooltip.value
