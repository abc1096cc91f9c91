"""A file of several runs in JupyterLab: the last run's points and the chain of the earlier runs.

``RooflineWidget(path)`` on sample 19 (seven LULESH problem sizes in one CSV log, 22 regions)
must draw run #7's 22 filled circles, the six earlier runs' hollow markers (square, diamond,
cross, triangle-down, then square and diamond again: ``look.markers.RUN_MARKERS``), one
dashed segment and one head per region and step (22 x 6), and say in the status line that the
seven runs are drawn as a chain.  The screenshot goes to the artifacts directory.
"""

from __future__ import annotations

import pytest
from wild_samples import LULESH_SIZES

from .conftest import REPO
from .test_compare_lab import DOTS, markers, write_notebook
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

NOTEBOOK = "_run_chain.ipynb"
CODE = f"""\
import sys
sys.path[:0] = [{str(REPO)!r}]
from roofline_widget import RooflineWidget
w = RooflineWidget({str(LULESH_SIZES)!r})
w
"""
#: Per region: run #7's circle, 6 hollow markers, 6 transparent hover targets, 6 heads.
DOTS_PER_REGION = 1 + 6 + 6 + 6
DASHED = """els => els.filter(e => getComputedStyle(e).strokeDasharray !== 'none'
                              && getComputedStyle(e).visibility !== 'hidden').length"""


def test_seven_runs_of_one_file_are_drawn_as_a_chain(lab, page, artifacts_dir):
    write_notebook(lab, NOTEBOOK, CODE)
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, 22 * DOTS_PER_REGION) == 22 * DOTS_PER_REGION
    wait_until_still(page, DOTS)
    found = {name: len(items) for name, items in markers(page).items()}
    # bqplot's cross has 12 vertices: shape() calls it "other"
    assert found == {"circle": 22, "square": 44, "diamond": 44, "other": 22,
                     "triangle-down": 22, "triangle-up": 132}, found
    assert all(m["fill"] == "none" for shape in ("square", "diamond", "other", "triangle-down")
               for m in markers(page)[shape])
    assert page.locator(".roofline-figure path.line").evaluate_all(DASHED) >= 132
    status = page.locator(".roofline-status").first.inner_text()
    assert ("7 runs of lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv drawn as a chain: "
            "#1 (size 30^3) → #2 (size 60^3) → #3 (size 90^3) → … → #7 (size 350^3)") in status
    assert "runs: #1 (size 30^3) □ square" in status
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-run-chain-lulesh.png"))
