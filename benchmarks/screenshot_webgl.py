"""docs/screenshot-webgl-50000.png: 50,000 WebGL points under a real machine's roofs, in JupyterLab.

Usage::

    python benchmarks/screenshot_webgl.py [--out docs/screenshot-webgl-50000.png]

The notebook of ``bench_browser_ranks.py`` (generated scope-profiler results,
6,250 ranks x 8 regions, one thread each) draws all 50,000 points with the
widget's defaults (``max_points=50000``; ``rank_view="points"`` so that the
points and not the spread are shown) under the roofs of the AMD EPYC 7763
likwid-bench logs (``machine_roofline`` of the bundled sample
``machine_milan_epyc7763_16c``: the DP AVX FMA peak and the memory bandwidth
as the peaks, the L2 bandwidth as an extra ceiling).  The screenshot is taken once the page made
the WebGL draw of 50,000 points and the figure stopped moving.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import ROOT
from bench_browser_ranks import REGIONS, ranks_notebook, run_cell, wait_for_dots
from browser.ui import wait_until_still

RANKS = 6250
TAG = "webgl-screenshot"
CODE = f"""\
from pathlib import Path
from roofline_widget import machine_roofline, sample_path
milan = sorted((Path(sample_path("SOURCES.md")).parent / "machine_milan_epyc7763_16c").glob("*.log"))
roofs = machine_roofline(milan, label="EPYC 7763")
memory = [r for r in roofs.bandwidth if r.level == "MEM"][0]
w = RooflineWidget(DATA[{RANKS}], flops_metric="DP [MFLOP/s]",
                   bandwidth_metric="Memory bandwidth [MBytes/s]", rank_view="points",
                   ceilings=[r for r in roofs.bandwidth if r is not memory],
                   peak_flops=roofs.peak_flops, peak_bandwidth=memory.gbs)
w.add_class({TAG!r})
w
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot-webgl-50000.png")
    args = parser.parse_args()
    with ranks_notebook([RANKS], "screenshot-webgl-") as (_context, page, _state):
        run_cell(page, CODE)
        wait_for_dots(page, TAG, RANKS * REGIONS, gl=True)
        figure = f".{TAG} .roofline-figure .plotarea_background"
        page.locator(figure).first.scroll_into_view_if_needed()
        wait_until_still(page, figure)
        page.set_viewport_size({"width": 1150, "height": 1500})  # the whole widget in view
        widget = page.locator(f".{TAG}").first
        widget.scroll_into_view_if_needed()
        wait_until_still(page, figure)
        page.wait_for_timeout(3000)  # the software rasterizer finishes the frame
        page.mouse.move(0, 0)
        widget.screenshot(path=str(args.out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
