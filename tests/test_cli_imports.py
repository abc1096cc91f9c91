"""The command line's ``plot`` loads only what a static figure needs (issue 33: a job script waits).

Run in a fresh interpreter, ``roofline-widget plot`` of sample 2 writes its PNG
without importing the widget (ipywidgets, bqplot, IPython) or the code of other
commands (the guidance of ``explain``, the likwid-bench readers of ``machine``,
``scaling``); the same process with ``--peak-flops`` and ``-o x.svg`` still
writes the file.  The import times themselves are in
``benchmarks/bench_cli_plot.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_widget import sample_path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
#: Loaded by a plot of a LIKWID file, they would be there for nothing.
NOT_FOR_A_PLOT = ("ipywidgets", "bqplot", "IPython", "roofline_widget.widget",
                  "roofline_widget.analysis.guidance", "roofline_widget.analysis.scaling",
                  "roofline_widget.analysis.machine", "roofline_widget.io.bench",
                  "roofline_widget.cli.explain")
RUN = """\
import json, sys
from roofline_widget.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _plot(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", RUN, "plot", str(SAMPLE), *args],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("extra", [[], ["--peak-flops", "100", "--peak-bandwidth", "50"]])
def test_plot_imports_no_widget_and_no_other_command(tmp_path, extra):
    suffix = ".svg" if extra else ".png"
    image = tmp_path / f"roofline{suffix}"
    result = _plot("-o", str(image), *extra)
    assert result["code"] == 0
    assert image.stat().st_size > 1000  # a figure was drawn and written
    loaded = [name for name in NOT_FOR_A_PLOT if name in result["modules"]]
    assert loaded == []
    # what the plot does need was loaded (the check above is not vacuous)
    assert {"matplotlib.figure", "roofline_widget.static.plot"} <= set(result["modules"])


def test_plot_to_html_in_a_fresh_interpreter(tmp_path):
    # the page is drawn by the widget: importing the page writer first imported the widget,
    # which binds save_html from the half-imported writer (an AttributeError, no page)
    page = tmp_path / "report.html"
    result = _plot("-o", str(page), "--peak-flops", "2048", "--peak-bandwidth", "204.8")
    assert result["code"] == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
