"""What the quickstart notebook should show, worked out here from the same real samples.

The notebook builds ``RooflineWidget([pmgpu, gmgpolar], ...)`` from two bundled
LIKWID outputs; the numbers the browser tests expect come from reading those
files with roofline_widget here, in the test process, not from the page.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

import nbformat

from .conftest import NOTEBOOKS
from .ui import drag_slider, read_json_when

NOTEBOOK = "quickstart.ipynb"
# The two samples the quickstart reads (test_quickstart_reads_these_samples checks it).
SAMPLES = (
    "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",  # 5 marker regions, 1 thread
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt",  # 2 regions (Setup, Solve), 4 threads
)
# Peak bandwidth the notebook sets (GB/s, 8 x DDR4-3200 x 8 bytes).
NOTEBOOK_PEAK_BANDWIDTH = 204.8
# Selectors agreed with the widget.
FIGURE = ".roofline-figure"
DOTS = ".roofline-figure .dot"
LINES = ".roofline-figure path.line"


def notebook_code() -> str:
    """All code cells of the repository's quickstart notebook."""
    nb = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")


@lru_cache(maxsize=None)
def expected_points(include: str | None = None):
    """The points of the quickstart's two runs (optionally filtered), as a DataFrame."""
    from roofline_widget import points_dataframe, read_likwid, sample_path

    runs = [read_likwid(sample_path(name)) for name in SAMPLES]
    return points_dataframe(runs, include=include)


def line_paths(page) -> list[str]:
    """The ``d`` attribute of every line of the figure (roof and ceilings)."""
    return page.locator(LINES).evaluate_all("els => els.map(e => e.getAttribute('d'))")


def readout(page, slider_class: str) -> float:
    """The number a slider shows next to it."""
    return float(page.locator(f".{slider_class} .widget-readout").first.inner_text())


def close(a: float, b: float, significant: int = 4) -> bool:
    """``a`` equals ``b`` to the ``significant`` digits a readout shows."""
    return math.isclose(a, b, rel_tol=0.6 * 10 ** (1 - significant))


def tooltip_fields(page, timeout_s: float = 30) -> dict[str, str]:
    """The name -> value rows of the hover tooltip's table, once it has the point's numbers.

    Read from the DOM (``th``/``td`` text), not from the rendered text, whose
    layout depends on the tooltip being shown at that instant.
    """
    rows = page.locator(".roofline-tooltip tr")
    script = "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))"
    deadline = time.monotonic() + timeout_s
    while True:
        fields = dict(row for row in rows.evaluate_all(script) if len(row) == 2)
        if {"region", "GFLOP/s", "GB/s"} <= fields.keys():
            return fields
        assert time.monotonic() < deadline, f"the tooltip never showed a point: {fields}"
        page.wait_for_timeout(100)


def wait_for_new_paths(page, before: list[str], timeout_s: float = 30) -> list[str]:
    """Wait until the figure's line paths differ from ``before``; return them."""
    page.wait_for_function(
        """([selector, before]) => {
            const now = [...document.querySelectorAll(selector)].map(e => e.getAttribute('d'));
            return JSON.stringify(now) !== JSON.stringify(before);
        }""",
        arg=[LINES, before],
        timeout=timeout_s * 1000,
    )
    return line_paths(page)


def drag_peak_bandwidth_and_check(page, state_file) -> dict:
    """Drag the peak-bandwidth handle left; check the page's roof and the kernel's trait moved.

    Returns the kernel's state once its ``peak_bandwidth`` is the value the
    slider shows.
    """
    before = line_paths(page)
    drag_slider(page, "roofline-peak-bandwidth", -60)
    shown = readout(page, "roofline-peak-bandwidth")
    assert shown < NOTEBOOK_PEAK_BANDWIDTH, "dragging left should lower the peak"
    # The kernel sees every value of the drag; wait for the one the slider stopped at.
    state = read_json_when(state_file, lambda s: close(s["peak_bandwidth"], shown))
    assert state["peak_bandwidth"] < NOTEBOOK_PEAK_BANDWIDTH
    assert wait_for_new_paths(page, before) != before
    return state
