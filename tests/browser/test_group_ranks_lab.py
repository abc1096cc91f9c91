"""The "Group ranks" menu in JupyterLab: a choice in the page regroups the points in the kernel.

Sample 18 (likwid-mpirun, 24 ranks, memory counted on rank 0) under the roofs of
a real machine (sample 22's likwid-bench logs of an EPYC 7763): by default one
point for host f0472, its tooltip naming the ranks it sums; "per rank" in the
menu leaves rank 0's point (the other 23 ranks read 0 bytes and are left out).
"""

from __future__ import annotations

import pytest

from .conftest import REPO
from .ui import (
    RENDER_TIMEOUT_MS,
    box_centre,
    open_in_lab,
    read_json_when,
    run_all_cells,
    write_notebook,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "group_ranks.ipynb"
WIDGET = ".group-ranks-test"
DOTS = f"{WIDGET} .roofline-figure .dot"
MENU = f"{WIDGET} .roofline-group-ranks select"
CODE = f"""\
import json, os, sys
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
from wild_samples import MPIRUN_NIL
from roofline_widget import RooflineWidget, machine_roofline, sample_path
logs = sorted(Path(sample_path("SOURCES.md")).parent.glob("machine_milan_epyc7763_16c/*.log"))
w = RooflineWidget(str(MPIRUN_NIL), ceilings=list(machine_roofline(logs)))
w.add_class("group-ranks-test")

def write_state(change=None):
    frame = w.to_dataframe()
    state = dict(group_ranks=w.group_ranks, combine_ranks=w.combine_ranks,
                 points=frame[["rank", "rank_group"]].values.tolist())
    path = os.environ["ROOFLINE_STATE_FILE"]
    Path(path + ".partial").write_text(json.dumps(state))
    os.replace(path + ".partial", path)

w.observe(write_state, names=["group_ranks", "combine_ranks"])
write_state()
w
"""


@pytest.fixture
def group_notebook(lab):
    write_notebook(lab, NOTEBOOK, CODE)
    return lab


def test_the_menu_regroups_the_ranks_and_the_tooltip_names_the_group(group_notebook, page,
                                                                   artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1800})  # the whole widget in one picture
    open_in_lab(page, group_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    menu = page.locator(MENU)
    assert menu.evaluate("s => s.options[s.selectedIndex].text") == "auto"
    # the host's one point: hover names the ranks it sums
    dot = page.locator(DOTS).first
    x, y = box_centre(dot)
    page.mouse.move(x - 30, y - 30)
    page.mouse.move(x, y, steps=5)
    tooltip = page.locator(".roofline-tooltip:visible", has_text="f0472 (ranks 0-23)").first
    tooltip.wait_for(timeout=30_000)
    page.locator(WIDGET).first.screenshot(path=str(artifacts_dir / "screenshot-group-ranks.png"))

    menu.select_option(label="per rank")
    state = read_json_when(group_notebook.state_file, lambda s: s["group_ranks"] == "rank")
    assert state["points"] == [[0, "rank 0"]]
    assert state["combine_ranks"] is False
    status = page.locator(f"{WIDGET} .roofline-status")
    status.filter(has_text="23 left out").wait_for(timeout=30_000)
    menu.select_option(label="all ranks")
    state = read_json_when(group_notebook.state_file, lambda s: s["combine_ranks"] is True)
    assert state["points"] == [[-1, "all ranks (ranks 0-23)"]]
    status.filter(has_text="ranks summed").wait_for(timeout=30_000)
