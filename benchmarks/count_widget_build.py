"""Load-independent counts of ``RooflineWidget(points)`` and its filter: this tree against another.

Usage::

    python benchmarks/count_widget_build.py --base /tmp/before          # 50,000 points
    python benchmarks/count_widget_build.py --base /tmp/before --points 5000 --processes 9

The machine is shared: wall times move with the other engineers' load.  What
the kernel *does* does not: per side (one fresh process each, its package
first on ``sys.path``) the widget of ``bench_widget_build.py`` is built on
``peer_widgets.roofline_points(points, 8)`` and filtered to
``region_00[0-3]``, after one untimed build of 800 points, and counted:

* Python function calls (``cProfile``'s total, one build and one filter);
* rate judgements: calls of ``roofs.hardware_bounds.hardware_limits``, one
  per rate column judged against the hardware (``beyond_hardware``);
* sums tables built (``RegionSums.frame``: every metric of every row, what a
  scope-profiler file's lazy aggregation builds);
* widgets opened and comm messages (a recording comm, as
  ``bench_widget_messages.py``);
* CPU time of the process (``time.process_time``: what the build used of a
  core, not what it waited): ``--processes`` fresh processes per side, base
  and this tree in turn, each the median of ``--rounds`` builds and filters;
  printed, the median of those.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

from _common import load_average

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
HALF = "region_00[0-3]"


def child(tree: str, points: int, rounds: int) -> dict:
    """The counts of one tree (run in a process of its own)."""
    warnings.simplefilter("ignore")
    sys.path.insert(0, tree)
    import comm
    from comm.base_comm import BaseComm

    sent: list[str] = []

    class RecordingComm(BaseComm):
        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            sent.append(msg_type)

    comm.create_comm = RecordingComm
    from peer_widgets import roofline_points

    from roofline_widget import RooflineWidget
    from roofline_widget.points.columns import RegionColumns
    from roofline_widget.roofs import hardware_bounds

    counts = {"judged": 0, "tables": 0}
    limits, frame = hardware_bounds.hardware_limits, RegionColumns.frame

    def judged(points, column):
        counts["judged"] += 1
        return limits(points, column)

    def table(self):
        counts["tables"] += self._frame is None
        return frame.fget(self)

    hardware_bounds.hardware_limits = judged
    RegionColumns.frame = property(table)  # type: ignore[method-assign]
    RooflineWidget(roofline_points(800, 8)).include = HALF
    data = roofline_points(points, 8)
    out: dict = {"package": str(Path(sys.modules["roofline_widget"].__file__).parent.parent)}
    for step in ("build", "filter"):
        counts.update(judged=0, tables=0)
        sent.clear()
        profile = cProfile.Profile()
        profile.enable()
        widget = RooflineWidget(data) if step == "build" else widget  # noqa: F821
        if step == "filter":
            widget.include = HALF
        profile.disable()
        out[step] = {"calls": pstats.Stats(profile).total_calls, **counts,
                     "widgets": sent.count("comm_open"), "messages": len(sent)}
    cpu: dict = {"build": [], "filter": []}
    for _ in range(rounds):
        start = time.process_time()
        widget = RooflineWidget(data)
        cpu["build"].append(time.process_time() - start)
        start = time.process_time()
        widget.include = HALF
        cpu["filter"].append(time.process_time() - start)
        widget.close()
    for step in cpu:
        out[step]["cpu"] = statistics.median(cpu[step])
    return out


def run_side(tree: Path, points: int, rounds: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(tree),
                           "--points", str(points), "--rounds", str(rounds)],
                          capture_output=True, text=True, env=env, cwd=HERE, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="the tree to compare with (required)")
    parser.add_argument("--points", type=int, default=50_000, help="a multiple of 8")
    parser.add_argument("--rounds", type=int, default=3, help="builds timed per process")
    parser.add_argument("--processes", type=int, default=5, help="fresh processes per side")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.points, args.rounds)))
        return
    if args.base is None:
        parser.error("--base is required")
    load = load_average()
    trees = {"base": args.base.resolve(), "this tree": TREE}
    runs: dict = {side: [] for side in trees}
    for _ in range(args.processes):  # fresh processes, in turn: both sides see the same load
        for side, tree in trees.items():
            runs[side].append(run_side(tree, args.points, args.rounds))
    sides = {side: found[0] for side, found in runs.items()}
    for side, found in runs.items():
        for step in ("build", "filter"):
            sides[side][step]["cpu"] = statistics.median(run[step]["cpu"] for run in found)
    print(f"load average before (1, 5, 15 min): {load}; after: "
          f"{load_average()}")
    print(f"\n{args.points:,} points in {args.points // 8:,} ranks x 8 regions; counts of one "
          f"build and one filter; CPU time: the median over {args.processes} fresh processes "
          f"per side, taken in turn, of each one's median of {args.rounds}")
    rows = (("function calls", "calls", "{:,}"), ("rate judgements", "judged", "{:,}"),
            ("sums tables built", "tables", "{:,}"), ("widgets opened", "widgets", "{:,}"),
            ("comm messages", "messages", "{:,}"), ("CPU time", "cpu", "{:.1f}"))
    for step in ("build", "filter"):
        print(f"\n{step:<20} {'base':>12} {'this tree':>12} {'ratio':>7}")
        for label, key, form in rows:
            base, ours = sides["base"][step][key], sides["this tree"][step][key]
            scale = 1e3 if key == "cpu" else 1
            ratio = f"{ours / base:.2f}x" if base else "-"
            print(f"{label + (' (ms)' if key == 'cpu' else ''):<20} "
                  f"{form.format(base * scale):>12} {form.format(ours * scale):>12} {ratio:>7}")
    for side, found in sides.items():
        print(f"{side}: {found['package']}")
    print(f"command: {' '.join([Path(sys.executable).as_posix(), *sys.argv])}")


if __name__ == "__main__":
    main()
