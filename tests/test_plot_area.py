"""The widget figure's plot area (look/plot_area.py): one reading of its layout for labels and arrows."""

from __future__ import annotations

import bqplot as bq
import ipywidgets as widgets
import pytest

from roofline_widget.look.plot_area import (
    DEFAULT_AREA,
    FIG_MARGIN,
    PlotArea,
    css_px,
    figure_px,
    label_area,
    scale_size,
)


def test_css_px_reads_pixels_only():
    assert css_px("500px") == 500.0
    assert css_px(" 446.5 px ") == 446.5
    assert css_px("640") == 640.0
    assert css_px(300) == 300.0
    for other in ("100%", "60vh", "", None, "0px", -3, float("nan")):
        assert css_px(other) is None


def test_the_widget_figure_is_its_plot_plus_the_margins():
    # 360 px of plot + 70 + 16 px of margins; 426 + 24 + 50 px
    assert figure_px(360, "left", "right") == 446
    assert figure_px(426, "top", "bottom") == 500
    assert label_area(None) == DEFAULT_AREA == PlotArea(min_width=360.0, height=426.0)


def test_label_area_and_scale_size_read_the_same_margins():
    figure = bq.Figure(layout=widgets.Layout(width="800px", min_width="500px", height="400px"),
                       fig_margin={"top": 10, "bottom": 30, "left": 60, "right": 20},
                       padding_y=0.0)
    # the labels' area: the smallest width less 60 + 20, the height less 10 + 30
    assert label_area(figure) == PlotArea(min_width=420.0, height=360.0)
    # the scales': the width as laid out (800 px), the same margins
    assert scale_size(figure) == pytest.approx((720.0, 360.0))
    # a margin not given is the widget's
    figure.fig_margin = {"top": 10}
    assert label_area(figure).height == 400 - 10 - FIG_MARGIN["bottom"]
