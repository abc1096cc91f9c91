"""The quickstart notebook in JupyterLab, run and driven through the UI in Chromium.

The kernel's side is read from the state file the notebook's last cell writes
on every change (``ROOFLINE_STATE_FILE``, set in the server's environment).
"""

from __future__ import annotations

import pytest

from .quickstart import (
    DOTS, FIGURE, NOTEBOOK, NOTEBOOK_PEAK_BANDWIDTH, SAMPLES, drag_peak_bandwidth_and_check,
    expected_points, line_paths, notebook_code, tooltip_fields,
)
from .ui import (
    RENDER_TIMEOUT_MS, box_centre, drag, open_in_lab, read_json_when, run_all_cells,
    wait_for_count, wait_until_still,
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
    assert len(paths) >= 2 and all(d and d.startswith("M") for d in paths), paths
    assert str(expected) in page.locator(".roofline-status").inner_text()
    page.locator(".roofline-widget").screenshot(path=str(artifacts_dir / "screenshot-jupyterlab.png"))


def test_peak_bandwidth_slider_drag_moves_roof_and_sets_kernel_trait(quickstart, lab, page):
    state = drag_peak_bandwidth_and_check(page, lab.state_file)
    assert state["peak_flops"] == quickstart["peak_flops"], "only the bandwidth was dragged"


def test_include_filter_shows_only_matching_regions(quickstart, lab, page):
    pattern = "<function_"
    # <function_a> .. <function_d> of pmgpu match at the start; <init_datastructures>,
    # Setup and Solve do not: 4 points.
    expected = len(expected_points(include=pattern))
    assert expected == 4
    page.locator(".roofline-include input").fill(pattern)
    read_json_when(lab.state_file, lambda s: s["include"] == pattern)
    assert wait_for_count(page, DOTS, expected) == expected


def test_hover_shows_the_points_numbers(quickstart, page):
    points = expected_points().set_index("region")
    dot = page.locator(DOTS).first
    page.mouse.move(*box_centre(dot))
    fields = tooltip_fields(page)
    assert fields["region"] in points.index, fields
    row = points.loc[fields["region"]]
    assert float(fields["GFLOP/s"]) == pytest.approx(row["performance_gflops"], rel=1e-3)
    assert float(fields["GB/s"]) == pytest.approx(row["bandwidth_gbs"], rel=1e-3)


def test_brush_selects_the_enclosed_points_in_the_kernel(quickstart, lab, page):
    # x is the log of the arithmetic intensity, so the two right-most dots are the two
    # regions of highest intensity: GMGPolar's Solve (8.5 FLOP/byte) and Setup (3.6).
    points = expected_points().sort_values("arithmetic_intensity_flops_per_byte")
    wanted = sorted(points["region"].iloc[-2:])
    page.locator(".roofline-interaction button", has_text="brush").click()
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
    drag(page, (left, top), (right, bottom), steps=15)
    state = read_json_when(lab.state_file, lambda s: s["selected_regions"] == wanted)
    assert state["selected_regions"] == ["Setup", "Solve"]
