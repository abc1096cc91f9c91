"""Guidance: each rule's advice checked against the sample's own numbers, worked out by hand.

Samples (unchanged copies; ``roofline_widget/data/SOURCES.md``, ``tests/data/SOURCES.md``):

- sample 17 (``gmgpolar_skx4s_lw50_MEM_DP_compact{1,8}t_1537x2048_give.txt``, Xeon Gold 6132
  "@ 2.60GHz", Skylake SP MEM_DP).  Its MEM_DP group prints ``Packed [MUOPS/s]`` and
  ``Scalar [MUOPS/s]`` (so sample 1's FLOPS_DP file is not needed) and counts
  ``FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE`` (PMC3): AVX-512, 8 DP lanes, although the
  group's metric is named ``AVX DP``.  Setup, 8 threads, STAT Sum column (line 68-83):
  ``Scalar [MUOPS/s] 2703.4415``, ``Packed [MUOPS/s] 0.6845``, ``DP [MFLOP/s] 2708.1630``;
  STAT Avg ``Clock [MHz] 1895.4695``.
- sample 5 (``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt``) against sample 22's
  ceilings (an EPYC 7763's likwid-bench logs: MEM 41.265565 GB/s, DP 820.02222 GFLOP/s).
- sample 23 (``pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt``): 216 MPI ranks on
  three hosts, one rank per core, wrapper mode; the ranks of one host are one point.
- sample 19 (``LULESH_SIZES``): five region blocks whose 512-bit counter wrapped
  (``test_beyond_hardware.py`` works them out).
"""

from __future__ import annotations

import json
import math
import warnings

import pandas as pd
import pytest
from wild_samples import DATA, LULESH_SIZES, MILAN_LOGS

from roofline_widget import (
    BandwidthRoof,
    ComputeRoof,
    RooflineWidget,
    guidance,
    machine_roofline,
    points_dataframe,
    read_likwid,
    sample_path,
)
from roofline_widget.analysis.guidance import ADDED_COLUMNS, ADVICE_SEPARATOR, GUIDANCE_COLUMNS
from roofline_widget.analysis.guidance_facts import nominal_clock, simd_width
from roofline_widget.analysis.guidance_rules import (
    CLOCK_FRACTION,
    IMBALANCE_MIN_RUNTIME_S,
    IMBALANCE_SPREAD,
    NEAR_ROOF_PERCENT,
    REUSE_HIGH,
    REUSE_LOW,
    RULES,
    SCALAR_SHARE,
    number_text,
)
from roofline_widget.cli import main
from roofline_widget.widget.html import details_html

GIVE_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")
GIVE_1T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact1t_1537x2048_give.txt")
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
SOMA = DATA / "pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt"
RENDERED = [sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
            for group in ("L2", "L3", "MEM_DP")]
MILAN_MEM_GBS = 41.265565


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _row(frame: pd.DataFrame, region: str, **keys) -> pd.Series:
    chosen = frame["region"].astype(str) == region
    for name, value in keys.items():
        chosen &= frame[name].astype(str) == value
    assert chosen.sum() == 1, (region, keys)
    return frame[chosen].iloc[0]


@pytest.fixture(scope="module")
def milan():
    return machine_roofline(MILAN_LOGS)


@pytest.fixture(scope="module")
def give_8t():
    return guidance(GIVE_8T)


# ------------------------------------------------------------------ scalar share (sample 17)
def test_scalar_share_of_sample_17_setup(give_8t):
    row = _row(give_8t, "Setup")
    # 2703.4415 / (2703.4415 + 0.6845) = 99.9747 %: shown floored, never "100.0 %"
    total = 2703.4415 + 0.6845
    assert 2703.4415 / total == pytest.approx(0.999747, abs=1e-6)
    # 8 lanes x 2704.126 MUOPS/s / 2708.163 MFLOP/s = 7.988: "8x"
    assert 8 * total / 2708.1630 == pytest.approx(7.98808, abs=1e-5)
    assert ("99.9 % scalar (2,703 of 2,704 MUOPS/s): vectorising could raise the compute "
            "ceiling 8x (AVX-512 DP, 8 lanes)") in row["advice"]
    assert row["limiting_factor"] == "scalar code"
    used = {m.name: m.value for m in row["guidance_metrics"]}
    assert used["Scalar"] == pytest.approx(2703.4415, rel=1e-12)  # the STAT Sum, from threads
    assert used["Packed"] == pytest.approx(0.6845, rel=1e-12)
    assert used["FLOP rate"] == pytest.approx(2708.1630, rel=1e-9)


def test_scalar_share_of_the_one_thread_run_and_the_width_from_the_512_bit_event():
    row = _row(guidance(GIVE_1T), "Setup")
    # Core 0: Scalar 884.4670, Packed 0.2233, DP 886.0070 MUOPS/MFLOP/s
    # 884.4670 / 884.6903 = 99.975 %; 8 x 884.6903 / 886.0070 = 7.988
    assert row["advice"][0].startswith("99.9 % scalar (884.5 of 884.7 MUOPS/s)")
    run = read_likwid(GIVE_1T)
    assert "AVX512 DP [MFLOP/s]" not in run.metric_names  # the group prints "AVX DP" only
    assert simd_width(run.metric_names, run.events.columns) == (512, "AVX-512")
    assert simd_width(["AVX DP [MFLOP/s]", "Packed [MUOPS/s]"]) == (256, "AVX")
    assert simd_width(["Packed MUOPS/s"]) == (128, "SSE")
    assert simd_width(["DP [MFLOP/s]"]) is None


def test_without_packed_and_scalar_rates_the_rule_says_nothing(milan):
    # Zen2's MEM_DP and FLOPS_DP groups print no uop rates
    found = guidance(PMGPU, milan)
    assert not any("scalar" in text for advice in found["advice"] for text in advice)


# ------------------------------------------------------------------ clock (sample 17)
def test_clock_below_nominal(give_8t):
    row = _row(give_8t, "Setup")
    # STAT Avg of Clock [MHz]: 1895.4695 (8 threads); "Gold 6132 CPU @ 2.60GHz": 2,600 MHz;
    # 1895.47 < 0.9 x 2600 = 2340
    assert 1895.4695 < CLOCK_FRACTION * 2600
    assert nominal_clock(read_likwid(GIVE_8T)) == (2600.0, "CPU name")
    clock = [text for text in row["advice"] if text.startswith("clock")]
    assert clock == ["clock 1,895 MHz against 2,600 nominal (CPU name): frequency throttled "
                     "(AVX-512 licence, power or thermal cap, or a fixed lower frequency)"]
    used = {m.name: m.value for m in row["guidance_metrics"]}
    assert used["Clock"] == pytest.approx(1895.4695, abs=5e-5)


def test_a_clock_above_nominal_and_a_run_without_header_say_nothing(milan):
    # sample 5: "CPU clock: 2.00 GHz", Clock [MHz] 3329.9670 ... 3341.2899 (boost)
    assert nominal_clock(read_likwid(PMGPU)) == (2000.0, "CPU clock")
    assert not any(t.startswith("clock") for a in guidance(PMGPU, milan)["advice"] for t in a)
    # sample 23: likwid-mpirun prints no CPU header, so no nominal clock
    assert nominal_clock(read_likwid(SOMA)) is None
    assert not any(t.startswith("clock") for a in _quiet(guidance, SOMA)["advice"] for t in a)


# ------------------------------------------------------------------ the roof (sample 5 x 22)
def test_memory_bound_region_against_sample_22s_ceilings(milan):
    row = _row(guidance(PMGPU, milan), "<function_d>")
    # 1.6163005 GFLOP/s / 28.5809575 GB/s = 0.05655 FLOP/byte, left of the ridge
    # 820.02222 / 41.265565 = 19.87: memory bound at 28.5809575 / 41.265565 = 69.26 %
    assert row["bound"] == "memory"
    assert row["roof"] == "MEM (stream_mem_avx_fma, likwid-bench)"
    assert row["roof_percent"] == pytest.approx(100 * 28.5809575 / MILAN_MEM_GBS, rel=1e-6)
    assert not row["roof_empirical"]
    assert row["limiting_factor"] == "MEM access below its roof"
    assert row["advice"][0].startswith("memory bound at 69 % of the MEM (stream_mem_avx_fma, "
                                       "likwid-bench) roof (41.27 GB/s): the bandwidth is not "
                                       "used up")


def test_at_the_roof_only_less_traffic_helps():
    # a one-core MEM roof of 30 GB/s: 28.5809575 / 30 = 95.27 % >= 80 %
    roofs = [ComputeRoof("one core", 53.6, precision="DP"), BandwidthRoof("MEM", 30.0, level="MEM")]
    row = _row(guidance(PMGPU, roofs), "<function_d>")
    assert 100 * 28.5809575 / 30 >= NEAR_ROOF_PERCENT
    assert row["advice"][0] == ("at 95 % of the MEM roof (30 GB/s): only less traffic helps "
                                "(blocking, fusion, smaller types)")
    assert row["limiting_factor"] == "MEM bandwidth"


def test_empirical_roofs_carry_no_roof_advice(give_8t):
    assert give_8t["roof_empirical"].all()
    assert not any(t.startswith(("at ", "memory bound", "compute bound"))
                   for advice in give_8t["advice"] for t in advice)


# ------------------------------------------------------------------ imbalance (sample 23)
def test_imbalanced_mpi_run():
    found = _quiet(guidance, SOMA)
    row = _row(found, "(whole run)", rank_group="f0703 (ranks 72-143)")
    # the Runtime (RDTSC) [s] row (line 603) of ranks 72-143: fastest 934.8525 (ranks 116 and
    # 141), slowest 965.5027 (rank 125, f0703:125:53; also the STAT Max of all 216 ranks);
    # 965.5027 / 934.8525 - 1 = 3.28 % >= 3 %; mean over the 72 ranks 949.74301:
    # load balance 949.74301 / 965.5027 = 98.4 %
    table = read_likwid(SOMA).table
    host = table[(table["rank"] >= 72) & (table["rank"] <= 143)]["runtime_s"]
    assert (host.min(), host.max()) == (934.8525, 965.5027)
    assert host.mean() == pytest.approx(949.74301, abs=1e-5)
    assert 965.5027 / 934.8525 - 1 >= IMBALANCE_SPREAD
    assert ("72 threads run 934.9–965.5 s (3.3 % imbalance, slowest f0703:125:53): load balance "
            "98 %: share the work more evenly") in row["advice"]
    used = {m.name: m.value for m in row["guidance_metrics"]}
    assert (used["fastest thread"], used["slowest thread"]) == (934.8525, 965.5027)


def test_balanced_threads_say_nothing(give_8t):
    # Setup's 8 threads run 0.262876-0.263811 s: 0.36 % apart
    assert not any("imbalance" in t for advice in give_8t["advice"] for t in advice)


# ------------------------------------------------------------------ broken counters
def test_points_beyond_hardware_get_no_advice():
    found = _quiet(guidance, LULESH_SIZES)
    broken = found[found["limiting_factor"] == "counter broken"]
    # the five region blocks of test_beyond_hardware.py, read from a wrapped 48-bit counter
    assert list(zip(broken["region"], broken["run"])) == [
        ("CalcPressureForElems", 1), ("CalcEnergyForElems:KERNEL_5", 2),
        ("CalcCourantConstraintForElems", 2), ("CalcEnergyForElems:KERNEL_5", 3),
        ("CalcEnergyForElems:KERNEL_1", 6)]
    assert all(advice == ("counter broken: no advice",) for advice in broken["advice"])
    assert set(broken["guidance"]) == {"counter broken: no advice"}
    others = found[found["limiting_factor"] != "counter broken"]
    assert len(others) == 149
    assert "counter broken: no advice" not in set(others["guidance"])


def test_sample_23s_broken_host_gets_no_advice():
    # rank 61's FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE reads 140,744,340,728,674: 2^47 + 6.9e9
    row = _row(_quiet(guidance, SOMA), "(whole run)", rank_group="f0702 (ranks 0-71)")
    assert row["advice"] == ("counter broken: no advice",)


# ------------------------------------------------------------------ cache reuse (rendered)
def test_l3_traffic_against_memory_traffic():
    # rendered, not measured (roofline_widget/data/rendered/SOURCES.md): stencil<3d> moves
    # 22.4 GB/s through the L3 and 4.608 GB/s from memory: 4.86x >= 2
    roofs = [ComputeRoof("CLX core", 100.0, precision="DP"), BandwidthRoof("MEM", 12.0, level="MEM")]
    found = guidance([RENDERED], roofs)
    stencil = _row(found, "stencil<3d>")
    assert 22.4 / 4.608 >= REUSE_HIGH
    assert ("L3 traffic 4.9x the MEM traffic: reuse is there but the working set spills (block "
            "for the L3)") in stencil["advice"]
    # triad: 21.12 / 11.52 = 1.83, between the thresholds: nothing said
    assert not any("L3 traffic" in text for text in _row(found, "triad")["advice"])


# ------------------------------------------------------------------ the rules, the columns
def test_every_rule_is_documented_with_threshold_and_source():
    page = (DATA.parent.parent / "docs" / "guidance.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert rule.threshold
        assert rule.source
        assert rule.needs
        assert f"`{rule.name}`" in page, rule.name
        assert rule.check.__doc__
    for value in (f"{NEAR_ROOF_PERCENT:g} %", f"{100 * SCALAR_SHARE:g} %",
                  f"{100 * CLOCK_FRACTION:g} %", f"{100 * IMBALANCE_SPREAD:g} %",
                  f"{REUSE_HIGH:g}x", f"{REUSE_LOW:g}x", f"{1e3 * IMBALANCE_MIN_RUNTIME_S:g} ms"):
        assert value in page, value


def test_no_advice_contains_the_separator(give_8t, milan):
    advice = [*give_8t["advice"], *guidance(PMGPU, milan)["advice"], *_quiet(guidance, SOMA)["advice"]]
    assert all(ADVICE_SEPARATOR not in text for sentences in advice for text in sentences)


def test_columns_and_points_dataframe_guidance(milan):
    found = guidance(PMGPU, milan)
    assert list(found.columns) == ["file", "region", "rank", "run", "device", "rank_group",
                                   *GUIDANCE_COLUMNS]
    points = _quiet(points_dataframe, PMGPU, guidance=milan)
    assert list(points.columns[-3:]) == list(ADDED_COLUMNS)
    assert points["guidance"].tolist() == found["guidance"].tolist()
    plain = points_dataframe(PMGPU)
    assert list(plain.columns) == list(points.columns[:-3])
    # True: empirical roofs, no advice on them
    assert set(points_dataframe(PMGPU, guidance=True)["limiting_factor"]) == {""}


def test_number_text():
    assert [number_text(v) for v in (2703.4415, 41.265565, 0.05655, math.nan)] == [
        "2,703", "41.27", "0.05655", "n/a"]


# ------------------------------------------------------------------ widget
@pytest.fixture
def widget(milan):
    # sample 22's ceilings are of an EPYC 7763, sample 5 ran on a 7702: the widget warns
    return _quiet(RooflineWidget, PMGPU, ceilings=milan)


def test_widget_frames_carry_the_guidance(widget):
    frame = widget.to_dataframe()
    assert list(frame.columns[-3:]) == list(ADDED_COLUMNS)
    row = _row(frame, "<function_d>")
    assert row["limiting_factor"] == "MEM access below its roof"
    assert "69 % of the MEM" in row["guidance"]
    # a peak drag changes the advice on the roof, not the facts: 30 GB/s makes it 95 %
    widget.peak_bandwidth = 30.0
    assert _row(widget.to_dataframe(), "<function_d>")["guidance"].startswith(
        "at 95 % of the Peak bandwidth roof (30 GB/s)")


def test_detail_card_is_readable_and_escaped(widget):
    frame = widget.to_dataframe()
    row = _row(frame, "<function_d>")
    widget.selected = [(row["file"], int(row["rank"]), row["region"])]
    panel = widget.controls.detail_html.value
    card = panel.split("<details")[0]
    assert "&lt;function_d&gt;" in card
    assert "<function_d>" not in panel
    for text in ("rank 0 · 1 thread", "<b>1.616</b> GFLOP/s", "<b>28.58</b> GB/s",
                 "<b>0.05655</b> FLOP/byte",
                 "memory bound: 69 % of the MEM (stream_mem_avx_fma, likwid-bench) roof",
                 "<b>Limiting factor</b> MEM access below its roof", "41.27 GB/s", "69.26 %"):
        assert text in card, text
    assert "performance_gflops" not in card  # readable labels; the record is below, collapsed
    assert details_html(widget.selection_dataframe()) == panel


def test_tooltip_last_line_is_the_guidance(widget):
    index = list(widget.figure.scene.point_rows["region"]).index("<function_d>")
    widget.figure.scatter._handle_custom_msgs(widget.figure.scatter,
                                              {"event": "hover", "data": {"index": index}})
    tooltip = widget.figure.tooltip.value
    last = tooltip.rsplit("<tr", 1)[1]
    assert "roofline-tooltip-guidance" in last
    assert "MEM access below its roof: memory bound at 69 %" in last
    assert last.endswith("…</td></tr></table>")  # cut to TOOLTIP_ADVICE_CHARS


# ------------------------------------------------------------------ command line
def test_explain_command(capsys, milan):
    code = main(["explain", PMGPU, "--ceilings", *MILAN_LOGS, "--region", "<function_d>"])
    out = capsys.readouterr().out
    assert code == 0
    assert "<function_d> (rank 0, 1 thread): 1.616 GFLOP/s, 28.58 GB/s, 0.05655 FLOP/byte" in out
    assert "bound: memory, 69 % of the MEM (stream_mem_avx_fma, likwid-bench) roof" in out
    assert "limiting factor: MEM access below its roof" in out
    assert "<function_a>" not in out
    code = main(["explain", GIVE_8T, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    setup = data["guidance"][0]
    assert (setup["region"], setup["limiting_factor"]) == ("Setup", "scalar code")
    assert {"name": "Scalar", "value": 2703.4415, "unit": "MUOPS/s"} in setup["guidance_metrics"]
    assert main(["explain", GIVE_8T, "--region", "nope"]) == 2
    assert "no point of region 'nope'; regions placed: Setup, Solve" in capsys.readouterr().err


def test_check_prints_the_guidance_without_changing_its_exit_code(capsys):
    assert main(["check", GIVE_8T]) == 0
    out = capsys.readouterr().out
    assert "guidance (2 point(s); advice, not findings):" in out
    assert "    - 99.9 % scalar (2,703 of 2,704 MUOPS/s)" in out
