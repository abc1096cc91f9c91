"""Tests of the likwid-perfctr / likwid-mpirun text reader (roofline_widget.io.likwid_text).

Expected numbers come from the sample files (the arithmetic is written next to
them) and from LIKWID's own STAT ``Sum`` column.  Synthetic texts are rendered
by ``benchmarks/generate.py``, which follows LIKWID's printing code.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline_widget import sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io import read_likwid, read_likwid_text
from roofline_widget.io.likwid_text import parse_text
from roofline_widget.io.parsed import run_from
from roofline_widget.model import WHOLE_RUN_REGION

_spec = importlib.util.spec_from_file_location(
    "likwid_generate", Path(__file__).resolve().parents[1] / "benchmarks" / "generate.py")
gen = sys.modules.setdefault("likwid_generate", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(gen)

FLOPS_DP = "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt"
MEM_DP = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
JULIA = "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"
MPIRUN = "mpirun_clx_sonata_48ranks_CACHES_marker.txt"
WRAPPER = "bench_in_perfctr_zen2_epyc7702_MEM_dash_values_wrapper.txt"
PYLIKWID = "pylikwid_readme_haswell_i7-4770_lw40_L3_marker_python.txt"
TEXT_SAMPLES = [FLOPS_DP, MEM_DP, PMGPU, JULIA, MPIRUN, WRAPPER, PYLIKWID]


def parse_sample(name):
    return parse_text(Path(sample_path(name)).read_text(), name)


def region_sum(run, region, metric, group=None):
    rows = run.table[run.table["region"] == region]
    if group is not None:
        rows = rows[rows["group"] == group]
    return float(rows[metric].sum(min_count=1))


def stat_sum(run, region, name, kind="metric", group=None):
    stats = run.stats[(run.stats["region"] == region) & (run.stats["name"] == name)
                      & (run.stats["kind"] == kind)]
    if group is not None:
        stats = stats[stats["group"] == group]
    assert len(stats) == 1, (region, name)
    return float(stats["Sum"].iloc[0])


# --------------------------------------------------------------- real samples
@pytest.mark.parametrize(("name", "regions", "ranks", "threads", "groups", "version", "layout"), [
    (FLOPS_DP, ["Setup", "Solve"], [0], 8, ["FLOPS_DP"], "4.1 - 5.0.x", "perfctr-text"),
    (MEM_DP, ["Setup", "Solve"], [0], 8, ["MEM_DP"], "4.1 - 5.0.x", "perfctr-text"),
    (PMGPU, ["<init_datastructures>", "<function_d>", "<function_b>", "<function_a>",
             "<function_c>"], [0], 10, ["MEM_DP", "FLOPS_DP"], ">= 5.1", "perfctr-text"),
    (JULIA, ["saxpy"], [0], 1, ["FLOPS_DP"], ">= 5.1", "perfctr-text"),
    (MPIRUN, ["wr-only"], list(range(48)), 48, ["Group 1"], ">= 4.3 (likwid-mpirun)",
     "mpirun-text"),
    (WRAPPER, [WHOLE_RUN_REGION], [0], 1, ["MEM"], "4.0 - 5.0.x", "perfctr-text"),
    (PYLIKWID, ["listappend"], [0], 1, ["L3"], "4.0.x", "perfctr-text"),
])
def test_sample_shape(name, regions, ranks, threads, groups, version, layout):
    run = read_likwid(sample_path(name))
    assert run.regions == regions
    assert run.ranks == ranks
    assert len(run.table) == threads
    assert run.groups == groups
    assert run.likwid_version == version
    assert run.layout == layout
    assert run.warnings == []


@pytest.mark.parametrize("name", [FLOPS_DP, MEM_DP, MPIRUN])
def test_every_stat_sum_matches_the_thread_values(name):
    """LIKWID's STAT Sum is the sum of the printed per-thread cells, so every
    STAT row must equal our per-thread sum to the printed precision (%.4f:
    0.5e-4 per cell; %e: 7 digits)."""
    run = read_likwid(sample_path(name))
    assert len(run.stats) > 0
    for stat in run.stats.itertuples():
        rows = run.table[(run.table["region"] == stat.region) & (run.table["group"] == stat.group)]
        if stat.kind == "metric":
            values = rows[stat.name]
        elif stat.name == "Region calls:CTR":
            values = rows["call_count"]
        else:
            values = run.events.loc[rows.index, stat.name]
        assert math.isclose(values.sum(), stat.Sum, rel_tol=1e-6, abs_tol=5e-5 * len(rows)), stat


def test_flops_dp_sums_by_hand():
    run = read_likwid(sample_path(FLOPS_DP))
    # Setup: 534.9908 + 501.0739 + 500.6641 + 500.5403 = 2037.2691 (STAT Sum 2037.2691)
    assert region_sum(run, "Setup", "DP [MFLOP/s]") == pytest.approx(2037.2691, abs=1e-9)
    # Solve: 1192.3398 + 1179.4195 + 1178.7863 + 1187.8919 = 4738.4375
    assert region_sum(run, "Solve", "DP [MFLOP/s]") == pytest.approx(4738.4375, abs=1e-9)
    assert stat_sum(run, "Solve", "DP [MFLOP/s]") == 4738.4375
    setup = run.table[run.table["region"] == "Setup"]
    assert list(setup["thread"]) == ["Core 0", "Core 14", "Core 28", "Core 42"]
    assert list(setup["cpu"]) == [0, 14, 28, 42]
    assert list(setup["call_count"]) == [2, 2, 2, 2]
    assert list(setup["runtime_s"]) == [1.403780, 1.403845, 1.403774, 1.403842]
    # raw events: FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE on PMC3 of Core 0
    assert run.events.loc[setup.index[0], "FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3"] == 1080242
    assert stat_sum(run, "Setup", "INSTR_RETIRED_ANY:FIXC0", kind="event") == 10145755000


def test_mem_dp_sums_by_hand():
    run = read_likwid(sample_path(MEM_DP))
    # Setup: 517.2402 + 478.9738 + 477.1800 + 476.6683 = 1950.0623
    assert region_sum(run, "Setup", "DP [MFLOP/s]") == pytest.approx(1950.0623, abs=1e-9)
    # memory traffic only on Core 0 (socket lock thread): 541.7965 + 0 + 0 + 0
    assert region_sum(run, "Setup", "Memory bandwidth [MBytes/s]") == 541.7965
    # Solve: 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674 = 4383.3768
    assert region_sum(run, "Solve", "DP [MFLOP/s]") == pytest.approx(4383.3768, abs=1e-9)
    assert region_sum(run, "Solve", "Memory bandwidth [MBytes/s]") == 513.2946
    assert stat_sum(run, "Solve", "Memory bandwidth [MBytes/s]") == 513.2946


def test_pmgpu_two_runs_in_one_slurm_log():
    run = read_likwid(sample_path(PMGPU))
    assert len(run.table) == 10  # 5 regions x 2 groups x 1 thread
    assert set(zip(run.table["region"], run.table["group"])) == {
        (r, g) for r in run.regions for g in ("MEM_DP", "FLOPS_DP")}
    assert set(run.table["thread"]) == {"HWThread 64"}
    assert set(run.table["cpu"]) == {64}
    # values read from the file (1 thread, no STAT table): MEM_DP group
    assert region_sum(run, "<init_datastructures>", "DP [MFLOP/s]", "MEM_DP") == 6.864286e-06
    assert region_sum(run, "<function_d>", "Memory bandwidth [MBytes/s]", "MEM_DP") == 28580.9575
    assert region_sum(run, "<function_a>", "DP [MFLOP/s]", "MEM_DP") == 2134.1472
    assert region_sum(run, "<function_c>", "Memory bandwidth [MBytes/s]", "MEM_DP") == 8775.4462
    # FLOPS_DP group: no memory metrics there
    assert region_sum(run, "<function_d>", "DP [MFLOP/s]", "FLOPS_DP") == 1323.2573
    assert math.isnan(region_sum(run, "<function_d>", "Memory bandwidth [MBytes/s]", "FLOPS_DP"))
    runtime = run.table.set_index(["region", "group"])["runtime_s"]
    assert runtime[("<init_datastructures>", "MEM_DP")] == 1.748179
    assert runtime[("<init_datastructures>", "FLOPS_DP")] == 1.747652
    assert run.cpu_name == "AMD EPYC 7702 64-Core Processor"
    assert run.cpu_clock == "2.00 GHz"


def test_julia_sample_strips_trailing_blanks_of_cpu_name():
    parsed = parse_sample(JULIA)
    assert parsed.cpu_name == "AMD EPYC 7763 64-Core Processor"
    assert parsed.cpu_type == "AMD K19 (Zen3) architecture"
    (block,) = parsed.blocks
    assert block.metric_names[4] == "DP [MFLOP/s]"
    assert block.metrics[4, 0] == 1.0774
    assert block.runtime.tolist() == [0.019639]
    assert block.call_count.tolist() == [1]
    assert block.stats == []


def test_mpirun_48_ranks():
    run = read_likwid(sample_path(MPIRUN))
    table = run.table.set_index("thread")
    assert table.loc["sonata:1:25", "rank"] == 1
    assert table.loc["sonata:1:25", "cpu"] == 25
    assert table.loc["sonata:1:25", "host"] == "sonata"
    assert table.loc["sonata:0:0", "cpu"] == 0
    assert list(run.table["rank"]) == list(range(48))
    # header: sonata:0:0 sonata:1:25 sonata:2:2 ... sonata:23:47 sonata:24:48 sonata:25:73 ...
    # i.e. cpu = rank, + 24 for odd ranks, + 24 for ranks >= 24 (sonata:47:95)
    assert list(run.table["cpu"]) == [r + 24 * (r % 2) + 24 * (r >= 24) for r in range(48)]
    # "Region calls | CTR" is the call count (STAT Sum 48 = 48 x 1), not an event
    assert list(run.table["call_count"]) == [1] * 48
    assert "Region calls:CTR" not in run.events.columns
    assert stat_sum(run, "wr-only", "Region calls:CTR", kind="event") == 48
    # 27.2278 (rank 0) + 27.2282 (the other socket's lock rank) = 54.4560 = STAT Sum
    assert region_sum(run, "wr-only", "Memory bandwidth [MBytes/s]") == pytest.approx(54.4560)
    assert stat_sum(run, "wr-only", "Memory bandwidth [MBytes/s]") == 54.4560
    assert stat_sum(run, "wr-only", "L2 to L1 load bandwidth [MBytes/s]") == 852.2424
    # runtime from the Runtime (RDTSC) [s] metric (no Region Info in mpirun output)
    assert run.table["runtime_s"].iloc[0] == 28.0537
    # percentile columns are not kept
    assert list(run.stats.columns[-4:]) == ["Sum", "Min", "Max", "Avg"]


def test_wrapper_mode_dash_is_nan_while_metrics_are_zero():
    run = read_likwid(sample_path(WRAPPER))
    assert run.regions == [WHOLE_RUN_REGION]
    row = run.events.iloc[0]
    assert math.isnan(row["DATA_FROM_LOCAL_DRAM_CHANNEL:DFC0"])
    assert math.isnan(row["DATA_TO_LOCAL_DRAM_CHANNEL:DFC1"])
    assert row["ACTUAL_CPU_CLOCK:FIXC1"] == 44818934960
    assert run.table["Memory bandwidth [MBytes/s]"].iloc[0] == 0
    assert run.table["Memory data volume [GBytes]"].iloc[0] == 0
    assert run.table["thread"].iloc[0] == "Core 2"
    assert run.table["runtime_s"].iloc[0] == 15.5693  # from Runtime (RDTSC) [s]
    assert math.isnan(run.table["call_count"].iloc[0])


def test_pylikwid_lw40_layout():
    run = read_likwid(sample_path(PYLIKWID))
    row = run.table.iloc[0]
    assert (row["region"], row["group_index"], row["group"]) == ("listappend", 1, "L3")
    assert row["runtime_s"] == 0.091028
    assert row["call_count"] == 1
    assert row["L3 bandwidth [MBytes/s]"] == 1502.832  # printed 1.502832e+03
    assert row["L3 load data volume [GBytes]"] == 0.078023552
    assert run.events["INSTR_RETIRED_ANY:FIXC0"].iloc[0] == 926208300.0  # 9.262083e+08
    assert run.cpu_name == "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz"


# ---------------------------------------------------------- synthetic layouts
LW3 = """\
-------------------------------------------------------------
CPU type:\tIntel Core Westmere processor 
CPU clock:\t2.93 GHz 
-------------------------------------------------------------
Measuring group FLOPS_DP
-------------------------------------------------------------
some application output

=====================
Region: Main loop 
=====================
+-------------------+----------+----------+
|    Region Info    |  core 0  |  core 1  |
+-------------------+----------+----------+
| RDTSC Runtime [s] | 0.001236 | 0.001301 |
|     call count    |    10    |    10    |
+-------------------+----------+----------+
+--------------------------------------+-------------+-------------+
|                 Event                |    core 0   |    core 1   |
+--------------------------------------+-------------+-------------+
|           INSTR_RETIRED_ANY          | 4.70038e+06 | 4.69951e+06 |
|         CPU_CLK_UNHALTED_CORE        | 3.60163e+06 | 3.61002e+06 |
| FP_COMP_OPS_EXE_SSE_FP_PACKED_DOUBLE |    2e+06    |    2e+06    |
+--------------------------------------+-------------+-------------+
+-------------+----------+----------+
|    Metric   |  core 0  |  core 1  |
+-------------+----------+----------+
| Runtime [s] | 0.001236 | 0.001301 |
| DP MFlops/s |  3236.25 |  3074.56 |
|     CPI     |  0.76624 |  0.76818 |
+-------------+----------+----------+
+------------------+----------+----------+----------+-----------+
|      Metric      |    Sum   |    Max   |    Min   |    Avg    |
+------------------+----------+----------+----------+-----------+
| Runtime [s] STAT | 0.002537 | 0.001301 | 0.001236 | 0.0012685 |
| DP MFlops/s STAT |  6310.81 |  3236.25 |  3074.56 |   3155.4  |
|     CPI STAT     |  1.53442 |  0.76818 |  0.76624 |  0.76721  |
+------------------+----------+----------+----------+-----------+
"""


def test_likwid3_marker_layout():
    parsed = parse_text(LW3, "lw3.txt")
    assert parsed.likwid_version == "3.x"
    assert parsed.cpu_type == "Intel Core Westmere processor"
    assert parsed.cpu_clock == "2.93 GHz"
    assert parsed.cpu_name is None
    (block,) = parsed.blocks
    assert (block.region, block.group_index, block.group) == ("Main loop", 1, "FLOPS_DP")
    assert [t.label for t in block.threads] == ["core 0", "core 1"]
    assert [t.cpu for t in block.threads] == [0, 1]
    assert block.event_names == ["INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE",
                                 "FP_COMP_OPS_EXE_SSE_FP_PACKED_DOUBLE"]
    assert block.events[0].tolist() == [4.70038e+06, 4.69951e+06]
    assert block.call_count.tolist() == [10, 10]
    assert block.metric_names == ["Runtime [s]", "DP MFlops/s", "CPI"]
    assert block.metrics[1].tolist() == [3236.25, 3074.56]
    # STAT columns are Sum | Max | Min | Avg in 3.x: read by name, not position
    stat = dict((s[1], s[2:]) for s in block.stats)
    assert stat["DP MFlops/s"] == (6310.81, 3074.56, 3236.25, 3155.4)  # sum, min, max, avg
    # 3236.25 + 3074.56 = 6310.81
    assert block.metrics[1].sum() == pytest.approx(stat["DP MFlops/s"][0])


def test_likwid3_wrapper_layout_has_no_region_header():
    lines = [*gen.cpu_header_lines("3"), "Measuring group FLOPS_DP"]
    lines += gen.render_table([["Event", "INSTR_RETIRED_ANY"], ["core 0", "1.2e+06"],
                               ["core 3", "1.4e+06"]], "3")
    lines += gen.render_table([["Event", "INSTR_RETIRED_ANY STAT"], ["Sum", "2.6e+06"],
                               ["Max", "1.4e+06"], ["Min", "1.2e+06"], ["Avg", "1.3e+06"]], "3")
    (block,) = parse_text("\n".join(lines), "w3").blocks
    assert (block.region, block.group) == (WHOLE_RUN_REGION, "FLOPS_DP")
    assert [t.cpu for t in block.threads] == [0, 3]
    assert block.stats == [("event", "INSTR_RETIRED_ANY", 2.6e6, 1.2e6, 1.4e6, 1.3e6)]


def test_gpu_columns_and_pipe_in_metric_name():
    text = "\n".join(gen.render_block(gen.Block(
        "saxpy gpu!", 1, "FLOPS_DP", ["GPU 0", "GPU 1"],
        [("SMSP_SASS_THREAD_INST_EXECUTED_OP_DADD_PRED_ON", "GPU0", ["25000000", "-"])],
        [("DP [MFLOP/s]", ["250.0000", "-"]),
         ("L3|MEM evict bandwidth [MBytes/s]", ["1200", "6.864286e-06"])],
        runtime=["0.100000", "0.200000"], calls=["1", "2"]), "5"))
    assert "| L3|MEM evict bandwidth [MBytes/s] |" in text
    parsed = parse_text(text, "gpu.txt")
    (block,) = parsed.blocks
    assert parsed.likwid_version == ">= 5.0"
    assert [(t.device, t.cpu) for t in block.threads] == [("gpu", 0), ("gpu", 1)]
    assert block.metric_names == ["DP [MFLOP/s]", "L3|MEM evict bandwidth [MBytes/s]"]
    assert block.metrics[1].tolist() == [1200, 6.864286e-06]
    assert math.isnan(block.metrics[0, 1])
    assert math.isnan(block.events[0, 1])
    # STAT of a row with one '-' cell: Sum 250, Min 250, Max 250, Avg 125 (= 250 / 2 columns)
    assert ("metric", "DP [MFLOP/s]", 250, 250, 250, 125) in block.stats


def test_rows_are_cut_by_the_border_not_by_bars():
    lines = gen.render_block(gen.Block(
        "r", 1, "L3", ["HWThread 0"], [("E", "PMC0", ["1"])],
        [("L3|MEM evict bandwidth [MBytes/s]", ["12.5000"])],
        runtime=["1.000000"], calls=["1"]), "5")
    row = next(k for k, line in enumerate(lines) if line.startswith("| L3|MEM"))
    (block,) = parse_text("\n".join(lines), "ok").blocks
    assert block.metric_names == ["L3|MEM evict bandwidth [MBytes/s]"]
    lines[row] = lines[row].replace("] |", "]| ", 1)  # a bar off its column, same width
    with pytest.raises(LikwidFormatError, match="aligned") as info:
        parse_text("\n".join(lines), "edited.txt")
    assert info.value.line == row + 1


def test_custom_event_set():
    block = gen.Block("calc", 1, "Custom", ["HWThread 0"],
                      [("Runtime (RDTSC) [s]", "TSC", ["1.5000"]),
                       ("INSTR_RETIRED_ANY", "FIXC0", ["123456789"])],
                      [], runtime=["1.500012"], calls=["3"])
    (parsed,) = parse_text("\n".join(gen.render_block(block, "5")), "c").blocks
    assert parsed.group == "Custom"
    assert parsed.event_names == ["Runtime (RDTSC) [s]:TSC", "INSTR_RETIRED_ANY:FIXC0"]
    assert parsed.metric_names == []
    assert parsed.runtime.tolist() == [1.500012]  # Region Info wins over the TSC row
    run = read_likwid_text("\n".join(gen.render_block(block, "5")), "c.txt")
    assert run.events["INSTR_RETIRED_ANY:FIXC0"].tolist() == [123456789]


def test_mpirun_tsc_row_gives_runtime_and_wrapper_mpirun_has_whole_run_region():
    block = gen.Block("ignored", 2, "", ["n1:0:3"],
                      [("Runtime (RDTSC) [s]", "TSC", ["2.5"]), ("INSTR", "FIXC0", ["7"])],
                      [("CPI", ["0.5000"])])
    lines = gen.render_block(block, "mpirun")[1:]  # drop "Region:": likwid-mpirun without -m
    (parsed,) = parse_text("\n".join(lines), "m").blocks
    assert (parsed.region, parsed.group_index, parsed.group) == (WHOLE_RUN_REGION, 2, "Group 2")
    assert parsed.runtime.tolist() == [2.5]
    assert parsed.threads[0].rank == 0
    assert parsed.threads[0].cpu == 3


def test_garbage_and_unknown_tables_between_blocks():
    block = gen.Block("r", 1, "MEM", ["HWThread 0"], [("E", "PMC0", ["1"])], [("M", ["2"])],
                      runtime=["1.000000"], calls=["1"])
    lines = ["WARN: something", "+------+", "| pin  |", "+======+", "| 0, 1 |", "+------+",
             "+-+-+ not a table", "Region: looks like mpirun but no Group line",
             "Group: 0 Thread 0 Global Thread 0 running on core 2"]
    lines += [*gen.render_block(block, "5"), "ERROR: after", "Thread 2, Core 1"]
    header = lines.index("Region r, Group 1: MEM")
    lines[header + 1:header + 1] = ["+-----+", "| pid |", "+-----+"]  # right above Region Info
    parsed = parse_text("\n".join(lines), "g")
    assert [b.region for b in parsed.blocks] == ["r"]
    assert parsed.blocks[0].runtime.tolist() == [1.0]
    assert parsed.warnings == [
        f"line {n}: ignored a table headed {name!r} (not a LIKWID Region Info, Event or "
        "Metric table)" for n, name in ((2, "pin"), (header + 2, "pid"))]


# ------------------------------------------------------------------- errors
def _block_text(layout="5", blank_lines=False):
    block = gen.Block("r", 1, "MEM", ["HWThread 0", "HWThread 1"],
                      [("E", "PMC0", ["1", "2"])], [("M", ["2.5000", "3"])],
                      runtime=["1.000000", "1.000000"], calls=["1", "1"])
    return gen.render_block(block, layout, blank_lines=blank_lines)


def test_metric_columns_must_match_event_columns():
    lines = _block_text()
    metric = next(k for k, line in enumerate(lines) if line.split("|")[1:2] == [" Metric "])
    lines[metric] = lines[metric].replace("HWThread 1", "HWThread 7")
    with pytest.raises(LikwidFormatError, match="same thread columns") as info:
        parse_text("\n".join(lines), "x")
    assert info.value.line == metric  # the Metric table's top border (1-based: metric - 1 + 1)


def test_region_header_without_tables():
    lines = [*_block_text(), "Region lost, Group 1: MEM", "WARN: killed"]
    with pytest.raises(LikwidFormatError, match="Event or Metric table") as info:
        parse_text("\n".join(lines), "x")
    assert info.value.line == len(lines) - 1
    only_info = _block_text()[:7]  # the region header and its Region Info table
    assert only_info[-2].startswith("|     call count")
    with pytest.raises(LikwidFormatError, match="Event or Metric table") as info:
        parse_text("\n".join(only_info), "x")
    assert info.value.line == 1


def test_error_names_source():
    with pytest.raises(LikwidFormatError) as info:
        parse_text("\n".join(_block_text()[:-3]), "run42.txt")
    assert str(info.value).startswith("run42.txt, line ")


# --------------------------------------------------------- hypothesis round trip
LAYOUTS = ["3", "4.0", "5", "5-blank", "wrapper", "mpirun"]
_tag_chars = st.characters(codec="ascii", categories=("L", "N", "P", "S", "Zs"),
                           exclude_characters="\t\n\r\x0b\x0c")
tags = st.text(_tag_chars, min_size=1, max_size=20).map(str.strip).filter(bool)
metric_names = st.text(st.sampled_from("abcXYZ01 []()/|%-"), min_size=1, max_size=24).map(
    str.strip).filter(lambda s: s and not s.endswith("STAT") and s[0] not in "|-")
event_names = st.text(st.sampled_from("ABCDEFGHIJ_0123"), min_size=1, max_size=30)
numbers = st.one_of(st.integers(0, 10**13).map(float), st.floats(0, 1e7),
                    st.floats(1e-9, 1e-4), st.floats(-1e4, 0), st.sampled_from([0.0, 0.5]))


def _format(value, layout, kind):
    if layout == "3":
        return "%g" % value
    if layout == "4.0":
        if kind == "event":
            return "%e" % value
        text = gen.lua_tostring(value)
        return "%e" % value if len(text) > 12 else text
    return gen.num2str(value)


@st.composite
def documents(draw):
    layout = draw(st.sampled_from(LAYOUTS))
    render = "5" if layout == "5-blank" else layout
    nthreads = draw(st.integers(1, 4))
    cpus = draw(st.lists(st.integers(0, 255), min_size=nthreads, max_size=nthreads, unique=True))
    if render == "3":
        threads = [f"core {c}" for c in cpus]
    elif render == "4.0":
        threads = [f"Core {c}" for c in cpus]
    elif render == "mpirun":
        host = draw(st.text(st.sampled_from("abcxyz019-"), min_size=1, max_size=8))
        threads = [f"{host}:{k}:{c}" for k, c in enumerate(cpus)]
    else:
        prefix = draw(st.sampled_from(["HWThread", "Core", "GPU"]))
        threads = [f"{prefix} {c}" for c in cpus]
    dash = render in ("5", "wrapper", "mpirun")
    nblocks = draw(st.integers(1, 3))
    if render == "wrapper":
        regions = [WHOLE_RUN_REGION] * nblocks
    else:
        regions = draw(st.lists(tags, min_size=nblocks, max_size=nblocks, unique=True))
    group = draw(st.sampled_from(["MEM_DP", "FLOPS_DP", "L3"]))
    blocks = []
    for k, region in enumerate(regions):
        names = draw(st.lists(event_names, min_size=1, max_size=4, unique=True))
        events = []
        for n, name in enumerate(names):
            cells = [_format(draw(numbers), render, "event") for _ in threads]
            if dash:
                cells = [draw(st.sampled_from([c] * 5 + ["-"])) for c in cells]
            events.append((name, f"PMC{n}", cells))
        metrics = []
        for name in draw(st.lists(metric_names, max_size=4, unique=True)):
            cells = [_format(draw(numbers), render, "metric") for _ in threads]
            if dash:
                cells = [draw(st.sampled_from([c] * 5 + ["-"])) for c in cells]
            metrics.append((name, cells))
        runtime = ["%.6f" % draw(st.floats(0, 100)) for _ in threads]
        calls = [str(draw(st.integers(1, 10**6))) for _ in threads]
        if render == "wrapper":  # -g A -g B: one block per group
            gid, name = k + 1, ["MEM_DP", "FLOPS_DP", "L3"][k]
        else:
            gid, name = 1, group
        blocks.append(gen.Block(region, gid, name, threads, events, metrics, runtime, calls))
    garbage = st.sampled_from(["", "INFO: You are running LIKWID in a cpuset",
                               "WARN: Skipping region x for evaluation.", "Thread 2, Core 1",
                               "WARNING: x", "ERROR: The selected register DFC0 is in use.",
                               "result = 42"])
    lines = draw(st.lists(garbage, max_size=2))
    if render == "3":  # 3.x names the group once, before the run
        lines += [*gen.cpu_header_lines("3"), f"Measuring group {group}"]
    for block in blocks:
        repeat = draw(st.booleans()) and render not in ("3", "mpirun")
        header = gen.cpu_header_lines(render) if repeat else None
        stats = draw(st.booleans()) or len(threads) > 1
        lines += gen.render_block(block, render, blank_lines=layout != "5",
                                  cpu_header=header, stats=stats)
        lines += draw(st.lists(garbage, max_size=2))
    return layout, blocks, lines


def _expected(cells):
    values = np.array([np.nan if c in ("-", "nan", "inf") else float(c) for c in cells])
    values[np.isinf(values)] = np.nan
    return values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_round_trip(doc):
    layout, blocks, lines = doc
    parsed = parse_text("\n".join(lines) + "\n", "generated.txt")
    assert len(parsed.blocks) == len(blocks)
    assert parsed.layout == ("mpirun-text" if layout == "mpirun" else "perfctr-text")
    for want, got in zip(blocks, parsed.blocks):
        assert got.region == want.region
        assert got.group_index == want.group_index
        assert got.group == (f"Group {want.group_index}" if layout == "mpirun" else want.group)
        assert [t.label for t in got.threads] == want.threads
        if layout == "3":
            assert got.event_names == [e[0] for e in want.events]
        else:
            assert got.event_names == [f"{e[0]}:{e[1]}" for e in want.events]
        np.testing.assert_array_equal(got.events, np.array([_expected(e[2]) for e in want.events]))
        assert got.metric_names == [m[0] for m in want.metrics]
        if want.metrics:
            np.testing.assert_array_equal(got.metrics,
                                          np.array([_expected(m[1]) for m in want.metrics]))
        if layout in ("wrapper", "mpirun"):
            assert got.runtime is None
        else:
            np.testing.assert_array_equal(got.runtime, _expected(want.runtime))
        if layout != "wrapper":
            np.testing.assert_array_equal(got.call_count, _expected(want.calls))
        for kind, name, *values in got.stats:
            assert kind in ("event", "metric")
            assert not name.endswith(" STAT")
            assert len(values) == 4
    run = read_likwid_text("\n".join(lines), "generated.txt")
    assert len(run.table) == sum(len(b.threads) for b in blocks)


def _tables(lines):
    """(header row index, body row indices) of every table in rendered lines."""
    out, k = [], 0
    while k < len(lines):
        if lines[k].startswith("+-") and k + 1 < len(lines) and lines[k + 1].startswith("|"):
            body = []
            j = k + 3
            while j < len(lines) and lines[j].startswith("|"):
                body.append(j)
                j += 1
            out.append((k + 1, body))
            k = j + 1
        else:
            k += 1
    return out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data())
def test_malformed_variants_name_the_line(doc, data):
    _, _, lines = doc
    rows = [row for _, body in _tables(lines) for row in body]
    kind = data.draw(st.sampled_from(["drop", "bad", "truncate", "truncate-mid"]))
    lines = list(lines)
    row = data.draw(st.sampled_from(rows))
    if kind == "drop":  # remove the last cell of a body row
        text = lines[row]
        lines[row] = text[:text[:-1].rindex("|") + 1]
        expected_line = row + 1
    elif kind == "bad":  # a non-numeric token in the last cell, same width
        text = lines[row]
        start = text[:-1].rindex("|") + 1
        width = len(text) - 1 - start
        tokens = [t for t in ["x", "1.2.3", "12a", "--", "1e", "0x1", "?"] if len(t) <= width - 2]
        token = data.draw(st.sampled_from(tokens))
        lines[row] = text[:start] + token.center(width) + "|"
        expected_line = row + 1
    elif kind == "truncate":  # the file ends after a header or body row
        header_rows = [h for h, _ in _tables(lines)]
        cut = data.draw(st.sampled_from(sorted(set(rows + header_rows + [h + 1 for h in header_rows]))))
        lines = lines[:cut + 1]
        expected_line = cut + 1
    else:  # the file ends in the middle of a row
        cut = data.draw(st.integers(1, len(lines[row]) - 1))
        lines = [*lines[:row], lines[row][:cut]]
        expected_line = row + 1
    with pytest.raises(LikwidFormatError) as info:
        parse_text("\n".join(lines), "bad.txt")
    assert info.value.line == expected_line, str(info.value)


# ------------------------------------------------------------------ large input
def test_generated_mpirun_text_reads_every_thread():
    """A few MB of likwid-mpirun text (speed is measured in benchmarks/, not here)."""
    text = gen.generate_mpirun(16, 20, 8)
    parsed = parse_text(text, "big.txt")
    assert len(parsed.blocks) == 20
    assert sum(len(b.threads) for b in parsed.blocks) == 16 * 20 * 8


def test_tab_inside_a_table_row_is_a_blank_not_part_of_the_name():
    """a file whose blanks became tabs (an editor) keeps LIKWID's metric names."""
    text = Path(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")).read_text()
    row = next(line for line in text.splitlines() if line.startswith("|") and "DP [MFLOP/s]" in line)
    tabbed = row.replace("DP [MFLOP/s]", "DP\t[MFLOP/s]", 1)
    assert len(tabbed) == len(row)  # still aligned with the border: one character for one
    run = run_from(parse_text(text.replace(row, tabbed), "tab.txt"), source="tab.txt")
    plain = run_from(parse_text(text, "plain.txt"), source="plain.txt")
    assert run.metric_names == plain.metric_names
    assert "DP [MFLOP/s]" in run.metric_names
    assert run.values("DP [MFLOP/s]").tolist() == plain.values("DP [MFLOP/s]").tolist()


@pytest.mark.parametrize("keep", [len("|            DP [MFLOP/s]           |  51"),
                                  len("|            DP [MFLOP/s]           |  517.2402 |  478.9738 |"
                                      "  477.1800 |  476.6683 |\n")])
def test_text_cut_inside_the_last_table_is_an_error_never_a_number(tmp_path, keep):
    """a table without its closing border at the end of the file is not used."""
    text = Path(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")).read_text()
    start = text.index("|            DP [MFLOP/s]           |  517.2402 |")
    assert text[:start].count("\n") + 1 == 74  # the Setup region's DP row
    path = tmp_path / "cut.txt"
    path.write_text(text[:start + keep])
    with pytest.raises(LikwidFormatError, match="closing '\\+---\\+' border of the table that "
                                                "starts at line 63; the file ends inside") as info:
        read_likwid(path)
    assert info.value.source == str(path)
    assert info.value.line == 74


# ------------------------------------------------------------------ the numbers of a table, at once
_digits = st.text("0123456789", min_size=1, max_size=20)
decimals = st.builds(lambda sign, whole, fraction, exponent: sign + whole + fraction + exponent,
                     st.sampled_from(["", "-", "+"]), _digits,
                     st.one_of(st.just(""), st.just("."), _digits.map(lambda d: "." + d)),
                     st.one_of(st.just(""), st.integers(-340, 330).map(lambda e: f"e{e}")))


@pytest.mark.parametrize("pandas_parser", [True, False])
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(numbers=st.lists(decimals, min_size=1, max_size=12))
def test_numbers_are_those_pythons_float_reads(monkeypatch, pandas_parser, numbers):
    """The cells of the tables read at once give the double Python's ``float`` gives, bit for
    bit (pandas' parser where it rounds exactly, else numpy's), inf as it is."""
    from roofline_widget.io import cells

    monkeypatch.setattr(cells, "_pandas_is_exact", lambda: pandas_parser)  # the same each time
    text = "".join(f"  {n} \n" for n in numbers).encode()
    got = cells.exact_floats(text, 1)
    assert got.ravel().tobytes() == np.array([float(n) for n in numbers]).tobytes()


@pytest.mark.parametrize("name", TEXT_SAMPLES)
def test_samples_read_alike_with_either_number_parser(monkeypatch, name):
    from roofline_widget.io import cells

    fast = read_likwid(sample_path(name))
    monkeypatch.setattr(cells, "_pandas_is_exact", lambda: False)
    plain = read_likwid(sample_path(name))
    for attribute in ("table", "events", "stats"):
        pd.testing.assert_frame_equal(getattr(fast, attribute), getattr(plain, attribute),
                                      check_exact=True)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_read_leaves_the_cycle_collector_as_it_found_it(enabled):
    # read_likwid pauses Python's cycle collector while it parses (issue 33): after a read and
    # after a read that fails it runs again if it ran before, and stays off if it was off.
    import gc
    import io

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        read_likwid(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"))
        assert gc.isenabled() is enabled
        with pytest.raises(LikwidFormatError):
            read_likwid(io.BytesIO(b"Region a, Group 1: MEM_DP\n+-----+\n| Event |\n"))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
