"""plot_roofline of a chain of runs draws a sweep: a path per region, the runs on a shade, a colour bar.

Sample 19 (seven LULESH problem sizes, 30^3 ... 350^3, appended to one CSV log; 22 regions on
one thread) and the generated 54-run sweep of ``study_files.py`` (18 thread counts x 3 cases,
three regions): what the figure's artists are (one Line2D path per region and group, one
collection of every run's points, a colour bar naming what differs, no legend entry and no
marker shape per run), that every point drawn lies inside the axes, and the numbers on the
paths worked out by hand from the files.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from study_files import KINEMATICS_SEDOV, THREADS, write_sweep
from wild_samples import LULESH_SIZES

from roofline_widget import plot_roofline
from roofline_widget.scene.compare import BASELINE_GID
from roofline_widget.scene.sweep import PATH_GID, RING_GID, RUNS_GID
from roofline_widget.static.matplotlib_figure import NOTES_GID, SWEEP_BAR_GID

HOURGLASS = "CalcFBHourglassForceForElems"
# run #1 (lines 550-564 of the sample): 7,771.6640 MFLOP/s and 1,656.6329 MB/s; run #7: 7,812.2025
# MFLOP/s and 5,633.6970 MB/s (one thread each: the sums are those values / 1000)
FIRST = (7771.6640 / 1656.6329, 7.7716640)  # 4.6912 FLOP/byte
LAST = (7812.2025 / 5633.6970, 7.8122025)  # 1.3867 FLOP/byte
SIZES = ["30^3", "60^3", "90^3", "120^3", "150^3", "250^3", "350^3"]


@pytest.fixture(scope="module")
def lulesh(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "lulesh.png"
    return plot_roofline(LULESH_SIZES, filepath=path, verbose=False), path


@pytest.fixture(scope="module")
def threads_by_case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep54")
    return plot_roofline(write_sweep(folder), filepath=folder / "sweep.png", verbose=False)


def _paths(axes):
    return [line for line in axes.get_lines() if line.get_gid() == PATH_GID]


def _only(axes, gid):
    (collection,) = [c for c in axes.collections if c.get_gid() == gid]
    return collection


def _inside(axes, xy: np.ndarray) -> bool:
    (x0, x1), (y0, y1) = axes.get_xlim(), axes.get_ylim()
    return bool(((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)).all())


def test_one_path_per_region_through_its_runs_in_order(lulesh):
    payload, path = lulesh
    axes = payload["figure"].axes[0]
    paths = _paths(axes)
    assert len(paths) == 22
    assert {line.get_label().lstrip("_") for line in paths} == {p["region"] for p in payload["points"]}
    (mine,) = [line for line in paths if line.get_label() == HOURGLASS]
    x, y = mine.get_data()
    assert len(x) == 7  # its seven runs, #1 first
    assert (x[0], y[0]) == pytest.approx(FIRST)
    assert (x[-1], y[-1]) == pytest.approx(LAST)
    # the path is in its region's colour, the colour of the ring over its last run's point
    ring = _only(axes, RING_GID)
    at = np.flatnonzero(np.isclose(ring.get_offsets()[:, 0], LAST[0]))
    assert len(at) == 1
    assert to_rgb(mine.get_color()) == pytest.approx(ring.get_edgecolors()[at[0]][:3])
    assert path.stat().st_size > 0


def test_runs_told_apart_by_the_shade_not_by_marker_or_legend(lulesh):
    payload, _ = lulesh
    figure = payload["figure"]
    axes = figure.axes[0]
    dots = _only(axes, RUNS_GID)
    # every run's points in ONE collection of one marker: 7 x 22 less the 5 beyond the hardware
    assert len(dots.get_offsets()) == 7 * 22 - 5
    assert not [c for c in axes.collections if c.get_gid() == BASELINE_GID]
    # the fill is the run's step on the shade: 7 colours, darker run after run (30^3 lightest)
    steps = payload["scene"].sweep.drawn["sweep_step"].to_numpy()
    faces = dots.get_facecolors()[:, :3]
    lightness = [faces[steps == step].mean() for step in range(7)]
    assert len({tuple(np.round(row, 4)) for row in faces}) == 7
    assert lightness == sorted(lightness, reverse=True)
    # the legend names the roofline and each region once, never a run
    texts = [t.get_text() for t in axes.get_legend().get_texts()]
    assert len(texts) == 1 + 22
    assert not [t for t in texts if t.startswith("#") or "hollow" in t]
    # the colour bar names what differs, a tick per problem size
    (bar,) = [a for a in figure.axes if a.get_gid() == SWEEP_BAR_GID]
    assert bar.get_ylabel() == "problem size"
    assert [t.get_text() for t in bar.get_yticklabels()] == SIZES


def test_every_point_and_path_inside_the_axes(lulesh):
    payload, _ = lulesh
    axes = payload["figure"].axes[0]
    assert _inside(axes, _only(axes, RUNS_GID).get_offsets())
    assert _inside(axes, _only(axes, RING_GID).get_offsets())
    for line in _paths(axes):
        assert _inside(axes, np.column_stack(line.get_data())), line.get_label()
    # the five points left out are named under the axes
    notes = " ".join(t.get_text() for t in axes.texts if t.get_gid() == NOTES_GID)
    assert "5 of the runs' 154 points not on the paths (5 beyond the hardware" in " ".join(
        notes.split())


def test_legend_and_colour_bar_cover_neither_the_axes_nor_the_notes(lulesh):
    payload, _ = lulesh
    figure = payload["figure"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    legend = axes.get_legend().get_window_extent(renderer)
    (bar,) = [a for a in figure.axes if a.get_gid() == SWEEP_BAR_GID]
    bar_box = bar.get_tightbbox(renderer)
    notes = [t.get_window_extent(renderer) for t in axes.texts if t.get_gid() == NOTES_GID]
    frame = axes.get_window_extent(renderer)
    assert bar_box.x0 >= frame.x1
    assert legend.x0 >= bar_box.x1
    assert notes
    assert all(not legend.overlaps(box) for box in notes)


def test_thread_sweep_of_three_cases_a_path_per_region_and_case(threads_by_case):
    payload = threads_by_case
    figure = payload["figure"]
    axes = figure.axes[0]
    paths = _paths(axes)
    assert len(paths) == 3 * 3  # three regions x three cases
    assert len({line.get_linestyle() for line in paths}) == 3  # a line style per case
    # CalcKinematics of case sedov: 40 GFLOP and 20 GB on every thread count (2 FLOP/byte) in
    # KINEMATICS_SEDOV[t] seconds: 40 / 42.04 = 0.9515 GFLOP/s on 1 thread, 40 / 12.37 = 3.2336
    # on 18 (the sedov paths are drawn first: solid)
    (sedov,) = [line for line in paths
                if line.get_label() == "CalcKinematics" and line.get_linestyle() == "-"]
    x, y = sedov.get_data()
    assert len(x) == 18
    assert np.allclose(x, 2.0)
    assert y[0] == pytest.approx(0.9515, abs=5e-5)
    assert y[-1] == pytest.approx(3.2336, abs=5e-5)
    assert y == pytest.approx([40.0 / KINEMATICS_SEDOV[t] for t in THREADS], rel=1e-4)
    texts = [t.get_text() for t in axes.get_legend().get_texts()]
    assert texts[1:] == ["CalcKinematics", "CalcHourglass", "UpdateVolumes",
                         "case=sedov", "case=noh", "case=sod"]
    (bar,) = [a for a in figure.axes if a.get_gid() == SWEEP_BAR_GID]
    assert bar.get_ylabel() == "threads"
    # 18 thread counts: every second one labelled (at most 12), and the last
    assert [t.get_text() for t in bar.get_yticklabels()] == [
        "1", "3", "5", "7", "9", "11", "13", "15", "17", "18"]
    assert len(_only(axes, RUNS_GID).get_offsets()) == 54 * 3
    assert _inside(axes, _only(axes, RUNS_GID).get_offsets())
