"""The quickstart in Notebook 7 (``jupyter notebook``), run through the menu in Chromium.

Checks what a Notebook 7 user sees first: every point and the ceilings drawn,
the kernel's state as the notebook set it, the compact hover tooltip, the
detail panel of a clicked point and a peak slider's drag reaching the kernel.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import assert_no_gone_console_errors, screenshot_widths
from .quickstart import (
    DOTS,
    FIGURE,
    MAIN,
    NOTEBOOK,
    NOTEBOOK_PEAK_BANDWIDTH,
    dot_inside_figure,
    drag_peak_bandwidth_and_check,
    expected_points,
    line_paths,
    tooltip_fields,
)
from .ui import (
    RENDER_TIMEOUT_MS,
    open_in_notebook7,
    read_json_when,
    run_all_cells,
    wait_for_count,
    wait_until_still,
)

pytestmark = pytest.mark.browser


def test_notebook7_renders_the_quickstarts_marks(notebook7, page, artifacts_dir):
    open_in_notebook7(page, notebook7, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    state = read_json_when(notebook7.state_file, lambda s: True,
                           timeout_s=RENDER_TIMEOUT_MS / 1000)
    assert state["peak_bandwidth"] == pytest.approx(NOTEBOOK_PEAK_BANDWIDTH)
    expected = len(expected_points())  # 7: see test_jupyterlab
    assert wait_for_count(page, DOTS, expected) == expected
    paths = line_paths(page)
    assert len(paths) >= 2, paths
    assert all(d and d.startswith("M") for d in paths), paths
    page.locator(FIGURE).first.scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    points = expected_points().set_index("region")
    index, centre = dot_inside_figure(page)
    page.mouse.move(*centre)
    fields = tooltip_fields(page)
    assert fields["region"] in points.index, fields
    assert float(fields["GFLOP/s"]) == pytest.approx(
        points.loc[fields["region"], "performance_gflops"], rel=1e-3)
    # A click selects the point; the panel below the figure shows its full record.
    page.locator(DOTS).nth(index).click()
    state = read_json_when(notebook7.state_file,
                           lambda s: s["selected_regions"] == [fields["region"]])
    detail = page.locator(f"{MAIN} .roofline-detail")
    expect(detail).to_contain_text("performance_gflops")
    expect(detail).to_contain_text(fields["region"])  # as text: the name is escaped
    page.mouse.move(0, 0)
    screenshot_widths(page, page.locator(f"{MAIN}.roofline-widget").first,
                      artifacts_dir / "screenshot-notebook7")
    assert_no_gone_console_errors(page)  # no "widget model not found"


def test_notebook7_peak_drag_moves_the_roof_and_the_kernels_trait(notebook7, page):
    open_in_notebook7(page, notebook7, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    read_json_when(notebook7.state_file, lambda s: True, timeout_s=RENDER_TIMEOUT_MS / 1000)
    page.locator(f"{MAIN} .roofline-peak-bandwidth").first.scroll_into_view_if_needed()
    state = drag_peak_bandwidth_and_check(page, notebook7.state_file)
    assert state["peak_bandwidth"] < NOTEBOOK_PEAK_BANDWIDTH
    # The same notebook, opened a second time: no saved widget view of the first kernel.
    assert_no_gone_console_errors(page)
