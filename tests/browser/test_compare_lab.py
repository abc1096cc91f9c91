"""The baseline comparison in JupyterLab: arrows from hollow baseline markers to filled points.

A notebook written here shows ``RooflineWidget(take, baseline=give)`` (samples 2 and 16, two
regions): the page must hold 2 filled circles (the widget's points), 2 hollow squares (the
baseline run's marker), 2 dashed paths in the regions' colours, each running from a square's
centre to a circle's centre, and 2 arrow heads (bqplot ``triangle-up`` markers), each on its
path near the circle and turned along the path as the page draws it.  Hovering a hollow
marker shows the comparison tooltip, at its centre too (over each hollow marker lies the same
marker filled and fully transparent, which carries the tooltip).

A second test changes the widget through the page (a filter, a typed peak, a click that
selects), lets the kernel save the view on every change, stops that kernel, opens a NEW
notebook (a new kernel) that builds ``RooflineWidget(take, baseline=give, view=path)``, and
checks that the page shows the restored state.

A third draws the thread-scaling chain (sample 17: 1, 2, 8 threads) as a path with one
marker shape per run.
"""

from __future__ import annotations

import json
import math
import re
import time

import numpy as np
import pytest
from playwright.sync_api import expect

from .ui import (
    RENDER_TIMEOUT_MS,
    box_centre,
    open_in_lab,
    read_json_when,
    run_all_cells,
    shutdown_kernels,
    wait_for_count,
    wait_until_still,
    write_notebook,
)

pytestmark = pytest.mark.browser

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
READ = f"""\
from roofline_widget import RooflineWidget, read_likwid, sample_path
give = read_likwid(sample_path("{GIVE}"))
take = read_likwid(sample_path("{TAKE}"))
"""
CODE = READ + "wc = RooflineWidget(take, baseline=give)\nwc\n"
VIEW_FILE = "_compare_view.json"
# The first kernel saves the view on every change of the traits the page changes.
SAVE_CODE = READ + f"""\
w = RooflineWidget(take, baseline=give)
w.observe(lambda change: w.save_view({VIEW_FILE!r}), names=["include", "peak_flops", "selected"])
w
"""
RESTORE_CODE = READ + f"w2 = RooflineWidget(take, baseline=give, view={VIEW_FILE!r})\nw2\n"
DOTS = ".roofline-figure .dot"
# The two regions' palette colours (tab10 blue and orange) as the browser computes them.
REGION_STROKES = {"rgb(31, 119, 180)", "rgb(255, 127, 14)"}
# Every marker: its path's "d", fill, parent's transform, box centre and box.
DOT_INFO = """els => els.map(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return [e.getAttribute('d'), s.fill, e.parentNode.getAttribute('transform') || '',
            r.x + r.width / 2, r.y + r.height / 2, r.x, r.y, r.width, r.height,
            s.stroke, s.strokeWidth, s.opacity]; })"""
LINE_INFO = """els => els.map(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return [s.stroke, s.strokeDasharray, r.x, r.y, r.width, r.height, e.getAttribute('d')]; })"""
NUMBER = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"


def shape(d: str) -> str:
    """Which bqplot marker drew the path ``d``: circle (arcs), or by its number of vertices."""
    if "A" in d:
        return "circle"
    vertices = re.findall(rf"({NUMBER}),({NUMBER})", d)
    if len(vertices) == 3:
        return "triangle-up" if float(vertices[0][1]) < 0 else "triangle-down"
    if len(vertices) == 4:
        return "diamond" if float(vertices[0][0]) == 0 else "square"
    return "other"


def markers(page, transparent: bool = False) -> dict[str, list]:
    """The figure's markers by shape: each [fill, (tx, ty) SVG translate, rotation, centre, ...].

    Only the markers seen (opacity above 0), or only the transparent ones (the hover
    targets over the hollow markers) with ``transparent=True``.
    """
    by_shape: dict[str, list] = {}
    for d, fill, transform, cx, cy, x, y, w, h, stroke, stroke_width, opacity in \
            page.locator(DOTS).evaluate_all(DOT_INFO):
        if (float(opacity) == 0) != transparent:
            continue
        translate = re.search(rf"translate\(({NUMBER})[ ,]+({NUMBER})\)", transform)
        rotate = re.search(rf"rotate\(({NUMBER})\)", transform)
        by_shape.setdefault(shape(d), []).append({
            "fill": fill, "svg": (float(translate[1]), float(translate[2])),
            "rotation": float(rotate[1]) if rotate else 0.0, "centre": (cx, cy),
            "box": (x, y, w, h), "stroke": stroke, "stroke_width": stroke_width})
    return by_shape


def compare_lines(page) -> list[dict]:
    """The dashed paths in a region's colour: the comparison's lines, with their SVG ends."""
    lines = []
    for stroke, dash, x, y, width, height, d in \
            page.locator(".roofline-figure path.line").evaluate_all(LINE_INFO):
        if stroke not in REGION_STROKES:
            continue
        ends = [(float(a), float(b)) for a, b in re.findall(rf"({NUMBER}),({NUMBER})", d)]
        lines.append({"stroke": stroke, "dash": dash, "box": (x, y, width, height),
                      "start": ends[0], "end": ends[-1]})
    return lines


def plot_area(page) -> tuple[float, float]:
    box = page.locator(".roofline-figure .plotarea_background").first.bounding_box()
    return box["width"], box["height"]


def check_heads(page, lines: list[dict], heads: list[dict]) -> None:
    """One head per line, on it, near its end, pointing along it as drawn on the page.

    The kernel turns a head for the plot size it assumes (``scale_size``); the page's
    plot area is measured here.  Mapping the page's direction of each line to the assumed
    plot must give the head's rotation to 1 degree (bqplot: SVG ``rotate``, clockwise, a
    triangle-up points up at 0); the head's visible error (its rotation against the line
    on the page) is at most the error of the assumed aspect ratio.
    """
    from roofline_widget.look.arrows import HEAD_GAP_PX
    from roofline_widget.look.plot_area import scale_size

    assert len(heads) == len(lines), (heads, lines)
    width, height = plot_area(page)
    assumed_w, assumed_h = scale_size(_widget_figure())
    shown_h = height * (1 - 2 * 0.025)  # the figure's padding_y
    # tan(angle on the assumed plot) = tan(angle on the page) * stretch
    stretch = (assumed_h / assumed_w) / (shown_h / width)
    worst = abs(math.degrees(math.atan(math.sqrt(stretch)) - math.atan(1 / math.sqrt(stretch))))
    for line in lines:
        (x0, y0), (x1, y1) = line["start"], line["end"]
        dx, dy = x1 - x0, -(y1 - y0)  # SVG y runs down
        length = math.hypot(dx, dy)
        head = min(heads, key=lambda h: math.dist(h["svg"], (x1, y1)))
        hx, hy = head["svg"]
        # on the line (perpendicular distance), and behind the end by about the gap
        assert abs((hx - x0) * dy + (hy - y0) * dx) / length < 1.0, (head, line)
        back = math.dist((hx, hy), (x1, y1))
        assert 0.5 * HEAD_GAP_PX < back < 2 * HEAD_GAP_PX, (back, head, line)
        assert head["fill"] == line["stroke"]
        kernel_angle = math.degrees(math.atan2(dy * stretch, dx))
        expected = (90 - kernel_angle) % 360
        got = head["rotation"] % 360  # d3 writes rotate() in (-180, 180]
        assert min(abs(got - expected), 360 - abs(got - expected)) < 1.0, (got, expected)
        page_angle = (90 - math.degrees(math.atan2(dy, dx))) % 360
        off = min(abs(got - page_angle), 360 - abs(got - page_angle))
        assert off < worst + 1.0, (got, page_angle, worst)


def _widget_figure():
    """The bqplot Figure of a widget built here (its layout, margins and padding)."""
    from roofline_widget import RooflineWidget, read_likwid, sample_path

    return RooflineWidget(read_likwid(sample_path(TAKE)),
                          baseline=read_likwid(sample_path(GIVE))).figure.plot


def kernel_ids(lab, notebook: str) -> list[str]:
    return [s["kernel"]["id"] for s in lab.api("api/sessions") if s["path"] == notebook]


def test_baseline_arrows_are_drawn_between_hollow_and_filled_points(lab, page, artifacts_dir):
    write_notebook(lab, "_compare.ipynb", CODE)
    open_in_lab(page, lab, "_compare.ipynb")
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, 8) == 8  # 2 circles, 2 squares (+2 hover targets), 2 heads
    wait_until_still(page, DOTS)
    found = markers(page)
    assert sorted(found) == ["circle", "square", "triangle-up"], found
    filled = np.array([m["centre"] for m in found["circle"]], dtype=float)
    hollow = np.array([m["centre"] for m in found["square"]], dtype=float)
    assert len(filled) == 2, found
    assert len(hollow) == 2, found
    assert all(m["fill"] != "none" for m in found["circle"])
    assert all(m["fill"] == "none" for m in found["square"])

    lines = compare_lines(page)
    assert {line["stroke"] for line in lines} == REGION_STROKES, lines
    assert all(line["dash"] not in ("none", "") for line in lines)  # dashed
    for line in lines:
        x, y, width, height = line["box"]
        # the path's box spans from one hollow marker's centre to one filled dot's centre
        spans = [(h, f) for h in hollow for f in filled
                 if np.allclose([min(h[0], f[0]), max(h[0], f[0]), min(h[1], f[1]),
                                 max(h[1], f[1])], [x, x + width, y, y + height], atol=3)]
        assert len(spans) == 1, (x, y, width, height, hollow, filled)
    # as many heads as arrows, each on its arrow and turned along it
    check_heads(page, lines, found["triangle-up"])

    status = page.locator(".roofline-status").first.inner_text()
    assert "median speed-up vs baseline: 1.48× over 2 points" in status
    assert "runs: baseline □ square → current ● circle" in status

    page.locator(".roofline-figure").first.screenshot(
        path=str(artifacts_dir / "screenshot-compare.png"))

    wait_until_still(page, DOTS)  # the screenshot may have scrolled the page
    targets = sorted(t["centre"] for t in markers(page, transparent=True)["square"])
    seen = sorted(m["centre"] for m in markers(page)["square"])
    np.testing.assert_allclose(targets, seen, atol=0.5)  # one over each
    # hovered at its centre (a hollow SVG shape alone is hit on its outline only)
    x, y, width, height = markers(page)["square"][0]["box"]
    page.mouse.move(x + width / 2 + 1, y + height / 2 - 1)
    tooltip = page.locator(".roofline-compare-tooltip")
    tooltip.first.wait_for(timeout=10_000)
    assert "Speed-up" in tooltip.first.inner_text()


def test_saved_view_is_restored_in_a_fresh_kernel(lab, page):
    view_path = lab.root_dir / VIEW_FILE
    view_path.unlink(missing_ok=True)
    write_notebook(lab, "_compare_save.ipynb", SAVE_CODE)
    open_in_lab(page, lab, "_compare_save.ipynb")
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, 8) == 8
    wait_until_still(page, DOTS)
    check_heads(page, compare_lines(page), markers(page)["triangle-up"])
    first_kernel = kernel_ids(lab, "_compare_save.ipynb")
    assert len(first_kernel) == 1

    # Change the widget through the page; the kernel saves the view after each change.
    page.locator(".roofline-include input").fill("Solve")
    read_json_when(view_path, lambda v: v["include"] == "Solve")
    assert wait_for_count(page, DOTS, 4) == 4  # Solve: circle, square, its target, head
    peak = page.locator(".roofline-peak-flops-text input")
    peak.fill("50")
    peak.press("Enter")
    read_json_when(view_path, lambda v: v["peak_flops"] == 50.0)
    wait_until_still(page, DOTS)
    dot = next(i for i, m in enumerate(page.locator(DOTS).evaluate_all(DOT_INFO))
               if shape(m[0]) == "circle")
    page.mouse.click(*box_centre(page.locator(DOTS).nth(dot)))
    saved = read_json_when(view_path, lambda v: len(v["selected"]) == 1)
    take_file = TAKE.removesuffix(".txt")
    assert saved["selected"] == [[take_file, 0, "Solve"]]
    assert saved["baseline"] == [GIVE.removesuffix(".txt")]

    # A fresh kernel: every session stopped, a new notebook with its own kernel.
    shutdown_kernels(lab)
    deadline = time.monotonic() + 30
    while lab.api("api/sessions") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert lab.api("api/sessions") == []
    assert json.loads(view_path.read_text()) == saved  # nothing wrote it since
    write_notebook(lab, "_compare_restore.ipynb", RESTORE_CODE)
    open_in_lab(page, lab, "_compare_restore.ipynb")
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    second_kernel = kernel_ids(lab, "_compare_restore.ipynb")
    assert len(second_kernel) == 1
    assert second_kernel != first_kernel
    assert kernel_ids(lab, "_compare_save.ipynb") == []

    # The restored state, as the page shows it.
    assert wait_for_count(page, DOTS, 4) == 4
    wait_until_still(page, DOTS)
    expect(page.locator(".roofline-include input")).to_have_value("Solve")
    expect(page.locator(".roofline-peak-flops-text input")).to_have_value(re.compile(r"^50(\.0)?$"))
    readout = page.locator(".roofline-peak-flops .widget-readout").first
    expect(readout).to_have_text(re.compile(r"^50(\.0+)?$"))
    status = page.locator(".roofline-status").first
    expect(status).to_contain_text("1 point, 1 selected")
    expect(status).to_contain_text("Peak 50 GFLOP/s")
    # Solve only: one circle (selected: bqplot's selected_style), one square, one arrow, one head
    found = markers(page)
    assert {name: len(items) for name, items in found.items()} == {
        "circle": 1, "square": 1, "triangle-up": 1}, found
    assert found["circle"][0]["stroke"] == "rgb(0, 0, 0)"
    assert found["circle"][0]["stroke_width"] == "2.5px"
    lines = compare_lines(page)
    assert [line["stroke"] for line in lines] == ["rgb(255, 127, 14)"], lines
    assert len(found["triangle-up"]) == len(lines)
    check_heads(page, lines, found["triangle-up"])
    expect(status).to_contain_text("median speed-up vs baseline: 2.25× over 1 point")


CHAIN_CODE = """\
from roofline_widget import RooflineWidget, read_likwid, sample_path
runs = {f"{n}t": read_likwid(sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{n}t_1537x2048_give.txt"))
        for n in (1, 2, 8)}
wchain = RooflineWidget(runs["8t"], baseline={"1t": runs["1t"], "2t": runs["2t"]})
wchain
"""


def test_chain_is_a_path_with_one_shape_per_run(lab, page):
    """Sample 17 (1 -> 2 -> 8 threads, 2 regions): 1t squares, 2t diamonds, 8t circles, and per
    region a path of 2 segments, each with its head; the 2t marker is where they join."""
    write_notebook(lab, "_compare_chain.ipynb", CHAIN_CODE)
    open_in_lab(page, lab, "_compare_chain.ipynb")
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    assert wait_for_count(page, DOTS, 14) == 14  # 2 regions x (3 runs + 2 targets + 2 heads)
    wait_until_still(page, DOTS)
    found = markers(page)
    assert {name: len(items) for name, items in found.items()} == {
        "square": 2, "diamond": 2, "circle": 2, "triangle-up": 4}, found
    assert all(m["fill"] == "none" for m in found["square"] + found["diamond"])
    lines = compare_lines(page)
    assert len(lines) == 4
    check_heads(page, lines, found["triangle-up"])
    svg = {name: [m["svg"] for m in found[name]] for name in ("square", "diamond", "circle")}

    def at(point) -> set[str]:
        return {name for name, points in svg.items() if any(math.dist(p, point) < 1.0
                                                            for p in points)}

    # a segment runs from 1t to 2t (square to diamond) or from 2t to 8t (diamond to circle)
    steps = sorted((*at(line["start"]), *at(line["end"])) for line in lines)
    assert steps == [("diamond", "circle")] * 2 + [("square", "diamond")] * 2, (lines, svg)
    status = page.locator(".roofline-status").first.inner_text()
    assert "runs: 1t □ square → 2t ◇ diamond → current ● circle" in status
