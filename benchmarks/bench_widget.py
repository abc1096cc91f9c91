"""RooflineWidget, kernel side: cost of each update and the comm bytes it sends.

Usage::

    python benchmarks/bench_widget.py             # 64 ranks x 500 regions x 32 threads, 7 changes each
    python benchmarks/bench_widget.py --quick     # 8 x 100 x 8, 5 changes each

No frontend is needed: ``ipywidgets.Widget._send`` is replaced by a recorder
that keeps every message the kernel would send, and counts its size as the
JSON text of the message plus the bytes of its binary buffers (bqplot sends
arrays as buffers).  Every timed change really changes the value (values
cycle), so every repetition does the full update.  Targets: a metric, rank or
filter change <= 50 ms (median); a peak change <= 5 ms, under 4 KB of
messages, and no message to the points' Scatter.
"""

from __future__ import annotations

import argparse
import json

from _common import command_line, make_results, median, ms, print_table, quiet, timed, verdict

UPDATE_TARGET_S = 0.050
PEAK_TARGET_S = 0.005
PEAK_BYTES_TARGET = 4096


class Recorder:
    """Stands in for the comm: records (widget, message, buffer bytes) of every send."""

    def __init__(self):
        self.messages = []

    def __call__(self, widget, msg, buffers=None):
        size = sum(memoryview(b).nbytes for b in (buffers or []))
        self.messages.append((widget, len(json.dumps(msg, default=str)) + size))

    def clear(self):
        self.messages.clear()

    @property
    def bytes(self) -> int:
        return sum(size for _, size in self.messages)


def measure(widget, recorder, name, values, repeat):
    """Set ``widget.<name>`` to the next value ``repeat`` times: times, bytes, messages."""
    times, sizes, counts, scatter = [], [], [], 0
    for i in range(repeat):
        recorder.clear()
        elapsed, _ = timed(setattr, widget, name, values[i % len(values)])
        times.append(elapsed)
        sizes.append(recorder.bytes)
        counts.append(len(recorder.messages))
        scatter += sum(w is widget.figure.scatter for w, _ in recorder.messages)
    return {"times": times, "bytes": median(sizes), "max_bytes": max(sizes),
            "messages": median(counts), "scatter_messages": scatter}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8 x 100 x 8, 5 changes each")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    size = (8, 100, 8) if args.quick else (64, 500, 32)
    repeat = 5 if args.quick else max(args.repeat, 5)
    quiet()
    import ipywidgets

    from roofline_widget import RooflineWidget

    recorder = Recorder()
    ipywidgets.Widget._send = lambda self, msg, buffers=None: recorder(self, msg, buffers)
    print(f"command: {command_line()}")
    results = make_results(*size)
    build, widget = timed(RooflineWidget, results)
    points, drawn = len(widget.to_dataframe()), len(widget.figure.scatter.x)
    n_ranks = size[0]
    flops = ["AVX DP [MFLOP/s]", "DP [MFLOP/s]", "AVX512 DP [MFLOP/s]"]
    bandwidth = ["Memory read bandwidth [MBytes/s]", "Memory bandwidth [MBytes/s]"]
    ranks = [list(range(0, n_ranks, 2)), None, list(range(1, n_ranks, 3)), [0]]
    include = ["region_0[0-4]", "region_1", "", "region_00"]
    cases = [
        ("FLOP metric", "flops_metric", flops, UPDATE_TARGET_S),
        ("bandwidth metric", "bandwidth_metric", bandwidth, UPDATE_TARGET_S),
        ("ranks", "ranks", ranks, UPDATE_TARGET_S),
        ("include filter", "include", include, UPDATE_TARGET_S),
        ("peak FLOP/s", "peak_flops", [2000.0, 3000.0, 4500.0], PEAK_TARGET_S),
        ("peak bandwidth", "peak_bandwidth", [200.0, 350.0, 500.0], PEAK_TARGET_S),
    ]
    rows = []
    for label, name, values, target in cases:
        r = measure(widget, recorder, name, values, repeat)
        t = median(r["times"])
        peak = name.startswith("peak")
        ok = verdict(t, target, False)
        if peak:
            ok_bytes = r["max_bytes"] < PEAK_BYTES_TARGET and r["scatter_messages"] == 0
            ok = "MET" if ok == "MET" and ok_bytes else "MISSED"
        rows.append([label, ms(t), ms(r["times"][0]), ms(max(r["times"])), f"<= {ms(target)}",
                     f"{r['bytes']:,.0f}", f"{r['max_bytes']:,}",
                     f"< {PEAK_BYTES_TARGET:,}" if peak else "-",
                     r["scatter_messages"], ok])
    print(f"data: {size[0]} ranks x {size[1]} regions x {size[2]} threads x 20 metrics "
          f"(scope-profiler ProfilingResults); {points:,} points, "
          f"{drawn:,} drawn (max_points={widget.max_points:,})")
    print(f"widget construction (aggregation + first draw): {ms(build)}")
    print_table(f"updates, {repeat} changes each (median; 1st change includes computing a "
                "metric's sums on first use)",
                ["change", "median", "1st", "max", "target", "bytes sent (median)", "max bytes",
                 "bytes target", f"msgs to Scatter (all {repeat})", "verdict"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
