"""A theoretical roof and a flagged point in JupyterLab (Chromium): sample 23 on its Ice Lake hosts.

Sample 23 (SOMA, 216 ranks on 3 hosts of a Xeon Platinum 8360Y cluster; likwid-mpirun prints no
CPU header, so the CPU is given as the cluster's documentation names it).  The theoretical roofs
of one host's 72 cores at the 2.4 GHz base clock (``tests/test_theoretical.py`` works them out):
DP scalar 2 x 2.4 x 72 = 345.6, AVX-512 16 x 2.4 x 72 = 2,764.8 and AVX-512 FMA 32 x 2.4 x 72 =
5,529.6 GFLOP/s.  Host f0702 sums rank 61's wrapped counter: 1,235 GFLOP/s, inside the axes (they
reach the theoretical roof) and named in the status line; the empirical bandwidth is the largest
plausible host's; f0702 is drawn hollow.  The screenshot is ``docs/screenshot-theoretical-flagged.png``.
A click on f0702's transparent marker selects it: its outline turns black, its marker stays
transparent, the two other hosts fade to the unselected opacity (0.45).
"""

from __future__ import annotations

import pytest
from wild_samples import WRAPPED_RANK

from roofline_widget.widget.hollow_points import UNSELECTED_OPACITY

from .ui import RENDER_TIMEOUT_MS, box_centre, open_widget_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "machine_browser.ipynb"
FIGURE = ".roofline-figure"
DOTS = f"{FIGURE} .dot"
#: Each dot's computed fill, stroke and opacity.
LOOKS = ("els => els.map(e => { const s = getComputedStyle(e); "
         "return [s.fill, s.stroke, parseFloat(s.opacity)]; })")
CODE = f"""from roofline_widget import RooflineWidget, theoretical_roofline
run = {str(WRAPPED_RANK)!r}
roofs = theoretical_roofline(run, cpu_type="Intel Icelake SP processor",
                             cpu_name="Intel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz", cores=72)
w = RooflineWidget(run, ceilings=list(roofs))
w"""


@pytest.fixture
def sample23_page(lab, page, browser_tmp):
    open_widget_notebook(lab, page, browser_tmp, NOTEBOOK, CODE, DOTS)
    return page


def test_theoretical_roof_and_the_flagged_host(sample23_page, artifacts_dir):
    page = sample23_page
    status = " ".join(page.locator(".roofline-status").inner_text().split())
    assert "Theoretical DP AVX-512 FMA 5,530 GFLOP/s" in status or \
        "Theoretical DP AVX-512 FMA 5530 GFLOP/s" in status
    assert ("f0702 (ranks 0-71) reports 1,235 GFLOP/s on 72 hardware threads, one "
            "hardware thread of them 1,170 GFLOP/s (at most 459.7 GFLOP/s a hardware thread), "
            "beyond what one core can do") in status
    assert "turbo can exceed it" in status
    # the three hosts inside the axes, and f0702's outline: the flagged host is hollow (its own
    # marker transparent, still hovered; the outline in its colour under it)
    assert page.locator(DOTS).count() == 4
    looks = page.locator(DOTS).evaluate_all(
        "els => els.map(e => [getComputedStyle(e).fill, getComputedStyle(e).opacity])")
    assert sum(fill == "none" for fill, _opacity in looks) == 1
    assert sum(float(opacity) == 0.0 for _fill, opacity in looks) == 1
    labels = " ".join(page.locator(f"{FIGURE} text").evaluate_all(
        "els => els.map(e => e.textContent || '')"))
    assert "Theoretical DP AVX-512 FMA" in labels
    page.locator(".roofline-widget").screenshot(
        path=str(artifacts_dir / "screenshot-theoretical-flagged.png"))
    _click_the_flagged_host(page, artifacts_dir)


def _click_the_flagged_host(page, artifacts_dir) -> None:
    """Select f0702 by a click on its transparent marker: black outline, the others faded."""
    looks = page.locator(DOTS).evaluate_all(LOOKS)
    flagged = next(i for i, (fill, _s, opacity) in enumerate(looks)
                   if opacity == 0.0 and fill != "none")
    page.mouse.click(*box_centre(page.locator(DOTS).nth(flagged)))
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{DOTS}')].some(e => "
        "getComputedStyle(e).fill === 'none' && getComputedStyle(e).stroke === 'rgb(0, 0, 0)')",
        timeout=RENDER_TIMEOUT_MS)
    looks = page.locator(DOTS).evaluate_all(LOOKS)
    outline = [look for look in looks if look[0] == "none"]
    markers = sorted(opacity for fill, _stroke, opacity in looks if fill != "none")
    assert outline == [["none", "rgb(0, 0, 0)", 1.0]]
    assert markers == pytest.approx([0.0, UNSELECTED_OPACITY, UNSELECTED_OPACITY])
    page.mouse.move(5, 5)  # the tooltip away
    page.wait_for_timeout(300)
    page.locator(FIGURE).screenshot(path=str(artifacts_dir / "flagged-host-selected.png"))
