"""The collapsed sections ("Ceilings", "Left out") are made when opened and show the current state.

A section's title counts its rows on every refresh; its table is made from
the refresh's state when the section is open or later opened
(:mod:`roofline_widget.widget.lazy_section`).  Opening it through the public
widgets (``selected_index = 0``, the user's click) must show what the package's
HTML functions make of the widget's current state (what every refresh sent
before the sections were lazy); a filter or a peak change while closed, then
an opening, shows the new state.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_widget_messages import points_table

from roofline_widget import BandwidthRoof, RooflineWidget
from roofline_widget.look.ceiling_lines import ceiling_rows
from roofline_widget.widget import html


@pytest.fixture
def widget():
    # 400 points (50 ranks x 8 regions); rank r's points are rows 8r..8r+7.  No FLOPs at
    # rows 0, 50, 100, ... and no intensity at rows 1, 71, 141, ...: a region's point sums
    # its ranks, so the regions of those rows lose a rank each and are listed as left out:
    # region_001 (rows 1 and 281: ranks 0 and 35), region_003 (row 211: rank 26),
    # region_005 (row 141: rank 17), region_007 (rows 71 and 351: ranks 8 and 43);
    # rows 0, 50, ... have zero GFLOP/s, a point below any roof, plotted.
    table = points_table(400)
    table.loc[table.index % 50 == 0, "performance_gflops"] = 0.0
    table.loc[table.index % 70 == 1, "arithmetic_intensity_flops_per_byte"] = np.nan
    return RooflineWidget(table, ceilings=[BandwidthRoof("L2 <b>", 40.0, "a test")])


def current_left_out(w) -> str:
    return html.left_out_html(w.left_out_dataframe())


def current_ceilings(w) -> str:
    return html.ceilings_table_html(ceiling_rows(w.roofline))


def test_closed_sections_count_their_rows_and_send_no_table(widget):
    controls = widget.controls
    assert controls.left_out.selected_index is None
    assert controls.ceilings_section.selected_index is None
    assert sorted(widget.left_out_dataframe()["region"]) == [
        "region_001", "region_003", "region_005", "region_007"]
    assert controls.left_out.get_title(0) == "Left out (4)"
    # the empirical peak of the points and the L2 roof given (no empirical bandwidth then)
    assert controls.ceilings_section.get_title(0) == "Ceilings (2)"
    assert controls.left_out_html.value == ""
    assert controls.ceilings_html.value == ""


def test_opening_shows_what_the_state_makes(widget):
    controls = widget.controls
    controls.left_out.selected_index = 0
    controls.ceilings_section.selected_index = 0
    left, table = controls.left_out_html.value, controls.ceilings_html.value
    assert left == current_left_out(widget)
    assert table == current_ceilings(widget)
    assert left.count("<td>region_00") == 4
    assert "L2 &lt;b&gt;" in table
    assert "<b>" not in table
    assert table.count("<tr>") == 3  # the header and two ceilings


def test_a_filter_and_a_peak_while_closed_then_opened_show_the_current_state(widget):
    controls = widget.controls
    controls.left_out.selected_index = 0  # seen once, closed again
    before = controls.left_out_html.value
    controls.left_out.selected_index = None
    widget.include = "region_00[0-3]"  # region_005 and region_007 leave the selection
    widget.peak_bandwidth = 12.5
    assert controls.left_out.get_title(0) == "Left out (2)"
    assert controls.left_out_html.value == before  # closed: not made again yet
    assert controls.ceilings_html.value == ""
    controls.left_out.selected_index = 0
    controls.ceilings_section.selected_index = 0
    assert controls.left_out_html.value == current_left_out(widget) != before
    assert controls.left_out_html.value.count("<td>region_00") == 2
    assert controls.ceilings_html.value == current_ceilings(widget)
    assert "12.5" in controls.ceilings_html.value


def test_an_open_section_follows_every_refresh(widget):
    controls = widget.controls
    controls.ceilings_section.selected_index = 0
    controls.left_out.selected_index = 0
    widget.peak_bandwidth = 12.5
    assert controls.ceilings_html.value == current_ceilings(widget)
    assert "12.5" in controls.ceilings_html.value
    widget.exclude = "region_001"
    assert controls.left_out.get_title(0) == "Left out (3)"
    assert controls.left_out_html.value == current_left_out(widget)
    assert "region_001" not in controls.left_out_html.value


def test_saved_page_holds_the_tables_of_closed_sections(widget, tmp_path):
    path = tmp_path / "w.html"
    widget.include = "region_00[0-3]"
    widget.save_html(str(path))
    page = path.read_text()  # the sections' HTML in the page's JSON
    assert "<td>region_001</td>" in page
    assert "<td>region_003</td>" in page
    assert "<td>region_005</td>" not in page  # filtered out: no longer left out
    assert "Left out (2)" in page
    assert "L2 &lt;b&gt;</td>" in page
    assert widget.controls.left_out.selected_index is None  # saving opens nothing
