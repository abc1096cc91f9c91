"""``read_likwid`` on a large generated likwid-perfctr 5.x text file: speed and memory.

Usage::

    python benchmarks/bench_read.py               # 16 x 200 x 16 (~54 MB), 5 runs
    python benchmarks/bench_read.py --quick       # 8 x 100 x 16 (~4 MB), 3 runs
    python benchmarks/bench_read.py --size 64 200 16 --repeat 7

The file imitates what 16 MPI ranks (by default), each running
``likwid-perfctr -m -g MEM_DP`` on 16 hardware threads of its own (HWThread
``16 r`` ... ``16 r + 15``), write into one log: per rank a CPU header, then
per region the ``Region <tag>, Group 1: MEM_DP`` line and the Region Info,
Event (13 MEM_DP events), Event STAT, Metric (the 20 MEM_DP metrics) and
Metric STAT tables, rendered like LIKWID 5.x (``printtable`` borders and
alignment, ``num2str`` numbers; see ``benchmarks/generate.py``).
It is written once to ``/tmp`` and reused.

Each measurement runs in its own subprocess (``read_likwid(path)``: read,
decode, parse, build the columnar model) and reports the time, the peak RSS
(VmHWM) and the model's size (``memory_usage(deep=True)`` of ``table``,
``events`` and ``stats``).  Targets: >= 20 MB/s, model <= 3x the bytes of
the numeric values of the per-thread tables (8 bytes x cells of Region
Info, Event and Metric).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import (
    ROOT,
    command_line,
    current_rss_mb,
    median,
    ms,
    peak_rss_mb,
    print_table,
    run_json_subprocess,
    verdict,
)

RATE_TARGET = 20.0      # MB/s
MEMORY_TARGET = 3.0     # model bytes / numeric bytes
_EVENTS = [("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
           ("CPU_CLK_UNHALTED_REF", "FIXC2"), ("PWR_PKG_ENERGY", "PWR0"),
           ("PWR_DRAM_ENERGY", "PWR3"), ("FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE", "PMC0"),
           ("FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", "PMC1"),
           ("FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE", "PMC2"),
           ("FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE", "PMC3"),
           ("CAS_COUNT_RD", "MBOX0C0"), ("CAS_COUNT_WR", "MBOX0C1"),
           ("CAS_COUNT_RD", "MBOX1C0"), ("CAS_COUNT_WR", "MBOX1C1")]


def _metrics():
    sys.path.insert(0, str(ROOT / "tests"))
    from scope_fixtures import MEM_DP_METRICS

    return list(MEM_DP_METRICS)


def generate(path: Path, n_ranks: int, n_regions: int, n_threads: int) -> None:
    """Write the log described in the module docstring."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generate import Block, cpu_header_lines, num2str, render_block

    rng = np.random.default_rng(0)
    metrics = _metrics()
    with open(path, "w") as out:
        for rank in range(n_ranks):
            lines = cpu_header_lines()
            threads = [f"HWThread {rank * n_threads + t}" for t in range(n_threads)]
            for region in range(n_regions):
                counts = np.round(rng.uniform(1e5, 1e10, (len(_EVENTS), n_threads)))
                values = rng.uniform(0.01, 5000.0, (len(metrics), n_threads))
                runtime = rng.uniform(0.01, 2.0) * rng.uniform(0.98, 1.0, n_threads)
                values[0], values[1] = runtime, runtime * 0.9            # Runtime (RDTSC), unhalted
                values[2] = rng.integers(1000, 3500, n_threads)        # Clock [MHz]: integers
                values[4:8, 1:] = 0.0                                    # socket-lock metrics
                block = Block(
                    f"region_{region:03d}", 1, "MEM_DP", threads,
                    [(e, c, [num2str(v) for v in row]) for (e, c), row in zip(_EVENTS, counts)],
                    [(m, [num2str(v) for v in row]) for m, row in zip(metrics, values)],
                    runtime=[num2str(v) for v in runtime],
                    calls=[str(int(rng.integers(1, 1000)))] * n_threads)
                lines += render_block(block, "5")
            out.write("\n".join(lines) + "\n")


def child(path: str) -> None:
    """One measurement (run in a subprocess): print a JSON object."""
    from roofline_widget import read_likwid

    baseline = current_rss_mb()
    start = time.perf_counter()
    run = read_likwid(path)
    elapsed = time.perf_counter() - start
    model = {name: int(getattr(run, name).memory_usage(deep=True).sum())
             for name in ("table", "events", "stats")}
    n_metrics = len(run.metric_names)
    numeric_cells = len(run.table) * (2 + run.events.shape[1] + n_metrics)  # Region Info: 2 rows
    print(json.dumps({"seconds": elapsed, "peak_rss_mb": peak_rss_mb(), "baseline_mb": baseline,
                      "model": model, "numeric_cells": numeric_cells, "rows": len(run.table),
                      "stats_rows": len(run.stats), "metrics": n_metrics,
                      "events": run.events.shape[1]}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--size", type=int, nargs=3, metavar=("RANKS", "REGIONS", "THREADS"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    size = tuple(args.size or ((8, 100, 16) if args.quick else (16, 200, 16)))
    repeat = 3 if args.quick else max(args.repeat, 5)
    print(f"command: {command_line()}")
    path = Path("/tmp") / f"roofline_bench_perfctr_{size[0]}x{size[1]}x{size[2]}.txt"
    if not path.exists():
        start = time.perf_counter()
        generate(path.with_suffix(".tmp"), *size)
        path.with_suffix(".tmp").rename(path)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s")
    mb = path.stat().st_size / 1e6
    runs = [run_json_subprocess(Path(__file__), "--child", str(path)) for _ in range(repeat)]
    first = runs[0]
    seconds = median([r["seconds"] for r in runs])
    model_bytes = sum(first["model"].values())
    numeric_bytes = 8 * first["numeric_cells"]
    ratio = model_bytes / numeric_bytes
    print(f"file: {path} ({mb:.1f} MB, {size[0]} ranks x {size[1]} regions x {size[2]} threads, "
          f"{first['rows']:,} thread rows, {first['metrics']} metrics, {first['events']} events, "
          f"{first['stats_rows']:,} STAT rows)")
    print_table(f"read_likwid, median of {repeat} runs, one subprocess each", [
        "quantity", "measured", "target", "verdict"], [
        ["time", ms(seconds), "", ""],
        ["throughput", f"{mb / seconds:.1f} MB/s", f">= {RATE_TARGET:.0f} MB/s",
         verdict(mb / seconds, RATE_TARGET, True)],
        ["model: table", f"{first['model']['table'] / 1e6:.1f} MB", "", ""],
        ["model: events", f"{first['model']['events'] / 1e6:.1f} MB", "", ""],
        ["model: stats", f"{first['model']['stats'] / 1e6:.1f} MB", "", ""],
        ["numeric values (8 B x cells)", f"{numeric_bytes / 1e6:.1f} MB", "", ""],
        ["model / numeric values", f"{ratio:.2f}x", f"<= {MEMORY_TARGET:.0f}x",
         verdict(ratio, MEMORY_TARGET, False)],
        ["peak RSS of the process", f"{median([r['peak_rss_mb'] for r in runs]):.0f} MB", "", ""],
        ["RSS before reading (imports)", f"{first['baseline_mb']:.0f} MB", "", ""],
    ])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
