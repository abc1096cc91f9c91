"""The quickstart notebook in JupyterLab, run and driven through the UI in Chromium.

The kernel's side is read from the state file the notebook's last cell writes
on every change (``ROOFLINE_STATE_FILE``, set in the server's environment).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import screenshot_widths
from .quickstart import (
    DOTS,
    FIGURE,
    MAIN,
    NOTEBOOK,
    NOTEBOOK_PEAK_BANDWIDTH,
    PEAK_SLIDERS,
    SAMPLES,
    close,
    dot_inside_figure,
    drag_peak_and_check,
    drag_peak_bandwidth_and_check,
    expected_points,
    horizontal_line_ys,
    line_paths,
    locate_points,
    notebook_code,
    readout,
    tooltip_fields,
    wait_for_horizontal_line_at,
)
from .ui import (
    RENDER_TIMEOUT_MS,
    drag,
    draw_closed_path,
    inside_path,
    open_in_lab,
    path_around,
    read_json_when,
    run_all_cells,
    wait_for_count,
    wait_until_still,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def quickstart(lab, page):
    """The quickstart notebook opened in Lab, all cells run, figure drawn; returns the state."""
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    # The state cell is the last one: once it wrote the file, every cell has run.
    state = read_json_when(lab.state_file, lambda s: True, timeout_s=RENDER_TIMEOUT_MS / 1000)
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    return state


def test_quickstart_reads_these_samples():
    code = notebook_code()
    for name in SAMPLES:
        assert name in code, f"the quickstart no longer reads {name}; update SAMPLES"


def test_renders_every_region_and_the_ceilings(quickstart, page, artifacts_dir):
    # 5 marker regions of pmgpu (1 thread) + Setup and Solve of GMGPolar (summed over
    # 4 threads), each measured on one rank: 7 points, all with FLOP rate and bandwidth.
    expected = len(expected_points())
    assert expected == 7
    assert wait_for_count(page, DOTS, expected) == expected
    assert quickstart["peak_bandwidth"] == pytest.approx(NOTEBOOK_PEAK_BANDWIDTH)
    # The roof from the two peaks plus the notebook's extra "1 core" compute ceiling.
    paths = line_paths(page)
    assert len(paths) >= 2, paths
    assert all(d and d.startswith("M") for d in paths), paths
    assert str(expected) in page.locator(f"{MAIN} .roofline-status").inner_text()
    screenshot_widths(page, page.locator(f"{MAIN}.roofline-widget"),
                      artifacts_dir / "screenshot-jupyterlab")


def test_peak_bandwidth_slider_drag_moves_roof_and_sets_kernel_trait(quickstart, lab, page):
    state = drag_peak_bandwidth_and_check(page, lab.state_file)
    assert state["peak_flops"] == quickstart["peak_flops"], "only the bandwidth was dragged"


def test_include_filter_shows_only_matching_regions(quickstart, lab, page):
    pattern = "<function_"
    # <function_a> .. <function_d> of pmgpu match at the start; <init_datastructures>,
    # Setup and Solve do not: 4 points.
    expected = len(expected_points(include=pattern))
    assert expected == 4
    page.locator(f"{MAIN} .roofline-include input").fill(pattern)
    read_json_when(lab.state_file, lambda s: s["include"] == pattern)
    assert wait_for_count(page, DOTS, expected) == expected


def test_hover_shows_the_points_numbers(quickstart, page):
    points = expected_points().set_index("region")
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    page.mouse.move(*dot_inside_figure(page)[1])
    fields = tooltip_fields(page)
    assert fields["region"] in points.index, fields
    row = points.loc[fields["region"]]
    assert float(fields["GFLOP/s"]) == pytest.approx(row["performance_gflops"], rel=1e-3)
    assert float(fields["FLOP/byte"]) == pytest.approx(
        row["arithmetic_intensity_flops_per_byte"], rel=1e-3)
    assert set(fields) == {"region", "rank", "GFLOP/s", "FLOP/byte", "bound"}, "compact"


def test_brush_selects_the_enclosed_points_in_the_kernel(quickstart, lab, page, artifacts_dir):
    # x is the log of the arithmetic intensity, so the two right-most dots are the two
    # regions of highest intensity: GMGPolar's Solve (8.5 FLOP/byte) and Setup (3.6).
    points = expected_points().sort_values("arithmetic_intensity_flops_per_byte")
    wanted = sorted(points["region"].iloc[-2:])
    page.locator(f"{MAIN} .roofline-interaction button", has_text="brush").click()
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    boxes = sorted((page.locator(DOTS).nth(i).bounding_box() for i in range(len(points))),
                   key=lambda b: b["x"])
    inside, outside = boxes[-2:], boxes[-3]
    margin = 12
    left = (outside["x"] + outside["width"] + inside[0]["x"]) / 2
    right = max(b["x"] + b["width"] for b in inside) + margin
    top = min(b["y"] for b in inside) - margin
    bottom = max(b["y"] + b["height"] for b in inside) + margin
    # the rectangle's mark is made at the first drag: no filled outline before it
    outlines = f"{FIGURE} path.area"
    filled = "els => els.filter(e => getComputedStyle(e).fill === 'rgb(70, 130, 180)').length"
    assert page.locator(outlines).evaluate_all(filled) == 0
    drag(page, (left, top), (right, bottom), steps=15)
    state = read_json_when(lab.state_file, lambda s: s["selected_regions"] == wanted)
    assert state["selected_regions"] == ["Setup", "Solve"]
    expect(page.locator(outlines)).not_to_have_count(0)
    page.wait_for_function(f"() => ({filled})([...document.querySelectorAll("
                           f"'{FIGURE} path.area')]) === 1", timeout=RENDER_TIMEOUT_MS)
    page.locator(FIGURE).screenshot(path=str(artifacts_dir / "screenshot-brush-outline.png"))


def test_lasso_selects_the_enclosed_points_in_the_kernel(quickstart, lab, page):
    # pmgpu's four <function_*> regions lie together (0.056 to 0.25 FLOP/byte, 0.50 to
    # 2.1 GFLOP/s, e.g. <function_d>: 1616.3 MFLOP/s / 28580.96 MB/s = 0.0566 FLOP/byte);
    # <init_datastructures> (7e-9 GFLOP/s) is far below them and GMGPolar's Setup and Solve
    # (3.6 and 8.5 FLOP/byte) over a decade to the right: a lasso can hold the four alone.
    page.locator(f"{MAIN} .roofline-interaction button", has_text="lasso").click()
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    points, _axes = locate_points(page)
    dots = points[["page_x", "page_y"]].to_numpy()
    wanted = points["region"].str.startswith("<function_").to_numpy()
    path = path_around(dots[wanted], margin=12)
    inside = sorted(points["region"][inside_path(path, dots)])
    assert inside == sorted(points["region"][wanted]), inside
    assert len(inside) == 4, inside
    # The notebook selected <function_a> and Solve in code: the lasso must replace that.
    assert quickstart["selected_regions"] == ["<function_a>", "Solve"]
    draw_closed_path(page, path)
    state = read_json_when(lab.state_file, lambda s: s["selected_regions"] == inside)
    assert state["selected_regions"] == ["<function_a>", "<function_b>", "<function_c>",
                                         "<function_d>"]


def test_peak_flops_slider_drag_moves_the_compute_roof_and_sets_kernel_trait(
        quickstart, lab, page):
    # The notebook's peak, 2048 GFLOP/s, and its "1 core" ceiling, 53.6 GFLOP/s, are the
    # two horizontal lines; a decade down the peak is about 205 GFLOP/s, still above 53.6.
    peak, one_core = quickstart["peak_flops"], 53.6
    assert peak == pytest.approx(2048.0)
    _points, axes = locate_points(page)
    ys = horizontal_line_ys(page)
    assert sorted(ys) == pytest.approx(sorted(axes.y([peak, one_core])), abs=2), ys
    state = drag_peak_and_check(page, lab.state_file, "peak_flops", -1.0)
    new_peak = state["peak_flops"]
    assert one_core < new_peak < peak / 3, new_peak
    assert state["peak_bandwidth"] == quickstart["peak_bandwidth"], "only the FLOPs were dragged"
    ys = wait_for_horizontal_line_at(page, axes.y(new_peak))
    assert min(abs(y - axes.y(peak)) for y in ys) > 10, "the old compute roof is still drawn"
    # The readout shows the kernel's value to its 4 significant digits (".4g").
    shown = readout(page, PEAK_SLIDERS["peak_flops"])
    assert close(shown, read_json_when(lab.state_file, lambda s: True)["peak_flops"]), shown


def test_empirical_button_and_typed_peak(quickstart, lab, page):
    # The largest bandwidth of the 7 points is pmgpu's <function_d>: 28580.9575 MBytes/s
    # (MEM_DP, line 72 of the sample) = 28.58 GB/s; GMGPolar's are about 0.5 GB/s.
    largest = expected_points()["bandwidth_gbs"].max()
    assert largest == pytest.approx(28.5809575)
    status = page.locator(f"{MAIN} .roofline-status")
    expect(status).not_to_contain_text("empirical")
    button = page.locator(f"{MAIN} .roofline-peak-bandwidth-empirical")
    pressed = re.compile(r"\bmod-active\b")
    expect(button).not_to_have_class(pressed)
    button.click()
    state = read_json_when(lab.state_file, lambda s: s["peak_bandwidth"] is None)
    assert state["peak_flops"] == quickstart["peak_flops"], "only the bandwidth became empirical"
    expect(button).to_have_class(pressed)
    expect(status).to_contain_text(f"Empirical bandwidth {largest:.4g} GB/s")
    # only the bandwidth is the largest observation: the peak stays the machine's, named as such
    expect(status).to_contain_text("the empirical bandwidth is the largest observation")
    expect(status).not_to_contain_text("empirical ceilings")
    expect(page.locator(f"{MAIN} .{PEAK_SLIDERS['peak_bandwidth']} .widget-readout")).to_have_text(
        f"{largest:.4g}")
    # A spec-sheet value typed into the box: the kernel gets it exactly, beyond the
    # slider's range too (0.5 x 28.58 .. 100 x 2048 GB/s would not hold 1e6).
    text = page.locator(f"{MAIN} .roofline-peak-bandwidth-text input")
    for value in (153.6, 1.0e6):
        text.fill(str(value))
        text.press("Enter")
        state = read_json_when(lab.state_file, lambda s, v=value: s["peak_bandwidth"] == v)
        expect(button).not_to_have_class(pressed)
    expect(status).not_to_contain_text("Empirical bandwidth")


def test_invalid_include_pattern_shows_a_message_and_no_traceback(quickstart, lab, page):
    with pytest.raises(re.error) as bad:
        re.compile("(")
    include = page.locator(f"{MAIN} .roofline-include input")
    message = page.locator(f"{MAIN} .roofline-message")
    expect(message).to_be_hidden()
    include.fill("(")
    read_json_when(lab.state_file, lambda s: s["include"] == "(")
    expect(message).to_be_visible()
    expect(message).to_contain_text(f"invalid include pattern '(': {bad.value}")
    expect(page.locator(f"{MAIN} .roofline-status")).to_contain_text("0 points")
    assert wait_for_count(page, DOTS, 0) == 0
    # A valid pattern brings the points back (4, see the include test); the kernel's
    # messages arrive in order, so any output of the bad pattern has arrived by then.
    include.fill("<function_")
    read_json_when(lab.state_file, lambda s: s["include"] == "<function_")
    assert wait_for_count(page, DOTS, 4) == 4
    expect(message).to_be_hidden()
    tracebacks = page.locator(
        '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"],'
        ' .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]',
        has_text="Traceback")
    assert tracebacks.count() == 0, tracebacks.all_inner_texts()
