"""Tests of the likwid-perfctr / likwid-mpirun CSV reader (roofline_widget.io.likwid_csv)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline_widget import sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.likwid_csv import parse_csv
from roofline_widget.io.parsed import run_from
from roofline_widget.model import WHOLE_RUN_REGION

SAMPLE = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"


def read(text: str, source: str = "test.csv"):
    """Parse and build the run, as read_likwid does for a CSV file."""
    return run_from(parse_csv(text, source), source=source)


def sample_text() -> str:
    return Path(sample_path(SAMPLE)).read_text()


# --------------------------------------------------------------------------- rendering
# A small renderer of CSV exactly as LIKWID prints it (likwid.lua printOutput /
# printcsv, likwid-mpirun.lua printMpiOutput): per-block STRUCT,Info, TABLE lines,
# Region Info rows that the TABLE count leaves out, trailing-comma padding to
# maxLineFields, num2str cell formatting and '-' for NaN.

def num2str(value: float) -> str:
    """LIKWID's num2str: integers as integers, '%.4f' if short, else '%e'."""
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf"  # Min of a STAT row whose threads are all '-'
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    fixed = f"{value:.4f}"
    if len(fixed) < 12 and fixed != "0.0000":
        return fixed
    return f"{value:e}"


def _stat_values(values):
    """Sum, Min, Max, Avg as LIKWID computes them (Avg over all columns)."""
    numbers = [float(num2str(v)) for v in values if not math.isnan(v)]
    total = sum(numbers)
    return [total, min(numbers, default=math.inf), max(numbers, default=0.0),
            total / len(values)]


def render_block(block: dict, *, variant: str = "marker", cpu: bool = True) -> list[str]:
    """Render one (region, group) block as LIKWID CSV lines.

    ``variant`` is ``"marker"``, ``"wrapper"``, ``"mpirun"`` or ``"4.1"``
    (marker mode with the mixed-case ``Stat`` of LIKWID 4.1.x).
    """
    threads = block["threads"]
    n = len(threads)
    stat = n > 1 or block.get("force_stats", False)
    width = max(2 + n, 1 + n, 6 if stat else 0, 5 if stat else 0)
    if variant == "mpirun":
        width = max(width, 8 if stat and block["metrics"] else 0)
    stat_word = "Stat" if variant == "4.1" else "STAT"

    def row(cells):
        cells = list(cells)
        return ",".join(cells + [""] * (width - len(cells)))

    def table(kind, count):
        prefix = "TABLE," if variant == "wrapper" else f"TABLE,Region {block['region']},"
        return row([f"{prefix}Group {block['group_index']} {kind}", block["group"], str(count)])

    lines = []
    if cpu and variant != "mpirun":
        lines += [row(["STRUCT", "Info", "3"]), row(["CPU name:", "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz"]),
                  row(["CPU type:", "Intel Skylake SP processor"]), row(["CPU clock:", "2.593906 GHz"])]
    events = list(block["events"])
    if variant == "mpirun":
        events = [("Region calls", "CTR", block["calls"]), *events]
    lines.append(table("Raw", len(events)))
    if variant in ("marker", "4.1"):
        lines.append(row(["Region Info", *threads]))
        lines.append(row(["RDTSC Runtime [s]", *(f"{t:.6f}" for t in block["runtime"])]))
        lines.append(row(["call count", *(str(int(c)) for c in block["calls"])]))
    lines.append(row(["Event", "Counter", *threads]))
    lines += [row([name, counter, *map(num2str, values)]) for name, counter, values in events]
    if stat:
        lines.append(table(f"Raw {stat_word}", len(events)))
        lines.append(row(["Event", "Counter", "Sum", "Min", "Max", "Avg"]))
        lines += [row([f"{name} STAT", counter, *map(num2str, _stat_values(values))])
                  for name, counter, values in events]
    if block["metrics"]:
        metrics = block["metrics"]
        lines.append(table("Metric", len(metrics)))
        lines.append(row(["Metric", *threads]))
        lines += [row([name, *map(num2str, values)]) for name, values in metrics]
        if stat:
            header = ["Metric", "Sum", "Min", "Max", "Avg"]
            if variant == "mpirun":
                header += ["%ile 25", "%ile 50", "%ile 75"]
            lines.append(table(f"Metric {stat_word}", len(metrics)))
            lines.append(row(header))
            for name, values in metrics:
                stats = _stat_values(values)
                if variant == "mpirun":
                    stats += stats[1:2] * 3  # percentile columns: ignored by the reader
                lines.append(row([f"{name} STAT", *map(num2str, stats)]))
    return lines


def render(blocks, **kwargs) -> str:
    return "\n".join(line for block in blocks for line in render_block(block, **kwargs)) + "\n"


def printed(values) -> np.ndarray:
    """The values as the reader must return them: what LIKWID printed."""
    return np.array([float(num2str(v)) if not math.isnan(v) else np.nan for v in values])


# --------------------------------------------------------------------------- the real sample
def test_sample_O_regions_threads_and_cpu_info():
    run = read(sample_text(), "sample.csv")
    assert run.layout == "perfctr-csv"
    assert run.regions == ["multMatVet_NAO_OTIM", "multMatVet_COM_OTIM",
                           "multMatMat_NAO_OTIM", "multMatMat_COM_OTIM"]
    assert run.table["thread"].astype(str).tolist() == ["Core 3"] * 4
    assert run.table["cpu"].tolist() == [3, 3, 3, 3]
    assert run.groups == ["FLOPS_DP"]
    assert run.table["group_index"].tolist() == [1, 1, 1, 1]
    # Header lines of the four "TABLE,Region ...,Group 1 Raw" lines in the file.
    assert run.table["line"].tolist() == [11, 37, 63, 89]
    # STRUCT,Info wins over the rounded text header ("3.41 GHz").
    assert run.cpu_name == "Intel(R) Core(TM) i5-7500 CPU @ 3.40GHz"
    assert run.cpu_type == "Intel Coffeelake processor"
    assert run.cpu_clock == "3.407984957 GHz"
    assert run.warnings == []
    assert run.stats.empty  # one thread: LIKWID prints no STAT tables


def test_sample_O_values_checked_by_hand():
    run = read(sample_text(), "sample.csv")
    assert run.metric_names == [
        "Runtime (RDTSC) [s]", "Runtime unhalted [s]", "Clock [MHz]", "CPI", "DP MFLOP/s",
        "AVX DP MFLOP/s", "Packed MUOPS/s", "Scalar MUOPS/s", "Vectorization ratio"]
    np.testing.assert_array_equal(run.values("DP MFLOP/s"),
                                  [2116.0763, 3148.4703, 2198.3941, 2146.2262])
    np.testing.assert_array_equal(run.values("Runtime (RDTSC) [s]"),
                                  [1.548999e-05, 1.041077e-05, 0.0019, 0.0020])
    # Region Info rows: RDTSC Runtime [s] 0.000015, 0.000010, 0.001908, 0.001954; call count 1.
    np.testing.assert_array_equal(run.table["runtime_s"], [0.000015, 0.000010, 0.001908, 0.001954])
    np.testing.assert_array_equal(run.table["call_count"], [1, 1, 1, 1])
    assert run.events.columns.tolist() == [
        "INSTR_RETIRED_ANY:FIXC0", "CPU_CLK_UNHALTED_CORE:FIXC1", "CPU_CLK_UNHALTED_REF:FIXC2",
        "FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE:PMC0", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC1",
        "FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE:PMC2"]
    np.testing.assert_array_equal(run.events["INSTR_RETIRED_ANY:FIXC0"],
                                  [103637, 86205, 14865290, 14865270])
    scalar = run.events["FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC1"].to_numpy()
    np.testing.assert_array_equal(scalar, [32778, 32778, 4194314, 4194314])
    # Cross-check the metric against the raw counts: FLOPS_DP on Coffee Lake is
    # 1e-6 * (PMC0*2 + PMC1 + PMC2*4) / runtime; for region 1:
    # 32778 / 1.548999e-05 s = 2.11608e9 FLOP/s = 2116.08 MFLOP/s.
    flops = (2 * run.events["FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE:PMC0"] + scalar
             + 4 * run.events["FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE:PMC2"])
    mflops = 1e-6 * flops / run.values("Runtime (RDTSC) [s]")
    np.testing.assert_allclose(mflops, run.values("DP MFLOP/s"), rtol=0.03)
    np.testing.assert_allclose(mflops[0], 2116.0763, rtol=1e-5)


def test_sample_as_o_file_csv_only():
    """-o file.csv has no text header: the same blocks, CPU info from STRUCT,Info."""
    lines = sample_text().splitlines()
    csv_only = "\n".join(lines[6:]) + "\n"
    with_header = read(sample_text(), "s.csv")
    without = read(csv_only, "s.csv")
    assert without.regions == with_header.regions
    assert without.cpu_name == with_header.cpu_name
    np.testing.assert_array_equal(without.table["line"] + 6, with_header.table["line"])
    np.testing.assert_array_equal(without.values("CPI"), with_header.values("CPI"))


def test_text_header_is_the_fallback_for_cpu_info():
    lines = [line for line in sample_text().splitlines()
             if not line.startswith(("STRUCT", "CPU name:,", "CPU type:,", "CPU clock:,"))]
    parsed = parse_csv("\n".join(lines), "s.csv")
    assert parsed.cpu_name == "Intel(R) Core(TM) i5-7500 CPU @ 3.40GHz"
    assert parsed.cpu_clock == "3.41 GHz"
    assert len(parsed.blocks) == 4


# --------------------------------------------------------------------------- multi-thread with STAT
# The MEM_DP "Setup" block of gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt
# (4 threads, Core 0-3), a subset of its rows re-laid out as likwid-perfctr -o
# file.csv prints it; the STAT rows are copied verbatim from LIKWID's own tables.
MULTI = """\
STRUCT,Info,3,,,
CPU name:,Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz,,,,
CPU type:,Intel Skylake SP processor,,,,
CPU clock:,2.593906 GHz,,,,
TABLE,Region Setup,Group 1 Raw,MEM_DP,4,
Region Info,Core 0,Core 1,Core 2,Core 3,
RDTSC Runtime [s],0.090805,0.091738,0.091736,0.091758,
call count,2,2,2,2,
Event,Counter,Core 0,Core 1,Core 2,Core 3
INSTR_RETIRED_ANY,FIXC0,197207200,154074500,153535600,153510000
PWR_PKG_ENERGY,PWR0,3.4020,0,0,0
FP_ARITH_INST_RETIRED_SCALAR_DOUBLE,PMC1,46857910,43940120,43774610,43738350
CAS_COUNT_RD,MBOX0C0,42138,0,0,0
TABLE,Region Setup,Group 1 Raw STAT,MEM_DP,4,
Event,Counter,Sum,Min,Max,Avg
INSTR_RETIRED_ANY STAT,FIXC0,658327300,153510000,197207200,164581825
PWR_PKG_ENERGY STAT,PWR0,3.4020,0,3.4020,0.8505
FP_ARITH_INST_RETIRED_SCALAR_DOUBLE STAT,PMC1,178310990,43738350,46857910,4.457775e+07
CAS_COUNT_RD STAT,MBOX0C0,42138,0,42138,10534.5000
TABLE,Region Setup,Group 1 Metric,MEM_DP,4,
Metric,Core 0,Core 1,Core 2,Core 3,
Runtime (RDTSC) [s],0.0908,0.0917,0.0917,0.0918,
DP [MFLOP/s],517.2402,478.9738,477.1800,476.6683,
Memory bandwidth [MBytes/s],541.7965,0,0,0,
Operational intensity,0.9547,0.8931,0.8898,0.8890,
TABLE,Region Setup,Group 1 Metric STAT,MEM_DP,4,
Metric,Sum,Min,Max,Avg,
Runtime (RDTSC) [s] STAT,0.3660,0.0908,0.0918,0.0915,
DP [MFLOP/s] STAT,1950.0623,476.6683,517.2402,487.5156,
Memory bandwidth [MBytes/s] STAT,541.7965,0,541.7965,135.4491,
Operational intensity STAT,3.6266,0.8890,0.9547,0.9066,
"""


def test_multithread_rows_and_stats_kept_apart():
    run = read(MULTI)
    assert len(run) == 4  # four thread rows, no row for Sum/Min/Max/Avg
    assert run.table["thread"].astype(str).tolist() == ["Core 0", "Core 1", "Core 2", "Core 3"]
    assert run.table["cpu"].tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(run.table["runtime_s"], [0.090805, 0.091738, 0.091736, 0.091758])
    np.testing.assert_array_equal(run.table["call_count"], [2, 2, 2, 2])
    np.testing.assert_array_equal(run.values("Memory bandwidth [MBytes/s]"), [541.7965, 0, 0, 0])
    assert run.likwid_version == "4.1 - 5.0.x"
    stats = run.stats.set_index(["kind", "name"])
    assert len(stats) == 8
    assert stats.loc[("metric", "DP [MFLOP/s]"), "Avg"] == 487.5156
    assert stats.loc[("event", "CAS_COUNT_RD:MBOX0C0"), "Max"] == 42138


def test_multithread_sum_column_cross_checks_thread_sums():
    run = read(MULTI)
    stats = run.stats.set_index(["kind", "name"])
    for name in run.events.columns:  # raw counts: exact sums
        assert run.events[name].sum() == pytest.approx(stats.loc[("event", name), "Sum"], rel=1e-7)
    # 517.2402 + 478.9738 + 477.1800 + 476.6683 = 1950.0623
    for name in ("DP [MFLOP/s]", "Memory bandwidth [MBytes/s]", "Operational intensity"):
        assert run.values(name).sum() == pytest.approx(stats.loc[("metric", name), "Sum"], abs=1e-3)
    for name in run.events.columns:
        assert run.events[name].min() == stats.loc[("event", name), "Min"]


# --------------------------------------------------------------------------- wrapper, mpirun, 4.1, 4.0
def test_wrapper_csv_is_the_whole_run_region_and_dash_is_nan():
    # bench_in_perfctr_zen2_epyc7702_MEM_dash_values_wrapper.txt laid out as CSV:
    # DFC0/DFC1 are '-' (register in use) while the memory metrics are 0.
    text = "\n".join([
        "STRUCT,Info,3", "CPU name:,AMD EPYC 7702 64-Core Processor                ,",
        "CPU type:,AMD K17 (Zen2) architecture,", "CPU clock:,1.996213716 GHz,",
        "TABLE,Group 1 Raw,MEM,3", "Event,Counter,Core 2",
        "ACTUAL_CPU_CLOCK,FIXC1,44818934960",
        "DATA_FROM_LOCAL_DRAM_CHANNEL,DFC0,-", "DATA_TO_LOCAL_DRAM_CHANNEL,DFC1,-",
        "TABLE,Group 1 Metric,MEM,2", "Metric,Core 2,",
        "Runtime (RDTSC) [s],15.5693,", "Memory bandwidth [MBytes/s],0,", ""])
    run = read(text)
    assert run.regions == [WHOLE_RUN_REGION]
    assert run.cpu_name == "AMD EPYC 7702 64-Core Processor"  # trailing blanks dropped
    assert np.isnan(run.events["DATA_FROM_LOCAL_DRAM_CHANNEL:DFC0"][0])
    assert run.events["ACTUAL_CPU_CLOCK:FIXC1"][0] == 44818934960
    assert run.values("Memory bandwidth [MBytes/s]")[0] == 0.0
    # No Region Info in wrapper mode: the runtime comes from the metric.
    assert run.table["runtime_s"][0] == 15.5693
    assert np.isnan(run.table["call_count"][0])


def _mpirun_blocks():
    threads = ["sonata:0:0", "sonata:1:25", "sonata:2:2", "sonata:3:27"]
    return [{
        "region": "wr-only", "group_index": 1, "group": "CACHES", "threads": threads,
        "runtime": [28.0537, 28.0544, 28.0546, 28.0544], "calls": [1, 1, 1, 3],
        "events": [("INSTR_RETIRED_ANY", "FIXC0", [9.5e9, 9.4e9, 9.6e9, 9.5e9]),
                   ("CAS_COUNT_RD", "MBOX0C0", [1234567, 0, 7654321, 0])],
        "metrics": [("Runtime (RDTSC) [s]", [28.0537, 28.0544, 28.0546, 28.0544]),
                    ("Memory read bandwidth [MBytes/s]", [2.8164, 0, 17.4619, 0])],
    }]


def test_mpirun_csv_ranks_hosts_and_region_calls():
    text = "INFO: You are running LIKWID in a cpuset with 48 CPUs.\n" + render(
        _mpirun_blocks(), variant="mpirun")
    run = read(text)
    assert run.layout == "mpirun-csv"
    assert run.ranks == [0, 1, 2, 3]
    assert run.table["cpu"].tolist() == [0, 25, 2, 27]
    assert run.table["host"].astype(str).tolist() == ["sonata"] * 4
    # The "Region calls,CTR" row is the call count, not an event.
    np.testing.assert_array_equal(run.table["call_count"], [1, 1, 1, 3])
    assert "Region calls:CTR" not in run.events.columns
    np.testing.assert_array_equal(run.events["CAS_COUNT_RD:MBOX0C0"], [1234567, 0, 7654321, 0])
    np.testing.assert_array_equal(run.table["runtime_s"], [28.0537, 28.0544, 28.0546, 28.0544])
    # Metric STAT with the three %ile columns: Sum = 2.8164 + 17.4619 = 20.2783.
    stats = run.stats.set_index(["kind", "name"])
    assert stats.loc[("metric", "Memory read bandwidth [MBytes/s]"), "Sum"] == 20.2783
    assert run.cpu_name is None


def test_likwid_41_mixed_case_stat_tables():
    block = dict(_mpirun_blocks()[0], threads=["Core 0", "Core 1", "Core 2", "Core 3"])
    text = render([block], variant="4.1")
    assert "Raw Stat,CACHES" in text
    assert "Metric Stat,CACHES" in text
    parsed = parse_csv(text, "old.csv")
    assert parsed.likwid_version == "4.1.x"
    run = read(text)
    assert len(run) == 4  # Stat rows are stats, never threads
    stats = run.stats.set_index(["kind", "name"])
    assert stats.loc[("event", "CAS_COUNT_RD:MBOX0C0"), "Sum"] == 1234567 + 7654321


def test_likwid_40_struct_info_5_carries_region_and_region_info():
    # LIKWID 4.0.x printMarkerOutput: "STRUCT,Info,5", "<gid>,<GROUP>,<region>",
    # the Region Info rows, "CPU clock,<GHz value> MHz", then a TABLE line
    # without a Region field.
    text = "\n".join([
        "STRUCT,Info,3,", "CPU name:,Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz,,",
        "CPU type:,Intel SandyBridge EP processor,,", "CPU clock:,2.700118 GHz,,",
        "STRUCT,Info,5,", "1,MEM,loop,", "Region Info,Core 0,Core 1",
        "RDTSC Runtime [s],0.500000,0.490000", "call count,10,10", "CPU clock,2.700118 MHz,,",
        "TABLE,Group 1 Raw,MEM,1,", "Event,Counter,Core 0,Core 1",
        "INSTR_RETIRED_ANY,FIXC0,9.262083e+08,9.000000e+08",
        "TABLE,Group 1 Raw Stat,MEM,1,", "Event,Counter,Sum,Max,Min,Avg",
        "INSTR_RETIRED_ANY STAT,FIXC0,1.826208e+09,9.262083e+08,9.000000e+08,9.131042e+08",
        "TABLE,Group 1 Metric,MEM,1,", "Metric,Core 0,Core 1",
        "Memory bandwidth [MBytes/s],0.078023552,0", ""])
    parsed = parse_csv(text, "lw40.csv")
    assert parsed.likwid_version == "4.0.x"
    assert parsed.cpu_clock == "2.700118 GHz"
    run = read(text)
    assert run.regions == ["loop"]
    np.testing.assert_array_equal(run.table["runtime_s"], [0.5, 0.49])
    np.testing.assert_array_equal(run.table["call_count"], [10, 10])
    np.testing.assert_array_equal(run.events["INSTR_RETIRED_ANY:FIXC0"], [9.262083e08, 9.0e08])
    # Stat columns are matched by name (Sum, Max, Min, Avg order here).
    stats = run.stats.iloc[0]
    assert (stats["Min"], stats["Max"]) == (9.0e08, 9.262083e08)


def test_region_tag_with_comma_survives_in_the_table_line():
    block = dict(_mpirun_blocks()[0], region="solve, part 2", threads=["HWThread 0"],
                 runtime=[1.0], calls=[1],
                 events=[("INSTR_RETIRED_ANY", "FIXC0", [5.0])], metrics=[("CPI", [0.5])])
    run = read(render([block]))
    assert run.regions == ["solve, part 2"]
    assert run.likwid_version == ">= 5.1"


# --------------------------------------------------------------------------- round trip
_METRIC_NAMES = ["Runtime (RDTSC) [s]", "CPI", "DP [MFLOP/s]", "AVX DP [MFLOP/s]",
                 "Memory bandwidth [MBytes/s]", "Memory data volume [GBytes]",
                 "L3|MEM evict bandwidth [MBytes/s]", "Vectorization ratio [%]",
                 "Operational intensity [FLOP/Byte]", "DP MFLOP/s"]
_EVENT_NAMES = ["INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE",
                "CAS_COUNT_RD", "CAS_COUNT_WR", "RETIRED_SSE_AVX_FLOPS_ALL"]
_COUNTERS = ["FIXC0", "FIXC1", "PMC0", "PMC1", "MBOX0C0", "MBOX1C0", "DFC0"]

_value = st.one_of(
    st.integers(min_value=0, max_value=10**13).map(float),
    st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False),
    st.floats(min_value=1e-9, max_value=1e-3),
    st.just(math.nan),
)
_region = st.text(alphabet="abcXYZ_<>!-0123456789 ", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def _blocks(draw):
    n_blocks = draw(st.integers(1, 3))
    keys = draw(st.lists(st.tuples(_region, st.integers(1, 3)), min_size=n_blocks,
                         max_size=n_blocks, unique=True))
    blocks = []
    for region, group_index in keys:
        cpus = draw(st.lists(st.integers(0, 255), min_size=1, max_size=4, unique=True))
        n = len(cpus)
        events = draw(st.lists(st.tuples(st.sampled_from(_EVENT_NAMES), st.sampled_from(_COUNTERS)),
                               min_size=1, max_size=5, unique=True))
        metric_names = draw(st.lists(st.sampled_from(_METRIC_NAMES), max_size=5, unique=True))
        row = st.lists(_value, min_size=n, max_size=n)
        blocks.append({
            "region": region, "group_index": group_index, "group": f"G{group_index}",
            "threads": [f"HWThread {c}" for c in cpus],
            "runtime": draw(st.lists(st.floats(0, 100), min_size=n, max_size=n)),
            "calls": draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n)),
            "events": [(e, c, draw(row)) for e, c in events],
            "metrics": [(name, draw(row)) for name in metric_names],
            "force_stats": draw(st.booleans()),
        })
    return blocks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks=_blocks(), variant=st.sampled_from(["marker", "wrapper", "mpirun", "4.1"]))
def test_round_trip_random_blocks(blocks, variant):
    if variant == "wrapper":
        blocks = [dict(b, region=WHOLE_RUN_REGION) for b in blocks]
        blocks = list({b["group_index"]: b for b in blocks}.values())
    if variant == "mpirun":
        blocks = [dict(b, threads=[f"node1:{i}:{t.split()[1]}" for i, t in enumerate(b["threads"])])
                  for b in blocks]
    parsed = parse_csv(render(blocks, variant=variant), "rt.csv")
    assert parsed.warnings == []
    assert len(parsed.blocks) == len(blocks)
    for want, got in zip(blocks, parsed.blocks):
        assert (got.region, got.group_index, got.group) == (
            want["region"], want["group_index"], want["group"])
        assert [t.label for t in got.threads] == want["threads"]
        assert got.event_names == [f"{e}:{c}" for e, c, _ in want["events"]]
        np.testing.assert_array_equal(got.events, [printed(v) for _, _, v in want["events"]])
        assert got.metric_names == [name for name, _ in want["metrics"]]
        if want["metrics"]:
            np.testing.assert_array_equal(got.metrics, [printed(v) for _, v in want["metrics"]])
        np.testing.assert_array_equal(got.call_count, None if variant == "wrapper" else want["calls"])
        if variant in ("marker", "4.1"):
            np.testing.assert_array_equal(got.runtime, [float(f"{t:.6f}") for t in want["runtime"]])
        n_stats = len(want["events"]) + len(want["metrics"]) + (variant == "mpirun")
        stat = len(want["threads"]) > 1 or want["force_stats"]
        assert len(got.stats) == (n_stats if stat else 0)
        for kind, name, total, *_ in got.stats:
            if kind == "event" and name != "Region calls:CTR":
                values = dict(zip(got.event_names, got.events))[name]
                assert total == float(num2str(_stat_values(values)[0]))
    run = run_from(parsed, source="rt.csv")
    assert len(run) == sum(len(b["threads"]) for b in blocks)


# --------------------------------------------------------------------------- malformed input
def _replace_line(text: str, number: int, new: str | None) -> str:
    lines = text.splitlines()
    if new is None:
        del lines[number - 1]
    else:
        lines[number - 1] = new
    return "\n".join(lines) + "\n"


def _error(text: str) -> LikwidFormatError:
    with pytest.raises(LikwidFormatError) as info:
        parse_csv(text, "bad.csv")
    assert "bad.csv" in str(info.value)
    return info.value


def test_error_non_numeric_cell():
    # Line 16 of the sample is "INSTR_RETIRED_ANY,FIXC0,103637".
    err = _error(_replace_line(sample_text(), 16, "INSTR_RETIRED_ANY,FIXC0,10x637"))
    assert err.line == 16
    assert err.found == "10x637"


def test_error_row_with_too_few_cells():
    err = _error(_replace_line(sample_text(), 16, "INSTR_RETIRED_ANY,FIXC0"))
    assert err.line == 16
    assert "3 cells" in err.expected


def test_error_row_with_too_few_cells_in_multithread_table():
    # Line 11 of MULTI is the PWR_PKG_ENERGY row; drop Core 3's value.
    err = _error(_replace_line(MULTI, 11, "PWR_PKG_ENERGY,PWR0,3.4020,0,0"))
    assert err.line == 11
    assert "6 cells" in err.expected


def test_error_table_without_header_line():
    # Line 23 is "Metric,Core 3," after the Metric TABLE line 22.
    err = _error(_replace_line(sample_text(), 23, None))
    assert err.line == 23
    assert "'Metric,'" in err.expected
    assert "line 22" in err.expected


def test_error_file_ends_inside_a_table_before_any_row():
    lines = sample_text().splitlines()
    err = _error("\n".join(lines[:22]) + "\n")  # ends with the Metric TABLE line
    assert err.line == 22
    assert err.found == "the end of the file"
    err = _error("\n".join(lines[:23]) + "\n")  # ... with its header line
    assert err.line == 23
    assert "data rows" in err.expected


def test_error_metric_threads_differ_from_raw_threads():
    err = _error(_replace_line(sample_text(), 23, "Metric,Core 2,"))
    assert err.line == 23
    assert "Core 3" in err.expected


def test_error_bad_thread_header():
    err = _error(_replace_line(sample_text(), 15, "Event,Counter,Kern 3"))
    assert err.line == 15
    assert err.found == "Kern 3"


def test_error_no_table_at_all():
    err = _error("CPU name:\tsomething\nhello, world\n")
    assert err.line is None


def test_text_after_the_csv_ends_the_last_table():
    text = sample_text() + "Application finished, result 42\nbye\n"
    run = read(text)
    assert len(run) == 4
    assert run.values("Vectorization ratio").tolist() == [0, 0, 0, 0]


# --------------------------------------------------------------------------- truncated files
def _warned_run(path):
    from roofline_widget import read_likwid
    from roofline_widget.errors import LikwidReadWarning
    with pytest.warns(LikwidReadWarning) as caught:
        run = read_likwid(path)
    return run, "\n".join(str(w.message) for w in caught)


def test_cut_inside_a_number_drops_the_table_instead_of_keeping_21(tmp_path):
    text = sample_text()
    lines = text.splitlines()
    assert lines[27] == "DP MFLOP/s,2116.0763,"  # line 28, in the Metric TABLE of line 22
    path = tmp_path / "cut.csv"
    path.write_text(text[:text.index("DP MFLOP/s,2116.0763") + len("DP MFLOP/s,21")])
    run, message = _warned_run(path)
    assert f"{path}, line 22: the file ends inside line 28" in message
    assert "Metric table of region 'multMatVet_NAO_OTIM', group 1 is incomplete and not used" in message
    # the events of the Raw table (complete) are kept, no metric of the cut table is
    assert run.regions == ["multMatVet_NAO_OTIM"]
    assert run.metric_names == []
    assert run.events["FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC1"].tolist() == [32778]
    assert run.warnings
    assert "incomplete" in run.warnings[0]


def test_cut_at_a_line_end_inside_a_table_is_short_of_the_declared_rows(tmp_path):
    lines = sample_text().splitlines(keepends=True)
    path = tmp_path / "cut.csv"
    path.write_text("".join(lines[:27]))  # ends after the 'CPI' row: 4 of the 9 rows
    run, message = _warned_run(path)
    assert "line 22: TABLE declares 9 rows, 4 found" in message
    assert run.metric_names == []


def test_a_row_missing_in_the_middle_drops_only_that_table(tmp_path):
    lines = sample_text().splitlines(keepends=True)
    cpi = [k for k, line in enumerate(lines) if line.startswith("CPI,")]
    assert len(cpi) == 4
    del lines[cpi[1]]  # the CPI row of the second region (multMatVet_COM_OTIM)
    path = tmp_path / "row.csv"
    path.write_text("".join(lines))
    run, message = _warned_run(path)
    assert "TABLE declares 9 rows, 8 found" in message
    assert "'multMatVet_COM_OTIM'" in message
    dp = run.table.set_index("region")["DP MFLOP/s"]
    # the three complete regions keep their values, the damaged one has none
    assert dp["multMatVet_NAO_OTIM"] == 2116.0763
    assert np.isnan(dp["multMatVet_COM_OTIM"])
    intact = read(sample_text()).table.set_index("region")["DP MFLOP/s"]
    others = [r for r in intact.index if r != "multMatVet_COM_OTIM"]
    assert dp[others].tolist() == intact[others].tolist()


def test_tab_inside_a_metric_name_is_a_blank():
    text = sample_text().replace("DP MFLOP/s,2116.0763", "DP\tMFLOP/s,2116.0763")
    run = read(text)
    assert "DP\tMFLOP/s" not in run.metric_names
    assert run.table["DP MFLOP/s"].iloc[0] == 2116.0763
