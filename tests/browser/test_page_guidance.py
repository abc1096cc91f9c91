"""The shared HTML page in Chromium: a GPU point's hover text names its device, every point's its
guidance, and the points coloured by device family (issues 34 and 36).

Points: sample 17's region Setup (Xeon Gold 6132, 8 threads: 99.9 % scalar, tests/test_html_guidance.py)
and a rocprof-compute workload of sample R2's dispatch with 16,384 FP64 FMAs beside sample R3's
sysinfo.csv ("AMD MI200 (gfx90a, 104 CUs)", 104.0254 GFLOP/s, tests/test_read_rocprof.py).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from roofline_widget import RooflineWidget, read_likwid, read_rocprof, sample_path

from .offline import Offline
from .ui import wait_for_count

pytestmark = pytest.mark.browser

FIGURE = ".roofline-shared .roofline-figure"
GIVE_8T = "gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt"
LOAD_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def mixed_widget(tmp_path_factory) -> RooflineWidget:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from render_rocprof import workload

    folder = workload(tmp_path_factory.mktemp("page-guidance") / "MI200",
                      {"SQ_INSTS_VALU_FMA_F64": "16384"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget([read_likwid(sample_path(GIVE_8T)), read_rocprof(folder)])


@pytest.fixture(scope="module")
def mixed_page(mixed_widget, tmp_path_factory) -> Path:
    return mixed_widget.save_html(tmp_path_factory.mktemp("page") / "mixed.html")


def _dot_fills(page) -> list[str]:
    return page.locator(f"{FIGURE} .dot").evaluate_all(
        "els => els.map(e => getComputedStyle(e).fill)")


def test_hover_shows_device_and_guidance(page, mixed_page, artifacts_dir):
    offline = Offline(page)
    page.set_viewport_size({"width": 1200, "height": 1000})
    page.goto(mixed_page.as_uri())
    page.wait_for_selector(f"{FIGURE} .dot", state="attached", timeout=LOAD_TIMEOUT_MS)
    assert wait_for_count(page, f"{FIGURE} .dot", 3) == 3  # Setup, Solve, vecCopy
    page.wait_for_timeout(500)
    tips = {}
    for index in range(3):
        page.locator(f"{FIGURE} .dot").nth(index).hover(force=True)
        page.wait_for_timeout(300)
        tip = page.locator(".bqplot_tooltip_div").inner_text().strip()
        region = tip.split("\n")[0].strip()
        tips[region] = tip
        if region in ("Setup", "vecCopy"):
            page.screenshot(path=str(artifacts_dir / f"shared-html-hover-{region}.png"))
    assert "AMD MI200 (gfx90a, 104 CUs)" in tips["vecCopy"]
    assert "scalar code: 99.9 % scalar (2,703 of 2,704 MUOPS/s)" in tips["Setup"]
    assert "AMD" not in tips["Setup"]  # a CPU point names no device
    assert tips["vecCopy"].split("\n")[1] == "AMD MI200 (gfx90a, 104 CUs)"  # after the region
    assert offline.problems() == []


def test_points_coloured_by_device_family(page, mixed_widget, tmp_path, artifacts_dir):
    mixed_widget.color_by = "device"
    path = mixed_widget.save_html(tmp_path / "devices.html")
    mixed_widget.color_by = "region"
    offline = Offline(page)
    page.set_viewport_size({"width": 1200, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_selector(f"{FIGURE} .dot", state="attached", timeout=LOAD_TIMEOUT_MS)
    assert wait_for_count(page, f"{FIGURE} .dot", 3) == 3
    page.wait_for_timeout(500)
    page.screenshot(path=str(artifacts_dir / "shared-html-devices.png"))
    # Setup and Solve (CPU): tab10 blue #1f77b4; vecCopy (AMD): tab10 red #d62728
    assert sorted(_dot_fills(page)) == ["rgb(214, 39, 40)", "rgb(31, 119, 180)",
                                        "rgb(31, 119, 180)"]
    legend = page.locator(".roofline-shared").inner_text()
    assert "Devices" in legend
    assert "AMD GPU" in legend  # the legend's entry: no other text says it
    assert offline.problems() == []
