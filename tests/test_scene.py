"""One scene, two renderers: the widget's scene and plot_roofline's are the same roofs, labels, points.

The samples are the shared ones: pmgpu (5 regions, 1 thread) and GMGPolar (Setup, Solve) with
sample 22's ceilings (an EPYC 7763's likwid-bench logs through ``machine_roofline``: DP AVX
FMA 820 GFLOP/s, SP AVX FMA 1639 GFLOP/s, L2 771.7 GB/s, MEM 41.27 GB/s), the rendered L2/L3/
MEM_DP runs for the memory levels, and GMGPolar's give/take runs for a baseline.  The widget
composes its scene in steps (a peak drag keeps the points and the layers' rows); ``build_scene``
is the one pure rule; a test here fails when the two drift apart.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from wild_samples import MILAN_LOGS

from roofline_widget import Roofline, RooflineWidget, machine_roofline, plot_roofline, read_likwid, sample_path
from roofline_widget.look.ceiling_labels import WIDGET_CANVAS
from roofline_widget.scene.build import build_scene
from roofline_widget.static.matplotlib_figure import STATIC_CANVAS

PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
RENDERED = [sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
            for group in ("L2", "L3", "MEM_DP")]
#: Sample 22's four roofs, as labelled on their lines.
MILAN_LABELS = ["L2 771.7 GB/s", "MEM 41.27 GB/s", "SP AVX FMA 1639 GFLOP/s",
                "DP AVX FMA 820 GFLOP/s"]


pytestmark = pytest.mark.filterwarnings("ignore::roofline_widget.CeilingWarning")


@pytest.fixture(scope="module")
def milan() -> Roofline:
    dp, sp = machine_roofline(MILAN_LOGS), machine_roofline(MILAN_LOGS, precision="SP")
    return Roofline([*dp.compute, *sp.compute], list(dp.bandwidth))


@pytest.fixture(scope="module")
def runs():
    return [read_likwid(sample_path(name)) for name in (PMGPU, GIVE)]


def _static(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what was left out: named elsewhere
        return plot_roofline(*args, verbose=False, **kwargs)


def assert_same_roofs_and_labels(mine, theirs, positions: bool = True):
    """The same lines (kind, vertices, label, style, roof) and labels (text; and where)."""
    assert [(r.kind, r.label, r.style, r.roof) for r in mine.roofs] == [
        (r.kind, r.label, r.style, r.roof) for r in theirs.roofs]
    for a, b in zip(mine.roofs, theirs.roofs):
        np.testing.assert_allclose(a.x, b.x, rtol=1e-12)
        np.testing.assert_allclose(a.y, b.y, rtol=1e-12)
    assert [label.text for label in mine.ceiling_labels] == [
        label.text for label in theirs.ceiling_labels]
    if positions:
        assert [(label.align, label.offset_px, label.angle, label.kind) for label in mine.labels] \
            == [(label.align, label.offset_px, label.angle, label.kind) for label in theirs.labels]
        np.testing.assert_allclose([(label.x, label.y) for label in mine.labels],
                                   [(label.x, label.y) for label in theirs.labels], rtol=1e-12)
        assert mine.ridge == pytest.approx(theirs.ridge, rel=1e-12)
        np.testing.assert_allclose(mine.x_range, theirs.x_range, rtol=1e-12)
        np.testing.assert_allclose(mine.y_range, theirs.y_range, rtol=1e-12)


def assert_same_points(mine, theirs):
    np.testing.assert_allclose(mine.points.x, theirs.points.x, rtol=1e-12)
    np.testing.assert_allclose(mine.points.y, theirs.points.y, rtol=1e-12)
    assert list(mine.point_rows["region"]) == list(theirs.point_rows["region"])
    np.testing.assert_array_equal(mine.no_flop, theirs.no_flop)


def test_widget_and_static_scenes_of_the_quickstart_samples_with_sample_22s_roofs(runs, milan):
    widget = RooflineWidget(runs, ceilings=list(milan))
    mine = widget.figure.scene
    theirs = _static(runs, ceilings=milan, backend="bqplot")["scene"]
    # 7 points: pmgpu's five regions (<init_datastructures> doing almost no FLOPs), Setup, Solve
    assert len(mine.points) == 7
    assert list(mine.point_rows["region"][mine.no_flop]) == ["<init_datastructures>"]
    assert [label.text for label in mine.ceiling_labels] == MILAN_LABELS
    # the main ridge: MEM 41.27 GB/s meets DP 820 GFLOP/s at 820.02 / 41.27 = 19.87 FLOP/byte
    assert mine.ridge[0] == pytest.approx(19.87, rel=1e-3)
    # at 360 px the DP label takes the row above its roof (below it the slope would cross it),
    # the ridge at 226.7 px has 133 px to the right edge: "ridge 19.9" (67 px), not
    # "ridge 19.9 FLOP/byte" (146 px)
    assert mine.ridge_label.text == "ridge 19.9"
    assert_same_roofs_and_labels(mine, theirs)
    assert_same_points(mine, theirs)
    # the figures draw them: the widget's marks, and the matplotlib file's roofs and texts
    assert [end or start for end, start in zip(widget.figure.ceiling_labels.text,
                                               widget.figure.ceiling_labels_start.text)] \
        == MILAN_LABELS
    static = _static(runs, ceilings=milan)
    drawn = static["scene"]
    assert_same_roofs_and_labels(mine, drawn, positions=False)  # turned along their slopes
    assert_same_points(mine, drawn)
    texts = {t.get_text() for t in static["figure"].axes[0].texts}
    assert set(MILAN_LABELS) <= texts


def test_the_widgets_peaks_and_ceilings_are_build_scenes(runs, milan):
    widget = RooflineWidget(runs, ceilings=list(milan))
    widget.peak_bandwidth = 100.0  # a drag: the scene composed again, its points kept
    widget.peak_flops = 820.02222
    selected = widget.sums.select(flops_metric=widget.flops_metric,
                                  bandwidth_metric=widget.bandwidth_metric)
    built = build_scene(widget.sums, selected.points.reset_index(drop=True),
                        selection=selected.selection, coloring=widget.figure.scene.coloring,
                        ceilings=list(milan), peak_flops=820.02222, peak_bandwidth=100.0,
                        peaks="add", canvas=WIDGET_CANVAS)
    mine = widget.figure.scene
    assert "Peak bandwidth 100 GB/s" in [label.text for label in mine.ceiling_labels]
    # after a drag the widget's ranges only widen; reset_view fits them as build_scene does
    widget.reset_view()
    assert_same_roofs_and_labels(widget.figure.scene, built)
    assert_same_points(widget.figure.scene, built)
    np.testing.assert_array_equal(widget.figure.scene.points.codes, built.points.codes)


def test_levels_are_the_same_dots_joins_and_rings_in_both():
    run = read_likwid(RENDERED)
    widget = RooflineWidget(run, levels=["L2", "L3", "MEM"])
    mine = widget.figure.scene.levels
    theirs = _static(run, levels=["L2", "L3", "MEM"])["scene"].levels
    for level in ("L2", "L3", "MEM"):
        # triad 7.4 GFLOP/s and stencil<3d> 3.04 GFLOP/s at each level
        np.testing.assert_allclose(mine.dots[level].y, [7.4, 3.04], rtol=1e-12)
        np.testing.assert_allclose(mine.dots[level].x, theirs.dots[level].x, rtol=1e-12)
        assert mine.dots[level].marker == theirs.dots[level].marker
    np.testing.assert_allclose(mine.joins.x, theirs.joins.x, rtol=1e-12)
    # the one finding, stencil<3d>'s L3 dot (3.04 / 22.4 FLOP/byte), ringed in both
    np.testing.assert_allclose(mine.rings.x, [3.04 / 22.4], rtol=1e-12)
    np.testing.assert_allclose(theirs.rings.x, mine.rings.x, rtol=1e-12)
    assert list(mine.findings["check"]) == list(theirs.findings["check"]) == ["intensity order"]


def test_a_baseline_is_the_same_arrows_and_hollow_points_in_both(milan):
    take, give = read_likwid(sample_path(TAKE)), read_likwid(sample_path(GIVE))
    widget = RooflineWidget(take, baseline=give, ceilings=list(milan))
    mine = widget.figure.scene
    theirs = _static(take, baseline=give, ceilings=milan)["scene"]
    arrows = mine.comparison.arrows
    assert len(arrows) == 2  # Setup and Solve, from give to take
    np.testing.assert_allclose(arrows.x, theirs.comparison.arrows.x, rtol=1e-12)
    np.testing.assert_allclose(arrows.y, theirs.comparison.arrows.y, rtol=1e-12)
    (run,) = mine.comparison.runs
    assert run.hollow
    np.testing.assert_allclose(run.x, theirs.comparison.runs[0].x, rtol=1e-12)
    assert_same_roofs_and_labels(mine, theirs, positions=False)
    np.testing.assert_allclose(mine.x_range, theirs.x_range, rtol=1e-12)


def test_the_static_canvas_is_the_figures_axes_and_turns_slope_labels(runs, milan):
    static = _static(runs, ceilings=milan)
    axes = static["figure"].axes[0]
    renderer = static["figure"].canvas.get_renderer()
    box = axes.get_window_extent(renderer)
    dpi_scale = 100.0 / static["figure"].dpi
    assert (box.width * dpi_scale, box.height * dpi_scale) == pytest.approx(
        (STATIC_CANVAS.area.min_width, STATIC_CANVAS.area.height), abs=0.5)
    labels = {label.text: label for label in static["scene"].ceiling_labels}
    assert labels["MEM 41.27 GB/s"].angle > 10  # along its slope
    assert labels["DP AVX FMA 820 GFLOP/s"].angle == 0
    assert static["scene"].ridge_label is None  # the legend names the ridge


def test_building_a_scene_imports_no_plotting_library():
    code = ("import sys, roofline_widget.scene.build, roofline_widget.scene.parts; "
            "print(sorted(m for m in ('bqplot', 'matplotlib', 'ipywidgets') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


# ---------------------------------------------------------------- main's drawing, in the scene
GOLD_6132_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")


def test_a_point_beyond_the_hardware_is_flagged_once_and_drawn_hollow_by_both():
    """Sample 23: host f0702 sums rank 61's wrapped counter (1,235 GFLOP/s on 72 ranks, one
    thread 1,170 GFLOP/s against 459.7 at most, tests/test_thread_plausibility.py); f0703 and
    f0704 are plausible.  Both scenes flag f0702's point only; matplotlib draws it hollow, the
    widget draws it as an outline over its own transparent (still hovered) marker."""
    from matplotlib.colors import to_rgba
    from wild_samples import WRAPPED_RANK

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(WRAPPED_RANK)
    static = _static(WRAPPED_RANK)
    for scene in (widget.figure.scene, static["scene"]):
        rows = scene.point_rows
        assert scene.points.flagged is not None
        assert list(rows.loc[scene.points.flagged, "rank_group"].astype(str).str[:5]) == ["f0702"]
        assert rows.loc[scene.points.flagged, "performance_gflops"].iloc[0] == pytest.approx(
            1235.1891662, rel=1e-9)
    flagged = widget.figure.scene.points.flagged
    marks = widget.figure.points
    np.testing.assert_array_equal(marks.active.opacities, np.where(flagged, 0.0, 1.0))
    assert marks.hollow in widget.figure.plot.marks
    assert not marks.hollow.fill
    np.testing.assert_allclose(marks.hollow.x, widget.figure.scene.points.x[flagged])
    np.testing.assert_array_equal(marks.hollow.color, widget.figure.scene.points.codes[flagged])
    widget.color_by = "rank"  # the outline takes the point's new colour
    np.testing.assert_array_equal(marks.hollow.color, widget.figure.scene.points.codes[flagged])
    widget.ranks = list(range(72, 216))  # f0703 and f0704 only: nothing hollow
    assert widget.figure.scene.points.flagged is None
    assert marks.hollow not in widget.figure.plot.marks
    assert len(marks.hollow.x) == 0
    assert list(marks.active.opacities) == [1.0]
    axes = static["figure"].axes[0]
    x, y = static["scene"].points.x[static["scene"].points.flagged][0], static["scene"].points.y[
        static["scene"].points.flagged][0]
    hollow = [c for c in axes.collections if len(c.get_offsets()) == 1
              and tuple(c.get_offsets()[0]) == pytest.approx((x, y), rel=1e-12)]
    assert len(hollow) == 1
    faces = hollow[0].get_facecolors()  # "none": no face colour, or a transparent one
    assert len(faces) == 0 or to_rgba(faces[0])[3] == 0.0
    assert to_rgba(hollow[0].get_edgecolors()[0])[3] == 1.0


def test_a_theoretical_roofline_is_dashed_in_both_until_a_peak_replaces_it():
    """GMGPolar on 8 cores of a Xeon Gold 6132: the theoretical DP AVX-512 FMA roof, 8 cores x
    32 FLOP/cycle x 2.6 GHz = 665.6 GFLOP/s (tests/test_theoretical.py), is the main compute
    roof: the roofline through it is dashed in both scenes and both renderers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(GOLD_6132_8T, theoretical=True)
    static = _static(GOLD_6132_8T, theoretical=True)
    for scene in (widget.figure.scene, static["scene"]):
        assert scene.roofline.main_compute.gflops == pytest.approx(665.6)
        assert [r.style for r in scene.roofs if r.kind == "roof"] == ["dashed"]
    # the static figure's notes say the clock (the widget's status line does, test_theoretical)
    assert any("theoretical peak at 2.6 GHz" in note for note in static["scene"].notes[1:-1])
    marks = widget.figure.ceiling_marks
    # made for the first theoretical roofline, and drawn (a widget without one has no such mark)
    assert marks.marks[2] is marks.theoretical_roof
    assert marks.theoretical_roof in widget.figure.plot.marks
    assert marks.theoretical_roof.visible
    assert marks.theoretical_roof.line_style == "dashed"
    assert not marks.roof.visible
    assert max(marks.theoretical_roof.y) == pytest.approx(665.6)
    roof = [line for line in static["figure"].axes[0].lines
            if str(line.get_label()).endswith("FLOP/byte)")]
    assert [line.get_linestyle() for line in roof] == ["--"]
    widget.peak_flops = 500.0  # the user's peak is the main roof: a solid roofline again
    assert [r.style for r in widget.figure.scene.roofs if r.kind == "roof"] == ["solid"]
    assert marks.roof.visible
    assert not marks.theoretical_roof.visible
    assert max(marks.roof.y) == pytest.approx(500.0)
