"""The widget's legend and a highlighted region in JupyterLab, with real data.

- Sample 23 (SOMA on 216 ranks, 72 on each of f0702, f0703, f0704; one region
  "(whole run)", grouped by host): the legend is titled "Hosts" and lists the
  three hosts (``screenshot-legend-hosts.png``).
- Sample ``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt`` as a points table
  whose regions get long names, as users' code makes them (C++ templates with
  ``<``, ``&`` and quotes, 230 characters): every legend entry stays inside the
  widget, a long one cut with an ellipsis, its ``title`` the full name
  (``screenshot-legend-long-names.png``).
- Sample 19 (seven LULESH problem sizes, 22 regions): with
  ``highlight_region = "CalcHourglassControlForElems"`` the last run's 22 filled
  points fade like the paths, 21 of them to 0.15, the region's one kept
  (``screenshot-sweep-highlight.png``).
"""

from __future__ import annotations

import pytest

from .conftest import REPO
from .test_run_chain_lab import LULESH_DOTS, _open

pytestmark = pytest.mark.browser

DOTS = ".roofline-figure .dot"
ENTRIES = ".roofline-widget .roofline-legend-entry"
HEADER = f"""\
import sys, warnings
warnings.simplefilter("ignore")
sys.path[:0] = [{str(REPO)!r}, {str(REPO / 'tests')!r}]
from roofline_widget import RooflineWidget, points_dataframe, sample_path
"""
HOSTS_CODE = HEADER + """\
from wild_samples import SOMA_216
w = RooflineWidget(str(SOMA_216), peak_flops=5529.6, peak_bandwidth=409.6)
w
"""
LONG_NAME = ("solver::Stencil<double, 27>::apply<Smoother & 'red-black'>(Grid<3>&, "
             "const BoundaryConditions&) [with Level = 4; Cycle = V] " + "x" * 110)
LONG_CODE = HEADER + f"""\
table = points_dataframe(sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"))
table["region"] = table["region"].astype(str).replace({{"<function_a>": {LONG_NAME!r},
    "<function_b>": "multigrid::restrict<double>(const Grid&, Grid&)"}})
w = RooflineWidget(table)
w
"""
HIGHLIGHT_CODE = HEADER + """\
from wild_samples import LULESH_SIZES
w = RooflineWidget(str(LULESH_SIZES))
w.highlight_region = "CalcHourglassControlForElems"
w
"""
#: Per legend entry: its title, its right edge, the widget's right edge, whether its name
#: is cut (wider than its box).
ENTRY_BOXES = """els => els.map(e => {
    const name = e.lastElementChild; const box = e.closest('.roofline-widget').getBoundingClientRect();
    return [e.title, e.getBoundingClientRect().right, box.right,
            name.scrollWidth > name.clientWidth]; })"""
#: The filled points' opacities (the rings and the runs' small dots are not filled circles
#: of the points' size: the widget's points are the last ``count`` dots of the figure).
OPACITIES = """els => els.map(e => parseFloat(getComputedStyle(e).opacity))"""


def test_the_legend_of_sample_23_is_titled_hosts(lab, page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1400})
    _open(lab, page, "_legend_hosts.ipynb", HOSTS_CODE, 3 + 1)  # f0702 hollow: its outline too
    legend = page.locator(ENTRIES).first.locator("xpath=..")
    assert legend.locator("b").first.inner_text() == "Hosts"
    assert page.locator(ENTRIES).all_inner_texts() == ["f0702", "f0703", "f0704"]
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-legend-hosts.png"))


def test_long_region_names_stay_inside_the_widget_with_an_ellipsis(lab, page, artifacts_dir):
    page.set_viewport_size({"width": 1000, "height": 1800})
    _open(lab, page, "_legend_long.ipynb", LONG_CODE, 5)
    boxes = page.locator(ENTRIES).evaluate_all(ENTRY_BOXES)
    assert len(boxes) == 5
    for title, right, widget_right, _cut in boxes:
        assert right <= widget_right + 0.5, (title, right, widget_right)
    cut = {title: is_cut for title, _r, _w, is_cut in boxes}
    assert cut[LONG_NAME]  # drawn with an ellipsis, the full name in its title
    assert not cut["multigrid::restrict<double>(const Grid&, Grid&)"]
    assert not cut["<function_c>"]
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-legend-long-names.png"))


def test_a_highlighted_region_fades_the_last_run_s_points(lab, page, artifacts_dir):
    page.set_viewport_size({"width": 1400, "height": 1400})
    _open(lab, page, "_sweep_highlight.ipynb", HIGHLIGHT_CODE, LULESH_DOTS)
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{DOTS}')]"
        ".filter(e => parseFloat(getComputedStyle(e).opacity) < 0.2).length >= 21 * 3",
        timeout=30_000)
    opacities = page.locator(DOTS).evaluate_all(OPACITIES)
    # the runs' dots (149), the rings (22), the last run's points (22): of each,
    # CalcHourglassControlForElems's kept, the other regions' faded
    assert sum(opacity < 0.2 for opacity in opacities) == (149 - 7) + 21 + 21
    widget = page.locator(".roofline-widget").first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts_dir / "screenshot-sweep-highlight.png"))
