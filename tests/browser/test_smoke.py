"""Smoke test of the browser set-up itself: Lab starts, widgets and bqplot render, the kernel is ours.

Uses a notebook written here (not the project's), so a broken set-up is told
apart from a broken widget.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

import roofline_widget

from .ui import drag_slider, open_in_lab, read_json_when, run_all_cells, wait_for_count

pytestmark = pytest.mark.browser

SMOKE_CODE = """\
import json, os, sys
import bqplot as bq
import ipywidgets as w
import roofline_widget

out = {json_path!r}
def dump(change=None):
    with open(out, "w") as fh:
        json.dump({{"executable": sys.executable, "package": roofline_widget.__file__,
                   "value": slider.value}}, fh)

slider = w.FloatSlider(value=1.0, min=0.0, max=10.0)
slider.add_class("smoke-slider")
slider.observe(dump, "value")
x = bq.LinearScale(); y = bq.LinearScale()
dots = bq.Scatter(x=[1, 2, 3, 4, 5], y=[5, 3, 4, 1, 2], scales={{"x": x, "y": y}})
line = bq.Lines(x=[1, 5], y=[1, 5], scales={{"x": x, "y": y}})
fig = bq.Figure(marks=[dots, line], axes=[bq.Axis(scale=x), bq.Axis(scale=y, orientation="vertical")])
fig._dom_classes = ["smoke-figure"]
dump()
w.VBox([slider, fig])
"""


def test_lab_renders_ipywidgets_and_bqplot(lab, page, tmp_path):
    json_path = tmp_path / "smoke.json"
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(SMOKE_CODE.format(json_path=str(json_path))))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab.root_dir / "_smoke.ipynb")

    open_in_lab(page, lab, "_smoke.ipynb")
    run_all_cells(page)
    page.wait_for_selector(".smoke-figure .dot", timeout=90_000)
    assert wait_for_count(page, ".smoke-figure .dot", 5) == 5
    assert page.locator(".smoke-figure .curve path.line").count() == 1

    state = read_json_when(json_path, lambda s: True)
    assert state["executable"] == sys.executable, "the kernel is not this venv's python"
    # The kernel imports the same roofline_widget as this test process (a worktree's code
    # with PYTHONPATH, not the editable install of another checkout).
    assert Path(state["package"]).resolve() == Path(roofline_widget.__file__).resolve(), state
    assert state["value"] == 1.0

    drag_slider(page, "smoke-slider", 100)
    readout = float(page.locator(".smoke-slider .widget-readout").inner_text())
    assert readout > 1.0
    # The kernel sees every intermediate value of the drag; wait for the last one.
    read_json_when(json_path, lambda s: s["value"] == pytest.approx(readout, abs=0.051))
