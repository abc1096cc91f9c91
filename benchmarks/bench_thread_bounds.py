"""What plausibility per thread costs: a selection's points with and without the per-thread columns.

Usage::

    python benchmarks/bench_thread_bounds.py            # 64 ranks x 100 regions x 16 threads, 21 reps
    python benchmarks/bench_thread_bounds.py --quick    # 7 repetitions

Every point carries the largest rate of the threads it sums and the bound of
one thread (``thread_max_gflops``, ``thread_max_gbs``, ``thread_limit_gflops``:
:mod:`roofline_widget.roofs.hardware_bounds`), so one broken thread among many
flags its point.  Timed, interleaved, on one likwid-mpirun run rendered as
LIKWID prints it (``generate.py``): ``RegionSums.select(...).points`` (a new
selection each repetition: the widget's refresh) and ``beyond_hardware`` of
the points, with the per-thread columns and with them left out (the old
per-point rule alone).  The maxima over threads are worked out once per run
and metric (cached like the sums), so the first selection pays for them:
its time is printed apart.  No target of its own: the widget's refresh
(``bench_widget.py``) holds it; printed are medians and the ratio.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path
from unittest import mock

from _common import command_line, median, ms, print_table, timed
from generate import generate_mpirun

from roofline_widget import read_likwid
from roofline_widget.points import RegionSums, SelectedPoints
from roofline_widget.roofs.hardware_bounds import THREAD_COLUMNS, THREAD_LIMIT_COLUMN, beyond_hardware

PER_THREAD = (*THREAD_COLUMNS.values(), THREAD_LIMIT_COLUMN)


def _without(self) -> dict:
    """No per-thread columns (the old rule alone)."""
    return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    arguments = parser.parse_args()
    repeat = 7 if arguments.quick else 21
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(folder) / "mpirun.txt"
        path.write_text(generate_mpirun(64, 100, 16))
        run = read_likwid(path)
        sums = RegionSums.from_runs(run)
        first, _ = timed(lambda: sums.select(group_ranks="rank").points)
        times: dict[str, list[float]] = {"with": [], "without": [], "flags with": [],
                                         "flags without": []}
        for _ in range(repeat):
            seconds, points = timed(lambda: sums.select(group_ranks="rank").points)
            times["with"].append(seconds)
            times["flags with"].append(timed(beyond_hardware, points)[0])
            with mock.patch.object(SelectedPoints, "thread_columns", _without):
                seconds, points = timed(lambda: sums.select(group_ranks="rank").points)
            times["without"].append(seconds)
            times["flags without"].append(timed(beyond_hardware, points)[0])
    n = len(points)
    rows = [["select().points", ms(median(times["with"])), ms(median(times["without"])),
             f"{median(times['with']) / median(times['without']):.2f}"],
            ["beyond_hardware", ms(median(times["flags with"])), ms(median(times["flags without"])),
             f"{median(times['flags with']) / median(times['flags without']):.2f}"]]
    print(command_line())
    print(f"{n:,} points (64 ranks x 100 regions, 16 threads each); the first selection, which "
          f"works the maxima out: {ms(first)}")
    print_table(f"per-thread plausibility, medians of {repeat}", ["", "with per-thread columns",
                                                                  "without", "ratio"], rows)


if __name__ == "__main__":
    main()
