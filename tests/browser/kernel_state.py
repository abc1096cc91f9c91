"""The kernel-state cell the tests add to a copy of the quickstart (never to the shipped notebook).

When ``ROOFLINE_STATE_FILE`` is set (the browser tests set it in the server's
environment), the cell writes the widget's peaks, include pattern and selected
regions as JSON to that file on every change, so that a test driving the page
can read the kernel's state.  It does nothing otherwise.  It also gives the
quickstart's first widget ``w`` the DOM class ``quickstart-main``
(:data:`MAIN_CLASS`): the notebook shows more widgets (comparison, levels,
spread) and the tests drive that one.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

__all__ = ["MAIN_CLASS", "STATE_CELL", "STATE_CELL_TAG", "add_state_cell"]

#: The DOM class the state cell gives the quickstart's main widget ``w``.
MAIN_CLASS = "quickstart-main"

STATE_CELL_TAG = "roofline-test-state"
STATE_CELL = f"""\
import json
import os

w.add_class({MAIN_CLASS!r})  # the widget the browser tests drive (the notebook shows others too)

state_file = os.environ.get("ROOFLINE_STATE_FILE")
if state_file:
    def write_state(change=None):
        state = {{
            "peak_bandwidth": w.peak_bandwidth,
            "peak_flops": w.peak_flops,
            "include": w.include,
            "selected_regions": sorted({{region for _file, _rank, region in w.selected}}),
        }}
        partial = state_file + ".partial"
        with open(partial, "w") as handle:
            json.dump(state, handle)
        os.replace(partial, state_file)  # readers never see half a file

    w.observe(write_state, names=["peak_bandwidth", "peak_flops", "include", "selected"])
    write_state()
"""


def add_state_cell(path: Path) -> None:
    """Append the state cell (the last cell: once it ran, every cell has) to the notebook ``path``."""
    nb = nbformat.read(path, as_version=4)
    if any(STATE_CELL_TAG in cell.metadata.get("tags", []) for cell in nb.cells):
        return
    cell = nbformat.v4.new_code_cell(STATE_CELL)
    cell.metadata["tags"] = [STATE_CELL_TAG]
    nb.cells.append(cell)
    nbformat.write(nb, path)
