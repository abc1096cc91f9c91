"""plot_roofline of an 18-run sweep against a bare matplotlib scatter of the same points (issue 33).

Usage::

    python benchmarks/bench_static_sweep.py                       # this checkout and /work/main
    python benchmarks/bench_static_sweep.py --before /path/tree   # another tree as "before"
    python benchmarks/bench_static_sweep.py --repeats 1           # quicker

The data: ``sweep_file.py`` writes 18 runs of the real LULESH sample 19 (22 kernels each, 396
points) appended to one log: ``plot_roofline`` draws it as a chain (a sweep on this checkout).
Each round runs one process per tree (``PYTHONPATH`` the tree), which, after one untimed plot of
a small file and one untimed bare scatter (matplotlib's first-use costs), times ``REPEATS``
times, interleaved (bare, plot, bare, plot, ...: both see the same machine noise; nothing is
cached between plots, the file is read and aggregated each time; before each timed call the
garbage of the calls before it is collected, untimed: a call pays for the collections its own
objects trigger, not for a full collection of the figures the others left, about 90 ms that
fell on either side at random every third or fourth plot):

* ``plot_roofline(sweep, filepath=<png>)``: what a user waits for; inside it, the time
  writing the file (``output_files.write_atomically``: the figure drawn, cut and encoded) and
  how often the figure was drawn (``Figure.draw`` calls: a tight bounding box drawn by
  matplotlib is one more);
* the bare scatter, issue 33's reference, "a bare matplotlib scatter with a legend of the same
  points": the same 396 points (every run's, read once by the parent with this checkout) as one
  ``scatter`` per region, ``legend()`` of the 22 regions and ``savefig(png)``, matplotlib's
  defaults (the legend where matplotlib puts it, inside the axes; one draw), on linear axes (the
  quicker: the ratio's reference) and on log axes;
* the reference of the earlier runs of this script (up to 7 December 2026, 14:00 UTC), for
  continuity: the legend right of the axes and ``savefig(png, bbox_inches="tight")``, which
  makes matplotlib draw the figure twice (once to find the box) where ``plot_roofline`` draws
  once: a slower reference, the ratio flattered by 10-30 %.

Prints per tree the medians over the repetitions of every round and the median of the
repetitions' ratios plot / bare (linear axes, legend inside: the stricter), the target (<= 3),
the ratio against the earlier reference; the same in CPU seconds of the process (a loaded
machine stretches wall times; the CPU time less), the counts inside ``plot_roofline`` that no
load moves (figure draws, Agg renderers made, texts measured and drawn); the modules first
imported inside a timed ``plot_roofline`` (their import time is in the timed call), and the
load average before and after each round.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_line, ms, print_table, verdict

#: The tree measured as "before" unless ``--before`` says otherwise: the lead's main.
BEFORE = Path("/work/main")
TARGET = 3.0
REPEATS = 3


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def bare_scatter(points_file: Path, png: Path, log: bool,
                 legend_right: bool = False) -> tuple[float, float]:
    """Seconds (wall, CPU) to draw and save the bare scatter (a scatter per region, their legend).

    ``legend_right``: the legend right of the axes, saved with ``bbox_inches="tight"`` (the
    earlier reference); else matplotlib's defaults (``legend()``, ``savefig(png)``).
    """
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    data = np.load(points_file, allow_pickle=True)
    x, y, regions = data["x"], data["y"], data["region"]
    gc.collect()  # the garbage of the calls before collected before the clock starts
    start, cpu = time.perf_counter(), time.process_time()
    figure = Figure(figsize=(10.0, 6.5))
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.125, 0.11, 0.775, 0.77))
    for region in dict.fromkeys(regions):
        mine = regions == region
        axes.scatter(x[mine], y[mine], s=36, label=str(region))
    if log:
        axes.set_xscale("log")
        axes.set_yscale("log")
    if legend_right:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        figure.savefig(png, bbox_inches="tight")
    else:
        axes.legend(fontsize=8)
        figure.savefig(png)
    return time.perf_counter() - start, time.process_time() - cpu


def child(sweep: Path, points_file: Path, repeats: int) -> None:
    """In the tree under test: time the plot and the bare scatters, print a JSON line."""
    import warnings

    sys.path[:] = [os.environ["PYTHONPATH"]] + [
        p for p in sys.path if p not in (str(ROOT), str(ROOT / "tests"))]
    warnings.simplefilter("ignore")
    import roofline_widget
    from roofline_widget import plot_roofline, sample_path
    from roofline_widget.static import output_files

    result: dict = {key: [] for key in ("plot", "plot_cpu", "write", "draws", "renderers",
                                        "measured", "drawn", "bare", "bare_cpu", "bare_log",
                                        "bare_tight", "imported")}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plot_roofline(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
                      filepath=str(folder / "small.png"), verbose=False)  # first use: not timed
        bare_scatter(points_file, folder / "bare0.png", log=True)  # first use: not timed
        for _ in range(repeats):
            wall, cpu = bare_scatter(points_file, folder / "bare.png", log=False)
            result["bare"].append(wall)
            result["bare_cpu"].append(cpu)
            loaded = set(sys.modules)
            with counted(output_files) as counts:
                gc.collect()
                start, cpu = time.perf_counter(), time.process_time()
                plot_roofline(str(sweep), filepath=str(folder / "sweep.png"), verbose=False)
                result["plot"].append(time.perf_counter() - start)
                result["plot_cpu"].append(time.process_time() - cpu)
            result["imported"] += sorted(set(sys.modules) - loaded)
            for key, value in counts.items():
                result[key].append(value)
            result["bare_log"].append(
                bare_scatter(points_file, folder / "bare_log.png", log=True)[0])
            result["bare_tight"].append(bare_scatter(points_file, folder / "bare_tight.png",
                                                     log=False, legend_right=True)[0])
    result["tree"] = str(Path(roofline_widget.__file__).parent.parent)
    print(json.dumps(result))


@contextlib.contextmanager
def counted(output_files):
    """Counts (load-independent) and the file's time inside a ``plot_roofline``: the seconds
    in ``output_files.write_atomically`` (the image drawn, cut, encoded), ``Figure.draw``
    calls, Agg renderers made (each lays every text out again), texts measured and drawn."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.figure import Figure

    counts: dict = {"write": 0.0, "draws": 0, "renderers": 0, "measured": 0, "drawn": 0}
    originals = {(output_files, "write_atomically"): output_files.write_atomically,
                 (Figure, "draw"): Figure.draw, (RendererAgg, "__init__"): RendererAgg.__init__,
                 (RendererAgg, "get_text_width_height_descent"):
                     RendererAgg.get_text_width_height_descent,
                 (RendererAgg, "draw_text"): RendererAgg.draw_text}
    keys = {"draw": "draws", "__init__": "renderers", "get_text_width_height_descent": "measured",
            "draw_text": "drawn"}

    def counting(name, function):
        def wrapper(*args, **keywords):
            counts[keys[name]] += 1
            return function(*args, **keywords)
        return wrapper

    def timed(*args, **keywords):
        start = time.perf_counter()
        try:
            return originals[(output_files, "write_atomically")](*args, **keywords)
        finally:
            counts["write"] += time.perf_counter() - start

    for (owner, name), function in originals.items():
        setattr(owner, name, timed if name == "write_atomically" else counting(name, function))
    try:
        yield counts
    finally:
        for (owner, name), function in originals.items():
            setattr(owner, name, function)


def run_child(tree: Path, sweep: Path, points_file: Path, work: Path, repeats: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"}
    args = [sys.executable, str(Path(__file__).resolve()), "--child", str(sweep),
            "--points", str(points_file), "--repeats", str(repeats)]
    done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise RuntimeError(f"{tree}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def write_points(sweep: Path, target: Path) -> int:
    """Every run's points of ``sweep`` (this checkout's reader) as arrays for the bare scatter."""
    import warnings

    import numpy as np

    from roofline_widget import points_dataframe

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = points_dataframe(str(sweep))
    keep = (points["performance_gflops"] > 0) & (points["arithmetic_intensity_flops_per_byte"] > 0)
    points = points[keep]
    np.savez(target, x=points["arithmetic_intensity_flops_per_byte"].to_numpy(float),
             y=points["performance_gflops"].to_numpy(float),
             region=points["region"].astype(str).to_numpy(dtype=object))
    return len(points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=BEFORE, help=f"tree (default {BEFORE})")
    parser.add_argument("--rounds", type=int, default=1, help="one process per tree each")
    parser.add_argument("--repeats", type=int, default=REPEATS,
                        help=f"interleaved repetitions per process (default {REPEATS})")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--points", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.points, args.repeats)
        return
    from sweep_file import write_sweep

    trees = {f"before ({args.before})": args.before, "after (this checkout)": ROOT}
    results: dict[str, list[dict]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="bench-static-sweep-") as tmp:
        work = Path(tmp)
        sweep = write_sweep(work)
        count = write_points(sweep, work / "points.npz")
        print(f"{count} points (18 runs x 22 kernels) in {sweep.name}", flush=True)
        for round_ in range(args.rounds):
            for name, tree in trees.items():
                before = load_average()
                result = run_child(tree, sweep, work / "points.npz", work, args.repeats)
                results[name].append(result)
                print(f"round {round_ + 1} {name}: plot_roofline "
                      f"{', '.join(ms(t) for t in result['plot'])}, "
                      f"bare scatter {', '.join(ms(t) for t in result['bare'])} "
                      f"(legend right, tight: {', '.join(ms(t) for t in result['bare_tight'])}); "
                      f"load {before} -> {load_average()}", flush=True)
    report(results, args.rounds * args.repeats)


def report(results: dict[str, list[dict]], count: int) -> None:
    rows, counts = [], []
    for name, runs in results.items():
        def median(key: str, runs=runs) -> float:
            return statistics.median(v for r in runs for v in r[key])

        def ratio(key: str, reference: str, runs=runs) -> float:
            return statistics.median(p / b for r in runs for p, b in zip(r[key], r[reference]))

        rows.append([name, ms(median("plot")), ms(median("write")), ms(median("bare")),
                     ms(median("bare_log")), ms(median("bare_tight")),
                     f"{ratio('plot', 'bare'):.2f}",
                     verdict(ratio("plot", "bare"), TARGET, higher_is_better=False),
                     f"{ratio('plot', 'bare_tight'):.2f}"])
        counts.append([name, ms(median("plot_cpu")), ms(median("bare_cpu")),
                       f"{ratio('plot_cpu', 'bare_cpu'):.2f}", f"{median('draws'):g}",
                       f"{median('renderers'):g}", f"{median('measured'):g}",
                       f"{median('drawn'):g}"])
    print_table(f"plot_roofline of the 18-run sweep against a bare scatter of its points, "
                f"medians of {count} interleaved repetitions per tree (wall clock)",
                ["tree", "plot_roofline", "writing the PNG", "bare scatter", "bare (log axes)",
                 "bare (legend right, tight)", "plot / bare", f"<= {TARGET:g}",
                 "plot / legend right, tight"], rows)
    print_table("the same calls in CPU seconds of the process (less moved by the load), and "
                "counts inside plot_roofline (independent of the load)",
                ["tree", "plot_roofline CPU", "bare scatter CPU", "plot / bare CPU",
                 "figure draws", "Agg renderers", "texts measured", "texts drawn"], counts)
    for name, runs in results.items():
        imported = sorted({m for r in runs for m in r["imported"]})
        print(f"{name}: modules first imported inside a timed plot_roofline: "
              f"{', '.join(imported) or 'none'}")
    print(f"load average now (1, 5, 15 min): {load_average()}")
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
