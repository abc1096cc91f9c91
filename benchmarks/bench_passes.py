"""The floor under ``collect_roofline_points``: what one pass over the regions costs.

Usage::

    python benchmarks/bench_passes.py            # 64 x 500 x 32 x 20, 7 repetitions
    python benchmarks/bench_passes.py --quick    # 3 repetitions

Every repetition builds a FRESH ``ProfilingResults`` (not timed) and times,
in order, the elementary passes a call has to make over its 32,000
``LikwidRegionResult`` objects, each at C speed (``map`` with an
``attrgetter``, a list comprehension, ``bytes.join``), then the 32,000 point
dicts.  Their sum is a lower bound for any implementation that reads the
region objects from Python.  It is printed next to the 30x target, which is
scope-profiler's call timed on the same fresh object in every repetition
(after the passes), divided by 30.
"""

from __future__ import annotations

import argparse
import gc
import operator
import time

import numpy as np
from _common import BANDWIDTH, FLOPS, command_line, make_results, median, print_table, timed

SIZE = (64, 500, 32)
N_REGIONS = SIZE[0] * SIZE[1]
TARGET_SPEEDUP = 30.0


def _passes(regions: list) -> list[tuple[str, object]]:
    """(label, zero-argument callable) in the order a call needs them."""
    state: dict = {}
    dp, bw = regions[0].metric_names.index(FLOPS), regions[0].metric_names.index(BANDWIDTH)

    def keep(name, value):
        state[name] = value
        return value

    return [
        ("len(cpus) of every region", lambda: np.fromiter(
            map(len, map(operator.attrgetter("cpus"), regions)), np.intp, len(regions))),
        ("list of times arrays", lambda: keep("times", list(map(operator.attrgetter("times"),
                                                                   regions)))),
        ("bytes.join of the times", lambda: b"".join(state["times"])),
        ("list of metric_names lists", lambda: list(map(operator.attrgetter("metric_names"),
                                                        regions))),
        ("list of metrics arrays", lambda: keep("metrics", list(
            map(operator.attrgetter("metrics"), regions)))),
        ("shape of every metrics array", lambda: list(map(operator.attrgetter("shape"),
                                                          state["metrics"]))),
        ("row views, DP", lambda: keep("dp", [m[dp] for m in state["metrics"]])),
        ("bytes.join of the DP rows", lambda: b"".join(state["dp"])),
        ("row views, bandwidth", lambda: keep("bw", [m[bw] for m in state["metrics"]])),
        ("bytes.join of the bandwidth rows", lambda: b"".join(state["bw"])),
        (f"{len(regions):,} point dicts (dict displays)", lambda: _dicts(len(regions))),
    ]


def _dicts(n: int) -> list:
    values = np.random.default_rng(0).random((4, n)).tolist()
    regions = [f"region_{i % 500:03d}" for i in range(n)]
    ranks = (np.arange(n) // 500).tolist()
    return [{"file": "x", "region": r, "rank": k, "performance_gflops": p, "bandwidth_gbs": b,
             "arithmetic_intensity_flops_per_byte": a, "runtime_seconds": t,
             "flops_metric": "f", "bandwidth_metric": "b"}
            for r, k, p, b, a, t in zip(regions, ranks, *values)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else max(args.repeat, 5)
    print(f"command: {command_line()}")
    from scope_profiler.plotting_scripts.roofline import collect_roofline_points as reference

    times: dict[str, list] = {}
    reference_times = []
    for _ in range(repeat):
        results = make_results(*SIZE)
        regions = [r for rank in sorted(results.get_likwid_regions())
                   for r in results.get_likwid_regions(rank).values()]
        gc.collect()
        for label, step in _passes(regions):
            start = time.perf_counter()
            step()
            times.setdefault(label, []).append(time.perf_counter() - start)
        reference_times.append(timed(reference, results, flops_metric=FLOPS,
                                     bandwidth_metric=BANDWIDTH)[0])
        del results, regions
    # every total and ratio below is computed from the values as printed
    pass_ms = {label: round(median(values) * 1e3, 2) for label, values in times.items()}
    rows = [[label, f"{value:.2f} ms", f"{value / N_REGIONS * 1e6:.0f} ns"]
            for label, value in pass_ms.items()]
    total = sum(pass_ms.values())
    reference_ms = round(median(reference_times) * 1e3, 1)
    rows.append(["sum (lower bound)", f"{total:.1f} ms", f"{total / N_REGIONS * 1e6:.0f} ns"])
    rows.append(["scope-profiler 0.7.5, whole call", f"{reference_ms:,.1f} ms", ""])
    rows.append([f"{TARGET_SPEEDUP:.0f}x target ({reference_ms:,.1f} ms / {TARGET_SPEEDUP:.0f})",
                 f"{reference_ms / TARGET_SPEEDUP:.1f} ms", ""])
    print_table(f"one pass over the {N_REGIONS:,} regions of {SIZE[0]} x {SIZE[1]} x {SIZE[2]} "
                f"x 20, fresh results, median of {repeat}", ["pass", "time", "per region"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
