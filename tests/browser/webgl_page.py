"""A notebook of 5,000 points (WebGL) and what the browser tests need to drive and check it.

The notebook builds ``RooflineWidget`` from ``make_profiling_results`` (1,000
ranks x 5 regions, one thread each) and writes the kernel's state (selected
keys, the hovered point, WebGL state, status line) to ``ROOFLINE_STATE_FILE``
on every change.  The expected points come from the same call in the test
process.
"""

from __future__ import annotations

import time
from functools import cache

import nbformat
import numpy as np

from .conftest import REPO
from .quickstart import PageAxes
from .ui import read_json_when

NOTEBOOK = "webgl_points.ipynb"
RANKS, REGIONS, SEED = 1000, 5, 3
N_POINTS = RANKS * REGIONS
WIDGET = ".webgl-test"
FIGURE = f"{WIDGET} .roofline-figure"
DOTS = f"{FIGURE} .dot"
STATUS = f"{WIDGET} .roofline-status"
DP, BW = "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"
#: Logs every instanced WebGL draw (three.js on WebGL 1 draws ScatterGL's points with one) as
#: ``window.glDraws``: ``{t: page time, n: points}`` (the last few hundred; a page init script).
GL_DRAWS = """(() => {
    window.glDraws = [];
    const getExtension = WebGLRenderingContext.prototype.getExtension;
    WebGLRenderingContext.prototype.getExtension = function (name) {
        const ext = getExtension.call(this, name);
        if (ext && name === 'ANGLE_instanced_arrays' && !ext.drawsLogged) {
            const draw = ext.drawElementsInstancedANGLE.bind(ext);
            ext.drawElementsInstancedANGLE = (mode, count, type, offset, instances) => {
                window.glDraws.push({t: performance.now(), n: instances});
                if (window.glDraws.length > 400) window.glDraws.splice(0, 200);
                return draw(mode, count, type, offset, instances);
            };
            ext.drawsLogged = true;
        }
        return ext;
    };
})();"""
CODE = """\
import sys
sys.path[:0] = [{repo!r}, {tests!r}]
from scope_fixtures import make_profiling_results
from roofline_widget import RooflineWidget
w = RooflineWidget(make_profiling_results(n_ranks={ranks}, n_regions={regions}, n_threads=1,
                                          seed={seed}),
                   flops_metric={dp!r}, bandwidth_metric={bw!r}, peak_flops=20.0,
                   peak_bandwidth=50.0{options})
w.add_class("webgl-test")
w
"""
STATE = """\
import json
import os

def write_state(change=None):
    state_file = os.environ.get("ROOFLINE_STATE_FILE")
    if not state_file:
        return
    pointer, points = w.figure.pointer, w.figure.points
    hovered = None
    if pointer.hovered is not None and len(pointer.proxy.x):
        row = w.figure.scene.point_rows.iloc[pointer.hovered]
        hovered = {"x": float(row["arithmetic_intensity_flops_per_byte"]),
                   "y": float(row["performance_gflops"]), "region": str(row["region"]),
                   "rank": int(row["rank"])}
    state = {"selected": sorted([str(r), int(k)] for _f, k, r in w.selected),
             "hovered": hovered, "webgl": points.webgl, "gl_points": len(points.gl.x),
             "svg_points": len(points.svg.x), "max_points": w.max_points}
    with open(state_file + ".partial", "w") as handle:
        json.dump(state, handle)
    os.replace(state_file + ".partial", state_file)

w.observe(write_state, names=["selected", "max_points"])
w.figure.pointer.proxy.observe(write_state, names=["x"])
w.figure.points.gl.observe(write_state, names=["x", "_view_count"])
w.figure.points.svg.observe(write_state, names=["x"])
write_state()
"""


def write_notebook(root, name: str = NOTEBOOK, options: str = "") -> str:
    """Write the notebook (the widget, then the state cell) into the server's root ``root``.

    ``options`` are more keyword arguments of the widget (Python text, e.g.
    ``"max_points=4000"``).  Returns ``name``.
    """
    code = CODE.format(repo=str(REPO), tests=str(REPO / "tests"), ranks=RANKS, regions=REGIONS,
                       seed=SEED, dp=DP, bw=BW, options=f", {options}" if options else "")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code),
                                               nbformat.v4.new_code_cell(STATE)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, root / name)
    return name


@cache
def expected_points():
    """The notebook's points, read in the test process."""
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from scope_fixtures import make_profiling_results

    from roofline_widget import points_dataframe

    results = make_profiling_results(n_ranks=RANKS, n_regions=REGIONS, n_threads=1, seed=SEED)
    return points_dataframe(results, flops_metric=DP, bandwidth_metric=BW)


def wait_for_gl_draw(page, n: int, timeout_s: float = 90) -> None:
    """Wait until the page made a WebGL draw of ``n`` points."""
    page.wait_for_function("n => (window.glDraws || []).some(d => d.n === n)", arg=n,
                           timeout=timeout_s * 1000)


def palette_pixels(page, colours: list[str], tolerance: int = 24) -> int:
    """How many pixels of the figure's plot area have one of ``colours`` (hex), in a screenshot."""
    import io

    from PIL import Image

    area = page.locator(f"{FIGURE} .plotarea_background").first
    image = np.asarray(Image.open(io.BytesIO(area.screenshot())).convert("RGB"), dtype=int)
    pixels = image.reshape(-1, 3)
    targets = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in colours])
    near = np.abs(pixels[:, None, :] - targets[None, :, :]).max(axis=2) <= tolerance
    return int(near.any(axis=1).sum())


def plot_box(page) -> dict:
    """The plot area's box on the page."""
    box = page.locator(f"{FIGURE} .plotarea_background").first.bounding_box()
    assert box is not None, "no plot area"
    return box


def hover_anchors(page, state_file, wanted: int = 2, timeout_s: float = 120):
    """Hover a grid over the plot until ``wanted`` WebGL points got the proxy dot.

    Returns ``(page centres (n, 2), data (n, 2), states)``: where bqplot drew the
    proxy dot of each hovered point, that point's intensity and GFLOP/s, and
    the kernel's state then (with ``mouse``: where the pointer was).  The
    anchors are far apart in x and y.
    """
    box = plot_box(page)
    centres, data, states = [], [], []
    deadline = time.monotonic() + timeout_s
    grid = [(fx, fy) for fy in (0.55, 0.3, 0.75, 0.15, 0.9) for fx in (0.1, 0.85, 0.3, 0.6, 0.45)]
    for fx, fy in grid:
        assert time.monotonic() < deadline, "no WebGL point could be hovered"
        at = (box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        page.mouse.move(*at, steps=4)
        page.wait_for_timeout(500)  # the last (throttled) mouse move has reached the kernel
        state = read_json_when(state_file, lambda s: True)
        if state["hovered"] is None:
            continue
        try:
            page.wait_for_function("s => document.querySelectorAll(s).length === 1", arg=DOTS,
                                   timeout=5000)
            box_now = page.locator(DOTS).first.bounding_box(timeout=2000)
        except Exception:  # the proxy moved on: try the next position
            continue
        if box_now is None:
            continue
        centre = (box_now["x"] + box_now["width"] / 2, box_now["y"] + box_now["height"] / 2)
        if read_json_when(state_file, lambda s: True)["hovered"] != state["hovered"]:
            continue
        hovered = state["hovered"]
        far = all(abs(centre[0] - c[0]) > 60 and abs(centre[1] - c[1]) > 30 for c in centres)
        if far:
            centres.append(centre)
            data.append((hovered["x"], hovered["y"]))
            states.append({**state, "mouse": at})
        if len(centres) == wanted:
            break
        page.mouse.move(box["x"] - 30, box["y"] - 30)  # leave the point: the proxy goes
        read_json_when(state_file, lambda s: s["hovered"] is None, timeout_s=10)
    assert len(centres) == wanted, f"hovered only {len(centres)} points far apart"
    return np.array(centres), np.array(data), states


def page_axes(page, state_file) -> PageAxes:
    """The figure's log axes on the page, fitted to two hovered points' proxy dots."""
    centres, data, _states = hover_anchors(page, state_file)
    return PageAxes.fit(centres, data[:, 0], data[:, 1])


def page_positions(axes: PageAxes):
    """The expected points with their page positions (columns ``page_x``, ``page_y``)."""
    points = expected_points().copy()
    points["page_x"] = axes.x(points["arithmetic_intensity_flops_per_byte"].to_numpy())
    points["page_y"] = axes.y(points["performance_gflops"].to_numpy())
    return points


def keys(frame) -> list:
    """Sorted ``[region, rank]`` pairs of the rows of ``frame`` (the state file's form)."""
    return sorted([str(r), int(k)] for r, k in zip(frame["region"], frame["rank"]))


def segment_distance(points: np.ndarray, path: np.ndarray) -> np.ndarray:
    """Each point's distance (px) to the closed polygon ``path``'s edges."""
    starts, ends = path, np.roll(path, -1, axis=0)
    edge = ends - starts
    length2 = np.maximum((edge ** 2).sum(axis=1), 1e-12)
    rel = points[:, None, :] - starts[None, :, :]
    t = np.clip((rel * edge[None]).sum(axis=2) / length2[None], 0, 1)
    nearest = starts[None] + t[..., None] * edge[None]
    return np.linalg.norm(points[:, None, :] - nearest, axis=2).min(axis=1)
