"""Where ``read_likwid`` of a file of many one-thread regions spends its time (a profile, no change).

Usage::

    python benchmarks/profile_read.py                 # 10,000 regions on 1 thread (about 21 MB)
    python benchmarks/profile_read.py --regions 50000 # issue 33's file (about 105 MB)

Writes a likwid-perfctr 5.x marker-mode text file with ``benchmarks/generate.py``
(``generate_perfctr(regions, 1)``: per region a Raw, a Metric and a header
table), times ``read_likwid`` against a plain ``str.splitlines`` of the same
text (median of ``--runs``), then runs one read under cProfile and prints the
package's functions by cumulative time with their share of the profiled read.
The profile's own overhead inflates small functions: read the shares, and
the untimed figures above them.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from _common import command_line, median, ms, quiet
from generate import generate_perfctr

from roofline_widget import read_likwid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=25, help="functions printed")
    args = parser.parse_args()
    quiet()
    text = generate_perfctr(args.regions, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "perfctr.txt"
        path.write_text(text)
        print(f"load average before (1, 5, 15 min): {load_average()}")
        reads, splits = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            path.read_text().splitlines()
            splits.append(time.perf_counter() - start)
            start = time.perf_counter()
            read_likwid(path)
            reads.append(time.perf_counter() - start)
        profile = cProfile.Profile()
        profile.enable()
        read_likwid(path)
        profile.disable()
        print(f"load average after (1, 5, 15 min): {load_average()}")
    size_mb = len(text.encode()) / 1e6
    read, split = median(reads), median(splits)
    print(f"\n{args.regions:,} one-thread regions, {size_mb:.1f} MB: read_likwid {ms(read)} "
          f"({size_mb / read:.1f} MB/s, {read / args.regions * 1e6:.0f} us per region), "
          f"read + splitlines {ms(split)}: {read / split:.1f}x (medians of {args.runs})")
    stats = pstats.Stats(profile)
    total = max(entry[3] for entry in stats.stats.values())  # type: ignore[attr-defined]
    rows = sorted(((entry[3], entry[1], key) for key, entry in stats.stats.items()  # type: ignore[attr-defined]
                   if "roofline_widget" in key[0] or key[2] in ("unique", "fromstring")),
                  reverse=True)[:args.top]
    print(f"\nprofiled read: {ms(total)}; by cumulative time")
    for cumulative, calls, (filename, line, function) in rows:
        where = filename.split("roofline_widget/")[-1] if "roofline_widget" in filename else ""
        print(f"  {cumulative / total * 100:5.1f} %  {calls:>8,} calls  {where}:{line} {function}")
    print(f"command: {command_line()}")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
