"""Widget UX without a browser: peak text boxes and slider ranges, the 'empirical' button,
the compact tooltip, the detail panel and rounded display.

Numbers come from the bundled pmgpu sample (1 thread, 5 regions): its largest
``DP [MFLOP/s]`` is ``<function_a>``'s 2134.1472 (2.1341472 GFLOP/s, the empirical
compute peak), its largest ``Memory bandwidth [MBytes/s]`` is ``<function_d>``'s
28580.958 (28.580958 GB/s).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from traitlets import TraitError

from roofline_widget import read_likwid, sample_path
from roofline_widget.widget import RooflineWidget
from roofline_widget.widget.html import display_value
from roofline_widget.widget.peak_controls import PEAK_RANGE_ABOVE, PEAK_RANGE_BELOW, peak_range

PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
EMPIRICAL_FLOPS = 2.1341472
EMPIRICAL_BANDWIDTH = 28.580958


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory):
    """A copy of the pmgpu sample whose ``<function_a>`` is renamed ``<b>evil</b>``."""
    text = Path(sample_path(PMGPU)).read_text()
    assert text.count("Region <function_a>,") == 2  # the MEM_DP and the FLOPS_DP block
    path = tmp_path_factory.mktemp("evil") / PMGPU
    path.write_text(text.replace("<function_a>", "<b>evil</b>"))
    return read_likwid(path)


def key(frame, region):
    row = frame[frame["region"] == region].iloc[0]
    return (row["file"], int(row["rank"]), row["region"])


# --------------------------------------------------------------------------
# peak sliders and text boxes
# --------------------------------------------------------------------------
def test_slider_ranges_follow_the_data_and_the_given_peak(pmgpu):
    w = RooflineWidget(pmgpu)
    flops, bandwidth = w.controls.flops_slider, w.controls.bandwidth_slider
    # 0.5 * 2.1341472 = 1.067 (10**0.028, rounded down to 10**0.0); 100 * 2.134 = 213.4
    # (10**2.329, rounded up to 10**2.4).
    assert (flops.min, flops.max) == pytest.approx((0.0, 2.4))
    # 0.5 * 28.58 = 14.29 (10**1.155 -> 1.1); 2858 (10**3.456 -> 3.5).
    assert (bandwidth.min, bandwidth.max) == pytest.approx((1.1, 3.5))
    assert 10 ** flops.min <= PEAK_RANGE_BELOW * EMPIRICAL_FLOPS
    assert 10 ** flops.max >= PEAK_RANGE_ABOVE * EMPIRICAL_FLOPS
    # A spec-sheet peak of 2048 GFLOP/s: up to 2 * 2048 = 4096 (10**3.61 -> 3.7), more
    # than 100x the observation; still from half the largest observation.
    w = RooflineWidget(pmgpu, peak_flops=2048.0)
    assert (w.controls.flops_slider.min, w.controls.flops_slider.max) == pytest.approx((0.0, 3.7))
    assert w.controls.flops_slider.value == pytest.approx(2048.0)
    assert w.controls.flops_text.value == 2048.0


def test_peak_range_rounds_outwards_to_tenths():
    assert peak_range(2.0) == pytest.approx((0.0, 2.4))      # 1 .. 200
    # 0.5 * 0.05 = 0.025 (10**-1.60 -> -1.7); max(100 * 0.05, 2 * 400) = 800 (10**2.90 -> 3.0)
    assert peak_range(0.05, None, 400.0) == pytest.approx((-1.7, 3.0))
    assert peak_range(None, 10.0) == pytest.approx((0.6, 3.0))  # 5 .. 1000
    assert peak_range(None) == (-2.0, 4.0)


def test_typing_a_value_sets_the_trait_exactly(pmgpu):
    w = RooflineWidget(pmgpu)
    w.controls.flops_text.value = 1433.6  # a spec-sheet number, inside the slider's range
    assert w.peak_flops == 1433.6  # exact, not snapped to the slider's step grid
    assert w.roofline.peak_flops == 1433.6
    assert not w.roofline.empirical_flops
    assert w.controls.flops_slider.value == pytest.approx(1433.6, rel=1e-3)
    assert w.controls.flops_empirical.value is False
    assert "Peak 1434 GFLOP/s" in w.figure.ceilings.labels
    # The trait set from Python shows in the text box.
    w.peak_bandwidth = 204.8
    assert w.controls.bandwidth_text.value == 204.8


def test_typed_value_outside_the_slider_range_extends_it(pmgpu):
    w = RooflineWidget(pmgpu)
    slider = w.controls.bandwidth_slider
    assert slider.max == pytest.approx(3.5)
    w.controls.bandwidth_text.value = 1.0e5  # 10**5 GB/s, beyond 10**3.5
    assert w.peak_bandwidth == 1.0e5
    assert slider.max >= 5
    assert slider.value == pytest.approx(1.0e5, rel=1e-3)
    w.controls.bandwidth_text.value = 0.002  # below 10**1.1
    assert w.peak_bandwidth == 0.002
    assert slider.min <= math.log10(0.002)
    assert slider.value == pytest.approx(0.002, rel=1e-3)


def test_an_invalid_typed_value_is_refused_and_the_box_shows_the_peak_again(pmgpu):
    w = RooflineWidget(pmgpu, peak_flops=100.0)
    with pytest.raises(TraitError, match=r"^peak_flops must be positive \(GFLOP/s\), got -5$"):
        w.controls.flops_text.value = -5.0
    assert w.peak_flops == 100.0
    assert w.controls.flops_text.value == 100.0


def test_empirical_button_resets_the_peak_to_none(pmgpu):
    w = RooflineWidget(pmgpu, peak_flops=2048.0)
    button = w.controls.flops_empirical
    assert button.description == "empirical"
    assert button.value is False
    button.value = True  # pressed
    assert w.peak_flops is None
    assert w.roofline.empirical_flops
    assert w.roofline.peak_flops == pytest.approx(EMPIRICAL_FLOPS)
    assert w.controls.flops_text.value == pytest.approx(EMPIRICAL_FLOPS)
    status = w.controls.status_html.value
    assert f"Empirical peak {EMPIRICAL_FLOPS:.4g} GFLOP/s" in status
    assert "empirical ceilings are the largest observation" in status
    # Typing a value leaves the empirical state.
    w.controls.flops_text.value = 50.0
    assert w.peak_flops == 50.0
    assert button.value is False


# --------------------------------------------------------------------------
# tooltip, detail panel, rounded display
# --------------------------------------------------------------------------
def test_tooltip_is_compact(pmgpu):
    w = RooflineWidget(pmgpu)
    index = list(w.figure.scene.points.rows["region"]).index("<function_a>")
    w.figure.scatter._handle_custom_msgs(w.figure.scatter,
                                         {"event": "hover", "data": {"index": index}})
    tooltip = w.figure.tooltip.value
    assert re.findall(r"<th[^>]*>([^<]*)</th>", tooltip) == [
        "region", "rank", "GFLOP/s", "FLOP/byte", "bound"]
    # 2134.1472 MFLOP/s; 2134.1472 / 8554.1612 = 0.2494864 FLOP/byte, above the
    # empirical ridge 2.134 / 28.58 = 0.0747.
    assert ">2.134<" in tooltip
    assert ">0.2495<" in tooltip
    assert ">compute<" in tooltip
    assert "&lt;function_a&gt;" in tooltip
    assert "GB/s" not in tooltip


def test_detail_panel_shows_the_clicked_points_record_escaped_and_rounded(evil_run):
    w = RooflineWidget(evil_run)
    panel = w.controls.detail_html
    assert panel in w.children
    assert "Click a point" in panel.value
    # A click in the browser: bqplot sets the Scatter's ``selected`` to the dot's index.
    index = list(w.figure.scene.points.rows["region"]).index("<b>evil</b>")
    w.figure.scatter.selected = [index]
    assert w.selected == [key(w.to_dataframe(), "<b>evil</b>")]
    detail = panel.value
    assert "&lt;b&gt;evil&lt;/b&gt;" in detail
    assert "<b>evil</b>" not in detail
    # A readable card first, the full record below it (collapsed).
    card, record = detail.split("<details class='roofline-detail-fields'>")
    assert "roofline-card" in card
    assert "performance_gflops" not in card
    # the card: 4 significant digits and units, 2.1341472 GFLOP/s, 8.5541612 GB/s,
    # 0.2494864 FLOP/byte, 1.499428 s
    for shown in ("<b>2.134</b> GFLOP/s", "<b>8.554</b> GB/s", "<b>0.2495</b> FLOP/byte",
                  "<b>1.499</b> runtime [s]"):
        assert shown in card, shown
    # Every field of the record is there, rounded to 3 significant digits; the frame keeps all.
    fields = re.findall(r"<th[^>]*>([^<]*)</th>", record)
    assert fields == list(w.to_dataframe().columns)
    for shown in (">2.13<", ">8.55<", ">0.249<", ">1.5<"):
        assert shown in record, shown
    assert "2.134" not in record
    assert "8.554" not in record
    frame = w.selection_dataframe()
    assert frame["performance_gflops"].iloc[0] == pytest.approx(2.1341472, rel=1e-12)
    assert frame["bandwidth_gbs"].iloc[0] == pytest.approx(8.5541612, rel=1e-12)


def test_detail_panel_follows_the_peaks_and_the_selection(pmgpu):
    w = RooflineWidget(pmgpu)
    frame = w.to_dataframe()
    w.selected = [key(frame, "<function_a>")]
    # Empirical peaks: <function_a> sits on the compute roof (100 %).
    assert ">100<" in w.controls.detail_html.value
    w.peak_flops = 4.0  # still compute bound (ridge 4 / 28.58 = 0.14 < 0.249): 53.4 %
    assert ">53.4<" in w.controls.detail_html.value
    w.selected = [key(frame, "<function_a>"), key(frame, "<function_d>")]
    panel = w.controls.detail_html.value
    assert "2 points selected" in panel
    assert "roofline-selection" in panel
    # <function_d>: 1.616301 GFLOP/s, 28.580958 GB/s, rounded; key columns first.
    assert ">1.62<" in panel
    assert ">28.6<" in panel
    assert "1.616" not in panel
    header = re.findall(r"<th>([^<]*)</th>", panel)
    assert header[:3] == ["region", "rank", "GFLOP/s"]
    assert header[-1] == "run"
    assert w.selection_dataframe()["bandwidth_gbs"].max() == pytest.approx(28.5809575, rel=1e-12)
    w.selected = []
    assert "Click a point" in w.controls.detail_html.value


def test_display_value_rounds_floats_only():
    assert display_value(2.1341472) == "2.13"
    assert display_value(6.864286e-09) == "6.86e-09"
    assert display_value(123456.0) == "1.23e+05"
    assert display_value(1234567) == "1,234,567"
    assert display_value(float("nan")) == "n/a"
    assert display_value(None) == "n/a"
    assert display_value(-1, "rank") == "all ranks"
    assert display_value(True) == "True"
    assert display_value("<x>") == "<x>"
