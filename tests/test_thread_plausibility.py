"""Plausibility per thread, before any sum: one broken thread among many flags its whole point.

Sample 23 (``WRAPPED_RANK``: SOMA on 216 ranks, likwid-mpirun MEM_DP, 3 Ice Lake hosts of 72
ranks; likwid-mpirun prints no CPU header).  Rank 61 (column ``f0702:61:61``, line 601 ff.)
reads ``FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE`` = 140,744,340,728,674, 2^47 x (1 +
4.8e-5): a wrapped 48-bit counter, so its DP [MFLOP/s] reads 1,169,961 (1,170 GFLOP/s) over
963.0794 s.  Per host (the ranks whose memory is counted on two socket-leader ranks):

=====================  ======================  ============================
host (ranks)           DP, sum of the ranks    memory bandwidth (2 leaders)
=====================  ======================  ============================
f0702 (0-71)           1,235,189.1662 MFLOP/s  47,383.1975 MBytes/s
f0703 (72-143)            65,643.6607          46,957.9295
f0704 (144-215)           65,675.2298          46,488.6578
=====================  ======================  ============================

The three add up to 1,366,508.06, LIKWID's ``DP [MFLOP/s] STAT`` Sum (1.366508e+06, line
635).  The old rule (a point's rate over its thread count against 1,000 GFLOP/s) let f0702
pass: 1,235 / 72 = 17 GFLOP/s a thread.  Per thread: the CPU type is unknown, but the threads
measured their clock (median of ``Clock [MHz]``: 2,394.31315 MHz), so one thread does at most
128 FLOP/cycle (the widest core of the table) x 1.5 x 2.39431315 GHz = 459.708 GFLOP/s; rank
61's 1,170 is beyond it.  The empirical peak is then the largest plausible host, f0704:
65.6752298 GFLOP/s.  The synthetic sweep and 2,304-rank run are tests/broken_runs.py's.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from broken_runs import BROKEN_HOSTS, mpirun_2304_ranks, thread_sweep
from wild_samples import WRAPPED_RANK

from roofline_widget import Roofline, RooflineWidget, plot_roofline, points_dataframe, sanity_check
from roofline_widget.roofs.hardware_bounds import (
    MAX_CPU_GFLOPS_PER_THREAD,
    beyond_hardware,
    hardware_limits,
    largest_plausible,
    thread_bound,
)
from roofline_widget.roofs.roof import decimal_value

PLAUSIBLE_PEAK = 65.6752298          # f0704's sum, GFLOP/s
THREAD_LIMIT = 128 * 1.5 * 2.39431315  # 459.708 GFLOP/s


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def hosts():
    return _quiet(points_dataframe, WRAPPED_RANK)


def test_sample_23_host_sums_and_the_stat_sum(hosts):
    assert hosts["rank_group"].astype(str).tolist() == [
        "f0702 (ranks 0-71)", "f0703 (ranks 72-143)", "f0704 (ranks 144-215)"]
    np.testing.assert_allclose(hosts["performance_gflops"],
                               [1235.1891662, 65.6436607, PLAUSIBLE_PEAK], rtol=1e-12)
    assert hosts["performance_gflops"].sum() * 1000 == pytest.approx(1.366508e6, rel=1e-6)
    # the largest thread of each host: rank 61's 1,169,961 MFLOP/s, then two plausible ranks
    assert hosts["thread_max_gflops"].iloc[0] == pytest.approx(1169.961)
    assert hosts["thread_max_gflops"].iloc[1:].max() < 1.0
    np.testing.assert_allclose(hosts["thread_limit_gflops"], THREAD_LIMIT, rtol=1e-9)


def test_sample_23_the_old_rule_passed_the_host_the_thread_rule_catches_it(hosts):
    # 1,235 GFLOP/s on 72 threads is below 72 x 1,000: the per-point bound alone passed it
    assert (hosts["performance_gflops"] < hardware_limits(hosts, "performance_gflops")).all()
    assert beyond_hardware(hosts).tolist() == [True, False, False]
    assert largest_plausible(hosts, "performance_gflops") == pytest.approx(PLAUSIBLE_PEAK, rel=1e-12)
    roofline = Roofline.from_ceilings(None, None, None, hosts)
    assert roofline.main_compute.gflops == pytest.approx(PLAUSIBLE_PEAK, rel=1e-12)


def test_sample_23_the_wrapped_rank_is_named():
    findings = _quiet(sanity_check, WRAPPED_RANK)
    assert findings["check"].tolist() == ["beyond hardware"]
    assert (findings["rank"].iloc[0], findings["region"].iloc[0]) == (0, "(whole run)")
    detail = findings["detail"].iloc[0]
    assert detail == (
        "rank 61, thread f0702:61:61 (file pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter"
        ".txt, run 'pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter') reads 1,169,961 "
        "MFLOP/s (DP [MFLOP/s]: 1,170 GFLOP/s), beyond what one hardware thread can do (at most "
        "459.7 GFLOP/s: 128 FLOP/cycle (the widest core of the table: the CPU type is not known) "
        "x 1.5 x 2.394 GHz measured clock); FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3 reads "
        "140,744,340,728,674, near 2^47: a wrapped counter; the point of f0702 (ranks 0-71) in "
        "(whole run) sums it: 1,235 GFLOP/s on 72 hardware threads, left out of empirical "
        "ceilings and axis ranges")


# one region on three hosts: the host's point is named by its host (look.point_names)
NOTE = ("f0702 (ranks 0-71) reports 1,235 GFLOP/s on 72 hardware threads, one "
        "hardware thread of them 1,170 GFLOP/s (at most 459.7 GFLOP/s a hardware thread), beyond "
        "what one core can do: not used for the empirical peak or the empirical bandwidth; the "
        "axes follow the other points "
        "(see sanity_check)")


def test_sample_23_widget_status_and_static_note(tmp_path):
    widget = _quiet(RooflineWidget, WRAPPED_RANK)
    assert widget.roofline.main_compute.gflops == pytest.approx(PLAUSIBLE_PEAK, rel=1e-12)
    assert NOTE in widget.controls.status_html.value
    payload = _quiet(plot_roofline, WRAPPED_RANK, filepath=tmp_path / "s23.png", verbose=False)
    assert payload["beyond_hardware_note"] == NOTE
    # the broken host is left out as a whole: its bandwidth supplies no empirical roof either,
    # which is f0703's 46,957.9295 MBytes/s
    assert [c["value"] for c in payload["ceilings"]] == pytest.approx([PLAUSIBLE_PEAK, 46.9579295],
                                                                     rel=1e-12)
    assert payload["figure"].axes[0].get_ylim()[1] < 1235.0  # the axes follow the others
    # the broken host is drawn hollow (in its own collection, its legend says so)
    labels = [t.get_text() for t in payload["figure"].axes[0].get_legend().get_texts()]
    assert "f0702 (beyond the hardware)" in labels
    assert payload["beyond_hardware"][0].startswith(
        "beyond the hardware: one hardware thread reads 1,170 GFLOP/s (at most 459.7 GFLOP/s")
    assert payload["beyond_hardware"][1:] == ["", ""]


def test_sample_23_check_exits_1_and_the_svg_title_says_it(tmp_path):
    command = [sys.executable, "-m", "roofline_widget"]
    checked = subprocess.run([*command, "check", str(WRAPPED_RANK)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 1
    assert "beyond hardware: rank 61, thread f0702:61:61" in checked.stdout
    assert "near 2^47: a wrapped counter" in checked.stdout
    svg = tmp_path / "s23.svg"
    plotted = subprocess.run([*command, "plot", str(WRAPPED_RANK), "-o", str(svg)],
                             capture_output=True, text=True, check=False)
    assert plotted.returncode == 0
    assert NOTE in plotted.stdout
    text = svg.read_text()
    assert ("beyond the hardware: one hardware thread reads 1,170 GFLOP/s (at most 459.7 GFLOP/s "
            "a hardware thread); left out of the empirical roofs and the axes") in text


# ---------------------------------------------------------------- synthetic from real files
def test_an_18_thread_sweep_with_one_thread_at_10725_gflops(tmp_path):
    points = _quiet(points_dataframe, thread_sweep(tmp_path / "sweep.txt"))
    assert points["n_threads"].tolist() == [1, 2, 4, 8, 12, 18]
    last = points.iloc[-1]
    # 10,725 GFLOP/s + 17 real threads of about 1.08 GFLOP/s: about 10,743, below 18 x 1,000
    assert 10_725 < last["performance_gflops"] < 10_745
    assert last["performance_gflops"] < 18 * MAX_CPU_GFLOPS_PER_THREAD
    # a Gold 6132 thread (64 SP FLOP/cycle) at 1.5 x its measured 1.8954 GHz: at most 182
    assert last["thread_limit_gflops"] == pytest.approx(64 * 1.5 * 1.8954, rel=1e-4)
    assert beyond_hardware(points).tolist() == [False] * 5 + [True]
    roofline = Roofline.from_ceilings(None, None, None, points)
    # the largest plausible point, at the 15 digits a roof keeps (12.947898300000002 summed)
    assert roofline.main_compute.gflops == decimal_value(points["performance_gflops"].iloc[:5].max())
    assert roofline.main_compute.gflops < 15  # not "Empirical peak 1.073e+04 GFLOP/s"
    findings = _quiet(sanity_check, tmp_path / "sweep.txt")
    assert len(findings) == 1
    assert findings["detail"].iloc[0].startswith(
        "rank 0, thread HWThread 13 (file sweep.txt, run 'sweep#6 (18 threads)' (#6)) reads "
        "10,725,000 MFLOP/s (DP [MFLOP/s]: 10,725 GFLOP/s), beyond what one hardware thread can "
        "do (at most 182 GFLOP/s: 64 FLOP/cycle (Intel Skylake SP) x 1.5 x 1.895 GHz measured")


def test_a_2304_rank_run_with_half_of_the_hosts_broken(tmp_path):
    path = mpirun_2304_ranks(tmp_path / "r2304.txt")
    hosts = _quiet(points_dataframe, path)
    assert len(hosts) == 32
    assert hosts["n_threads"].tolist() == [72] * 32
    flagged = beyond_hardware(hosts)
    assert np.flatnonzero(flagged).tolist() == sorted(BROKEN_HOSTS)
    broken = hosts["performance_gflops"][flagged]
    assert 860 < broken.min() < 870
    assert 7_400 < broken.max() < 7_440
    # the old rule saw none of them: the largest, 7,430 GFLOP/s, is 103 GFLOP/s a thread
    assert not (hosts["performance_gflops"] > hardware_limits(hosts, "performance_gflops")).any()
    plausible = hosts["performance_gflops"][~flagged]
    roofline = Roofline.from_ceilings(None, None, None, hosts)
    assert roofline.main_compute.gflops == decimal_value(plausible.max())
    assert plausible.max() < 50
    judged = roofline.classify(hosts[~flagged])
    assert (judged["efficiency_percent"] <= 100.0 + 1e-9).all()
    findings = _quiet(sanity_check, path)
    assert len(findings) == 16
    assert all("near 2^4" in detail and "a wrapped counter" in detail
               for detail in findings["detail"])


def test_the_bound_of_one_thread():
    # Ice Lake SP known, no measured clock: 64 SP FLOP/cycle x 2.5 x 2.4 GHz base = 384
    icx = thread_bound("Intel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz",
                       "Intel Icelake SP processor", "2.39 GHz")
    assert icx.gflops == pytest.approx(384.0)
    assert icx.basis == "64 FLOP/cycle (Intel Ice Lake SP) x 2.5 x 2.4 GHz base clock"
    # Sapphire Rapids (AVX512-FP16: 128 HP FLOP/cycle) at a measured 2.0 GHz: 128 x 1.5 x 2
    assert thread_bound(None, "Intel SapphireRapids processor", None, 2.0).gflops == 384.0
    # a known core without any clock: 6.5 GHz; A64FX 128 HP x 6.5 = 832
    assert thread_bound(None, "Fujitsu A64FX").gflops == pytest.approx(832.0)
    # never above 1,000, which is the bound where nothing is known
    assert thread_bound(None, "Intel SapphireRapids processor", "5.0 GHz").gflops == 1000.0
    assert thread_bound(None, None).basis == "neither the CPU nor its clock is known"


def test_the_cpu_header_is_parsed_once_and_a_differing_one_gets_its_own_bound():
    # Sample 19 (LULESH, 7 runs in one log): every run prints the same header, "Intel(R) Xeon(R)
    # Platinum 8360Y CPU @ 2.40GHz" / "Intel Icelake SP processor" / "2.394319754 GHz", and its
    # own measured clock (run 1: median of Clock [MHz] 2,394.28855 MHz); the bound is
    # 64 FLOP/cycle x 1.5 x the measured clock: 229.8517008 GFLOP/s for run 1.
    from wild_samples import LULESH_SIZES

    from roofline_widget import read_likwid
    from roofline_widget.roofs.hardware_bounds import cpu_header_terms, run_thread_bound

    runs = _quiet(read_likwid, LULESH_SIZES).each_run()
    assert len(runs) == 7
    cpu_header_terms.cache_clear()
    bounds = [run_thread_bound(run) for run in runs]
    assert cpu_header_terms.cache_info().misses == 1  # one header, parsed once
    assert cpu_header_terms.cache_info().hits == 6
    assert bounds[0].gflops == pytest.approx(64 * 1.5 * 2.39428855)
    assert bounds[0].basis == "64 FLOP/cycle (Intel Ice Lake SP) x 1.5 x 2.394 GHz measured clock"
    # a header that differs (another clock printed, another CPU) gets its own terms and bound
    icx = ("Intel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz", "Intel Icelake SP processor")
    assert cpu_header_terms(*icx, "2.39 GHz")[3] == 2.4  # the larger of printed 2.39, name's 2.40
    assert cpu_header_terms(*icx, "3.1 GHz")[3] == 3.1
    assert thread_bound(*icx, "3.1 GHz").gflops == pytest.approx(64 * 2.5 * 3.1)  # 496
    # sample likwidjl_zen3: "AMD EPYC 7763 64-Core Processor", "AMD K19 (Zen3) architecture",
    # "2.45 GHz": 32 FLOP/cycle (Zen3) x 2.5 x 2.45 GHz = 196, after the Ice Lake header's
    zen3 = ("AMD EPYC 7763 64-Core Processor", "AMD K19 (Zen3) architecture", "2.45 GHz")
    assert cpu_header_terms(*zen3) == (True, 32, "AMD Zen3", 2.45)
    assert thread_bound(*zen3).gflops == pytest.approx(196.0)
