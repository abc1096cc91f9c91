"""Points above the roofs a user typed: the status says so in JupyterLab, and follows the peak box.

Sample 5 (pmgpu on an AMD EPYC 7702, MEM_DP, one hardware thread) under 2 GFLOP/s and
16 GB/s: ``<function_d>`` moves 28.58 GB/s against the 16 GB/s roof, ``<function_a>`` does
2.134 GFLOP/s against the 2 GFLOP/s roof (``tests/test_above_roofs.py`` works the numbers
out).  The status names the furthest, its region name escaped (shown as text, not read as a
tag); typing 100 GB/s into the bandwidth box leaves ``<function_a>`` alone, 10 GFLOP/s then
clears the note.  The screenshot goes to the artifacts directory (``screenshot-above-roofs.png``).
"""

from __future__ import annotations

import pytest
from conftest import PMGPU
from playwright.sync_api import expect

from roofline_widget import sample_path

from .ui import RENDER_TIMEOUT_MS, open_widget_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "above_roofs_browser.ipynb"
DOTS = ".roofline-figure .dot"
NOTE = ".roofline-above-roofs"


@pytest.fixture
def pmgpu_page(lab, page, browser_tmp):
    code = ("from roofline_widget import RooflineWidget\n"
            f"w = RooflineWidget({sample_path(PMGPU)!r}, peak_flops=2.0, peak_bandwidth=16.0)\nw")
    open_widget_notebook(lab, page, browser_tmp, NOTEBOOK, code, DOTS)
    return page


def test_the_status_names_the_point_furthest_above_and_follows_the_peaks(pmgpu_page,
                                                                        artifacts_dir):
    page = pmgpu_page
    note = page.locator(NOTE)
    expect(note).to_contain_text(
        "2 points are above their roofs, the furthest <function_d>: 28.58 GB/s against the roof "
        "Peak bandwidth 16 GB/s (1.79x what they allow)", timeout=RENDER_TIMEOUT_MS)
    assert note.locator("function_d").count() == 0  # the name is text, not a tag
    page.locator(".roofline-widget").screenshot(path=str(artifacts_dir / "screenshot-above-roofs.png"))
    bandwidth = page.locator(".roofline-peak-bandwidth-text input")
    bandwidth.fill("100")
    bandwidth.press("Enter")
    expect(note).to_contain_text("<function_a> is above its roofs: 2.134 GFLOP/s against the roof "
                                 "Peak 2 GFLOP/s (1.07x what they allow)",
                                 timeout=RENDER_TIMEOUT_MS)
    peak = page.locator(".roofline-peak-flops-text input")
    peak.fill("10")
    peak.press("Enter")
    expect(note).to_have_count(0, timeout=RENDER_TIMEOUT_MS)
