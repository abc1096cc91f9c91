"""The kernel side of ``RooflineWidget(points)`` and of its filter: this tree against another, side by side.

Usage::

    python benchmarks/bench_widget_build.py --base /work/main              # 5 rounds, 50,000 points
    python benchmarks/bench_widget_build.py --base /work/main --rounds 9 --points 5000

Each round starts one fresh process per side, in turn: the ``--base`` tree,
this tree, and jupyter-scatter (the fastest peer of ``bench_browser_peers.py``,
when installed; ``--no-peer`` leaves it out).  A process imports its side,
builds it once on 800 points (untimed: lazy imports and first calls), then on
the points table of ``peer_widgets.roofline_points(points, 8)`` (50,000 points:
6,250 ranks x 8 regions) times

* the build: ``RooflineWidget(points)`` (jupyter-scatter: ``Scatter(...).show()``),
* the filter: ``widget.include = "region_00[0-3]"`` (half the points; its
  ``Scatter.filter`` for jupyter-scatter),

each once, in the kernel only (no browser: what a user waits for before the
first comm message leaves).  Printed: per side the median over the rounds,
this tree's ratio to the base and to jupyter-scatter, and the load average
before and after (the machine is shared: compare the ratios of one run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _common import has_jscatter, load_average, side_by_side_arguments

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
#: The peer whose kernel build the target is set against (issue 33: build <= 3x its).
PEER = "jupyter-scatter"


def child(side: str, tree: str, points: int) -> dict:
    """Build and filter one side once (after an untimed small build); seconds each."""
    warnings.simplefilter("ignore")
    if side != PEER:
        sys.path.insert(0, tree)  # this side's package wins over any installed one
    from peer_widgets import BUILDERS, FILTERS, roofline_points

    name = "roofline-widget" if side != PEER else PEER
    small = roofline_points(800, 8)
    FILTERS[name](BUILDERS[name](small), np.arange(len(small)) % 8 < 4, small)
    data = roofline_points(points, 8)
    half = np.arange(len(data)) % 8 < 4
    gc.collect()
    start = time.perf_counter()
    widget = BUILDERS[name](data)
    built = time.perf_counter() - start
    start = time.perf_counter()
    FILTERS[name](widget, half, data)
    filtered = time.perf_counter() - start
    module = sys.modules.get("roofline_widget")
    return {"build": built, "filter": filtered,
            "package": str(Path(module.__file__).parent.parent) if module else PEER}


def run_side(side: str, tree: Path, points: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", side,
                          "--tree", str(tree), "--points", str(points)],
                         capture_output=True, text=True, env=env, cwd=HERE, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{side} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    side_by_side_arguments(parser, rounds=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.tree, args.points)))
        return
    sides = {"this tree": TREE}
    if args.base is not None:
        sides = {"base": args.base.resolve(), **sides}
    if not args.no_peer and has_jscatter():
        sides[PEER] = TREE
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    samples: dict[str, list[dict]] = {side: [] for side in sides}
    for _ in range(args.rounds):
        for side, tree in sides.items():
            samples[side].append(run_side(side if side == PEER else "roofline", tree, args.points))
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(samples, args)


def report(samples: dict[str, list[dict]], args) -> None:
    medians = {side: {what: statistics.median(s[what] for s in runs) for what in ("build", "filter")}
               for side, runs in samples.items()}
    print(f"\n{args.points:,} points in {args.points // 8:,} ranks x 8 regions, kernel only, "
          f"medians of {args.rounds} fresh processes per side (interleaved)")
    print(f"{'side':<18} {'build':>10} {'filter':>10}  package")
    for side, figures in medians.items():
        print(f"{side:<18} {figures['build'] * 1e3:>7.1f} ms {figures['filter'] * 1e3:>7.1f} ms  "
              f"{samples[side][0]['package']}")
    ours = medians["this tree"]
    for other in ("base", PEER):
        if other in medians:
            print(f"this tree / {other:<16} build {ours['build'] / medians[other]['build']:.2f}x, "
                  f"filter {ours['filter'] / medians[other]['filter']:.2f}x")
    print(f"command: {' '.join([Path(sys.executable).as_posix(), *sys.argv])}")


if __name__ == "__main__":
    main()
