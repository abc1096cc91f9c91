"""The baseline comparison in JupyterLab: lines drawn as SVG paths from hollow to filled points.

A notebook written here shows ``RooflineWidget(take, baseline=give)`` (samples 2 and 16, two
regions): the page must hold 2 filled and 2 hollow dots, and 2 dashed paths in the regions'
colours, each running from a hollow dot's centre to a filled dot's centre.  Hovering a hollow
dot shows the comparison tooltip.
"""

from __future__ import annotations

import nbformat
import numpy as np
import pytest

from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

CODE = """\
from roofline_widget import RooflineWidget, read_likwid, sample_path
give = read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
take = read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"))
wc = RooflineWidget(take, baseline=give)
wc
"""
DOTS = ".roofline-figure .dot"
# The two regions' palette colours (tab10 blue and orange) as the browser computes them.
REGION_STROKES = {"rgb(31, 119, 180)", "rgb(255, 127, 14)"}
DOT_INFO = """els => els.map(e => { const r = e.getBoundingClientRect();
    return [getComputedStyle(e).fill, r.x + r.width / 2, r.y + r.height / 2,
            r.x, r.y, r.width, r.height]; })"""
LINE_INFO = """els => els.map(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return [s.stroke, s.strokeDasharray, r.x, r.y, r.width, r.height]; })"""


def test_baseline_lines_are_drawn_between_hollow_and_filled_points(lab, page, artifacts_dir):
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CODE))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, lab.root_dir / "_compare.ipynb")

    open_in_lab(page, lab, "_compare.ipynb")
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, 4) == 4
    wait_until_still(page, DOTS)
    dots = page.locator(DOTS).evaluate_all(DOT_INFO)
    hollow = np.array([d[1:3] for d in dots if d[0] == "none"], dtype=float)
    filled = np.array([d[1:3] for d in dots if d[0] != "none"], dtype=float)
    assert len(hollow) == 2 and len(filled) == 2, dots

    lines = page.locator(".roofline-figure path.line").evaluate_all(LINE_INFO)
    compare = [line for line in lines if line[0] in REGION_STROKES]
    assert {line[0] for line in compare} == REGION_STROKES, lines
    assert all(line[1] not in ("none", "") for line in compare)  # dashed
    for _, _, x, y, width, height in compare:
        # the path's box spans from one hollow dot's centre to one filled dot's centre
        spans = [(h, f) for h in hollow for f in filled
                 if np.allclose([min(h[0], f[0]), max(h[0], f[0]), min(h[1], f[1]),
                                 max(h[1], f[1])], [x, x + width, y, y + height], atol=3)]
        assert len(spans) == 1, (x, y, width, height, hollow, filled)

    status = page.locator(".roofline-status").first.inner_text()
    assert "median speed-up vs baseline: 1.48× over 2 points" in status

    page.locator(".roofline-figure").first.screenshot(
        path=str(artifacts_dir / "screenshot-compare.png"))

    wait_until_still(page, DOTS)  # the screenshot may have scrolled the page
    dots = page.locator(DOTS).evaluate_all(DOT_INFO)
    hollow_box = next(d for d in dots if d[0] == "none")
    page.mouse.move(hollow_box[3] + 1, hollow_box[4] + hollow_box[6] / 2)
    tooltip = page.locator(".roofline-compare-tooltip")
    tooltip.first.wait_for(timeout=10_000)
    assert "Speed-up" in tooltip.first.inner_text()
