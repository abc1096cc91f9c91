"""Render likwid-perfctr 5.x marker-mode text output from per-thread counts (for tests only).

The output is laid out as likwid-perfctr's Lua code prints it
(stdout capture of ``likwid-perfctr -C 0,1 -g <GROUP> -m ./program``): the CPU header,
the program's own output, then per region a ``Region <tag>, Group 1: <GROUP>`` line, the
``Region Info`` table, the ``Event`` table, its ``STAT`` table (Sum, Min, Max, Avg; printed
for two or more threads), the ``Metric`` table and its ``STAT`` table, each table followed
by a blank line.  Cells follow LIKWID's ``num2str`` (integers as integers, ``%.4f`` when
shorter than 12 characters and not ``0.0000``, else ``%e``); numeric cells are
right-aligned, text cells centred; the STAT columns are computed from the *printed*
per-thread cells, as LIKWID's Lua code does.

The groups are LIKWID's Skylake SP / Cascade Lake SP ones (``groups/CLX/L2.txt``,
``groups/skylakeX/L3.txt`` and ``MEM_DP.txt``; the CLX groups have the same metric names, see
LIKWID's ``groups/`` folders): the same events and metric formulas, written
here from their definitions.  Uncore counters (``MBOX*``, ``PWR*``) are
read only by the first hardware thread of the socket; the other threads print ``0``.

:data:`PROGRAM` holds the counts of one made-up program (two regions, two threads) that
the tests read back and check by hand.  ``python tests/render_likwid.py DIR`` writes its
three outputs (L2, L3, MEM_DP) into DIR: the copies shipped in
``roofline_widget/data/rendered/`` were written so, **rendered, not measured**.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HLINE = "-" * 80
CPU_NAME = "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"
CPU_TYPE = "Intel Cascadelake SP processor"
CLOCK_HZ = 2.5e9
UNCORE_PREFIXES = ("MBOX", "PWR")


# ------------------------------------------------------------------ LIKWID's cell texts
def num2str(value: float) -> str:
    """A number as LIKWID prints it in a table cell."""
    if value != value:  # NaN
        return "nan"
    if float(value).is_integer():
        return str(int(value))
    fixed = f"{value:.4f}"
    if len(fixed) < 12 and fixed not in ("0.0000", "-0.0000"):
        return fixed
    return f"{value:e}"


def is_number(text: str) -> bool:
    """Whether Lua's ``tonumber`` reads the cell (then it is right-aligned)."""
    try:
        float(text)
    except ValueError:
        return False
    return text not in ("nan", "inf", "-inf")


def table(columns: list[list[str]]) -> list[str]:
    """A ``+---+`` table from columns whose first cell is the header, then a blank line."""
    widths = [max(len(cell) for cell in column) for column in columns]

    def line(row: int) -> str:
        cells = []
        for column, width in zip(columns, widths):
            cell = column[row]
            if row and is_number(cell):
                cells.append(cell.rjust(width))
            else:
                pad = width - len(cell)
                cells.append(" " * (pad - pad // 2) + cell + " " * (pad // 2))
        return "| " + " | ".join(cells) + " |"

    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    rows = [line(i) for i in range(1, len(columns[0]))]
    return [border, line(0), border, *rows, border, ""]


def stat_columns(rows: list[list[str]]) -> list[list[str]]:
    """Sum, Min, Max, Avg columns of per-thread cell rows (from the printed texts)."""
    sums, mins, maxs, avgs = ["Sum"], ["Min"], ["Max"], ["Avg"]
    for cells in rows:
        values = [float(c) for c in cells if is_number(c)]
        total = sum(values)
        sums.append(num2str(total))
        mins.append(num2str(min(values)))
        maxs.append(num2str(max(values)))
        avgs.append(num2str(total / len(cells)))  # Avg over every thread column
    return [sums, mins, maxs, avgs]


# ------------------------------------------------------------------ groups
Formula = Callable[[dict, float], float]


@dataclass(frozen=True)
class Group:
    """A performance group: (counter, event) pairs and (metric name, formula) pairs.

    A formula takes the thread's counts by counter and the region time in seconds.
    """

    name: str
    events: tuple
    metrics: tuple


def _basic(c: dict, t: float) -> list:
    inverse_clock = 1.0 / CLOCK_HZ
    return [("Runtime (RDTSC) [s]", t),
            ("Runtime unhalted [s]", c["FIXC1"] * inverse_clock),
            ("Clock [MHz]", 1.0e-6 * (c["FIXC1"] / c["FIXC2"]) / inverse_clock),
            ("CPI", c["FIXC1"] / c["FIXC0"])]


_FIXED = (("FIXC0", "INSTR_RETIRED_ANY"), ("FIXC1", "CPU_CLK_UNHALTED_CORE"),
          ("FIXC2", "CPU_CLK_UNHALTED_REF"))
_CHANNELS = range(6)


def _l2(c: dict, t: float) -> list:
    lines = c["PMC0"] + c["PMC1"] + c["PMC2"]
    return [*_basic(c, t), ("L2D load bandwidth [MBytes/s]", 1e-06 * c["PMC0"] * 64.0 / t), ("L2D load data volume [GBytes]", 1e-09 * c["PMC0"] * 64.0), ("L2D evict bandwidth [MBytes/s]", 1e-06 * c["PMC1"] * 64.0 / t), ("L2D evict data volume [GBytes]", 1e-09 * c["PMC1"] * 64.0), ("L2 bandwidth [MBytes/s]", 1e-06 * lines * 64.0 / t), ("L2 data volume [GBytes]", 1e-09 * lines * 64.0)]


def _l3(c: dict, t: float) -> list:
    lines = c["PMC0"] + c["PMC1"]
    return [*_basic(c, t), ("L3 load bandwidth [MBytes/s]", 1e-06 * c["PMC0"] * 64.0 / t), ("L3 load data volume [GBytes]", 1e-09 * c["PMC0"] * 64.0), ("L3 evict bandwidth [MBytes/s]", 1e-06 * c["PMC3"] * 64.0 / t), ("L3 evict data volume [GBytes]", 1e-09 * c["PMC3"] * 64.0), ("L3|MEM evict bandwidth [MBytes/s]", 1e-06 * c["PMC1"] * 64.0 / t), ("L3|MEM evict data volume [GBytes]", 1e-09 * c["PMC1"] * 64.0), ("Dropped CLs bandwidth [MBytes/s]", 1e-06 * c["PMC2"] * 64.0 / t), ("Dropped CLs data volume [GBytes]", 1e-09 * c["PMC2"] * 64.0), ("L3 bandwidth [MBytes/s]", 1e-06 * lines * 64.0 / t), ("L3 data volume [GBytes]", 1e-09 * lines * 64.0)]


def _mem_dp(c: dict, t: float) -> list:
    flops = c["PMC0"] * 2.0 + c["PMC1"] + c["PMC2"] * 4.0 + c["PMC3"] * 8.0
    reads = sum(c[f"MBOX{i}C0"] for i in _CHANNELS)
    writes = sum(c[f"MBOX{i}C1"] for i in _CHANNELS)
    packed = c["PMC0"] + c["PMC2"] + c["PMC3"]
    # LIKWID puts the socket's uncore counts into a formula that mixes core and uncore
    # counters (the operational intensity), so every thread gets its own FLOPs / socket bytes
    socket_bytes = c["socket MBOX bytes"]
    vector_base = c["PMC0"] + c["PMC1"] + c["PMC2"]
    return [*_basic(c, t), ("Energy [J]", c["PWR0"]), ("Power [W]", c["PWR0"] / t), ("Energy DRAM [J]", c["PWR3"]), ("Power DRAM [W]", c["PWR3"] / t), ("DP [MFLOP/s]", 1e-06 * flops / t), ("AVX DP [MFLOP/s]", 1e-06 * (c["PMC2"] * 4.0 + c["PMC3"] * 8.0) / t), ("Packed [MUOPS/s]", 1e-06 * packed / t), ("Scalar [MUOPS/s]", 1e-06 * c["PMC1"] / t), ("Memory read bandwidth [MBytes/s]", 1e-06 * reads * 64.0 / t), ("Memory read data volume [GBytes]", 1e-09 * reads * 64.0), ("Memory write bandwidth [MBytes/s]", 1e-06 * writes * 64.0 / t), ("Memory write data volume [GBytes]", 1e-09 * writes * 64.0), ("Memory bandwidth [MBytes/s]", 1e-06 * (reads + writes) * 64.0 / t), ("Memory data volume [GBytes]", 1e-09 * (reads + writes) * 64.0), ("Operational intensity [FLOP/Byte]", flops / socket_bytes), ("Vectorization ratio [%]", 100.0 * (c["PMC0"] + c["PMC2"]) / vector_base if vector_base else float("nan"))]


GROUPS = {
    "L2": Group("L2", (*_FIXED, ("PMC0", "L1D_REPLACEMENT"), ("PMC1", "L1D_M_EVICT"),
                       ("PMC2", "ICACHE_64B_IFTAG_MISS")), _l2),
    "L3": Group("L3", (*_FIXED, ("PMC0", "L2_LINES_IN_ALL"), ("PMC1", "L2_TRANS_L2_WB"),
                       ("PMC2", "IDI_MISC_WB_DOWNGRADE"), ("PMC3", "IDI_MISC_WB_UPGRADE")), _l3),
    "MEM_DP": Group("MEM_DP", (
        *_FIXED, ("PWR0", "PWR_PKG_ENERGY"), ("PWR3", "PWR_DRAM_ENERGY"),
        ("PMC0", "FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE"),
        ("PMC1", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE"),
        ("PMC2", "FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE"),
        ("PMC3", "FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE"),
        *[(f"MBOX{i}C{j}", ("CAS_COUNT_RD", "CAS_COUNT_WR")[j]) for i in _CHANNELS
          for j in (0, 1)]), _mem_dp),
}


# ------------------------------------------------------------------ regions and files
@dataclass(frozen=True)
class Region:
    """One region of one run: per hardware thread its time, call count and counts.

    ``counts`` maps a counter (``"PMC0"``, ``"MBOX3C1"``) to one count per thread;
    counters missing from it count 0.  Uncore counters are given for the socket and
    printed on the first thread only.
    """

    name: str
    threads: tuple
    seconds: tuple
    calls: tuple
    counts: dict


def _thread_counts(group: Group, region: Region, i: int) -> dict:
    counts = {}
    for counter, _event in group.events:
        values = region.counts.get(counter, [0] * len(region.threads))
        value = values[i] if i < len(values) else 0
        if counter.startswith(UNCORE_PREFIXES) and i > 0:
            value = 0  # only the socket's first hardware thread reads uncore counters
        counts[counter] = float(f"{value:e}")  # marker files keep 7 significant digits
    mbox = sum(v[0] for k, v in region.counts.items() if k.startswith("MBOX"))
    counts["socket MBOX bytes"] = mbox * 64.0
    return counts


def region_block(group: Group, region: Region, group_index: int = 1) -> list[str]:
    """The lines of one ``Region <tag>, Group <n>: <GROUP>`` block."""
    heads = [f"HWThread {t}" for t in region.threads]
    counts = [_thread_counts(group, region, i) for i in range(len(region.threads))]
    lines = [f"Region {region.name}, Group {group_index}: {group.name}"]
    lines += table([["Region Info", "RDTSC Runtime [s]", "call count"]]
                   + [[head, f"{s:.6f}", str(n)]
                      for head, s, n in zip(heads, region.seconds, region.calls)])
    event_rows = [[num2str(c[counter]) for c in counts] for counter, _ in group.events]
    lines += table([["Event", *[e for _, e in group.events]],
                    ["Counter", *[k for k, _ in group.events]]]
                   + [[head, *[row[i] for row in event_rows]] for i, head in enumerate(heads)])
    several = len(region.threads) > 1
    if several:
        lines += table([["Event", *[f"{e} STAT" for _, e in group.events]],
                        ["Counter", *[k for k, _ in group.events]], *stat_columns(event_rows)])
    metrics = [group.metrics(c, s) for c, s in zip(counts, region.seconds)]
    names = [name for name, _ in metrics[0]]
    metric_rows = [[num2str(m[j][1]) for m in metrics] for j in range(len(names))]
    lines += table([["Metric", *names]]
                   + [[head, *[row[i] for row in metric_rows]] for i, head in enumerate(heads)])
    if several:
        lines += table([["Metric", *[f"{n} STAT" for n in names]], *stat_columns(metric_rows)])
    return lines


def perfctr_output(group_name: str, regions: list[Region], program_output: str = "") -> str:
    """The stdout of ``likwid-perfctr -g <group_name> -m`` for ``regions``."""
    group = GROUPS[group_name]
    lines = [HLINE, f"CPU name:\t{CPU_NAME}", f"CPU type:\t{CPU_TYPE}",
             f"CPU clock:\t{CLOCK_HZ * 1e-9:3.2f} GHz", HLINE]
    if program_output:
        lines += [program_output, HLINE]
    for region in regions:
        lines += region_block(group, region)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the example program
def _fixed(seconds: float, threads: int = 2) -> dict:
    """Fixed counters of ``seconds`` at 2.5 GHz, 90 % unhalted, CPI 0.5."""
    core = 0.9 * seconds * CLOCK_HZ
    return {"FIXC0": [2 * core] * threads, "FIXC1": [core] * threads,
            "FIXC2": [core] * threads}


def _mbox(reads: int, writes: int) -> dict:
    """CAS counts of each of the 6 memory channels (socket counts, thread 0 only)."""
    counts = {}
    for i in _CHANNELS:
        counts[f"MBOX{i}C0"] = [reads, 0]
        counts[f"MBOX{i}C1"] = [writes, 0]
    return counts


THREADS = (0, 1)
#: Group -> regions of a made-up program ``stencil_demo`` (two regions, hardware threads 0
#: and 1 of socket 0).  Counts chosen so that the rates are exact; see tests/test_rendered_levels.py.
PROGRAM = {
    "L2": [
        Region("triad", THREADS, (0.5, 0.5), (10, 10), {
            **_fixed(0.5), "PMC0": [150_000_000, 120_000_000],
            "PMC1": [50_000_000, 40_000_000], "PMC2": [1_000_000, 1_000_000]}),
        Region("stencil<3d>", THREADS, (0.25, 0.25), (4, 4), {
            **_fixed(0.25), "PMC0": [20_000_000, 15_000_000],
            "PMC1": [5_000_000, 5_000_000], "PMC2": [0, 0]}),
    ],
    "L3": [
        Region("triad", THREADS, (0.5, 0.5), (10, 10), {
            **_fixed(0.5), "PMC0": [60_000_000, 50_000_000],
            "PMC1": [30_000_000, 25_000_000], "PMC2": [2_000_000, 1_000_000],
            "PMC3": [4_000_000, 3_000_000]}),
        Region("stencil<3d>", THREADS, (0.2, 0.2), (4, 4), {
            **_fixed(0.2), "PMC0": [30_000_000, 20_000_000],
            "PMC1": [10_000_000, 10_000_000], "PMC2": [0, 0], "PMC3": [1_000_000, 1_000_000]}),
    ],
    "MEM_DP": [
        Region("triad", THREADS, (0.5, 0.5), (10, 10), {
            **_fixed(0.5), "PWR0": [40.0, 0], "PWR3": [6.0, 0],
            "PMC1": [50_000_000, 50_000_000], "PMC3": [250_000_000, 200_000_000],
            **_mbox(10_000_000, 5_000_000)}),
        Region("stencil<3d>", THREADS, (0.25, 0.25), (4, 4), {
            **_fixed(0.25), "PWR0": [20.0, 0], "PWR3": [3.0, 0],
            "PMC1": [20_000_000, 20_000_000], "PMC2": [100_000_000, 80_000_000],
            **_mbox(2_000_000, 1_000_000)}),
    ],
}
PROGRAM_OUTPUT = "stencil_demo: 2 threads, n = 4096"
#: File names of the rendered outputs (shipped in roofline_widget/data/rendered/).
FILE_NAMES = {group: f"rendered_not_measured_clx_2t_{group}.txt" for group in PROGRAM}


def render_program(directory) -> dict:
    """Write the L2, L3 and MEM_DP outputs of :data:`PROGRAM` into ``directory``; group -> path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for group, regions in PROGRAM.items():
        paths[group] = directory / FILE_NAMES[group]
        paths[group].write_text(perfctr_output(group, regions, PROGRAM_OUTPUT))
    return paths


# ------------------------------------------------------------------ likwid-mpirun
def _percentile_cells(cells: list[str], fraction: float) -> str:
    """likwid-mpirun's ``%ile`` of printed cells: it sorts the *texts* (a LIKWID quirk; readers
    ignore these columns), nearest rank."""
    ordered = sorted(cells)
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def mpirun_region_block(group: Group, name: str, ranks: list[tuple[str, Region]]) -> list[str]:
    """One likwid-mpirun region (``Region:`` and ``Group:`` lines, ``host:rank:cpu`` columns).

    ``ranks`` are ``(column header, Region)``, one hardware thread each: every rank is
    the first (and only measured) thread of its socket, so it reads its socket's uncore
    counters.  Tables as likwid-mpirun prints them (no Region Info table, a ``Region
    calls`` row first, Event STAT with Sum/Min/Max/Avg, Metric STAT with the three
    ``%ile`` columns too).
    """
    heads = [head for head, _ in ranks]
    counts = [_thread_counts(group, region, 0) for _, region in ranks]
    event_rows = [[str(region.calls[0]) for _, region in ranks]]
    event_rows += [[num2str(c[counter]) for c in counts] for counter, _ in group.events]
    events = [("Region calls", "CTR"), *[(e, k) for k, e in group.events]]
    lines = [f"Region: {name}", "Group: 1"]
    lines += table([["Event", *[e for e, _ in events]], ["Counter", *[k for _, k in events]]]
                   + [[head, *[row[i] for row in event_rows]] for i, head in enumerate(heads)])
    lines += table([["Event", *[f"{e} STAT" for e, _ in events]],
                    ["Counter", *[k for _, k in events]], *stat_columns(event_rows)])
    metrics = [group.metrics(c, region.seconds[0]) for c, (_, region) in zip(counts, ranks)]
    names = [metric for metric, _ in metrics[0]]
    metric_rows = [[num2str(m[j][1]) for m in metrics] for j in range(len(names))]
    lines += table([["Metric", *names]]
                   + [[head, *[row[i] for row in metric_rows]] for i, head in enumerate(heads)])
    percentiles = [[f"%ile {int(100 * f)}", *[_percentile_cells(row, f) for row in metric_rows]]
                   for f in (0.25, 0.5, 0.75)]
    lines += table([["Metric", *[f"{n} STAT" for n in names]], *stat_columns(metric_rows),
                    *percentiles])
    return lines


def mpirun_output(group_name: str, regions: dict[str, list[tuple[str, Region]]],
                  program_output: str = "") -> str:
    """The stdout of ``likwid-mpirun -g <group_name> -m`` for ``regions`` (name -> ranks)."""
    group = GROUPS[group_name]
    lines = [program_output, ""] if program_output else []
    for name, ranks in regions.items():
        lines += mpirun_region_block(group, name, ranks)
    return "\n".join(lines) + "\n"


#: The MPI program ``halo_demo``: 8 ranks on 4 two-socket Cascade Lake nodes, one rank per
#: socket (``likwid-mpirun -np 8 -nperdomain S:1``), each pinned to its socket's first core
#: (0 or 20), so that every rank reads its own socket's memory counters.  Per rank:
#: seconds, scalar and AVX-512 DP instructions, CAS reads and writes of each of the 6
#: channels.  ``exchange`` waits on its neighbours (rank 7, at the end of the ring, longest).
MPI_RANKS = tuple((f"node{r // 2 + 1}:{r}:{20 * (r % 2)}", r) for r in range(8))
MPI_PROGRAM = {
    "stencil": [(1.00, 4_000_000, 240_000_000 + 10_000_000 * r, 30_000_000 + 1_000_000 * r,
                 12_000_000) for r in range(8)],
    "exchange": [(0.20 + 0.05 * r, 1_000_000, 4_000_000, 6_000_000, 6_000_000 + 500_000 * r)
                 for r in range(8)],
    "reduce": [(0.10 + (0.08 if r == 0 else 0.0), 2_000_000 + 1_000_000 * (r == 0),
                500_000, 400_000, 200_000) for r in range(8)],
}
#: File name of the rendered likwid-mpirun output (shipped in roofline_widget/data/rendered/).
MPI_FILE_NAME = "rendered_not_measured_clx_8ranks_MEM_DP_mpirun.txt"


def _mpi_region(name: str, seconds: float, scalar: int, avx512: int, reads: int,
                writes: int) -> Region:
    return Region(name, (0,), (seconds,), (1,), {
        **_fixed(seconds, 1), "PWR0": [60.0 * seconds], "PWR3": [9.0 * seconds],
        "PMC1": [scalar], "PMC3": [avx512],
        **{f"MBOX{i}C{j}": [(reads, writes)[j]] for i in _CHANNELS for j in (0, 1)}})


def render_mpi_program(directory) -> Path:
    """Write the likwid-mpirun MEM_DP output of :data:`MPI_PROGRAM` into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    regions = {name: [(head, _mpi_region(name, *values))
                      for (head, _rank), values in zip(MPI_RANKS, per_rank)]
               for name, per_rank in MPI_PROGRAM.items()}
    path = directory / MPI_FILE_NAME
    path.write_text(mpirun_output("MEM_DP", regions, "halo_demo: 8 ranks, 4096 x 4096 per rank"))
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/render_likwid.py DIRECTORY")
    for path in render_program(sys.argv[1]).values():
        print(path)
    print(render_mpi_program(sys.argv[1]))
