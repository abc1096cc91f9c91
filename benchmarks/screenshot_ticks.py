"""The widget's log-axis tick labels in Chromium: screenshots, and the labels that overlap or touch.

Usage::

    python benchmarks/screenshot_ticks.py --out /tmp/ticks-after            # saved pages
    python benchmarks/screenshot_ticks.py --out /tmp/ticks-after --live     # and JupyterLab

Real data under a real machine's ceilings, narrow and wide spans (``CASES``):
Nsight Compute's GPT-2 attention kernels (sample N2, an Ampere GPU) under the
A100-SXM4-40GB's single-precision datasheet roofs (5.5 decades of intensity);
LULESH's seven problem sizes on a Xeon 8360Y (sample 19: 9.3 decades across,
6.6 up); SOMA's 216 ranks on a Xeon 8360Y (sample 23) under the 8360Y's spec
sheet (36 cores x 2.4 GHz x 32 DP FLOP/cycle = 2764.8 GFLOP/s; 8 channels of
DDR4-3200 = 204.8 GB/s: 2.9 decades) and with its empirical ceilings (1.95
decades: every 1..9 x 10^k is a tick).

Each case's ``save_html`` page is opened offline at two window widths
(``WIDTHS``: the plot about 630 px and 1300 px wide); then the GPT-2 case with
its figure's layout fixed at 1200 px (``FIXED_WIDTH``: the labels spaced for
it), and LULESH's Scaling panel (GFLOP/s against the problem size on log
axes, its figure alone on a page, ``--panel`` only that); the live mode shows the
same widgets in JupyterLab, then zooms in and out with the wheel (pan-zoom)
and changes a peak, and looks again, then fixes the figure's width at
``FIXED_WIDTH`` (the labels spaced again for it).  For every view it prints,
per axis, the labels shown and the pairs of neighbouring labels less than ``GAP_PX`` apart
(0: none touch), and writes ``<case>-<view>.png`` into ``--out``.  To picture
another tree (before / after), copy this script into that tree's ``benchmarks/``
and run it there: ``_common`` puts the script's own tree first on ``sys.path``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from _common import ROOT

sys.path.insert(0, str(ROOT / "tests"))
from browser.ui import tick_labels

CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/lib/chromium/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
#: Window widths: the figure's plot area about 630 px and 1300 px wide (the page).
WIDTHS = (720, 1400)
#: The window's width in JupyterLab: the plot area about 600 px wide beside Lab's side bar.
LAB_WIDTH = 1000
#: Two labels closer than this (px, along their axis) count as touching.
GAP_PX = 2.0
#: The figure's layout width of the fixed-width case.
FIXED_WIDTH = "1200px"
TIMEOUT_MS = 120_000
GPT2 = "/work/shared/samples/ncu/gpt2_ampere_ncu_old_header_thousands.csv"
SETUP = f"""\
import sys, warnings
sys.path[:0] = [{str(ROOT / 'tests')!r}]
warnings.simplefilter("ignore")
from roofline_widget import RooflineWidget, gpu_ceilings, read_ncu
from wild_samples import LULESH_SIZES, SOMA_216
CASES = {{
    "gpt2-a100": lambda: RooflineWidget(read_ncu({GPT2!r}),
                                        ceilings=gpu_ceilings(gpu="A100-SXM4-40GB", precision="SP")),
    "lulesh": lambda: RooflineWidget(str(LULESH_SIZES)),
    "soma-8360y": lambda: RooflineWidget(str(SOMA_216), peak_flops=2764.8, peak_bandwidth=204.8),
    "soma-empirical": lambda: RooflineWidget(str(SOMA_216)),
}}
"""
def report(page, figure: str, name: str, out: Path) -> int:
    """Print the labels of ``figure`` and the touching pairs; screenshot it; the number of pairs."""
    axes = tick_labels(page, figure, GAP_PX)
    pairs = 0
    for axis, found in zip("xy", axes):
        pairs += len(found["touching"])
        print(f"{name:32s} {axis}: {len(found['touching'])} touching {found['touching']}  "
              f"labels {' '.join(found['texts'])}")
    page.locator(figure).first.screenshot(path=str(out / f"{name}.png"))
    return pairs


def launch(playwright, profile: Path, width: int = WIDTHS[0]):
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
        viewport={"width": width, "height": 1100})


def zoom(page, figure: str, toggle, steps: list[int], name: str, out: Path) -> int:
    """Switch pan-zoom on (``toggle()``), wheel over the plot's centre by each step, report each."""
    toggle()
    pairs = 0
    for index, delta in enumerate(steps):
        box = page.locator(f"{figure} .plotarea_background").first.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.6)
        page.mouse.wheel(0, delta)
        page.wait_for_timeout(1500)
        pairs += report(page, figure, f"{name}-zoom{index + 1}", out)
    return pairs


def fixed_and_panel(page, namespace: dict, out: Path, work: Path) -> int:
    """The GPT-2 page at a fixed figure width, and LULESH's Scaling panel; the touching pairs."""
    from roofline_widget.static.html_page import page_html

    page.set_viewport_size({"width": WIDTHS[1], "height": 1100})
    widget = namespace["CASES"]["gpt2-a100"]()
    widget.figure.plot.layout.width = FIXED_WIDTH
    page.goto(widget.save_html(work / "gpt2-fixed.html").as_uri())
    figure = ".roofline-shared .roofline-figure"
    page.wait_for_selector(f"{figure} .dot", state="attached")
    page.wait_for_timeout(800)
    pairs = report(page, figure, f"gpt2-a100-page-layout-{FIXED_WIDTH}", out)
    panel = namespace["CASES"]["lulesh"]().sweep_controls.scaling
    panel.open()
    (work / "panel.html").write_text(page_html(panel.figure, "Scaling panel", ""), encoding="utf-8")
    page.goto((work / "panel.html").as_uri())
    page.wait_for_selector(".roofline-scaling .dot", state="attached")
    page.wait_for_timeout(800)
    return pairs + report(page, ".roofline-scaling", "lulesh-scaling-panel", out)


def pages(out: Path, work: Path, panel_only: bool = False) -> int:
    from playwright.sync_api import sync_playwright

    namespace: dict = {}
    exec(SETUP, namespace)
    pairs = 0
    with sync_playwright() as playwright:
        context = launch(playwright, work / "profile")
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        for case, make in ({} if panel_only else namespace["CASES"]).items():
            path = make().save_html(work / f"{case}.html")
            page.goto(path.as_uri())
            figure = ".roofline-shared .roofline-figure"
            page.wait_for_selector(f"{figure} .dot", state="attached")
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 1100})
                page.wait_for_timeout(800)
                pairs += report(page, figure, f"{case}-page-{width}px", out)
            page.set_viewport_size({"width": WIDTHS[0], "height": 1100})
            page.wait_for_timeout(800)
            button = page.locator(".roofline-shared-toolbar button").first
            pairs += zoom(page, figure, button.click, [-300, 900], f"{case}-page", out)
        pairs += fixed_and_panel(page, namespace, out, work)
        context.close()
    return pairs


def live(out: Path, work: Path) -> int:
    import nbformat
    from browser.servers import isolated_env, start_server
    from browser.ui import open_in_lab, run_all_cells, wait_until_still
    from playwright.sync_api import sync_playwright

    (work / "notebooks").mkdir()
    cells = [SETUP + "print('ticks-setup-done')", "None", "None"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, work / "notebooks" / "ticks.ipynb")
    server = start_server(
        ["jupyterlab", "--no-browser", "--ip=127.0.0.1", "--allow-root",
         f"--ServerApp.root_dir={work / 'notebooks'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        root_dir=work / "notebooks", env=isolated_env(work / "jupyter", work / "state.json"),
        log_path=work / "lab.log", state_file=work / "state.json")
    namespace: dict = {}
    exec(SETUP, namespace)
    pairs = 0
    try:
        with sync_playwright() as playwright:
            context = launch(playwright, work / "profile-lab", LAB_WIDTH)
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            open_in_lab(page, server, "ticks.ipynb")
            run_all_cells(page)
            page.wait_for_selector("text=ticks-setup-done")
            for case in namespace["CASES"]:
                pairs += _live_case(page, case, out, wait_until_still)
            context.close()
    finally:
        server.stop()
    return pairs


def _run(page, code: str, cell: int = 1) -> None:
    """Replace the code of the notebook's ``cell`` (1: the widget's, 2: changes to it), run it."""
    editor = page.locator(".jp-CodeCell").nth(cell).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")


def _live_case(page, case: str, out: Path, wait_until_still) -> int:
    tag = f"ticks-{case}"
    _run(page, f"w = CASES[{case!r}](); w.add_class({tag!r}); w")
    figure = f".{tag} .roofline-figure"
    page.wait_for_selector(f"{figure} .plotarea_background", state="attached")
    page.locator(figure).first.scroll_into_view_if_needed()
    wait_until_still(page, f"{figure} g.axis")
    pairs = report(page, figure, f"{case}-live", out)

    def pan_zoom() -> None:
        page.locator(f".{tag} .roofline-interaction button", has_text="pan-zoom").first.click()

    pairs += zoom(page, figure, pan_zoom, [-300, 900], f"{case}-live", out)
    _run(page, "w.peak_flops = 1e6", cell=2)  # the ridge far right: both ranges move
    page.wait_for_timeout(2500)
    pairs += report(page, figure, f"{case}-live-peak1e6", out)
    _run(page, f"w.figure.plot.layout.width = {FIXED_WIDTH!r}", cell=2)  # labels re-spaced
    page.wait_for_timeout(2500)
    return pairs + report(page, figure, f"{case}-live-layout-{FIXED_WIDTH}", out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--live", action="store_true", help="also the widgets in JupyterLab")
    parser.add_argument("--no-pages", action="store_true", help="not the saved pages")
    parser.add_argument("--panel", action="store_true",
                        help="only the fixed-width page and the Scaling panel")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    import roofline_widget

    print(f"roofline_widget from {Path(roofline_widget.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="screenshot-ticks-") as tmp:
        pairs = 0 if args.no_pages else pages(args.out, Path(tmp), args.panel)
        if args.live:
            pairs += live(args.out, Path(tmp))
    print(f"touching label pairs in all views: {pairs}; screenshots in {args.out}")


if __name__ == "__main__":
    main()
