"""Where a peak-slider drag spends its time in the browser: with SVG dots, with none, with ScatterGL.

Usage::

    python benchmarks/profile_peak_drag.py               # 1,024 ranks x 8 regions (5,000 dots)
    python benchmarks/profile_peak_drag.py --ranks 256   # 2,048 dots

A profiling probe for ``docs/webgl.md`` (not a test, not a timed target).
One RooflineWidget per variant (``bench_browser_ranks.py``'s ``show``:
generated scope-profiler results, ``rank_view="points"``, ``max_points=5000``):

* ``svg``: today's widget, every point an SVG ``.dot``;
* ``hidden``: the same widget with its Scatter hidden (``visible=False``):
  what the drag costs without any dot in the page;
* ``gl``: the points drawn by bqplot-gl's ScatterGL (the package's points
  mark with its threshold back at ``SVG_MAX_POINTS``; in Phase 1 the
  prototype ``webgl_prototype.draw_points_with_webgl``).

For each, the peak-bandwidth slider is dragged by half a decade (12 mouse
moves, as in ``bench_browser_ranks.py``) while Chromium's DevTools protocol
counts what the renderer did: ``Performance.getMetrics`` deltas (task, script,
layout and style-recalculation time; what is left of the task time is mostly
paint and raster), the DOM mutations by kind (dots, lines, labels, other) and
the WebGL draws (a page init script logs them), and the mouse-press to
roof-settled time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _common import ROOT, command_line, ms, print_table
from bench_browser_ranks import (
    SETTLE_MS,
    TIMEOUT_MS,
    WATCH_LINES,
    ranks_notebook,
    run_cell,
    wait_for_dots,
)

sys.path.insert(0, str(ROOT / "tests"))
from browser.quickstart import line_paths, wait_for_new_paths
from browser.ui import drag_slider, slider_px_per_decade, wait_until_still

DRAG_DECADES = 0.5
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration",
           "LayoutCount", "RecalcStyleCount")
#: Counts DOM mutations below the widget ``tag`` by what they touched.
COUNT_MUTATIONS = """tag => {
    window.profileCounts = {dot: 0, line: 0, label: 0, other: 0};
    window.profileObserver?.disconnect();
    window.profileObserver = new MutationObserver(records => {
        for (const r of records) {
            const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            const kind = t.closest('.dot') || t.matches('.dot') ? 'dot'
                : t.matches('path.line') ? 'line'
                : t.closest('text.label') ? 'label' : 'other';
            window.profileCounts[kind] += 1;
        }
    });
    window.profileObserver.observe(document.querySelector(`.${tag}`),
        {attributes: true, childList: true, subtree: true, characterData: true});
}"""
VARIANT_CODE = {
    "svg": "",
    "hidden": "{w}.figure.scatter.visible = False",
    "gl": "{w}.figure.points.threshold = 2000\n{w}.max_points -= 1\n{w}.max_points += 1",
}


def metrics(cdp) -> dict:
    values = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: values.get(name, 0.0) for name in METRICS}


TRACE_CATEGORIES = ("devtools.timeline,disabled-by-default-devtools.timeline,"
                    "disabled-by-default-devtools.timeline.invalidationTracking")


def start_trace(cdp) -> None:
    cdp.send("Tracing.start", {"categories": TRACE_CATEGORIES, "transferMode": "ReturnAsStream"})


def end_trace(page, cdp, path: Path) -> None:
    """Stop Chromium's trace and write it to ``path`` (JSON, for the DevTools Performance panel)."""
    done: dict = {}
    cdp.on("Tracing.tracingComplete", lambda event: done.update(event))
    cdp.send("Tracing.end")
    deadline = time.monotonic() + 60
    while "stream" not in done and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # lets Playwright deliver the event
    chunks = []
    while True:
        chunk = cdp.send("IO.read", {"handle": done["stream"], "size": 1 << 20})
        chunks.append(chunk["data"])
        if chunk.get("eof"):
            break
    cdp.send("IO.close", {"handle": done["stream"]})
    path.write_text("".join(chunks))


def profile(page, cdp, ranks: int, variant: str, trace: Path | None = None) -> dict:
    tag = f"profile-{variant}"
    run_cell(page, f"W = show({ranks}, 'points', {tag!r})\n"
                   + VARIANT_CODE[variant].format(w="W") + "\nW")
    if variant == "svg":
        wait_for_dots(page, tag, min(ranks * 8, 5000))
        wait_until_still(page, f".{tag} .roofline-figure .dot")
    else:
        page.wait_for_timeout(4000)
    slider = f"{tag} .roofline-peak-bandwidth"
    before = line_paths(page)
    dx = DRAG_DECADES * slider_px_per_decade(page, slider)
    page.evaluate(COUNT_MUTATIONS, tag)
    draws_before = page.evaluate("() => window.glDraws.length")
    start_metrics = metrics(cdp)
    if trace is not None:
        start_trace(cdp)
    start = page.evaluate(WATCH_LINES, tag)
    pressed = time.perf_counter()
    drag_slider(page, slider, dx)
    released = time.perf_counter() - pressed
    wait_for_new_paths(page, before, timeout_s=TIMEOUT_MS / 1000)
    page.wait_for_function("quiet => performance.now() - window.benchLastLineChange > quiet",
                           arg=SETTLE_MS, timeout=TIMEOUT_MS)
    settled = (page.evaluate("() => window.benchLastLineChange") - start) / 1000
    if trace is not None:
        end_trace(page, cdp, trace)
    end_metrics = metrics(cdp)
    counts = page.evaluate("() => window.profileCounts")
    draws = page.evaluate("() => window.glDraws.length") - draws_before
    page.evaluate("() => { window.profileObserver.disconnect(); "
                  "window.benchLineObserver.disconnect(); }")
    delta = {name: end_metrics[name] - start_metrics[name] for name in METRICS}
    return {"released": released, "settled": settled, "counts": counts, "gl_draws": draws,
            **delta}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--trace", type=Path, help="write Chromium traces <trace>-<variant>.json")
    parser.add_argument("--variants", nargs="+", default=list(VARIANT_CODE))
    args = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    results = {}
    with ranks_notebook([args.ranks], "profile-peak-drag-") as (context, page, _state):
        run_cell(page, f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r})")
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        for variant in args.variants:
            trace = None if args.trace is None else Path(f"{args.trace}-{variant}.json")
            results[variant] = profile(page, cdp, args.ranks, variant, trace)
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")
    rows = []
    for variant, r in results.items():
        other = r["TaskDuration"] - r["ScriptDuration"] - r["LayoutDuration"] - r["RecalcStyleDuration"]
        c = r["counts"]
        rows.append([variant, ms(r["released"]), ms(r["settled"]), ms(r["TaskDuration"]),
                     ms(r["ScriptDuration"]), ms(r["LayoutDuration"]),
                     ms(r["RecalcStyleDuration"]), ms(other),
                     f"{int(r['LayoutCount'])}/{int(r['RecalcStyleCount'])}",
                     f"{c['dot']}/{c['line']}/{c['label']}/{c['other']}", r["gl_draws"]])
    print_table(f"One peak-bandwidth drag ({DRAG_DECADES} decade, 12 mouse moves), "
                f"{args.ranks:,} ranks x 8 regions, rank_view='points'",
                ["points", "released", "roof settled", "renderer busy", "script", "layout",
                 "style", "paint, raster, other", "layouts/styles", "mutations dot/line/label/other",
                 "GL draws"], rows)
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
