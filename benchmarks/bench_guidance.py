"""What the guidance costs beside the points: ``guidance`` and ``points_dataframe(guidance=True)``.

Usage::

    python benchmarks/bench_guidance.py            # 64 ranks x 200 regions x 4 threads, 7 repetitions
    python benchmarks/bench_guidance.py --quick    # 16 x 100 x 4, 3 repetitions

A likwid-mpirun file (``generate.py``'s renderer: MEM_DP group, Scalar and Packed uop rates,
Clock, runtimes per thread) is read once; then, interleaved in one process, the points alone
(``points_dataframe``: the sums are cached on the run, so this is the selection) against the
points with guidance (``points_dataframe(..., guidance=True)``: the facts of every point, the
rules on each).  The first guidance call also reduces the per-thread table once per run (kept
with the run); it is timed on its own.  The widget pays the same once per selection (its first
table, click or hover), then one row of rules per hover.  Printed: medians and the ratio.
"""

from __future__ import annotations

import argparse

from _common import command_line, median, ms, print_table, quiet, timed
from generate import generate_mpirun

from roofline_widget import points_dataframe
from roofline_widget.io import read_likwid_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    arguments = parser.parse_args()
    ranks, regions, threads, repeat = (16, 100, 4, 3) if arguments.quick else (64, 200, 4, 7)
    quiet()
    run = read_likwid_text(generate_mpirun(ranks, regions, threads), "generated.txt")
    first_points, points = timed(points_dataframe, run, group_ranks="rank")
    first_guided, _ = timed(points_dataframe, run, group_ranks="rank", guidance=True)
    plain, guided = [], []
    for _ in range(repeat):
        plain.append(timed(points_dataframe, run, group_ranks="rank")[0])
        guided.append(timed(points_dataframe, run, group_ranks="rank", guidance=True)[0])
    rows = [[f"{len(points):,} points ({ranks} ranks x {regions} regions x {threads} threads)",
             ms(median(plain)), ms(median(guided)), f"{median(guided) / median(plain):.1f}x",
             ms(first_guided)]]
    print_table(f"guidance beside the points ({command_line()})",
                ["data", "points_dataframe", "with guidance", "ratio", "first call with guidance"],
                rows)
    print(f"first points_dataframe (sums built): {ms(first_points)}")


if __name__ == "__main__":
    main()
