"""The widget's log-axis tick labels: apart at the plot's known width, in the axes' state.

bqplot picks the ticks in the browser (``look.log_axes.log_ticks`` is its rule); the
widget's axes carry ``tick_labels``, an empty text for every tick whose label would
crowd another.  The checks here read the public state: the ranges of the scales,
the axes' ``tick_labels`` and the saved page's embedded widget state.

Sample N2 (``tests/data/gpt2_ampere_ncu_old_header_thousands.csv``, GPT-2 attention on
an Ampere GPU, no machine ceilings): the axes run from 0.0832 to 26132 FLOP/byte
(5.5 decades) and from 0.994 to 13521 GFLOP/s (4.13 decades).  The plot's smallest
area is 360 x 426 px (``MIN_PLOT_PX``, ``PLOT_HEIGHT_PX``: the figure's ``min_width``
446 px and height 500 px less its margins, 70 + 16 and 24 + 50), of which bqplot keeps
2.5 % free at each end of y (its ``padding_y``, 10.65 px) and sqrt(64) / 2 + 1.74 = 5.74 px
at each end of both for the points (``mark_padding``).  The figure is ``width: 100%``:
the browser may draw it wider, but never tells the kernel, so the labels are spaced
for the 360 px; a width the layout fixes in px (a user's) is known, and used.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from roofline_widget import RooflineWidget, read_ncu
from roofline_widget.look.log_axes import log_ticks, spaced_labels, tick_text
from roofline_widget.widget.axes import js_number_text, tick_lengths

DATA = Path(__file__).parent / "data"
N2 = DATA / "gpt2_ampere_ncu_old_header_thousands.csv"
#: Width (px) of a 12 px sans-serif character, a little above DejaVu Sans' (digits 0.64 em,
#: "." 0.4 em; "e" and "+" at most 0.9 em): independent of the package's estimate.
CHAR_PX = {**dict.fromkeys("0123456789", 0.64 * 12), ".": 0.4 * 12}
#: The least gap between two labels (px) this test accepts.
GAP_PX = 4.0


def _width(text: str) -> float:
    return sum(CHAR_PX.get(char, 0.9 * 12) for char in text)


def shown_labels(axis, scale) -> list[str]:
    """The texts of the ticks bqplot shows on ``axis`` (its own rule) that keep their label."""
    return [tick_text(value, axis.tick_format) for value in log_ticks(scale.min, scale.max)
            if js_number_text(value) not in axis.tick_labels]


def assert_apart(axis, scale, length_px: float, vertical: bool) -> list[str]:
    """Assert no two labels shown on ``axis`` come closer than ``GAP_PX`` on ``length_px``; the texts."""
    ticks = [value for value in log_ticks(scale.min, scale.max)
             if js_number_text(value) not in axis.tick_labels]
    px_per_decade = length_px / math.log10(scale.max / scale.min)
    texts = {value: tick_text(value, axis.tick_format) for value in ticks}
    for low, high in itertools.pairwise(ticks):
        distance = math.log10(high / low) * px_per_decade
        extents = (14.0, 14.0) if vertical else (_width(texts[low]), _width(texts[high]))
        assert distance >= sum(extents) / 2 + GAP_PX, (texts[low], texts[high], distance)
    return list(texts.values())


@pytest.fixture
def n2_widget():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample's kernels without FLOPs are listed, not drawn
        return RooflineWidget(read_ncu(str(N2)))


#: The axes' smallest lengths: 360 - 2 x 5.74 = 348.5 px across, 426 x 0.95 - 2 x 5.74 = 393.2 px up.
LENGTHS = (360 - 2 * 5.743, 426 * 0.95 - 2 * 5.743)


def test_javascript_writes_tick_values_as_this():
    # String(v) in a browser for each (ECMAScript Number::toString): positional from 1e-6
    # to below 1e21, shortest digits that read back, "e-7" / "e+21" beyond
    assert [js_number_text(v) for v in (1.0, 20000.0, 0.5, 0.002, 3 * 1e-1, 7 * 1e-3)] == [
        "1", "20000", "0.5", "0.002", "0.30000000000000004", "0.007"]
    assert [js_number_text(v) for v in (1e-5, 2e-6, 1e-7, 5e-9, 1e15, 2e16, 1e20, 1e21, 3e22)] == [
        "0.00001", "0.000002", "1e-7", "5e-9", "1000000000000000", "20000000000000000",
        "100000000000000000000", "1e+21", "3e+22"]


def test_the_axes_of_sample_n2_show_labels_apart(n2_widget):
    f = n2_widget.figure
    assert (f.x_scale.min, f.x_scale.max) == pytest.approx((0.08323, 26132.0), rel=1e-4)
    width, height = LENGTHS
    # x: 348.5 px / 5.497 decades = 63.4 px a decade.  bqplot shows 1, 2 and 5 x 10^k from 0.1
    # to 20000 (17 ticks); at 630 px (114.6 px a decade) "10000" and "20000" were 34.5 px
    # apart, each 5 digits wide (about 35 px in Chromium): they touched.  Now:
    # 1 -> 2 is 19.1 px, "1" and "2" 7.7 px each: 7.7 + 8 = 15.7 needed, "2" fits;
    # 5 -> 10 is 19.1 px, 19.5 needed ("10" is 15.4 px): "5" has none;
    # 10 -> 20 is 19.1 px, 23.4 needed; 0.1 -> 0.2, 28.2 needed (0.1 is 20.2 px wide)
    assert shown_labels(f.x_axis, f.x_scale) == ["0.1", "1", "2", "10", "100", "1000", "10000"]
    assert assert_apart(f.x_axis, f.x_scale, width, vertical=False)
    # y: 393.2 px / 4.134 decades = 95.1 px a decade; 1 -> 2 (and 5 -> 10) 28.6 px, labels
    # 12 px high (their boxes 14 px in Chromium): 20 needed: every 1, 2 and 5 keeps its label
    assert shown_labels(f.y_axis, f.y_scale) == [
        "1", "2", "5", "10", "20", "50", "100", "200", "500", "1000", "2000", "5000", "10000"]
    assert_apart(f.y_axis, f.y_scale, height, vertical=True)
    # the ticks without a label stay ticks (and grid lines): bqplot still shows them
    assert f.x_axis.tick_values is None
    assert f.x_axis.num_ticks is None
    assert {"0.2", "0.5", "5", "20", "50", "20000"} <= set(f.x_axis.tick_labels)
    assert set(f.x_axis.tick_labels.values()) == {""}
    assert f.x_axis.tick_format == f.y_axis.tick_format == "~g"


def test_labels_follow_a_filter_a_peak_and_a_zoom(n2_widget):
    w = n2_widget
    f = w.figure
    width, height = LENGTHS
    before = dict(f.x_axis.tick_labels)
    w.include = "ampere_sgemm"  # the SGEMM kernels: 9.9 to 902 FLOP/byte, 1.96 decades,
    assert math.log10(f.x_scale.max / f.x_scale.min) == pytest.approx(1.96, abs=0.01)
    assert f.x_axis.tick_labels != before  # where bqplot shows every 1..9 x 10^k
    assert assert_apart(f.x_axis, f.x_scale, width, vertical=False) == [
        "10", "20", "30", "50", "70", "100", "200", "300", "500"]
    assert assert_apart(f.y_axis, f.y_scale, height, vertical=True)

    w.include = ""
    w.peak_flops = 1e7  # the empirical bandwidth's ridge far right: x reaches 2.08e6, 7.4
    assert f.x_scale.max == pytest.approx(2.08e6, rel=1e-3)  # decades: powers of ten only
    # 47.1 px a decade: "10000" (38.4 px) and "100000" (46.1 px) need 50.2; "1e+6" is 2 decades on
    assert assert_apart(f.x_axis, f.x_scale, width, vertical=False) == [
        "0.1", "1", "10", "100", "1000", "10000", "1e+6"]
    assert assert_apart(f.y_axis, f.y_scale, height, vertical=True)

    # y to 3e7 (3 x 1e7), 7.48 decades: powers of ten, 55.4 px apart
    assert assert_apart(f.y_axis, f.y_scale, height, vertical=True) == [
        "1", "10", "100", "1000", "10000", "100000", "1e+6", "1e+7"]

    # a pan or zoom in the browser sets the scales' ranges: the labels follow
    f.x_scale.min, f.x_scale.max = 0.5, 40.0  # 1.9 decades: bqplot shows every 1..9 x 10^k
    # 183.1 px a decade: 1 and 10 first, then 0.5, 2, 5, 20 (55 px from their neighbours),
    # then 3, 4 (22.9 and 17.7 px from 3 and 5; 15.7 needed), 7 (26.8 from 5, 28.4 from 10);
    # 0.6 is 14.5 px from 0.5 (28.2 needed), 6 14.5 px from 5 (15.7), 40 22.9 from 30 (23.4)
    assert assert_apart(f.x_axis, f.x_scale, width, vertical=False) == [
        "0.5", "1", "2", "3", "4", "5", "7", "10", "20", "30"]
    # 1 decade up, 393.2 px: 90 -> 100 is 18.0 px, 20 needed (100 is placed first, 80 -> 90 is 20.1)
    f.y_scale.min, f.y_scale.max = 20.0, 200.0
    assert assert_apart(f.y_axis, f.y_scale, height, vertical=True) == [
        "20", "30", "40", "50", "60", "70", "80", "100", "200"]
    # 5.6 decades up: 70.2 px a decade, 1 -> 2 and 5 -> 10 21.1 px: every 1, 2 and 5 x 10^k
    f.y_scale.min, f.y_scale.max = 2.0, 800000.0
    shown = assert_apart(f.y_axis, f.y_scale, height, vertical=True)
    assert shown == [tick_text(v) for v in log_ticks(2.0, 800000.0)]
    assert len(shown) == 17  # 2, 5, 10, ..., 500000


def test_a_width_the_layout_fixes_spaces_the_labels_for_it(n2_widget):
    f = n2_widget.figure
    assert tick_lengths(f.plot) == pytest.approx(LENGTHS, abs=0.01)
    narrow = dict(f.x_axis.tick_labels)
    assert shown_labels(f.x_axis, f.x_scale) == ["0.1", "1", "2", "10", "100", "1000", "10000"]
    # a user's fixed width: 1200 - 70 - 16 - 2 x 5.74 = 1102.5 px, 200.6 px a decade:
    # 10000 -> 20000 is 60.4 px, 38.4 + 8 needed: every 1, 2 and 5 x 10^k keeps its label
    f.plot.layout.width = "1200px"
    assert tick_lengths(f.plot) == pytest.approx((1102.5, LENGTHS[1]), abs=0.1)
    assert assert_apart(f.x_axis, f.x_scale, 1102.5, vertical=False) == [
        tick_text(value) for value in log_ticks(f.x_scale.min, f.x_scale.max)]
    assert len(shown_labels(f.x_axis, f.x_scale)) == 17
    # 800 px: 702.5 px, 127.8 px a decade; 1000 -> 2000 and 5000 -> 10000 are 38.5 px apart,
    # 38.7 and 42.6 needed ("1000" and "5000" 30.7 px wide, "10000" 38.4): 2000, 5000 and
    # 20000 lose theirs; 500 -> 1000 needs 34.9
    f.plot.layout.width = "800px"
    at_800 = ["0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100", "200", "500",
              "1000", "10000"]
    assert assert_apart(f.x_axis, f.x_scale, 702.5, vertical=False) == at_800
    # CSS: max-width wins over width; min-width over both
    f.plot.layout.width, f.plot.layout.max_width = "1200px", "800px"
    assert shown_labels(f.x_axis, f.x_scale) == at_800
    f.plot.layout.min_width = "1200px"
    assert len(shown_labels(f.x_axis, f.x_scale)) == 17
    # width 100% again: the browser's width unknown, the labels of min_width (446 px) again
    f.plot.layout.width, f.plot.layout.max_width, f.plot.layout.min_width = "100%", None, "446px"
    assert f.x_axis.tick_labels == narrow
    # wider margins leave less: the plot 446 - 270 - 16 = 160 px, 148.5 px of scale, 27.0 px a
    # decade: 0.1 -> 1 needs 21.9, 1 -> 10 19.5, 10 -> 100 27.2 (no), 10 -> 1000 (54 px) 31,
    # 1000 -> 10000 42.6 (no)
    f.plot.fig_margin = {**f.plot.fig_margin, "left": 270}
    assert tick_lengths(f.plot)[0] == pytest.approx(160 - 2 * 5.743, abs=0.01)
    assert assert_apart(f.x_axis, f.x_scale, 160 - 2 * 5.743, vertical=False) == [
        "0.1", "1", "10", "1000"]


def test_labels_stay_apart_as_the_view_pans_without_a_kernel():
    # what the saved page relies on: the labels decided for 0.0832..26132 on 348.5 px keep
    # apart on any window of the same span (a pan), at the same pixels per decade
    low, high, length = 0.08323, 26132.0, 348.5
    ticks, labelled = spaced_labels(low, high, length, lambda v: _width(tick_text(v)))
    decades = math.log10(high / low)
    assert ticks.min() <= low / 100
    assert ticks.max() >= high * 100
    for shift in np.linspace(-2.0, 2.0, 41):  # pans of up to 2 decades each way
        window = (low * 10 ** shift, high * 10 ** shift)
        shown = [t for t, keep in zip(ticks, labelled) if keep and window[0] <= t <= window[1]
                 and t in set(log_ticks(*window))]
        assert len(shown) >= 4, (shift, shown)
        for a, b in itertools.pairwise(shown):
            distance = math.log10(b / a) * length / decades
            assert distance >= (_width(tick_text(a)) + _width(tick_text(b))) / 2 + GAP_PX


def test_the_saved_page_holds_the_tick_labels(n2_widget, tmp_path):
    path = n2_widget.save_html(tmp_path / "n2.html")
    text = path.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>',
                      text, re.S)
    axes = [entry["state"] for entry in json.loads(match.group(1))["state"].values()
            if entry["model_name"] == "AxisModel"]
    by_side = {axis.get("side") or "bottom": axis for axis in axes}
    f = n2_widget.figure
    assert by_side["bottom"]["tick_labels"] == f.x_axis.tick_labels
    assert by_side["left"]["tick_labels"] == f.y_axis.tick_labels
    assert "0.2" in by_side["bottom"]["tick_labels"]
    assert "2" not in by_side["bottom"]["tick_labels"]
    assert by_side["bottom"].get("tick_values") is None  # bqplot picks the ticks as the page pans
