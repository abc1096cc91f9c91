"""The Ranks field in JupyterLab: typed text, the host menu and an error, read by the kernel.

Sample 23 (likwid-mpirun, 216 ranks on hosts f0702, f0703, f0704; memory counted on one rank per
socket, so "auto" sums each host) under the theoretical roofs of one host's 72 Ice Lake cores
at 2.4 GHz: typing "f0703" and Enter leaves host f0703's point (ranks
72-143); the menu's "f0704" fills the text and leaves f0704's; a host the data lacks shows the
error beside the field and the kernel's ranks stay those of f0704.
"""

from __future__ import annotations

import pytest

from .conftest import REPO
from .ui import RENDER_TIMEOUT_MS, open_in_lab, read_json_when, run_all_cells, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "rank_field.ipynb"
WIDGET = ".rank-field-test"
DOTS = f"{WIDGET} .roofline-figure .dot"
FIELD = f"{WIDGET} .roofline-ranks input"
MENU = f"{WIDGET} .roofline-rank-places select"
HINT = f"{WIDGET} .roofline-ranks-hint"
CODE = f"""\
import json, os, sys
from pathlib import Path
sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
from wild_samples import SOMA_216
from roofline_widget import RooflineWidget, read_likwid, theoretical_roofline
# likwid-mpirun prints no CPU header: the machine as SOURCES.md names it (Xeon Platinum 8360Y,
# fixed 2.4 GHz), for one host's 72 cores (each point sums a host)
roofs = theoretical_roofline(read_likwid(SOMA_216), cpu_type="Intel Icelake SP processor",
                             clock_ghz=2.4, cores=72)
w = RooflineWidget(str(SOMA_216), ceilings=list(roofs))
w.add_class("rank-field-test")

def write_state(change=None):
    frame = w.to_dataframe()
    state = dict(ranks=w.ranks, groups=frame["rank_group"].astype(str).tolist(),
                 text=w.controls.rank_control.text.value)
    path = os.environ["ROOFLINE_STATE_FILE"]
    Path(path + ".partial").write_text(json.dumps(state))
    os.replace(path + ".partial", path)

w.observe(write_state, names=["ranks"])
write_state()
w
"""


@pytest.fixture
def field_notebook(lab):
    write_notebook(lab, NOTEBOOK, CODE)
    return lab


def test_typed_picked_and_refused_ranks(field_notebook, page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1800})
    open_in_lab(page, field_notebook, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    hint = page.locator(HINT)
    hint.filter(has_text="216 ranks on 3 hosts: 0-215; hosts f0702, f0703, f0704").wait_for(
        timeout=30_000)
    page.locator(WIDGET).first.screenshot(path=str(artifacts_dir / "screenshot-rank-field.png"))

    field = page.locator(FIELD)
    field.fill("f0703")
    field.press("Enter")
    state = read_json_when(field_notebook.state_file, lambda s: s["ranks"] is not None)
    assert state["ranks"] == list(range(72, 144))
    assert state["groups"] == ["f0703 (ranks 72-143)"]

    page.locator(MENU).select_option(label="f0704")
    state = read_json_when(field_notebook.state_file, lambda s: s["ranks"][0] == 144)
    assert state["groups"] == ["f0704 (ranks 144-215)"]
    assert field.input_value() == "f0704"

    field.fill("f0799")
    field.press("Enter")
    hint.filter(has_text="no host or socket of that name").wait_for(timeout=30_000)
    page.locator(WIDGET).first.screenshot(
        path=str(artifacts_dir / "screenshot-rank-field-error.png"))
    state = read_json_when(field_notebook.state_file, lambda s: True)
    assert state["ranks"] == list(range(144, 216))  # unchanged
