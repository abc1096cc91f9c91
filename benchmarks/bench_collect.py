"""``collect_roofline_points`` against scope-profiler 0.7.5, side by side.

Usage::

    python benchmarks/bench_collect.py            # 8x100x8 and 64x500x32, 7 repetitions
    python benchmarks/bench_collect.py --quick    # 3 repetitions (smoke run)
    python benchmarks/bench_collect.py --repeat 9

Data: scope-profiler ``ProfilingResults`` built in memory by
``tests/scope_fixtures.py`` (ranks x regions x threads, 20 MEM_DP metrics).
Every repetition builds a FRESH results object (not timed) and times, on that
same object, the whole call of each implementation (the order alternates), then
our second call on the same object ("warm"); both sides are called once,
untimed, before the first repetition.  Both get the same explicit
metric names, and every point is compared.  Target: ours (cold) at least 30x
faster than the reference.
"""

from __future__ import annotations

import argparse

from _common import (
    BANDWIDTH,
    FLOPS,
    command_line,
    make_results,
    median,
    ms,
    print_table,
    quiet,
    shown,
    timed,
    verdict,
    warm_up,
)

TARGET_SPEEDUP = 30.0
SIZES = ((8, 100, 8), (64, 500, 32))


def compare_points(ours: list, reference: list) -> dict:
    """Same points (by file, region, rank) with the same values?"""
    def key(point):
        return point["file"], point["region"], point["rank"]

    theirs = {key(p): p for p in reference}
    same_order = [key(p) for p in ours] == [key(p) for p in reference]
    exact = 0
    worst = 0.0
    mismatched_fields = set()
    for point in ours:
        other = theirs.get(key(point))
        if other is None or set(other) - set(point):
            mismatched_fields.add("keys")
            continue
        equal = True
        for name, value in point.items():
            theirs_value = other[name]
            if isinstance(value, float) and isinstance(theirs_value, float):
                if value != theirs_value:
                    equal = False
                    scale = max(abs(value), abs(theirs_value), 1e-300)
                    worst = max(worst, abs(value - theirs_value) / scale)
            elif value != theirs_value:
                equal = False
                mismatched_fields.add(name)
        exact += equal
    return {"ours": len(ours), "reference": len(reference), "same_order": same_order,
            "exact": exact, "max_rel_diff": worst, "mismatched": sorted(mismatched_fields),
            "missing": len(set(theirs) - {key(p) for p in ours})}


def bench_size(n_ranks: int, n_regions: int, n_threads: int, repeat: int) -> dict:
    from scope_profiler.plotting_scripts.roofline import collect_roofline_points as reference

    from roofline_widget.points import collect_roofline_points as ours

    keywords = {"flops_metric": FLOPS, "bandwidth_metric": BANDWIDTH}
    cold, warm, ref = [], [], []
    comparison = None
    for index in range(repeat):
        results = make_results(n_ranks, n_regions, n_threads)
        if index % 2 == 0:
            t_ours, points = timed(ours, results, **keywords)
            t_ref, ref_points = timed(reference, results, **keywords)
        else:
            t_ref, ref_points = timed(reference, results, **keywords)
            t_ours, points = timed(ours, results, **keywords)
        t_warm, again = timed(ours, results, **keywords)
        cold.append(t_ours)
        warm.append(t_warm)
        ref.append(t_ref)
        if comparison is None:
            comparison = compare_points(points, ref_points)
            comparison["warm_equal"] = again == points
        del results, points, ref_points, again
    t_ref, t_cold, t_warm = shown(median(ref)), shown(median(cold)), shown(median(warm))
    return {"size": f"{n_ranks} x {n_regions} x {n_threads} x 20",
            "regions": n_ranks * n_regions, "ref": t_ref, "cold": t_cold, "warm": t_warm,
            "ratio_cold": t_ref / t_cold, "ratio_warm": t_ref / t_warm, "cmp": comparison,
            "repeat": repeat}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions")
    parser.add_argument("--repeat", type=int, default=7, help="repetitions per size (odd)")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else max(args.repeat, 5)
    quiet()
    warm_up()
    print(f"command: {command_line()}")
    print(f"metrics given to both: flops_metric={FLOPS!r}, bandwidth_metric={BANDWIDTH!r}")
    rows, checks = [], []
    for size in SIZES:
        r = bench_size(*size, repeat)
        rows.append([r["size"], f"{r['regions']:,}", ms(r["ref"]), ms(r["cold"]), ms(r["warm"]),
                     f"{r['ratio_cold']:.1f}x", f"{r['ratio_warm']:.1f}x",
                     f">= {TARGET_SPEEDUP:.0f}x", verdict(r["ratio_cold"], TARGET_SPEEDUP, True)])
        c = r["cmp"]
        checks.append([r["size"], c["reference"], c["ours"], c["missing"], c["exact"],
                       "yes" if c["same_order"] else "NO", f"{c['max_rel_diff']:.1e}",
                       ", ".join(c["mismatched"]) or "-", "yes" if c["warm_equal"] else "NO"])
    print_table(f"collect_roofline_points, median of {repeat} interleaved repetitions "
                "(cold: fresh ProfilingResults each time; warm: 2nd call, same object)",
                ["ranks x regions x threads x metrics", "regions", "scope-profiler 0.7.5",
                 "ours cold", "ours warm", "speed-up cold", "speed-up warm", "target",
                 "cold vs target"], rows)
    print_table("points compared (first repetition)",
                ["size", "reference points", "our points", "missing", "bit-identical",
                 "same order", "max rel. diff", "differing fields", "warm == cold"], checks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
