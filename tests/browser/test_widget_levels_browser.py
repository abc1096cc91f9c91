"""Memory levels in JupyterLab: the level toggles and the joined dots, in Chromium.

A notebook written at test time (into the server's temp copy of ``notebooks/``)
shows ``RooflineWidget(caches + flops, levels=["L2", "MEM"])`` on the real
48-rank CACHES sample joined with a rendered FLOPS_DP group (see
tests/test_widget_levels.py); the expected counts come from
``hierarchical_points`` here, in the test process.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import nbformat
import pytest

from .conftest import REPO
from .quickstart import DOTS, FIGURE, LINES
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still



def shown_lines(page) -> int:
    """Lines of the figure in no hidden mark (bqplot hides a mark's group with ``display: none``;
    a flat line has no height, so Playwright's ``visible`` would not do, nor, for SVG in
    Chromium, ``checkVisibility``)."""
    return page.locator(LINES).evaluate_all(
        "els => els.filter(e => !e.closest('[style*=\"display: none\"]')).length")

pytestmark = pytest.mark.browser

NOTEBOOK = "levels_browser.ipynb"
SETUP = f'''import sys
from pathlib import Path
sys.path.insert(0, {str(REPO / "tests")!r})
from likwid_render import mpirun_region
from roofline_widget import RooflineWidget, read_likwid, sample_path

caches = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
header = next(line for line in Path(caches).read_text().splitlines()
              if line.startswith("|") and "Metric" in line)
columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
flops = [100.0 + int(c.split(":")[1]) for c in columns]
Path("flops_dp.txt").write_text(mpirun_region("wr-only", 2, columns, {{"DP [MFLOP/s]": flops}}, 28.0))
run = read_likwid([caches, "flops_dp.txt"])'''
SHOW = 'wl = RooflineWidget(run, levels=["L2", "MEM"])\nwl'


@pytest.fixture
def levels_page(lab, page, browser_tmp):
    # The quickstart's metadata (its kernelspec): Lab starts the kernel without asking.
    quickstart = nbformat.read(browser_tmp / "notebooks" / "quickstart.ipynb", as_version=4)
    nb = nbformat.v4.new_notebook(metadata=quickstart.metadata)
    nb.cells = [nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(SHOW)]
    nbformat.write(nb, browser_tmp / "notebooks" / NOTEBOOK)
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    page.locator(FIGURE).scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    return page


def _counts(tmp_path: Path):
    """(main points, dots per level) of the notebook's data, from the package here."""
    from likwid_render import mpirun_region
    from roofline_widget import hierarchical_points, points_dataframe, read_likwid, sample_path

    caches = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
    header = next(line for line in Path(caches).read_text().splitlines()
                  if line.startswith("|") and "Metric" in line)
    columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
    flops = [100.0 + int(c.split(":")[1]) for c in columns]
    path = tmp_path / "flops_dp.txt"
    path.write_text(mpirun_region("wr-only", 2, columns, {"DP [MFLOP/s]": flops}, 28.0))
    run = read_likwid([caches, path])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = hierarchical_points(run)
        main = len(points_dataframe(run))
    per_level = points["level"].astype(str).value_counts().to_dict()
    return main, per_level


def test_level_toggles_add_and_remove_joined_dots(levels_page, tmp_path, artifacts_dir):
    page = levels_page
    main, per_level = _counts(tmp_path)
    assert (main, per_level) == (2, {"L2": 48, "L3": 48, "MEM": 2})
    shown = main + per_level["L2"] + per_level["MEM"]
    assert wait_for_count(page, DOTS, shown) == shown
    lines_before = shown_lines(page)
    status = page.locator(".roofline-status").inner_text()
    assert "levels: L2, MEM" in status and "MEM 46" in status

    # L3 on: 48 more dots; every rank now has two or more levels: 48 joining lines, not 2
    page.locator(".roofline-level-toggle", has_text="L3").locator("input").click()
    shown += per_level["L3"]
    assert wait_for_count(page, DOTS, shown) == shown
    wait_until_still(page, LINES)
    assert shown_lines(page) == lines_before + 48 - 2
    page.locator(".roofline-widget").screenshot(
        path=str(artifacts_dir / "screenshot-levels.png"))

    # the levels off one by one (each click answered before the next): down to the main points
    for level in ("L2", "L3", "MEM"):
        page.locator(".roofline-level-toggle", has_text=level).locator("input").click()
        shown -= per_level[level]
        assert wait_for_count(page, DOTS, shown) == shown, level
    assert shown == main
    wait_until_still(page, LINES)
    assert shown_lines(page) == lines_before - 2
    assert "levels:" not in page.locator(".roofline-status").inner_text()
