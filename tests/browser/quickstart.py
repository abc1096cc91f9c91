"""What the quickstart notebook should show, worked out here from the same real samples.

The notebook builds ``RooflineWidget([pmgpu, gmgpolar], ...)`` from two bundled
LIKWID outputs; the numbers the browser tests expect come from reading those
files with roofline_widget here, in the test process, not from the page.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache

import nbformat
import numpy as np

from .conftest import NOTEBOOKS
from .kernel_state import MAIN_CLASS
from .ui import box_centre, centres, drag_slider, read_json_when, slider_px_per_decade

NOTEBOOK = "quickstart.ipynb"
# The two samples the quickstart reads (test_quickstart_reads_these_samples checks it).
SAMPLES = (
    "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",  # 5 marker regions, 1 thread
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt",  # 2 regions (Setup, Solve), 4 threads
)
# Peak bandwidth the notebook sets (GB/s, 8 x DDR4-3200 x 8 bytes).
NOTEBOOK_PEAK_BANDWIDTH = 204.8
# Selectors agreed with the widget, inside the quickstart's main widget ``w`` (the notebook
# shows a comparison, the memory levels and the spread view further down).
MAIN = f".{MAIN_CLASS}"
FIGURE = f"{MAIN} .roofline-figure"
DOTS = f"{FIGURE} .dot"
LINES = f"{FIGURE} path.line"
PEAK_SLIDERS = {"peak_flops": "roofline-peak-flops", "peak_bandwidth": "roofline-peak-bandwidth"}
#: Most distance (CSS px) between a dot and where the fitted axes put its point.
DOT_TOLERANCE_PX = 2.0


def notebook_code() -> str:
    """All code cells of the repository's quickstart notebook."""
    nb = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")


@cache
def expected_points(include: str | None = None):
    """The points of the quickstart's two runs (optionally filtered), as a DataFrame."""
    from roofline_widget import points_dataframe, read_likwid, sample_path

    runs = [read_likwid(sample_path(name)) for name in SAMPLES]
    return points_dataframe(runs, include=include)


def line_paths(page) -> list[str]:
    """The ``d`` attribute of every line of the figure (roof and ceilings)."""
    return page.locator(LINES).evaluate_all("els => els.map(e => e.getAttribute('d'))")


def readout(page, slider_class: str) -> float:
    """The number a slider shows next to it (once the front end has written it)."""
    shown = page.locator(f"{MAIN} .{slider_class} .widget-readout").first
    deadline = time.monotonic() + 10
    while not shown.inner_text().strip() and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return float(shown.inner_text())


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
        if {"region", "GFLOP/s", "FLOP/byte"} <= fields.keys():
            return fields
        assert time.monotonic() < deadline, f"the tooltip never showed a point: {fields}"
        page.wait_for_timeout(100)


def dot_inside_figure(page) -> tuple[int, tuple[float, float]]:
    """Index and centre of the first dot drawn inside the figure.

    A point that does almost no FLOPs lies outside the axes (the status line
    names it), so "the first dot" may be off the plot.
    """
    figure = page.locator(FIGURE).first.bounding_box()
    dots = page.locator(DOTS)
    for index in range(dots.count()):
        x, y = centre = box_centre(dots.nth(index))
        if (figure["x"] < x < figure["x"] + figure["width"]
                and figure["y"] < y < figure["y"] + figure["height"]):
            return index, centre
    raise AssertionError("no dot inside the figure")


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


def drag_peak_and_check(page, state_file, trait: str, decades: float) -> dict:
    """Drag a peak slider's handle by ``decades``; check the page's lines and the kernel's trait moved.

    Returns the kernel's state once its ``trait`` is the value the slider shows.
    """
    slider = PEAK_SLIDERS[trait]
    start = readout(page, slider)
    before = line_paths(page)
    drag_slider(page, slider, decades * slider_px_per_decade(page, slider))
    shown = readout(page, slider)
    assert (shown - start) * decades > 0, f"dragging by {decades} decades left {trait} at {shown}"
    # The kernel sees every value of the drag; wait for the one the slider stopped at.
    state = read_json_when(state_file, lambda s: close(s[trait], shown))
    assert (state[trait] - start) * decades > 0
    assert wait_for_new_paths(page, before) != before
    return state


def drag_peak_bandwidth_and_check(page, state_file) -> dict:
    """Drag the peak-bandwidth handle a decade and a half down (see :func:`drag_peak_and_check`)."""
    state = drag_peak_and_check(page, state_file, "peak_bandwidth", -1.5)
    assert state["peak_bandwidth"] < NOTEBOOK_PEAK_BANDWIDTH
    return state


@dataclass(frozen=True)
class PageAxes:
    """The figure's two log axes on the page: data values to CSS pixels."""

    x0: float
    x_per_decade: float
    y0: float
    y_per_decade: float

    def x(self, intensity):
        """Page x of an arithmetic intensity (FLOP/byte)."""
        return self.x0 + self.x_per_decade * np.log10(intensity)

    def y(self, gflops):
        """Page y of a performance (GFLOP/s); the page's y grows downwards."""
        return self.y0 - self.y_per_decade * np.log10(gflops)

    @classmethod
    def fit(cls, dots: np.ndarray, intensity, gflops) -> PageAxes:
        """The axes that put the extreme values on the extreme dots (log scales are affine)."""
        lx, ly = np.log10(intensity), np.log10(gflops)
        x_per_decade = np.ptp(dots[:, 0]) / np.ptp(lx)
        y_per_decade = np.ptp(dots[:, 1]) / np.ptp(ly)
        return cls(dots[:, 0].min() - x_per_decade * lx.min(), x_per_decade,
                   dots[:, 1].min() + y_per_decade * ly.max(), y_per_decade)


def locate_points(page):
    """The quickstart's points with the page position of the dot drawn for each.

    The axes are fitted to the extreme dots only; every other dot must then
    be where the axes put its point (within ``DOT_TOLERANCE_PX``), one dot
    per point.  Returns ``(points with page_x and page_y columns, PageAxes)``.
    """
    points = expected_points().copy()
    dots = centres(page, DOTS)
    assert len(dots) == len(points), f"{len(dots)} dots for {len(points)} points"
    intensity = points["arithmetic_intensity_flops_per_byte"].to_numpy()
    gflops = points["performance_gflops"].to_numpy()
    axes = PageAxes.fit(dots, intensity, gflops)
    predicted = np.column_stack([axes.x(intensity), axes.y(gflops)])
    distance = np.linalg.norm(predicted[:, None, :] - dots[None, :, :], axis=2)
    nearest = distance.argmin(axis=1)
    assert len(set(nearest)) == len(points), f"two points on one dot: {nearest}"
    worst = distance[np.arange(len(points)), nearest].max()
    assert worst < DOT_TOLERANCE_PX, f"a dot is {worst:.1f} px from its point"
    points["page_x"], points["page_y"] = dots[nearest, 0], dots[nearest, 1]
    return points, axes


def horizontal_line_ys(page) -> list[float]:
    """Page y of every horizontal line of the figure: the compute ceilings."""
    script = """els => els.map(e => e.getBoundingClientRect())
                         .filter(r => r.width > 0 && r.height < 0.5).map(r => r.y)"""
    return page.locator(LINES).evaluate_all(script)


def wait_for_horizontal_line_at(page, y: float, timeout_s: float = 30) -> list[float]:
    """Wait until a horizontal line of the figure is within ``DOT_TOLERANCE_PX`` of page ``y``."""
    page.wait_for_function(
        """([selector, y, tol]) => [...document.querySelectorAll(selector)]
               .map(e => e.getBoundingClientRect())
               .some(r => r.width > 0 && r.height < 0.5 && Math.abs(r.y - y) < tol)""",
        arg=[LINES, float(y), DOT_TOLERANCE_PX], timeout=timeout_s * 1000,
    )
    return horizontal_line_ys(page)
