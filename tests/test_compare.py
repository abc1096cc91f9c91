"""Tests of roofline_widget.analysis.compare: every number checked by hand from the real samples.

Pair: sample 2 ("give", GMGPolar 769x1024, 4 threads on socket 0) against sample 16
("take", the other implementation, same mesh, threads and pinning).  Chain: sample 17,
the "give" implementation on 1537x2048 with 1, 2 and 8 threads.  Both in MEM_DP: FLOPs
and memory bandwidth in one group.  Per region the point is the SUM over threads of
``DP [MFLOP/s]`` and of ``Memory bandwidth [MBytes/s]`` (non-zero on Core 0 only: the
socket's uncore), runtime the MAX over threads of ``RDTSC Runtime [s]``.  The STAT
``Sum`` rows of the files are the independent check of each sum.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from roofline_widget import compare_points, points_dataframe, read_likwid, sample_names, sample_path
from roofline_widget.analysis.compare import STATUSES
from roofline_widget.errors import SelectionWarning

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
CHAIN = {f"{n}t": f"gmgpolar_skx4s_lw50_MEM_DP_compact{n}t_1537x2048_give.txt" for n in (1, 2, 8)}
FLOPS_DP = "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt"
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
REL = 1e-12


def approx(value):
    return pytest.approx(value, rel=REL)


# ---------------------------------------------------------------------------
# hand-computed points (MFLOP/s and MB/s as printed; / 1000 for giga)
# ---------------------------------------------------------------------------
# sample 2, give, Setup: DP [MFLOP/s] per core 0..3, STAT Sum 1950.0623
GIVE_SETUP_DP = 517.2402 + 478.9738 + 477.1800 + 476.6683
# Memory bandwidth 541.7965 on Core 0, 0 on Core 1-3 (STAT Sum 541.7965)
GIVE_SETUP_BW = 541.7965 + 0 + 0 + 0
GIVE_SETUP_T = max(0.090805, 0.091738, 0.091736, 0.091758)
# give, Solve: STAT Sum 4383.3768 and 513.2946
GIVE_SOLVE_DP = 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674
GIVE_SOLVE_BW = 513.2946
GIVE_SOLVE_T = max(10.081250, 10.081730, 10.081740, 10.081740)
# sample 16, take, Setup: STAT Sum 1065.0825 and 1291.3132
TAKE_SETUP_DP = 281.9735 + 261.0313 + 261.0458 + 261.0319
TAKE_SETUP_BW = 1291.3132
TAKE_SETUP_T = max(0.127755, 0.128629, 0.128625, 0.128627)
# take, Solve: STAT Sum 3727.1902 and 2786.7833
TAKE_SOLVE_DP = 942.6759 + 921.6176 + 921.3948 + 941.5019
TAKE_SOLVE_BW = 2786.7833
TAKE_SOLVE_T = max(4.478530, 4.479014, 4.479015, 4.479016)

# sample 17: (DP sum, bandwidth sum, runtime max) per run and region
CHAIN_POINTS = {
    # 1 thread: no STAT tables, the single column is the sum
    ("1t", "Setup"): (886.0070, 383.2403, 0.805947),
    ("1t", "Solve"): (1253.7118, 444.7203, 134.782900),
    # 2 threads: STAT Sum 1439.2707 / 747.5346 and 2432.8082 / 1058.3472
    ("2t", "Setup"): (731.8279 + 707.4428, 747.5346 + 0, max(0.495660, 0.496629)),
    ("2t", "Solve"): (1218.4619 + 1214.3463, 1058.3472 + 0, max(69.458130, 69.458620)),
    # 8 threads: STAT Sum 2708.1630 / 1235.3228 and 8621.4700 / 3250.9677
    ("8t", "Setup"): (378.4044 + 335.2537 + 333.0803 + 333.1228 + 332.9475 + 331.9011
                      + 331.8538 + 331.5994, 1235.3228,
                      max(0.262876, 0.263806, 0.263811, 0.263803, 0.263807, 0.263799,
                          0.263804, 0.263804)),
    ("8t", "Solve"): (1095.0688 + 1085.1777 + 1075.7598 + 1070.4220 + 1069.6154 + 1071.9149
                      + 1077.8894 + 1075.6220, 3250.9677, 19.599840),
}
CHAIN_THREADS = {"1t": 1, "2t": 2, "8t": 8}


def test_the_hand_sums_match_the_stat_sum_rows():
    for mine, stat in [(GIVE_SETUP_DP, 1950.0623), (GIVE_SOLVE_DP, 4383.3768),
                       (TAKE_SETUP_DP, 1065.0825), (TAKE_SOLVE_DP, 3727.1902),
                       (CHAIN_POINTS["2t", "Setup"][0], 1439.2707),
                       (CHAIN_POINTS["2t", "Solve"][0], 2432.8082),
                       (CHAIN_POINTS["8t", "Setup"][0], 2708.1630),
                       (CHAIN_POINTS["8t", "Solve"][0], 8621.4700)]:
        assert mine == pytest.approx(stat, abs=1e-9)


def test_comparison_samples_are_bundled_and_documented():
    names = sample_names()
    assert {GIVE, TAKE, *CHAIN.values()} <= set(names)
    sources = Path(sample_path("SOURCES.md")).read_text()
    assert f"`{TAKE}`" in sources
    assert "`gmgpolar_skx4s_lw50_MEM_DP_compact{1,2,8}t_1537x2048_give.txt`" in sources


def check_point(row, suffix, dp, bw, runtime, threads, calls):
    assert row[f"performance_gflops_{suffix}"] == approx(dp / 1000)
    assert row[f"bandwidth_gbs_{suffix}"] == approx(bw / 1000)
    assert row[f"arithmetic_intensity_flops_per_byte_{suffix}"] == approx(dp / bw)
    assert row[f"runtime_seconds_{suffix}"] == approx(runtime)
    assert row[f"n_threads_{suffix}"] == threads
    assert row[f"call_count_{suffix}"] == calls
    assert row[f"reason_{suffix}"] == ""


def check_changes(row, before, after):
    """``before``/``after``: (DP, bandwidth, runtime) as in the files."""
    (dp0, bw0, t0), (dp1, bw1, t1) = before, after
    assert row["speedup"] == approx(t0 / t1)
    assert row["performance_change_percent"] == approx((dp1 / dp0 - 1) * 100)
    assert row["bandwidth_change_percent"] == approx((bw1 / bw0 - 1) * 100)
    assert row["intensity_change_percent"] == approx(((dp1 / bw1) / (dp0 / bw0) - 1) * 100)


# ---------------------------------------------------------------------------
# give (sample 2) against take (sample 16)
# ---------------------------------------------------------------------------
def test_give_against_take_every_number_by_hand():
    table = compare_points(sample_path(GIVE), sample_path(TAKE))
    assert table["region"].tolist() == ["Setup", "Solve"]
    assert table["rank"].tolist() == [0, 0]
    assert table["status"].tolist() == ["both", "both"]
    assert set(table["run_before"]) == {"before"}
    assert set(table["run_after"]) == {"after"}
    assert set(table["file_before"]) == {GIVE.removesuffix(".txt")}
    assert set(table["file_after"]) == {TAKE.removesuffix(".txt")}
    assert set(table["flops_metric"]) == {"DP [MFLOP/s]"}
    assert set(table["bandwidth_metric"]) == {"Memory bandwidth [MBytes/s]"}
    setup, solve = table.iloc[0], table.iloc[1]
    check_point(setup, "before", GIVE_SETUP_DP, GIVE_SETUP_BW, GIVE_SETUP_T, 4, 2)
    check_point(setup, "after", TAKE_SETUP_DP, TAKE_SETUP_BW, TAKE_SETUP_T, 4, 2)
    check_point(solve, "before", GIVE_SOLVE_DP, GIVE_SOLVE_BW, GIVE_SOLVE_T, 4, 1)
    check_point(solve, "after", TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T, 4, 1)
    check_changes(setup, (GIVE_SETUP_DP, GIVE_SETUP_BW, GIVE_SETUP_T),
                  (TAKE_SETUP_DP, TAKE_SETUP_BW, TAKE_SETUP_T))
    check_changes(solve, (GIVE_SOLVE_DP, GIVE_SOLVE_BW, GIVE_SOLVE_T),
                  (TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T))


def test_solve_is_faster_at_lower_gflops_and_both_are_reported():
    # take's Solve runs 10.08174 / 4.479016 = 2.25 x faster, at 3.727 instead of 4.383 GFLOP/s
    # (-15 %): it does 3727.19 * 4.479 = 16.7e3 MFLOP instead of 4383.38 * 10.08 = 44.2e3.
    solve = compare_points(sample_path(GIVE), sample_path(TAKE)).iloc[1]
    assert solve["speedup"] == pytest.approx(2.2509, abs=1e-4)
    assert solve["performance_change_percent"] == pytest.approx(-14.97, abs=0.01)


def test_the_points_are_those_of_points_dataframe():
    table = compare_points(read_likwid(sample_path(GIVE)), sample_path(TAKE))
    for suffix, name in (("before", GIVE), ("after", TAKE)):
        points = points_dataframe(sample_path(name))
        for column in ("performance_gflops", "bandwidth_gbs",
                       "arithmetic_intensity_flops_per_byte", "runtime_seconds"):
            assert table[f"{column}_{suffix}"].tolist() == points[column].tolist()


def test_filters_and_ranks_apply_to_both_runs():
    give, take = sample_path(GIVE), sample_path(TAKE)
    assert compare_points(give, take, include="Sol")["region"].tolist() == ["Solve"]
    assert compare_points(give, take, exclude="Sol")["region"].tolist() == ["Setup"]
    assert compare_points(give, take, ranks=[0])["region"].tolist() == ["Setup", "Solve"]
    # rank 3 exists in neither run: no rows, and one warning per run
    with pytest.warns(SelectionWarning) as caught:
        empty = compare_points(give, take, ranks=3)
    assert len(empty) == 0
    assert "speedup" in empty.columns
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("before run: ranks [3] are not in the data") for t in texts)
    assert any(t.startswith("after run: ranks [3] are not in the data") for t in texts)


def test_combined_ranks_give_rank_minus_one_and_the_same_numbers():
    # one rank per file: the sum over ranks is the rank-0 point
    table = compare_points(sample_path(GIVE), sample_path(TAKE), combine_ranks=True)
    assert table["rank"].tolist() == [-1, -1]
    check_point(table.iloc[1], "after", TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T, 4, 1)
    assert table.iloc[1]["speedup"] == approx(GIVE_SOLVE_T / TAKE_SOLVE_T)


def test_another_metric_is_used_for_both_runs():
    read_bw = "Memory read bandwidth [MBytes/s]"
    table = compare_points(sample_path(GIVE), sample_path(TAKE), bandwidth_metric=read_bw)
    # Memory read bandwidth, Core 0 only: give Solve 388.2475, take Solve STAT Sum below
    take_read = Path(sample_path(TAKE)).read_text().split("Region Solve")[1]
    take_value = float(take_read.split("Memory read bandwidth [MBytes/s] |")[1].split("|")[0])
    solve = table.iloc[1]
    assert set(table["bandwidth_metric"]) == {read_bw}
    assert solve["bandwidth_gbs_before"] == approx(388.2475 / 1000)
    assert solve["bandwidth_gbs_after"] == approx(take_value / 1000)


# ---------------------------------------------------------------------------
# regions in one run only, renamed regions, regions left out
# ---------------------------------------------------------------------------
def renamed_take(tmp_path, old="Solve", new="Solve_take") -> Path:
    """Sample 16 with the Solve region renamed (the marker name in the code changed)."""
    text = Path(sample_path(TAKE)).read_text()
    assert text.count(f"Region {old}, ") == 1
    path = tmp_path / "take_renamed.txt"
    path.write_text(text.replace(f"Region {old}, ", f"Region {new}, "))
    return path


def test_regions_of_one_run_only_keep_their_rows(tmp_path):
    table = compare_points(sample_path(GIVE), renamed_take(tmp_path))
    assert table[["region", "status"]].values.tolist() == [
        ["Setup", "both"], ["Solve", "only before"], ["Solve_take", "only after"]]
    solve, solve_take = table.iloc[1], table.iloc[2]
    check_point(solve, "before", GIVE_SOLVE_DP, GIVE_SOLVE_BW, GIVE_SOLVE_T, 4, 1)
    assert solve["reason_after"] == "region 'Solve' not in the after run"
    assert pd.isna(solve["performance_gflops_after"])
    assert pd.isna(solve["speedup"])
    assert pd.isna(solve["region_after"])
    check_point(solve_take, "after", TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T, 4, 1)
    assert solve_take["reason_before"] == "region 'Solve_take' not in the before run"


@pytest.mark.parametrize("match", [{"Solve": "Solve_take"},
                                   lambda name: name + "_take" if name == "Solve" else None])
def test_match_pairs_a_renamed_region(tmp_path, match):
    table = compare_points(sample_path(GIVE), renamed_take(tmp_path), match=match)
    assert table[["region", "status"]].values.tolist() == [["Setup", "both"],
                                                           ["Solve_take", "both"]]
    solve = table.iloc[1]
    assert (solve["region_before"], solve["region_after"]) == ("Solve", "Solve_take")
    check_point(solve, "before", GIVE_SOLVE_DP, GIVE_SOLVE_BW, GIVE_SOLVE_T, 4, 1)
    check_point(solve, "after", TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T, 4, 1)
    check_changes(solve, (GIVE_SOLVE_DP, GIVE_SOLVE_BW, GIVE_SOLVE_T),
                  (TAKE_SOLVE_DP, TAKE_SOLVE_BW, TAKE_SOLVE_T))


def test_match_is_applied_to_every_run():
    # str.upper maps both runs' "Solve" to "SOLVE"; the rows keep the names as printed
    table = compare_points(sample_path(GIVE), sample_path(TAKE), include="Sol", match=str.upper)
    assert table[["region", "region_before", "region_after", "status"]].values.tolist() == [
        ["SOLVE", "Solve", "Solve", "both"]]
    assert table.iloc[0]["speedup"] == approx(GIVE_SOLVE_T / TAKE_SOLVE_T)


def test_match_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match=r"match maps the regions \['Setup', 'Solve'\]"):
        compare_points(sample_path(GIVE), sample_path(TAKE), match={"Setup": "Solve"})
    with pytest.raises(TypeError, match="match must be a dict or a callable"):
        compare_points(sample_path(GIVE), sample_path(TAKE), match="Solve")
    with pytest.raises(TypeError, match=r"match\('Setup'\) returned 3"):
        compare_points(sample_path(GIVE), sample_path(TAKE), match=lambda name: 3)


def take_without_solve_bandwidth(tmp_path) -> Path:
    """Sample 16 with Solve's Memory bandwidth shown as ``-`` (as LIKWID prints a metric of a
    counter it could not read, see sample 11); the STAT row is left as it is."""
    text = Path(sample_path(TAKE)).read_text()
    row = "|    Memory bandwidth [MBytes/s]    | 2786.7833 |         0 |         0 |         0 |"
    assert text.count(row) == 1
    dashed = "|    Memory bandwidth [MBytes/s]    |         - |         - |         - |         - |"
    path = tmp_path / "take_no_bw.txt"
    path.write_text(text.replace(row, dashed))
    return path


def test_a_region_left_out_of_one_run_keeps_its_row_and_reason(tmp_path):
    table = compare_points(sample_path(GIVE), take_without_solve_bandwidth(tmp_path))
    assert table["status"].tolist() == ["both", "only before"]
    solve = table.iloc[1]
    assert solve["reason_after"] == "'Memory bandwidth [MBytes/s]' not measured in this region"
    assert pd.isna(solve["performance_gflops_after"])
    assert pd.isna(solve["bandwidth_gbs_after"])
    assert pd.isna(solve["performance_change_percent"])
    # the region ran in both runs: its runtime and the speed-up are still there
    assert solve["runtime_seconds_after"] == approx(TAKE_SOLVE_T)
    assert solve["speedup"] == approx(GIVE_SOLVE_T / TAKE_SOLVE_T)


def test_a_region_left_out_of_both_runs_has_status_neither(tmp_path):
    path = take_without_solve_bandwidth(tmp_path)
    table = compare_points(path, path)
    assert table["status"].tolist() == ["both", "neither"]
    assert table.iloc[1]["reason_before"] == table.iloc[1]["reason_after"] != ""
    assert table.iloc[1]["speedup"] == 1.0


def test_runs_without_common_regions_are_all_listed():
    table = compare_points(sample_path(GIVE), sample_path(PMGPU))
    assert table["status"].value_counts().to_dict() == {"only after": 5, "only before": 2}
    assert table["region"].tolist()[:2] == ["Setup", "Solve"]
    assert table.iloc[2]["reason_before"] == "region '<init_datastructures>' not in the before run"
    assert set(table["status"]) <= set(STATUSES)


# ---------------------------------------------------------------------------
# metric choice and bad input
# ---------------------------------------------------------------------------
def test_a_run_without_the_metric_is_a_clear_error():
    # sample 1 (FLOPS_DP) measures no memory bandwidth: detected on the union, the metric is
    # Memory bandwidth (from sample 2), which the before run lacks
    with pytest.raises(ValueError, match=r"the before run has no bandwidth metric "
                                         r"'Memory bandwidth \[MBytes/s\]'"):
        compare_points(sample_path(FLOPS_DP), sample_path(GIVE))
    with pytest.raises(ValueError, match=r"the after run has no FLOP-rate metric "
                                         r"'AVX512 DP \[MFLOP/s\]'"):
        compare_points(sample_path(FLOPS_DP), sample_path(GIVE),
                       flops_metric="AVX512 DP [MFLOP/s]",
                       bandwidth_metric="Memory bandwidth [MBytes/s]")


def test_two_points_for_one_region_in_one_side_is_an_error():
    with pytest.raises(ValueError, match="the before run has 2 points for region 'Setup'"):
        compare_points([sample_path(GIVE), sample_path(TAKE)], sample_path(TAKE))


def test_no_warning_for_an_unambiguous_comparison():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_points(sample_path(GIVE), sample_path(TAKE))


# ---------------------------------------------------------------------------
# the chain: sample 17, 1 -> 2 -> 8 threads
# ---------------------------------------------------------------------------
def test_thread_chain_every_number_by_hand():
    table = compare_points({label: sample_path(name) for label, name in CHAIN.items()})
    assert table[["step", "run_before", "run_after", "region", "status"]].values.tolist() == [
        [1, "1t", "2t", "Setup", "both"], [1, "1t", "2t", "Solve", "both"],
        [2, "2t", "8t", "Setup", "both"], [2, "2t", "8t", "Solve", "both"]]
    calls = {"Setup": 2, "Solve": 1}
    for _, row in table.iterrows():
        before, after, region = row["run_before"], row["run_after"], row["region"]
        first = CHAIN_POINTS["1t", region]
        point_before, point_after = CHAIN_POINTS[before, region], CHAIN_POINTS[after, region]
        check_point(row, "before", *point_before, CHAIN_THREADS[before], calls[region])
        check_point(row, "after", *point_after, CHAIN_THREADS[after], calls[region])
        check_changes(row, point_before, point_after)
        # against the 1-thread run
        assert row["speedup_vs_first"] == approx(first[2] / point_after[2])
        assert row["performance_change_vs_first_percent"] == approx(
            (point_after[0] / first[0] - 1) * 100)
        assert row["bandwidth_change_vs_first_percent"] == approx(
            (point_after[1] / first[1] - 1) * 100)
        assert row["intensity_change_vs_first_percent"] == approx(
            ((point_after[0] / point_after[1]) / (first[0] / first[1]) - 1) * 100)
    # the after point of step 1 is the before point of step 2
    for column in ("performance_gflops", "bandwidth_gbs", "runtime_seconds"):
        assert table[f"{column}_after"].iloc[:2].tolist() == \
            table[f"{column}_before"].iloc[2:].tolist()
    # Solve on 8 threads: 134.7829 / 19.59984 = 6.88 x the 1-thread speed
    assert table.iloc[3]["speedup_vs_first"] == pytest.approx(6.877, abs=1e-3)
    assert list(table.columns)[-4:] == [
        "speedup_vs_first", "performance_change_vs_first_percent",
        "intensity_change_vs_first_percent", "bandwidth_change_vs_first_percent"]


def test_chain_as_a_list_is_labelled_by_the_runs():
    table = compare_points([sample_path(name) for name in CHAIN.values()], include="Solve")
    labels = [name.removesuffix(".txt") for name in CHAIN.values()]
    assert table[["run_before", "run_after"]].values.tolist() == [labels[:2], labels[1:]]


def test_a_pair_is_the_two_run_chain_without_the_first_run_columns():
    pair = compare_points(sample_path(GIVE), sample_path(TAKE))
    chain = compare_points({"before": sample_path(GIVE), "after": sample_path(TAKE)})
    assert (chain["step"] == 1).all()
    pd.testing.assert_frame_equal(chain[list(pair.columns)], pair)
    assert chain["speedup_vs_first"].tolist() == pair["speedup"].tolist()


def test_chain_errors():
    with pytest.raises(ValueError, match="at least two runs"):
        compare_points({"1t": sample_path(CHAIN["1t"])})
    with pytest.raises(TypeError, match="for a chain pass one ordered mapping"):
        compare_points(sample_path(GIVE))


def test_every_step_of_a_chain_is_the_two_run_comparison_of_its_runs():
    # Regions come and go: the GMGPolar runs measure Setup and Solve, the pmgpu run five others.
    runs = {"1t": sample_path(CHAIN["1t"]), "pm": sample_path(PMGPU),
            "8t": sample_path(CHAIN["8t"]), "pm again": sample_path(PMGPU)}
    chain = compare_points(runs)
    labels = list(runs)
    for step in (1, 2, 3):
        pair = compare_points({labels[step - 1]: runs[labels[step - 1]],
                               labels[step]: runs[labels[step]]})
        rows = chain[chain["step"] == step].reset_index(drop=True)
        columns = [c for c in pair.columns if "vs_first" not in c and c != "step"]
        pd.testing.assert_frame_equal(rows[columns], pair[columns])
    # step 2 (pm -> 8t): the 8t rows come after the pm rows, new in the later run
    step_2 = chain[chain["step"] == 2]
    assert step_2["status"].tolist() == ["only before"] * 5 + ["only after"] * 2
    setup = step_2[step_2["region"] == "Setup"].iloc[0]
    assert setup["reason_before"] == "region 'Setup' not in the pm run"
    # against the 1-thread run: Setup 0.805947 s on 1 thread, 0.263811 s on 8 (the max)
    assert setup["speedup_vs_first"] == approx(0.805947 / 0.263811)
    # pmgpu's regions are not in the first run: no change against it
    assert step_2.iloc[:5]["speedup_vs_first"].isna().all()


def test_a_rank_missing_from_a_run_of_a_chain_is_named():
    from scope_fixtures import make_profiling_results

    flops, bandwidth = "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"
    runs = {n: make_profiling_results(n_ranks=n, n_regions=2, n_threads=1, seed=n,
                                      file_path=f"{n}.h5") for n in (3, 1, 2)}
    chain = compare_points(runs, flops_metric=flops, bandwidth_metric=bandwidth,
                           group_ranks="rank")
    # step 1 (3 ranks -> 1): ranks 1 and 2 of both regions left the run
    step_1 = chain[chain["step"] == 1]
    assert step_1[["region", "rank", "status"]].values.tolist() == [
        ["region_000", 0, "both"], ["region_001", 0, "both"],
        ["region_000", 1, "only before"], ["region_001", 1, "only before"],
        ["region_000", 2, "only before"], ["region_001", 2, "only before"]]
    assert step_1["reason_after"].tolist()[2:] == ["rank 1 not in the 1 run"] * 2 + [
        "rank 2 not in the 1 run"] * 2
    # step 2 (1 rank -> 2): rank 1 is new, and the first run (3 ranks) had it
    new = chain[(chain["step"] == 2) & (chain["rank"] == 1)]
    assert new["status"].tolist() == ["only after"] * 2
    assert new["reason_before"].tolist() == ["rank 1 not in the 1 run"] * 2
    first = compare_points(runs[3], runs[2], flops_metric=flops, bandwidth_metric=bandwidth,
                           group_ranks="rank").set_index(["region", "rank"])
    for _, row in new.iterrows():
        assert row["speedup_vs_first"] == first.loc[(row["region"], 1), "speedup"]
