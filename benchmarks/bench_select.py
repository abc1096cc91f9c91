r"""What bounding the match time costs: region names matched by ``names_selected`` against plain ``re``.

Usage::

    python benchmarks/bench_select.py            # 500 and 5,000 names, 41 repetitions
    python benchmarks/bench_select.py --quick    # 7 repetitions

``names_selected`` matches with the ``regex`` package under a CPU-time budget
(a pattern from a saved view may backtrack catastrophically); the reference is
``re.match`` over the same names with the same compiled pattern, no bound.
A plain prefix (``solver/region_007``) is matched with ``str.startswith``; a
pattern with metacharacters (``solver/region_\d*7$``) by ``regex``.
Each repetition uses a new pattern (its ``regex`` twin is compiled in the
timing, as for a new include filter in the widget, whose mask is then kept per
pattern), the two sides interleaved.  No target of its own: the widget's
include-filter update (``bench_widget.py``, <= 50 ms) holds it; printed are
the cost per name and the ratio to plain ``re``.
"""

from __future__ import annotations

import argparse
import re

import numpy as np
from _common import command_line, median, ms, print_table, timed

from roofline_widget.settings import compile_patterns, names_selected


def plain_re(names: list[str], include: list[re.Pattern[str]]) -> np.ndarray:
    """The unbounded reference: ``re.match`` at each name's start."""
    return np.array([any(p.match(name) for p in include) for name in names], dtype=bool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=None)
    arguments = parser.parse_args()
    repeat = arguments.repeat or (7 if arguments.quick else 41)
    print(f"Command: {command_line()}")
    rows = []
    kinds = {"prefix": "solver/region_{:03d}", "regex": r"solver/region_\d*{}$"}
    for count in (500, 5000):
        names = [f"solver/region_{i:05d}" for i in range(count)]
        for kind, template in kinds.items():
            ours, reference = [], []
            for i in range(repeat):
                include = compile_patterns(template.format(i))  # a new pattern each time
                seconds, mask = timed(names_selected, names, include, None)
                ours.append(seconds)
                seconds, expected = timed(plain_re, names, include)
                reference.append(seconds)
                assert (mask == expected).all()
            ratio = median(ours) / median(reference)
            rows.append([f"{count:,} names", kind, ms(median(ours)), ms(median(reference)),
                         f"{ratio:.1f}x", f"{median(ours) / count * 1e6:.2f} us"])
    print_table(f"a new include pattern, median of {repeat}",
                ["names", "pattern", "bounded", "plain re", "ratio", "bounded per name"], rows)

if __name__ == "__main__":
    main()
