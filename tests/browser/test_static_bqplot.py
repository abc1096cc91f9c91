"""plot_roofline(backend="bqplot", show=True) in JupyterLab: the widget's figure, drawn once."""

from __future__ import annotations

import pytest

from .conftest import REPO, screenshot_widths
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "static_bqplot.ipynb"
VIEW = ".roofline-static"
DOTS = f"{VIEW} .roofline-figure .dot"
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
GMGPOLAR = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
#: The quickstart's EPYC 7702 spec-sheet roofs and its "1 core" ceiling.
CODE = f"""\
import sys
sys.path[:0] = [{str(REPO)!r}]
from roofline_widget import BandwidthRoof, ComputeRoof, Roofline, plot_roofline, sample_path
roofs = Roofline([ComputeRoof("Peak", 2048.0, "spec sheet"),
                  ComputeRoof("1 core at 3.35 GHz boost", 53.6, "spec sheet")],
                 [BandwidthRoof("Peak bandwidth", 204.8, "spec sheet")])
payload = plot_roofline([sample_path({PMGPU!r}), sample_path({GMGPOLAR!r})], ceilings=roofs,
                        backend="bqplot", show=True, verbose=False)
"""


@pytest.fixture
def static_notebook(lab):
    write_notebook(lab, NOTEBOOK, CODE)
    return lab


def test_the_static_bqplot_figure_is_the_widgets(static_notebook, page, artifacts_dir):
    open_in_lab(page, static_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    # pmgpu's 5 regions (1 thread) and GMGPolar's Setup and Solve: 7 points, all in the
    # scatter (<init_datastructures>, almost no FLOPs, outside the axes)
    assert wait_for_count(page, DOTS, 7) == 7
    view = page.locator(VIEW).first
    legend = view.locator(".roofline-legend").inner_text()
    assert "Runs" in legend
    assert "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t" in legend
    assert "almost no FLOPs" in legend
    texts = view.locator(".roofline-figure text.label").evaluate_all(
        "els => els.map(e => e.textContent)")
    assert "Peak 2048 GFLOP/s" in texts
    # without its unit (the x axis names it): placed for the plot's narrowest width, 360 px,
    # where "ridge 10 FLOP/byte" would run into "Peak 2048 GFLOP/s"
    assert "ridge 10" in texts
    title = view.locator(".roofline-figure text.mainheading").evaluate_all(
        "els => els.map(e => e.textContent)")
    assert title == ["Roofline analysis"]
    # labels inside the plot and apart at 900 and 1400 px, as in the widget
    screenshot_widths(page, view, artifacts_dir / "screenshot-static-bqplot")
