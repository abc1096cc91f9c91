"""The widget's legend: its title names what the points are, long names end in an ellipsis.

Sample 23 (``SOMA_216``, 216 ranks on the hosts f0702, f0703, f0704, one region
"(whole run)", memory counted on one rank per socket) draws one point per host by
default: the legend is titled "Hosts" (not "Regions") with the entries f0702,
f0703, f0704, in the widget and in ``plot_roofline(backend="bqplot")``'s legend.
Coloured by rank the same points are titled "Ranks".

Sample ``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt`` (five regions
named ``<function_a>`` ... on one thread) as a points table whose region names
are made long, as users' code makes them: each legend entry keeps the full
name, escaped, in its ``title`` and draws it in a box that ends in an ellipsis.
"""

from __future__ import annotations

import html
import re
import warnings

import pandas as pd
import pytest
from wild_samples import SOMA_216

from roofline_widget import RooflineWidget, plot_roofline, points_dataframe, sample_path
from roofline_widget.look.point_names import NAME_SEPARATOR, names_kind
from roofline_widget.widget.html.legends import LEGEND_NAME_WIDTH, legend_html, legend_title

HOSTS = ["f0702", "f0703", "f0704"]
FIVE_REGIONS = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _title(legend: str) -> str:
    return html.unescape(re.search(r"<b>(.*?)</b>", legend)[1])


def _entries(legend: str) -> list[str]:
    """The full names of the legend's entries (their ``title`` attributes), unescaped."""
    return [html.unescape(t) for t in
            re.findall(r"class='roofline-legend-entry' title='([^']*)'", legend)]


def test_the_hosts_of_sample_23_are_titled_hosts_in_the_widget_and_the_static_legend():
    w = RooflineWidget(SOMA_216)
    legend = w.controls.legend_html.value
    assert _title(legend) == "Hosts"
    assert _entries(legend) == HOSTS
    static = plot_roofline(SOMA_216, backend="bqplot", verbose=False)["legend"].value
    assert _title(static) == "Hosts"
    assert _entries(static) == HOSTS
    w.color_by = "rank"  # the same points, coloured by rank (each host's lowest rank)
    assert _title(w.controls.legend_html.value) == "Ranks"
    assert _entries(w.controls.legend_html.value) == [
        "f0702 (ranks 0-71)", "f0703 (ranks 72-143)", "f0704 (ranks 144-215)"]
    w.color_by = "region"
    w.group_ranks = "rank"  # one point per rank: each named by its region again
    assert _title(w.controls.legend_html.value) == "Regions"
    assert _entries(w.controls.legend_html.value) == ["(whole run)"]


def test_regions_stay_regions_and_sockets_are_sockets():
    regions = RooflineWidget(FIVE_REGIONS)
    assert _title(regions.controls.legend_html.value) == "Regions"
    sockets = pd.DataFrame({"file": ["a"] * 4, "region": ["Solve", "Solve", "Setup", "Setup"],
                            "rank_group": ["f1 socket 0 (ranks 0-23)", "f1 socket 1 (ranks 24-47)"] * 2})
    assert names_kind(sockets) == f"region{NAME_SEPARATOR}socket"
    assert legend_title("region", sockets) == f"Regions{NAME_SEPARATOR}sockets"
    assert legend_title("region", sockets[sockets["region"] == "Solve"]) == "Sockets"
    assert legend_title("device", sockets) == "Devices"
    assert legend_title("run") == "Runs"


def test_long_region_names_end_in_an_ellipsis_with_the_full_name_as_title():
    table = points_dataframe(FIVE_REGIONS)
    long_name = "solver::<Stencil<double, 27>>::apply & 'smooth' " + "x" * 200
    table["region"] = table["region"].astype(str).replace("<function_a>", long_name)
    w = RooflineWidget(table)
    legend = w.controls.legend_html.value
    assert long_name in _entries(legend)
    assert "<Stencil" not in legend  # escaped, quotes too
    assert "'smooth'" not in legend
    entry = re.search(r"<span class='roofline-legend-entry'[^>]*title='solver[^']*'.*?</span></span>",
                      legend)[0]
    name_box = re.search(r"<span style='([^']*)'>solver", entry)[1]
    assert "text-overflow:ellipsis" in name_box
    assert "overflow:hidden" in name_box
    assert f"max-width:{LEGEND_NAME_WIDTH}" in name_box
    assert html.escape(long_name) in entry  # the whole name is there; the browser cuts it


def test_legend_html_of_given_names_keeps_its_title():
    legend = legend_html(["a", "b"], ["#111111", "#222222"], "region")
    assert _title(legend) == "Regions"
    assert _entries(legend) == ["a", "b"]


def test_a_points_table_with_sums_of_every_rank_is_coloured_by_rank():
    # rank -1 in a points table is a sum of every rank, the widget's own "all ranks" value:
    # colouring by rank gave it two categories (and pandas refused the index); it is one,
    # last, so ranks 0 and 1 keep the first two colours of the palette
    table = pd.DataFrame({"region": ["solve", "solve", "solve"], "rank": [0, 1, -1],
                          "performance_gflops": [2.0, 3.0, 5.0],
                          "arithmetic_intensity_flops_per_byte": [0.5, 1.0, 0.75]})
    w = RooflineWidget(table, group_ranks="rank")
    w.color_by = "rank"
    shown = w.to_dataframe()["rank"].tolist()
    assert sorted(shown) == [-1, 0, 1]
    codes = dict(zip(shown, w.figure.scatter.color.tolist(), strict=True))
    assert codes == {0: 0.0, 1: 1.0, -1: 2.0}
    assert _title(w.controls.legend_html.value) == "Ranks"


def test_the_ranks_of_sample_23_drawn_one_by_one_have_six_different_colours():
    # Sample 23's "Memory bandwidth [MBytes/s]" row is 0 on every rank but 0, 36, 72, 108,
    # 144 and 180 (24336.2989, 23046.8986, 23864.1357, 23093.7938, 23471.6888, 23016.9690:
    # one rank per socket counts the memory), so per rank only these six have a point.
    # Their colour codes were their positions among all 216 ranks, repeating every 20
    # colours: 0, 16, 12, 8, 4 and 0 again (rank 180 = 9 * 20 drew in rank 0's blue). The
    # ranks that can have a point come first now: codes 0-5, six colours.
    w = RooflineWidget(SOMA_216, group_ranks="rank")
    w.color_by = "rank"
    shown = w.to_dataframe()["rank"].tolist()
    assert sorted(shown) == [0, 36, 72, 108, 144, 180]
    codes = dict(zip(shown, w.figure.scatter.color.tolist(), strict=True))
    assert codes == {0: 0.0, 36: 1.0, 72: 2.0, 108: 3.0, 144: 4.0, 180: 5.0}
    colours = re.findall(r"background:\s*(#[0-9a-fA-F]{6})", w.controls.legend_html.value)
    assert len(set(colours)) == 6, w.controls.legend_html.value
    w.ranks = "0-100"  # a narrower selection keeps each rank's colour
    codes = dict(zip(w.to_dataframe()["rank"].tolist(), w.figure.scatter.color.tolist(), strict=True))
    assert codes == {0: 0.0, 36: 1.0, 72: 2.0}
