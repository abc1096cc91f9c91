"""The guidance in Chromium: a clicked point's card and the tooltip's last line, ``explain`` in a terminal.

A notebook written at test time shows ``RooflineWidget`` on sample 5 (five single-thread
regions of an EPYC 7702, names with ``<>``) against sample 22's ceilings (an EPYC 7763's
likwid-bench logs: MEM 41.265565 GB/s).  ``<function_d>`` moves 28.5809575 GB/s: memory bound
at 28.5809575 / 41.265565 = 69 % of the MEM roof (``tests/test_guidance.py`` works it out).
Hovering its dot shows the limiting factor as the tooltip's last line; a click fills the
detail panel with the point's card, the region name as text (escaped).  The card's screenshot
is ``docs/screenshot-guidance-card.png``.

``roofline-widget explain`` runs as a user runs it (a subprocess), its output shown as a terminal
shows it (white on black, monospace): ``docs/screenshot-explain-terminal.png``.
"""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from wild_samples import MILAN_LOGS

from roofline_widget import points_dataframe, sample_path

from .quickstart import tooltip_fields
from .ui import RENDER_TIMEOUT_MS, box_centre, open_in_lab, run_all_cells, wait_until_still

pytestmark = pytest.mark.browser

NOTEBOOK = "guidance_browser.ipynb"
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
GIVE_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")
TERMINAL_CSS = ("body{margin:0;background:#1e1e1e} pre{margin:0;padding:12px 16px;color:#e8e8e8;"
                "font:13px/1.35 'DejaVu Sans Mono',monospace;white-space:pre-wrap;width:110ch}"
                " .prompt{color:#8ae234}")
FIGURE = ".roofline-figure"
DOTS = f"{FIGURE} .dot"


@pytest.fixture
def guidance_page(lab, page, browser_tmp):
    quickstart = nbformat.read(browser_tmp / "notebooks" / "quickstart.ipynb", as_version=4)
    nb = nbformat.v4.new_notebook(metadata=quickstart.metadata)
    nb.cells = [nbformat.v4.new_code_cell(
        "import warnings\n"
        "from roofline_widget import RooflineWidget, machine_roofline\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')  # ceilings of another machine: said in the status\n"
        f"    w = RooflineWidget({PMGPU!r}, ceilings=machine_roofline({MILAN_LOGS!r}))\n"
        "w")]
    nbformat.write(nb, browser_tmp / "notebooks" / NOTEBOOK)
    open_in_lab(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.wait_for_selector(DOTS, timeout=RENDER_TIMEOUT_MS)
    page.set_viewport_size({"width": 1200, "height": 1400})
    page.locator(".roofline-widget").scroll_into_view_if_needed()
    wait_until_still(page, DOTS)
    return page


def test_card_and_tooltip_of_a_memory_bound_point(guidance_page, artifacts_dir):
    page = guidance_page
    # the dots are drawn in the points' order
    index = list(points_dataframe(PMGPU)["region"]).index("<function_d>")
    dot = page.locator(DOTS).nth(index)
    page.mouse.move(*box_centre(dot))
    assert tooltip_fields(page)["region"] == "<function_d>"
    last = page.locator(".roofline-tooltip-guidance").first
    assert last.text_content().startswith("MEM access below its roof: memory bound at 69 %")
    dot.click()
    card = page.locator(".roofline-detail .roofline-card")
    card.wait_for(state="visible", timeout=RENDER_TIMEOUT_MS)
    text = " ".join(card.inner_text().split())
    for expected in ("<function_d>", "rank 0 · 1 thread", "1.616 GFLOP/s", "28.58 GB/s",
                     "0.05655 FLOP/byte",
                     "memory bound: 69 % of the MEM (stream_mem_avx_fma, likwid-bench) roof",
                     "Limiting factor MEM access below its roof", "Numbers used", "41.27 GB/s"):
        assert expected in text, expected
    # the record is there, collapsed
    assert not page.locator(".roofline-detail-record").first.is_visible()
    page.mouse.move(0, 0)
    card.screenshot(path=str(artifacts_dir / "screenshot-guidance-card.png"))
    page.locator(".roofline-widget").screenshot(
        path=str(artifacts_dir / "screenshot-guidance-widget.png"))


def _terminal(command: list[str]) -> str:
    """``command``'s prompt line and output, as a terminal shows them (escaped HTML)."""
    done = subprocess.run([sys.executable, "-m", "roofline_widget", *command], capture_output=True,
                          text=True, timeout=300, check=True)
    shown = " ".join(Path(a).name + ("/" if Path(a).is_dir() else "") if a.startswith("/")
                     else repr(a) if "<" in a else a for a in command)
    return (f"<span class='prompt'>$ roofline-widget {html.escape(shown)}</span>\n"
            f"{html.escape(done.stdout)}")


def test_explain_in_a_terminal(page, artifacts_dir):
    milan = str(Path(MILAN_LOGS[0]).parent)  # the folder of sample 22's logs
    blocks = [_terminal(["explain", GIVE_8T]),
              _terminal(["explain", PMGPU, "--ceilings", milan, "--region", "<function_d>"])]
    page.set_content(f"<style>{TERMINAL_CSS}</style><pre>{''.join(blocks)}</pre>")
    text = " ".join(page.locator("pre").inner_text().split())
    assert "99.9 % scalar (2,703 of 2,704 MUOPS/s)" in text
    assert "clock 1,895 MHz against 2,600 nominal" in text
    assert "limiting factor: MEM access below its roof" in text
    page.locator("pre").screenshot(path=str(artifacts_dir / "screenshot-explain-terminal.png"))
