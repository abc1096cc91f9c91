"""RooflineWidget built on thousands of ranks: how long, and what the time goes to (kernel side).

Usage::

    python benchmarks/bench_ranks_build.py           # the 2,304-rank job, 5 builds each way
    python benchmarks/bench_ranks_build.py --runs 3
    python benchmarks/bench_ranks_build.py --quick   # 1 build each way

The data is the generated likwid-mpirun log of ``tests/study_files.py``: 32 hosts x 72 ranks,
one region, memory counted on each socket's first rank (the socket points of the default
``group_ranks="auto"`` are 64).  Interleaved in one process: the widget built with every rank
selected (the default), and with one rank selected (``ranks=[0]``: the same data, the ranks
control's value one number); their ratio is the cost of the rank count in the build.  Then one
build under cProfile: the share of the time spent in ipywidgets' ``SelectMultiple`` validating
its value (every selected rank looked up in the option list: n^2 / 2 comparisons).  Figures are
for this machine (2 shared cores) and vary with its load: read the ratios.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import tempfile
from pathlib import Path

from _common import command_line, median, ms, print_table, quiet, timed

from roofline_widget import RooflineWidget, read_likwid


def _selection_share(run) -> tuple[float, float]:
    """(seconds of one profiled build, seconds of it in SelectMultiple's value validation)."""
    profile = cProfile.Profile()
    profile.enable()
    RooflineWidget(run)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(entry[3] for key, entry in stats.items() if key[2] == "__init__"
                and key[0].endswith("roofline_widget.py"))
    validate = sum(entry[3] for key, entry in stats.items()
                   if key[0].endswith("widget_selection.py") and key[2] == "_validate_value")
    return total, validate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one build each way")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    quiet()
    from study_files import write_ranks

    with tempfile.TemporaryDirectory() as folder:
        read_s, run = timed(read_likwid, write_ranks(Path(folder) / "ranks2304.txt"))
    RooflineWidget(run)  # warm: the run's sums are cached on it, as in a session
    every, one = [], []
    for _ in range(args.runs):
        every.append(timed(RooflineWidget, run)[0])
        one.append(timed(RooflineWidget, run, ranks=[0])[0])
    total, validate = _selection_share(run)
    print(f"load average {os.getloadavg()[0]:.2f}; {command_line()}")
    print_table(f"RooflineWidget on {len(run.ranks):,} ranks (medians of {args.runs})",
                ["what", "time"],
                [["read_likwid of the log", ms(read_s)],
                 ["build, every rank selected", ms(median(every))],
                 ["build, ranks=[0]", ms(median(one))],
                 ["ratio every / one", f"{median(every) / median(one):.2f}x"],
                 ["profiled build", ms(total)],
                 ["  of it: SelectMultiple value validation", f"{ms(validate)} "
                  f"({100 * validate / total:.0f} %)"]])


if __name__ == "__main__":
    main()
