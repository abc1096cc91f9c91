"""Region labels of the static plot: none overlap, every region labelled or named in a note.

Extents are the ones the Agg renderer computes (``Text.get_window_extent``), in pixels.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from text_outlines import text_outline

from roofline_widget import plot_roofline, read_likwid, sample_path
from roofline_widget.static.region_labels import MAX_LABELS, label_text, place_region_labels

matplotlib = pytest.importorskip("matplotlib")

#: pmgpu (5 regions, one of them ~7e-9 GFLOP/s) and the five GMGPolar MEM_DP runs
#: (Solve and Setup each): 7 region names, 15 points, crowded in the top right.
SAMPLES = ["pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"] + [
    f"gmgpolar_skx4s_lw50_MEM_DP_{v}.txt" for v in (
        "compact1t_1537x2048_give", "compact2t_1537x2048_give", "compact4t_1socket",
        "compact4t_1socket_take", "compact8t_1537x2048_give")]


@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    runs = [read_likwid(sample_path(name)) for name in SAMPLES]
    path = tmp_path_factory.mktemp("labels") / "roofline.png"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # regions without a metric are reported, not tested here
        payload = plot_roofline(runs, filepath=path, verbose=False)
    return payload, path


def boxes(texts, renderer):
    return [t.get_window_extent(renderer) for t in texts]


def footprint(text, renderer):
    """The text's own rectangle in display pixels, turned as drawn (a Path).

    A slope's label is turned along its line: its bounding box (axis-aligned) is
    mostly empty, so a label that overlaps the box may well not touch the text.
    The outline (``tests/text_outlines.py``), checked
    below against the box matplotlib draws.
    """
    return text_outline(text, renderer)


def overlapping(extents):
    return [(a, b) for a, b in combinations(range(len(extents)), 2)
            if extents[a].overlaps(extents[b])]


def test_real_sample_labels_do_not_overlap_and_every_region_is_named(plotted):
    payload, path = plotted
    figure = payload["figure"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    regions = sorted({p["region"] for p in payload["points"]})
    assert len(regions) == 7
    assert {"Solve", "Setup", "<function_a>"} <= set(regions)
    by_text = {label_text(r): r for r in regions}
    labels = [t for t in axes.texts if t.get_text() in by_text]
    others = [t for t in axes.texts if t.get_text() not in by_text]  # ceilings, no-FLOP note
    # the notes are wrapped to the axes' width: compared with their line breaks as blanks
    ceiling_texts = [t for t in others if " ".join(t.get_text().split()) != payload["no_flop_note"]]
    assert len(ceiling_texts) == 2, [t.get_text() for t in others]
    labelled = {by_text[t.get_text()] for t in labels}
    # one label per region and run: each at a point of its own (GMGPolar's Solve and Setup
    # once for each of its five runs)
    assert len(labels) == len({(t.get_text(), t.xy) for t in labels}) == len(
        {tuple(t.xy) for t in labels})
    # the figure's notes, and the one naming the points pinned to the axis edge (no FLOPs)
    notes = " ".join([*(t.get_text() for t in figure.texts), payload["no_flop_note"]])
    for region in regions:
        assert region in labelled or region in notes, region
    label_boxes = boxes(labels, renderer)
    assert overlapping(label_boxes) == []
    # no label touches another text (its rectangle as drawn, turned along its slope)
    assert max(text.get_rotation() for text in ceiling_texts) > 0  # the slope label is turned
    other_shapes = [footprint(text, renderer) for text in others]
    assert not any(shape.intersects_bbox(box, filled=True)
                   for box in label_boxes for shape in other_shapes)
    # the turned rectangle is the text's: the same box once drawn
    for text, shape in zip(others, other_shapes):
        extent = text.get_window_extent(renderer)
        np.testing.assert_allclose(shape.get_extents().bounds, extent.bounds, atol=1.5)
    frame = axes.get_window_extent(renderer)
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1
               for b in label_boxes)
    # No label covers a point: each point's centre is outside every label box.
    points = pd.DataFrame(payload["points"])
    centres = axes.transData.transform(
        points[["arithmetic_intensity_flops_per_byte", "performance_gflops"]].to_numpy(float))
    assert not any(b.contains(x, y) for b in label_boxes for x, y in centres)
    assert len(labelled) >= 6  # all but the no-FLOP region (pinned to the corner) find room
    assert path.stat().st_size > 10_000


def crowded_axes(n_regions: int, seed: int = 1):
    """A log-log axes with ``n_regions`` points crowded into one decade (one per region)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rng = np.random.default_rng(seed)
    points = pd.DataFrame({
        "region": [f"kernel_{i:02d}" for i in range(n_regions)],
        "arithmetic_intensity_flops_per_byte": 10 ** rng.uniform(0, 1, n_regions),
        "performance_gflops": 10 ** rng.uniform(0, 1, n_regions),
        "runtime_seconds": rng.uniform(0, 1, n_regions),
    })
    figure = Figure(figsize=(6, 4))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.scatter(points["arithmetic_intensity_flops_per_byte"], points["performance_gflops"], s=36)
    axes.plot([0.5, 20], [0.5, 20], color="black")  # a roof-like line through the cluster
    axes.set_xscale("log")
    axes.set_yscale("log")
    return figure, axes, points


def test_crowded_regions_get_labels_or_a_note_never_overlaps():
    figure, axes, points = crowded_axes(60)
    placement = place_region_labels(axes, points)
    regions = list(points["region"])
    assert sorted([*placement.labels, *placement.unlabelled]) == sorted(regions)
    assert len(placement.labels) <= MAX_LABELS
    assert placement.unlabelled, "60 regions in one decade of a small plot cannot all fit"
    renderer = figure.canvas.get_renderer()
    extents = boxes(placement.labels.values(), renderer)
    assert overlapping(extents) == []
    note = placement.note.get_text()
    assert note.startswith("Not labelled (no room):")
    named = [r for r in placement.unlabelled if r in note]
    assert named == placement.unlabelled  # 30 names at most are spelled out; fewer here
    # Longest-running regions are labelled first.
    first = points.sort_values("runtime_seconds", ascending=False)["region"].iloc[0]
    assert first in placement.labels


def test_long_region_names_are_shortened_and_all_fit():
    assert label_text("x" * 40) == "x" * 31 + "\N{HORIZONTAL ELLIPSIS}"
    assert label_text("<init>") == "<init>"
    _figure, axes, points = crowded_axes(3, seed=4)
    placement = place_region_labels(axes, points)
    assert sorted(placement.labels) == sorted(points["region"])
    assert placement.note is None


def pmgpu_plotted(path, peak_flops: float, peak_bandwidth: float) -> dict:
    """plot_roofline's result for pmgpu (sample 5) under the given peaks, saved to ``path``."""
    run = read_likwid(sample_path(SAMPLES[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return plot_roofline(run, peak_flops=peak_flops, peak_bandwidth=peak_bandwidth,
                             filepath=path, verbose=False)


def test_bandwidth_label_runs_along_its_slope_above_it(tmp_path):
    # pmgpu with the quickstart's peaks: the label sat horizontally at the foot of the
    # rising roof, which crossed it. Now it is rotated to the slope's angle on screen and
    # its anchor lies above the line.
    payload = pmgpu_plotted(tmp_path / "r.png", 2048, 204.8)
    axes = payload["figure"].axes[0]
    (label,) = [t for t in axes.texts if t.get_text() == "Peak bandwidth 204.8 GB/s"]
    slope = next(line for line in payload["lines"] if line["kind"] == "bandwidth")
    (x0, y0), (x1, y1) = axes.transData.transform(
        [(slope["x"][0], slope["y"][0]), (slope["x"][-1], slope["y"][-1])])
    assert label.get_rotation() == pytest.approx(np.degrees(np.arctan2(y1 - y0, x1 - x0)), abs=0.5)
    assert 10 < label.get_rotation() < 80
    renderer = payload["figure"].canvas.get_renderer()
    ax, ay = label.get_window_extent(renderer).x0, label.get_window_extent(renderer).y0
    line_y = y0 + (ax - x0) * (y1 - y0) / (x1 - x0)
    assert ay > line_y  # the text's lowest corner is above the slope where it starts


def test_a_point_pinned_to_the_axis_edge_is_named_once_never_as_outside(tmp_path):
    # pmgpu's <init_datastructures> does 6.864286e-06 MFLOP/s = 6.9e-9 GFLOP/s, below 1e-6 of the
    # largest (<function_a>, 2134.1472 MFLOP/s = 2.134 GFLOP/s): drawn as a hollow triangle AT the
    # axis edge, and said so in its note. The labels' note called it "outside the axes" as well.
    payload = pmgpu_plotted(tmp_path / "r.png", 32, 190)
    figure = payload["figure"]
    # the notes are wrapped to the axes' width: compared with their line breaks as blanks
    texts = [" ".join(t.get_text().split()) for t in [*figure.texts, *figure.axes[0].texts]]
    assert not [t for t in texts if "Not labelled" in t]
    assert sum("<init_datastructures>" in t for t in texts) == 1
    assert any("<init_datastructures> — drawn as hollow triangles at the axis edge" in t
               for t in texts)
    # the four regions doing FLOPs are labelled next to their points
    assert {"<function_d>", "<function_b>", "<function_a>", "<function_c>"} <= {
        t.get_text() for t in figure.axes[0].texts}


#: GMGPolar's MEM_DP runs on 1, 2 and 8 threads, each a run of its own (``--separate``).
GIVE_RUNS = [f"gmgpolar_skx4s_lw50_MEM_DP_compact{t}_1537x2048_give" for t in ("1t", "2t", "8t")]


@pytest.fixture(scope="module")
def separate_runs(tmp_path_factory):
    runs = [read_likwid(sample_path(f"{name}.txt")) for name in GIVE_RUNS]
    path = tmp_path_factory.mktemp("separate") / "roofline.png"
    return plot_roofline(runs, filepath=path, verbose=False)


def test_each_run_of_a_region_gets_its_label(separate_runs):
    # Setup and Solve in each of three runs: six points, one label each (before, one label per
    # region: the 1t and 2t points had none, and no note named them). The points, from the
    # samples' DP [MFLOP/s] and Memory bandwidth [MBytes/s] rows (GFLOP/s = sum / 1000,
    # FLOP/byte = DP MFLOP/s sum / bandwidth):
    #   1t Setup 886.0070 / 383.2403 = 2.3119 at 0.8860; Solve 1253.7118 / 444.7203 = 2.8191
    #      at 1.2537
    #   2t Setup (731.8279 + 707.4428) / 747.5346 = 1439.2707 / 747.5346 = 1.9254 at 1.4393;
    #      Solve (1218.4619 + 1214.3463) / 1058.3472 = 2432.8082 / 1058.3472 = 2.2987 at 2.4328
    #   8t Setup (378.4044 + 335.2537 + 333.0803 + 333.1228 + 332.9475 + 331.9011 + 331.8538
    #      + 331.5994) = 2708.1630 / 1235.3228 = 2.1923 at 2.7082; Solve (1095.0688 + 1085.1777
    #      + 1075.7598 + 1070.4220 + 1069.6154 + 1071.9149 + 1077.8894 + 1075.6220) = 8621.4700
    #      / 3250.9677 = 2.6520 at 8.6215
    expected = {("Setup", 2.3119, 0.8860), ("Solve", 2.8191, 1.2537),
                ("Setup", 1.9254, 1.4393), ("Solve", 2.2987, 2.4328),
                ("Setup", 2.1923, 2.7082), ("Solve", 2.6520, 8.6215)}
    figure = separate_runs["figure"]
    labels = [t for t in figure.axes[0].texts if t.get_text() in ("Setup", "Solve")]
    drawn = {(t.get_text(), round(t.xy[0], 4), round(t.xy[1], 4)) for t in labels}
    assert len(labels) == 6
    assert drawn == expected
    assert not [t for t in figure.texts if "Not labelled" in t.get_text()]
    renderer = figure.canvas.get_renderer()
    assert overlapping(boxes(labels, renderer)) == []


def test_a_region_of_several_runs_left_without_room_is_named_with_its_run(separate_runs):
    # The same six points on a small axes, at most two labels: the two longest-running
    # (Solve 1t 134.7829 s, Solve 2t 69.4581 s) are labelled; Solve 8t (19.5994 s) and the
    # Setups (1t 0.8059 s, 2t 0.4966 s, 8t 0.2638 s) are named in the note, each with its run
    # (the same region has points in three runs).
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    points = pd.DataFrame(separate_runs["points"])
    figure = Figure(figsize=(6, 4))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.scatter(points["arithmetic_intensity_flops_per_byte"], points["performance_gflops"], s=36)
    axes.set_xscale("log")
    axes.set_yscale("log")
    placement = place_region_labels(axes, points, max_labels=2)
    one, two, eight = GIVE_RUNS
    assert list(placement.labels) == [f"Solve ({one})", f"Solve ({two})"]
    assert placement.unlabelled == [f"Solve ({eight})", f"Setup ({one})", f"Setup ({two})",
                                    f"Setup ({eight})"]
    note = " ".join(placement.note.get_text().split())  # wrapped: line breaks as blanks
    assert note.startswith("Not labelled (no room): ")
    assert all(name in note for name in placement.unlabelled)


def test_compare_labels_keep_clear_of_the_arrows(tmp_path):
    # GMGPolar 4t, one socket: the baseline ('give') and the current run ('take'). From the
    # samples' STAT rows (Sum), FLOP/byte = DP [MFLOP/s] / Memory bandwidth [MBytes/s]:
    #   Setup baseline 1950.0623 / 541.7965 = 3.5993 at 1.9501 GFLOP/s,
    #         current  1065.0825 / 1291.3132 = 0.82480 at 1.0651 GFLOP/s
    #   Solve baseline 4383.3768 / 513.2946 = 8.5397 at 4.3834 GFLOP/s,
    #         current  3727.1902 / 2786.7833 = 1.3375 at 3.7272 GFLOP/s
    # Setup's arrow comes from the upper right onto its point: its label sat on the arrow's head.
    from roofline_widget.scene.compare import ARROW_GID

    payload = plot_roofline(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"),
                            baseline=sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
                            filepath=tmp_path / "compare.png", verbose=False)
    figure = payload["figure"]
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = figure.axes[0].texts
    arrows = [t for t in texts if t.get_gid() == ARROW_GID]
    ends = sorted((round(a.xyann[0], 4), round(a.xyann[1], 4), round(a.xy[0], 4), round(a.xy[1], 4))
                  for a in arrows)
    assert ends == [(3.5993, 1.9501, 0.8248, 1.0651), (8.5397, 4.3834, 1.3375, 3.7272)]
    labels = {t.get_text(): t for t in texts if t.get_text() in ("Setup", "Solve")}
    assert sorted(labels) == ["Setup", "Solve"]
    assert (round(labels["Setup"].xy[0], 4), round(labels["Setup"].xy[1], 4)) == (0.8248, 1.0651)
    # the arrows as drawn (shaft and head) in display pixels
    shapes = [a.arrow_patch.get_path().transformed(a.arrow_patch.get_transform()) for a in arrows]
    for name, label in labels.items():
        box = label.get_window_extent(renderer)
        assert not any(shape.intersects_bbox(box, filled=False) for shape in shapes), name
