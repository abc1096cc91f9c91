"""Memory levels in JupyterLab: the level toggles, the joined dots and the finding's ring, in Chromium.

A notebook written at test time (into the server's temp copy of ``notebooks/``)
shows ``RooflineWidget(run, levels=["L2", "MEM"])`` on the L2, L3 and MEM_DP
outputs **rendered by tests/render_likwid.py, not measured** that the package
ships (``sample_path("rendered/...")``, read by the quickstart too): two regions,
``stencil<3d>`` with more L3 than L2 traffic, so its L3 dot has a sanity finding
and a ring.  The expected counts come from ``hierarchical_points`` and
``sanity_check`` here, in the test process.
"""

from __future__ import annotations

import nbformat
import pytest

from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

#: The rings' stroke (look.colors.FINDING_COLOR, #e8590c) as the browser reports it.
RING_STROKE = "rgb(232, 89, 12)"


def shown_lines(page) -> int:
    """Lines of the figure in no hidden mark (bqplot hides a mark's group with ``display: none``;
    a flat line has no height, so Playwright's ``visible`` would not do, nor, for SVG in
    Chromium, ``checkVisibility``)."""
    return page.locator(LINES).evaluate_all(
        "els => els.filter(e => !e.closest('[style*=\"display: none\"]')).length")


def shown_rings(page) -> int:
    """Dots drawn with the rings' stroke and no fill, in no hidden mark."""
    return page.locator(DOTS).evaluate_all(
        "(els, stroke) => els.filter(e => !e.closest('[style*=\"display: none\"]')"
        " && getComputedStyle(e).stroke === stroke).length", RING_STROKE)


NOTEBOOK = "levels_browser.ipynb"
SETUP = '''from roofline_widget import RooflineWidget, read_likwid, sample_path

# rendered by tests/render_likwid.py, not measured
run = read_likwid([sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
                   for group in ("L2", "L3", "MEM_DP")])'''
#: The page shows this notebook's one widget.
FIGURE = ".roofline-figure"
DOTS = f"{FIGURE} .dot"
LINES = f"{FIGURE} path.line"
SHOW = 'wl = RooflineWidget(run, levels=["L2", "MEM"])\nwl'


@pytest.fixture
def levels_page(lab, page, browser_tmp):
    # The quickstart's metadata (its kernelspec): Lab starts the kernel without asking.
    quickstart = nbformat.read(browser_tmp / "notebooks" / "quickstart.ipynb", as_version=4)
    nb = nbformat.v4.new_notebook(metadata=quickstart.metadata)
    nb.cells = [nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(SHOW)]
    nbformat.write(nb, browser_tmp / "notebooks" / NOTEBOOK)
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    return page


def _counts():
    """(main points, dots per level, findings per level) of the notebook's data, from the package here."""
    from roofline_widget import hierarchical_points, points_dataframe, read_likwid, sample_path, sanity_check

    run = read_likwid([sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
                       for group in ("L2", "L3", "MEM_DP")])
    points = hierarchical_points(run)
    per_level = points["level"].astype(str).value_counts().to_dict()
    findings = sanity_check(run)["level"].astype(str).value_counts().to_dict()
    return len(points_dataframe(run)), per_level, findings


def test_level_toggles_add_and_remove_joined_dots_and_rings(levels_page, artifacts_dir):
    page = levels_page
    main, per_level, findings = _counts()
    assert (main, per_level, findings) == (2, {"L2": 2, "L3": 2, "MEM": 2}, {"L3": 1})
    shown = main + per_level["L2"] + per_level["MEM"]
    assert wait_for_count(page, DOTS, shown) == shown
    assert shown_rings(page) == 0  # the finding is an L3 dot's
    lines_before = shown_lines(page)
    status = page.locator(".roofline-status").inner_text()
    assert "levels: L2, MEM" in status
    assert "no sanity findings" in status

    # L3 on: two more dots and the ring over stencil<3d>'s L3 dot; still one joining line per region
    page.locator(".roofline-level-toggle", has_text="L3").locator("input").click()
    shown += per_level["L3"] + findings["L3"]
    assert wait_for_count(page, DOTS, shown) == shown
    wait_until_still(page, DOTS)
    assert shown_rings(page) == 1
    status = page.locator(".roofline-status").inner_text()
    assert "1 sanity finding(s)" in status
    assert "stencil<3d> (rank 0, L3, intensity order)" in status
    wait_until_still(page, LINES)
    assert shown_lines(page) == lines_before
    # tall enough for the whole widget, the status line with the finding included
    page.set_viewport_size({"width": page.viewport_size["width"], "height": 1400})
    page.locator(".roofline-widget").scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    page.locator(".roofline-widget").screenshot(
        path=str(artifacts_dir / "screenshot-levels.png"))

    # the levels off one by one (each click answered before the next): down to the main points
    for level in ("L2", "L3", "MEM"):
        page.locator(".roofline-level-toggle", has_text=level).locator("input").click()
        shown -= per_level[level] + findings.get(level, 0)
        assert wait_for_count(page, DOTS, shown) == shown, level
    assert shown == main
    assert shown_rings(page) == 0
    wait_until_still(page, LINES)
    assert shown_lines(page) == lines_before - 2  # no region has two levels shown
    assert "levels:" not in page.locator(".roofline-status").inner_text()
