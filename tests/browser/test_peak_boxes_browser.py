"""The peak text boxes show a measured ceiling's value whole, not cut off, in JupyterLab.

The EPYC 7763 ceilings from the bundled likwid-bench logs (``machine_milan_epyc7763_16c``):
the memory roof is the median of two runs, ``milan_mem1_16c.log`` 41272.67 MByte/s and
``milan_mem2_16c.log`` 41258.46 MByte/s: (41272.67 + 41258.46) / 2 = 41265.565 MB/s =
41.265565 GB/s (worked out in floats it was ``41.265564999999995``, 18 characters, which a
box 96 px wide cut to ``41.2655649``; a roof now keeps 15 significant digits,
``roofs.roof.decimal_value``, so it reads as the logs' numbers); the compute roof is
``milan_flops_dp_avx_fma_16c.log``'s 820022.22 MFlops/s = 820.02222 GFLOP/s.  The data is
sample 23, the 216-rank SOMA run.  Each box must hold its whole text (the input's scroll
width is not larger than its visible width).  The screenshot goes to the artifacts directory
(``screenshot-peak-boxes.png``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from .ui import RENDER_TIMEOUT_MS, open_widget_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "peak_boxes_browser.ipynb"
DOTS = ".roofline-figure .dot"
SOMA = (Path(__file__).resolve().parents[1] / "data"
        / "pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt")
CODE = f"""\
import os
from glob import glob
from roofline_widget import RooflineWidget, machine_roofline, sample_path
machine = os.path.join(os.path.dirname(sample_path("SOURCES.md")), "machine_milan_epyc7763_16c")
milan = machine_roofline(sorted(glob(os.path.join(machine, "*.log"))), label="EPYC 7763")
w = RooflineWidget({str(SOMA)!r}, ceilings=milan)
w"""


def test_the_peak_boxes_show_the_ceilings_whole(lab, page, browser_tmp, artifacts_dir):
    open_widget_notebook(lab, page, browser_tmp, NOTEBOOK, CODE, DOTS)
    boxes = {"820.02222": page.locator(".roofline-peak-flops-text input"),
             "41.265565": page.locator(".roofline-peak-bandwidth-text input")}
    for value, box in boxes.items():
        expect(box).to_have_value(value, timeout=RENDER_TIMEOUT_MS)
        scroll, client = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert scroll <= client, f"the box of {value} is cut: {scroll} px of text in {client} px"
    page.locator(".roofline-widget").screenshot(path=str(artifacts_dir / "screenshot-peak-boxes.png"))
