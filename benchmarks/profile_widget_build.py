"""Where ``RooflineWidget(data)`` spends its time at 50,000 points in 6,250 ranks (kernel side).

Usage::

    python benchmarks/profile_widget_build.py            # the points table of the peers benchmark
    python benchmarks/profile_widget_build.py --scope    # scope-profiler results, 6,250 x 8 x 1
    python benchmarks/profile_widget_build.py --points 5000 --runs 5

Not a profiler: the steps of the build are wrapped with wall-clock timers
(inclusive time and calls; the wrappers cost microseconds, a profiler
multiplies the cost of the ranks control's 19.5 million comparisons) and the
widget is built ``--runs`` times after one untimed build of 800 points; the
medians are printed as a tree, each step with the part of its parent that its
children do not explain ("(rest)").  A step whose function no longer exists
(the widget is being reworked) is reported as missing and left out.

To compare with another tree, run that tree's own copy of this script
(``_common.py`` puts the script's checkout first on ``sys.path``), or
``bench_widget_build.py --base <tree>`` (fresh processes, interleaved).

Also timed alone: ipywidgets' ``SelectMultiple`` of the 6,250 ranks given all
of them as its value (what the ranks control does when the widget links it),
and the same with a ``Dropdown``-like single value, for the phase-B rework of
the control (issue 33).  Figures are for this machine (2 shared cores) and
vary with its load: the load average is printed.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from _common import command_line, make_results, median, ms, quiet

#: (label, module, attribute path, depth): the steps timed, in build order.
STEPS = (
    ("RooflineWidget(data)", "roofline_widget.widget.roofline_widget", "RooflineWidget.__init__", 0),
    ("chained_sums: the data read and summed", "roofline_widget.widget.roofline_widget",
     "chained_sums", 1),
    ("  of which the runs summed (RunSource: on integer codes)", "roofline_widget.points.engines.run",
     "RunSource.__init__", 2),
    ("RooflineFigure() (bqplot marks)", "roofline_widget.widget.figure", "RooflineFigure.__init__", 1),
    ("WidgetGuidance()", "roofline_widget.widget.advice", "WidgetGuidance.__init__", 1),
    ("RooflineControls() (the ipywidgets)", "roofline_widget.widget.controls",
     "RooflineControls.__init__", 1),
    ("  of which the Ranks field (text, hint, menu)", "roofline_widget.widget.rank_control",
     "RankControl.__init__", 2),
    ("RefreshPipeline()", "roofline_widget.widget.pipeline", "RefreshPipeline.__init__", 1),
    ("warn_ceilings (checks of the extra ceilings)", "roofline_widget.widget.pipeline",
     "warn_ceilings", 2),
    ("controls.link: traits <-> controls", "roofline_widget.widget.controls",
     "RooflineControls.link", 1),
    ("  of which the grouping menu", "roofline_widget.widget.controls",
     "RooflineControls._link_grouping", 2),
    ("  of which the Ranks field", "roofline_widget.widget.rank_control", "RankControl.link", 2),
    ("  of which the peak sliders", "roofline_widget.widget.peak_controls", "PeakControls.link", 2),
    ("controls.add_level_toggles", "roofline_widget.widget.controls",
     "RooflineControls.add_level_toggles", 1),
    ("refresh_points: the first selection and draw", "roofline_widget.widget.pipeline",
     "RefreshPipeline.refresh_points", 1),
    ("select_points (sums -> points, budget)", "roofline_widget.widget.pipeline",
     "point_state.select_points", 2),
    ("roof_keys", "roofline_widget.widget.pipeline", "roof_keys", 2),
    ("_roofline (roofs, empirical ceilings)", "roofline_widget.widget.pipeline",
     "RefreshPipeline._roofline", 2),
    ("_dots (colours, sizes, names of the points)", "roofline_widget.widget.pipeline",
     "RefreshPipeline._dots", 2),
    ("_fitted (axis ranges)", "roofline_widget.widget.pipeline", "RefreshPipeline._fitted", 2),
    ("_compose (the scene: roofs, labels, layers)", "roofline_widget.widget.pipeline",
     "RefreshPipeline._compose", 2),
    ("place_labels (ceiling labels clear of the points)", "roofline_widget.scene.build",
     "place_labels", 3),
    ("figure.draw (marks' data -> comm messages)", "roofline_widget.widget.figure",
     "RooflineFigure.draw", 2),
    ("_show_texts (status, legend, ceilings, left out)", "roofline_widget.widget.pipeline",
     "RefreshPipeline._show_texts", 2),
    ("peaks.fit (slider ranges)", "roofline_widget.widget.peak_controls", "PeakControls.fit", 1),
)


class Timers:
    """Inclusive wall time and calls of each wrapped step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, label: str, function):
        def timed(*args, **keywords):
            start = time.perf_counter()
            try:
                return function(*args, **keywords)
            finally:
                self.seconds[label] += time.perf_counter() - start
                self.calls[label] += 1
        timed.__wrapped__ = function  # type: ignore[attr-defined]
        return timed


@contextmanager
def wrapped(timers: Timers):
    """The STEPS wrapped while inside; yields the labels of the steps not found."""
    undo, missing = [], []
    for label, module_name, path, _depth in STEPS:
        try:
            owner = importlib.import_module(module_name)
            *parents, name = path.split(".")
            for part in parents:
                owner = getattr(owner, part)
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        except (ImportError, AttributeError, KeyError):
            missing.append(label)
            continue
        setattr(owner, name, timers.wrap(label, original))
        undo.append((owner, name, original))
    try:
        yield missing
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def ranks_control(n_ranks: int) -> dict[str, float]:
    """Seconds of ipywidgets controls of ``n_ranks`` options given every rank (or one)."""
    import ipywidgets as widgets

    ranks = tuple(range(n_ranks))
    out = {}
    start = time.perf_counter()
    control = widgets.SelectMultiple(options=ranks)
    out["SelectMultiple(options=ranks)"] = time.perf_counter() - start
    start = time.perf_counter()
    control.value = ranks
    out["  .value = every rank"] = time.perf_counter() - start
    start = time.perf_counter()
    control.value = (0,)
    out["  .value = one rank"] = time.perf_counter() - start
    control.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000, help="a multiple of 8")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scope", action="store_true",
                        help="scope-profiler results (tests/scope_fixtures.py), 1 thread per rank")
    args = parser.parse_args()
    quiet()
    from peer_widgets import roofline_points

    from roofline_widget import RooflineWidget

    n_ranks = args.points // 8
    data = (make_results(n_ranks, 8, 1) if args.scope else roofline_points(args.points, 8))
    RooflineWidget(make_results(100, 8, 1) if args.scope else roofline_points(800, 8)).close()
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    runs: list[Timers] = []
    totals = []
    for _ in range(args.runs):
        timers = Timers()
        with wrapped(timers) as missing:
            start = time.perf_counter()
            widget = RooflineWidget(data)
            totals.append(time.perf_counter() - start)
        widget.close()
        runs.append(timers)
    controls = [ranks_control(n_ranks) for _ in range(args.runs)]
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(runs, totals, missing, controls, args, n_ranks)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def report(runs: list[Timers], totals: list[float], missing: list[str], controls: list[dict],
           args, n_ranks: int) -> None:
    def med(label: str) -> float:
        return median([timers.seconds.get(label, 0.0) for timers in runs])

    print(f"\nRooflineWidget({'scope-profiler results' if args.scope else 'points table'}) of "
          f"{args.points:,} points in {n_ranks:,} ranks x 8 regions, medians of {args.runs} "
          f"builds (wall, inclusive); build alone (no timers would differ by microseconds): "
          f"{ms(median(totals))}")
    stack: list[tuple[int, str]] = []
    children: dict[str, float] = defaultdict(float)
    shown = [(label, depth) for label, _m, _p, depth in STEPS if label not in missing]
    for label, depth in shown:
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack and not label.startswith("  of which"):
            children[stack[-1][1]] += med(label)
        stack.append((depth, label))
    for label, depth in shown:
        calls = median([timers.calls.get(label, 0) for timers in runs])
        share = med(label) / median(totals) * 100
        print(f"{'  ' * depth}{label:<{58 - 2 * depth}} {ms(med(label)):>11} {share:5.1f} %"
              f"  ({calls:.0f} call{'s' if calls != 1 else ''})")
        if label in children and med(label) - children[label] > 0.0005:
            print(f"{'  ' * (depth + 1)}{'(rest)':<{56 - 2 * depth}} "
                  f"{ms(med(label) - children[label]):>11}")
    if missing:
        print(f"not found (renamed or gone): {', '.join(missing)}")
    print(f"\nipywidgets alone, {n_ranks:,} options (medians of {len(controls)}):")
    for key in controls[0]:
        print(f"  {key:<40} {ms(median([c[key] for c in controls])):>11}")
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
