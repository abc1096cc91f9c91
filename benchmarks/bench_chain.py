"""The chain of an 18-run sweep: ``compare_points`` and ``plot_roofline``, two trees side by side.

Usage::

    python benchmarks/bench_chain.py                    # this checkout against BEFORE, 3 rounds
    python benchmarks/bench_chain.py --before <commit>  # against another commit's package
    python benchmarks/bench_chain.py --runs 5 --no-plot # compare_points only
    python benchmarks/bench_chain.py --quick            # 1 round

The data: ``sweep_file.py`` writes 18 runs of the real LULESH sample (22 kernels
each, 396 points) appended to one log.  ``roofline_widget/`` of the ``--before``
commit is exported (``git archive``) into a temporary folder; each round runs one
process per tree (before, then after, with ``PYTHONPATH`` set to the tree and a
working directory of its own, so no other copy of the package is imported):

* ``compare_points(run_chain(run))`` on the sweep just read (the runs' sums
  are computed in the call, as in ``plot_roofline``), and the same call again
  on the same runs (a run keeps its sums): medians of ``REPEATS``, after one
  untimed call (the 17 steps of the chain);
* ``plot_roofline(path, filepath=<png>)`` once, after one untimed plot of a
  small file (matplotlib's first-use costs): what the user waits for.  The
  time spent in ``compare_points`` (the chain, called by the baseline
  drawing) and in ``savefig`` during that plot is measured by wrapping them.

Prints the medians over the rounds, after / before, the load average before
and after, and whether both trees gave the same comparison frame
(``pandas.testing.assert_frame_equal``, exact).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table

#: The package before the chain was built with arrays (main when the perf branch started).
BEFORE = "ced5ddd"
REPEATS = 5


def export_tree(commit: str, target: Path) -> Path:
    """``roofline_widget/`` of ``commit`` under ``target`` (returned: the folder to put on the path)."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit, "roofline_widget"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run_child(tree: Path, sweep: Path, out: Path, plot: bool, work: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"}
    args = [sys.executable, str(Path(__file__).resolve()), "--child", str(sweep),
            "--frame", str(out)] + ([] if plot else ["--no-plot"])
    done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise RuntimeError(f"{tree}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(sweep: Path, frame_path: Path, plot: bool) -> None:
    """In the tree under test: time the chain and the plot, print a JSON line."""
    import warnings

    # _common put this checkout first on the path: the tree under test (PYTHONPATH) goes first
    sys.path[:] = [os.environ["PYTHONPATH"]] + [
        p for p in sys.path if p not in (str(ROOT), str(ROOT / "tests"))]

    warnings.simplefilter("ignore")
    import roofline_widget
    from roofline_widget import compare_points, read_likwid, run_chain, sample_path

    compare_points(run_chain(read_likwid(sweep)))  # first use: not timed
    first, again = [], []
    for _ in range(REPEATS):
        chain = run_chain(read_likwid(sweep))  # runs read anew: nothing computed on them yet
        start = time.perf_counter()
        frame = compare_points(chain)
        first.append(time.perf_counter() - start)
        start = time.perf_counter()
        compare_points(chain)
        again.append(time.perf_counter() - start)
    frame.to_pickle(frame_path)
    result = {"tree": str(Path(roofline_widget.__file__).parent.parent),
              "compare": statistics.median(first), "compare_again": statistics.median(again),
              "rows": len(frame)}
    if plot:
        result.update(time_plot(sweep, sample_path))
    print(json.dumps(result))


def time_plot(sweep: Path, sample_path) -> dict:
    """Seconds of one ``plot_roofline`` of the sweep, and of its chain and its ``savefig`` calls."""
    from matplotlib.figure import Figure

    from roofline_widget import plot_roofline

    chain_module = _chain_module()

    spent = {"compare_in_plot": 0.0, "savefig": 0.0}

    def timing(name, function):
        def timed_call(*args, **keywords):
            start = time.perf_counter()
            try:
                return function(*args, **keywords)
            finally:
                spent[name] += time.perf_counter() - start
        return timed_call

    with tempfile.TemporaryDirectory() as tmp:
        small = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
        plot_roofline(small, filepath=str(Path(tmp) / "small.png"))  # first use: not timed
        chain_module.compare_points = timing("compare_in_plot", chain_module.compare_points)
        Figure.savefig = timing("savefig", Figure.savefig)  # type: ignore[method-assign]
        start = time.perf_counter()
        plot_roofline(str(sweep), filepath=str(Path(tmp) / "sweep.png"))
        spent["plot"] = time.perf_counter() - start
    return spent


def _chain_module():
    """The module whose ``compare_points`` ``plot_roofline`` calls for a chain: the scene's
    (``scene/compare.py``), or ``static/compare.py`` in a tree from before the scene."""
    import importlib

    for name in ("roofline_widget.scene.compare", "roofline_widget.static.compare"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise RuntimeError("no module of this tree calls compare_points for plot_roofline")


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"commit to compare (default {BEFORE})")
    parser.add_argument("--runs", type=int, default=3, help="rounds (one process per tree each)")
    parser.add_argument("--quick", action="store_true", help="1 round")
    parser.add_argument("--no-plot", action="store_true", help="compare_points only")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--frame", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.frame, not args.no_plot)
        return
    from sweep_file import write_sweep

    runs = 1 if args.quick else args.runs
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-chain-") as tmp:
        work = Path(tmp)
        sweep = write_sweep(work)
        trees = {f"before ({args.before})": export_tree(args.before, work / "before"),
                 "after (this checkout)": ROOT}
        results: dict[str, list[dict]] = {name: [] for name in trees}
        for round_ in range(runs):
            for index, (name, tree) in enumerate(trees.items()):
                frame = work / f"frame-{index}-{round_}.pkl"
                result = run_child(tree, sweep, frame, not args.no_plot, work)
                results[name].append({**result, "frame": frame})
                print(f"round {round_ + 1} {name} ({result['tree']}): compare_points {ms(result['compare'])}"
                      + (f", plot_roofline {ms(result['plot'])}" if "plot" in result else "")
                      + f" (load {load_average()})", flush=True)
        same = same_frames([results[name][0]["frame"] for name in results])
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(results, runs, same)


def same_frames(paths: list[Path]) -> str:
    import pandas as pd

    frames = [pickle.loads(path.read_bytes()) for path in paths]
    try:
        pd.testing.assert_frame_equal(frames[0], frames[1], check_exact=True)
    except AssertionError as error:
        return f"DIFFERENT: {str(error).splitlines()[0]}"
    return f"identical ({len(frames[0])} rows x {frames[0].shape[1]} columns, exact)"


def report(results: dict[str, list[dict]], runs: int, same: str) -> None:
    names = list(results)
    keys = [("compare", f"compare_points(run_chain(run)), runs just read, median of {REPEATS}"),
            ("compare_again", "  the same call again on the same runs")]
    if "plot" in results[names[0]][0]:
        keys += [("plot", "plot_roofline(sweep, filepath=png)"),
                 ("compare_in_plot", "  of which compare_points (the chain)"),
                 ("savefig", "  of which savefig")]
    rows = []
    for key, label in keys:
        before, after = (median([r[key] for r in results[name]]) for name in names)
        rows.append([label, ms(before), ms(after), f"{after / before:.2f}"])
    print_table(f"18 runs x 22 kernels (396 points, a chain of 17 steps), medians of {runs} "
                "round(s), one process per tree and round", ["", *names, "after / before"], rows)
    print(f"comparison frames of both trees: {same}")
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
