"""The scaling panel in JupyterLab: the 54-run sweep's speed-up against threads, hover-linked.

``RooflineWidget`` of the generated 54-run sweep (18 thread counts x 3 cases, three regions,
``study_files.write_sweep``): the "Scaling" accordion opens on a second figure with one line per
region and case (9), every run's point (54 x 3 = 162) and a ring per line on the slider's step
(9), the ideal line dashed. Hovering a point in the panel (its tooltip names one region) fades
the other two regions' paths, three cases each, in the roofline and in the panel. The screenshot
goes to the artifacts directory (``screenshot-scaling-panel.png``; docs/guide/scaling.md shows it).

Sample 19 (seven problem sizes) opens on GFLOP/s against the size, log axes, no ideal line
(``screenshot-scaling-panel-sizes.png``); their tick labels keep apart (before, bqplot's 1, 2 and
5 x 10^k over 5.6 decades of GFLOP/s on the panel's 263 px touched: 11 pairs).
"""

from __future__ import annotations

import pytest
from study_files import REGIONS

from .test_run_chain_lab import CODE, LULESH_DOTS, SWEEP_CODE, SWEEP_DOTS, _open
from .ui import RENDER_TIMEOUT_MS, tick_labels, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

PANEL_DOTS = ".roofline-scaling .dot"
#: every run's point (162) and the step's rings (9).
PANEL_DOT_COUNT = 162 + 9
#: The opacity of each of the roofline's sweep path lines.
PATH_OPACITIES = """els => els.map(e => parseFloat(getComputedStyle(e).opacity))"""


def test_the_scaling_panel_shows_speed_up_and_lights_a_region_up(lab, page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1800})  # the roofline and the panel in one
    _open(lab, page, "_scaling_panel.ipynb", SWEEP_CODE, SWEEP_DOTS)
    page.get_by_text("Scaling: speed-up against threads").first.click()
    page.wait_for_selector(PANEL_DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, PANEL_DOTS, PANEL_DOT_COUNT) == PANEL_DOT_COUNT
    wait_until_still(page, PANEL_DOTS)
    title = page.locator(".roofline-scaling .mainheading").first.text_content()
    assert title.startswith("Speed-up against threads")
    paths = page.locator(".roofline-scaling path.line")
    assert paths.count() >= 9 + 1  # 9 regions x cases, the ideal line
    # hover a point of the panel on 10 threads (the lines start together at 1 thread)
    page.locator(PANEL_DOTS).nth(18 + 9).hover(force=True)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.roofline-scaling-tooltip')]"
        ".some(e => e.innerText.includes('threads per rank 10'))", timeout=30_000)
    tooltip = page.locator(".roofline-scaling-tooltip").first.inner_text()
    assert [region in tooltip for region in REGIONS].count(True) == 1
    widget = page.locator(".roofline-widget").first
    page.wait_for_function(
        "() => [...document.querySelectorAll('.roofline-figure path.line')]"
        ".filter(e => parseFloat(getComputedStyle(e).opacity) < 0.2).length >= 6", timeout=30_000)
    faded = page.locator(".roofline-figure path.line").evaluate_all(PATH_OPACITIES)
    assert sum(opacity < 0.2 for opacity in faded) == 6  # two regions x three cases faded
    page.wait_for_function(
        "() => [...document.querySelectorAll('.roofline-scaling path.line')]"
        ".filter(e => parseFloat(getComputedStyle(e).opacity) < 0.2).length == 6", timeout=30_000)
    panel = page.locator(".roofline-scaling-box").first
    panel.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-scaling-panel.png"))


def test_sample_19_panel_shows_gflops_against_size(lab, page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1800})
    _open(lab, page, "_scaling_sizes.ipynb", CODE, LULESH_DOTS)
    page.get_by_text("Scaling: GFLOP/s against problem size").first.click()
    page.wait_for_selector(PANEL_DOTS, timeout=RENDER_TIMEOUT_MS)
    expected = 22 * 7 - 5 + 22  # the points off the hardware left out; a ring per region at 350^3
    assert wait_for_count(page, PANEL_DOTS, expected) == expected
    wait_until_still(page, PANEL_DOTS)
    title = page.locator(".roofline-scaling .mainheading").first.text_content()
    assert title == "GFLOP/s, not speed-up: the runs differ in size (different work)"
    x_axis, y_axis = tick_labels(page, ".roofline-scaling")
    assert x_axis["touching"] == y_axis["touching"] == []
    # powers of ten up (bqplot shows 10 above the highest point, in the pixels kept for the marks)
    assert y_axis["texts"] == ["10", "1", "0.1", "0.01", "0.001", "0.0001"]
    # problem sizes up past a million in one form: SI prefixes, no "500000" next to "1e+6"
    assert {"20k", "500k", "1M", "10M"} <= set(x_axis["texts"])
    assert not any("e+" in text or text.endswith("000") for text in x_axis["texts"])
    panel = page.locator(".roofline-scaling-box").first
    panel.scroll_into_view_if_needed()
    panel.screenshot(path=str(artifacts_dir / "screenshot-scaling-panel-sizes.png"))
