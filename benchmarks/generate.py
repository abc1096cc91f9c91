"""Render LIKWID text output the way LIKWID prints it, and time the text reader.

The renderer follows the printing code of LIKWID (read from its sources):

* ``likwid.lua`` ``printtable`` (4.1 .. 5.x): ``+-<w>-+`` borders, rows
  ``"| " + " | ".join(cells) + " |"``, strings centred (the larger half of the
  padding in front), numbers right-aligned; ``num2str`` formatting;
* ``likwid.lua`` 4.0.x: every cell centred, counts printed ``%e``;
* ``asciiTable.c`` (3.x): ``+<w+2>+`` borders, ``|`` joins, every cell centred,
  numbers ``%g``, no Counter column, STAT columns ``Sum | Max | Min | Avg``;
* ``likwid-mpirun.lua`` ``printMpiOutput``: ``Region:``/``Group:`` lines,
  ``host:rank:cpu`` columns, a ``Region calls | CTR`` row, ``%ile`` columns.

Run ``python benchmarks/generate.py [ranks regions threads]`` to write a
likwid-mpirun file (default 64 x 200 x 16, about 50 MB) and a likwid-perfctr
file of similar size, parse both and print MB/s.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HLINE = "-" * 80
DLINE = "=" * 80


def num2str(value: float) -> str:
    """LIKWID >= 4.1 ``num2str``: integer text, ``%.4f`` if short, else ``%e``."""
    if value != value:
        return "nan"
    if value == 0:
        return "0"
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    short = f"{value:.4f}"
    if len(short) < 12 and float(short) != 0:
        return short
    return f"{value:e}"


def lua_tostring(value: float) -> str:
    """Lua's ``tostring`` of a number (``%.14g``, integers without a fraction)."""
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    return f"{value:.14g}"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "-nan", "inf", "-inf", "infinity")


def render_table(columns: list, style: str = "5") -> list:
    """Render a column-major table (first cell of each column is its header).

    ``style`` is ``"5"`` (LIKWID 4.1+ and likwid-mpirun), ``"4.0"`` or ``"3"``.
    """
    widths = [max(len(c) for c in column) for column in columns]
    rows = list(zip(*columns))
    if style == "3":
        widths = [w + 2 for w in widths]
        border = "".join("+" + "-" * w for w in widths) + "+"
        line = lambda cells, head: "".join(  # noqa: E731
            "|" + _centre(c, w) for c, w in zip(cells, widths)) + "|"
    else:
        border = "".join("+-" + "-" * w + "-" for w in widths) + "+"

        def line(cells, head):
            out = []
            for cell, width in zip(cells, widths):
                if style == "5" and not head and _is_number(cell):
                    out.append(cell.rjust(width))
                else:
                    out.append(_centre(cell, width))
            return "| " + " | ".join(out) + " |"
    text = [border, line(rows[0], True), border]
    text += [line(row, False) for row in rows[1:]]
    if len(rows) > 1:
        text.append(border)
    return text


def _centre(text: str, width: int) -> str:
    pad = width - len(text)
    front = pad - pad // 2  # the larger half in front, as LIKWID's get_spaces
    return " " * front + text + " " * (pad // 2)


def stat_columns(rows: list, order=("Sum", "Min", "Max", "Avg"), fmt=num2str) -> list:
    """STAT columns computed like ``tableMinMaxAvgSum`` from formatted cells."""
    sums, mins, maxs, avgs = [], [], [], []
    for row in rows:
        numbers = [float(c) for c in row if _is_number(c)]
        total = sum(numbers)
        sums.append(fmt(total))
        mins.append(fmt(min(numbers)) if numbers else "inf")
        maxs.append(fmt(max(numbers)) if numbers else "0")
        avgs.append(fmt(total / len(row)))
    by_name = {"Sum": sums, "Min": mins, "Max": maxs, "Avg": avgs}
    return [[name] + by_name[name] for name in order]


@dataclass
class Block:
    """What one (region, group) block holds, as formatted cell strings."""

    region: str
    group_index: int
    group: str
    threads: list            # column headers
    events: list             # (name, counter, [cells per thread])
    metrics: list            # (name, [cells per thread])
    runtime: list = field(default_factory=list)   # cells per thread
    calls: list = field(default_factory=list)     # cells per thread


def render_block(block: Block, layout: str, *, blank_lines: bool = True,
                 cpu_header: list | None = None, stats: bool | None = None) -> list:
    """Render one block in ``layout`` ``"3"``, ``"4.0"``, ``"5"``, ``"wrapper"``
    or ``"mpirun"`` as a list of lines."""
    style = {"3": "3", "4.0": "4.0"}.get(layout, "5")
    stats = len(block.threads) > 1 if stats is None else stats
    out = list(cpu_header or [])
    if layout == "3":
        out += ["", "=" * 21, f"Region: {block.region} ", "=" * 21]
    elif layout == "4.0":
        out += [DLINE, f"Group {block.group_index} {block.group}: Region {block.region}", DLINE]
    elif layout == "5":
        out.append(f"Region {block.region}, Group {block.group_index}: {block.group}")
    elif layout == "wrapper":
        out.append(f"Group {block.group_index}: {block.group}")
    elif layout == "mpirun":
        out += [f"Region: {block.region}", f"Group: {block.group_index}"]

    def emit(columns):
        out.extend(render_table(columns, style))
        if blank_lines:
            out.append("")

    if layout in ("3", "4.0", "5"):
        emit([["Region Info", "RDTSC Runtime [s]", "call count"]]
             + [[t, r, c] for t, r, c in zip(block.threads, block.runtime, block.calls)])
    events = list(block.events)
    if layout == "mpirun" and block.calls:
        events.insert(0, ("Region calls", "CTR", block.calls))
    names = [e[0] for e in events]
    labels = [["Event", *names]]
    if layout != "3":
        labels.append(["Counter"] + [e[1] for e in events])
    emit(labels + [[t] + [e[2][k] for e in events] for k, t in enumerate(block.threads)])
    order = ("Sum", "Max", "Min", "Avg") if layout == "3" else ("Sum", "Min", "Max", "Avg")
    if stats and layout != "3":
        stat_labels = [["Event"] + [n + " STAT" for n in names], *labels[1:]]
        emit(stat_labels + stat_columns([e[2] for e in events], order))
    if block.metrics:
        emit([["Metric"] + [m[0] for m in block.metrics]]
             + [[t] + [m[1][k] for m in block.metrics] for k, t in enumerate(block.threads)])
        if stats:
            fmt = "%g".__mod__ if layout == "3" else num2str
            columns = stat_columns([m[1] for m in block.metrics], order, fmt)
            if layout == "mpirun":
                columns += [[f"%ile {p}", *column[1:]] for p, column in
                            zip((25, 50, 75), columns[1:])]  # LIKWID's are not trustworthy
            emit([["Metric"] + [m[0] + " STAT" for m in block.metrics], *columns])
    return out


def cpu_header_lines(layout: str = "5") -> list:
    if layout == "3":
        line = "-" * 61
        return [line, "CPU type:\tIntel Core Westmere processor ", "CPU clock:\t2.93 GHz ", line]
    return [HLINE, "CPU name:\tIntel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz   ",
            "CPU type:\tIntel Skylake SP processor", "CPU clock:\t2.59 GHz", HLINE]


# ---------------------------------------------------------------- benchmarks
_EVENTS = [("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
           ("CPU_CLK_UNHALTED_REF", "FIXC2"), ("FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", "PMC0"),
           ("FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE", "PMC1"), ("CAS_COUNT_RD", "MBOX0C0"),
           ("CAS_COUNT_WR", "MBOX0C1"), ("PWR_PKG_ENERGY", "PWR0")]
_METRICS = ["Runtime (RDTSC) [s]", "Runtime unhalted [s]", "Clock [MHz]", "CPI",
            "DP [MFLOP/s]", "AVX DP [MFLOP/s]", "Memory bandwidth [MBytes/s]",
            "Memory data volume [GBytes]", "Operational intensity [FLOP/Byte]",
            "L3|MEM evict bandwidth [MBytes/s]"]


def _synthetic_block(region: int, threads: list) -> Block:
    n = len(threads)
    cell = lambda k, r, t: num2str(((k + 3) * 7919 * (r + 1) + t * 104729) % 10**9 / 7.0)  # noqa: E731
    events = [(name, counter, [str((k + 1) * 1000003 * (region + 1) + t) for t in range(n)])
              for k, (name, counter) in enumerate(_EVENTS)]
    metrics = [(name, [cell(k, region, t) for t in range(n)]) for k, name in enumerate(_METRICS)]
    return Block(f"region <{region}> no. {region}", 1, "MEM_DP", threads, events, metrics,
                 runtime=["%.6f" % (1.5 + t / 1000) for t in range(n)], calls=["10"] * n)


def generate_mpirun(ranks: int, regions: int, threads: int) -> str:
    """likwid-mpirun marker output: one table column per (rank, thread)."""
    columns = [f"node{r // 4:03d}:{r}:{t}" for r in range(ranks) for t in range(threads)]
    lines = ["INFO: You are running LIKWID in a cpuset with 16 CPUs."] * 3
    for region in range(regions):
        lines += render_block(_synthetic_block(region, columns), "mpirun")
    return "\n".join(lines) + "\n"


def generate_perfctr(regions: int, threads: int, *, repeat_header: bool = True) -> str:
    """likwid-perfctr 5.x marker output (``-o file.txt`` style when repeating the header)."""
    columns = [f"HWThread {t}" for t in range(threads)]
    lines = [] if repeat_header else cpu_header_lines()
    for region in range(regions):
        lines += render_block(_synthetic_block(region, columns), "5",
                              blank_lines=not repeat_header,
                              cpu_header=cpu_header_lines() if repeat_header else None)
    return "\n".join(lines) + "\n"


def measure(text: str, label: str) -> float:
    """Parse ``text`` with the text reader; print and return MB/s (best of 3)."""
    from roofline_widget.io.likwid_text import parse_text

    size = len(text.encode()) / 1e6
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        parsed = parse_text(text, label)
        best = min(best, time.perf_counter() - start)
    threads = sum(len(b.threads) for b in parsed["blocks"])
    print(f"{label}: {size:.1f} MB, {len(parsed['blocks'])} blocks, {threads} thread columns, "
          f"{best:.2f} s -> {size / best:.1f} MB/s")
    return size / best


def main(argv: list) -> None:
    ranks, regions, threads = (int(a) for a in argv) if argv else (64, 200, 16)
    mpirun = generate_mpirun(ranks, regions, threads)
    measure(mpirun, f"mpirun {ranks} ranks x {regions} regions x {threads} threads")
    per_region = len(generate_perfctr(1, threads))
    perfctr = generate_perfctr(max(1, len(mpirun) // per_region), threads)
    measure(perfctr, f"perfctr {threads} threads, one block per region")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write(mpirun)
    from roofline_widget.io import read_likwid
    start = time.perf_counter()
    run = read_likwid(handle.name)
    print(f"read_likwid (parse + build_run) of the mpirun file: "
          f"{time.perf_counter() - start:.2f} s, {len(run.table)} rows")
    Path(handle.name).unlink()


if __name__ == "__main__":
    main(sys.argv[1:])
