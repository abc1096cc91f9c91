"""The ranks view in a real browser: draw, filter, brush and peak drag; SVG points, WebGL points, spread.

Usage::

    python benchmarks/bench_browser_ranks.py              # 625 and 6250 ranks x 8 regions, 3 runs
    python benchmarks/bench_browser_ranks.py --quick      # 48 and 256 ranks, 1 run
    python benchmarks/bench_browser_ranks.py --ranks 1024 # one size only
    python benchmarks/bench_browser_ranks.py --no-gl      # the SVG views only

Starts JupyterLab on 127.0.0.1 (random port and token, every Jupyter state
directory in a throw-away directory) and a headless Chromium (Playwright,
``/usr/lib/chromium/chromium``, fresh ``--user-data-dir``).  A setup cell
builds generated scope-profiler results (``tests/scope_fixtures.py``, one
thread per rank, 8 regions); then for every (ranks, view, run) the second
cell is replaced by ``show(ranks, view, tag)`` and run with Ctrl+Enter:

* **draw**: from the key press to the figure's marks in the page (the
  ``.dot`` elements of the new widget: ``min(ranks x 8, max_points)`` rank
  points in the points view, 8 median squares in the spread view, whose two
  whiskers per region are ``path.line`` elements; in the ``points-gl`` view
  the first WebGL draw of all ``min(ranks x 8, GL_MAX_POINTS)`` points, logged
  by a page init script that wraps the instanced draw call);
* **filter**: from typing ``region_00[0-3]`` into the widget's Include box
  (one ``input`` event) to the new count (half the regions) in the page: a
  browser -> kernel -> browser round trip;
* **brush** (points views): the widget's "brush" interaction, a drag over
  the full plot height from its left edge to a width found first (untimed)
  to enclose about ``BRUSH_SHARE`` of the drawn points; from the mouse release
  to the status line saying "N selected" (the kernel selected them and sent
  the new status: a round trip), median of ``runs`` brushes;
* **drag** (largest size only, a fresh widget per view, median of
  ``DRAGS`` drags): the peak-bandwidth slider's handle dragged with the
  mouse by half a decade (alternately up and down, 12 mouse moves); *first*
  is from the mouse press to the first change of a figure line's ``d``
  attribute (the kernel's ``peak_bandwidth`` changed and the roof was
  redrawn), *settled* to the last change (the slider updates continuously,
  so the kernel may see several values of one drag), found with a
  MutationObserver once the lines were still for ``SETTLE_MS``; *released*
  to the end of the mouse moves (Playwright waits until the page has
  handled each move's events); *per move* is *released* / 12, and *after
  release* is *settled* minus *released*.

Views: ``points`` (the SVG path as before WebGL: ``max_points=5000``, all of
them SVG dots: the points mark's ``threshold`` raised to 5,000), ``points-gl``
(the package's default: ``max_points=50000``, WebGL above 2,000 points) and
``spread``.  625 ranks x 8 regions are 5,000 points (both points views draw
all of them), 6,250 ranks are 50,000 (SVG draws the 5,000 longest-running).

Prints the medians over the runs and the spread / points and SVG / GL ratios,
and the load average before and after.  Figures are
for this machine (2 shared cores) and vary with its load: read the ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table

sys.path.insert(0, str(ROOT / "tests"))
from browser.quickstart import line_paths, wait_for_new_paths
from browser.servers import isolated_env, start_server
from browser.ui import (
    drag_slider,
    open_in_lab,
    read_json_when,
    run_all_cells,
    slider_px_per_decade,
    wait_until_still,
)
from browser.webgl_page import GL_DRAWS

from roofline_widget.widget.points_mark import SVG_MAX_POINTS

CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/lib/chromium/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
REGIONS = 8
MAX_POINTS = 5000
GL_MAX_POINTS = 50_000
#: The share of the drawn points a brush encloses (10,000 of 50,000).
BRUSH_SHARE = 0.2
VIEWS = ("points", "points-gl", "spread")
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
import json, os, sys, time, warnings
sys.path[:0] = [{root!r}, {tests!r}, {benchmarks!r}]
from scope_fixtures import make_profiling_results
from roofline_widget import RooflineWidget
DATA = {{n: make_profiling_results(n_ranks=n, n_regions={regions}, n_threads=1, seed=n)
        for n in {ranks!r}}}
def show(n, view, tag):
    gl = view == "points-gl"
    w = RooflineWidget(DATA[n], flops_metric="DP [MFLOP/s]",
                       bandwidth_metric="Memory bandwidth [MBytes/s]",
                       rank_view="points" if gl else view,
                       max_points={gl_max_points} if gl else {max_points})
    if view == "points":  # the SVG path: every drawn point an SVG dot
        w.figure.points.threshold = {max_points}
        w.max_points = {max_points} - 1  # re-select with the raised threshold
        w.max_points = {max_points}
    def selected(change):  # when the kernel has the selection, for the brush's timing
        with open(os.environ["ROOFLINE_STATE_FILE"] + ".partial", "w") as out:
            json.dump({{"time": time.time(), "selected": len(change.new)}}, out)
        os.replace(os.environ["ROOFLINE_STATE_FILE"] + ".partial", os.environ["ROOFLINE_STATE_FILE"])
    w.observe(selected, names="selected")
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


def launch_browser(playwright, work: Path, extra_args: tuple = (), width: int = 1400):
    """Headless Chromium (fresh profile in ``work``) whose pages log their WebGL draws (``GL_DRAWS``)."""
    context = playwright.chromium.launch_persistent_context(
        str(work / "chromium-profile"), executable_path=CHROMIUM, headless=True,
        args=[*CHROMIUM_ARGS, *extra_args], viewport={"width": width, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(GL_DRAWS)
    return context


@contextmanager
def ranks_notebook(ranks: list[int], prefix: str):
    """JupyterLab and Chromium with the setup cell of ``ranks`` run; yields (context, page, state file).

    The state file is where the kernel writes (``ROOFLINE_STATE_FILE``).
    """
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = Path(tmp)
        (work / "notebooks").mkdir()
        write_notebook(work / "notebooks" / "ranks.ipynb", ranks)
        server = start_lab(work)
        try:
            with sync_playwright() as playwright:
                context = launch_browser(playwright, work)
                try:
                    page = context.new_page()
                    open_in_lab(page, server, "ranks.ipynb")
                    run_all_cells(page)
                    page.wait_for_selector("text=bench-setup-done", timeout=TIMEOUT_MS)
                    yield context, page, server.state_file
                finally:
                    context.close()
        finally:
            server.stop()


def write_notebook(path: Path, ranks: list[int]) -> None:
    import nbformat

    setup = SETUP.format(root=str(ROOT), tests=str(ROOT / "tests"),
                         benchmarks=str(ROOT / "benchmarks"), regions=REGIONS,
                         ranks=tuple(ranks), max_points=MAX_POINTS, gl_max_points=GL_MAX_POINTS)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup),
                                               nbformat.v4.new_code_cell("None")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, path)


def expected_dots(ranks: int, view: str, regions: int) -> int:
    if view == "spread":
        return regions
    return min(ranks * regions, GL_MAX_POINTS if view == "points-gl" else MAX_POINTS)


def wait_for_dots(page, tag: str, count: int, gl: bool = False, since: float = 0.0) -> float:
    """Seconds until the widget ``tag`` shows exactly ``count`` points (polled every frame).

    SVG: ``count`` ``.dot`` elements; ``gl`` (the points-gl view): a WebGL draw of
    ``count`` points after the page time ``since`` (SVG dots up to ``SVG_MAX_POINTS``).
    """
    start = time.perf_counter()
    if gl and count > SVG_MAX_POINTS:
        page.wait_for_function(
            "([n, since]) => window.glDraws.some(d => d.t > since && d.n === n)",
            arg=[count, since], polling="raf", timeout=TIMEOUT_MS)
    else:
        page.wait_for_function(
            "([tag, n]) => document.querySelectorAll(`.${tag} .roofline-figure .dot`).length"
            " === n", arg=[tag, count], polling="raf", timeout=TIMEOUT_MS)
    return time.perf_counter() - start


def page_now(page) -> float:
    return page.evaluate("() => performance.now()")


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
    gl = view == "points-gl"
    since = page_now(page)
    start = run_cell(page, f"show({ranks}, {view!r}, {tag!r})")
    wait_for_dots(page, tag, expected_dots(ranks, view, REGIONS), gl, since)
    draw_s = time.perf_counter() - start
    lines = page.locator(f".{tag} .roofline-figure path.line").count()
    box = page.locator(f".{tag} .roofline-include input")
    box.click()
    since = page_now(page)
    start = time.perf_counter()
    box.fill(FILTER)
    wait_for_dots(page, tag, expected_dots(ranks, view, REGIONS // 2), gl, since)
    filter_s = time.perf_counter() - start
    return {"draw": draw_s, "filter": filter_s, "lines": lines}


SELECTED = r"([0-9,]+) selected"


def brush(page, tag: str, box: dict, share: float, timed: bool = True,
          state_file: Path | None = None) -> tuple[float, int, float]:
    """Brush the plot's full height from its left edge to ``share`` of its width.

    Returns the seconds from the mouse release to the status line naming the
    selected count, that count (0: nothing selected), and the seconds from the
    release to ``selected`` set in the kernel (read from the kernel's
    ``state_file``, wall clock of one machine; NaN without it).  Untimed
    (``timed`` False), the status line may stay as it was (the same selection).
    """
    status = page.locator(f".{tag} .roofline-status")
    before = status.inner_text()
    page.mouse.move(box["x"] + 1, box["y"] + 1)
    page.mouse.down()
    page.mouse.move(box["x"] + share * box["width"], box["y"] + box["height"] - 1, steps=8)
    start, released = time.perf_counter(), time.time()
    page.mouse.up()
    try:
        page.wait_for_function(
            "([selector, before]) => document.querySelector(selector).innerText !== before",
            arg=[f".{tag} .roofline-status", before], polling="raf",
            timeout=TIMEOUT_MS if timed else 3000)
    except Exception:  # untimed: the same selection again
        if timed:
            raise
    seconds = time.perf_counter() - start
    found = re.search(SELECTED, status.inner_text())
    count = int(found.group(1).replace(",", "")) if found else 0
    kernel = float("nan")
    if state_file is not None and count:
        state = read_json_when(state_file, lambda s: s["time"] > released and s["selected"] == count)
        kernel = state["time"] - released
    return seconds, count, kernel


def measure_brush(page, ranks: int, view: str, tag: str, runs: int, state_file: Path) -> dict:
    """Draw ``show(ranks, view, tag)``; time ``runs`` brushes of about ``BRUSH_SHARE`` of its points."""
    gl = view == "points-gl"
    since = page_now(page)
    run_cell(page, f"show({ranks}, {view!r}, {tag!r})")
    dots = expected_dots(ranks, view, REGIONS)
    wait_for_dots(page, tag, dots, gl, since)
    page.locator(f".{tag} .roofline-interaction button", has_text="brush").click()
    area = page.locator(f".{tag} .roofline-figure .plotarea_background").first
    area.scroll_into_view_if_needed()
    wait_until_still(page, f".{tag} .roofline-figure .plotarea_background")
    box = area.bounding_box()
    low, high, share, count = 0.0, 1.0, 0.5, 0
    for _ in range(7):  # untimed: the width that encloses about BRUSH_SHARE of the points
        _seconds, count, _kernel = brush(page, tag, box, share, timed=False)
        if abs(count - BRUSH_SHARE * dots) <= 0.15 * BRUSH_SHARE * dots:
            break
        low, high = (share, high) if count < BRUSH_SHARE * dots else (low, share)
        share = (low + high) / 2
    times, kernel = [], []
    for _ in range(runs):
        brush(page, tag, box, 0.004, timed=False)  # a sliver at the left edge: nothing selected
        seconds, count, in_kernel = brush(page, tag, box, share, state_file=state_file)
        times.append(seconds)
        kernel.append(in_kernel)
    return {"brush": median(times), "kernel": median(kernel), "selected": count, "dots": dots}


def measure_drags(page, ranks: int, view: str, tag: str) -> dict:
    """Draw ``show(ranks, view, tag)``, then drag its peak-bandwidth slider ``DRAGS`` times.

    Returns the median seconds from the mouse press to the first and to the
    last change of the figure's line paths, and the number of dots drawn.
    """
    gl = view == "points-gl"
    since = page_now(page)
    run_cell(page, f"show({ranks}, {view!r}, {tag!r})")
    dots = expected_dots(ranks, view, REGIONS)
    wait_for_dots(page, tag, dots, gl, since)
    slider = f"{tag} .roofline-peak-bandwidth"
    wait_until_still(page, f".{tag} .roofline-peak-bandwidth .noUi-handle" if gl
                     else f".{tag} .roofline-figure .dot")
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
            "after": median([s - r for s, r in zip(settled, released)]), "dots": dots,
            "all": settled}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="48 and 256 ranks, 1 run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ranks", type=int, nargs="+",
                        help="sizes to run (default 625 6250)")
    parser.add_argument("--no-gl", action="store_true", help="skip the WebGL points view")
    args = parser.parse_args()
    ranks = args.ranks or ([48, 256] if args.quick else [625, 6250])
    runs = 1 if args.quick else args.runs
    views = tuple(v for v in VIEWS if not (args.no_gl and v == "points-gl"))
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    with ranks_notebook(ranks, "bench-browser-ranks-") as (_context, page, state_file):
        for view in views:  # loads bqplot's (and bqplot-gl's) JS: not timed
            measure(page, ranks[0], view, f"bench-warm-up-{view}")
        results = {}
        for run in range(runs):  # interleaved: every case sees the same load
            for n in ranks:
                for view in views:
                    tag = f"bench-{n}-{view}-{run}"
                    results.setdefault((n, view), []).append(measure(page, n, view, tag))
        brushes = {}
        for n in drag_sizes(ranks):
            for view in (v for v in views if v != "spread"):
                brushes[(n, view)] = measure_brush(page, n, view, f"bench-brush-{n}-{view}",
                                                   runs, state_file)
        drags = {}
        for n in drag_sizes(ranks):
            for view in views:
                drags[(n, view)] = measure_drags(page, n, view, f"bench-drag-{n}-{view}")
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")
    report(results, ranks, runs, views)
    report_brushes(brushes, runs)
    report_drags(drags)


def drag_sizes(ranks: list[int]) -> list[int]:
    """The sizes whose brushes and drags are measured: 625 ranks (5,000 points) if run, and the largest."""
    return sorted({n for n in ranks if n == 625} | {max(ranks)})


def report_brushes(brushes: dict, runs: int) -> None:
    rows = [[f"{n:,}", view, f"{b['dots']:,}", f"{b['selected']:,}", ms(b["kernel"]),
             ms(b["brush"])] for (n, view), b in brushes.items()]
    print_table(f"Brush -> kernel selects -> status line, medians of {runs} brushes",
                ["ranks", "view", "points drawn", "selected", "release to kernel's selected",
                 "release to status line"], rows)


def report(results: dict, ranks: list[int], runs: int, views: tuple) -> None:
    def med(n, view, key):
        return median([r[key] for r in results[(n, view)]])

    rows = []
    for n in ranks:
        for view in views:
            rows.append([f"{n:,}", view, f"{expected_dots(n, view, REGIONS):,}"
                         + (f" (+{results[(n, view)][0]['lines']} lines)" if view == "spread"
                            else ""),
                         ms(med(n, view, "draw")), ms(med(n, view, "filter"))])
    print_table(f"Ranks view in Chromium (JupyterLab), {REGIONS} regions, medians of {runs} "
                f"run(s); SVG max_points={MAX_POINTS:,}, GL max_points={GL_MAX_POINTS:,}",
                ["ranks", "view", "points drawn", "draw", "filter"], rows)
    if "points-gl" in views:
        rows = [[f"{n:,}", f"{med(n, 'points', 'draw') / med(n, 'points-gl', 'draw'):.1f}x",
                 f"{med(n, 'points', 'filter') / med(n, 'points-gl', 'filter'):.1f}x"]
                for n in ranks]
        print_table("SVG points / GL points (same ranks; above 5,000 points SVG draws 5,000, "
                    "GL all)", ["ranks", "draw SVG / GL", "filter SVG / GL"], rows)
    print(f"command: {command_line()}")


def report_drags(drags: dict) -> None:
    rows = [[f"{n:,}", view, f"{d['dots']:,}", ms(d["released"]), ms(d["released"] / 12),
             ms(d["first"]), ms(d["settled"]), ms(d["after"]),
             " / ".join(ms(s) for s in d["all"])] for (n, view), d in drags.items()]
    print_table(f"Peak-bandwidth slider drag -> kernel -> roof redrawn, {DRAG_DECADES} decade "
                f"in 12 mouse moves, medians of {DRAGS} drags",
                ["ranks", "view", "points", "mouse released", "per move", "first roof change",
                 "roof settled", "after release", "settled, each drag"], rows)
    for n in sorted({n for n, _view in drags}):
        mine = {view: d for (m, view), d in drags.items() if m == n}
        if "points-gl" in mine and "points" in mine:
            print(f"{n:,} ranks: settled SVG points / GL points: "
                  f"{mine['points']['settled'] / mine['points-gl']['settled']:.1f}x")
        if "spread" in mine and "points" in mine:
            print(f"{n:,} ranks: settled spread / SVG points: "
                  f"{mine['spread']['settled'] / mine['points']['settled']:.2f}")


if __name__ == "__main__":
    main()
