"""Ceiling labels of a real machine's four roofs in Chromium, at 900 and 1400 px.

The ceilings are sample 22's (an AMD EPYC 7763, 16 cores, likwid-bench logs through
``machine_roofline``): DP AVX FMA 820 GFLOP/s and SP AVX FMA 1639 GFLOP/s (peakflops
kernels), L2 771.7 GB/s and MEM 41.27 GB/s (load and stream kernels wrapped in
likwid-perfctr L2 and MEM1).  The points are the quickstart's (pmgpu and GMGPolar).

Each label is short and names its roof ("MEM 41.27 GB/s"), lies inside the plot, apart
from the others and from the points, the labels of each kind stacked in the order of
their lines; hovering one shows where its number came from.  Dragging the peak-bandwidth
slider moves its line, and its label follows the line.
"""

from __future__ import annotations

import math
import re

import nbformat
import pytest

from .conftest import REPO, SCREENSHOT_WIDTHS, screenshot_widths
from .ui import (
    RENDER_TIMEOUT_MS,
    centres,
    drag_slider,
    label_boxes,
    open_in_lab,
    read_json_when,
    run_all_cells,
    slider_px_per_decade,
    wait_until_still,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "_ceiling_labels.ipynb"
WIDGET = ".roofline-widget"
FIGURE = f"{WIDGET} .roofline-figure"
DOTS = f"{FIGURE} .dot"
#: The four roofs' labels (values of sample 22's logs, .4g).
ROOF_LABELS = ("DP AVX FMA 820 GFLOP/s", "SP AVX FMA 1639 GFLOP/s", "L2 771.7 GB/s",
               "MEM 41.27 GB/s")
PEAK_BANDWIDTH = 100.0
CODE = f"""\
import json, os, sys
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}]
from roofline_widget import Roofline, RooflineWidget, machine_roofline, read_likwid, sample_path
logs = sorted(Path(sample_path("SOURCES.md")).parent.glob("machine_milan_epyc7763_16c/*.log"))
dp, sp = machine_roofline(logs), machine_roofline(logs, precision="SP")
roofs = Roofline([*dp.compute, *sp.compute], list(dp.bandwidth))
runs = [read_likwid(sample_path(name)) for name in (
    "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")]
w = RooflineWidget(runs, ceilings=list(roofs), peak_flops=820.02222, peak_bandwidth={PEAK_BANDWIDTH})

def write_state(change=None):
    figure = w.figure
    labels = [dict(text=str(end or start), x=float(x), y=float(y)) for end, start, x, y in zip(
        figure.ceiling_labels.text, figure.ceiling_labels_start.text, figure.ceiling_labels.x,
        figure.ceiling_labels.y)]
    state = dict(peak_bandwidth=w.peak_bandwidth, labels=labels,
                 x_range=[figure.x_scale.min, figure.x_scale.max],
                 y_range=[figure.y_scale.min, figure.y_scale.max])
    path = os.environ["ROOFLINE_STATE_FILE"]
    Path(path + ".partial").write_text(json.dumps(state))
    os.replace(path + ".partial", path)

w.observe(write_state, names=["peak_bandwidth"])
write_state()
w
"""


@pytest.fixture
def four_roofs(lab, page):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CODE)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, lab.root_dir / NOTEBOOK)
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    return lab


#: Page position of the point 30 % along the dashed line that starts lowest (the lowest slope),
#: moved to the middle of a dash.
POINT_ON_LOWEST_LINE = """els => {
    const dashed = els.filter(e => getComputedStyle(e).strokeDasharray !== 'none'
                               && e.getTotalLength() > 0);
    const start = e => e.getPointAtLength(0).y;
    const line = dashed.reduce((a, b) => (start(b) > start(a) ? b : a));
    // the middle of the last dash that starts before 30 % along: a gap between dashes is not hovered
    const dashes = getComputedStyle(line).strokeDasharray.split(',').map(parseFloat);
    const period = dashes.reduce((a, b) => a + b, 0);
    const along = Math.floor(0.3 * line.getTotalLength() / period) * period + dashes[0] / 2;
    const m = line.getScreenCTM(), p = line.getPointAtLength(along);
    return [p.x * m.a + m.e, p.y * m.d + m.f];
}"""


def shown_labels(page) -> dict[str, dict]:
    """The ceiling labels on the page by text: their boxes (CSS px)."""
    _area, labels = label_boxes(page.locator(FIGURE).first)
    return {text: box for text, box in labels}


def test_four_roofs_labelled_inside_apart_clear_of_points_and_in_order(four_roofs, page,
                                                                        artifacts_dir):
    labels = shown_labels(page)
    for text in ROOF_LABELS:
        assert text in labels, (text, list(labels))
    assert "Peak bandwidth 100 GB/s" in labels
    # stacked as their lines: SP above DP; L2 above the user's 100 GB/s above MEM
    def centre_y(text):
        return labels[text]["y"] + labels[text]["height"] / 2

    assert centre_y("SP AVX FMA 1639 GFLOP/s") < centre_y("DP AVX FMA 820 GFLOP/s")
    assert (centre_y("L2 771.7 GB/s") < centre_y("Peak bandwidth 100 GB/s")
            < centre_y("MEM 41.27 GB/s"))
    # no label covers a point
    dots = centres(page, DOTS)
    for text, box in labels.items():
        inside = ((dots[:, 0] > box["x"]) & (dots[:, 0] < box["x"] + box["width"])
                  & (dots[:, 1] > box["y"]) & (dots[:, 1] < box["y"] + box["height"]))
        assert not inside.any(), (text, box, dots[inside])
    # inside the plot and apart at 900 and 1400 px; the pictures for docs/
    shots = screenshot_widths(page, page.locator(WIDGET).first,
                              artifacts_dir / "screenshot-milan-ceilings")
    assert [p.stat().st_size > 20_000 for p in shots] == [True, True]
    # the figure alone at each width (docs/screenshot-milan-ceilings.png is the 1400 px one)
    size = page.viewport_size
    for width in SCREENSHOT_WIDTHS:
        page.set_viewport_size({"width": width, "height": size["height"]})
        page.wait_for_timeout(500)
        page.locator(FIGURE).first.screenshot(
            path=str(artifacts_dir / f"screenshot-milan-ceilings-figure-{width}px.png"))
    page.set_viewport_size(size)
    # hovering a roof tells where its number came from: the MEM line (the one whose path
    # starts lowest at the left edge), 30 % along it
    page.locator(FIGURE).first.scroll_into_view_if_needed()
    x, y = page.locator(f"{FIGURE} path.line").evaluate_all(POINT_ON_LOWEST_LINE)
    page.mouse.move(x - 20, y - 20)
    page.mouse.move(x, y, steps=4)
    tooltip = page.locator(".roofline-roof-tooltip").first
    page.wait_for_function("el => el.innerText.includes('stream_mem_avx_fma')",
                           arg=tooltip.element_handle(), timeout=10_000)
    text = tooltip.inner_text()
    assert "MEM 41.27 GB/s" in text
    assert "milan_mem1_16c.log" in text
    assert "likwid-perfctr group MEM1 wrapping the benchmark" in text


def _anchor_gap(page, text: str, value: float, state: dict) -> float:
    """How far (px) the label ``text`` lies from the slope ``value`` GB/s, where it touches it.

    A label ending on its slope (``text-anchor: end``) sits above the line at its right
    end, one starting on it sits below the line at its left end (5 px from the anchor
    both): the gap between the text's box and the line there, in page pixels.
    """
    box = shown_labels(page)[text]
    anchor = page.locator(f"{FIGURE} text.label", has_text=text).first.evaluate(
        "e => getComputedStyle(e).textAnchor")
    area = page.locator(f"{FIGURE} .plotarea_background").first.bounding_box()
    (x0, x1), (y0, y1) = state["x_range"], state["y_range"]
    # bqplot's y scale spans the plot area less padding_y (0.025 of its height) each side
    top, height = area["y"] + 0.025 * area["height"], 0.95 * area["height"]
    x_px = box["x"] + box["width"] + 5 if anchor == "end" else box["x"] - 5
    intensity = 10 ** (math.log10(x0) + (x_px - area["x"]) / area["width"]
                       * math.log10(x1 / x0))
    line_y = top + height * (1 - math.log10(value * intensity / y0) / math.log10(y1 / y0))
    return line_y - (box["y"] + box["height"]) if anchor == "end" else box["y"] - line_y


def test_the_peak_bandwidth_label_follows_its_line_when_the_slider_moves(four_roofs, page):
    """Its text touches its line (2 px gap in the kernel's layout) before and after a drag."""
    before = read_json_when(four_roofs.state_file, lambda s: True)
    gap = _anchor_gap(page, "Peak bandwidth 100 GB/s", PEAK_BANDWIDTH, before)
    assert -2 < gap < 6, gap
    drag_slider(page, "roofline-peak-bandwidth",
                0.5 * slider_px_per_decade(page, "roofline-peak-bandwidth"))
    # the kernel sees every value of the drag: wait for the one the slider stopped at
    shown = float(page.locator(f"{WIDGET} .roofline-peak-bandwidth .widget-readout").first
                  .inner_text())
    assert shown > 1.5 * PEAK_BANDWIDTH
    state = read_json_when(four_roofs.state_file,
                           lambda s: math.isclose(s["peak_bandwidth"], shown, rel_tol=2e-3))
    moved = f"Peak bandwidth {state['peak_bandwidth']:.4g} GB/s"
    page.wait_for_function(
        """([selector, text]) => [...document.querySelectorAll(selector)]
                                 .some(e => e.textContent === text)""",
        arg=[f"{FIGURE} text.label", moved], timeout=30_000)
    wait_until_still(page, f"{FIGURE} text.label")
    state = read_json_when(four_roofs.state_file, lambda s: True)
    assert re.fullmatch(r"Peak bandwidth \d+(\.\d+)? GB/s", moved)
    gap = _anchor_gap(page, moved, state["peak_bandwidth"], state)
    assert -2 < gap < 6, (gap, state)
    # the kernel's anchor is on the new line, not where the old one was
    kernel = next(item for item in state["labels"] if item["text"] == moved)
    assert not math.isclose(kernel["y"] / kernel["x"], PEAK_BANDWIDTH, rel_tol=0.3)
