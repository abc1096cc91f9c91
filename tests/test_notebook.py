"""Execute ``notebooks/quickstart.ipynb`` headlessly (nbclient, this venv's python3 kernel).

One kernel runs the notebook as shipped plus the browser tests' state cell
(``ROOFLINE_STATE_FILE`` unset: the state cell must do nothing), then probe cells in the same kernel set the
variable, run the state cell again and change the widget, and the test reads
the JSON file the way the browser tests do.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from browser.kernel_state import STATE_CELL
from nbclient import NotebookClient
from notebook_outputs import WIDGET_VIEW
from notebook_outputs import cell_text as _text

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def _code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """(executed notebook, probe cells' outputs, state file path)."""
    state_file = tmp_path_factory.mktemp("state") / "state.json"
    saved = os.environ.pop("ROOFLINE_STATE_FILE", None)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not [c for c in _code_cells(nb) if "ROOFLINE_STATE_FILE" in c.source], \
        "test plumbing belongs in the tests (browser/kernel_state.py), not the quickstart"
    # As the browser tests do: the state cell appended to a copy, run with the variable unset.
    state_cell = nbformat.v4.new_code_cell(STATE_CELL)
    nb.cells.append(copy.deepcopy(state_cell))
    probes = [
        nbformat.v4.new_code_cell("import os, sys\nprint(sys.executable)\n"
                                  "print('state file before:', os.path.exists("
                                  f"{str(state_file)!r}))"),
        nbformat.v4.new_code_cell(f"os.environ['ROOFLINE_STATE_FILE'] = {str(state_file)!r}"),
        copy.deepcopy(state_cell),
        nbformat.v4.new_code_cell("w.peak_bandwidth = 150.0\nw.include = '<function'"),
    ]
    n_cells = len(nb.cells)
    nb.cells.extend(probes)
    client = NotebookClient(nb, kernel_name="python3", timeout=180,
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    try:
        client.execute()
    finally:
        if saved is not None:
            os.environ["ROOFLINE_STATE_FILE"] = saved
    probes = nb.cells[n_cells:]
    del nb.cells[n_cells:]
    return nb, probes, state_file


def test_notebook_runs_in_this_venv_without_errors(executed):
    nb, probes, _ = executed
    for cell in _code_cells(nb) + probes:
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    assert _text(probes[0]).splitlines()[0] == sys.executable
    assert "state file before: False" in _text(probes[0]), "the state cell must be inert when unset"


def test_first_code_cell_uses_only_the_installed_package(executed):
    nb, _, _ = executed
    first = _code_cells(nb)[0]
    assert "sample_path(" in first.source
    assert "/work" not in first.source
    assert "import roofline_widget" in first.source or "from roofline_widget import" in first.source


def test_the_main_widget_then_the_comparison_levels_and_spread_views_are_live(executed):
    """The quickstart shows w first, then the comparison, memory-level and spread views as live
    widgets (once static pictures only)."""
    nb, _, _ = executed
    views = [cell for cell in _code_cells(nb)
             if any(WIDGET_VIEW in o.get("data", {}) for o in cell.outputs)]
    shown = [cell.source.rstrip().rsplit("\n", 1)[-1].split("#")[0].strip() for cell in views]
    assert shown == ["w", "wc", "wl", "ws"]
    assert "RooflineWidget" in _text(views[0])
    # the spread view's table: exchange's slowest rank is 7 (0.55 s over a mean of 0.375 s)
    assert "exchange" in _text(views[3])
    assert "1.466667" in _text(views[3])


def test_notebook_outputs_hold_the_sample_numbers(executed):
    nb, _, _ = executed
    text = "\n".join(_text(cell) for cell in _code_cells(nb))
    # pmgpu: 5 regions, 1 thread; gmgpolar: 2 regions on 4 threads.
    assert "5 region(s), 1 rank(s)" in text
    assert "2 region(s), 1 rank(s)" in text
    assert "Peak: 2048 GFLOP/s (user)" in text
    assert "Peak bandwidth: 204.8 GB/s (user)" in text
    assert "no FLOP-rate metric in the data" in text  # the 48-rank CACHES left-out list
    selection = next(_text(c) for c in _code_cells(nb) if "selection_dataframe()" in c.source)
    # <function_a>: 2134.1472 MFLOP/s -> 2.134147 GFLOP/s; Solve: STAT Sum 4383.3768 MFLOP/s.
    assert "<function_a>" in selection
    assert "Solve" in selection
    assert "2.134147" in selection
    assert "4.383377" in selection


def test_state_file_follows_the_widget(executed):
    _, _, state_file = executed
    state = json.loads(state_file.read_text())
    assert state == {"peak_bandwidth": 150.0, "peak_flops": 2048.0, "include": "<function",
                     # Solve is no longer among the points once include='<function'.
                     "selected_regions": ["<function_a>"]}
    assert not Path(str(state_file) + ".partial").exists()


def test_hierarchical_section_reads_the_rendered_runs_and_says_so(executed):
    nb, _, _ = executed
    section = nb.cells[next(i for i, c in enumerate(nb.cells) if c.source.startswith(
        "## Memory levels")):]
    assert "rendered by `tests/render_likwid.py`, not measured" in section[0].source
    code = "\n".join(c.source for c in section if c.cell_type == "code")
    assert "rendered_not_measured_clx_2t_" in code
    assert "mpirun_clx" not in code
    text = "\n".join(_text(c) for c in section if c.cell_type == "code")
    # stencil<3d>: 3.04 GFLOP/s over 22.4 GB/s of L3 traffic, more than its 11.52 GB/s at L2
    assert "ringed dots: [('stencil<3d>', 'L3')]" in text
    assert "intensity order" in text
