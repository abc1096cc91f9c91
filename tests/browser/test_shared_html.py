"""The shared HTML page (``roofline-widget plot -o x.html``, ``save_html``) in Chromium, offline.

Every test opens the page from its file with the network blocked (``offline.Offline``:
any request that leaves the machine is aborted and counted) and ends with no
blocked and no failed request.  The sample is sample 5 (``pmgpu``, five regions
on one core) with its region ``<function_a>`` renamed ``<b>&a``: the tooltip,
the checkbox and the legend must show those characters, never read them as HTML.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from roofline_widget import RooflineWidget, sample_path
from roofline_widget.cli import main as cli_main
from roofline_widget.static import html_view

from .offline import Offline
from .ui import wait_for_count

pytestmark = pytest.mark.browser

SAMPLE = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
HOSTILE = "<b>&a"
FIGURE = ".roofline-shared .roofline-figure"
#: The SVG points that are shown (their mark not hidden, their rank not switched off).
SHOWN_DOTS = """els => els.filter(e => e.getBoundingClientRect().width > 0
                                  && getComputedStyle(e).opacity > 0).length"""
LOAD_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def pmgpu_page(tmp_path_factory) -> Path:
    """The page the command line writes for the renamed sample with the EPYC 7702's spec sheet."""
    tmp = tmp_path_factory.mktemp("shared-html")
    data = tmp / "pmgpu_renamed.txt"
    text = Path(sample_path(SAMPLE)).read_text(encoding="utf-8")
    assert text.count("<function_a>") == 2  # its MEM_DP and FLOPS_DP blocks
    data.write_text(text.replace("<function_a>", HOSTILE), encoding="utf-8")
    page = tmp / "pmgpu.html"
    assert cli_main(["plot", str(data), "-o", str(page), "--peak-flops", "2048",
                     "--peak-bandwidth", "204.8"]) == 0
    return page


def _open(page, path: Path, dots: int) -> Offline:
    offline = Offline(page)
    page.goto(path.as_uri())
    page.wait_for_selector(f"{FIGURE} .dot", state="attached", timeout=LOAD_TIMEOUT_MS)
    assert wait_for_count(page, f"{FIGURE} .dot", dots) == dots
    page.wait_for_timeout(500)  # bqplot lays the figure out again once the widgets beside it are in
    return offline


def _pixels(page, colors: set) -> dict:
    """How many pixels of each colour (r, g, b) the figure shows (exact matches)."""
    from PIL import Image

    shot = Image.open(io.BytesIO(page.locator(FIGURE).first.screenshot())).convert("RGB")
    counts = dict.fromkeys(colors, 0)
    for count, color in shot.getcolors(maxcolors=1 << 20):
        if color in counts:
            counts[color] += count
    return counts


def _dot_colors(page) -> list[tuple[int, int, int]]:
    fills = page.locator(f"{FIGURE} .dot").evaluate_all("els => els.map(e => getComputedStyle(e).fill)")
    return [tuple(int(v) for v in fill.removeprefix("rgb(").removesuffix(")").split(",")) for fill in fills]


def _ticks(page) -> list[str]:
    return page.locator(f"{FIGURE} g.axis text").evaluate_all("els => els.map(e => e.textContent)")


def test_the_page_draws_hovers_zooms_and_toggles_offline(page, pmgpu_page, artifacts_dir):
    offline = _open(page, pmgpu_page, 5)
    colors = _dot_colors(page)
    assert len(set(colors)) == 5  # a colour per region
    drawn = _pixels(page, set(colors))
    # each point is painted but <init_datastructures>'s, which does almost no FLOPs: the axes
    # leave it out (the page says so)
    assert sorted(count > 20 for count in drawn.values()) == [False, True, True, True, True], drawn
    page.screenshot(path=str(artifacts_dir / "shared-html-pmgpu.png"), full_page=True)

    # hover: the tooltip writes the region's name as text
    hostile_color = None
    for index, color in enumerate(colors):
        if drawn[color] <= 20:
            continue  # outside the axes
        page.locator(f"{FIGURE} .dot").nth(index).hover(force=True)
        page.wait_for_timeout(200)
        tip = page.locator(".bqplot_tooltip_div").inner_text()
        if HOSTILE in tip:
            hostile_color = color
            assert "FLOP/byte" in tip
            assert "GFLOP/s" in tip
            assert "% of Peak" in tip  # judged against the spec sheet's roofs
            assert page.locator(".bqplot_tooltip_div b").count() == 0  # no <b> element made
            break
    assert hostile_color is not None, "no point's tooltip names the renamed region"
    checkbox = page.locator(".roofline-shared-region", has_text=HOSTILE)
    assert checkbox.count() == 1
    assert checkbox.locator("b").count() == 0

    # zoom: the toolbar's pan-zoom button, then the wheel over the plot
    before = _ticks(page)
    page.locator(".roofline-shared-toolbar button").first.click()
    box = page.locator(FIGURE).first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(800)
    assert _ticks(page) != before
    page.locator(".roofline-shared-toolbar button").first.click()  # pan-zoom off again

    # a region's checkbox hides its point, in the browser alone
    checkbox.locator("input").uncheck()
    page.wait_for_timeout(300)
    assert page.locator(f"{FIGURE} .dot").evaluate_all(SHOWN_DOTS) == 4
    assert _pixels(page, {hostile_color})[hostile_color] == 0
    checkbox.locator("input").check()
    page.wait_for_timeout(300)
    assert page.locator(f"{FIGURE} .dot").evaluate_all(SHOWN_DOTS) == 5

    # the tables below the figure, and the page needed nothing from the network
    assert "Peak bandwidth 204.8 GB/s" in page.locator(".roofline-shared").inner_text()
    assert offline.problems() == []


def test_a_rank_list_shows_the_ranks_picked(page, tmp_path, artifacts_dir):
    from scope_fixtures import make_profiling_results

    widget = RooflineWidget(make_profiling_results(n_ranks=4, n_regions=3, n_threads=1),
                            group_ranks="rank")
    path = widget.save_html(tmp_path / "ranks.html")
    offline = _open(page, path, 12)
    dots = page.locator(f"{FIGURE} .dot")
    assert dots.evaluate_all(SHOWN_DOTS) == 12
    page.locator(".roofline-shared-ranks select").select_option(label="rank 2")
    page.wait_for_timeout(300)
    assert dots.evaluate_all(SHOWN_DOTS) == 3  # rank 2 of each of the 3 regions
    page.locator(".roofline-shared-region", has_text="region_001").locator("input").uncheck()
    page.wait_for_timeout(300)
    assert dots.evaluate_all(SHOWN_DOTS) == 2  # and a region off: both toggles hold
    page.screenshot(path=str(artifacts_dir / "shared-html-ranks.png"), full_page=True)
    assert offline.problems() == []


def test_many_points_are_drawn_with_webgl(page, tmp_path, monkeypatch, artifacts_dir):
    monkeypatch.setattr(html_view, "HTML_SVG_MAX_POINTS", 4)  # the 5 points are "many"
    widget = RooflineWidget(sample_path(SAMPLE), peak_flops=2048.0, peak_bandwidth=204.8)
    path = widget.save_html(tmp_path / "webgl.html")
    assert 'define("bqplot-gl"' in path.read_text(encoding="utf-8")
    offline = Offline(page)
    page.goto(path.as_uri())
    canvas = page.locator(f"{FIGURE} canvas")
    canvas.first.wait_for(timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(2000)  # the first WebGL frame
    assert page.locator(f"{FIGURE} .dot").count() == 0
    # the points' colours are painted (WebGL blends their edges: count near matches)
    from PIL import Image

    shot = Image.open(io.BytesIO(page.locator(FIGURE).first.screenshot())).convert("RGB")
    blue = sum(count for count, (r, g, b) in shot.getcolors(maxcolors=1 << 20)
               if abs(r - 31) < 12 and abs(g - 119) < 12 and abs(b - 180) < 12)
    page.screenshot(path=str(artifacts_dir / "shared-html-webgl.png"), full_page=True)
    assert blue > 20  # function_a's point, the palette's first colour
    assert offline.problems() == []
