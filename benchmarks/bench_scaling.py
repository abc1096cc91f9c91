"""How ``collect_roofline_points`` grows: 1x, 10x, 100x and 1000x of 8 x 100 x 8 x 20.

Usage::

    python benchmarks/bench_scaling.py            # 1x .. 1000x, 5 repetitions each
    python benchmarks/bench_scaling.py --quick    # 1x .. 100x, 3 repetitions
    python benchmarks/bench_scaling.py --reference-1000x   # also time scope-profiler at 1000x

Sizes (ranks x regions x threads x metrics): 8x100x8 (1x), 80x100x8 (10x),
80x1000x8 (100x), 800x1000x8 (1000x: 800,000 regions, 128M metric values,
1 GB of metric values).  Each size runs in its own subprocess, which builds the
scope-profiler ``ProfilingResults`` once (not timed) and then times our call
and the reference's, interleaved, on that object (after one untimed call of
each on tiny results, so no repetition pays the process's one-time costs).  Our path keeps no cache
keyed on the results object (each call reads the region arrays again), so
every one of our repetitions is a cold call.  Memory: the extra peak RSS of
our call over the RSS before it (VmHWM reset with ``/proc/self/clear_refs``
before each call), and the RSS of the data itself.

scope-profiler at 1000x takes about 20 s per call on this machine, so it is
run only up to 100x unless ``--reference-1000x`` is given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _common import (
    BANDWIDTH,
    FLOPS,
    command_line,
    current_rss_mb,
    make_results,
    median,
    ms,
    peak_rss_mb,
    print_table,
    quiet,
    reset_peak_rss,
    run_json_subprocess,
    shown,
    timed,
    warm_up,
)

BASE = (8, 100, 8)
SCALES = {1: (8, 100, 8), 10: (80, 100, 8), 100: (80, 1000, 8), 1000: (800, 1000, 8)}


def child(scale: int, repeat: int, with_reference: bool) -> None:
    """One size, in a subprocess: print a JSON object."""
    from scope_profiler.plotting_scripts.roofline import collect_roofline_points as reference

    from roofline_widget.points import collect_roofline_points as ours

    quiet()
    warm_up()
    before_data = current_rss_mb()
    results = make_results(*SCALES[scale])
    data_mb = current_rss_mb() - before_data
    keywords = {"flops_metric": FLOPS, "bandwidth_metric": BANDWIDTH}
    times, ref_times, extra = [], [], []
    n_points = None
    for index in range(repeat):
        if with_reference and index % 2:
            ref_times.append(timed(reference, results, **keywords)[0])
        rss = current_rss_mb()
        can_reset = reset_peak_rss()
        elapsed, points = timed(ours, results, **keywords)
        times.append(elapsed)
        extra.append(peak_rss_mb() - rss if can_reset else float("nan"))
        n_points = len(points)
        del points
        if with_reference and not index % 2:
            ref_times.append(timed(reference, results, **keywords)[0])
    print(json.dumps({"ours": times, "reference": ref_times, "extra_mb": extra,
                      "data_mb": data_mb, "peak_mb": peak_rss_mb(), "points": n_points}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference-1000x", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--with-reference", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.repeat, args.with_reference)
        return 0
    scales = [1, 10, 100] if args.quick else [1, 10, 100, 1000]
    repeat = 3 if args.quick else max(args.repeat, 5)
    print(f"command: {command_line()}")
    rows, base = [], None
    for scale in scales:
        with_reference = scale < 1000 or args.reference_1000x
        extra = ["--with-reference"] if with_reference else []
        r = run_json_subprocess(Path(__file__), "--child", str(scale), "--repeat", str(repeat),
                                *extra, timeout=1800)
        ranks, regions, threads = SCALES[scale]
        n = ranks * regions
        t = shown(median(r["ours"]))
        base = base or t / n
        ref = shown(median(r["reference"])) if r["reference"] else None
        rows.append([f"{scale}x", f"{ranks} x {regions} x {threads}", f"{n:,}",
                     f"{n * threads * 20 / 1e6:,.1f} M", f"{r['data_mb']:,.0f} MB", ms(t),
                     f"{t / n * 1e6:.2f} us", f"{t / n / base:.2f}",
                     ms(ref) if ref else "not run", f"{ref / n * 1e6:.1f} us" if ref else "-",
                     f"{ref / t:.1f}x" if ref else "-", f"{median(r['extra_mb']):,.0f} MB",
                     f"{r['peak_mb']:,.0f} MB"])
        print(f"  {scale}x done", file=sys.stderr)
    print_table(f"collect_roofline_points (explicit metrics), median of {repeat} repetitions "
                "per size, one subprocess per size",
                ["scale", "ranks x regions x threads", "regions", "metric values",
                 "data RSS", "ours", "ours / region", "per-region vs 1x", "scope-profiler",
                 "ref / region", "speed-up", "our extra peak RSS", "process peak RSS"], rows)
    print("\nLinear growth means a constant 'ours / region' ('per-region vs 1x' near 1; "
          "below 1 where the fixed cost per call is spread over more regions).")
    if 1000 in scales and not args.reference_1000x:
        print("scope-profiler was not run at 1000x (about 20 s per call); pass --reference-1000x.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
