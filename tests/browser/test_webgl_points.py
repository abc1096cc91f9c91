"""5,000 WebGL points in JupyterLab, Notebook 7 and Voila: pixels, hover, click, brush, lasso, budget.

The points are pixels of bqplot-gl's canvas, not DOM elements: the page's
instanced WebGL draw of 5,000 is logged, the figure has no ``.dot``, and a
screenshot of the plot area holds the regions' colours.  Where the points
lie on the page is read from bqplot itself: hovering a WebGL point gives it a
one-dot SVG proxy, and the proxy dots of two hovered points fit the axes.
Without WebGL (``--disable-3d-apis``) the widget falls back to 2,000 SVG points
with a note.
"""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from roofline_widget.look.colors import PALETTE
from roofline_widget.widget.pointer import HOVER_RADIUS_PX
from roofline_widget.widget.points_mark import SVG_MAX_POINTS

from .conftest import launch_chromium
from .quickstart import tooltip_fields
from .ui import (
    RENDER_TIMEOUT_MS,
    box_centre,
    drag,
    draw_closed_path,
    inside_path,
    open_in_lab,
    open_in_notebook7,
    read_json_when,
    run_all_cells,
    wait_for_count,
    wait_until_still,
)
from .webgl_page import (
    DOTS,
    FIGURE,
    GL_DRAWS,
    N_POINTS,
    REGIONS,
    STATUS,
    WIDGET,
    hover_anchors,
    keys,
    page_axes,
    page_positions,
    palette_pixels,
    segment_distance,
    wait_for_gl_draw,
    write_notebook,
)

pytestmark = pytest.mark.browser

#: Points this close (px) to a brush or lasso edge may fall either way (pixel rounding).
EDGE_PX = 2.0


def show_webgl_points(page, server, notebook: str) -> dict:
    """Open ``notebook`` in Lab, run it, wait for the WebGL draw; return the kernel's state."""
    open_in_lab(page, server, notebook)
    run_all_cells(page)
    wait_for_gl_draw(page, N_POINTS)
    state = read_json_when(server.state_file, lambda s: s["webgl"] == "available",
                           timeout_s=RENDER_TIMEOUT_MS / 1000)
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, f"{FIGURE} .plotarea_background")
    return state


def check_selection(selected: list, points, inside: np.ndarray, edge_px: np.ndarray) -> None:
    """Every point clearly inside is selected, none clearly outside (``edge_px``: distance to the edge)."""
    chosen = {tuple(k) for k in selected}
    clear = edge_px >= EDGE_PX
    must = keys(points[inside & clear])
    assert must, "the gesture encloses no point clearly"
    missed = [i for i, k in enumerate(keys(points)) if tuple(k) not in chosen]
    missed_px = edge_px[np.isin(np.arange(len(points)), missed) & inside]
    assert {tuple(k) for k in must} <= chosen, (
        f"{len(set(map(tuple, must)) - chosen)} points inside were not selected; "
        f"distances to the edge of the missed ones: {sorted(missed_px.round(1))[-10:]}")
    may = {tuple(k) for k in keys(points[inside | ~clear])}
    assert chosen <= may, f"{len(chosen - may)} points outside were selected"


@pytest.fixture
def webgl_lab(lab):
    write_notebook(lab.root_dir)
    return lab


def test_webgl_points_are_pixels_hovered_and_clicked(webgl_lab, page, artifacts_dir):
    page.add_init_script(GL_DRAWS)
    state = show_webgl_points(page, webgl_lab, "webgl_points.ipynb")
    assert (state["gl_points"], state["svg_points"]) == (N_POINTS, 0)
    assert page.locator(DOTS).count() == 0, "the points must not be SVG elements"
    # the five regions' colours (codes 0-4), as pixels of the canvas under the plot area
    assert palette_pixels(page, list(PALETTE[:REGIONS])) > 5000
    expect(page.locator(STATUS)).to_contain_text("WebGL draws the points")
    page.mouse.move(0, 0)
    page.locator(WIDGET).screenshot(path=str(artifacts_dir / "webgl-5000-points.png"))

    # hover: the kernel puts the proxy dot on the nearest point, the tooltip shows its numbers
    centres, _data, states = hover_anchors(page, webgl_lab.state_file, wanted=1)
    hovered = states[0]["hovered"]
    centre = centres[0]
    assert np.hypot(*(centre - np.array(states[0]["mouse"]))) <= HOVER_RADIUS_PX + 1.5
    # onto the proxy: bqplot shows its tooltip (the nudge may hover a neighbour in the dense
    # cloud: the tooltip shows whichever point the kernel hovers last)
    page.mouse.move(centre[0] + 1, centre[1])
    expect(page.locator(".roofline-tooltip").first).to_be_visible()
    page.wait_for_timeout(500)
    hovered = read_json_when(webgl_lab.state_file, lambda s: s["hovered"] is not None)["hovered"]
    fields = tooltip_fields(page)
    assert fields["region"] == hovered["region"], (fields, hovered)
    assert float(fields["GFLOP/s"]) == pytest.approx(hovered["y"], rel=1e-3)
    assert float(fields["FLOP/byte"]) == pytest.approx(hovered["x"], rel=1e-3)
    assert int(fields["rank"]) == hovered["rank"]
    # a click on it selects that point in the kernel
    page.mouse.click(*box_centre(page.locator(DOTS).first))
    state = read_json_when(webgl_lab.state_file, lambda s: s["selected"] ==
                           [[hovered["region"], hovered["rank"]]])
    assert state["gl_points"] == N_POINTS


def brush_and_lasso(page, state_file) -> None:
    """Brush the middle of the cloud, then lasso around its median; check the kernel's selection."""
    points = page_positions(page_axes(page, state_file))
    xy = points[["page_x", "page_y"]].to_numpy()

    page.locator(f"{WIDGET} .roofline-interaction button", has_text="brush").click()
    page.locator(FIGURE).scroll_into_view_if_needed()
    x0, x1 = np.quantile(xy[:, 0], [0.3, 0.6])
    y0, y1 = np.quantile(xy[:, 1], [0.3, 0.6])
    drag(page, (x0, y0), (x1, y1), steps=10)
    state = read_json_when(state_file, lambda s: len(s["selected"]) > 0)
    inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    edge = np.minimum.reduce([abs(xy[:, 0] - x0), abs(xy[:, 0] - x1), abs(xy[:, 1] - y0),
                              abs(xy[:, 1] - y1)])
    check_selection(state["selected"], points, inside, edge)
    assert inside.sum() > 300, inside.sum()

    # with Shift held a second brush adds its points (ipyevents passes the key with mousedown)
    brushed = state["selected"]
    x2, x3 = np.quantile(xy[:, 0], [0.7, 0.9])
    page.keyboard.down("Shift")
    drag(page, (x2, y0), (x3, y1), steps=10)
    page.keyboard.up("Shift")
    state = read_json_when(state_file, lambda s: len(s["selected"]) > len(brushed))
    second = (xy[:, 0] >= x2) & (xy[:, 0] <= x3) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    edge_second = np.minimum.reduce([abs(xy[:, 0] - x2), abs(xy[:, 0] - x3),
                                     abs(xy[:, 1] - y0), abs(xy[:, 1] - y1)])
    check_selection(state["selected"], points, inside | second, np.minimum(edge, edge_second))

    page.locator(f"{WIDGET} .roofline-interaction button", has_text="lasso").click()
    centre = np.median(xy, axis=0)
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    path = centre + np.column_stack([90 * np.cos(angles), 50 * np.sin(angles)])
    brushed = state["selected"]
    draw_closed_path(page, path, steps=2)
    state = read_json_when(state_file, lambda s: s["selected"] and s["selected"] != brushed)
    check_selection(state["selected"], points, inside_path(path, xy), segment_distance(xy, path))


def test_webgl_points_brushed_and_lasso_selected(webgl_lab, page):
    page.add_init_script(GL_DRAWS)
    show_webgl_points(page, webgl_lab, "webgl_points.ipynb")
    brush_and_lasso(page, webgl_lab.state_file)


def test_voila_draws_hovers_brushes_and_lassos_webgl_points(voila_webgl_server, page):
    server = voila_webgl_server
    server.state_file.unlink(missing_ok=True)
    page.add_init_script(GL_DRAWS)
    page.goto(server.url(""))
    wait_for_gl_draw(page, N_POINTS)
    read_json_when(server.state_file, lambda s: s["webgl"] == "available",
                   timeout_s=RENDER_TIMEOUT_MS / 1000)
    assert page.locator(DOTS).count() == 0
    assert palette_pixels(page, list(PALETTE[:REGIONS])) > 5000
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, f"{FIGURE} .plotarea_background")
    brush_and_lasso(page, server.state_file)  # hovering comes first: it fits the axes


def test_the_budget_switches_between_webgl_points_and_the_spread(lab, page):
    """max_points=4,000: 5,000 points are the spread; 4,000 of them (a filter) WebGL points."""
    notebook = write_notebook(lab.root_dir, "webgl_budget.ipynb", "max_points=4000")
    page.add_init_script(GL_DRAWS)
    open_in_lab(page, lab, notebook)
    run_all_cells(page)
    assert wait_for_count(page, DOTS, REGIONS) == REGIONS  # one median square per region
    expect(page.locator(STATUS)).to_contain_text("5,000 points exceed max_points=4,000")
    page.locator(f"{WIDGET} .roofline-include input").fill("region_00[0-3]")
    wait_for_gl_draw(page, 4 * N_POINTS // REGIONS)
    assert wait_for_count(page, DOTS, 0) == 0
    expect(page.locator(STATUS)).to_contain_text("WebGL draws the points")
    page.locator(f"{WIDGET} .roofline-include input").fill("")
    assert wait_for_count(page, DOTS, REGIONS) == REGIONS
    state = read_json_when(lab.state_file, lambda s: s["gl_points"] == 0)
    assert state["svg_points"] == 0


def test_notebook7_draws_hovers_brushes_and_lassos_webgl_points(notebook7, page):
    notebook = write_notebook(notebook7.root_dir)
    page.add_init_script(GL_DRAWS)
    open_in_notebook7(page, notebook7, notebook)
    run_all_cells(page)
    wait_for_gl_draw(page, N_POINTS)
    read_json_when(notebook7.state_file, lambda s: s["webgl"] == "available",
                   timeout_s=RENDER_TIMEOUT_MS / 1000)
    assert page.locator(DOTS).count() == 0
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, f"{FIGURE} .plotarea_background")
    brush_and_lasso(page, notebook7.state_file)


@pytest.fixture
def no_webgl_page(browser_tmp, playwright_driver):
    """A tab of a second Chromium without WebGL (``--disable-3d-apis``)."""
    context = launch_chromium(playwright_driver, browser_tmp / "chromium-no-webgl",
                              ("--disable-3d-apis",))
    try:
        tab = context.new_page()
        assert tab.evaluate("() => document.createElement('canvas').getContext('webgl')") is None
        yield tab
    finally:
        context.close()


def test_without_webgl_the_points_fall_back_to_svg_with_a_note(webgl_lab, no_webgl_page,
                                                               artifacts_dir):
    page = no_webgl_page
    # rank_view="points": the 2,000 longest-running of the 5,000 points ("auto" would show
    # the spread, 5,000 points being over the SVG budget)
    notebook = write_notebook(webgl_lab.root_dir, "webgl_points_view.ipynb", 'rank_view="points"')
    open_in_lab(page, webgl_lab, notebook)
    run_all_cells(page)
    state = read_json_when(webgl_lab.state_file, lambda s: s["webgl"] == "unavailable",
                           timeout_s=RENDER_TIMEOUT_MS / 1000)
    assert state["svg_points"] == SVG_MAX_POINTS
    assert wait_for_count(page, DOTS, SVG_MAX_POINTS, timeout_s=90) == SVG_MAX_POINTS
    expect(page.locator(STATUS)).to_contain_text("WebGL is not available in this browser")
    expect(page.locator(STATUS)).to_contain_text(f"drawing the {SVG_MAX_POINTS:,} longest-running")
    # never a blank plot: the axes, the roofs and the points are drawn
    assert page.locator(f"{FIGURE} path.line").count() >= 2
    page.locator(WIDGET).screenshot(path=str(artifacts_dir / "webgl-fallback-svg.png"))
