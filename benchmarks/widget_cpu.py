"""CPU time of the widget's updates, for comparing two trees side by side.

Usage (alternate the trees, a few processes each)::

    PYTHONPATH=<tree> python <tree>/benchmarks/widget_cpu.py

Builds a ``RooflineWidget`` on 64 ranks x 500 regions x 32 threads of
scope-profiler results (32,000 points, drawn with WebGL) and sets each trait
24 times, printing the median CPU time (``time.process_time``) of a change,
the first change left out.  CPU time, not wall time: on a shared machine it
moves less with the load.  ``bench_widget.py`` times the same changes in wall
time with the bytes they send.
"""

from __future__ import annotations

import statistics
import time

from _common import make_results, quiet

from roofline_widget import RooflineWidget

REPEATS = 6


def median_cpu_ms(widget: RooflineWidget, trait: str, values: list) -> float:
    """Median CPU milliseconds of ``setattr(widget, trait, value)`` over ``values`` but the first."""
    spent = []
    for value in values:
        start = time.process_time()
        setattr(widget, trait, value)
        spent.append(time.process_time() - start)
    return 1000 * statistics.median(spent[1:])


def main() -> None:
    quiet()
    widget = RooflineWidget(make_results(64, 500, 32))
    peak = median_cpu_ms(widget, "peak_flops", [1000.0, 2000.0, 1500.0, 3000.0] * REPEATS)
    bandwidth = median_cpu_ms(widget, "peak_bandwidth", [100.0, 200.0, 150.0, 300.0] * REPEATS)
    include = median_cpu_ms(widget, "include", ["region_0", "region_1", "", "region_2"] * REPEATS)
    print(f"peak {peak:.2f} ms; bandwidth {bandwidth:.2f} ms; include {include:.2f} ms")


if __name__ == "__main__":
    main()
