"""Tests of roofline_widget.points: sums over threads, metric detection, selection, left-out list."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import MetricChoiceWarning, RegionsLeftOutWarning, SelectionWarning
from roofline_widget.io.parsed import RegionBlock, ThreadColumn, build_run
from roofline_widget.points import (
    RegionSource,
    RegionSums,
    RunSource,
    collect_roofline_points,
    detect_bandwidth_metric,
    detect_flops_metric,
    left_out_regions,
    points_dataframe,
)
from roofline_widget.points.engines.run import cached_run_frame
from roofline_widget.schema import ALL_RANKS, POINT_KEYS, SOURCE_KEYS
from roofline_widget.settings import SELECTION

MEM_DP_4T = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
FLOPS_DP_4T = "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt"
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
MPIRUN_48 = "mpirun_clx_sonata_48ranks_CACHES_marker.txt"
DP = "DP [MFLOP/s]"
MEM_BW = "Memory bandwidth [MBytes/s]"
READ_BW = "Memory read bandwidth [MBytes/s]"


# ---------------------------------------------------------------------------
# helpers: LikwidRun objects built through the real parser core
# ---------------------------------------------------------------------------
def block(region, metrics, *, group="MEM_DP", threads=None, runtime=None, calls=1.0, line=1,
          devices=None):
    """One RegionBlock; ``metrics`` maps metric name -> per-thread values."""
    values = np.array([np.asarray(v, dtype=float) for v in metrics.values()])
    n = values.shape[1]
    ids = list(range(n)) if threads is None else list(threads)
    devices = devices or ["cpu"] * n
    columns = [ThreadColumn(f"{'GPU' if d == 'gpu' else 'HWThread'} {i}", i, d)
               for i, d in zip(ids, devices)]
    return RegionBlock(region, 1, group, line, threads=columns,
                       runtime=np.full(n, 1.0) if runtime is None else np.asarray(runtime, float),
                       call_count=np.full(n, calls), metric_names=list(metrics), metrics=values)


def make_run(*blocks, source="synthetic.txt", label=None):
    return build_run(list(blocks), source=source, label=label)


def point_of(points, region, rank=0):
    matches = [p for p in points if p["region"] == region and p["rank"] == rank]
    assert len(matches) == 1, (region, rank, points)
    return matches[0]


def stat_sum(run, region, metric, group=None):
    stats = run.stats
    rows = stats[(stats["region"] == region) & (stats["name"] == metric)
                 & (stats["kind"] == "metric")]
    if group is not None:
        rows = rows[rows["group"] == group]
    assert len(rows) == 1
    return float(rows["Sum"].iloc[0])


# ---------------------------------------------------------------------------
# real samples, numbers worked out by hand
# ---------------------------------------------------------------------------
def test_gmgpolar_mem_dp_4_threads_sums_by_hand():
    run = read_likwid(sample_path(MEM_DP_4T))
    points = collect_roofline_points(run)
    setup = point_of(points, "Setup")
    # DP [MFLOP/s] per thread: 517.2402 + 478.9738 + 477.1800 + 476.6683 = 1950.0623 MFLOP/s
    assert setup["performance_gflops"] == pytest.approx(1.9500623, rel=1e-12)
    # ... which is LIKWID's own STAT Sum
    assert setup["performance_gflops"] * 1e3 == pytest.approx(stat_sum(run, "Setup", DP), abs=1e-9)
    # Memory bandwidth only on Core 0 (uncore counters): 541.7965 + 0 + 0 + 0 MB/s
    assert setup["bandwidth_metric"] == MEM_BW
    assert setup["bandwidth_gbs"] == pytest.approx(0.5417965, rel=1e-12)
    # intensity 1.9500623 / 0.5417965 = 3.59924...
    assert setup["arithmetic_intensity_flops_per_byte"] == pytest.approx(1.9500623 / 0.5417965)
    # runtime: max of 0.090805, 0.091738, 0.091736, 0.091758
    assert setup["runtime_seconds"] == pytest.approx(0.091758)
    solve = point_of(points, "Solve")
    # 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674 = 4383.3768 MFLOP/s; 513.2946 MB/s
    assert solve["performance_gflops"] == pytest.approx(4.3833768, rel=1e-12)
    assert solve["performance_gflops"] * 1e3 == pytest.approx(stat_sum(run, "Solve", DP), abs=1e-9)
    assert solve["bandwidth_gbs"] == pytest.approx(0.5132946, rel=1e-12)
    assert solve["runtime_seconds"] == pytest.approx(10.08174)


def test_gmgpolar_frame_columns_and_thread_counts():
    sums = RegionSums.from_runs(read_likwid(sample_path(MEM_DP_4T)))
    assert list(sums.frame.columns[:8]) == ["file", "rank", "region", "device", "n_threads",
                                            "runtime_s", "call_count", "groups"]
    setup = sums.frame[sums.frame["region"] == "Setup"].iloc[0]
    assert setup["n_threads"] == 4
    assert setup["call_count"] == 2
    assert setup["groups"] == "MEM_DP"
    # every metric column is the STAT Sum of that metric (sum over the 4 threads)
    run = sums.runs[0]
    for metric in (DP, MEM_BW, READ_BW, "AVX DP [MFLOP/s]", "Scalar [MUOPS/s]"):
        assert setup[metric] == pytest.approx(stat_sum(run, "Setup", metric), abs=1e-9)
    assert sums.flop_metrics == [DP, "AVX DP [MFLOP/s]", "Packed [MUOPS/s]", "Scalar [MUOPS/s]"]
    assert sums.bandwidth_metrics == [READ_BW, "Memory write bandwidth [MBytes/s]", MEM_BW]
    assert sums.regions == ["Setup", "Solve"]
    assert sums.ranks == [0]


def test_total_bandwidth_not_read_bandwidth_unlike_reference():
    # the reference picks 'Memory read bandwidth' (151.8988 MB/s for Setup) and overstates
    # the intensity by 541.7965 / 151.8988 = 3.57x
    setup = point_of(collect_roofline_points(sample_path(MEM_DP_4T)), "Setup")
    assert setup["bandwidth_metric"] == MEM_BW
    read = point_of(collect_roofline_points(sample_path(MEM_DP_4T), bandwidth_metric=READ_BW),
                    "Setup")
    assert read["bandwidth_gbs"] == pytest.approx(0.1518988)
    ratio = read["arithmetic_intensity_flops_per_byte"] / setup["arithmetic_intensity_flops_per_byte"]
    assert ratio == pytest.approx(541.7965 / 151.8988)


def test_pmgpu_joins_mem_dp_and_flops_dp_without_double_counting():
    run = read_likwid(sample_path(PMGPU))
    points = collect_roofline_points(run)
    assert [p["region"] for p in points] == ["<init_datastructures>", "<function_d>",
                                             "<function_b>", "<function_a>", "<function_c>"]
    d = point_of(points, "<function_d>")
    # DP [MFLOP/s] is printed by MEM_DP (1616.3005) and FLOPS_DP (1323.2573): the first group
    # (MEM_DP, in file order) is used, never the sum 2939.5578
    assert d["performance_gflops"] == pytest.approx(1.6163005, rel=1e-12)
    assert d["performance_gflops"] * 1e3 == pytest.approx(
        stat_sum(run, "<function_d>", DP, group="MEM_DP") if len(run.stats) else 1616.3005)
    assert d["bandwidth_gbs"] == pytest.approx(28.5809575, rel=1e-12)
    a = point_of(points, "<function_a>")
    assert a["performance_gflops"] == pytest.approx(2.1341472)  # not 2134.1472 + 2125.7600
    assert a["bandwidth_gbs"] == pytest.approx(8.5541612)
    frame = points_dataframe(run)
    assert set(frame["groups"]) == {"MEM_DP+FLOPS_DP"}
    assert set(frame["n_threads"]) == {1}


def test_flops_only_sample_is_left_out_with_a_warning():
    with pytest.warns(RegionsLeftOutWarning, match=r"^2 region/rank row\(s\) left out"):
        points = collect_roofline_points(sample_path(FLOPS_DP_4T))
    assert points == []
    left = left_out_regions(sample_path(FLOPS_DP_4T))
    assert list(left.columns[:4]) == ["file", "region", "rank", "reason"]
    assert list(left["region"]) == ["Setup", "Solve"]
    assert set(left["reason"]) == {"no bandwidth metric in the data"}


def test_flops_dp_spread_sum_matches_stat_sum_with_explicit_flops():
    # no bandwidth, but the FLOP sums are still right: 534.9908 + 501.0739 + 500.6641 + 500.5403
    run = read_likwid(sample_path(FLOPS_DP_4T))
    frame = RegionSums.from_runs(run).frame.set_index("region")
    assert frame.loc["Setup", DP] == pytest.approx(2037.2691, abs=1e-9)
    assert frame.loc["Setup", DP] == pytest.approx(stat_sum(run, "Setup", DP), abs=1e-9)
    assert frame.loc["Solve", "runtime_s"] == pytest.approx(136.148)


def test_mpirun_ranks_and_rank_selection_with_numpy_ints():
    run = read_likwid(sample_path(MPIRUN_48))
    sums = RegionSums.from_runs(run)
    assert sums.ranks == list(range(48))
    selection = sums.select(flops_metric="L2 to/from L3 bandwidth [MBytes/s]")
    # a byte rate is no FLOP rate: every row is left out, with that reason
    assert selection.points.empty
    assert selection.left_out["reason"].str.contains("is not a FLOP rate").all()
    one = sums.select(ranks=np.int64(1), group_ranks="rank")
    assert set(one.left_out["rank"]) == {1}
    several = sums.select(ranks=np.array([3, 5]), group_ranks="rank")
    assert sorted(several.left_out["rank"]) == [3, 5]


# ---------------------------------------------------------------------------
# metric detection
# ---------------------------------------------------------------------------
def test_detect_flops_prefers_dp_total():
    names = ["AVX512 DP [MFLOP/s]", "Packed [MUOPS/s]", "AVX DP [MFLOP/s]", DP]
    assert detect_flops_metric(names) == (DP, [])
    assert detect_flops_metric(["Packed DP [MFLOP/s]", "Packed SP [MFLOP/s]"])[0] == "Packed DP [MFLOP/s]"
    assert detect_flops_metric(["SP [MFLOP/s]", "AVX SP [MFLOP/s]"]) == ("SP [MFLOP/s]", [])
    assert detect_flops_metric(["DP MFLOP/s", "AVX DP MFLOP/s", "Packed MUOPS/s"])[0] == "DP MFLOP/s"
    assert detect_flops_metric(["AVX [MFLOP/s]", "MFLOP/s"])[0] == "MFLOP/s"
    assert detect_flops_metric(["CPI", "Memory bandwidth [MBytes/s]"]) == (None, [])


def test_detect_flops_dp_and_sp_warns():
    name, notes = detect_flops_metric(["SP [MFLOP/s]", DP])
    assert name == DP
    assert "single-precision" in notes[0]
    a = block("r", {"SP [MFLOP/s]": [1.0], DP: [2.0], MEM_BW: [4.0]})
    with pytest.warns(MetricChoiceWarning, match="exact name"):
        points = collect_roofline_points(make_run(a))
    assert points[0]["flops_metric"] == DP
    assert points[0]["performance_gflops"] == pytest.approx(0.002)


def test_detect_flops_never_uops_when_flop_rate_exists():
    assert detect_flops_metric(["Packed [MUOPS/s]", "Scalar [MUOPS/s]", "HP [MFLOP/s]"])[0] == \
        "HP [MFLOP/s]"
    name, notes = detect_flops_metric(["Packed [MUOPS/s]", "Scalar [MUOPS/s]"])
    assert name == "Packed [MUOPS/s]"
    assert "uops are not FLOPs" in notes[0]


@pytest.mark.parametrize(("names", "expected"), [
    ([READ_BW, "Memory write bandwidth [MBytes/s]", MEM_BW], MEM_BW),
    (["L3 bandwidth [MBytes/s]", READ_BW, MEM_BW, "L2 bandwidth [MBytes/s]"], MEM_BW),
    (["HBM read bandwidth [MBytes/s] ", "HBM bandwidth [MBytes/s]", "L3 bandwidth [MBytes/s]"],
     "HBM bandwidth [MBytes/s]"),
    (["L3 load bandwidth [MBytes/s]", "L3 evict bandwidth [MBytes/s]", "L3 bandwidth [MBytes/s]"],
     "L3 bandwidth [MBytes/s]"),
    (["L2D load bandwidth [MBytes/s]", "L2 bandwidth [MBytes/s]"], "L2 bandwidth [MBytes/s]"),
    (["L2 to L1 load bandwidth [MBytes/s]", "L1 to/from L2 bandwidth [MBytes/s]",
      "L2 to/from L3 bandwidth [MBytes/s]", "System to L3 bandwidth [MBytes/s]",
      "L3 to/from system bandwidth [MBytes/s]", READ_BW, MEM_BW], MEM_BW),
    (["L2 to L1 load bandwidth [MBytes/s]", "L1 to/from L2 bandwidth [MBytes/s]",
      "L2 to/from L3 bandwidth [MBytes/s]"], "L2 to/from L3 bandwidth [MBytes/s]"),
    (["L1D<-L2 load bandwidth [MBytes/s]", "L1<->L2 bandwidth [MBytes/s]"],
     "L1<->L2 bandwidth [MBytes/s]"),
    (["Memory write bandwidth MBytes/s", "Memory bandwidth MBytes/s"], "Memory bandwidth MBytes/s"),
    ([READ_BW, "Memory write bandwidth [MBytes/s]"], READ_BW),
])
def test_detect_bandwidth_picks_the_total(names, expected):
    assert detect_bandwidth_metric(names)[0] == expected
    assert detect_bandwidth_metric(list(reversed(names)))[0] == expected


def test_detect_bandwidth_fallback_is_said():
    name, notes = detect_bandwidth_metric(["L3 load bandwidth [MBytes/s]", "L3 bandwidth [MBytes/s]"])
    assert name == "L3 bandwidth [MBytes/s]"
    assert "no total memory bandwidth" in notes[0]
    assert detect_bandwidth_metric([MEM_BW])[1] == []
    assert detect_bandwidth_metric(["Memory data volume [GBytes]"]) == (None, [])


def test_one_metric_choice_for_the_whole_call():
    # region a has only AVX DP and the read bandwidth, region b the totals: the totals are
    # chosen once, and region a is left out rather than plotted with other metrics
    a = block("a", {"AVX DP [MFLOP/s]": [5.0], READ_BW: [10.0]})
    b = block("b", {DP: [8.0], MEM_BW: [20.0]}, line=20)
    selection = RegionSums.from_runs(make_run(a, b)).select()
    assert selection.flops_metric == DP
    assert selection.bandwidth_metric == MEM_BW
    assert list(selection.points["region"]) == ["b"]
    assert list(selection.left_out["region"]) == ["a"]
    assert selection.left_out["reason"].iloc[0] == (
        f"{DP!r} not measured in this region; {MEM_BW!r} not measured in this region")


# ---------------------------------------------------------------------------
# units: every SI and IEC prefix
# ---------------------------------------------------------------------------
def test_tera_peta_flops_and_tib_bandwidth_scaled_correctly():
    a = block("tflops", {"DP [TFLOP/s]": [1.5, 0.5], "Memory bandwidth [TiB/s]": [1.0, 0.0]})
    b = block("pflops", {"DP [PFLOP/s]": [0.002], "HBM bandwidth [GiB/s]": [2.0]}, line=20)
    run = make_run(a, b)
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):  # the other region
        tflops = point_of(collect_roofline_points(run), "tflops")
    # (1.5 + 0.5) TFLOP/s = 2000 GFLOP/s (the reference reads 2e-9); 1 TiB/s = 2**40 / 1e9 GB/s
    assert tflops["performance_gflops"] == pytest.approx(2000.0, rel=1e-15)
    assert tflops["bandwidth_gbs"] == pytest.approx(1099.511627776, rel=1e-15)
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):
        pflops = point_of(collect_roofline_points(
            run, flops_metric="DP [PFLOP/s]", bandwidth_metric="HBM bandwidth [GiB/s]"), "pflops")
    # 0.002 PFLOP/s = 2000 GFLOP/s; 2 GiB/s = 2 * 2**30 / 1e9 = 2.147483648 GB/s
    assert pflops["performance_gflops"] == pytest.approx(2000.0, rel=1e-15)
    assert pflops["bandwidth_gbs"] == pytest.approx(2.147483648, rel=1e-15)


_PREFIXES = {"": 1e-9, "k": 1e-6, "M": 1e-3, "G": 1.0, "T": 1e3, "P": 1e6}
_IEC = {"Ki": 2**10 / 1e9, "Mi": 2**20 / 1e9, "Gi": 2**30 / 1e9, "Ti": 2**40 / 1e9,
        "Pi": 2**50 / 1e9}


@settings(max_examples=40, deadline=None)
@given(flop_prefix=st.sampled_from(sorted(_PREFIXES)),
       byte_prefix=st.sampled_from(sorted(_PREFIXES) + sorted(_IEC)),
       flops=st.floats(1e-3, 1e6), bandwidth=st.floats(1e-3, 1e6))
def test_unit_prefixes_convert_exactly(flop_prefix, byte_prefix, flops, bandwidth):
    flop_name, byte_name = f"DP [{flop_prefix}FLOP/s]", f"Memory bandwidth [{byte_prefix}Bytes/s]"
    run = make_run(block("r", {flop_name: [flops], byte_name: [bandwidth]}))
    (point,) = collect_roofline_points(run)
    factor = {**_PREFIXES, **_IEC}[byte_prefix]
    assert point["performance_gflops"] == pytest.approx(flops * _PREFIXES[flop_prefix], rel=1e-14)
    assert point["bandwidth_gbs"] == pytest.approx(bandwidth * factor, rel=1e-14)


# ---------------------------------------------------------------------------
# aggregation properties
# ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1e5), st.floats(0.0, 1e5)), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_sums_are_invariant_under_thread_order(values, random):
    flops = [v[0] for v in values]
    bandwidth = [v[1] for v in values]
    order = list(range(len(values)))
    random.shuffle(order)
    original = make_run(block("r", {DP: flops, MEM_BW: bandwidth}))
    shuffled = make_run(block("r", {DP: [flops[i] for i in order],
                                    MEM_BW: [bandwidth[i] for i in order]},
                              threads=[order[i] for i in range(len(order))]))
    first = RegionSums.from_runs(original).frame
    second = RegionSums.from_runs(shuffled).frame
    for metric in (DP, MEM_BW):
        assert second[metric].iloc[0] == pytest.approx(first[metric].iloc[0], rel=1e-12, abs=1e-12)
        assert first[metric].iloc[0] == pytest.approx(sum(v for v in (flops if metric == DP
                                                                      else bandwidth)), rel=1e-12)


def test_all_dash_metric_stays_nan_and_is_reported():
    # min_count=1: a metric printed as '-' on every thread is NaN, not a 0 sum
    a = block("dash", {DP: [np.nan, np.nan], MEM_BW: [3.0, np.nan]})
    sums = RegionSums.from_runs(make_run(a))
    assert np.isnan(sums.frame[DP].iloc[0])
    assert sums.frame[MEM_BW].iloc[0] == 3.0
    # both true: DP absent from the region, and one thread without bandwidth (#9 item 2)
    assert sums.select().left_out["reason"].iloc[0] == (
        f"{DP!r} not measured in this region; thread HWThread 1 not measured ({MEM_BW})")


def test_runtime_is_max_over_threads_and_first_group():
    a = block("r", {DP: [1.0, 2.0], MEM_BW: [3.0, 0.0]}, runtime=[0.5, 0.75], calls=3)
    b = block("r", {DP: [10.0, 20.0], "AVX DP [MFLOP/s]": [1.0, 1.0]}, group="FLOPS_DP",
              runtime=[0.9, 0.8], line=40)
    row = RegionSums.from_runs(make_run(a, b)).frame.iloc[0]
    assert row["runtime_s"] == 0.75
    assert row["call_count"] == 3
    assert row[DP] == 3.0
    assert row["AVX DP [MFLOP/s]"] == 2.0
    assert row["groups"] == "MEM_DP+FLOPS_DP"


# ---------------------------------------------------------------------------
# left-out regions: never silent, never aborting
# ---------------------------------------------------------------------------
def test_bad_regions_are_listed_with_reasons_and_the_rest_is_plotted():
    good = block("good", {DP: [1000.0], MEM_BW: [500.0]})
    zero = block("zero", {DP: [0.0, 0.0], MEM_BW: [500.0, 0.0]}, line=10)
    nan = block("nan", {DP: [np.nan], MEM_BW: [500.0]}, line=20)
    inf = block("inf", {DP: [np.inf], MEM_BW: [np.inf]}, line=30)
    negative = block("negative", {DP: [-5.0], MEM_BW: [1.0]}, line=40)
    other = block("other", {"CPI": [1.0]}, group="CLOCK", line=50)
    run = make_run(good, zero, nan, inf, negative, other)
    with pytest.warns(RegionsLeftOutWarning) as record:
        points = collect_roofline_points(run)
    assert len([w for w in record if w.category is RegionsLeftOutWarning]) == 1
    assert "5 region/rank row(s) left out" in str(record[0].message)
    assert [p["region"] for p in points] == ["good"]
    reasons = left_out_regions(run).set_index("region")["reason"]
    assert reasons["zero"] == f"{DP!r} is zero on every thread"
    assert reasons["nan"] == f"{DP!r} not measured in this region"
    # an infinite value is not measured (#9 item 2), on every thread here
    assert reasons["inf"] == (f"{DP!r} not measured in this region; "
                              f"{MEM_BW!r} not measured in this region")
    assert reasons["negative"] == f"{DP!r} is negative"
    assert reasons["other"].startswith(f"{DP!r} not measured")


def test_unknown_unit_and_unknown_metric_are_reasons():
    run = make_run(block("r", {DP: [1.0], MEM_BW: [2.0], "CPI": [0.5]}))
    with pytest.warns(RegionsLeftOutWarning):
        assert collect_roofline_points(run, flops_metric="CPI") == []
    assert left_out_regions(run, flops_metric="CPI")["reason"].iloc[0] == \
        "unit of 'CPI' (none) is not a FLOP rate"
    assert left_out_regions(run, bandwidth_metric="Nope [MB/s]")["reason"].iloc[0] == \
        "no metric 'Nope [MB/s]' in the data"


def test_gpu_region_under_cpu_metrics_is_a_reason():
    cpu = block("host", {DP: [100.0], MEM_BW: [50.0]})
    gpu = block("kernel", {"GPU DP [MFLOP/s]": [900.0]}, group="FLOPS_DP_GPU", line=30,
                devices=["gpu"])
    left = left_out_regions(make_run(cpu, gpu), flops_metric=DP)
    assert list(left["region"]) == ["kernel"]
    assert list(left["device"]) == ["gpu"]
    assert left["reason"].iloc[0].startswith(f"GPU region: {DP!r} is measured on CPUs only")


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------
def test_the_ranks_rule():
    ranks = SELECTION["ranks"]
    assert ranks.check(None) is None
    assert ranks.check(np.int64(1)) == [1]
    assert ranks.check(np.array([2, 0, 2], dtype=np.int32)) == [0, 2]
    assert ranks.check(range(3)) == [0, 1, 2]
    assert ranks.check("1") == "1"  # a ranks text, read against the data (settings/rank_text.py)
    assert ranks.check("f0702 socket 1") == "f0702 socket 1"  # a socket's name: its shape is fine
    for bad in ("all", "#1", "3-1", 1.5, [1, "a"], True, [-1], object(), b"1"):
        with pytest.raises(ValueError, match="rank"):
            ranks.check(bad)


def _two_rank_run():
    blocks = [block(region, {DP: [1000.0 * (rank + 1)], MEM_BW: [100.0]}, line=10 * i)
              for i, (region, rank) in enumerate([("Setup", 0), ("Solve", 0)])]
    other = [block(region, {DP: [3000.0], MEM_BW: [100.0]}, line=100 + i)
             for i, region in enumerate(["Setup", "Solve", "Solver_extra"])]
    return build_run(blocks, source="r0.txt", label="job"), build_run(other, source="r1.txt",
                                                                       label="job", rank=1)


def test_ranks_and_patterns_select_rows():
    r0, r1 = _two_rank_run()
    sums = RegionSums.from_runs([r0, r1])
    assert sums.files == ["job", "job (2)"]
    assert sums.ranks == [0, 1]
    assert len(sums.select().points) == 5
    assert set(sums.select(ranks=np.int64(1)).points["rank"]) == {1}
    assert list(sums.select(ranks=[0]).points["region"]) == ["Setup", "Solve"]
    # re.match: anchored at the start, not a search
    assert set(sums.select(include="Sol").points["region"]) == {"Solve", "Solver_extra"}
    assert sums.select(include="olve").points.empty
    assert set(sums.select(include=["Setup", "Solve$"]).points["region"]) == {"Setup", "Solve"}
    assert set(sums.select(exclude="Solver").points["region"]) == {"Setup", "Solve"}
    assert sums.select(include=[]).points.empty


def test_selection_notes_are_selection_warnings_not_metric_choices():
    """an absent rank and ``include=[]`` say so, as SelectionWarning."""
    r0, r1 = _two_rank_run()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert collect_roofline_points([r0, r1], ranks=7) == []
    assert [w.category for w in caught] == [SelectionWarning]
    assert "ranks [7] are not in the data (ranks: [0, 1])" in str(caught[0].message)
    assert not issubclass(SelectionWarning, MetricChoiceWarning)
    with pytest.warns(SelectionWarning, match=r"include=\[\] selects no region \(include=None "
                                               r"selects every region\)"):
        assert collect_roofline_points([r0, r1], include=[]) == []
    assert len(collect_roofline_points([r0, r1], include=None)) == 5


@pytest.mark.parametrize("bad", ["(", ["ok", "[unclosed"], [3]])
def test_invalid_patterns_raise_value_error(bad):
    run = make_run(block("r", {DP: [1.0], MEM_BW: [1.0]}))
    with pytest.raises(ValueError, match="include"):
        collect_roofline_points(run, include=bad)
    with pytest.raises(ValueError, match="exclude"):
        collect_roofline_points(run, exclude=bad)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="flop_metric"):
        points_dataframe(make_run(block("r", {DP: [1.0], MEM_BW: [1.0]})), flop_metric=DP)


# ---------------------------------------------------------------------------
# output shape
# ---------------------------------------------------------------------------
def test_point_dicts_have_exact_keys_and_plain_types():
    points = collect_roofline_points(sample_path(PMGPU))
    for point in points:
        assert tuple(point) == POINT_KEYS
        assert type(point["rank"]) is int
        assert type(point["file"]) is str
        assert type(point["region"]) is str
        for key in ("performance_gflops", "bandwidth_gbs", "arithmetic_intensity_flops_per_byte",
                    "runtime_seconds"):
            assert type(point[key]) is float
    assert points[0]["file"] == "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t"


def test_points_frame_column_order():
    frame = points_dataframe(sample_path(MEM_DP_4T))
    assert list(frame.columns) == [*POINT_KEYS, "device", "device_family", "device_name",
                                   "n_threads", "call_count", "groups",
                                   "unmeasured_threads", "run", "rank_group",
                                   "thread_max_gflops", "thread_max_gbs", "thread_limit_gflops"]
    assert list(frame["run"]) == [1, 1]  # a file of one run
    assert list(frame["n_threads"]) == [4, 4]
    assert list(frame["call_count"]) == [2.0, 1.0]


def test_missing_runtime_is_none_in_dicts():
    a = block("r", {DP: [1.0], MEM_BW: [1.0]}, runtime=[np.nan])
    assert collect_roofline_points(make_run(a))[0]["runtime_seconds"] is None


# ---------------------------------------------------------------------------
# speed: the widget re-selects on every trait change
# ---------------------------------------------------------------------------
def _big_run(n_ranks=200, n_regions=40, n_threads=4):
    rng = np.random.default_rng(0)
    names = [DP, "AVX DP [MFLOP/s]", "SP [MFLOP/s]", READ_BW, MEM_BW, "CPI"]
    blocks = []
    for rank in range(n_ranks):
        for r in range(n_regions):
            values = rng.uniform(0, 1000, size=(len(names), n_threads))
            columns = [ThreadColumn(f"h:{rank}:{t}", t, "cpu", rank, "h") for t in range(n_threads)]
            blocks.append(RegionBlock(f"region_{r}", 1, "MEM_DP", r, threads=columns,
                                      runtime=np.ones(n_threads), call_count=np.ones(n_threads),
                                      metric_names=names, metrics=values))
    return build_run(blocks, source="big.txt")


def test_selection_on_32000_region_rows():
    sums = RegionSums.from_runs(_big_run(n_ranks=800))  # 800 ranks x 40 regions = 32,000 rows
    assert len(sums.frame) == 32_000
    for metric in (DP, "AVX DP [MFLOP/s]", DP):
        selection = sums.select(flops_metric=metric, bandwidth_metric=MEM_BW,
                                ranks=range(0, 800, 2), include="region_[12]")
    # region_1, region_10..19, region_2, region_20..29: 22 regions x 400 even ranks
    assert len(selection.points) == 400 * 22
    assert set(selection.points["rank"]) == set(range(0, 800, 2))


def test_per_run_sums_are_cached():
    run = make_run(block("r", {DP: [1.0], MEM_BW: [1.0]}))
    first = RegionSums.from_runs(run)
    again = RegionSums.from_runs([run])
    pd.testing.assert_frame_equal(first.frame, again.frame)
    assert cached_run_frame(run) is cached_run_frame(run)
    assert RegionSums.from_runs(first) is first


def test_select_itself_does_not_warn():
    run = make_run(block("r", {DP: [0.0], MEM_BW: [1.0]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        selection = RegionSums.from_runs(run).select()
    assert len(selection.left_out) == 1


# ---------------------------------------------------------------------------
# agreement with scope-profiler 0.7.5's own collect_roofline_points
# ---------------------------------------------------------------------------
EXPLICIT = {"flops_metric": DP, "bandwidth_metric": MEM_BW}


def _assert_same_points(ours, reference):
    assert len(ours) == len(reference) > 0
    for mine, theirs in zip(ours, reference):
        assert tuple(mine) == tuple(theirs) == POINT_KEYS
        for key in POINT_KEYS:
            if isinstance(theirs[key], float):
                assert mine[key] == pytest.approx(theirs[key], rel=1e-12), key
            else:
                assert mine[key] == theirs[key], key


@pytest.mark.parametrize("keywords", [
    {}, {"ranks": 1}, {"ranks": [0, 1]}, {"include": "region_00[02]"},
    {"exclude": ["region_001"]}, {"include": ["region"], "exclude": "region_002", "ranks": [1]},
])
def test_agrees_with_scope_profiler_in_memory(keywords):
    reference = pytest.importorskip("scope_profiler.plotting_scripts.roofline")
    from scope_fixtures import make_profiling_results

    results = make_profiling_results(n_ranks=2, n_regions=3, n_threads=4, seed=3)
    _assert_same_points(collect_roofline_points(results, **EXPLICIT, **keywords),
                        reference.collect_roofline_points(results, **EXPLICIT, **keywords))


def test_agrees_with_scope_profiler_on_hdf5_and_several_runs(tmp_path):
    reference = pytest.importorskip("scope_profiler.plotting_scripts.roofline")
    from scope_fixtures import make_profiling_results, write_scope_h5
    from scope_profiler.results import ProfilingResults

    first = write_scope_h5(tmp_path / "first.h5", {"n_ranks": 3, "seed": 5, "label": "first"})
    second = write_scope_h5(tmp_path / "second.h5", {"n_ranks": 1, "n_threads": 1, "seed": 6,
                                                     "label": "second"})
    ours = collect_roofline_points([str(first), str(second)], **EXPLICIT)
    theirs = reference.collect_roofline_points(
        [ProfilingResults.from_h5(first), ProfilingResults.from_h5(second)], **EXPLICIT)
    _assert_same_points(ours, theirs)
    assert {p["file"] for p in ours} == {"first", "second"}
    in_memory = make_profiling_results(n_ranks=1, seed=7)
    _assert_same_points(collect_roofline_points(in_memory, **EXPLICIT, ranks=[0]),
                        reference.collect_roofline_points(in_memory, **EXPLICIT, ranks=[0]))


def test_fixes_of_the_reference_weaknesses():
    reference = pytest.importorskip("scope_profiler.plotting_scripts.roofline")
    from scope_fixtures import make_profiling_results

    results = make_profiling_results(n_ranks=2, n_regions=2, n_threads=2, seed=8)
    # auto-detection: the reference takes the read bandwidth, we take the total
    theirs = reference.collect_roofline_points(results)
    ours = collect_roofline_points(results)
    assert {p["bandwidth_metric"] for p in theirs} == {READ_BW}
    assert {p["bandwidth_metric"] for p in ours} == {MEM_BW}
    # numpy integer ranks: TypeError in the reference, accepted here
    with pytest.raises(TypeError):
        reference.collect_roofline_points(results, ranks=np.int64(1), **EXPLICIT)
    assert {p["rank"] for p in collect_roofline_points(results, ranks=np.int64(1), **EXPLICIT)} == {1}
    # TFLOP/s: the reference scales it as FLOP/s (1e-9); we by 1e3
    results = make_profiling_results(n_ranks=2, n_regions=2, n_threads=2, seed=8)
    for regions in results.get_likwid_regions().values():
        for result in regions.values():
            result.metric_names[result.metric_names.index(DP)] = "DP [TFLOP/s]"
    tera = {"flops_metric": "DP [TFLOP/s]", "bandwidth_metric": MEM_BW}
    mine = collect_roofline_points(results, **tera)
    wrong = reference.collect_roofline_points(results, **tera)
    assert len(mine) == len(wrong) == 4
    for good, bad in zip(mine, wrong):
        assert good["performance_gflops"] == pytest.approx(bad["performance_gflops"] * 1e12)


# ------------------------------------------------------------------ channel-split bandwidth
MEM_CH0 = "Memory bandwidth (channels 0-3) [MBytes/s]"
MEM_CH1 = "Memory bandwidth (channels 4-7) [MBytes/s]"
MEM_CH_ALL = "Memory bandwidth (channels 0-7) [MBytes/s]"


def _zen3_run():
    """Zen 3 measures memory in two groups: MEM1 (channels 0-3) and MEM2 (channels 4-7)."""
    return make_run(
        block("solve", {DP: [100.0, 300.0]}, group="FLOPS_DP", line=1),
        # uncore: only the socket's first hardware thread counts
        block("solve", {MEM_CH0: [1500.0, 0.0]}, group="MEM1", line=40),
        block("solve", {MEM_CH1: [500.0, 0.0]}, group="MEM2", line=80),
        block("setup", {DP: [10.0, 10.0]}, group="FLOPS_DP", line=120),
        block("setup", {MEM_CH0: [50.0, 0.0]}, group="MEM1", line=160),  # MEM2 not measured
    )


def test_channel_split_bandwidths_are_summed_into_a_total():
    sums = RegionSums.from_runs(_zen3_run())
    assert sums.bandwidth_metrics == [MEM_CH_ALL, MEM_CH0, MEM_CH1]
    assert sums.detect_bandwidth_metric() == MEM_CH_ALL
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):
        points = collect_roofline_points(_zen3_run())
    solve = point_of(points, "solve")
    # (100 + 300) MFLOP/s over (1500 + 0) + (500 + 0) MB/s: 0.4 GFLOP/s / 2.0 GB/s
    assert solve["bandwidth_metric"] == MEM_CH_ALL
    assert solve["bandwidth_gbs"] == pytest.approx(2.0)
    assert solve["arithmetic_intensity_flops_per_byte"] == pytest.approx(0.2)
    # setup has channels 0-3 only: half a socket is no total, so it is listed, not drawn
    left = left_out_regions(_zen3_run())
    assert left["region"].tolist() == ["setup"]
    assert MEM_CH_ALL in left["reason"].iloc[0]


def test_one_channel_group_alone_is_used_with_a_note():
    run = make_run(block("solve", {DP: [100.0], MEM_CH0: [1500.0]}, group="MEM1"))
    assert detect_bandwidth_metric(RegionSums.from_runs(run).bandwidth_metrics) == (
        MEM_CH0, [f"{MEM_CH0!r} covers only some memory channels; measure the group(s) of the "
                  "other channels too (Zen 3: MEM1 and MEM2) for the total bandwidth"])


# ------------------------------------------------------------------ combine_ranks
def test_mpirun_combined_bandwidth_is_the_stat_sum():
    # likwid-mpirun measures uncore counters on one rank per socket: Memory bandwidth is
    # 27.2278 MB/s on rank 0 (socket 0), 27.2282 MB/s on rank 24 (socket 1), 0 on the other 46.
    run = read_likwid(sample_path(MPIRUN_48))
    sums = RegionSums.from_runs(run)
    per_rank = sums.select(group_ranks="rank").frame
    assert sorted(per_rank.loc[per_rank[MEM_BW] > 0, "rank"]) == [0, 24]
    selection = sums.select(combine_ranks=True)
    frame = selection.frame
    assert len(frame) == 1
    assert frame["rank"].iloc[0] == -1
    assert frame["n_threads"].iloc[0] == 48
    # 27.2278 + 27.2282 = 54.4560 MB/s, the Metric STAT Sum column
    assert frame[MEM_BW].iloc[0] == pytest.approx(54.4560, abs=1e-9)
    assert frame[MEM_BW].iloc[0] == pytest.approx(stat_sum(run, "wr-only", MEM_BW), abs=1e-9)
    # every rank measures the core-local L2 traffic: its total is its STAT Sum too
    for metric in ("L2 to L1 load bandwidth [MBytes/s]", "L2 to/from L3 bandwidth [MBytes/s]",
                   READ_BW):
        assert frame[metric].iloc[0] == pytest.approx(stat_sum(run, "wr-only", metric), abs=1e-9)
    # runtime: the max over ranks, 28.0576 s (the STAT Max of Runtime (RDTSC) [s])
    assert frame["runtime_s"].iloc[0] == pytest.approx(28.0576)
    # CACHES has no FLOP rate: the one combined row is left out, with rank -1
    assert selection.points.empty
    left = selection.left_out
    assert left[["region", "rank"]].values.tolist() == [["wr-only", -1]]
    assert left["reason"].iloc[0] == "no FLOP-rate metric in the data"
    # the socket-1 ranks alone: only rank 24 measured memory, 27.2282 MB/s
    socket1 = sums.select(combine_ranks=True, ranks=range(24, 48)).frame
    assert socket1[MEM_BW].iloc[0] == pytest.approx(27.2282, abs=1e-9)


def _four_rank_run():
    """A likwid-mpirun-like run: 4 ranks x 2 threads, FLOPs on every thread, memory
    bandwidth only on the first thread of ranks 0 and 2 (one measuring rank per socket)."""
    columns = [ThreadColumn(f"node:{rank}:{2 * rank + t}", 2 * rank + t, "cpu", rank, "node")
               for rank in range(4) for t in range(2)]

    def region(name, line, flops, bandwidth, runtime):
        return RegionBlock(name, 1, "MEM_DP", line, threads=columns,
                           runtime=np.asarray(runtime, float), call_count=np.array([2.0] * 8),
                           metric_names=[DP, MEM_BW],
                           metrics=np.array([flops, bandwidth], dtype=float))

    nan = np.nan
    return build_run([
        region("solve", 1, [100, 200, 300, 400, 500, 600, 700, 800],
               [1000, 0, 0, 0, 2000, 0, 0, 0], [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7]),
        region("setup", 40, [10] * 8, [40, 0, nan, nan, 40, 0, nan, nan], [0.1] * 8),
        region("idle", 80, [0] * 8, [5, 0, 0, 0, 5, 0, 0, 0], [0.2] * 8),
        region("dash", 120, [1] * 8, [nan] * 8, [0.3] * 8),
    ], source="mpirun4.txt", layout="mpirun-text")


def test_combine_ranks_sums_every_rank_by_hand():
    run = _four_rank_run()
    sums = RegionSums.from_runs(run)
    # per rank, ranks 1 and 3 have zero bandwidth for solve and are left out
    per_rank = sums.select(include="solve", group_ranks="rank")
    assert list(per_rank.points["rank"]) == [0, 2]
    assert list(per_rank.left_out["rank"]) == [1, 3]
    selection = sums.select(combine_ranks=True)
    points = selection.points.set_index("region")
    assert list(points.index) == ["solve"]
    assert set(points["rank"]) == {-1}
    solve = points.loc["solve"]
    # FLOPs: 100 + 200 + ... + 800 = 3600 MFLOP/s = 3.6 GFLOP/s (every rank)
    assert solve["performance_gflops"] == pytest.approx(3.6, rel=1e-15)
    # bandwidth: rank 0 1000 + rank 2 2000 = 3000 MB/s = 3.0 GB/s; intensity 3.6 / 3.0 = 1.2
    assert solve["bandwidth_gbs"] == pytest.approx(3.0, rel=1e-15)
    assert solve["arithmetic_intensity_flops_per_byte"] == pytest.approx(1.2, rel=1e-15)
    # runtime the max over ranks (1.7 s), 8 threads, call count the max (2)
    assert solve["runtime_seconds"] == 1.7
    assert solve["n_threads"] == 8
    assert solve["call_count"] == 2.0
    # setup: '-' on every thread of ranks 1 and 3 is no silent skip (#9 item 2): left out...
    left = selection.left_out.set_index("region")
    assert left.loc["setup", "reason"] == (
        f"rank 1 (2 threads), rank 3 (2 threads) not measured ({MEM_BW})")
    # ... or kept on request: 8 x 10 = 80 MFLOP/s over 40 + 40 MB/s, 4 threads not measured
    kept = sums.select(combine_ranks=True, unmeasured="keep").points.set_index("region")
    assert kept.loc["setup", "performance_gflops"] == pytest.approx(0.08)
    assert kept.loc["setup", "bandwidth_gbs"] == pytest.approx(0.08)
    assert kept.loc["setup", "unmeasured_threads"] == 4
    assert kept.loc["solve", "unmeasured_threads"] == 0
    # left out, with rank -1: idle (0 FLOP/s on every rank), dash ('-' everywhere stays NaN)
    assert list(left.index) == ["setup", "idle", "dash"]
    assert set(left["rank"]) == {-1}
    assert left.loc["idle", "reason"] == f"{DP!r} is zero on every thread"
    assert left.loc["dash", "reason"] == f"{MEM_BW!r} not measured in this region"
    frame = selection.frame.set_index("region")
    assert np.isnan(frame.loc["dash", MEM_BW])
    assert frame.loc["dash", DP] == 8.0
    assert [p["rank"] for p in selection.to_dicts()] == [-1]


def test_combine_ranks_filters_ranks_first():
    sums = RegionSums.from_runs(_four_rank_run())
    # ranks 0 and 1: (100 + 200 + 300 + 400) MFLOP/s over rank 0's 1000 MB/s
    solve = point_of(sums.select(ranks=[0, 1], combine_ranks=True, include="solve").to_dicts(),
                     "solve", rank=-1)
    assert solve["performance_gflops"] == pytest.approx(1.0)
    assert solve["bandwidth_gbs"] == pytest.approx(1.0)
    # ranks 1 and 3 never measured memory: their total bandwidth is 0, so the region is left out
    odd = sums.select(ranks=[1, 3], combine_ranks=True, include="solve")
    assert odd.points.empty
    assert odd.left_out[["rank", "reason"]].values.tolist() == [
        [-1, f"{MEM_BW!r} is zero on every thread"]]
    assert sums.select(ranks=[], combine_ranks=True).frame.empty


def test_combine_ranks_keyword_of_the_public_functions():
    import inspect

    run = _four_rank_run()
    frame = points_dataframe(run, combine_ranks=True, include="solve")
    assert frame[["region", "rank", "n_threads"]].values.tolist() == [["solve", -1, 8]]
    with pytest.warns(RegionsLeftOutWarning):
        assert len(points_dataframe(run, group_ranks="rank")) == 4  # solve and setup on ranks 0, 2
    assert set(left_out_regions(run, combine_ranks=True)["rank"]) == {-1}
    # collect_roofline_points keeps scope-profiler's exact signature
    assert list(inspect.signature(collect_roofline_points).parameters) == [
        "profiling_data", "flops_metric", "bandwidth_metric", "ranks", "include", "exclude"]
    with pytest.raises(ValueError, match="combine_ranks must be True or False"):
        RegionSums.from_runs(run).select(combine_ranks="yes")


def test_combine_ranks_keeps_runs_and_devices_apart():
    r0, r1 = _two_rank_run()
    sums = RegionSums.from_runs([r0, r1])
    # two runs (files "job" and "job (2)"): combining never mixes them
    points = sums.select(combine_ranks=True).points
    assert points[["file", "region", "rank"]].values.tolist() == [
        ["job", "Setup", -1], ["job", "Solve", -1], ["job (2)", "Setup", -1],
        ["job (2)", "Solve", -1], ["job (2)", "Solver_extra", -1]]
    cpu = block("kernel", {DP: [100.0], MEM_BW: [50.0]})
    gpu = block("kernel", {"GPU DP [MFLOP/s]": [900.0]}, group="FLOPS_DP_GPU", line=30,
                devices=["gpu"])
    left = RegionSums.from_runs(make_run(cpu, gpu)).select(flops_metric=DP, combine_ranks=True)
    assert list(left.points["device"]) == ["cpu"]
    assert list(left.left_out["device"]) == ["gpu"]
    assert left.left_out["reason"].iloc[0].startswith("GPU region")


def test_combine_ranks_on_32000_region_rows():
    sums = RegionSums.from_runs(_big_run(n_ranks=800))  # 800 ranks x 40 regions
    keywords = {"flops_metric": DP, "bandwidth_metric": MEM_BW, "ranks": range(0, 800, 2),
                "include": "region_[12]"}
    selection = sums.select(combine_ranks=True, **keywords)
    points = selection.points
    assert len(points) == 22
    assert set(points["rank"]) == {-1}
    assert set(points["n_threads"]) == {400 * 4}
    # cross-check against the per-rank points: the sums over the 400 even ranks
    per_rank = sums.select(**keywords).points
    totals = per_rank.groupby("region", observed=True)[["performance_gflops", "bandwidth_gbs"]].sum()
    np.testing.assert_allclose(points.set_index("region").loc[totals.index, "performance_gflops"],
                               totals["performance_gflops"], rtol=1e-12)
    np.testing.assert_allclose(points.set_index("region").loc[totals.index, "bandwidth_gbs"],
                               totals["bandwidth_gbs"], rtol=1e-12)



# ---------------------------------------------------------------------------
# the sums engines' interface (RegionSource) and RegionSums' public columns
# ---------------------------------------------------------------------------
class _HandMadeSource:
    """A RegionSource written by hand: two regions of rank 3, no LikwidRun behind it."""

    label = "by hand"
    metric_names: ClassVar[list[str]] = [DP, MEM_BW]
    keys: ClassVar[dict] = {
        "rank": np.array([3, 3], dtype=np.int64),
        "region": pd.Categorical(["solve", "setup"], categories=["solve", "setup"]),
        "device": pd.Categorical(["cpu", "cpu"]),
        "n_threads": np.array([4, 2], dtype=np.int64),
        "runtime_s": np.array([1.5, 0.25]),
        "call_count": np.array([10.0, 1.0]),
        "groups": pd.Categorical(["MEM_DP", "MEM_DP"]),
    }
    _sums: ClassVar[dict] = {DP: np.array([8000.0, 0.0]), MEM_BW: np.array([4000.0, 1000.0])}

    def __len__(self):
        return 2

    def sums(self, metric):
        return self._sums[metric]

    @property
    def run(self):
        """A one-thread stand-in (isinstance reads it on Python < 3.12, so it must not raise)."""
        return make_run(block("solve", {DP: [8000.0], MEM_BW: [4000.0]}, runtime=[1.5], calls=10.0),
                        block("setup", {DP: [0.0], MEM_BW: [1000.0]}, runtime=[0.25], line=20),
                        label=self.label)


def test_run_sums_is_a_region_source_with_the_run_sums():
    run = make_run(block("r", {DP: [1.0, 2.0], MEM_BW: [4.0, 0.0]}, runtime=[0.5, 0.75]))
    source = RunSource(run)
    assert isinstance(source, RegionSource)
    assert source.run is run
    assert source.label == run.label
    assert len(source) == 1
    assert source.metric_names == [DP, MEM_BW]
    assert tuple(source.keys) == SOURCE_KEYS
    # one row: DP 1 + 2, bandwidth 4 + 0 (uncore on the first thread only), runtime max
    assert source.sums(DP).tolist() == [3.0]
    assert source.sums(MEM_BW).tolist() == [4.0]
    assert source.keys["runtime_s"].tolist() == [0.75]
    assert source.keys["n_threads"].tolist() == [2]


def test_any_region_source_is_aggregated():
    source = _HandMadeSource()
    assert isinstance(source, RegionSource)
    sums = RegionSums([source], [source.label])
    assert sums.files == ["by hand"]
    assert sums.ranks == [3]
    assert sums.regions == ["solve", "setup"]
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):
        points = collect_roofline_points(sums)
    # solve: 8000 MFLOP/s over 4000 MB/s = 8 GFLOP/s / 4 GB/s; setup has zero FLOPs
    assert [(p["file"], p["region"], p["rank"]) for p in points] == [("by hand", "solve", 3)]
    assert points[0]["performance_gflops"] == 8.0
    assert points[0]["bandwidth_gbs"] == 4.0
    assert points[0]["arithmetic_intensity_flops_per_byte"] == 2.0
    assert points[0]["runtime_seconds"] == 1.5


def test_objects_without_the_interface_are_no_region_source():
    run = make_run(block("r", {DP: [1.0], MEM_BW: [1.0]}))
    assert not isinstance(run, RegionSource)
    assert not isinstance(RegionSums.from_runs(run), RegionSource)  # no keys, label or run


def test_region_sums_public_columns():
    sums = RegionSums.from_runs(_zen3_run())
    assert sums.metric_names == sums.metrics == [MEM_CH_ALL, DP, MEM_CH0, MEM_CH1]
    frame = sums.frame
    for metric in sums.metric_names:
        np.testing.assert_array_equal(sums.sums(metric), frame[metric].to_numpy())
    # the total is the sum of its parts per row; NaN where MEM2 did not measure (setup)
    assert sums.sums(MEM_CH_ALL).tolist()[0] == 2000.0
    assert np.isnan(sums.sums(MEM_CH_ALL)[1])
    assert sums.sums(DP) is sums.sums(DP)  # kept
    assert frame["region"].tolist() == ["solve", "setup"]
    rows = np.array([1])
    assert sums.plain_labels("region", rows) == ["setup"]
    assert list(sums.label_column("region", rows)) == ["setup"]
    assert list(sums.label_column("region", rows).categories) == sums.regions == ["setup", "solve"]
    assert sums.key_numbers("n_threads").tolist() == [2, 2]
    assert sums.key_numbers("rank").dtype == np.int64
    assert sums.gpu_rows.tolist() == [False, False]


def test_combined_ranks_of_the_selected_rows():
    runs = [make_run(block("solve", {DP: [1.0]}), block("setup", {DP: [2.0]}, line=20),
                     source=f"rank{r}.txt") for r in range(2)]
    sums = RegionSums.from_runs(runs)  # rows: run 0 solve, setup; run 1 solve, setup
    groups = sums.combined_ranks(np.array([1, 2, 3]))
    assert groups.n == 3
    assert groups.first_rows.tolist() == [1, 2, 3]
    assert groups.sum(np.array([2.0, np.nan, 5.0])).tolist()[::2] == [2.0, 5.0]
    assert np.isnan(groups.sum(np.array([2.0, np.nan, 5.0]))[1])  # all-NaN stays NaN
    assert groups.column(sums, "rank").tolist() == [ALL_RANKS] * 3
