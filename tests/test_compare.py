"""compare_points on the real give/take pair (samples 2 and 16) and the thread chain (sample 17).

Hand computation from the files (likwid-perfctr MEM_DP, 4 cores of one socket, LIKWID 5):

* give (compact4t_1socket.txt), Setup: DP [MFLOP/s] 517.2402 + 478.9738 + 477.1800 + 476.6683
  = 1950.0623 (the STAT Sum column says the same); Memory bandwidth [MBytes/s] 541.7965 + 0 + 0 + 0;
  runtime = max RDTSC Runtime = 0.091758 s.  Solve: 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674
  = 4383.3768 MFLOP/s, 513.2946 MBytes/s, 10.081740 s.
* take (compact4t_1socket_take.txt), Setup: 281.9735 + 261.0313 + 261.0458 + 261.0319 = 1065.0825
  (STAT Sum 1065.0825), 1291.3132 MBytes/s, 0.128629 s.  Solve: 942.6759 + 921.6176 + 921.3948 +
  941.5019 = 3727.1902 (STAT Sum 3727.1902), 2786.7833 MBytes/s, 4.479016 s.
"""

from __future__ import annotations

import pytest

from roofline_widget import compare_points, sample_path

GIVE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
TAKE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")
CHAIN = {f"{n}t": sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{n}t_1537x2048_give.txt")
         for n in (1, 2, 8)}


def _row(table, region, step=None):
    rows = table[table["region"] == region]
    if step is not None:
        rows = rows[rows["run_before"] == step]
    assert len(rows) == 1
    return rows.iloc[0]


def test_give_versus_take_by_hand():
    table = compare_points(GIVE, TAKE)
    assert list(table["region"]) == ["Setup", "Solve"] and set(table["status"]) == {"both"}
    setup, solve = _row(table, "Setup"), _row(table, "Solve")
    assert setup["performance_gflops_before"] == pytest.approx(1.9500623, rel=1e-9)
    assert setup["performance_gflops_after"] == pytest.approx(1.0650825, rel=1e-9)
    assert setup["bandwidth_gbs_after"] == pytest.approx(1.2913132, rel=1e-9)
    assert setup["arithmetic_intensity_flops_per_byte_after"] == pytest.approx(1065.0825 / 1291.3132)
    # take is slower in Setup (0.091758 s -> 0.128629 s) and faster in Solve (10.081740 -> 4.479016)
    assert setup["speedup"] == pytest.approx(0.091758 / 0.128629, rel=1e-6)
    assert solve["speedup"] == pytest.approx(10.081740 / 4.479016, rel=1e-6)
    # Solve: 2.25x faster at a LOWER FLOP rate (fewer FLOPs): both figures are reported
    assert solve["performance_change_percent"] == pytest.approx((3727.1902 / 4383.3768 - 1) * 100)
    assert solve["bandwidth_change_percent"] == pytest.approx((2786.7833 / 513.2946 - 1) * 100)
    intensity_before = 4383.3768 / 513.2946
    intensity_after = 3727.1902 / 2786.7833
    assert solve["intensity_change_percent"] == pytest.approx(
        (intensity_after / intensity_before - 1) * 100)
    assert set(table["flops_metric"]) == {"DP [MFLOP/s]"}
    assert set(table["bandwidth_metric"]) == {"Memory bandwidth [MBytes/s]"}


def test_regions_in_one_run_only_are_kept_with_their_status():
    """Two unrelated runs share no region: every region is listed, on its own side only."""
    pmgpu = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
    table = compare_points(GIVE, pmgpu)
    before = table[table["status"] == "only before"]
    after = table[table["status"] == "only after"]
    assert list(before["region"]) == ["Setup", "Solve"]
    assert len(after) >= 5 and not (table["status"] == "both").any()
    assert before["performance_gflops_after"].isna().all() and before["speedup"].isna().all()
    assert _row(table, "Setup")["performance_gflops_before"] == pytest.approx(1.9500623, rel=1e-9)


def test_match_callable_and_filters_apply_to_both_runs():
    table = compare_points(GIVE, TAKE, include="Sol", match=str.upper)
    assert list(table["region"]) == ["SOLVE"] and list(table["region_after"]) == ["Solve"]
    assert compare_points(GIVE, TAKE, ranks=[5]).empty


def test_thread_chain_step_by_step():
    """Sample 17: 1, 2 and 8 threads of the same solver; each step against the previous run."""
    table = compare_points(CHAIN)
    assert list(zip(table["run_before"], table["run_after"])) == [
        ("1t", "2t"), ("1t", "2t"), ("2t", "8t"), ("2t", "8t")]
    solve = _row(table, "Solve", "1t")
    later = _row(table, "Solve", "2t")
    # the after point of one step is the before point of the next
    assert later["performance_gflops_before"] == solve["performance_gflops_after"]
    assert solve["speedup"] == pytest.approx(
        solve["runtime_seconds_before"] / solve["runtime_seconds_after"])
    assert (table["speedup"] > 1).all()


def test_chain_needs_two_runs_and_pairs_need_two():
    with pytest.raises(ValueError, match="at least two"):
        compare_points({"only": GIVE})
    with pytest.raises(TypeError, match="chain"):
        compare_points(GIVE)
    with pytest.raises(TypeError, match="match"):
        compare_points(GIVE, TAKE, match=3)
