"""The widget's baseline comparison, saved views and plot_roofline(baseline=) on real samples.

Pair: sample 2 ("give", GMGPolar 769x1024, 4 threads on socket 0) is the baseline,
sample 16 ("take", the other implementation, same mesh, threads and pinning) the widget's
data.  Chain: sample 17 (the "give" implementation on 1537x2048, 1, 2 and 8 threads).
MEM_DP: per region the point is the SUM over threads of ``DP [MFLOP/s]`` and of
``Memory bandwidth [MBytes/s]``; runtime the MAX of ``RDTSC Runtime [s]`` (the STAT
``Sum`` rows printed in the files are the check of each sum).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from roofline_widget import RooflineWidget, compare_points, read_likwid, sample_path
from roofline_widget.errors import ViewError, ViewWarning
from roofline_widget.io import read_likwid_text
from roofline_widget.look.colors import PALETTE
from roofline_widget.scene.compare import ARROW_GID, BASELINE_GID
from roofline_widget.static.plot import plot_roofline
from roofline_widget.views import View
from roofline_widget.widget.layers.compare import CompareMarks

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
CHAIN = {f"{n}t": f"gmgpolar_skx4s_lw50_MEM_DP_compact{n}t_1537x2048_give.txt" for n in (1, 2, 8)}
FLOPS_DP = "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt"
X, Y = "arithmetic_intensity_flops_per_byte", "performance_gflops"

# Region Solve, worked by hand from the files (MFLOP/s and MB/s as printed):
# give: DP per core 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674 (STAT Sum 4383.3768),
# bandwidth 513.2946 on Core 0 only; runtime max(10.081250, 10.081730, 10.081740, 10.081740)
GIVE_SOLVE = ((1112.9116 + 1090.3446 + 1086.9532 + 1093.1674) / 513.2946,
              (1112.9116 + 1090.3446 + 1086.9532 + 1093.1674) / 1000)
GIVE_SOLVE_T = 10.081740
# take: DP 942.6759 + 921.6176 + 921.3948 + 941.5019 (STAT Sum 3727.1902), bandwidth
# 2786.7833; runtime max(4.478530, 4.479014, 4.479015, 4.479016)
TAKE_SOLVE = ((942.6759 + 921.6176 + 921.3948 + 941.5019) / 2786.7833,
              (942.6759 + 921.6176 + 921.3948 + 941.5019) / 1000)
TAKE_SOLVE_T = 4.479016
# Setup: give 1950.0623 MFLOP/s / 541.7965 MB/s in 0.091758 s, take 1065.0825 / 1291.3132
# in 0.128629 s: speed-up 0.091758 / 0.128629 (slower)
SETUP_SPEEDUP = 0.091758 / 0.128629


def run(name):
    return read_likwid(sample_path(name))


def renamed(name, old, new):
    """A sample with one region renamed in the text (the rest of the file as it is)."""
    text = Path(sample_path(name)).read_text()
    assert text.count(f"Region {old},") == 1
    return read_likwid_text(text.replace(f"Region {old},", f"Region {new},"), f"renamed-{name}")


@pytest.fixture
def widget():
    return RooflineWidget(run(TAKE), baseline=run(GIVE))


def line_rows(layer):
    return {tuple(np.round(x, 12)): tuple(y) for x, y in zip(layer.lines.x, layer.lines.y)}


# ---------------------------------------------------------------------------
# the arrows
# ---------------------------------------------------------------------------
def test_lines_go_from_the_baseline_points_to_the_current_points(widget):
    layer = widget.baseline_layer
    assert isinstance(layer, CompareMarks)
    assert layer.part is widget.figure.scene.comparison
    marks = widget.figure.plot.marks
    assert layer.lines in marks
    assert layer.baseline_points in marks
    assert marks[-1] is widget.figure.scatter  # the points stay on top
    table = compare_points(run(GIVE), run(TAKE))
    assert layer.lines.visible
    assert layer.lines.x.shape == (2, 2)
    np.testing.assert_allclose(layer.lines.x[:, 0], table[X + "_before"], rtol=1e-12)
    np.testing.assert_allclose(layer.lines.x[:, 1], table[X + "_after"], rtol=1e-12)
    np.testing.assert_allclose(layer.lines.y[:, 0], table[Y + "_before"], rtol=1e-12)
    np.testing.assert_allclose(layer.lines.y[:, 1], table[Y + "_after"], rtol=1e-12)
    solve = list(table["region"]).index("Solve")
    assert layer.lines.x[solve] == pytest.approx([GIVE_SOLVE[0], TAKE_SOLVE[0]], rel=1e-12)
    assert layer.lines.y[solve] == pytest.approx([GIVE_SOLVE[1], TAKE_SOLVE[1]], rel=1e-12)
    # the line ends at the widget's own point of the region
    points = widget.to_dataframe().set_index("region")
    assert layer.lines.x[solve][1] == pytest.approx(points.loc["Solve", X], rel=1e-12)
    # the hollow baseline points are the lines' starts
    assert layer.baseline_points.fill is False
    np.testing.assert_allclose(layer.baseline_points.x, layer.lines.x[:, 0])


def test_lines_have_the_colour_of_their_regions_points(widget):
    layer = widget.baseline_layer
    shown = widget.figure.scene.points.rows.reset_index(drop=True)
    point_colour = {region: PALETTE[int(code)]
                    for region, code in zip(shown["region"], widget.figure.scatter.color)}
    regions = list(widget.comparison_dataframe()["region"])
    assert layer.lines.colors == [point_colour[r] for r in regions]
    assert layer.baseline_points.colors == [point_colour[r] for r in regions]
    assert len(set(layer.lines.colors)) == 2
    widget.color_by = "rank"  # one rank: every point and line in the first colour
    assert layer.lines.colors == [PALETTE[0]] * 2
    assert set(widget.figure.scatter.color) == {0.0}


def test_axes_hold_the_baseline_points(widget):
    xs, ys = widget.figure.x_scale, widget.figure.y_scale
    x, y = widget.baseline_layer.extent()
    # give: Setup 1950.0623 / 541.7965 FLOP/byte, Solve 8.54 FLOP/byte
    assert sorted(x) == pytest.approx(sorted([GIVE_SOLVE[0], 1950.0623 / 541.7965]), rel=1e-12)
    assert sorted(y) == pytest.approx(sorted([GIVE_SOLVE[1], 1.9500623]), rel=1e-12)
    assert xs.min <= x.min()
    assert x.max() <= xs.max
    assert ys.min <= y.min()
    assert y.max() <= ys.max


def test_status_gives_the_median_speedup(widget):
    speedups = sorted([SETUP_SPEEDUP, GIVE_SOLVE_T / TAKE_SOLVE_T])
    median = (speedups[0] + speedups[1]) / 2  # 1.48
    assert widget.baseline_layer.median_speedup() == pytest.approx(median, rel=1e-12)
    assert f"median speed-up vs baseline: {median:.3g}× over 2 points" in \
        widget.controls.status_html.value


def test_status_names_the_worst_region_and_every_slowdown(widget):
    status = widget.controls.status_html.value
    # Setup got slower (0.091758 s -> 0.128629 s: 0.713x, 1.4x slower); a median of 1.48x over
    # Setup and Solve (2.25x) alone would hide it
    slower = f"{1 / SETUP_SPEEDUP:.3g}× slower"
    assert f"worst: Setup {SETUP_SPEEDUP:.3g}× ({slower})" in status
    assert f"<b>1 region slower</b>: Setup ({slower})" in status
    # the note follows the status line's own parts after a separator
    assert "0 left out &middot; <span class='roofline-compare-status'>median speed-up" in status
    widget.include = "Solve"  # only Solve (2.25x faster): no slowdown to name
    status = widget.controls.status_html.value
    assert "slower" not in status
    assert "worst" not in status  # one point: its median says it


def test_empirical_roofs_hold_the_baseline_points_too(widget, tmp_path):
    # take's largest: Solve 3.7271902 GFLOP/s, 2.7867833 GB/s; give's Solve 4.3833768 GFLOP/s
    # is higher: the empirical peak is the baseline's, so no baseline point sits above it
    assert widget.roofline.empirical
    assert widget.roofline.peak_flops == pytest.approx(GIVE_SOLVE[1], rel=1e-12)
    assert widget.roofline.peak_bandwidth == pytest.approx(2.7867833, rel=1e-12)
    before = widget.comparison_dataframe()
    assert (before[Y + "_before"] <= widget.roofline.peak_flops * (1 + 1e-12)).all()
    payload = plot_roofline(run(TAKE), baseline=run(GIVE), filepath=tmp_path / "c.png",
                            verbose=False)
    assert payload["peak_flops_gflops"] == pytest.approx(widget.roofline.peak_flops, rel=1e-12)
    assert payload["peak_bandwidth_gbs"] == pytest.approx(widget.roofline.peak_bandwidth)
    # without a baseline, the current run's own largest again
    widget.baseline = None
    assert widget.roofline.peak_flops == pytest.approx(TAKE_SOLVE[1], rel=1e-12)


def test_include_filter_updates_the_lines(widget):
    layer = widget.baseline_layer
    widget.include = "Solve"
    assert np.atleast_2d(layer.lines.x).shape == (1, 2)
    assert np.atleast_2d(layer.lines.x)[0] == pytest.approx([GIVE_SOLVE[0], TAKE_SOLVE[0]], rel=1e-12)
    assert list(widget.comparison_dataframe()["region"]) == ["Solve"]
    assert f"{GIVE_SOLVE_T / TAKE_SOLVE_T:.3g}× over 1 point" in widget.controls.status_html.value
    widget.include = "Nothing"
    assert not layer.lines.visible
    assert not layer.baseline_points.visible
    assert len(layer.baseline_points.x) == 0
    widget.include = ""
    assert layer.lines.visible
    assert layer.lines.x.shape == (2, 2)


def test_comparison_dataframe_rows(widget):
    frame = widget.comparison_dataframe()
    assert list(frame["region"]) == ["Setup", "Solve"]
    assert set(frame["status"]) == {"both"}
    assert set(frame["run_before"]) == {"baseline"}
    assert set(frame["run_after"]) == {"current"}
    solve = frame.set_index("region").loc["Solve"]
    assert solve["speedup"] == pytest.approx(GIVE_SOLVE_T / TAKE_SOLVE_T, rel=1e-12)
    assert solve["performance_change_percent"] == pytest.approx(
        (TAKE_SOLVE[1] / GIVE_SOLVE[1] - 1) * 100, rel=1e-12)
    assert frame.set_index("region").loc["Setup", "speedup"] == pytest.approx(SETUP_SPEEDUP,
                                                                              rel=1e-12)
    # within max_points: only the drawn (longest-running) region
    widget.max_points = 1
    assert list(widget.comparison_dataframe()["region"]) == ["Solve"]
    assert np.atleast_2d(widget.baseline_layer.lines.x).shape == (1, 2)


def test_regions_in_one_run_only_are_named_escaped():
    baseline = renamed(GIVE, "Setup", "Init<b>")
    w = RooflineWidget(run(TAKE), baseline=baseline)
    frame = w.comparison_dataframe()
    assert dict(zip(frame["region"], frame["status"])) == {
        "Init<b>": "only before", "Solve": "both", "Setup": "only after"}
    status = w.controls.status_html.value
    assert "1 region only in baseline: Init&lt;b&gt;" in status
    assert "1 region only in current: Setup" in status
    assert "<b>," not in status
    assert "Init<b>" not in status
    assert np.atleast_2d(w.baseline_layer.lines.x).shape == (1, 2)  # Solve only
    assert len(w.baseline_layer.baseline_points.x) == 2  # Init<b> and Solve, hollow
    # a region the widget's data lacks has no colour of its own: grey
    assert w.baseline_layer.baseline_points.colors[0] == "#7f7f7f"


def test_match_renames_the_baseline_regions():
    baseline = renamed(GIVE, "Setup", "Init")
    w = RooflineWidget(run(TAKE), baseline=baseline, match={"Init": "Setup"})
    assert set(w.comparison_dataframe()["status"]) == {"both"}
    assert w.baseline_layer.lines.x.shape == (2, 2)


def test_tooltip_shows_both_points_and_changes(widget):
    layer = widget.baseline_layer
    solve = list(widget.comparison_dataframe()["region"]).index("Solve")
    layer._on_hover(layer.baseline_points, {"data": {"index": solve}})
    text = layer.tooltip.value
    assert "Solve" in text
    assert f"{GIVE_SOLVE[1]:.4g} → {TAKE_SOLVE[1]:.4g}" in text
    assert f"{GIVE_SOLVE_T / TAKE_SOLVE_T:.3g}×" in text


def test_chain_draws_one_segment_per_step():
    chain = {label: run(name) for label, name in CHAIN.items() if label != "8t"}
    w = RooflineWidget(run(CHAIN["8t"]), baseline=chain)
    table = compare_points({**chain, "current": run(CHAIN["8t"])})
    layer = w.baseline_layer
    assert layer.lines.x.shape == (4, 2)
    np.testing.assert_allclose(layer.lines.x, table[[X + "_before", X + "_after"]], rtol=1e-12)
    # the 2t point is the end of step 1 and the start of step 2
    assert layer.lines.x[0, 1] == layer.lines.x[2, 0]
    # speed-up of the last step vs the first run: 1t Solve 134.7829 s / 8t 19.59984 s
    assert "median speed-up vs 1t" in w.controls.status_html.value
    frame = w.comparison_dataframe()
    solve = frame[(frame["step"] == 2) & (frame["region"] == "Solve")].iloc[0]
    assert solve["speedup_vs_first"] == pytest.approx(134.782900 / 19.599840, rel=1e-12)


def test_a_baseline_without_the_metric_is_reported_not_drawn():
    w = RooflineWidget(run(TAKE), baseline=run(FLOPS_DP))  # FLOPS_DP: no memory bandwidth
    layer = w.baseline_layer
    assert layer.error
    assert not layer.lines.visible
    assert "Baseline not compared" in w.controls.status_html.value
    assert len(w.to_dataframe()) == 2  # the widget's own points are still drawn
    with pytest.raises(ValueError, match="cannot be compared"):
        w.comparison_dataframe()


def test_baseline_trait_set_later_and_cleared():
    w = RooflineWidget(run(TAKE))
    assert w.baseline_layer is None
    with pytest.raises(ValueError, match="no baseline"):
        w.comparison_dataframe()
    w.baseline = run(GIVE)
    assert w.baseline_layer.lines.x.shape == (2, 2)
    w.baseline = None
    assert not w.baseline_layer.lines.visible
    assert "speed-up" not in w.controls.status_html.value
    with pytest.raises(ValueError, match="empty"):
        w.baseline = {}
    assert w.baseline is None


# ---------------------------------------------------------------------------
# saved views
# ---------------------------------------------------------------------------
def test_save_and_load_view_round_trip(widget, tmp_path):
    widget.include = "Sol"
    widget.peak_flops = 50.0
    widget.peak_bandwidth = 20.0
    widget.color_by = "rank"
    widget.size_by = "runtime"
    widget.ranks = [0]
    widget.selected = [(widget.sums.files[0], 0, "Solve")]
    path = widget.save_view(tmp_path / "view.json")
    document = json.loads(path.read_text())
    assert document["format"] == "roofline-widget view"
    assert document["include"] == "Sol"
    assert document["baseline"] == ["gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket"]
    fresh = RooflineWidget(run(TAKE), baseline=run(GIVE))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fresh.load_view(path) == []
    for name in ("include", "peak_flops", "peak_bandwidth", "color_by", "size_by", "ranks",
                 "selected", "flops_metric", "bandwidth_metric"):
        assert getattr(fresh, name) == getattr(widget, name), name
    assert list(fresh.to_dataframe()["region"]) == ["Solve"]
    assert fresh.controls.include_text.value == "Sol"  # the controls follow
    assert fresh.controls.color_choice.value == "rank"
    assert np.atleast_2d(fresh.baseline_layer.lines.x).shape == (1, 2)
    assert fresh.roofline.peak_flops == 50.0
    # and the constructor form
    again = RooflineWidget(run(TAKE), baseline=run(GIVE), view=path)
    assert again.selected == widget.selected
    assert again.include == "Sol"


def test_load_view_is_one_refresh(widget, tmp_path):
    path = View(include="Solve", peak_flops=40.0, color_by="rank").save(tmp_path / "v.json")
    calls = []
    original = widget.figure.draw
    widget.figure.draw = lambda scene, *args: (calls.append(scene), original(scene, *args))
    widget.load_view(path)
    assert len(calls) == 1
    assert list(calls[0].points.rows["region"]) == ["Solve"]


def test_view_naming_what_the_data_lacks_warns_once(widget, tmp_path):
    file = widget.sums.files[0]
    view = View(flops_metric="SP [MFLOP/s]", include="Solve",
                selected=[(file, 0, "Solve"), (file, 0, "Smoother")], baseline=["other"])
    path = view.save(tmp_path / "bad.json")
    with pytest.warns(ViewWarning) as caught:
        problems = widget.load_view(path)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "Smoother" in message
    assert "SP [MFLOP/s]" in message
    assert "other" in message
    assert str(path) in message
    assert len(problems) == 3
    # what fits was applied, the rest left as it was
    assert widget.include == "Solve"
    assert widget.flops_metric == "DP [MFLOP/s]"
    assert widget.selected == [(file, 0, "Solve")]


def test_a_failing_load_view_puts_every_trait_back(widget, tmp_path, monkeypatch):
    from roofline_widget.widget import state

    path = View(include="Solve", peak_flops=40.0, color_by="rank").save(tmp_path / "v.json")
    original = state.select_points
    calls = []

    def fail_once(*args, **kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise RuntimeError("selection failed")
        return original(*args, **kwargs)

    monkeypatch.setattr(state, "select_points", fail_once)
    with pytest.raises(RuntimeError, match="selection failed"):
        widget.load_view(path)
    assert calls[0]["include"] == "Solve"  # the view was being applied
    assert (widget.include, widget.peak_flops, widget.color_by) == ("", None, "region")
    assert len(widget.to_dataframe()) == 2
    assert widget.baseline_layer.lines.x.shape == (2, 2)


def test_view_with_ranks_the_data_lacks_keeps_the_widgets_ranks(widget):
    with pytest.warns(ViewWarning, match=r"ranks \[3\]"):
        widget.load_view(View(ranks=[3]))
    assert widget.ranks is None
    assert len(widget.to_dataframe()) == 2


def test_invalid_view_file_changes_nothing(widget, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"format": "roofline-widget view", "version": 1,
                                "include": "Solve", "colour": "red"}))
    with pytest.raises(ViewError, match="unknown key"):
        widget.load_view(path)
    assert widget.include == ""
    assert len(widget.to_dataframe()) == 2


# ---------------------------------------------------------------------------
# plot_roofline(baseline=)
# ---------------------------------------------------------------------------
def test_static_plot_draws_the_arrows(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "compare.png"
    payload = plot_roofline(run(TAKE), baseline=run(GIVE), filepath=path, verbose=False)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 10_000
    axes = payload["figure"].axes[0]
    arrows = [t for t in axes.texts if t.get_gid() == ARROW_GID]
    assert len(arrows) == 2
    frame = payload["comparison"]
    solve = list(frame["region"]).index("Solve")
    assert arrows[solve].xy == pytest.approx(TAKE_SOLVE, rel=1e-12)
    assert arrows[solve].xyann == pytest.approx(GIVE_SOLVE, rel=1e-12)
    hollow = [c for c in axes.collections if c.get_gid() == BASELINE_GID]
    assert len(hollow) == 1
    np.testing.assert_allclose(hollow[0].get_offsets()[:, 0], frame[X + "_before"], rtol=1e-12)
    # the roofs are drawn across the baseline points too (give Solve at 8.54 FLOP/byte)
    roof = next(line for line in payload["lines"] if line["kind"] == "roof")
    assert max(roof["x"]) > GIVE_SOLVE[0]
    # the arrow has the colour of its region's points
    colours = payload["point_colors"]
    from matplotlib.colors import to_hex
    assert to_hex(arrows[solve].arrow_patch.get_edgecolor()) == colours["Solve"]


def test_static_plot_chain_match_and_combine_ranks(tmp_path):
    pytest.importorskip("matplotlib")
    chain = {label: run(name) for label, name in CHAIN.items() if label != "8t"}
    payload = plot_roofline(run(CHAIN["8t"]), baseline=chain, verbose=False, combine_ranks=True)
    axes = payload["figure"].axes[0]
    assert len([t for t in axes.texts if t.get_gid() == ARROW_GID]) == 4
    assert set(payload["comparison"]["rank"]) == {-1}
    baseline = renamed(GIVE, "Setup", "Init")
    payload = plot_roofline(run(TAKE), baseline=baseline, match={"Init": "Setup"},
                            verbose=False)
    assert set(payload["comparison"]["status"]) == {"both"}


def test_static_plot_baseline_needs_matplotlib_backend():
    with pytest.raises(NotImplementedError, match="matplotlib only"):
        plot_roofline(run(TAKE), baseline=run(GIVE), backend="bqplot", verbose=False)


def test_static_plot_keeps_baseline_points_inside_pinned_limits():
    """pmgpu has a region with almost no FLOPs: the axes are frozen around the rest, and
    widened for the baseline points (give Solve at 4.38 GFLOP/s is above every pmgpu point)."""
    pytest.importorskip("matplotlib")
    pmgpu = run("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
    payload = plot_roofline(pmgpu, baseline=run(GIVE), verbose=False)
    assert payload["no_flop_note"]  # the limits were set by the no-FLOP pinning
    frame = payload["comparison"]
    assert set(frame["status"]) == {"only before", "only after"}  # no region in common
    axes = payload["figure"].axes[0]
    assert not [t for t in axes.texts if t.get_gid() == ARROW_GID]
    (x0, x1), (y0, y1) = axes.get_xlim(), axes.get_ylim()
    before = frame.dropna(subset=[Y + "_before"])
    assert len(before) == 2
    assert ((x0 < before[X + "_before"]) & (before[X + "_before"] < x1)).all()
    assert ((y0 < before[Y + "_before"]) & (before[Y + "_before"] < y1)).all()
    assert y1 > GIVE_SOLVE[1] > pmgpu_max_gflops(payload)


def pmgpu_max_gflops(payload):
    return max(p["performance_gflops"] for p in payload["points"])


def test_peak_change_sends_no_line_arrays_and_does_not_compare_again(widget, monkeypatch):
    layer = widget.baseline_layer
    x, y, bx = layer.lines.x, layer.lines.y, layer.baseline_points.x
    import roofline_widget.scene.compare as compare_layer
    monkeypatch.setattr(compare_layer, "compare_points",
                        lambda *a, **k: pytest.fail("compared again on a peak change"))
    widget.peak_flops = 1000.0
    widget.peak_bandwidth = 50.0
    assert layer.lines.x is x
    assert layer.lines.y is y
    assert layer.baseline_points.x is bx
    assert "median speed-up" in widget.controls.status_html.value
