"""CPU, NVIDIA and AMD points on one figure in JupyterLab (Chromium): ``notebooks/vendors.ipynb``.

The notebook shows ``RooflineWidget([cpu, nvidia, amd, amd_fp64], ceilings=...)``: sample 5 (five
LIKWID CPU regions), sample N1 (three Nsight Compute kernels on a V100), sample R2/R3 (an MI200's
``vecCopy``: a copy, left out) and an illustrated FP64 variant of it, under the EPYC 7702
spec-sheet roofs, the V100-SXM2 datasheet roofs and the roofs rocprof-compute measured on the
MI200 (sample R1 beside R2; families ``cpu``, ``nvidia``, ``amd``).  The page must draw every
point (nine), one roofline per device family (the two GPU ones in the GPU colour until the
renderers colour by family, the CPU's black), and every label inside the plot and apart from the
others at 900 and 1400 px; the screenshots are ``docs/screenshot-vendors-*``.
"""

from __future__ import annotations

import pytest

from .conftest import screenshot_widths
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

NOTEBOOK = "vendors.ipynb"
FIGURE = ".roofline-widget .roofline-figure"
DOTS = f"{FIGURE} .dot"
#: The roofline strokes: look.colors.DEVICE_LINE_COLORS' "roof" of the GPU (#1b5e20, both GPU
#: families for now) and of the CPU (black).
GPU_ROOF, CPU_ROOF = "rgb(27, 94, 32)", "rgb(0, 0, 0)"


def test_cpu_nvidia_and_amd_points_under_their_own_roofs(lab, page, artifacts_dir):
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    assert wait_for_count(page, DOTS, 9) == 9  # 5 CPU regions, 3 NVIDIA kernels, 1 AMD kernel
    wait_until_still(page, DOTS)
    strokes = page.locator(f"{FIGURE} path.line").evaluate_all(
        "els => els.filter(e => !e.closest('[style*=\"display: none\"]'))"
        ".map(e => getComputedStyle(e).stroke)")
    # three rooflines: the AMD GPU's, the NVIDIA GPU's, then the CPU's (the main one, last)
    assert [s for s in strokes if s in (GPU_ROOF, CPU_ROOF)] == [GPU_ROOF, GPU_ROOF, CPU_ROOF]
    status = page.locator(".roofline-status").inner_text()
    assert "9 points" in status
    page.keyboard.press("Control+b")  # the file browser closed: the notebook's full width
    page.wait_for_selector("#jp-left-stack", state="hidden")
    screenshot_widths(page, widget, artifacts_dir / "screenshot-vendors")
