"""Regions doing almost no FLOPs do not stretch the axes.

On the pmgpu sample, ``<init_datastructures>`` does 6.864286e-06 MFLOP/s at
14905.7212 MBytes/s (MEM_DP table, lines 37/38): 6.864286e-09 GFLOP/s and
4.605e-10 FLOP/byte, against 495.4019 to 2134.1472 MFLOP/s for the four
``<function_*>`` regions.  6.864286e-09 / 2.1341472 = 3.2e-09 < 1e-6, so it is
"no FLOP work"; before the rule the axes spanned 10 to 11 decades
(``benchmarks/axis_span.py``).
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import pytest
from test_points import DP, MEM_BW, block, make_run

from roofline_widget import RooflineWidget, plot_roofline, points_dataframe, sample_path
from roofline_widget.look import no_flop as rule
from roofline_widget.look.axis_ranges import AXIS_MARGIN, axis_ranges
from roofline_widget.widget import html as text
from roofline_widget.widget.roofs import rooflines

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
INIT = "<init_datastructures>"
FUNCTIONS = ["<function_d>", "<function_b>", "<function_a>", "<function_c>"]
#: GFLOP/s and FLOP/byte of <init_datastructures> from the sample's printed numbers.
INIT_GFLOPS = 6.864286e-06 / 1000
INIT_INTENSITY = 6.864286e-06 / 14905.7212
#: The bulk's extremes: <function_c> 495.4019 MFLOP/s (lowest), <function_a> 2134.1472 (highest),
#: intensities 495.4019 / 8775.4462 (lowest, <function_c>; <function_d> 1616.3005 / 28580.9575
#: is just above) to 2134.1472 / 8554.1612 (highest, <function_a>).
BULK_GFLOPS = (0.4954019, 2.1341472)
BULK_INTENSITY = (495.4019 / 8775.4462, 2134.1472 / 8554.1612)
MAX_DECADES = 3.0


def decades(limits) -> float:
    return math.log10(limits[1] / limits[0])


@pytest.fixture(scope="module")
def points():
    return points_dataframe(PMGPU)


@pytest.fixture(scope="module")
def widget():
    return RooflineWidget(PMGPU)


# --------------------------------------------------------------------------
# the rule (look/no_flop.py)
# --------------------------------------------------------------------------
def test_split_flop_work_on_the_sample(points):
    bulk, no_flop = rule.split_flop_work(points)
    assert no_flop["region"].tolist() == [INIT]
    assert bulk["region"].tolist() == FUNCTIONS
    assert no_flop["performance_gflops"].iloc[0] == pytest.approx(INIT_GFLOPS, rel=1e-6)
    # every point is in exactly one part, index kept
    assert sorted([*bulk.index, *no_flop.index]) == list(points.index)
    # 3.2e-9 of the largest: a threshold below that keeps it in the bulk
    assert INIT_GFLOPS / BULK_GFLOPS[1] == pytest.approx(3.2164e-9, rel=1e-4)
    assert rule.split_flop_work(points, fraction=1e-9)[1].empty
    assert rule.split_flop_work(points.iloc[:0])[1].empty


def test_note_names_count_and_regions(points):
    _, no_flop = rule.split_flop_work(points)
    note = rule.no_flop_work_text(no_flop, "shown at the left edge")
    assert note == ("1 region does almost no FLOPs (below 1e-06 of the largest GFLOP/s): "
                    "<init_datastructures> \N{EM DASH} shown at the left edge")
    assert rule.no_flop_work_text(no_flop.iloc[:0], "anywhere") == ""


def test_note_counts_points_of_several_ranks_and_cuts_long_lists():
    regions = [f"MPI_Wait_{i}" for i in range(7)]
    frame = pd.DataFrame({"region": [*regions, *regions, "work"],
                          "performance_gflops": [1e-9] * 14 + [10.0]})
    _, no_flop = rule.split_flop_work(frame)
    assert len(no_flop) == 14
    note = rule.no_flop_work_text(no_flop, "listed")
    assert note.startswith("14 points (7 regions) do almost no FLOPs")
    assert "MPI_Wait_0, MPI_Wait_1, MPI_Wait_2, MPI_Wait_3, MPI_Wait_4 and 2 more" in note


# --------------------------------------------------------------------------
# static plot
# --------------------------------------------------------------------------
def test_static_axes_follow_the_bulk_and_pin_the_outlier(tmp_path):
    csv = tmp_path / "points.csv"
    payload = plot_roofline(PMGPU, verbose=False, data_filepath=csv)
    axes = payload["figure"].axes[0]
    x_limits, y_limits = axes.get_xlim(), axes.get_ylim()
    assert decades(x_limits) < MAX_DECADES
    assert decades(y_limits) < MAX_DECADES
    assert x_limits[0] < BULK_INTENSITY[0]
    assert BULK_INTENSITY[1] < x_limits[1]
    assert y_limits[0] < BULK_GFLOPS[0]
    assert BULK_GFLOPS[1] < y_limits[1]
    # the outlier is drawn at the lower-left corner, hollow, labelled in the legend
    pinned = [c for c in axes.collections if INIT in str(c.get_label())]
    assert len(pinned) == 1
    assert "axis edge" in pinned[0].get_label()
    np.testing.assert_allclose(pinned[0].get_offsets(), [[x_limits[0], y_limits[0]]])
    assert INIT in [t.get_text() for t in axes.get_legend().get_texts()][-1]
    # the notes are wrapped to the axes' width: compared with their line breaks as blanks
    notes = [" ".join(t.get_text().split()) for t in axes.texts if "almost no FLOPs" in t.get_text()]
    assert notes == [payload["no_flop_note"]]
    assert INIT in notes[0]
    assert [p["region"] for p in payload["no_flop_work"]] == [INIT]
    assert payload["no_flop_work"][0]["arithmetic_intensity_flops_per_byte"] == pytest.approx(
        INIT_INTENSITY, rel=1e-6)
    # no point dropped: the data file and the payload hold all five
    assert pd.read_csv(csv)["region"].tolist() == [INIT, *FUNCTIONS]
    assert len(payload["points"]) == 5
    # the roof is drawn over the widget's range: the smallest of the bulk's intensities
    # (0.05645) and the empirical ridge 2.1341472 / 28.5809575 = 0.07467 FLOP/byte, over
    # the axis margin 3; the outlier's 4.6e-10 FLOP/byte does not count
    roof_x = [r["arithmetic_intensity_flops_per_byte"] for r in payload["roofline"]]
    assert min(roof_x) == pytest.approx(BULK_INTENSITY[0] / AXIS_MARGIN)
    assert AXIS_MARGIN == 3.0
    assert x_limits[0] == pytest.approx(BULK_INTENSITY[0] / 3.0)


def test_static_rule_off_spans_ten_decades(monkeypatch):
    monkeypatch.setattr(rule, "NO_FLOP_WORK_FRACTION", 0.0)
    payload = plot_roofline(PMGPU, verbose=False)
    axes = payload["figure"].axes[0]
    assert decades(axes.get_xlim()) > 9
    assert payload["no_flop_note"] == ""


def test_static_bqplot_scales_follow_the_bulk():
    payload = plot_roofline(PMGPU, verbose=False, backend="bqplot")
    x_scale, y_scale = (axis.scale for axis in payload["figure"].axes)
    assert decades((x_scale.min, x_scale.max)) < MAX_DECADES
    assert decades((y_scale.min, y_scale.max)) < MAX_DECADES
    # the widget's figure, by the widget's rule: the same axes as the widget on the same data
    widget = RooflineWidget(PMGPU)
    assert (x_scale.min, x_scale.max) == (widget.figure.x_scale.min, widget.figure.x_scale.max)
    assert (y_scale.min, y_scale.max) == (widget.figure.y_scale.min, widget.figure.y_scale.max)
    assert x_scale.min == pytest.approx(BULK_INTENSITY[0] / 3.0)
    # every point is in the scatter (the outlier outside the axes), the legend names it
    scatter = payload["roofline_figure"].scatter
    assert len(scatter.x) == 5
    assert scatter.x[0] == pytest.approx(INIT_INTENSITY, rel=1e-6)
    assert scatter.x[0] < x_scale.min
    legend = payload["legend"].value
    names = [html.escape(name) for name in (INIT, *FUNCTIONS)]
    assert [legend.index(f">{name}</span>") for name in names] == sorted(
        legend.index(f">{name}</span>") for name in names)
    assert payload["no_flop_note"].endswith("outside the axes (pan out to see them)")
    assert html.escape(payload["no_flop_note"]) in legend


def test_verbose_report_prints_the_note(capsys):
    plot_roofline(PMGPU)
    assert "1 region does almost no FLOPs" in capsys.readouterr().out


# --------------------------------------------------------------------------
# widget
# --------------------------------------------------------------------------
def test_widget_axes_follow_the_bulk_and_the_status_names_the_region(widget):
    figure = widget.figure
    x_limits, y_limits = (figure.x_scale.min, figure.x_scale.max), (figure.y_scale.min,
                                                                    figure.y_scale.max)
    assert decades(x_limits) < MAX_DECADES
    assert decades(y_limits) < MAX_DECADES
    assert x_limits[0] < BULK_INTENSITY[0]
    assert BULK_INTENSITY[1] < x_limits[1]
    status = widget.controls.status_html.value
    assert "1 region does almost no FLOPs" in status
    assert "&lt;init_datastructures&gt;" in status
    assert INIT not in status
    # nothing dropped: the outlier is still a point, drawn and exported
    frame = widget.to_dataframe()
    assert frame["region"].tolist() == [INIT, *FUNCTIONS]
    assert len(figure.scatter.x) == 5


def test_widget_note_goes_when_the_outlier_is_filtered_out(widget):
    widget.include = "<function_"
    try:
        assert "almost no FLOPs" not in widget.controls.status_html.value
    finally:
        widget.include = ""
    assert "almost no FLOPs" in widget.controls.status_html.value
    widget.reset_view()
    assert decades((widget.figure.x_scale.min, widget.figure.x_scale.max)) < MAX_DECADES


def test_no_flop_work_html_escapes_region_names():
    hostile = "<img src=x onerror=alert(1)>"
    run = make_run(block(hostile, {DP: [1e-9], MEM_BW: [1000.0]}),
                   block("work", {DP: [1000.0], MEM_BW: [100.0]}, line=9))
    frame = points_dataframe(run)
    html = text.no_flop_work_html(frame)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<img" not in html
    assert text.no_flop_work_html(frame[frame["region"] == "work"]) == ""
    w = RooflineWidget(run)
    assert "&lt;img src=x onerror=alert(1)&gt;" in w.controls.status_html.value
    assert "<img" not in w.controls.status_html.value


def test_axis_ranges_ignore_layer_values_of_no_flop_work(points):
    roofline = rooflines(None, None, points)
    plain = axis_ranges(points, roofline)
    # a layer point at the outlier's place, and one far right that must be kept
    extent = (np.array([INIT_INTENSITY, 50.0]), np.array([INIT_GFLOPS, 2.0]))
    x_range, y_range = axis_ranges(points, roofline, extent)
    assert x_range[0] == pytest.approx(plain[0][0])
    assert y_range == pytest.approx(plain[1])
    assert x_range[1] >= 50.0
