"""What bqplot-gl's ScatterGL does in JupyterLab + headless Chromium, against bqplot's SVG Scatter.

Usage::

    python benchmarks/probe_webgl.py                   # 5,000 and 50,000 points, 3 runs
    python benchmarks/probe_webgl.py --sizes 5000 --runs 1
    python benchmarks/probe_webgl.py --no-webgl        # Chromium with --disable-3d-apis

A prototype measurement (``docs/webgl.md``), not a test.  It starts JupyterLab
(``tests/browser/servers.py``: isolated state, 127.0.0.1) and a headless
Chromium whose WebGL draw calls are logged by a page init script (every
instanced draw with its instance count and time: "the GPU drew N points").
For each size and mark (``gl``: ScatterGL, ``svg``: Scatter, SVG only up to
``--svg-max`` points) the figure of ``webgl_prototype.points_figure`` is
built by a notebook cell, then:

* **draw**: Ctrl+Enter to the first draw of all N points (GL: an instanced
  draw of N; SVG: N ``.dot`` elements);
* **scale / data / colour**: a cell sets ``x_scale.min`` / new ``x, y`` /
  new colour codes; time from Ctrl+Enter until the figure stops changing
  (the last GL draw or DOM mutation before ``QUIET_MS`` of quiet), minus
  nothing: the **floor** row is the same for a cell that only changes a
  Label's text, the kernel round trip every change pays;
* **hover**: the mouse is moved onto an isolated point (its pixel computed
  from the roof line's own vertices, which share the scales); does the
  tooltip appear (within ``HOVER_WAIT_MS``)?
* **brush / lasso**: the interaction is switched on by a cell, a rectangle
  (a polygon) is drawn with the mouse; time from the mouse release to
  ``selected`` changing in the kernel (a kernel observer writes the count and
  time to a file), and that count against the one computed here from the
  same data and the polygon mapped back to data coordinates.

Screenshots of every figure go to ``--shots`` (default ``/tmp/probe-webgl``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
from _common import ROOT, command_line, median, ms, print_table
from playwright.sync_api import TimeoutError as PlaywrightTimeout

sys.path.insert(0, str(ROOT / "tests"))
from bench_browser_ranks import TIMEOUT_MS, launch_browser, start_lab
from browser.ui import open_in_lab, run_all_cells
from webgl_prototype import roofline_like_points

NO_WEBGL_ARGS = ("--disable-3d-apis",)
QUIET_MS = 600
HOVER_WAIT_MS = 1500
#: Records the page time of the last DOM mutation below the figure ``tag`` (attributes too).
WATCH = """tag => {
    window.probeObserver?.disconnect();
    window.probeLastChange = null;
    const figure = document.querySelector(`.${tag}`);
    window.probeObserver = new MutationObserver(() => { window.probeLastChange = performance.now(); });
    window.probeObserver.observe(figure, {attributes: true, childList: true, subtree: true,
                                          characterData: true});
    return performance.now();
}"""
#: The last change (DOM mutation or GL draw) once nothing changed for ``quiet`` ms, or null.
SETTLED = """([start, quiet]) => {
    const draws = window.glDraws.filter(d => d.t > start).map(d => d.t);
    const last = Math.max(window.probeLastChange || 0, ...draws, 0);
    if (last <= start) return null;
    return performance.now() - last > quiet ? last : null;
}"""
#: Client (page) coordinates of the roof line's vertices: they map data to pixels.
ROOF_VERTICES = """tag => {
    const path = document.querySelector(`.${tag} path.line`);
    const ctm = path.getScreenCTM();
    return path.getAttribute('d').replace(/[ML]/g, ' ').trim().split(/\\s+/).map(pair => {
        const [x, y] = pair.split(',').map(Number);
        const p = new DOMPoint(x, y).matrixTransform(ctm);
        return [p.x, p.y];
    });
}"""
TOOLTIP_SHOWN = """tag => [...document.querySelectorAll('.bqplot_tooltip_div')].some(d => {
    const s = getComputedStyle(d), r = d.getBoundingClientRect();
    return s.opacity !== '0' && s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0
           && d.textContent.includes('hover');
})"""
SETUP = """\
import sys, json, time
sys.path[:0] = [{root!r}, {bench!r}]
import numpy as np, ipywidgets as widgets
from webgl_prototype import points_figure, record_selected, roofline_like_points
F = {{}}
L = {{}}
def show(n, gl, tag):
    f = points_figure(n, gl=gl)
    record_selected(f.points, {state!r} + "/state-" + tag)
    F[tag], L[tag] = f, widgets.Label("0")
    box = widgets.VBox([L[tag], f.figure])
    box.add_class(tag)
    return box
print("probe-setup-done")
"""
ROOF_X = (0.005, 10.0, 200.0)   # webgl_prototype.points_figure's roof vertices
ROOF_Y = (1.0, 2000.0, 2000.0)


def write_notebook(path: Path, state_prefix: str) -> None:
    import nbformat

    setup = SETUP.format(root=str(ROOT), bench=str(ROOT / "benchmarks"), state=state_prefix)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup),
                                               nbformat.v4.new_code_cell("None"),
                                               nbformat.v4.new_code_cell("None")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, path)


def run_cell(page, code: str, cell: int = 2) -> float:
    """Replace the code of cell ``cell`` (1: figures, 2: changes), run it; return the press time."""
    editor = page.locator(".jp-CodeCell").nth(cell).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)
    start = page.evaluate("() => performance.now()")
    page.keyboard.press("Control+Enter")
    return start


def settled_after(page, start: float) -> float:
    """Seconds from ``start`` (page time) to the last change before ``QUIET_MS`` of quiet."""
    handle = page.wait_for_function(SETTLED, arg=[start, QUIET_MS], polling=50,
                                    timeout=TIMEOUT_MS)
    return (handle.json_value() - start) / 1000


class PageScales:
    """Data -> page pixels of a probe figure, fitted to its roof line's vertices (log-affine)."""

    def __init__(self, vertices):
        v = np.asarray(vertices, dtype=float)
        lx, ly = np.log10(ROOF_X), np.log10(ROOF_Y)
        self.bx = (v[1, 0] - v[0, 0]) / (lx[1] - lx[0])
        self.ax = v[0, 0] - self.bx * lx[0]
        self.by = (v[1, 1] - v[0, 1]) / (ly[1] - ly[0])
        self.ay = v[0, 1] - self.by * ly[0]

    def pixel(self, x, y):
        return self.ax + self.bx * np.log10(x), self.ay + self.by * np.log10(y)

    def data(self, px, py):
        return 10 ** ((np.asarray(px) - self.ax) / self.bx), 10 ** ((np.asarray(py) - self.ay) / self.by)


def isolated_point(x, y, scales: PageScales) -> tuple[float, float]:
    """Page position of a point alone in its 12 px cell with the 8 cells around empty."""
    px, py = scales.pixel(x, y)
    cells: dict = {}
    for i, key in enumerate(zip((px // 12).astype(int), (py // 12).astype(int))):
        cells.setdefault(key, []).append(i)
    for (cx, cy), members in cells.items():
        around = sum(len(cells.get((cx + dx, cy + dy), ())) for dx in (-1, 0, 1)
                     for dy in (-1, 0, 1))
        if around == 1:
            return float(px[members[0]]), float(py[members[0]])
    raise AssertionError("no isolated point")


def read_state(path: Path, since: float):
    try:
        state = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return state if state["time"] > since else None


def wait_state(path: Path, since: float, timeout_s: float = 60):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        state = read_state(path, since)
        if state is not None:
            return state
        time.sleep(0.01)
    return None


def page_scales(page, tag: str) -> PageScales:
    """The figure ``tag`` scrolled into view, and its data -> page pixel mapping now."""
    page.locator(f".{tag}").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return PageScales(page.evaluate(ROOF_VERTICES, tag))


STEPS = 4


def mouse_path(path_px) -> np.ndarray:
    """The positions Playwright's ``mouse.move(..., steps=STEPS)`` visits along ``path_px``."""
    visited = []
    for a, b in pairwise(path_px):
        visited += [np.add(a, np.subtract(b, a) * k / STEPS) for k in range(1, STEPS + 1)]
    return np.array(visited)


def select_with_mouse(page, path_px, state_file: Path) -> tuple[float | None, int | None]:
    """Drag the mouse along ``path_px`` (page px); seconds from release to the kernel's count."""
    page.mouse.move(*path_px[0])
    page.mouse.down()
    for point in path_px[1:]:
        page.mouse.move(*point, steps=STEPS)
    released = time.time()
    page.mouse.up()
    state = wait_state(state_file, released, timeout_s=15)
    if state is None:
        return None, None
    return state["time"] - released, state["n"]


def measure(page, n: int, gl: bool, tag: str, state_dir: Path, shots: Path) -> dict:
    kind = "gl" if gl else "svg"
    result: dict = {}
    start = run_cell(page, f"show({n}, {gl}, {tag!r})", cell=1)
    if gl:
        page.wait_for_function("([s, n]) => window.glDraws.some(d => d.t > s && d.n === n)",
                               arg=[start, n], polling="raf", timeout=TIMEOUT_MS)
        first = page.evaluate("([s, n]) => window.glDraws.find(d => d.t > s && d.n === n).t",
                              [start, n])
    else:
        page.wait_for_function("([tag, n]) => document.querySelectorAll(`.${tag} .dot`).length === n",
                               arg=[tag, n], polling="raf", timeout=TIMEOUT_MS)
        first = page.evaluate("() => performance.now()")
    result["draw"] = (first - start) / 1000
    page.wait_for_timeout(300)
    page.locator(f".{tag}").screenshot(path=str(shots / f"{kind}-{n}-drawn.png"))
    for name, code in (("floor", f"L[{tag!r}].value = str(time.time())"),
                       ("scale", f"F[{tag!r}].x_scale.min = 0.004"),
                       ("data", f"p = F[{tag!r}].points\n"
                                f"x, y, c = roofline_like_points({n}, seed=1)\n"
                                "with p.hold_sync():\n    p.x, p.y = x, y"),
                       ("colour", f"F[{tag!r}].points.color = (F[{tag!r}].points.color + 1) % 10")):
        page.evaluate(WATCH, tag)
        result[name] = settled_after(page, run_cell(page, code))
    # back to the first data set, so that the expected selections are known here
    start = run_cell(page, f"p = F[{tag!r}].points\nx, y, c = roofline_like_points({n})\n"
                           "with p.hold_sync():\n    p.x, p.y, p.color = x, y, c\n"
                           f"F[{tag!r}].x_scale.min = 0.005")
    page.evaluate(WATCH, tag)
    settled_after(page, start)
    x, y, _codes = roofline_like_points(n)
    scales = page_scales(page, tag)
    # hover: an isolated point
    hx, hy = isolated_point(x, y, scales)
    page.mouse.move(hx - 30, hy - 30)
    page.mouse.move(hx, hy, steps=5)
    try:
        page.wait_for_function(TOOLTIP_SHOWN, arg=tag, timeout=HOVER_WAIT_MS)
        result["hover"] = "tooltip"
    except PlaywrightTimeout:  # no tooltip within HOVER_WAIT_MS
        result["hover"] = "none"
    page.mouse.move(hx - 200, hy + 200)
    state_file = state_dir / f"state-{tag}"
    # brush: intensity 0.3 to 3, every GFLOP/s above 0.01
    run_cell(page, f"F[{tag!r}].figure.interaction = F[{tag!r}].brush")
    page.wait_for_timeout(500)
    scales = page_scales(page, tag)
    x0, y1 = scales.pixel(0.3, 3000.0)
    x1, y0 = scales.pixel(3.0, 0.01)
    inside = (x >= 0.3) & (x <= 3.0) & (y >= 0.01) & (y <= 3000.0)
    result["brush"], result["brush_n"] = select_with_mouse(
        page, [(x0, y1), (x1, y0)], state_file)
    result["brush_expected"] = int(inside.sum())
    page.wait_for_timeout(300)
    page.locator(f".{tag}").screenshot(path=str(shots / f"{kind}-{n}-brushed.png"))
    # lasso: a triangle
    run_cell(page, f"F[{tag!r}].brush.selected_x = None\n"
                   f"F[{tag!r}].figure.interaction = F[{tag!r}].lasso")
    page.wait_for_timeout(500)
    scales = page_scales(page, tag)
    triangle = [scales.pixel(0.05, 0.05), scales.pixel(20.0, 0.05), scales.pixel(20.0, 1000.0)]
    result["lasso"], result["lasso_n"] = select_with_mouse(page, triangle, state_file)
    from matplotlib.path import Path as Polygon

    pixels = np.column_stack(scales.pixel(x, y))
    # the lasso's vertices are the drag's mouse moves (the press point is not one)
    result["lasso_expected"] = int(Polygon(mouse_path(triangle)).contains_points(pixels).sum())
    page.wait_for_timeout(300)
    page.locator(f".{tag}").screenshot(path=str(shots / f"{kind}-{n}-lassoed.png"))
    run_cell(page, f"F[{tag!r}].figure.interaction = None")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 50000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--svg-max", type=int, default=5000, help="largest SVG figure drawn")
    parser.add_argument("--no-webgl", action="store_true", help="Chromium with --disable-3d-apis")
    parser.add_argument("--shots", type=Path, default=Path("/tmp/probe-webgl"))
    args = parser.parse_args()
    args.shots.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="probe-webgl-") as tmp:
        work = Path(tmp)
        (work / "notebooks").mkdir()
        write_notebook(work / "notebooks" / "probe.ipynb", str(work))
        server = start_lab(work)
        try:
            with sync_playwright() as playwright:
                context = launch_browser(playwright, work,
                                         NO_WEBGL_ARGS if args.no_webgl else (), width=1300)
                page = context.new_page()
                errors: list[str] = []
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                open_in_lab(page, server, "probe.ipynb")
                print("WebGL in this page:",
                      page.evaluate("() => !!document.createElement('canvas').getContext('webgl')"))
                run_all_cells(page)
                page.wait_for_selector("text=probe-setup-done", timeout=TIMEOUT_MS)
                if args.no_webgl:
                    no_webgl(page, work, args.shots, errors)
                    return
                measure(page, 500, True, "probe-warm-gl", work, args.shots)  # loads the JS
                measure(page, 500, False, "probe-warm-svg", work, args.shots)
                for run in range(args.runs):
                    for n in args.sizes:
                        for gl in (True, False):
                            if not gl and n > args.svg_max:
                                continue
                            tag = f"probe-{n}-{'gl' if gl else 'svg'}-{run}"
                            results.setdefault((n, gl), []).append(
                                measure(page, n, gl, tag, work, args.shots))
                context.close()
                if errors:
                    print(f"console errors ({len(errors)}), first: {errors[:3]}")
        finally:
            server.stop()
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")
    report(results, args)


def no_webgl(page, work: Path, shots: Path, errors: list[str]) -> None:
    """In a browser without WebGL: a ScatterGL in a new figure, and one added to a shown figure.

    Prints what the page shows and the ``_view_count`` the kernel sees (the
    widgets' front ends count the views that were displayed).
    """
    tag = "probe-nowebgl"
    run_cell(page, f"show(2000, True, {tag!r})", cell=1)
    page.wait_for_timeout(8000)
    figure = page.locator(f".{tag}")
    print(f"ScatterGL in a new figure: roof lines drawn: "
          f"{page.locator(f'.{tag} path.line').count()}, axis ticks in the DOM: "
          f"{page.locator(f'.{tag} .tick').count()}, GL draws: "
          f"{len(page.evaluate('() => window.glDraws'))}")
    figure.screenshot(path=str(shots / "no-webgl-new-figure.png"))
    tag = "probe-nowebgl-added"
    run_cell(page, "from bqplot_gl import ScatterGL\n"
                   f"F0 = points_figure(2000, gl=False)\nF0.figure._view_count = 0\n"
                   f"F0.points._view_count = 0\nF0.figure.add_class({tag!r})\nF0.figure", cell=1)
    page.wait_for_timeout(5000)
    run_cell(page, "GL = ScatterGL(x=F0.points.x, y=F0.points.y, color=F0.points.color,\n"
                   "               scales=F0.points.scales, _view_count=0)\n"
                   "F0.figure.marks = [*F0.figure.marks, GL]")
    page.wait_for_timeout(5000)
    run_cell(page, "print('view counts: figure', F0.figure._view_count, 'SVG scatter',\n"
                   "      F0.points._view_count, 'ScatterGL', GL._view_count)")
    page.wait_for_timeout(2000)
    print("ScatterGL added to a shown SVG figure:",
          page.locator(".jp-CodeCell").nth(2).locator(".jp-OutputArea").inner_text().strip(),
          f"; SVG dots still drawn: {page.locator(f'.{tag} .dot').count()}")
    page.locator(f".{tag}").screenshot(path=str(shots / "no-webgl-added.png"))
    print("console errors:", *errors[:10], sep="\n  ")


def report(results: dict, args) -> None:
    rows = []
    def med(runs, key):
        values = [r[key] for r in runs if r[key] is not None]
        return ms(median(values)) if values else "never"

    for (n, gl), runs in sorted(results.items()):
        rows.append([f"{n:,}", "ScatterGL" if gl else "SVG Scatter", med(runs, "draw"), med(runs, "floor"),
                     med(runs, "scale"), med(runs, "data"), med(runs, "colour"),
                     "/".join(sorted({r["hover"] for r in runs})),
                     med(runs, "brush"), f"{runs[-1]['brush_n']} of {runs[-1]['brush_expected']}",
                     med(runs, "lasso"), f"{runs[-1]['lasso_n']} of {runs[-1]['lasso_expected']}"])
    print_table(f"ScatterGL against SVG Scatter in JupyterLab (headless Chromium), medians of "
                f"{args.runs} run(s)",
                ["points", "mark", "draw", "floor", "scale", "data", "colour", "hover",
                 "brush -> kernel", "brushed (kernel of expected)", "lasso -> kernel",
                 "lassoed (kernel of expected)"], rows)
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
