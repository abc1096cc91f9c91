"""A file of several runs in JupyterLab: drawn as a sweep, a path per region, the run slider.

``RooflineWidget(path)`` on sample 19 (seven LULESH problem sizes in one CSV log, 22 regions)
must draw run #7's 22 filled circles, every run's point on its region's path as a small circle
shaded by the size (149: five points beyond the hardware are left off), one ring per path on the
step of the run slider, and no other marker shape (no shape per run); the status line keeps to
two lines. Moving the slider (its keyboard ``Home``) moves the rings to the first size; the play
button steps it on. The 54-run sweep (18 thread counts x 3 cases, ``study_files.write_sweep``)
is drawn grouped by case: three line styles, shaded by threads. The screenshots go to the
artifacts directory (``screenshot-sweep-lulesh.png``, ``-lulesh-30.png`` with the slider at 30^3,
``screenshot-sweep-54-runs.png``).
"""

from __future__ import annotations

import pytest
from wild_samples import LULESH_SIZES

from .conftest import REPO
from .test_compare_lab import DOTS, markers, write_notebook
from .ui import RENDER_TIMEOUT_MS, open_in_lab, run_all_cells, wait_for_count, wait_until_still

pytestmark = pytest.mark.browser

CODE = f"""\
import sys
sys.path[:0] = [{str(REPO)!r}]
from roofline_widget import RooflineWidget
w = RooflineWidget({str(LULESH_SIZES)!r})
w
"""
SWEEP_CODE = f"""\
import sys, tempfile
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}, {str(REPO / "tests")!r}]
from study_files import write_sweep
from roofline_widget import RooflineWidget
w = RooflineWidget(write_sweep(Path(tempfile.mkdtemp())))
w
"""
#: run #7's points, every run's point on the paths (7 x 22 - 5), one ring per path.
LULESH_DOTS = 22 + 149 + 22
#: the last run's 3 points, 54 x 3 runs' points, a ring per region and case.
SWEEP_DOTS = 3 + 162 + 9
#: The rings' centres (the hollow circles larger than a run's point).
RINGS = """els => els.filter(e => getComputedStyle(e).fill === 'none')
    .map(e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })"""
LINE_HEIGHTS = """e => { const s = getComputedStyle(e);
    const line = parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize);
    return e.getBoundingClientRect().height / line; }"""


def _open(lab, page, notebook: str, code: str, dots: int) -> None:
    write_notebook(lab, notebook, code)
    open_in_lab(page, lab, notebook)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, dots) == dots
    wait_until_still(page, DOTS)


def _status_lines(page) -> float:
    return page.locator(".roofline-sweep-status").first.evaluate(LINE_HEIGHTS)


def test_seven_runs_of_one_file_are_drawn_as_a_sweep(lab, page, artifacts_dir):
    _open(lab, page, "_run_chain.ipynb", CODE, LULESH_DOTS)
    found = {name: len(items) for name, items in markers(page).items()}
    assert found == {"circle": LULESH_DOTS}, found  # no marker shape tells runs apart
    rings = page.locator(DOTS).evaluate_all(RINGS)
    assert len(rings) == 22
    status = page.locator(".roofline-status").first.inner_text()
    assert "7 runs of lulesh_icx8360y_MEM_D…enated.csv as a sweep: 22 paths" in status
    assert _status_lines(page) <= 2.05
    key = page.locator(".roofline-sweep-key").first.inner_text()
    assert key.startswith("shade: size 30^3")
    assert key.endswith("350^3")
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-sweep-lulesh.png"))
    # the slider to the first run: the rings move to the 30^3 points
    page.locator(".roofline-sweep-step .noUi-handle, .roofline-sweep-step [role=slider]") \
        .first.press("Home")
    page.wait_for_function("() => [...document.querySelectorAll('.roofline-sweep b')]"
                           ".some(b => b.textContent === 'size = 30^3')", timeout=30_000)
    wait_until_still(page, DOTS)
    moved = page.locator(DOTS).evaluate_all(RINGS)
    assert len(moved) == 21  # CalcPressureForElems of 30^3 is beyond the hardware: off its path
    assert sorted(map(tuple, moved)) != sorted(map(tuple, rings))
    widget.screenshot(path=str(artifacts_dir / "screenshot-sweep-lulesh-30.png"))
    # play: the browser steps the slider (jslink), the kernel moves the rings
    page.locator(".roofline-sweep-play button").first.click()
    page.wait_for_function("() => [...document.querySelectorAll('.roofline-sweep b')]"
                           ".some(b => b.textContent === 'size = 90^3')", timeout=30_000)


def test_a_54_run_sweep_is_grouped_by_case_and_shaded_by_threads(lab, page, artifacts_dir):
    _open(lab, page, "_sweep_54.ipynb", SWEEP_CODE, SWEEP_DOTS)
    found = {name: len(items) for name, items in markers(page).items()}
    assert found == {"circle": SWEEP_DOTS}, found
    status = page.locator(".roofline-status").first.inner_text()
    assert "54 runs of lulesh_sweep.txt as a sweep: 9 paths in 3 groups by case" in status
    assert _status_lines(page) <= 2.05
    assert page.locator(".roofline-sweep-group select").first.input_value() == "case"
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-sweep-54-runs.png"))
