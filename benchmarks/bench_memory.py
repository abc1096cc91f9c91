"""Peak memory of ``read_likwid`` against the size of the file it reads.

Usage::

    python benchmarks/bench_memory.py            # 100 MB files, 3 reads each
    python benchmarks/bench_memory.py --quick    # 10 MB files
    python benchmarks/bench_memory.py --size 200 --repeat 5

Four files of about ``--size`` MB are written once to ``/tmp`` (reused):

* ``perfctr``: a likwid-perfctr 5.x job log, 16 threads per block, many
  regions (``bench_read.py``'s file: a CPU header per rank, MEM_DP tables);
* ``mpirun``: likwid-mpirun marker output, 64 ranks x 16 threads a row
  (``generate.py``'s file);
* ``csv``: likwid-perfctr ``-O`` CSV, a ``STRUCT,Info`` block and Raw, Raw
  STAT, Metric and Metric STAT tables per region, 16 threads;
* ``joblog``: a job log that is mostly the program's own short lines (nine of
  ten lines ``Starting iteration: N``) around likwid-perfctr tables of 4 threads.

Each read runs in its own subprocess, after one small read (so that every
module is imported): the peak RSS (VmHWM, reset first) minus the RSS before
the read, over the file size, median of the repeats.  Target: under 3x the
file size for every file.  The model the read builds is part of the peak (it
stays in memory); so is everything the reader holds while it reads.
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
    peak_rss_mb,
    print_table,
    reset_peak_rss,
    run_json_subprocess,
    verdict,
)

TARGET = 3.0  # peak memory / file size
HEADER = ["STRUCT,Info,3", "CPU name:,Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz,",
          "CPU type:,Intel Skylake SP processor,", "CPU clock:,2.59 GHz,"]


def _generate_module():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate

    return generate


def _csv_block(region: int, n_threads: int) -> list[str]:
    """One region's CSV tables as likwid-perfctr -O prints them (5.x, HWThread columns)."""
    gen = _generate_module()
    threads = [f"HWThread {t}" for t in range(n_threads)]
    block = gen._synthetic_block(region, threads)
    name = f"region_{region:05d}"
    lines = [*HEADER, f"TABLE,Region {name},Group 1 Raw,MEM_DP,{len(block.events)}",
             "Region Info," + ",".join(threads) + ",",
             "RDTSC Runtime [s]," + ",".join(block.runtime) + ",",
             "call count," + ",".join(block.calls) + ",",
             "Event,Counter," + ",".join(threads)]
    lines += [f"{e},{c}," + ",".join(cells) for e, c, cells in block.events]
    stats = gen.stat_columns([e[2] for e in block.events])
    lines += [f"TABLE,Region {name},Group 1 Raw STAT,MEM_DP,{len(block.events)}",
              "Event,Counter,Sum,Min,Max,Avg"]
    lines += [f"{e} STAT,{c}," + ",".join(column[1 + k] for column in stats)
              for k, (e, c, _) in enumerate(block.events)]
    lines += [f"TABLE,Region {name},Group 1 Metric,MEM_DP,{len(block.metrics)}",
              "Metric," + ",".join(threads) + ","]
    lines += [f"{m}," + ",".join(cells) + "," for m, cells in block.metrics]
    stats = gen.stat_columns([m[1] for m in block.metrics], fmt=gen.num2str)
    lines += [f"TABLE,Region {name},Group 1 Metric STAT,MEM_DP,{len(block.metrics)}",
              "Metric,Sum,Min,Max,Avg,"]
    lines += [f"{m} STAT," + ",".join(column[1 + k] for column in stats) + ","
              for k, (m, _) in enumerate(block.metrics)]
    return lines


def _write_lines(path: Path, size: float, make_part) -> None:
    """Write ``make_part(k)`` (a list of lines) for k = 0, 1, ... until ``size`` bytes."""
    written, k = 0, 0
    with open(path, "w") as out:
        while written < size:
            text = "\n".join(make_part(k)) + "\n"
            out.write(text)
            written += len(text)
            k += 1


def generate(kind: str, path: Path, size: float) -> None:
    """Write the ``kind`` file of about ``size`` bytes (see the module docstring)."""
    gen = _generate_module()
    if kind == "perfctr":
        from bench_read import generate as perfctr_log

        ranks = max(1, round(size / 3.45e6))  # one rank: 200 regions x 16 threads ~ 3.45 MB
        perfctr_log(path, ranks, 200, 16)
    elif kind == "mpirun":
        _write_lines(path, size, lambda k: gen.generate_mpirun(64, 1, 16).splitlines()
                     if k == 0 else gen.render_block(gen._synthetic_block(
                         k, [f"node{r // 4:03d}:{r}:{t}" for r in range(64) for t in range(16)]),
                         "mpirun"))
    elif kind == "csv":
        _write_lines(path, size, lambda k: _csv_block(k, 16))
    elif kind == "joblog":
        threads = [f"HWThread {t}" for t in range(4)]

        def part(k: int) -> list[str]:
            program = [f"Starting iteration: {k * 2000 + i}" for i in range(2000)]
            return program + gen.render_block(gen._synthetic_block(k, threads), "5",
                                              cpu_header=gen.cpu_header_lines())
        _write_lines(path, size, part)
    else:
        raise ValueError(kind)


KINDS = ("perfctr", "mpirun", "csv", "joblog")


def child(path: str) -> None:
    """One measurement (run in a subprocess): print a JSON object."""
    import warnings

    from roofline_widget import read_likwid, sample_path

    warnings.simplefilter("ignore")
    read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))  # imports
    baseline = current_rss_mb()
    reset_peak_rss()
    start = time.perf_counter()
    run = read_likwid(path)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mb": peak_rss_mb(), "baseline_mb": baseline,
                      "rows": len(run.table), "runs": max(1, len(run.runs))}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 MB files, 3 reads")
    parser.add_argument("--size", type=float, help="file size in MB (default 100)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    megabytes = args.size or (10 if args.quick else 100)
    print(f"command: {command_line()}")
    rows = []
    for kind in args.kinds:
        path = Path("/tmp") / f"roofline_bench_memory_{kind}_{megabytes:g}MB.txt"
        if not path.exists():
            generate(kind, path.with_suffix(".tmp"), megabytes * 1e6)
            path.with_suffix(".tmp").rename(path)
        size_mb = path.stat().st_size / 2**20
        reads = [run_json_subprocess(Path(__file__), "--child", str(path))
                 for _ in range(args.repeat)]
        ratio = median([(r["peak_mb"] - r["baseline_mb"]) / size_mb for r in reads])
        seconds = median([r["seconds"] for r in reads])
        rows.append([kind, f"{size_mb:.0f} MiB", f"{reads[0]['rows']:,}", str(reads[0]["runs"]),
                     f"{median([r['peak_mb'] - r['baseline_mb'] for r in reads]):.0f} MiB",
                     f"{ratio:.2f}x", f"< {TARGET:g}x", verdict(ratio, TARGET, False),
                     f"{seconds:.1f} s"])
    print_table(f"read_likwid peak memory (VmHWM - RSS before the read), median of {args.repeat} "
                "reads, one subprocess each",
                ["file", "size", "thread rows", "runs", "peak - before", "/ size", "target",
                 "verdict", "time"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
