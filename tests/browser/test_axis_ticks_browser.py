"""The saved page's log-axis tick labels in Chromium, offline: none touches another.

Sample N2 (GPT-2 attention kernels on an Ampere GPU) under the A100-SXM4-40GB's
single-precision datasheet roofs: 0.083 to 26132 FLOP/byte (5.5 decades), 0.99 to
58500 GFLOP/s.  bqplot shows 1, 2 and 5 x 10^k on both axes; before, "5000", "10000"
and "20000" ran into each other across a 630 px plot.  The page has no kernel: the
labels come from the axes' saved ``tick_labels`` as bqplot picks the ticks, at the
page's width, after a zoom in and a pan.  A figure whose layout fixes its width (1200 px) has its
labels spaced for that width: every 1, 2 and 5 x 10^k across, still apart.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from roofline_widget import RooflineWidget, gpu_ceilings, read_ncu

from .offline import Offline
from .ui import tick_labels

pytestmark = pytest.mark.browser

N2 = Path(__file__).parent.parent / "data" / "gpt2_ampere_ncu_old_header_thousands.csv"
FIGURE = ".roofline-shared .roofline-figure"
LOAD_TIMEOUT_MS = 120_000


def _labels_apart(page) -> list[list[str]]:
    axes = tick_labels(page, FIGURE)
    assert [axis["touching"] for axis in axes] == [[], []], axes
    return [axis["texts"] for axis in axes]


def test_the_saved_pages_tick_labels_keep_apart(page, tmp_path, artifacts_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample's kernels without FLOPs are listed
        widget = RooflineWidget(read_ncu(str(N2)),
                                ceilings=gpu_ceilings(gpu="A100-SXM4-40GB", precision="SP"))
    path = widget.save_html(tmp_path / "n2.html")
    offline = Offline(page)
    page.set_viewport_size({"width": 720, "height": 1000})  # the plot about 630 px wide
    page.goto(path.as_uri())
    page.wait_for_selector(f"{FIGURE} .dot", state="attached", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(800)  # bqplot lays the figure out again once the widgets beside it are in
    plot = page.locator(f"{FIGURE} .plotarea_background").first.bounding_box()
    assert 560 < plot["width"] < 700
    x_texts, y_texts = _labels_apart(page)
    # 1 x 10^k labelled across (2 too: one digit fits beside 1), 1, 2 and 5 x 10^k up
    assert x_texts == ["0.1", "1", "2", "10", "100", "1000", "10000"]
    assert y_texts[-3:] == ["5", "2", "1"]
    page.locator(FIGURE).first.screenshot(path=str(artifacts_dir / "axis-ticks-page-630px.png"))

    page.locator(".roofline-shared-toolbar button").first.click()  # pan-zoom
    box = page.locator(f"{FIGURE} .plotarea_background").first.bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*centre)
    page.mouse.wheel(0, -300)  # zoom in: bqplot's ticks change, the labels spread
    page.wait_for_timeout(800)
    zoomed = _labels_apart(page)
    assert zoomed[0] != x_texts
    page.mouse.move(*centre)
    page.mouse.down()
    page.mouse.move(centre[0] + 150, centre[1] - 60, steps=8)  # a pan
    page.mouse.up()
    page.wait_for_timeout(800)
    assert _labels_apart(page)[0] != zoomed[0]
    page.locator(FIGURE).first.screenshot(path=str(artifacts_dir / "axis-ticks-page-zoomed.png"))

    page.set_viewport_size({"width": 1400, "height": 1000})  # wider: the same labels, further apart
    page.wait_for_timeout(800)
    _labels_apart(page)
    assert offline.problems() == []


def test_a_fixed_width_page_labels_every_decade_step_apart(page, tmp_path, artifacts_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(read_ncu(str(N2)),
                                ceilings=gpu_ceilings(gpu="A100-SXM4-40GB", precision="SP"))
    widget.figure.plot.layout.width = "1200px"  # the plot 1200 - 86 = 1114 px wide
    path = widget.save_html(tmp_path / "n2-1200px.html")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_selector(f"{FIGURE} .dot", state="attached", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(800)
    plot = page.locator(f"{FIGURE} .plotarea_background").first.bounding_box()
    assert plot["width"] == pytest.approx(1114, abs=2)
    x_texts, _ = _labels_apart(page)
    assert x_texts == ["0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100", "200", "500",
                       "1000", "2000", "5000", "10000", "20000"]
    page.locator(FIGURE).first.screenshot(path=str(artifacts_dir / "axis-ticks-page-1200px.png"))
