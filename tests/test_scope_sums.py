"""The direct scope-profiler path of RegionSums (points.scope_sums.ScopeResultsSource) against the table path.

``RegionSums.from_runs(results)`` reads per-region sums straight from the
region arrays; ``RegionSums.from_runs(from_scope_profiler(results))`` builds
the per-thread table and aggregates it with pandas.  Both must give the same
frame on every shape the direct path treats specially.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("scope_profiler")

from scope_fixtures import make_profiling_results
from scope_profiler.likwid_data import LikwidRegionResult
from scope_profiler.results import ProfilingResults

from roofline_widget.errors import LikwidFormatError, RegionsLeftOutWarning
from roofline_widget.io.scope.objects import from_scope_profiler
from roofline_widget.points import (
    RegionSource,
    RegionSums,
    RunSource,
    ScopeResultsSource,
    collect_roofline_points,
    left_out_regions,
    points_dataframe,
)
from roofline_widget.schema import SOURCE_KEYS

DP, BW = "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"


def _both(results):
    direct = RegionSums.from_runs(results)
    table = RegionSums.from_runs(from_scope_profiler(results, cache=False))
    return direct, table


def _assert_same_frames(direct, table):
    pd.testing.assert_frame_equal(direct.frame, table.frame, check_dtype=False,
                                  check_categorical=False, rtol=1e-13)


def test_fixture_results_give_the_table_path_frame():
    _assert_same_frames(*_both(make_profiling_results(3, 4, 6, seed=2)))


def _region(tag, cpus, metric_names, metrics, times=None, group="MEM_DP"):
    metrics = np.asarray(metrics, dtype=float)
    return LikwidRegionResult(
        tag=tag, group_id=1, group_name=group, cpus=cpus,
        times=np.ones(len(cpus)) if times is None else np.asarray(times),
        call_counts=np.arange(1, len(cpus) + 1), event_names=[], counter_names=[],
        events=np.zeros((0, len(cpus))), metric_names=metric_names, metrics=metrics)


def _mixed() -> ProfilingResults:
    """Different thread counts, two metric-name lists, NaN and all-NaN threads."""
    both = [DP, BW]
    likwid = {
        0: {"a": _region("a", [0, 1], both, [[1.0, 2.0], [10.0, np.nan]], times=[0.5, np.nan]),
            "b": _region("b", [0], [BW, "CPI"], [[7.0], [0.5]], group="MEM")},
        1: {"a": _region("a", [4, 5, 6], both, [[np.nan] * 3, [1.0, 2.0, 4.0]]),
            "c": _region("c", [4], both, [[3.0], [6.0]])},
    }
    return ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="mixed.h5")


def test_mixed_shapes_give_the_table_path_frame():
    direct, table = _both(_mixed())
    _assert_same_frames(direct, table)
    frame = direct.frame.set_index(["rank", "region"])
    # rank 0 'a': DP 1 + 2 = 3, bandwidth 10 (NaN thread ignored), runtime max(0.5, NaN) = 0.5
    assert frame.loc[(0, "a"), DP] == 3.0
    assert frame.loc[(0, "a"), BW] == 10.0
    assert frame.loc[(0, "a"), "runtime_s"] == 0.5
    assert frame.loc[(0, "a"), "call_count"] == 2
    # rank 1 'a': every DP thread NaN -> NaN (not 0); bandwidth 1 + 2 + 4 = 7
    assert np.isnan(frame.loc[(1, "a"), DP])
    assert frame.loc[(1, "a"), BW] == 7.0
    # rank 0 'b' printed no DP at all
    assert np.isnan(frame.loc[(0, "b"), DP])
    assert frame.loc[(0, "b"), "groups"] == "MEM"


def test_points_and_left_out_agree_with_the_table_path():
    results = _mixed()
    with pytest.warns(RegionsLeftOutWarning):
        direct = collect_roofline_points(results, flops_metric=DP, bandwidth_metric=BW)
    with pytest.warns(RegionsLeftOutWarning):
        table = collect_roofline_points(from_scope_profiler(results, cache=False),
                                        flops_metric=DP, bandwidth_metric=BW)
    assert direct == table
    # placed: rank 1 'c' (3 / 6); rank 0 'a' has a thread without bandwidth (#9 item 2)
    assert [(p["rank"], p["region"]) for p in direct] == [(1, "c")]
    assert direct[0]["arithmetic_intensity_flops_per_byte"] == pytest.approx(0.5)
    reasons = {(r.rank, r.region): r.reason for r in left_out_regions(
        results, flops_metric=DP, bandwidth_metric=BW).itertuples()}
    assert reasons[(0, "a")] == f"thread HWThread 1 not measured ({BW})"
    # kept on request: rank 0 'a' (3 MFLOP/s / 10 MB/s, one thread not measured)
    with pytest.warns(RegionsLeftOutWarning):
        kept = points_dataframe(results, flops_metric=DP, bandwidth_metric=BW,
                                unmeasured="keep")
    assert kept[["rank", "region", "unmeasured_threads"]].values.tolist() == [
        [0, "a", 1], [1, "c", 0]]
    assert kept["arithmetic_intensity_flops_per_byte"].tolist() == pytest.approx([0.3, 0.5])


def test_metric_sums_are_computed_once_per_metric():
    sums = ScopeResultsSource(make_profiling_results(2, 2, 2, seed=3))
    assert sums.sums(DP) is sums.sums(DP)


def test_region_with_wrong_number_of_values_is_named():
    results = _mixed()
    results.get_likwid_regions(1)["c"].metrics = np.array([[3.0, 1.0], [6.0, 1.0]])
    with pytest.raises(LikwidFormatError, match="region 'c'"):
        RegionSums.from_runs(results).select(flops_metric=DP, bandwidth_metric=BW)


def test_metrics_array_without_a_row_per_name_is_named():
    results = _mixed()
    results.get_likwid_regions(1)["c"].metrics = np.array([[3.0]])
    with pytest.raises(LikwidFormatError, match="region 'c'"):
        RegionSums.from_runs(results).select(flops_metric=DP, bandwidth_metric=BW)


def _with_arrays(convert_metrics=None, convert_times=None) -> ProfilingResults:
    """The fixture results with every region's arrays passed through the given conversions."""
    results = make_profiling_results(2, 3, 4, seed=5)
    for regions in results.get_likwid_regions().values():
        for region in regions.values():
            if convert_metrics is not None:
                region.metrics = convert_metrics(region.metrics)
            if convert_times is not None:
                region.times = convert_times(region.times)
    return results


@pytest.mark.parametrize(("convert_metrics", "convert_times"), [
    (np.asfortranarray, None),                           # column-major metrics
    (lambda m: m.astype(np.float32), None),              # single-precision metrics
    (None, lambda t: [float(x) for x in t]),             # times as a plain list
    (lambda m: m[:, ::-1][:, ::-1], None),               # non-contiguous views
])
def test_array_layouts_give_the_table_path_frame(convert_metrics, convert_times):
    _assert_same_frames(*_both(_with_arrays(convert_metrics, convert_times)))


def test_ranks_that_list_different_regions():
    both = [DP, BW]
    likwid = {
        0: {"solve": _region("solve", [0], both, [[4.0], [2.0]]),
            "setup": _region("setup", [0], both, [[1.0], [1.0]])},
        1: {"setup": _region("setup", [8], both, [[3.0], [1.5]]),
            "io": _region("io", [8], both, [[0.5], [5.0]])},
    }
    results = ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="tags.h5")
    direct, table = _both(results)
    _assert_same_frames(direct, table)
    points = collect_roofline_points(results, flops_metric=DP, bandwidth_metric=BW)
    # each rank keeps its own regions: 4/2, 1/1 on rank 0 and 3/1.5, 0.5/5 on rank 1
    assert [(p["rank"], p["region"], p["arithmetic_intensity_flops_per_byte"]) for p in points] == [
        (0, "solve", 2.0), (0, "setup", 1.0), (1, "setup", 2.0), (1, "io", 0.1)]


def test_misshaped_call_counts_are_named_when_used():
    results = _mixed()
    results.get_likwid_regions(1)["c"].call_counts = np.array([1, 2, 3])
    # collect_roofline_points does not read call counts, the frame does
    # left out: rank 0 'b', rank 1 'a' (no DP), rank 0 'a' (a thread without bandwidth)
    with pytest.warns(UserWarning, match="3 region/rank row"):
        assert len(collect_roofline_points(results, flops_metric=DP, bandwidth_metric=BW)) == 1
    with pytest.raises(LikwidFormatError, match="region 'c'"):
        _ = RegionSums.from_runs(results).frame  # built on first access


# ---------------------------------------------------------------------------
# both engines implement RegionSource and give the same sums
# ---------------------------------------------------------------------------
def _engines(results):
    return ScopeResultsSource(results), RunSource(from_scope_profiler(results, cache=False))


@pytest.mark.parametrize("make", [lambda: make_profiling_results(3, 4, 6, seed=2), _mixed],
                         ids=["fixture", "mixed"])
def test_both_engines_are_region_sources_with_the_same_sums(make):
    scope, run = _engines(make())
    assert isinstance(scope, RegionSource)
    assert isinstance(run, RegionSource)
    assert len(scope) == len(run) > 0
    assert scope.metric_names == run.metric_names
    assert scope.label == run.label
    for name in SOURCE_KEYS:
        np.testing.assert_array_equal(np.asarray(scope.keys[name]), np.asarray(run.keys[name]),
                                      err_msg=name)
    for metric in scope.metric_names:
        np.testing.assert_allclose(scope.sums(metric), run.sums(metric), rtol=1e-13,
                                   equal_nan=True, err_msg=metric)


def test_scope_engine_sums_by_hand():
    scope = ScopeResultsSource(_mixed())
    # rows: rank 0 'a', rank 0 'b', rank 1 'a', rank 1 'c' (see _mixed)
    assert scope.keys["rank"].tolist() == [0, 0, 1, 1]
    assert list(scope.keys["region"]) == ["a", "b", "a", "c"]
    assert scope.keys["n_threads"].tolist() == [2, 1, 3, 1]
    np.testing.assert_array_equal(scope.sums(DP), [3.0, np.nan, np.nan, 3.0])
    np.testing.assert_array_equal(scope.sums(BW), [10.0, 7.0, 7.0, 6.0])
    np.testing.assert_array_equal(scope.sums("CPI"), [np.nan, 0.5, np.nan, np.nan])
    assert list(scope.keys["groups"]) == ["MEM_DP", "MEM", "MEM_DP", "MEM_DP"]
    assert scope.run.layout == "scope-profiler"  # the per-thread run, built on first use
