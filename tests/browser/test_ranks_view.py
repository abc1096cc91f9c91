"""The ranks view in JupyterLab: the toggle, the median squares and whiskers, a click that expands."""

from __future__ import annotations

import pytest

from .conftest import REPO
from .ui import (
    RENDER_TIMEOUT_MS,
    box_centre,
    open_in_lab,
    run_all_cells,
    wait_for_count,
    wait_until_still,
    write_notebook,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "ranks_view.ipynb"
RANKS, REGIONS = 48, 3
WIDGET = ".ranks-view-test"
DOTS = f"{WIDGET} .roofline-figure .dot"
LINES = f"{WIDGET} .roofline-figure path.line"
TOOLTIP_CONTAINER = ".bqplot_tooltip_div"
#: What the pointer hits at the tooltip's centre and at the square's (the page's hit test,
#: which skips elements with ``pointer-events: none``).
HITS = """([container, x, y]) => {
    const div = [...document.querySelectorAll(container)]
        .find(d => d.getBoundingClientRect().width > 0);
    const box = div ? div.getBoundingClientRect() : {x: 0, y: 0, width: 0, height: 0};
    const mid = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return {tooltip: {x: box.x, y: box.y, width: box.width, height: box.height},
            tooltip_takes_clicks: !!(div && mid && div.contains(mid)),
            at_pointer: document.elementFromPoint(x, y).getAttribute('class')};
}"""
CODE = f"""\
import sys
sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
from scope_fixtures import make_profiling_results
from roofline_widget import RooflineWidget
w = RooflineWidget(make_profiling_results(n_ranks={RANKS}, n_regions={REGIONS}, n_threads=1,
                                          seed=11),
                   flops_metric="DP [MFLOP/s]", bandwidth_metric="Memory bandwidth [MBytes/s]")
w.add_class("ranks-view-test")
w
"""


@pytest.fixture
def ranks_notebook(lab):
    write_notebook(lab, NOTEBOOK, CODE)
    return lab


def test_spread_toggle_draws_medians_and_a_click_expands_a_region(ranks_notebook, page,
                                                                  artifacts_dir):
    open_in_lab(page, ranks_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, RANKS * REGIONS) == RANKS * REGIONS  # points view
    lines_before = page.locator(LINES).count()

    page.locator(f"{WIDGET} .roofline-rank-view button", has_text="spread").click()
    assert wait_for_count(page, DOTS, REGIONS) == REGIONS  # one square per region
    # the whisker mark is made with the spread (none in the points view): its lines join
    whiskers = lines_before + 2 * REGIONS
    assert wait_for_count(page, LINES, whiskers) == whiskers
    status = page.locator(f"{WIDGET} .roofline-status").inner_text()
    assert f"ranks view: {REGIONS} region(s)" in status
    assert "min–max over ranks" in status

    wait_until_still(page, DOTS)
    square = page.locator(DOTS).first
    tooltip = hover(page, square)
    assert f"{RANKS}" in tooltip.inner_text()
    page.locator(f"{WIDGET} .roofline-widget, {WIDGET}").first.screenshot(
        path=str(artifacts_dir / "screenshot-ranks-spread.png"))

    # The screenshot may have scrolled the page: hover again where the square is now.
    centre = box_centre(square)
    hover(page, square)
    # bqplot puts every tooltip of the figure in one container at the pointer; wherever it
    # opens, a click on it goes to what is beneath (widget.html.TOOLTIP_CSS, TOOLTIP_STYLE).
    hits = page.evaluate(HITS, [TOOLTIP_CONTAINER, *centre])
    assert hits["tooltip"]["width"] > 0, "the tooltip is not shown"
    assert not hits["tooltip_takes_clicks"], hits
    assert hits["at_pointer"] == "dot element", hits
    # A real click at the square's centre, the tooltip shown: the kernel expands the
    # region (adds it to expanded_regions), its 48 ranks are drawn beside the 3 squares.
    page.mouse.click(*centre)
    assert wait_for_count(page, DOTS, REGIONS + RANKS) == REGIONS + RANKS


def hover(page, square):
    """Move the mouse onto ``square`` as a user would; return its tooltip once shown."""
    x, y = box_centre(square)
    page.mouse.move(x - 40, y - 40)
    page.mouse.move(x, y, steps=5)
    tooltip = page.locator(".roofline-spread-tooltip", has_text="Slowest rank").first
    tooltip.wait_for(timeout=30_000)
    return tooltip


def test_a_filter_that_matches_nothing_leaves_an_empty_spread_with_a_note(ranks_notebook, page,
                                                                         artifacts_dir):
    open_in_lab(page, ranks_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    page.locator(f"{WIDGET} .roofline-rank-view button", has_text="spread").click()
    assert wait_for_count(page, DOTS, REGIONS) == REGIONS
    page.locator(f"{WIDGET} .roofline-include input").fill("nomatch")
    assert wait_for_count(page, DOTS, 0) == 0  # no square, no rank point
    message = page.locator(f"{WIDGET} .roofline-message")
    message.get_by_text("No region matches the include/exclude patterns.").wait_for(
        timeout=30_000)
    assert "ranks view: 0 region(s)" in page.locator(f"{WIDGET} .roofline-status").inner_text()
    page.locator(f"{WIDGET} .roofline-widget, {WIDGET}").first.screenshot(
        path=str(artifacts_dir / "ranks-spread-nothing-selected.png"))
    page.locator(f"{WIDGET} .roofline-include input").fill("")
    assert wait_for_count(page, DOTS, REGIONS) == REGIONS  # the squares are back
