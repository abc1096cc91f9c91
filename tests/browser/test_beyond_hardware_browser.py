"""A broken counter in JupyterLab: the status names it and the axes follow the real points, in Chromium.

A notebook written at test time shows ``RooflineWidget`` on sample 19 (LULESH on an Ice Lake
Xeon 8360Y, seven problem sizes in one log, opened as a chain: run #7's points, runs #1-#6 the
baseline, drawn as a sweep): five points report rates no CPU reaches (a 48-bit FLOP counter near 2^47 or 2^48;
``tests/test_beyond_hardware.py`` works the numbers out), the worst run #1's.  The
empirical peak is the largest plausible point, 7.8285323 GFLOP/s, and the y axis ends at 3 x
that (23.49), so its highest (decade) tick is 10; before, the peak was 1.951e+07 GFLOP/s and every real
point sat at the bottom.
"""

from __future__ import annotations

import pytest
from wild_samples import LULESH_SIZES

from .ui import RENDER_TIMEOUT_MS, open_widget_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "beyond_hardware_browser.ipynb"
FIGURE = ".roofline-figure"
DOTS = f"{FIGURE} .dot"
SENTENCE = ("5 points report rates beyond any CPU, the largest CalcPressureForElems "
            "(run #1): "
            "19,514,360 GFLOP/s on 1 hardware thread: not used for the empirical peak or the "
            "empirical bandwidth; the axes "
            "follow the other points (see sanity_check)")


@pytest.fixture
def lulesh_page(lab, page, browser_tmp):
    code = ("from roofline_widget import RooflineWidget\n"
            f"w = RooflineWidget({str(LULESH_SIZES)!r})\nw")
    open_widget_notebook(lab, page, browser_tmp, NOTEBOOK, code, DOTS)
    return page


def test_status_names_the_broken_counter_and_the_axes_follow_the_real_points(lulesh_page,
                                                                            artifacts_dir):
    page = lulesh_page
    # a sweep's status is two lines; the full one (ceilings, notes) is in the collapsed details
    status = page.locator(".roofline-status").inner_text()
    assert "5 beyond the hardware" in status
    box = page.locator(".roofline-sweep-details").first
    assert "Empirical peak" not in box.evaluate("e => e.textContent")  # made when opened
    page.get_by_text("Sweep details").first.click()
    box.get_by_text("Empirical peak 7.829 GFLOP/s").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    details = box.evaluate("e => e.textContent")
    assert "Empirical peak 7.829 GFLOP/s" in details
    assert " ".join(SENTENCE.split()) in " ".join(details.split())
    y_ticks = page.locator(f"{FIGURE} .axis").nth(1).locator(".tick text").evaluate_all(
        "els => els.map(e => e.textContent)")
    values = [float(text) for text in y_ticks if text.strip()]
    assert max(values) == 10  # decade ticks; the axis ends at 23.49: 3 x 7.8285323 GFLOP/s
    # the collapsed "Ceilings" section: its table arrives when the user opens it
    ceilings = page.locator(".roofline-ceilings").first
    assert ceilings.locator(".roofline-ceilings-table").count() == 0
    page.get_by_text("Ceilings (").first.click()
    table = ceilings.locator(".roofline-ceilings-table").first
    table.wait_for(timeout=RENDER_TIMEOUT_MS)
    assert "Empirical peak" in table.inner_text()
    page.locator(".roofline-widget").screenshot(
        path=str(artifacts_dir / "screenshot-beyond-hardware.png"))
