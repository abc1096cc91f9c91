"""Sample 23 in JupyterLab: the three host points coloured and named by host; a spread square's click.

SOMA on 216 ranks (72 on each of f0702, f0703, f0704), likwid-mpirun without
markers: one region "(whole run)", grouped by host by default.  Under one node's
theoretical roofs of its Xeon Platinum 8360Y (2 sockets x 36 cores x 2.4 GHz x
32 DP FLOP/cycle = 5,529.6 GFLOP/s; 2 x 8 channels x 25.6 GB/s = 409.6 GB/s).
"""

from __future__ import annotations

import pytest

from .conftest import REPO
from .ui import (
    RENDER_TIMEOUT_MS,
    open_in_lab,
    read_json_when,
    run_all_cells,
    wait_until_still,
    write_notebook,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "host_points.ipynb"
WIDGET = ".host-points-test"
DOTS = f"{WIDGET} .roofline-figure .dot"
CODE = f"""\
import json, os, sys
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
from wild_samples import SOMA_216
from roofline_widget import RooflineWidget
w = RooflineWidget(str(SOMA_216), peak_flops=5529.6, peak_bandwidth=409.6)
w.add_class("host-points-test")

def write_state(change=None):
    state = dict(rank_view=w.rank_view, group_ranks=w.group_ranks, ranks=w.ranks,
                 names=[str(n) for n in w.figure.scene.points.names])
    path = os.environ["ROOFLINE_STATE_FILE"]
    Path(path + ".partial").write_text(json.dumps(state))
    os.replace(path + ".partial", path)

w.observe(write_state, names=["rank_view", "group_ranks", "ranks"])
write_state()
w
"""


@pytest.fixture
def hosts_notebook(lab):
    write_notebook(lab, NOTEBOOK, CODE)
    return lab


def test_host_points_have_host_colours_and_a_square_expands_to_ranks(hosts_notebook, page,
                                                                     artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1400})
    open_in_lab(page, hosts_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    wait_until_still(page, DOTS)
    # the legend's entry (the Ranks menu lists f0704 too, hidden in its closed <select>)
    legend = page.locator(f"{WIDGET} :text('f0704') >> visible=true").first
    legend.wait_for(timeout=30_000)
    text = page.locator(WIDGET).first.inner_text()
    for host in ("f0702", "f0703", "f0704"):
        assert host in text
    fills = page.locator(DOTS).evaluate_all(
        "dots => dots.map(d => getComputedStyle(d).fill || d.getAttribute('fill'))")
    assert len(set(fills)) >= 2, fills  # f0702's point is hollow (beyond the hardware)
    page.locator(WIDGET).first.screenshot(path=str(artifacts_dir / "screenshot-sample23-hosts.png"))

    page.locator(f"{WIDGET} .roofline-rank-view button", has_text="spread").click()
    read_json_when(hosts_notebook.state_file, lambda s: s["rank_view"] == "spread")
    square = page.locator(DOTS).first
    square.wait_for(timeout=30_000)
    wait_until_still(page, DOTS)
    square.click(force=True)
    state = read_json_when(hosts_notebook.state_file, lambda s: s["group_ranks"] == "rank")
    assert state["rank_view"] == "points"
    assert state["ranks"] == list(range(216))
    page.locator(f"{WIDGET} .roofline-rank-view button", has_text="spread").click()
    state = read_json_when(hosts_notebook.state_file,
                           lambda s: s["rank_view"] == "spread" and s["group_ranks"] == "auto")
    assert state["ranks"] is None
