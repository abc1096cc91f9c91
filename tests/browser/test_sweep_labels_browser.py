"""Ceiling and ridge labels of a size sweep under a real machine's ceilings, in Chromium.

The points are sample 19's (``tests/data/lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv``:
seven LULESH problem sizes, drawn as run #7's points and each region's path through the
runs); the ceilings sample 22's (an AMD EPYC 7763, likwid-bench logs through
``machine_roofline``, labelled "EPYC 7763"): DP AVX FMA 820 GFLOP/s, L2 771.7 GB/s and
MEM 41.27 GB/s, the roofline their MEM slope under the DP roof (ridge 820.02 / 41.27 =
19.87 FLOP/byte).  No label is crossed by a roof drawn in the plot (the black roofline, the
dashed ceilings in their colours) at 900 and 1400 px; the screenshots go to the artifacts
directory (``screenshot-sweep-milan-labels-{900,1400}px.png``).  (The sweep's paths are not
obstacles of the placement yet: one of them passes through the MEM label.)
"""

from __future__ import annotations

import pytest

from .conftest import REPO, SCREENSHOT_WIDTHS
from .ui import label_boxes, open_widget_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "_sweep_labels.ipynb"
WIDGET = ".roofline-widget"
FIGURE = f"{WIDGET} .roofline-figure"
DOTS = f"{FIGURE} .dot"
LULESH = REPO / "tests" / "data" / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv"
CODE = f"""\
import sys
from glob import glob
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}]
from roofline_widget import RooflineWidget, machine_roofline, read_likwid, sample_path
samples = Path(sample_path("SOURCES.md")).parent
milan = machine_roofline(sorted(glob(str(samples / "machine_milan_epyc7763_16c" / "*.log"))),
                         label="EPYC 7763")
w = RooflineWidget(read_likwid({str(LULESH)!r}), ceilings=milan)
w
"""
#: Strokes of the roofline and the ceilings (ROOF_COLOR; line_color of a CPU's ceilings).
ROOF_STROKES = ("rgb(0, 0, 0)", "rgb(61, 90, 128)", "rgb(155, 61, 42)")
#: Every roof drawn in the plot as page points 1 px apart: [[x, y], ...] per path.
PATH_POINTS = """(els, strokes) => els.filter(e => e.getTotalLength() > 0
                                         && strokes.includes(getComputedStyle(e).stroke)).map(e => {
    const m = e.getScreenCTM(), n = Math.ceil(e.getTotalLength());
    const out = [];
    for (let i = 0; i <= n; i++) {
        const p = e.getPointAtLength(Math.min(i, e.getTotalLength()));
        out.push([p.x * m.a + p.y * m.c + m.e, p.x * m.b + p.y * m.d + m.f]);
    }
    return out;
})"""


@pytest.fixture
def sweep_page(lab, page, browser_tmp):
    open_widget_notebook(lab, page, browser_tmp, NOTEBOOK, CODE, DOTS)
    return page


def crossings(page) -> list[tuple[str, list[float]]]:
    """Labels a roof passes through: (text, the first page point of a line inside it)."""
    _area, labels = label_boxes(page.locator(FIGURE).first)
    paths = page.locator(f"{FIGURE} path.line").evaluate_all(PATH_POINTS, list(ROOF_STROKES))
    assert len(paths) >= 3, "the roofline and the dashed ceilings"
    found = []
    for text, box in labels:
        inside = [p for path in paths for p in path
                  if box["x"] + 1 < p[0] < box["x"] + box["width"] - 1
                  and box["y"] + 1 < p[1] < box["y"] + box["height"] - 1]
        if inside:
            found.append((text, inside[0]))
    return found


def test_no_line_crosses_a_label_at_900_and_1400_px(sweep_page, artifacts_dir):
    page = sweep_page
    size = page.viewport_size
    try:
        for width in SCREENSHOT_WIDTHS:
            page.set_viewport_size({"width": width, "height": size["height"]})
            page.wait_for_timeout(500)  # bqplot lays itself out again on resize
            page.locator(WIDGET).first.screenshot(
                path=str(artifacts_dir / f"screenshot-sweep-milan-labels-{width}px.png"))
            _area, labels = label_boxes(page.locator(FIGURE).first)
            texts = [text for text, _box in labels]
            assert "EPYC 7763 DP AVX FMA 820 GFLOP/s" in texts, texts
            assert "ridge 19.9" in texts, texts  # no room for its unit at 360 px
            assert crossings(page) == [], width
    finally:
        page.set_viewport_size(size)
