"""The widget's ranks view: rank medians with min–max whiskers, expanded regions, the budget."""

from __future__ import annotations

import numpy as np
import pytest
from traitlets import TraitError

from roofline_widget import RooflineWidget, View, ViewWarning, rank_spread, sample_path

pytest.importorskip("scope_profiler")
from scope_fixtures import make_profiling_results

MPIRUN = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
DP, BW, RT = "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]", "Runtime (RDTSC) [s]"


def set_rank_values(results, region, dp, bw, runtime):
    """Give each rank of ``region`` (one thread each) these MFLOP/s, MB/s and seconds."""
    for rank, regions in results.get_likwid_regions().items():
        block = regions[region]
        names = block.metric_names
        block.metrics = block.metrics.copy()
        block.metrics[names.index(DP)] = dp[rank]
        block.metrics[names.index(BW)] = bw[rank]
        block.metrics[names.index(RT)] = runtime[rank]
        block.times = np.full_like(block.times, runtime[rank])
    return results


@pytest.fixture
def five_ranks():
    results = make_profiling_results(n_ranks=5, n_regions=2, n_threads=1, seed=4)
    # region_000 by hand: GFLOP/s 1, 2, 3, 4, 10; GB/s 1, 1, 2, 0.5, 4;
    # intensity 1, 2, 1.5, 8, 2.5; runtime 1, 1, 1, 1, 6 s (rank 4 is slow)
    return set_rank_values(results, "region_000", dp=[1000, 2000, 3000, 4000, 10000],
                           bw=[1000, 1000, 2000, 500, 4000], runtime=[1, 1, 1, 1, 6])


def ranks_layer(widget):
    return widget.figure.layers["ranks"]


def test_spread_marks_worked_by_hand(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW)
    layer = ranks_layer(w)
    assert len(w.figure.scatter.x) == 10
    assert not layer.medians.visible
    w.rank_view = "spread"
    assert len(w.figure.scatter.x) == 0  # the rank points are hidden
    assert layer.medians.visible
    assert layer.whiskers.visible
    assert list(layer.spread["region"]) == ["region_000", "region_001"]
    # region_000: medians 3 GFLOP/s (sorted 1 2 3 4 10) and intensity 2 (sorted 1 1.5 2 2.5 8)
    assert layer.medians.x[0] == pytest.approx(2.0)
    assert layer.medians.y[0] == pytest.approx(3.0)
    # whiskers: intensity 1 .. 8 at 3 GFLOP/s, GFLOP/s 1 .. 10 at intensity 2
    np.testing.assert_allclose(layer.whiskers.x[0], [1.0, 8.0])
    np.testing.assert_allclose(layer.whiskers.y[0], [3.0, 3.0])
    np.testing.assert_allclose(layer.whiskers.x[1], [2.0, 2.0])
    np.testing.assert_allclose(layer.whiskers.y[1], [1.0, 10.0])
    # imbalance: max 6 s over mean (1 + 1 + 1 + 1 + 6) / 5 = 2 s -> 3, the colour of both whiskers
    assert layer.medians.color[0] == pytest.approx(3.0)
    np.testing.assert_allclose(layer.whiskers.color[:2], [3.0, 3.0])
    assert layer.color_scale.min == 1.0
    assert layer.color_scale.max == pytest.approx(max(layer.spread["imbalance"]))
    # the axes hold the whiskers
    assert w.figure.x_scale.min <= 1.0
    assert w.figure.y_scale.max >= 10.0
    status = w.controls.status_html.value
    assert "ranks view: 2 region(s)" in status
    assert "min–max over ranks" in status
    assert "linear-gradient" in status
    assert "drawing the" not in status
    # the tooltip of the median point names the slowest rank and the whiskers
    layer.medians._handle_custom_msgs(layer.medians, {"event": "hover", "data": {"index": 0}})
    assert "<td>4</td>" in layer.tooltip.value
    assert "min–max over ranks" in layer.tooltip.value
    assert "<td>3.000</td>" in layer.tooltip.value  # imbalance


def test_48_generated_ranks_match_rank_spread_and_the_region_arrays():
    results = make_profiling_results(n_ranks=48, n_regions=3, n_threads=2, seed=7)
    w = RooflineWidget(results, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)
    spread = rank_spread(results, flops_metric=DP, bandwidth_metric=BW)
    np.testing.assert_allclose(layer.medians.x, spread["arithmetic_intensity_flops_per_byte_median"])
    np.testing.assert_allclose(layer.medians.y, spread["performance_gflops_median"])
    np.testing.assert_allclose(layer.whiskers.y[1::2, 1], spread["performance_gflops_max"])
    # region_001 straight from the arrays: per rank the sum over its 2 threads, / 1000
    regions = results.get_likwid_regions()
    names = regions[0]["region_001"].metric_names
    dp = np.array([regions[r]["region_001"].metrics[names.index(DP)].sum() / 1e3
                   for r in range(48)])
    bw = np.array([regions[r]["region_001"].metrics[names.index(BW)].sum() / 1e3
                   for r in range(48)])
    assert layer.medians.y[1] == pytest.approx(np.median(dp), rel=1e-12)
    assert layer.medians.x[1] == pytest.approx(np.median(dp / bw), rel=1e-12)
    np.testing.assert_allclose(layer.whiskers.x[2], [(dp / bw).min(), (dp / bw).max()])
    np.testing.assert_allclose(layer.whiskers.y[3], [dp.min(), dp.max()])


def test_the_48_rank_likwid_mpirun_sample_has_no_flop_rate_to_draw():
    # CACHES group: no FLOP metric, so neither the rank points nor a median can be placed
    w = RooflineWidget(MPIRUN, rank_view="spread")
    layer = ranks_layer(w)
    assert layer.active
    assert len(layer.spread) == 0
    assert not layer.medians.visible
    assert "1 region(s) without a positive median FLOP rate and intensity not drawn" in \
        w.controls.status_html.value
    assert w.controls.rank_view_choice.value == "spread"
    assert not w.controls.rank_view_choice.disabled  # 48 ranks


def test_include_filter_changes_the_spread(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)
    w.include = "region_001"
    assert list(layer.spread["region"]) == ["region_001"]
    expected = rank_spread(five_ranks, flops_metric=DP, bandwidth_metric=BW,
                           include="region_001").iloc[0]
    assert layer.medians.y.tolist() == [pytest.approx(expected["performance_gflops_median"])]
    w.include = ""
    w.ranks = [0, 1, 2]  # region_000 over ranks 0..2: GFLOP/s 1 2 3, intensity 1 2 1.5
    assert layer.medians.y[0] == pytest.approx(2.0)
    assert layer.medians.x[0] == pytest.approx(1.5)
    np.testing.assert_allclose(layer.whiskers.y[1], [1.0, 3.0])
    w.include = "("  # invalid pattern: nothing drawn
    assert not layer.medians.visible


def test_a_spread_of_nothing_is_an_empty_plot_with_a_note(five_ranks, tmp_path):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)

    def assert_empty(message):
        assert layer.active
        assert len(layer.spread) == 0
        assert not layer.medians.visible
        assert not layer.whiskers.visible
        assert len(w.figure.scatter.x) == 0
        assert w.message == message
        assert "ranks view: 0 region(s)" in w.controls.status_html.value

    w.include = "nomatch"
    assert_empty("No region matches the include/exclude patterns.")
    w.include = ""
    w.ranks = []
    assert_empty("No rank selected.")
    w.ranks = None
    assert layer.medians.visible
    path = View(include="nomatch").save(tmp_path / "nomatch.json")
    with pytest.warns(ViewWarning, match="include pattern 'nomatch' matches no region"):
        w.load_view(path)
    assert_empty("No region matches the include/exclude patterns.")


def test_expanded_regions_draw_their_ranks(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)
    w.expanded_regions = ["region_000"]
    np.testing.assert_allclose(np.sort(w.figure.scatter.y), [1, 2, 3, 4, 10])
    np.testing.assert_allclose(np.sort(w.figure.scatter.x), [1, 1.5, 2, 2.5, 8])
    assert set(w.figure.scene.points.rows["region"]) == {"region_000"}
    # a click on region_001's median point expands it too; a second click folds it
    click = {"event": "element_click", "data": {"index": 1}}
    layer.medians._handle_custom_msgs(layer.medians, click)
    assert w.expanded_regions == ["region_000", "region_001"]
    assert len(w.figure.scatter.x) == 10
    layer.medians._handle_custom_msgs(layer.medians, click)
    assert w.expanded_regions == ["region_000"]
    with pytest.raises(TraitError, match="unknown region"):
        w.expanded_regions = ["nope"]
    assert w.expanded_regions == ["region_000"]
    w.rank_view = "points"  # back to one point per rank, all of them
    assert len(w.figure.scatter.x) == 10
    assert not layer.medians.visible


def test_combined_ranks_stay_points(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread",
                       combine_ranks=True)
    assert not ranks_layer(w).active
    assert len(w.figure.scatter.x) == 2


def test_budget_at_1024_ranks():
    results = make_profiling_results(n_ranks=1024, n_regions=3, n_threads=1, seed=5)
    w = RooflineWidget(results, flops_metric=DP, bandwidth_metric=BW, max_points=1000,
                       rank_view="points")
    layer = ranks_layer(w)
    assert len(w.to_dataframe()) == 3072
    assert len(w.figure.scatter.x) == 1000
    status = w.controls.status_html.value
    assert "1,000 of 3,072 points drawn" in status
    assert "rank_view='spread'" in status
    w.rank_view = "auto"  # over the budget: the spread
    assert layer.active
    assert len(layer.medians.x) == 3
    assert len(w.figure.scatter.x) == 0
    assert "rank_view='auto': 3,072 points exceed max_points=1,000" in \
        w.controls.status_html.value
    w.expanded_regions = ["region_002"]  # 1,024 ranks, but 3 medians are drawn already
    assert len(w.figure.scatter.x) == 997
    assert "expanded: drawing 997 of 1,024 rank points" in w.controls.status_html.value
    w.max_points = 5000  # under the budget: auto is the points view again
    assert not layer.active
    # more than SVG_MAX_POINTS: the WebGL mark draws them, the SVG one is empty
    assert len(w.figure.points.gl.x) == 3072
    assert len(w.figure.scatter.x) == 0
    assert w.figure.points.active is w.figure.points.gl
    assert "points drawn" not in w.controls.status_html.value


def test_the_default_view_spreads_ranks_over_the_default_budget():
    """rank_view="auto" and max_points=50,000 by default (docs/performance.md has the figures)."""
    results = make_profiling_results(n_ranks=1024, n_regions=49, n_threads=1, seed=5)
    w = RooflineWidget(results, flops_metric=DP, bandwidth_metric=BW)
    assert (w.rank_view, w.max_points) == ("auto", 50_000)
    assert ranks_layer(w).active  # 1,024 x 49 = 50,176 points
    assert len(ranks_layer(w).medians.x) == 49
    assert "50,176 points exceed max_points=50,000" in w.controls.status_html.value
    w.include = "region_00"  # 10 regions: 10,240 points, drawn with WebGL
    assert not ranks_layer(w).active
    assert len(w.figure.points.gl.x) == 10_240
    assert len(w.figure.scatter.x) == 0
    assert "WebGL draws the points" in w.controls.status_html.value
    small = RooflineWidget(MPIRUN)  # 48 ranks: every rank point fits the budget
    assert not ranks_layer(small).active
    assert len(small.figure.scatter.x) == len(small.to_dataframe())


def test_region_names_are_escaped_in_the_spread_tooltip(five_ranks):
    for regions in five_ranks.get_likwid_regions().values():
        block = regions.pop("region_001")
        block.tag = "<b>solve</b>"
        regions[block.tag] = block
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)
    assert list(layer.spread["region"]) == ["region_000", "<b>solve</b>"]
    layer.medians._handle_custom_msgs(layer.medians, {"event": "hover", "data": {"index": 1}})
    assert "&lt;b&gt;solve&lt;/b&gt;" in layer.tooltip.value
    assert "<b>solve</b>" not in layer.tooltip.value
    w.expanded_regions = ["<b>solve</b>"]
    assert set(w.figure.scene.points.rows["region"]) == {"<b>solve</b>"}


def test_the_toggle_buttons_set_rank_view(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW)
    w.controls.rank_view_choice.value = "spread"  # what a click in the browser does
    assert w.rank_view == "spread"
    assert ranks_layer(w).active
    w.rank_view = "points"
    assert w.controls.rank_view_choice.value == "points"
    single = RooflineWidget(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
                            rank_view="spread")
    assert single.controls.rank_view_choice.disabled  # one rank: nothing to spread
    assert not ranks_layer(single).active
    assert len(single.figure.scatter.x) == 2


def test_peak_change_sends_no_spread_arrays(five_ranks):
    w = RooflineWidget(five_ranks, flops_metric=DP, bandwidth_metric=BW, rank_view="spread")
    layer = ranks_layer(w)
    arrays = (layer.medians.x, layer.medians.y, layer.whiskers.x, layer.whiskers.y)
    w.peak_flops = 1000.0
    assert all(new is old for new, old in zip(
        (layer.medians.x, layer.medians.y, layer.whiskers.x, layer.whiskers.y), arrays))
    w.include = "region_000"
    assert len(layer.medians.x) == 1  # a selection change still redraws
