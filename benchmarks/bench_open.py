"""Open a scope-profiler HDF5 file until the points are ready: ours against scope-profiler.

Run ``python benchmarks/bench_open.py [ranks regions threads] [--repeat N]``
(default 64 x 500 x 32, 3 repetitions).  The file is written by
scope-profiler's own writer (``write_likwid_results`` per rank, through
``tests/scope_fixtures.write_scope_h5``), then, in one process, interleaved:

* ours: :func:`~roofline_widget.io.scope_h5.read_scope_sums` (cache off,
  default executor: a process pool for this size) + ``RegionSums(...).select(...).points``;
* ours serial: the same in this process (no pool), to show what the pool adds;
* reference: ``ProfilingResults.from_h5`` + scope-profiler's
  ``collect_roofline_points``;

then the reopen from the cache, the peak memory of a serial read (tracemalloc)
against the numeric size of what is read, and the scaling in ranks up to 512
(files simulated by copying the rank groups of a writer-written file).  The
load average (``/proc/loadavg``) is printed before and after: the machine may
be shared, and both sides slow down with the load.
"""

from __future__ import annotations

import argparse
import tempfile
import tracemalloc
from concurrent.futures import Executor, Future
from pathlib import Path

from _common import BANDWIDTH, FLOPS, median, ms, print_table, quiet, shown, timed, verdict


class InlineExecutor(Executor):
    """Runs every task at once in this process (for tracemalloc)."""

    def submit(self, fn, /, *args, **kwargs):
        future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def ours(path, **keywords):
    from roofline_widget.io.scope_h5 import read_scope_sums
    from roofline_widget.points import RegionSums

    sums = read_scope_sums(path, progress=False, **keywords)
    return RegionSums([sums], [sums.label]).select(flops_metric=FLOPS,
                                                   bandwidth_metric=BANDWIDTH).points


def reference(path):
    from scope_profiler.plotting_scripts.roofline import collect_roofline_points
    from scope_profiler.results import ProfilingResults

    results = ProfilingResults.from_h5(path)
    return collect_roofline_points(results, flops_metric=FLOPS, bandwidth_metric=BANDWIDTH)


def write(path, ranks, regions, threads):
    from scope_fixtures import write_scope_h5

    return write_scope_h5(path, {"n_ranks": ranks, "n_regions": regions,
                                 "n_threads": threads, "n_metrics": 20, "seed": 1})


def replicate(base: Path, target: Path, ranks: int) -> Path:
    """A file of ``ranks`` ranks: the rank groups of ``base`` copied round-robin (HDF5 copies)."""
    import h5py

    with h5py.File(base, "r") as source, h5py.File(target, "w") as out:
        names = sorted((n for n in source if n.startswith("rank")), key=lambda n: int(n[4:]))
        for rank in range(ranks):
            source.copy(source[names[rank % len(names)]], out, name=f"rank{rank}")
    return target


def import_both():
    """Import both sides' modules before timing (a notebook has them imported already)."""
    import roofline_widget.io.scope_h5  # noqa: F401
    import roofline_widget.points  # noqa: F401
    import scope_profiler.plotting_scripts.roofline  # noqa: F401
    import scope_profiler.results  # noqa: F401


def compare(path, repeat):
    import_both()
    mine, serial, theirs = [], [], []
    for _ in range(repeat):
        seconds, points = timed(ours, path, cache=False)
        mine.append(seconds)
        serial.append(timed(ours, path, cache=False, executor=InlineExecutor())[0])
        seconds, dicts = timed(reference, path)
        theirs.append(seconds)
    assert len(points) == len(dicts), (len(points), len(dicts))
    a, c, b = shown(median(mine)), shown(median(serial)), shown(median(theirs))
    print_table(f"open + points ready (median of {repeat})",
                ["step", "ours", "scope-profiler", "ratio", "target >= 10x"],
                [["from_h5 / read_scope_sums + points", ms(a), ms(b), f"{b / a:.1f}x",
                  verdict(b / a, 10, True)],
                 ["same, ours serial (no pool)", ms(c), ms(b), f"{b / c:.1f}x",
                  verdict(b / c, 10, True)]])


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def cached(path, repeat, directory):
    ours(path, cache_dir=directory)  # writes the entry
    times = [timed(ours, path, cache_dir=directory)[0] for _ in range(repeat)]
    value = shown(median(times))
    print_table("reopen from the cache", ["step", "median", "target < 0.5 s"],
                [["read_scope_sums (cache hit) + points", ms(value), verdict(value, 0.5, False)]])


def memory(path, ranks, regions, threads):
    from roofline_widget.io.scope_h5 import read_scope_sums

    numeric = ranks * regions * threads * (20 + 2) * 8  # metrics, times, call_counts as float64
    tracemalloc.start()
    read_scope_sums(path, cache=False, executor=InlineExecutor(), progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print_table("peak memory of a serial read (tracemalloc)",
                ["numeric size read", "peak", "ratio", "target < 3x"],
                [[f"{numeric / 1e6:.1f} MB", f"{peak / 1e6:.1f} MB", f"{peak / numeric:.2f}x",
                  verdict(peak / numeric, 3, False)]])


def scaling(directory: Path):
    base = write(directory / "base.h5", 64, 50, 8)
    rows = []
    for ranks in (64, 128, 256, 512):
        path = replicate(base, directory / f"ranks{ranks}.h5", ranks)
        seconds = shown(timed(ours, path, cache=False)[0])
        rows.append([ranks, ranks * 50, ms(seconds), f"{seconds / (ranks * 50) * 1e6:.0f} us"])
    print_table("scaling in ranks (50 regions x 8 threads per rank; ours, default executor)",
                ["ranks", "regions", "open + points", "per region"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", nargs="*", type=int, default=[64, 500, 32])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-scaling", action="store_true")
    args = parser.parse_args()
    ranks, regions, threads = args.shape
    quiet()
    print(f"load average (1, 5, 15 min) at the start: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seconds, path = timed(write, tmp / "profile.h5", ranks, regions, threads)
        print(f"{ranks} ranks x {regions} regions x {threads} threads, written by "
              f"scope-profiler's writer in {ms(seconds)} ({path.stat().st_size / 1e6:.0f} MB)")
        compare(path, args.repeat)
        cached(path, args.repeat, tmp / "cache")
        memory(path, ranks, regions, threads)
        if not args.no_scaling:
            scaling(tmp)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
