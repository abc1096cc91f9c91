"""The shared HTML page: its size and write time for 100, 5,000 and 50,000 points, and its first draw.

Usage::

    python benchmarks/bench_html.py              # 100, 5,000 and 50,000 points, 3 writes each
    python benchmarks/bench_html.py --quick      # 100 and 1,000 points, 1 write, no browser
    python benchmarks/bench_html.py --no-browser # sizes and write times only

For each size, a :class:`RooflineWidget` of generated scope-profiler results
(``tests/scope_fixtures.py``: one thread per rank, ranks x regions points,
``group_ranks="rank"``, ``rank_view="points"``) writes its page with
``save_html``: the *first write* reads the scripts from disk (as a new process
does, e.g. the command line), *write* is the median of the repetitions after it
(the scripts cached); the widget is built once, timed apart.  The size is split into the inlined scripts (the
widget manager with RequireJS, bqscales, bqplot, and bqplot-gl where the
points are WebGL), the icon font and the rest (the widget state: arrays as
base64, the points' texts).  Then a headless Chromium opens each page from its
file with every non-local request aborted: *draw* is the time from the
navigation to the points on the page (every ``.dot`` of the SVG marks, or the
first screenshot of the figure showing 500 pixels of the points' colours, for
WebGL points); blocked and failed requests are counted.
Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table, quiet, timed

SIZES = ((10, 10), (625, 8), (6250, 8))          # ranks x regions: 100, 5,000, 50,000 points
QUICK_SIZES = ((10, 10), (125, 8))
BUDGET_BYTES = 5_000_000                          # the budget for 50,000 points
CHROMIUM = "/usr/lib/chromium/chromium"


def widget_of(ranks: int, regions: int):
    from scope_fixtures import make_profiling_results

    from roofline_widget import RooflineWidget

    results = make_profiling_results(n_ranks=ranks, n_regions=regions, n_threads=1, n_metrics=20)
    return RooflineWidget(results, group_ranks="rank", rank_view="points")


def parts(text: str) -> dict:
    """Bytes of the page's scripts by module, the font and the rest (the state)."""
    from roofline_widget.static import html_scripts

    scripts = {"manager + RequireJS": html_scripts.manager_script()}
    for module in ("bqscales", "bqplot", "bqplot-gl"):
        if f'define("{module}"' in text:
            scripts[module] = html_scripts.widget_bundle(module)
    sizes = {name: len(html_scripts.script_element(body).encode()) for name, body in scripts.items()}
    sizes["icon font"] = len(html_scripts.font_css().encode())
    sizes["state and page"] = len(text.encode()) - sum(sizes.values())
    return sizes


def _cold_write(widget, path: Path) -> None:
    """``save_html`` with the scripts read again (as in a new process, e.g. the command line)."""
    from roofline_widget.static import html_scripts

    for cached in (html_scripts.manager_script, html_scripts.font_css, html_scripts.widget_bundle):
        cached.cache_clear()
    widget.save_html(path)


def _painted(png: bytes, least: int = 500) -> bool:
    """Whether a screenshot shows at least ``least`` pixels of the points' colours (the palette's first 8)."""
    import io

    from PIL import Image

    from roofline_widget.look.colors import PALETTE

    wanted = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in PALETTE[:8]]
    colors = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 22) or []
    return sum(count for count, rgb in colors
               if any(all(abs(a - b) < 12 for a, b in zip(rgb, w)) for w in wanted)) >= least


def draw_seconds(path: Path, points: int) -> dict:
    """Open ``path`` offline in Chromium: seconds to the points drawn, blocked and failed requests."""
    from playwright.sync_api import sync_playwright

    blocked, failed = [], []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(("file:", "data:", "blob:")):
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort()

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, viewport={"width": 1400, "height": 1000},
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"])
        page = context.new_page()
        page.route("**/*", route)
        page.on("requestfailed", lambda request: failed.append(request.url))
        start = time.perf_counter()
        page.goto(path.as_uri(), timeout=600_000)
        if page.evaluate("() => document.documentElement.innerHTML.includes('ScatterGLModel')"):
            page.wait_for_selector(".roofline-figure canvas", state="attached", timeout=600_000)
            while not _painted(page.locator(".roofline-figure").first.screenshot()):
                if time.perf_counter() - start > 600:
                    raise TimeoutError("the WebGL points were not painted within 600 s")
        else:
            dots = f"() => document.querySelectorAll('.roofline-figure .dot').length >= {points}"
            page.wait_for_function(dots, timeout=600_000, polling=100)
        seconds = time.perf_counter() - start
        context.close()
    return {"draw_s": seconds, "blocked": len(blocked), "failed": len(failed)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    quiet()
    sizes, repeat = (QUICK_SIZES, 1) if options.quick else (SIZES, options.repeat)
    browser = not (options.quick or options.no_browser)
    print(f"command: {command_line()}")
    rows, results = [], []
    with tempfile.TemporaryDirectory() as folder:
        for ranks, regions in sizes:
            build_s, widget = timed(widget_of, ranks, regions)
            points = len(widget.figure.scene.points)
            path = Path(folder) / f"roofline-{points}.html"
            cold = timed(_cold_write, widget, path)[0]
            times = [timed(widget.save_html, path)[0] for _ in range(repeat)]
            text = path.read_text(encoding="utf-8")
            size = len(text.encode())
            result = {"points": points, "ranks": ranks, "regions": regions, "build_s": build_s,
                      "write_s": median(times), "cold_write_s": cold, "bytes": size, "parts": parts(text),
                      "webgl": "ScatterGLModel" in text}
            print(f"{points:,} points written: {size:,} bytes", file=sys.stderr, flush=True)
            if browser:
                result.update(draw_seconds(path, points))
                print(f"{points:,} points drawn in {result['draw_s']:.1f} s", file=sys.stderr,
                      flush=True)
            results.append(result)
            rows.append([f"{points:,}", "WebGL" if result["webgl"] else "SVG",
                         f"{size / 1e6:.2f} MB", ms(cold), ms(result["write_s"]), ms(build_s),
                         ms(result["draw_s"]) if browser else "-",
                         f"{result.get('blocked', '-')}/{result.get('failed', '-')}"])
    print_table("save_html: size, first write (scripts read from disk), later writes (median), "
                "widget build, first draw offline",
                ["points", "marks", "size", "first write", "write", "widget built in", "draw",
                 "blocked/failed"],
                rows)
    largest = results[-1]
    print_table(f"what the page of {largest['points']:,} points holds",
                ["part", "bytes"], [[name, f"{value:,}"] for name, value in largest["parts"].items()])
    verdict = "met" if largest["bytes"] <= BUDGET_BYTES else "missed"
    print(f"budget {BUDGET_BYTES:,} bytes for {largest['points']:,} points: {largest['bytes']:,} "
          f"bytes, {verdict}")
    print(json.dumps({"results": results, "root": str(ROOT)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
