"""The quickstart notebook rendered by Voila as an app (code hidden), driven in Chromium."""

from __future__ import annotations

import pytest

from .conftest import assert_no_gone_console_errors, screenshot_widths
from .quickstart import (
    DOTS,
    FIGURE,
    MAIN,
    NOTEBOOK_PEAK_BANDWIDTH,
    drag_peak_bandwidth_and_check,
    expected_points,
    notebook_code,
)
from .ui import RENDER_TIMEOUT_MS, read_json_when, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser


def test_voila_shows_the_widget_and_answers_a_slider_drag(voila_server, page, artifacts_dir):
    voila_server.state_file.unlink(missing_ok=True)
    page.goto(voila_server.url(""))
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    state = read_json_when(voila_server.state_file, lambda s: True,
                           timeout_s=RENDER_TIMEOUT_MS / 1000)
    assert state["peak_bandwidth"] == pytest.approx(NOTEBOOK_PEAK_BANDWIDTH)
    expected = len(expected_points())  # 7: see test_jupyterlab
    assert wait_for_count(page, DOTS, expected) == expected
    # An app: the code cells show their outputs only (markdown cells are shown).
    assert page.locator(".jp-CodeCell .jp-InputArea, .cm-editor").count() == 0
    assert "= read_likwid(" in notebook_code()
    assert "= read_likwid(" not in page.locator("body").inner_text()

    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    screenshot_widths(page, page.locator(f"{MAIN}.roofline-widget"), artifacts_dir / "screenshot-voila")
    drag_peak_bandwidth_and_check(page, voila_server.state_file)
    # Notebook 7's lab extension is not loaded (its "getter for the shared module" error).
    assert_no_gone_console_errors(page)
