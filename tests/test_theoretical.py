"""The table of cores and the theoretical roofs of the samples' CPUs, worked out by hand.

FLOP per cycle of one core = 2 x FMA instructions per cycle x lanes (FMA), or add/multiply
instructions per cycle x lanes (without FMA); lanes = width / 64 (DP) or / 32 (SP).  The
roof = FLOP per cycle x clock x cores.  The samples' CPU headers (SOURCES.md):

* sample 17 (GMGPolar, 1/2/8 threads): Xeon Gold 6132 @ 2.60GHz, "Intel Skylake SP
  processor", LIKWID printed 2.59 GHz.  A Gold 6xxx has 2 AVX-512 FMA units: 2 x 2 x 8 =
  32 DP FLOP/cycle, at the 2.6 GHz base clock 83.2 GFLOP/s a core, 665.6 on 8 cores.
* sample 6 (LIKWID.jl): EPYC 7763, "AMD K19 (Zen3) architecture", 2.45 GHz: two 256-bit
  FMA pipes, 2 x 2 x 4 = 16 DP FLOP/cycle, 39.2 GFLOP/s a core.
* sample 20 (bench in perfctr): EPYC 7451, "AMD K17 (Zen) architecture", 24 threads,
  2.30 GHz: 128-bit pipes, one 256-bit FMA a cycle, 2 x 1 x 4 = 8 DP FLOP/cycle:
  8 x 2.3 x 24 = 441.6 GFLOP/s.
* sample 9: Core i5-7500 @ 3.40GHz, "Intel Coffeelake processor": 2 x 2 x 4 = 16, 54.4 GFLOP/s.
* sample 19 (LULESH): Xeon Platinum 8360Y @ 2.40GHz, "Intel Icelake SP processor": 32 DP
  FLOP/cycle, 76.8 GFLOP/s a core.
* sample 23 (likwid-mpirun, 216 ranks) prints no CPU header: no theoretical roof unless the
  CPU is given; with "Intel Icelake SP processor" at 2.4 GHz, 216 x 76.8 = 16,588.8 GFLOP/s.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
from likwid_render import HLINE, perfctr_header, perfctr_region
from wild_samples import BENCH_REPS, LULESH_SIZES, WRAPPED_RANK

from roofline_widget import (
    MachineError,
    Roofline,
    RooflineError,
    RooflineWidget,
    plot_roofline,
    read_likwid,
    sample_path,
    theoretical_roofline,
)
from roofline_widget.cpu_cores import (
    CORE_TABLE,
    base_clock_ghz,
    core_table,
    find_core,
    printed_clock_ghz,
    widest_flops_per_cycle,
)

GOLD_6132_1T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact1t_1537x2048_give.txt")
GOLD_6132_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")
ZEN3 = sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")
COFFEELAKE = sample_path("ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv")
SAMPLE_23 = WRAPPED_RANK


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------- the table
@pytest.mark.parametrize(("cpu_type", "cpu_name", "dp_fma", "dp_no_fma", "sp_fma", "isa"), [
    # Haswell: 2 FMA units (ports 0, 1), 256 bits: 2 x 2 x 4 = 16; add+mul 2 x 4 = 8
    ("Intel Core Haswell processor", None, 16, 8, 32, "AVX2"),
    ("Intel Xeon Broadwell EN/EP/EX processor", None, 16, 8, 32, "AVX2"),
    ("Intel Coffeelake processor", None, 16, 8, 32, "AVX2"),
    # Skylake SP Gold 6132 / Platinum: 2 units x 2 x 8 = 32; Gold 5118: 1 unit, 16
    ("Intel Skylake SP processor", "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz", 32, 16, 64,
     "AVX-512"),
    ("Intel Skylake SP processor", "Intel(R) Xeon(R) Gold 5118 CPU @ 2.30GHz", 16, 8, 32,
     "AVX-512"),
    ("Intel Skylake SP processor", "Intel(R) Xeon(R) Gold 5122 CPU @ 3.60GHz", 32, 16, 64,
     "AVX-512"),
    ("Intel Cascadelake SP processor", "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", 32, 16, 64,
     "AVX-512"),
    ("Intel Cascadelake SP processor", "Intel(R) Xeon(R) Silver 4216 CPU @ 2.10GHz", 16, 8, 32,
     "AVX-512"),
    ("Intel Icelake processor", None, 16, 8, 32, "AVX-512"),      # one 512-bit unit
    ("Intel Icelake SP processor", None, 32, 16, 64, "AVX-512"),
    ("Intel SapphireRapids processor", None, 32, 16, 64, "AVX-512"),
    # Zen: 128-bit pipes, a 256-bit FMA a cycle (2 x 1 x 4 = 8), add+mul 4 pipes x 2 lanes = 8
    ("AMD K17 (Zen) architecture", None, 8, 8, 16, "AVX2"),
    ("AMD K17 (Zen2) architecture", None, 16, 16, 32, "AVX2"),
    ("AMD K19 (Zen3) architecture", None, 16, 16, 32, "AVX2"),
    ("AMD K19 (Zen4) architecture", None, 16, 16, 32, "AVX-512"),  # two 256-bit halves
    ("Fujitsu A64FX", None, 32, 16, 64, "SVE"),                      # FLA + FLB, 512 bits
    ("ARM Neoverse N1", None, 8, 4, 16, "NEON"),
    ("ARM Neoverse V1", None, 16, 8, 32, "SVE"),                     # 2 x 256-bit SVE
    ("Nvidia Grace", None, 16, 8, 32, "SVE"),                        # 4 x 128-bit
    ("Cavium Thunder X2 (ARMv8)", None, 8, 4, 16, "NEON"),
    ("POWER9 architecture", None, 8, 4, 16, "VSX"),
    ("POWER10 architecture", None, 16, 8, 32, "VSX"),
])
def test_flop_per_cycle_of_every_row(cpu_type, cpu_name, dp_fma, dp_no_fma, sp_fma, isa):
    core = find_core(cpu_type, cpu_name)
    assert core.widest.isa == isa
    assert core.flops_per_cycle("DP") == dp_fma
    assert core.flops_per_cycle("DP", fma=False) == dp_no_fma
    assert core.flops_per_cycle("SP") == sp_fma
    assert core.row.source  # every row names where its numbers come from


def test_every_row_names_a_vendor_source_and_likwid_types():
    for row in CORE_TABLE:
        assert row.cpu_types
        assert row.widths[0].isa == "scalar"
        assert any(word in row.source for word in ("Manual", "Guide", "brief", "datasheet",
                                                   "Journal", "ARK"))
    # LIKWID's own type strings (src/topology.c) are what the lookup keys on
    assert find_core("  intel  skylake SP processor ").row.name == "Intel Skylake SP"


def test_a_part_the_rules_do_not_know_is_said_not_guessed():
    # a Xeon W-2123 is an "Intel Skylake SP processor" with 1 or 2 AVX-512 FMA units
    core = find_core("Intel Skylake SP processor", "Intel(R) Xeon(R) W-2123 CPU @ 3.60GHz")
    assert core.width("AVX-512") is None
    assert core.widest.isa == "AVX2"
    assert core.unknown == ("AVX-512 (512-bit): the FMA units of Intel(R) Xeon(R) W-2123 CPU "
                            "@ 3.60GHz are not in the table (1 or 2 on Intel Skylake SP parts)")
    # the plausibility bound takes the larger choice: SP, 2 units x 2 x 16 lanes
    assert core.max_flops_per_cycle() == 64
    # an unknown type is None, and the widest core of the table is 128 FLOP/cycle
    # (HP on two 512-bit FMA units: 2 x 2 x 32)
    assert find_core("Intel Pentium M Banias processor") is None
    assert find_core(None) is None
    assert widest_flops_per_cycle() == 128


def test_clocks_from_name_and_header():
    assert base_clock_ghz("Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz") == 2.6
    assert base_clock_ghz("AMD EPYC 7763 64-Core Processor") is None
    assert printed_clock_ghz("2.59 GHz") == 2.59
    assert printed_clock_ghz("2.394300087 GHz") == 2.394300087
    assert printed_clock_ghz("2700.118 MHz") == pytest.approx(2.700118)
    assert printed_clock_ghz("fast") is None


def test_core_table_frame_lists_both_part_rules():
    frame = core_table()
    skx = frame[frame["microarchitecture"] == "Intel Skylake SP"]
    avx512 = skx[skx["width"].str.startswith("AVX-512")]
    assert sorted(avx512["flops_per_cycle_fma"]) == [16, 32, 32]


# ---------------------------------------------------------------- theoretical roofs
def test_sample_17_gold_6132_two_fma_units_at_the_base_clock():
    roofs = _quiet(theoretical_roofline, GOLD_6132_1T)
    assert [r.gflops for r in roofs] == pytest.approx([5.2, 41.6, 83.2])  # 2 / 16 / 32 x 2.6
    assert roofs.simd_fma.label == ("Theoretical DP AVX-512 FMA (1 core at 2.6 GHz): 83.2 GFLOP/s "
                                    "(theoretical)")
    assert all(r.theoretical and r.device == "cpu" and r.precision == "DP" for r in roofs)
    provenance = roofs.simd_fma.provenance
    assert provenance["part_rule"] == "Xeon Platinum 8xxx / 9xxx, Gold 6xxx: 2 AVX-512 FMA units"
    assert provenance["flops_per_cycle_per_core"] == 32
    assert provenance["formula"] == "32 FLOP/cycle x 2.6 GHz x 1 cores"
    assert "Optimization Reference Manual" in provenance["table_source"]
    # the printed clock is the base clock: said so, turbo can exceed it
    assert roofs.clock_note == ("2.6 GHz, the base clock the CPU name states (LIKWID printed "
                                "2.59 GHz, its measurement of it); turbo can exceed it")
    eight = _quiet(theoretical_roofline, GOLD_6132_8T)
    assert eight.cores == 8
    assert eight.simd_fma.gflops == pytest.approx(665.6)
    sp = _quiet(theoretical_roofline, GOLD_6132_1T, precision="SP")
    assert sp.simd_fma.gflops == pytest.approx(166.4)   # 64 x 2.6


@pytest.mark.parametrize(("path", "per_core", "cores", "clock"), [
    (ZEN3, 39.2, 1, 2.45),             # 16 x 2.45
    (COFFEELAKE, 54.4, 1, 3.4),        # 16 x 3.4
    (LULESH_SIZES, 76.8, 1, 2.4),      # 32 x 2.4
    (BENCH_REPS, 18.4, 24, 2.3),       # Zen: 8 x 2.3, 24 threads: 441.6
])
def test_theoretical_roofs_of_the_samples_cpus(path, per_core, cores, clock):
    roofs = _quiet(theoretical_roofline, path)
    assert (roofs.cores, roofs.clock_ghz) == (cores, pytest.approx(clock))
    assert roofs.per_core_gflops == pytest.approx(per_core)
    assert roofs.simd_fma.gflops == pytest.approx(per_core * cores)


def test_zen3_clock_is_the_printed_one_and_a_measurement_may_exceed_it():
    roofs = _quiet(theoretical_roofline, ZEN3)
    assert roofs.clock_note.startswith("2.45 GHz, the clock LIKWID printed")
    assert roofs.clock_note.endswith("turbo can exceed it")
    # sample 22's peakflops_avx_fma measured 820 GFLOP/s on 16 cores: above 16 x 39.2 = 627.2
    sixteen = _quiet(theoretical_roofline, ZEN3, cores=16)
    assert sixteen.simd_fma.gflops == pytest.approx(627.2)
    assert 820.0 > sixteen.simd_fma.gflops


def test_sample_23_names_no_cpu_and_nothing_is_guessed():
    with pytest.raises(MachineError, match="names no CPU type") as caught:
        _quiet(theoretical_roofline, SAMPLE_23)
    assert isinstance(caught.value, RooflineError)
    roofs = _quiet(theoretical_roofline, SAMPLE_23, cpu_type="Intel Icelake SP processor",
                   clock_ghz=2.4)
    # the CPU name given states the clock: 2.4 GHz, a host's 72 cores: 72 x 76.8 = 5,529.6
    host = _quiet(theoretical_roofline, SAMPLE_23, cpu_type="Intel Icelake SP processor",
                  cpu_name="Intel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz", cores=72)
    assert host.simd_fma.gflops == pytest.approx(5529.6)
    assert host.clock_note.startswith("2.4 GHz, the base clock the CPU name states")
    assert roofs.cores == 216
    assert roofs.simd_fma.gflops == pytest.approx(16588.8)


def test_an_unknown_type_and_a_missing_clock_are_errors_that_say_what_to_give(tmp_path):
    log = tmp_path / "m1.txt"
    log.write_text(perfctr_header(cpu_type="Apple M1", cpu_name="Apple M1")
                   + perfctr_region("r", 1, "FLOPS_DP", [0], 1.0, {"DP [MFLOP/s]": [1.0]}))
    with pytest.raises(MachineError, match="'Apple M1' is not in the table of cores"):
        _quiet(theoretical_roofline, log)
    # an AMD name states no clock; without the header's CPU clock line there is none
    text = "\n".join([HLINE, "CPU name:\tAMD EPYC 7763 64-Core Processor",
                      "CPU type:\tAMD K19 (Zen3) architecture", HLINE, ""])
    nock = tmp_path / "noclock.txt"
    nock.write_text(text + perfctr_region("r", 1, "FLOPS_DP", [0], 1.0, {"DP [MFLOP/s]": [1.0]}))
    with pytest.raises(MachineError, match="give clock_ghz="):
        _quiet(theoretical_roofline, nock)
    assert _quiet(theoretical_roofline, nock, clock_ghz=3.5).simd_fma.gflops == 56.0
    with pytest.raises(ValueError, match="precision"):
        theoretical_roofline(GOLD_6132_1T, precision="QP")
    with pytest.raises(MachineError, match="different CPUs"):
        _quiet(theoretical_roofline, [GOLD_6132_1T, ZEN3])


_SMT_TOPOLOGY = "\n".join([
    HLINE, "CPU name:\tIntel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz",
    "CPU type:\tIntel Icelake SP processor", "CPU stepping:\t6", "*" * 80,
    "Hardware Thread Topology", "*" * 80, "Sockets:\t\t1", "Cores per socket:\t2",
    "Threads per core:\t2", HLINE,
    "HWThread        Thread        Core        Die        Socket        Available",
    "0               0             0           0          0             *",
    "1               0             1           0          0             *",
    "2               1             0           0          0             *",
    "3               1             1           0          0             *",
    HLINE, "Socket 0:\t\t( 0 2 1 3 )", HLINE, "*" * 80, "Cache Topology", "*" * 80,
    "Level:\t\t\t1", "Size:\t\t\t48 kB", "Cache groups:\t\t( 0 2 ) ( 1 3 )", HLINE, ""])


def test_a_topology_gives_the_machine_and_smt_threads_share_their_core(tmp_path):
    topology = tmp_path / "topology.txt"
    topology.write_text(_SMT_TOPOLOGY)
    roofs = theoretical_roofline(topology)   # the whole machine: 1 socket x 2 cores
    assert roofs.cores == 2
    assert roofs.simd_fma.gflops == pytest.approx(153.6)
    # a run on hardware threads 0 and 2 (the two threads of core 0): one core, not two
    log = tmp_path / "job.txt"
    header = "\n".join([HLINE, "CPU name:\tIntel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz",
                        "CPU type:\tIntel Icelake SP processor", "CPU clock:\t2.39 GHz",
                        HLINE, ""])
    log.write_text(_SMT_TOPOLOGY + "\n" + header + perfctr_region(
        "r", 1, "FLOPS_DP", [0, 2], 1.0, {"DP [MFLOP/s]": [1.0, 1.0]}))
    run = _quiet(read_likwid, log)
    roofs = theoretical_roofline(run)
    assert roofs.cores == 1
    assert roofs.simd_fma.gflops == pytest.approx(76.8)
    assert roofs.cores_note == "2 hardware thread(s) on 1 core(s) (likwid-topology's thread table)"


def test_theoretical_roofs_are_ceilings():
    roofs = _quiet(theoretical_roofline, GOLD_6132_8T)
    from roofline_widget import BandwidthRoof

    roofline = Roofline(list(roofs), [BandwidthRoof("MEM", 100.0, level="MEM")])
    assert roofline.main_compute is roofs.simd_fma
    assert roofline.ridge_point() == pytest.approx(6.656)  # 665.6 / 100


# ---------------------------------------------------------------- drawn as a ceiling
CLOCK_NOTE = ("Theoretical DP AVX-512 FMA (8 cores at 2.6 GHz): theoretical peak at 2.6 GHz, the "
              "base clock the CPU name states (LIKWID printed 2.59 GHz, its measurement of it); "
              "turbo can exceed it")


def test_plot_roofline_draws_the_theoretical_roof_dashed_with_its_clock(tmp_path):
    payload = _quiet(plot_roofline, GOLD_6132_8T, filepath=tmp_path / "t.png", verbose=False,
                     theoretical=True)
    compute = [c for c in payload["ceilings"] if c["kind"] == "compute"]
    assert [(c["value"], c["source"]) for c in compute] == [(pytest.approx(665.6), "theoretical")]
    assert CLOCK_NOTE in payload["ceiling_notes"]
    axes = payload["figure"].axes[0]
    roof = [line for line in axes.lines if str(line.get_label()).endswith("FLOP/byte)")]
    assert [line.get_linestyle() for line in roof] == ["--"]
    # under the axes, wrapped to their width
    assert any(CLOCK_NOTE in " ".join(text.get_text().split()) for text in axes.texts)
    # the default draws the empirical peak, as before
    default = _quiet(plot_roofline, GOLD_6132_8T, verbose=False)
    assert [c["source"] for c in default["ceilings"]] == ["empirical", "empirical"]


def test_an_unknown_cpu_keeps_the_empirical_peak_and_says_why(tmp_path):
    payload = _quiet(plot_roofline, SAMPLE_23, verbose=False, theoretical=True)
    assert payload["ceilings"][0]["source"] == "empirical"
    assert any(note.startswith("no theoretical roof: pmbs_soma_icx8360y_216ranks_MEM_DP_one_"
                               "wrapped_counter: the run names no CPU type")
               for note in payload["ceiling_notes"])


def test_a_measured_compute_roof_wins_over_the_theoretical_one():
    from wild_samples import MILAN_LOGS

    from roofline_widget import machine_roofline

    measured = _quiet(machine_roofline, MILAN_LOGS)
    zen2 = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
    payload = _quiet(plot_roofline, zen2, verbose=False, theoretical=True, ceilings=measured)
    assert "theoretical" not in [c["source"] for c in payload["ceilings"]]


def test_the_widget_takes_the_theoretical_roof_and_says_its_clock():
    widget = _quiet(RooflineWidget, GOLD_6132_8T, theoretical=True)
    assert widget.roofline.main_compute.theoretical
    assert widget.roofline.main_compute.gflops == pytest.approx(665.6)
    assert CLOCK_NOTE in widget.controls.status_html.value
    assert not _quiet(RooflineWidget, GOLD_6132_8T).roofline.main_compute.theoretical


def test_the_command_line_takes_theoretical(tmp_path):
    command = [sys.executable, "-m", "roofline_widget", "plot", GOLD_6132_8T, "-o",
               str(tmp_path / "t.svg"), "--theoretical"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert ("compute   Theoretical DP AVX-512 FMA (8 cores at 2.6 GHz): 665.6 GFLOP/s "
            "(theoretical)") in done.stdout
    assert CLOCK_NOTE in done.stdout
    assert "turbo can exceed it" in (tmp_path / "t.svg").read_text()
