"""The widget's first draw in JupyterLab (headless Chromium): one screenshot per case, of a tree.

Usage::

    python benchmarks/screenshot_first_draw.py --out /tmp/draw-after
    python benchmarks/screenshot_first_draw.py --out /tmp/draw-before --tree /tmp/before

The kernel imports the package of ``--tree`` (default: this one), so two runs
picture two trees side by side: the whole widget (control panel, figure,
legend, detail, status line, closed sections) as first drawn, per case
(``CASES``): the peers' table of 50,000 points in 6,250 ranks x 8 regions
(``peer_widgets.roofline_points``: WebGL points, the memory-level row), and
SOMA's 216 ranks on a Xeon 8360Y (sample 23) under its spec sheet's peaks
(SVG points).  Writes ``<case>.png`` into ``--out`` and prints the widgets the
kernel opened for each case and the comm messages it sent while building it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import ROOT

sys.path.insert(0, str(ROOT / "tests"))
from screenshot_ticks import CHROMIUM, CHROMIUM_ARGS

WIDTH = 1400
TIMEOUT_MS = 180_000
#: Each case's widget, as the notebook makes it.
CASES = {
    "peers-50000": "RooflineWidget(roofline_points(50_000, 8))",
    "soma-8360y": "RooflineWidget(str(SOMA_216), peak_flops=2764.8, peak_bandwidth=204.8)",
}
#: Run once in the kernel: the cases, and a count of the comm messages of each build.
SETUP = """\
import json, sys, warnings
sys.path[:0] = [{tests!r}, {benchmarks!r}]
warnings.simplefilter("ignore")
from peer_widgets import roofline_points
from roofline_widget import RooflineWidget
from wild_samples import SOMA_216
CASES = {{{cases}}}
session = get_ipython().kernel.session
_send, SENT = session.send, []

def counted(stream, msg_or_type, content=None, *args, **keys):
    kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get("msg_type", "")
    SENT.append(kind)
    return _send(stream, msg_or_type, content, *args, **keys)

session.send = counted

def build(case):
    SENT.clear()
    widget = CASES[case]()
    counts = {{"widgets": SENT.count("comm_open"),
               "messages": sum(kind.startswith("comm_") for kind in SENT)}}
    widget.add_class("first-draw-" + case)
    print("first-draw-counts", case, json.dumps(counts))
    return widget
print("first-draw-setup-done")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the tree the kernel imports")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="screenshot-first-draw-") as tmp:
        shoot(args.tree.resolve(), args.out, Path(tmp))


def shoot(tree: Path, out: Path, work: Path) -> None:
    import nbformat
    from browser.servers import isolated_env, start_server
    from browser.ui import open_in_lab, run_all_cells, wait_until_still
    from playwright.sync_api import sync_playwright

    cases = list(CASES)
    setup = SETUP.format(tests=str(ROOT / "tests"), benchmarks=str(ROOT / "benchmarks"),
                         cases=", ".join(f"{case!r}: lambda: {code}" for case, code in CASES.items()))
    (work / "notebooks").mkdir()
    cells = [setup, *(f"build({case!r})" for case in cases)]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, work / "notebooks" / "first_draw.ipynb")
    env = isolated_env(work / "jupyter", work / "state.json")
    env["PYTHONPATH"] = str(tree)
    server = start_server(
        ["jupyterlab", "--no-browser", "--ip=127.0.0.1", "--allow-root",
         f"--ServerApp.root_dir={work / 'notebooks'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        root_dir=work / "notebooks", env=env, log_path=work / "lab.log",
        state_file=work / "state.json")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(work / "profile"), executable_path=CHROMIUM, headless=True,
                args=CHROMIUM_ARGS, viewport={"width": WIDTH, "height": 1400})
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            open_in_lab(page, server, "first_draw.ipynb")
            run_all_cells(page)
            for case in cases:
                widget = f".first-draw-{case}"
                page.wait_for_selector(f"{widget} .roofline-figure .plotarea_background",
                                       state="attached")
                page.locator(widget).first.scroll_into_view_if_needed()
                wait_until_still(page, f"{widget} .roofline-figure g.axis")
                page.wait_for_timeout(1500)
                page.locator(widget).first.screenshot(path=str(out / f"{case}.png"))
            counts = page.locator(".jp-OutputArea-output", has_text="first-draw-counts")
            for text in counts.all_inner_texts():
                _tag, case, found = text.strip().split(" ", 2)
                print(f"{case}: {json.loads(found)}")
            context.close()
    finally:
        server.stop()
    print(f"kernel's package: {tree}; screenshots in {out}")


if __name__ == "__main__":
    main()
