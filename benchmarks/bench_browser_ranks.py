"""The ranks view in a real browser: draw time and filter round trip, points vs spread.

Usage::

    python benchmarks/bench_browser_ranks.py              # 48, 256, 1024 ranks x 8 regions, 3 runs
    python benchmarks/bench_browser_ranks.py --quick      # 48 and 256 ranks, 1 run
    python benchmarks/bench_browser_ranks.py --ranks 1024 # one size only

Starts JupyterLab on 127.0.0.1 (random port and token, every Jupyter state
directory in a throw-away directory) and a headless Chromium (Playwright,
``/usr/lib/chromium/chromium``, fresh ``--user-data-dir``).  A setup cell
builds generated scope-profiler results (``tests/scope_fixtures.py``, one
thread per rank, 8 regions); then for every (ranks, view, run) the second
cell is replaced by ``show(ranks, view, tag)`` and run with Ctrl+Enter:

* **draw**: from the key press to the figure's marks in the page (the
  ``.dot`` elements of the new widget: ``min(ranks x 8, max_points)`` rank
  points in the points view, 8 median squares in the spread view, whose two
  whiskers per region are ``path.line`` elements);
* **filter**: from typing ``region_00[0-3]`` into the widget's Include box
  (one ``input`` event) to the new count (half the regions) in the page: a
  browser -> kernel -> browser round trip;
* **drag** (largest size only, a fresh widget per view, median of
  ``DRAGS`` drags): the peak-bandwidth slider's handle dragged with the
  mouse by half a decade (alternately up and down, 12 mouse moves); *first*
  is from the mouse press to the first change of a figure line's ``d``
  attribute (the kernel's ``peak_bandwidth`` changed and the roof was
  redrawn), *settled* to the last change (the slider updates continuously,
  so the kernel may see several values of one drag), found with a
  MutationObserver once the lines were still for ``SETTLE_MS``; *released*
  to the end of the mouse moves (Playwright waits until the page has
  handled each move's events).

Prints the medians over the runs and the spread / points ratios.  Figures are
for this machine (2 shared cores) and vary with its load: read the ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table

sys.path.insert(0, str(ROOT / "tests"))
from browser.quickstart import line_paths, wait_for_new_paths
from browser.servers import isolated_env, start_server
from browser.ui import (
    drag_slider,
    open_in_lab,
    run_all_cells,
    slider_px_per_decade,
    wait_until_still,
)

CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/lib/chromium/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
REGIONS = 8
MAX_POINTS = 5000
FILTER = "region_00[0-3]"
TIMEOUT_MS = 120_000
DRAGS = 3
DRAG_DECADES = 0.5
SETTLE_MS = 1500
#: Records, in page time, the last change of a line's ``d`` in the widget (argument: its tag).
WATCH_LINES = """tag => {
    const figure = document.querySelector(`.${tag} .roofline-figure`);
    window.benchLastLineChange = null;
    window.benchLineObserver?.disconnect();
    window.benchLineObserver = new MutationObserver(records => {
        if (records.some(r => r.target.matches('path.line'))) {
            window.benchLastLineChange = performance.now();
        }
    });
    window.benchLineObserver.observe(figure, {attributes: true, attributeFilter: ['d'],
                                              subtree: true});
    return performance.now();
}"""
SETUP = """\
import sys, warnings
sys.path[:0] = [{root!r}, {tests!r}]
from scope_fixtures import make_profiling_results
from roofline_widget import RooflineWidget
DATA = {{n: make_profiling_results(n_ranks=n, n_regions={regions}, n_threads=1, seed=n)
        for n in {ranks!r}}}
def show(n, view, tag):
    w = RooflineWidget(DATA[n], flops_metric="DP [MFLOP/s]",
                       bandwidth_metric="Memory bandwidth [MBytes/s]", rank_view=view,
                       max_points={max_points})
    w.add_class(tag)
    return w
print("bench-setup-done")
"""


def start_lab(work: Path):
    """JupyterLab on ``work / "notebooks"`` (``tests/browser/servers.py``: isolated state, 127.0.0.1)."""
    return start_server(
        ["jupyterlab", "--no-browser", "--ip=127.0.0.1", "--allow-root",
         f"--ServerApp.root_dir={work / 'notebooks'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        root_dir=work / "notebooks", env=isolated_env(work / "jupyter", work / "state.json"),
        log_path=work / "lab.log", state_file=work / "state.json")


def write_notebook(path: Path, ranks: list[int]) -> None:
    import nbformat

    setup = SETUP.format(root=str(ROOT), tests=str(ROOT / "tests"), regions=REGIONS,
                         ranks=tuple(ranks), max_points=MAX_POINTS)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup),
                                               nbformat.v4.new_code_cell("None")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, path)


def expected_dots(ranks: int, view: str, regions: int) -> int:
    return regions if view == "spread" else min(ranks * regions, MAX_POINTS)


def wait_for_dots(page, tag: str, count: int) -> float:
    """Seconds until the widget ``tag`` shows exactly ``count`` dots (polled every frame)."""
    start = time.perf_counter()
    page.wait_for_function(
        "([tag, n]) => document.querySelectorAll(`.${tag} .roofline-figure .dot`).length === n",
        arg=[tag, count], polling="raf", timeout=TIMEOUT_MS)
    return time.perf_counter() - start


def run_cell(page, code: str) -> float:
    """Replace the second cell's code, press Ctrl+Enter; return the perf_counter of the press."""
    editor = page.locator(".jp-CodeCell").nth(1).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)
    start = time.perf_counter()
    page.keyboard.press("Control+Enter")
    return start


def measure(page, ranks: int, view: str, tag: str) -> dict:
    start = run_cell(page, f"show({ranks}, {view!r}, {tag!r})")
    wait_for_dots(page, tag, expected_dots(ranks, view, REGIONS))
    draw_s = time.perf_counter() - start
    lines = page.locator(f".{tag} .roofline-figure path.line").count()
    box = page.locator(f".{tag} .roofline-include input")
    box.click()
    start = time.perf_counter()
    box.fill(FILTER)
    wait_for_dots(page, tag, expected_dots(ranks, view, REGIONS // 2))
    filter_s = time.perf_counter() - start
    return {"draw": draw_s, "filter": filter_s, "lines": lines}


def measure_drags(page, ranks: int, view: str, tag: str) -> dict:
    """Draw ``show(ranks, view, tag)``, then drag its peak-bandwidth slider ``DRAGS`` times.

    Returns the median seconds from the mouse press to the first and to the
    last change of the figure's line paths, and the number of dots drawn.
    """
    run_cell(page, f"show({ranks}, {view!r}, {tag!r})")
    dots = expected_dots(ranks, view, REGIONS)
    wait_for_dots(page, tag, dots)
    slider = f"{tag} .roofline-peak-bandwidth"
    wait_until_still(page, f".{tag} .roofline-figure .dot")
    first, settled, released = [], [], []
    for i in range(DRAGS):
        before = line_paths(page)
        dx = (1 if i % 2 == 0 else -1) * DRAG_DECADES * slider_px_per_decade(page, slider)
        start = page.evaluate(WATCH_LINES, tag)
        pressed = time.perf_counter()
        drag_slider(page, slider, dx)
        released.append(time.perf_counter() - pressed)
        wait_for_new_paths(page, before, timeout_s=TIMEOUT_MS / 1000)
        first_ms = page.evaluate("() => window.benchLastLineChange")
        page.wait_for_function(
            "quiet => performance.now() - window.benchLastLineChange > quiet",
            arg=SETTLE_MS, timeout=TIMEOUT_MS)
        last_ms = page.evaluate("() => window.benchLastLineChange")
        first.append((first_ms - start) / 1000)
        settled.append((last_ms - start) / 1000)
    page.evaluate("() => window.benchLineObserver.disconnect()")
    return {"released": median(released), "first": median(first), "settled": median(settled),
            "dots": dots, "all": settled}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="48 and 256 ranks, 1 run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ranks", type=int, nargs="+", help="sizes to run (default 48 256 1024)")
    args = parser.parse_args()
    ranks = args.ranks or ([48, 256] if args.quick else [48, 256, 1024])
    runs = 1 if args.quick else args.runs
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-browser-ranks-") as tmp:
        work = Path(tmp)
        (work / "notebooks").mkdir()
        write_notebook(work / "notebooks" / "ranks.ipynb", ranks)
        server = start_lab(work)
        try:
            with sync_playwright() as playwright:
                context = playwright.chromium.launch_persistent_context(
                    str(work / "chromium-profile"), executable_path=CHROMIUM, headless=True,
                    args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
                context.set_default_timeout(TIMEOUT_MS)
                page = context.new_page()
                open_in_lab(page, server, "ranks.ipynb")
                run_all_cells(page)
                page.wait_for_selector("text=bench-setup-done", timeout=TIMEOUT_MS)
                measure(page, ranks[0], "spread", "bench-warm-up")  # loads bqplot's JS: not timed
                results = {}
                for run in range(runs):  # interleaved: every case sees the same load
                    for n in ranks:
                        for view in ("points", "spread"):
                            tag = f"bench-{n}-{view}-{run}"
                            results.setdefault((n, view), []).append(measure(page, n, view, tag))
                drags = {view: measure_drags(page, max(ranks), view, f"bench-drag-{view}")
                         for view in ("points", "spread")}
                context.close()
        finally:
            server.stop()
    report(results, ranks, runs)
    report_drags(drags, max(ranks))


def report(results: dict, ranks: list[int], runs: int) -> None:
    rows = []
    for n in ranks:
        points, spread = results[(n, "points")], results[(n, "spread")]
        draw_p, draw_s = median([r["draw"] for r in points]), median([r["draw"] for r in spread])
        filt_p = median([r["filter"] for r in points])
        filt_s = median([r["filter"] for r in spread])
        rows.append([f"{n:,}", f"{expected_dots(n, 'points', REGIONS):,}", ms(draw_p),
                     ms(filt_p), f"{REGIONS} (+{spread[0]['lines']} lines)", ms(draw_s),
                     ms(filt_s), f"{draw_s / draw_p:.2f}", f"{filt_s / filt_p:.2f}"])
    print_table(f"Ranks view in Chromium (JupyterLab), {REGIONS} regions, medians of {runs} "
                f"run(s), max_points={MAX_POINTS:,}",
                ["ranks", "points: dots", "draw", "filter", "spread: dots", "draw", "filter",
                 "draw spread/points", "filter spread/points"], rows)
    print(f"command: {command_line()}")


def report_drags(drags: dict, ranks: int) -> None:
    rows = [[view, f"{d['dots']:,}", ms(d["released"]), ms(d["first"]), ms(d["settled"]),
             " / ".join(ms(s) for s in d["all"])] for view, d in drags.items()]
    print_table(f"Peak-bandwidth slider drag -> kernel -> roof redrawn, {ranks:,} ranks, "
                f"{DRAG_DECADES} decade, medians of {DRAGS} drags",
                ["view", "dots", "mouse released", "first roof change", "roof settled",
                 "settled, each drag"], rows)
    spread, points = drags["spread"]["settled"], drags["points"]["settled"]
    print(f"settled spread / points: {spread / points:.2f}")


if __name__ == "__main__":
    main()
