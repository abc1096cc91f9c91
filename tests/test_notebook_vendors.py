"""Execute ``notebooks/vendors.ipynb`` headlessly (nbclient, this venv's python3 kernel).

The notebook puts CPU regions (sample 5, LIKWID), NVIDIA kernels (sample N1, Nsight Compute) and
AMD kernels (samples R2/R3, rocprof-compute; the real ``vecCopy`` is left out as a copy, an
illustrated FP64 variant is placed) on one roofline, each under its own device family's roofs;
its printed numbers are checked here against the arithmetic in its text (EPYC 7702 spec sheet
2048 GFLOP/s, 204.8 GB/s; V100-SXM2 datasheet 7800 GFLOP/s, 900 GB/s; the roofline.csv beside
the bundled R2 sample, sample R1's GPU 0: 20,269.176 GFLOP/s FP64, 1,388.7638 GB/s HBM).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_outputs import WIDGET_VIEW
from notebook_outputs import cell_text as _text

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "vendors.ipynb"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=180,
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def test_vendors_notebook_runs_and_says_what_its_text_works_out(executed):
    for cell in executed:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
        assert not [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
    assert "/work" not in "".join(cell.source for cell in executed)
    text = "\n".join(_text(cell) for cell in executed)
    assert "rocprof-compute | AMD MI200 (gfx90a, 104 CUs) | ['vecCopy']" in text
    assert "'DP [MFLOP/s]' is zero on every thread" in text  # the real copy kernel: left out
    assert "amd: GPU 0 HBM: 1389 GB/s (rocprof-compute roofline.csv" in text
    assert "nvidia: V100-SXM2 HBM: 900 GB/s" in text
    # 739.3126 / 900 = 82.1 %; 832.2286 / 1388.7638 = 59.9 %; 8.5541612 / 204.8 = 4.2 %
    assert "kernel_assign_6 #1: 82.1 % (memory bound, V100-SXM2 HBM)" in text
    assert "vecCopy: 59.9 % (memory bound, GPU 0 HBM)" in text
    assert "<function_a>: 4.2 % (memory bound, EPYC 7702 DRAM)" in text
    views = [cell for cell in executed
             if any(WIDGET_VIEW in o.get("data", {}) for o in cell.outputs)]
    assert len(views) == 1
