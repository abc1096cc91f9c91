"""roofline-widget against its peers at 50,000 points, in one JupyterLab and one headless Chromium.

Usage::

    python benchmarks/bench_browser_peers.py                 # 50,000 points, 4 widgets, 3 runs
    python benchmarks/bench_browser_peers.py --quick         # 5,000 points, 1 run
    python benchmarks/bench_browser_peers.py --peers plotly jupyter-scatter --runs 5
    python benchmarks/bench_browser_peers.py --screenshots /tmp/peers   # a PNG per draw and filter

The widgets (``benchmarks/peer_widgets.py`` builds them, kernel side): today's
``RooflineWidget`` (the points as a points table: ``--points`` points in
``--points / 8`` ranks x 8 regions), bqplot-gl's ``ScatterGL`` alone in a
bqplot Figure, plotly's ``FigureWidget`` of one ``Scattergl`` trace and
jupyter-scatter's ``Scatter``, every one on the same log-uniform points and
log axes.  The peers come with the ``bench`` extra
(``pip install -e .[bench]``).

JupyterLab runs on 127.0.0.1 with every Jupyter state directory in a
throw-away folder; Chromium is headless (``/usr/lib/chromium/chromium``, a
fresh profile), WebGL drawn in software.  The notebook has three cells:
setup (the points), display, command.  Per widget and run:

* **build**: the kernel's time to construct the widget (``time.perf_counter``
  around the constructor, in the kernel);
* **cell -> visible**: from Ctrl+Enter on ``P.show(peer, tag)`` in the display
  cell to the points of the picture the widget settles on rasterised: a page
  init script logs every WebGL draw of points (``gl.POINTS`` draws and
  instanced draws, WebGL 1 and 2, with their counts) and, in a task right
  after, calls ``gl.finish()`` on the contexts that drew (a WebGL draw call
  returns at once; the GPU process, here SwiftShader on the CPU, draws later:
  ``finish`` returns when it has).  The draws are grouped into frames (gaps
  above ``FRAME_GAP_MS``); once no frame changed the drawn count for
  ``SETTLE_MS``, the time is that of the ``finish`` after the first frame of
  that last count (so a widget that draws twice, or a subset first, is timed
  to its final picture).  The time to that frame's draw call is printed too;
* **filter -> visible**: the same from Ctrl+Enter on ``P.filter_half()`` in the
  command cell (each widget's own way of keeping regions 0-3, half the points:
  roofline-widget's ``include`` trait, new arrays for bqplot-gl and plotly,
  ``Scatter.filter`` for jupyter-scatter);
* **messages / bytes**: the comm messages the kernel sent from the build to the
  filter (the first draw), counted by wrapping the kernel session's ``send``:
  the JSON content as the session packs it plus the binary buffers.

Runs are interleaved (run 1 of every widget, then run 2, ...) after one
untimed warm-up per widget (imports, the JavaScript of each library).  Prints
the medians, the points drawn in the final frames (a widget that draws fewer
than the points, such as one thinning them out, shows it here), the load
average before and after, and the ratios of roofline-widget to the fastest
peer.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, command_line, median, ms, print_table
from bench_browser_ranks import TIMEOUT_MS, launch_browser, page_now, start_lab

sys.path.insert(0, str(ROOT / "tests"))
from browser.ui import open_in_lab, read_json_when, run_all_cells

PEERS = ("roofline-widget", "bqplot-gl", "plotly", "jupyter-scatter")
REGIONS = 8
#: Draws further apart than this are different frames.
FRAME_GAP_MS = 8.0
#: The picture is settled once no frame changed the drawn count for this long.
SETTLE_MS = 2000
#: Logs every WebGL draw of points as ``window.benchDraws``: ``{t: page time, n: points}``.
#: ``gl.POINTS`` draws count their vertices, instanced draws (three.js markers) their instances.
POINT_DRAWS = """(() => {
    window.benchDraws = [];
    let waiting = [];
    const contexts = new Set();
    const finishWaiting = () => {
        for (const gl of contexts) gl.finish();
        const done = performance.now();
        for (const entry of waiting) entry.done = done;
        waiting = [];
        contexts.clear();
    };
    const log = (gl, n) => {
        const entry = {t: performance.now(), n, done: null};
        window.benchDraws.push(entry);
        if (window.benchDraws.length > 40000) window.benchDraws.splice(0, 20000);
        if (!waiting.length) setTimeout(finishWaiting, 0);
        waiting.push(entry);
        contexts.add(gl);
    };
    const POINTS = 0;
    const wrapInstanced = (target, name, gl) => {
        const draw = target[name];
        if (!draw) return;
        target[name] = function (...args) {
            log(gl || this, args[args.length - 1]);
            return draw.apply(this, args);
        };
    };
    for (const Context of [window.WebGLRenderingContext, window.WebGL2RenderingContext]) {
        if (!Context) continue;
        const proto = Context.prototype;
        for (const name of ['drawArrays', 'drawElements']) {
            const draw = proto[name];
            proto[name] = function (mode, ...args) {
                if (mode === POINTS) log(this, name === 'drawArrays' ? args[1] : args[0]);
                return draw.call(this, mode, ...args);
            };
        }
        wrapInstanced(proto, 'drawArraysInstanced', null);
        wrapInstanced(proto, 'drawElementsInstanced', null);
        const getExtension = proto.getExtension;
        proto.getExtension = function (name) {
            const ext = getExtension.call(this, name);
            if (ext && name === 'ANGLE_instanced_arrays' && !ext.benchLogged) {
                wrapInstanced(ext, 'drawArraysInstancedANGLE', this);
                wrapInstanced(ext, 'drawElementsInstancedANGLE', this);
                ext.benchLogged = true;
            }
            return ext;
        };
    }
})();"""
SETUP = """\
import sys, warnings
sys.path[:0] = [{root!r}, {benchmarks!r}]
warnings.simplefilter("ignore")
from peer_widgets import Peers
P = Peers({points}, {regions}, {state!r})
print("bench-setup-done")
"""


@contextmanager
def peers_notebook(points: int):
    """JupyterLab and Chromium with the setup cell run; yields (page, state file)."""
    import nbformat
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-browser-peers-") as tmp:
        work = Path(tmp)
        (work / "notebooks").mkdir()
        state = work / "peers.json"
        setup = SETUP.format(root=str(ROOT), benchmarks=str(ROOT / "benchmarks"), points=points,
                             regions=REGIONS, state=str(state))
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)
                                                   for code in (setup, "None", "None")])
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                           "language": "python"}
        nbformat.write(notebook, work / "notebooks" / "peers.ipynb")
        server = start_lab(work)
        try:
            with sync_playwright() as playwright:
                context = launch_browser(playwright, work)
                context.add_init_script(POINT_DRAWS)
                try:
                    page = context.new_page()
                    open_in_lab(page, server, "peers.ipynb")
                    run_all_cells(page)
                    page.wait_for_selector("text=bench-setup-done", timeout=TIMEOUT_MS)
                    yield page, state
                finally:
                    context.close()
        finally:
            server.stop()


def run_cell(page, index: int, code: str) -> float:
    """Replace cell ``index``'s code and press Ctrl+Enter; return the page time of the press."""
    editor = page.locator(".jp-CodeCell").nth(index).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)
    since = page_now(page)
    page.keyboard.press("Control+Enter")
    return since


def frames(draws: list[dict]) -> list[tuple[float, float | None, int]]:
    """Per frame (draws closer than FRAME_GAP_MS): its first draw's page time, the time its
    last ``gl.finish()`` returned (None: not yet), and the points it drew."""
    out: list[list] = []
    last = None
    for draw in draws:
        if last is None or draw["t"] - last > FRAME_GAP_MS:
            out.append([draw["t"], draw["done"], 0])
        frame = out[-1]
        frame[1] = None if frame[1] is None or draw["done"] is None else max(frame[1], draw["done"])
        frame[2] += int(draw["n"])
        last = draw["t"]
    return [(t, done, n) for t, done, n in out]


def settled_picture(page, since: float) -> dict:
    """The first frame of the final count after ``since`` (page time): seconds to it, and the count.

    Waits until a frame was drawn after ``since`` and no frame changed the
    drawn count for ``SETTLE_MS``.  ``call``: seconds from ``since`` to that
    frame's first draw call; ``rendered``: to its ``gl.finish()`` (the points
    rasterised; WebGL draw calls return before the GPU process, here
    SwiftShader on the CPU, has drawn them).
    """
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        page.wait_for_timeout(250)
        draws = page.evaluate("since => window.benchDraws.filter(d => d.t > since)", since)
        shown = frames(draws)
        if not shown:
            continue
        final = shown[-1][2]
        first = shown[-1]
        for frame in reversed(shown):
            if frame[2] != final:
                break
            first = frame
        if page_now(page) - first[0] > SETTLE_MS and final > 0 and first[1] is not None:
            return {"call": (first[0] - since) / 1000, "rendered": (first[1] - since) / 1000,
                    "count": final}
    raise TimeoutError(f"no settled WebGL picture within {TIMEOUT_MS / 1000:.0f} s")


def measure(page, state_file: Path, peer: str, tag: str, shots: Path | None) -> dict:
    """Show ``peer``'s widget, filter it; the times, the drawn counts and the kernel's figures."""
    since = run_cell(page, 1, f"P.show({peer!r}, {tag!r})")
    draw = settled_picture(page, since)
    if shots:
        page.locator(f".{tag}").screenshot(path=str(shots / f"{tag}-draw.png"))
    since = run_cell(page, 2, "P.filter_half()")
    filtered = settled_picture(page, since)
    if shots:
        page.locator(f".{tag}").screenshot(path=str(shots / f"{tag}-filter.png"))
    run_cell(page, 2, f"P.report({tag!r})")
    kernel = read_json_when(state_file, lambda s: s["tag"] == tag, timeout_s=TIMEOUT_MS / 1000)
    return {"draw": draw["rendered"], "draw_call": draw["call"], "drawn": draw["count"],
            "filter": filtered["rendered"], "filter_call": filtered["call"],
            "filtered": filtered["count"],
            "build": kernel["build_s"], "filter_kernel": kernel["filter_kernel_s"],
            "messages": kernel["first_draw"]["messages"], "bytes": kernel["first_draw"]["bytes"],
            "binary": kernel["first_draw"]["binary_bytes"]}


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000, help="a multiple of 8")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="5,000 points, 1 run")
    parser.add_argument("--peers", nargs="+", choices=PEERS, default=list(PEERS))
    parser.add_argument("--screenshots", type=Path, help="folder for a PNG of each draw and filter")
    args = parser.parse_args()
    points, runs = (5000, 1) if args.quick else (args.points, args.runs)
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
    results: dict[str, list[dict]] = {peer: [] for peer in args.peers}
    with peers_notebook(points) as (page, state_file):
        for peer in args.peers:  # imports and each library's JavaScript: not timed
            measure(page, state_file, peer, f"bench-warm-up-{peer}", None)
            print(f"warmed up: {peer} (load {load_average()})", flush=True)
        for run in range(runs):
            for peer in args.peers:
                result = measure(page, state_file, peer, f"bench-{peer}-{run}", args.screenshots)
                results[peer].append(result)
                print(f"run {run + 1} {peer}: build {ms(result['build'])}, cell -> visible "
                      f"{ms(result['draw'])}, filter -> visible {ms(result['filter'])} "
                      f"(load {load_average()})", flush=True)
    print(f"load average after (1, 5, 15 min): {load_average()}")
    report(results, points, runs)


def report(results: dict[str, list[dict]], points: int, runs: int) -> None:
    def med(peer: str, key: str) -> float:
        return median([r[key] for r in results[peer]])

    peers = list(results)
    rows = [
        ["build in the kernel", *(ms(med(p, "build")) for p in peers)],
        ["cell run -> points visible", *(ms(med(p, "draw")) for p in peers)],
        ["  (-> the WebGL draw call)", *(ms(med(p, "draw_call")) for p in peers)],
        ["filter half the points -> visible", *(ms(med(p, "filter")) for p in peers)],
        ["  (-> the WebGL draw call)", *(ms(med(p, "filter_call")) for p in peers)],
        ["  of which the kernel's filter call", *(ms(med(p, "filter_kernel")) for p in peers)],
        ["bytes sent for the first draw", *(f"{med(p, 'bytes') / 1e6:.2f} MB" for p in peers)],
        ["  of which binary buffers", *(f"{med(p, 'binary') / 1e6:.2f} MB" for p in peers)],
        ["comm messages for the first draw", *(f"{med(p, 'messages'):,.0f}" for p in peers)],
        ["points in the final frame: draw / filter",
         *(f"{med(p, 'drawn'):,.0f} / {med(p, 'filtered'):,.0f}" for p in peers)],
    ]
    print_table(f"{points:,} points ({points // REGIONS:,} ranks x {REGIONS} regions), medians of "
                f"{runs} run(s), one JupyterLab + headless Chromium (software WebGL)",
                [f"{points:,} points", *peers], rows)
    others = [p for p in peers if p != "roofline-widget"]
    if "roofline-widget" in peers and others:
        rows = []
        for key, label in (("build", "build"), ("draw", "cell -> visible"),
                           ("filter", "filter -> visible")):
            best = min(others, key=lambda p: med(p, key))
            ours = med("roofline-widget", key)
            rows.append([label, ms(ours), f"{best} {ms(med(best, key))}",
                         f"{ours / med(best, key):.1f}x"])
        scatter = "jupyter-scatter"
        if scatter in peers:
            rows.append(["build / jupyter-scatter's", ms(med("roofline-widget", "build")),
                         f"{scatter} {ms(med(scatter, 'build'))}",
                         f"{med('roofline-widget', 'build') / med(scatter, 'build'):.1f}x"])
        print_table("roofline-widget against the fastest peer (issue 33's targets: build <= 3x "
                    "jupyter-scatter's, the others <= 1x the fastest)",
                    ["figure", "roofline-widget", "fastest peer", "ratio"], rows)
    print(f"command: {command_line()}")


if __name__ == "__main__":
    main()
