"""Execute ``notebooks/devices.ipynb`` headlessly (nbclient, this venv's python3 kernel).

The notebook puts CPU regions (sample 5, LIKWID) and GPU kernels (sample N1, Nsight Compute)
on one roofline, each under its own device's roofs; its printed numbers are checked here
against the arithmetic in its text (the EPYC 7702 spec sheet: 2048 GFLOP/s, 204.8 GB/s; the
V100-SXM2 datasheet: 7800 GFLOP/s, 900 GB/s).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_outputs import WIDGET_VIEW
from notebook_outputs import cell_text as _text

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "devices.ipynb"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=180,
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def test_devices_notebook_runs_and_says_what_its_text_works_out(executed):
    for cell in executed:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    assert "/work" not in "".join(cell.source for cell in executed)
    text = "\n".join(_text(cell) for cell in executed)
    assert "cpu: EPYC 7702 DP peak: 2048 GFLOP/s (spec sheet)" in text
    assert "gpu: V100-SXM2 HBM: 900 GB/s" in text
    # 739.3126 / 900 = 82.1 %; 8.5541612 / 204.8 = 4.2 %
    assert "kernel_assign_6 #1: 82.1 % (memory bound, V100-SXM2 HBM)" in text
    assert "<function_a>: 4.2 % (memory bound, EPYC 7702 DRAM)" in text
    assert ("['GPU roofline (MEM, ridge at 8.667 FLOP/byte)', "
            "'CPU roofline (MEM, ridge at 10 FLOP/byte)']") in text
    views = [cell for cell in executed
             if any(WIDGET_VIEW in o.get("data", {}) for o in cell.outputs)]
    assert len(views) == 1
    assert views[0].source.rstrip().endswith("\nw")
    assert any("image/png" in o.get("data", {}) for cell in executed for o in cell.outputs)
