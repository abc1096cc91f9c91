"""Open a scope-profiler HDF5 file until the points are ready: ours against scope-profiler.

Run ``python benchmarks/bench_open.py [ranks regions threads] [--repeat N]``
(default 64 x 500 x 32, 3 repetitions); ``--breakdown`` (e.g. ``8 500 32
--breakdown``) prints instead the CPU time per region of each h5py call and
of the two per-rank readers (direct and through h5py).  The file is written by
scope-profiler's own writer (``write_likwid_results`` per rank, through
``tests/scope_fixtures.write_scope_h5``), then, in one process, interleaved:

* ours: :func:`~roofline_widget.points.read_scope_sums` (cache off,
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
import time
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
    from roofline_widget.points import RegionSums, read_scope_sums

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
    import scope_profiler.plotting_scripts.roofline
    import scope_profiler.results  # noqa: F401

    import roofline_widget.points  # noqa: F401


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
    from roofline_widget.points import read_scope_sums

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


def _clocked(totals: dict, name: str, function, *args):
    """Call ``function(*args)``, adding its CPU time to ``totals[name]``."""
    start = time.process_time()
    result = function(*args)
    totals[name] = totals.get(name, 0.0) + time.process_time() - start
    return result


def h5py_calls(path) -> None:
    """CPU time of each h5py low-level call the h5py path makes per region (rank 0)."""
    import h5py
    import numpy as np

    totals: dict[str, float] = {}
    with h5py.File(path, "r") as handle:
        regions = handle["rank0/likwid/regions"].id
        links = list(regions)
        for link in links:
            group = _clocked(totals, "h5o.open region group", h5py.h5o.open, regions, link)
            names = _clocked(totals, "h5a.open metric_names", h5py.h5a.open, group,
                             b"metric_names")
            buffer = np.empty(names.shape, dtype=names.dtype)
            _clocked(totals, "read metric_names (vlen strings)", names.read, buffer,
                     h5py.h5t.py_create(names.dtype))
            _clocked(totals, "h5a.open group_name", h5py.h5a.open, group, b"group_name")
            for name in (b"metrics", b"times", b"call_counts"):
                dataset = _clocked(totals, "h5d.open metrics, times, call_counts",
                                   h5py.h5d.open, group, name)
                out = np.empty(dataset.shape)
                _clocked(totals, "read the three datasets", dataset.read, h5py.h5s.ALL,
                         h5py.h5s.ALL, out)
    print_table(f"h5py low-level calls per region (CPU time, {len(links)} regions of rank 0)",
                ["call", "per region"],
                [[name, f"{seconds / len(links) * 1e6:.0f} us"] for name, seconds in
                 totals.items()] +
                [["total", f"{sum(totals.values()) / len(links) * 1e6:.0f} us"]])


def readers(path, repeat) -> None:
    """CPU time per region of the two per-rank readers, and what a worker's result pickles to."""
    import pickle

    from roofline_widget.io.scope.h5 import scope_file_overview
    from roofline_widget.io.scope.h5_engines import H5pyReader, RawReader
    from roofline_widget.points.engines.h5 import rank_rows

    ranks = scope_file_overview(path).ranks

    def run(engine):
        start = time.process_time()
        reader = engine(path)
        try:
            blocks = [rank_rows(rank, reader.read_rank(rank, group, False), reader.name)
                      for rank, group in ranks]
        finally:
            reader.close()
        return time.process_time() - start, blocks

    direct, through_h5py = [], []
    for _ in range(repeat):  # interleaved, best of ``repeat``
        seconds, blocks = run(RawReader)
        direct.append(seconds)
        through_h5py.append(run(H5pyReader)[0])
    n = sum(len(b.tags) for b in blocks)
    start = time.perf_counter()
    data = pickle.dumps(blocks[0])
    pickle.loads(data)
    pickled = time.perf_counter() - start
    rows = [["raw engine (io/scope/h5_raw.py) + reduction", f"{min(direct) / n * 1e6:.0f} us"],
            ["h5py engine (low-level API) + reduction", f"{min(through_h5py) / n * 1e6:.0f} us"],
            ["ratio", f"{min(through_h5py) / min(direct):.1f}x"]]
    print_table(f"per-rank readers, CPU time per region (best of {repeat}, {n} regions)",
                ["reader", "per region"], rows)
    print(f"one rank's RankRows: {len(data) / 1e3:.0f} kB pickled, dumps + loads "
          f"{ms(pickled)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", nargs="*", type=int, default=[64, 500, 32])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--breakdown", action="store_true",
                        help="instead: where the time of a region goes (h5py calls, the two "
                             "per-rank readers, CPU time); use a small shape, e.g. 8 500 32")
    args = parser.parse_args()
    ranks, regions, threads = args.shape
    quiet()
    print(f"load average (1, 5, 15 min) at the start: {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seconds, path = timed(write, tmp / "profile.h5", ranks, regions, threads)
        print(f"{ranks} ranks x {regions} regions x {threads} threads, written by "
              f"scope-profiler's writer in {ms(seconds)} ({path.stat().st_size / 1e6:.0f} MB)")
        if args.breakdown:
            h5py_calls(path)
            readers(path, args.repeat)
            print(f"load average at the end: {load_average()}")
            return
        compare(path, args.repeat)
        cached(path, args.repeat, tmp / "cache")
        memory(path, ranks, regions, threads)
        if not args.no_scaling:
            scaling(tmp)
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
