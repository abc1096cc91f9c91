"""Small Playwright helpers shared by the JupyterLab and Voila tests."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import nbformat
import numpy as np

RENDER_TIMEOUT_MS = 90_000


def write_notebook(lab, name: str, code: str) -> None:
    """A notebook of one code cell (Python 3 kernel) in the server's root folder."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, lab.root_dir / name)


def open_in_lab(page, server, notebook: str) -> None:
    """Open ``notebook`` in JupyterLab (fresh workspace) and wait until its kernel is ready.

    The page's execution indicator says "idle" once before the kernel even
    starts, and a Run All clicked while it is "initializing" is lost, so wait
    for the server's session first and then for the page to be connected.
    """
    page.goto(server.url(f"lab/tree/{notebook}?reset"))
    page.wait_for_selector(".jp-NotebookPanel", timeout=RENDER_TIMEOUT_MS)
    wait_for_idle_kernel(server, notebook)
    page.wait_for_function(
        """() => {
            const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
            const bar = document.querySelector('.jp-StatusBar-Widget');
            return ind && ind.dataset.status === 'idle' && bar && / \\| Idle/.test(bar.innerText);
        }""",
        timeout=RENDER_TIMEOUT_MS,
    )


def wait_for_idle_kernel(server, notebook: str) -> None:
    """Wait until the server's session for ``notebook`` has an idle kernel."""
    deadline = time.monotonic() + RENDER_TIMEOUT_MS / 1000
    while not _kernel_idle_on_server(server, notebook):
        assert time.monotonic() < deadline, f"no idle kernel for {notebook}:\n{server.log_tail()}"
        time.sleep(0.2)


def open_in_notebook7(page, server, notebook: str) -> None:
    """Open ``notebook`` in Notebook 7 (``/notebooks/<name>``) and wait until its kernel is ready.

    Notebook 7 has no status bar by default: the server's session says when the
    kernel is idle, and the page's kernel indicator (if shown) is waited for too.
    """
    page.goto(server.url(f"notebooks/{notebook}"))
    page.wait_for_selector(".jp-Notebook", timeout=RENDER_TIMEOUT_MS)
    wait_for_idle_kernel(server, notebook)
    page.wait_for_function(
        """() => {
            const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
            return !ind || ind.dataset.status === 'idle';
        }""",
        timeout=RENDER_TIMEOUT_MS,
    )


def _kernel_idle_on_server(server, notebook: str) -> bool:
    sessions = server.api("api/sessions")
    return any(
        s["path"] == notebook and (s.get("kernel") or {}).get("execution_state") == "idle"
        for s in sessions
    )


def shutdown_kernels(server) -> None:
    """Stop every session of ``server`` so that the next test starts a fresh kernel."""
    for session in server.api("api/sessions"):
        server.api(f"api/sessions/{session['id']}", method="DELETE")


def run_all_cells(page) -> None:
    """Run -> Run All Cells, through the menu bar as a user would."""
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    item = page.locator(".lm-Menu-item", has=page.get_by_text("Run All Cells", exact=True))
    item.click()
    # A dropped command would otherwise only show as a render timeout much later.
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                 .some(p => /\\[(\\*|\\d+)\\]/.test(p.innerText))""",
        timeout=30_000,
    )


def wait_for_count(page, selector: str, expected: int, timeout_s: float = 60) -> int:
    """Wait until ``selector`` matches exactly ``expected`` elements; return the last count."""
    deadline = time.monotonic() + timeout_s
    count = page.locator(selector).count()
    while count != expected and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        count = page.locator(selector).count()
    return count


def wait_until_still(page, selector: str, quiet_ms: int = 400, timeout_s: float = 30) -> None:
    """Wait until the elements of ``selector`` stop moving on the page.

    A bqplot figure lays itself out again after the first draw (its width
    changes when the widgets beside it fill in), so positions read too early
    are stale by tens of pixels.
    """
    script = """els => els.map(e => { const r = e.getBoundingClientRect();
                                     return [r.x, r.y, r.width, r.height].map(Math.round); })"""
    deadline = time.monotonic() + timeout_s
    last = page.locator(selector).evaluate_all(script)
    while time.monotonic() < deadline:
        page.wait_for_timeout(quiet_ms)
        now = page.locator(selector).evaluate_all(script)
        if now == last and now:
            return
        last = now
    raise AssertionError(f"{selector} still moving after {timeout_s} s")


def box_centre(locator) -> tuple[float, float]:
    """Centre of an element on the page, in CSS pixels."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not visible"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
    """Press the left button at ``start``, move to ``end`` in ``steps``, release."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def drag_slider(page, slider_class: str, dx: float) -> None:
    """Drag the noUiSlider handle of the slider with DOM class ``slider_class`` by ``dx``."""
    x, y = box_centre(page.locator(f".{slider_class} .noUi-handle").first)
    drag(page, (x, y), (x + dx, y))


def slider_px_per_decade(page, slider_class: str) -> float:
    """How far (CSS px) the handle of a FloatLogSlider moves per decade of its value."""
    handle = page.locator(f".{slider_class} .noUi-handle").first
    low, high = (float(handle.get_attribute(name)) for name in ("aria-valuemin", "aria-valuemax"))
    box = page.locator(f".{slider_class} .noUi-base").first.bounding_box()
    assert box is not None, f"no slider .{slider_class} on the page"
    assert high > low, f"slider .{slider_class} has an empty range"
    return box["width"] / (high - low)


def centres(page, selector: str) -> np.ndarray:
    """Page positions (CSS px) of the centres of the elements of ``selector``, shape (n, 2)."""
    script = """els => els.map(e => { const r = e.getBoundingClientRect();
                                     return [r.x + r.width / 2, r.y + r.height / 2]; })"""
    return np.array(page.locator(selector).evaluate_all(script), dtype=float).reshape(-1, 2)


def path_around(points: np.ndarray, margin: float, n_per_point: int = 16) -> np.ndarray:
    """A closed convex path that keeps at least ``0.98 * margin`` px away from each point.

    The convex hull of circles of radius ``margin`` (``n_per_point`` vertices
    each) around ``points``; its first vertex is the lowest on the page.
    """
    angles = np.linspace(0, 2 * math.pi, n_per_point, endpoint=False)
    ring = margin * np.column_stack([np.cos(angles), np.sin(angles)])
    hull = _convex_hull((points[:, None, :] + ring[None, :, :]).reshape(-1, 2))
    return np.roll(hull, -int(np.argmax(hull[:, 1])), axis=0)


def _convex_hull(points: np.ndarray) -> np.ndarray:
    """Vertices of the convex hull of ``points`` in order (Andrew's monotone chain)."""
    ordered = sorted(map(tuple, points))

    def half(seq):
        chain: list = []
        for p in seq:
            while len(chain) >= 2 and _turn(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain[:-1]

    return np.array(half(ordered) + half(reversed(ordered)))


def _turn(o, a, b) -> float:
    """z of the cross product (a - o) x (b - o): the sense of the turn o -> a -> b."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def inside_path(path: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which of ``points`` lie inside the closed polygon ``path`` (even-odd rule)."""
    from matplotlib.path import Path as PolygonPath

    return PolygonPath(path).contains_points(points)


def draw_closed_path(page, path: np.ndarray, steps: int = 3) -> None:
    """Press the left button at the first vertex, move along every vertex back to it, release."""
    page.mouse.move(*path[0])
    page.mouse.down()
    for vertex in [*path[1:], path[0]]:
        page.mouse.move(*vertex, steps=steps)
    page.mouse.up()


def read_json_when(path: Path, predicate, timeout_s: float = 30):
    """Poll ``path`` until it holds JSON for which ``predicate`` is true; return it.

    Raises ``AssertionError`` with the last content seen if that never happens.
    """
    deadline = time.monotonic() + timeout_s
    last = None
    while True:
        try:
            last = json.loads(path.read_text())
            if predicate(last):
                return last
        except (FileNotFoundError, json.JSONDecodeError):
            pass  # not written yet, or caught mid-write
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never satisfied the condition; last content: {last!r}")
        time.sleep(0.1)


#: bqplot draws a Label mark's texts as ``text.label`` elements (the ceiling and ridge labels).
LABEL_TEXTS = "text.label"
#: The plot area inside the axes of a bqplot figure.
PLOT_AREA = ".plotarea_background"


def label_boxes(figure) -> tuple[dict, list[tuple[str, dict]]]:
    """The plot area of the bqplot ``figure`` (a locator) and ``(text, box)`` of every label shown.

    Boxes are the page's ``getBoundingClientRect`` in CSS pixels (x, y, width, height).
    """
    script = """(fig, [area, texts]) => {
        const r = e => { const b = e.getBoundingClientRect();
                         return {x: b.x, y: b.y, width: b.width, height: b.height}; };
        const labels = [...fig.querySelectorAll(texts)]
            .filter(t => t.textContent.trim() && getComputedStyle(t).visibility !== 'hidden')
            .map(t => [t.textContent, r(t)]).filter(([_, b]) => b.width > 0);
        return [r(fig.querySelector(area)), labels];
    }"""
    area, labels = figure.evaluate(script, [PLOT_AREA, LABEL_TEXTS])
    return area, [(text, box) for text, box in labels]


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def assert_labels_inside_and_apart(figure, width: int, tolerance_px: float = 0.5) -> list[str]:
    """Assert every label of ``figure`` lies inside its plot area and overlaps no other one.

    Returns the texts checked (``width`` only names the window width in messages).
    """
    area, labels = label_boxes(figure)
    assert labels, f"at {width} px the figure shows no label"
    for text, box in labels:
        inside = (box["x"] >= area["x"] - tolerance_px
                  and box["x"] + box["width"] <= area["x"] + area["width"] + tolerance_px
                  and box["y"] >= area["y"] - tolerance_px
                  and box["y"] + box["height"] <= area["y"] + area["height"] + tolerance_px)
        assert inside, f"at {width} px the label {text!r} {box} is not inside the plot area {area}"
    for i, (text, box) in enumerate(labels):
        for other, other_box in labels[i + 1:]:
            assert not _overlap(box, other_box), (
                f"at {width} px the labels {text!r} {box} and {other!r} {other_box} overlap")
    return [text for text, _box in labels]


#: Per axis of a figure (x, then y): its tick labels shown, in order along the axis, and the
#: neighbours closer than ``gap`` px (overlapping or touching).
_TICK_LABELS = """([fig, gap]) => [...fig.querySelectorAll('g.axis')].slice(0, 2).map((axis, index) => {
    const along = index === 0 ? b => [b.left, b.right] : b => [b.top, b.bottom];
    const spans = [...axis.querySelectorAll('.tick text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent, ...along(t.getBoundingClientRect())]).sort((p, q) => p[1] - q[1]);
    const touching = [];
    for (let i = 1; i < spans.length; i++) {
        if (spans[i][1] - spans[i - 1][2] < gap) touching.push(spans[i - 1][0] + '|' + spans[i][0]);
    }
    return {texts: spans.map(s => s[0]), touching};
})"""


def tick_labels(page, figure: str, gap_px: float = 2.0) -> list[dict]:
    """The x and y axes' tick labels of the bqplot ``figure`` (a selector) as the page draws them.

    Each axis: ``texts``, the labels shown in order along it, and ``touching``, the
    neighbours less than ``gap_px`` apart (``"0.001|0.002"``).
    """
    return page.evaluate(f"([selector, gap]) => ({_TICK_LABELS})([document.querySelector(selector), gap])",
                         [figure, gap_px])


def open_widget_notebook(lab, page, browser_tmp: Path, notebook: str, code: str,
                         dots: str) -> None:
    """Write a one-cell notebook of ``code`` (the quickstart's kernel), open it in JupyterLab,
    run it and wait until the widget's ``dots`` are drawn and still (page 1400 px high)."""
    quickstart = nbformat.read(browser_tmp / "notebooks" / "quickstart.ipynb", as_version=4)
    nb = nbformat.v4.new_notebook(metadata=quickstart.metadata)
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, browser_tmp / "notebooks" / notebook)
    open_in_lab(page, lab, notebook)
    run_all_cells(page)
    page.wait_for_selector(dots, timeout=RENDER_TIMEOUT_MS)
    page.set_viewport_size({"width": page.viewport_size["width"], "height": 1400})
    page.locator(".roofline-widget").scroll_into_view_if_needed()
    wait_until_still(page, dots)
