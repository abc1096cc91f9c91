"""``roofline-widget plot`` of a small file against a process that only saves an empty figure.

Usage::

    python benchmarks/bench_cli_plot.py                   # 15 rounds, this checkout and BEFORE
    python benchmarks/bench_cli_plot.py --before <commit> --runs 25
    python benchmarks/bench_cli_plot.py --no-bytecode     # as this sandbox runs Python
    python benchmarks/bench_cli_plot.py --quick           # 3 rounds

Three processes, started in turn in every round (interleaved, so all see the
same load), each ``python`` with ``PYTHONPATH`` set to its tree:

* **plot, before**: ``python -m roofline_widget plot <sample 2> -o <png>`` with
  ``roofline_widget/`` of the ``--before`` commit (exported with ``git archive``);
* **plot, after**: the same with this checkout;
* **empty figure**: ``import roofline_widget`` (the package's ``__init__``:
  pandas) and matplotlib's ``Figure().savefig(<png>)`` of an empty figure,
  the floor a plot command cannot go below (issue 33: target <= 1.5x).

Sample 2 is ``gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt`` (2 regions,
4 threads).  Each process's wall time and CPU time (user + system, from
``os.wait4``) are measured; CPU time moves less with the machine's load.
By default Python writes and reads bytecode caches (``PYTHONPYCACHEPREFIX`` in
a temporary folder, one untimed warm-up round compiles them), as an
installed package has them; ``--no-bytecode`` sets ``PYTHONDONTWRITEBYTECODE``
and compiles every module of the package in every process, as this
sandbox's Python does.  ``hyperfine -N`` gives the same comparison when
installed (see docs/performance.md).  Prints medians, the ratios to the
empty figure and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table
from bench_chain import BEFORE, export_tree, load_average

SAMPLE = ROOT / "roofline_widget" / "data" / "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
EMPTY_FIGURE = ("import roofline_widget; from matplotlib.figure import Figure; "
                "Figure().savefig({out!r})")


def run_once(args: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{error[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"commit to compare (default {BEFORE})")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="no bytecode caches (PYTHONDONTWRITEBYTECODE=1)")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-cli-plot-") as tmp:
        work = Path(tmp)
        before = export_tree(args.before, work / "before")
        env = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        cases = {
            f"plot, before ({args.before})": (before, [sys.executable, "-m", "roofline_widget",
                                                       "plot", str(SAMPLE), "-o",
                                                       str(work / "before.png")]),
            "plot, after (this checkout)": (ROOT, [sys.executable, "-m", "roofline_widget", "plot",
                                                   str(SAMPLE), "-o", str(work / "after.png")]),
            "empty figure": (ROOT, [sys.executable, "-c",
                                    EMPTY_FIGURE.format(out=str(work / "empty.png"))]),
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for round_ in range(runs + 1):  # round 0: warm-up (bytecode, file caches), not counted
            for name, (tree, command) in cases.items():
                result = run_once(command, {**env, "PYTHONPATH": str(tree)}, work)
                if round_:
                    times[name].append(result)
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(times, runs, args.no_bytecode)


def report(times: dict[str, list[tuple[float, float]]], runs: int, no_bytecode: bool) -> None:
    floor_wall = median([wall for wall, _cpu in times["empty figure"]])
    floor_cpu = median([cpu for _wall, cpu in times["empty figure"]])
    rows = []
    for name, measured in times.items():
        wall, cpu = median([w for w, _c in measured]), median([c for _w, c in measured])
        rows.append([name, ms(wall), f"{wall / floor_wall:.2f}x", ms(cpu),
                     f"{cpu / floor_cpu:.2f}x"])
    caches = "no bytecode caches" if no_bytecode else "bytecode cached"
    print_table(f"roofline-widget plot of sample 2 (2 points) -o png, medians of {runs} "
                f"interleaved rounds, {caches}", ["process", "wall", "/ empty figure",
                                                  "CPU (user+sys)", "/ empty figure"], rows)
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
