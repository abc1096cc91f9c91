"""CPU and GPU points on one figure in JupyterLab (Chromium): ``notebooks/devices.ipynb``.

The notebook shows ``RooflineWidget([cpu, gpu], ceilings=...)`` on sample 5 (five LIKWID CPU
regions) and sample N1 (three Nsight Compute GPU kernels) under the EPYC 7702 spec-sheet roofs
(device ``"cpu"``) and the V100-SXM2 datasheet roofs (device ``"gpu"``).  The page must draw
every point, one roofline per device in its device's colour, and every label inside the plot
and apart from the others at 900 and 1400 px; the screenshots are ``docs/screenshot-devices-*``.
"""

from __future__ import annotations

import pytest

from .conftest import screenshot_widths
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

NOTEBOOK = "devices.ipynb"
#: The notebook's one widget (the quickstart's selectors are scoped to its main widget).
FIGURE = ".roofline-widget .roofline-figure"
DOTS = f"{FIGURE} .dot"
#: The roofline marks' strokes as the browser reports them: look.colors.DEVICE_LINE_COLORS'
#: "roof" of the GPU (#1b5e20) and of the CPU (black).
ROOF_STROKES = ["rgb(27, 94, 32)", "rgb(0, 0, 0)"]


def _expected_points() -> int:
    from roofline_widget import points_dataframe, read_likwid, sample_path

    runs = [read_likwid(sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")),
            read_likwid(sample_path("ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"))]
    points = points_dataframe(runs)
    assert points["device"].value_counts().to_dict() == {"cpu": 5, "gpu": 3}
    return len(points)


def test_cpu_and_gpu_points_under_their_own_roofs(lab, page, artifacts_dir):
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    expected = _expected_points()
    assert wait_for_count(page, DOTS, expected) == expected
    wait_until_still(page, DOTS)
    strokes = page.locator(f"{FIGURE} path.line").evaluate_all(
        "els => els.filter(e => !e.closest('[style*=\"display: none\"]'))"
        ".map(e => getComputedStyle(e).stroke)")
    # the two rooflines (the GPU's, then the CPU's) among the lines drawn
    assert [s for s in strokes if s in ROOF_STROKES] == ROOF_STROKES
    status = page.locator(".roofline-status").inner_text()
    assert "8 points" in status
    page.keyboard.press("Control+b")  # the file browser closed: the notebook's full width
    page.wait_for_selector("#jp-left-stack", state="hidden")
    screenshot_widths(page, widget, artifacts_dir / "screenshot-devices")
