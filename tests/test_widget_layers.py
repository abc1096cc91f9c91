"""The widget's layer interface: a registered layer is updated, bounds the axes, speaks in the status."""

import bqplot as bq
import numpy as np
import pytest

from roofline_widget import RooflineWidget, read_likwid, sample_path
from roofline_widget.widget.layers.base import Layer, LayerInput

SAMPLE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"


class RecordingLayer:
    """A layer with one Scatter at a fixed far-away point; it records its inputs."""

    def __init__(self, figure, x=1e4, y=1e6):
        self.point = (x, y)
        self.inputs: list[LayerInput] = []
        self.dots = bq.Scatter(x=np.zeros(0), y=np.zeros(0),
                               scales={"x": figure.x_scale, "y": figure.y_scale})

    @property
    def marks(self):
        return (self.dots,)

    def update(self, data):
        self.inputs.append(data)
        self.dots.x, self.dots.y = np.array([self.point[0]]), np.array([self.point[1]])

    def extent(self):
        return np.array([self.point[0]]), np.array([self.point[1]])

    def status(self):
        return "<span>recording layer</span>"


@pytest.fixture
def widget():
    return RooflineWidget(read_likwid(sample_path(SAMPLE)))


def test_layer_marks_sit_between_ceilings_and_points(widget):
    layer = RecordingLayer(widget.figure)
    assert isinstance(layer, Layer)
    widget.figure.add_layer("recording", layer)
    marks = widget.figure.plot.marks
    # after the ceilings and the layers registered before it (the widget's own ranks layer),
    # before the points' marks: the selection outline, the hover proxy, the SVG points
    pointer = widget.figure.pointer
    assert marks.index(layer.dots) == len(marks) - 4 >= len(widget.figure.roof_marks)
    assert marks[-3:] == [pointer.outline, pointer.proxy, widget.figure.scatter]
    with pytest.raises(ValueError, match="already registered"):
        widget.figure.add_layer("recording", layer)


def test_layer_gets_the_selection_and_bounds_the_axes(widget):
    layer = RecordingLayer(widget.figure)
    widget.figure.add_layer("recording", layer)
    assert widget.figure.x_scale.max < 1e4  # before: the axes follow the two points
    widget.include = "Solve"
    data = layer.inputs[-1]
    assert any("Solve" in p.pattern for p in data.selection.include)
    assert data.selection.flops_metric == widget.flops_metric
    assert list(data.points.points["region"]) == ["Solve"]
    assert data.options["include"] == "Solve"
    assert widget.figure.x_scale.max >= 1e4
    assert widget.figure.y_scale.max >= 1e6
    assert "recording layer" in widget.controls.status_html.value


def test_peak_and_colour_changes_reach_the_layer(widget):
    layer = RecordingLayer(widget.figure)
    widget.figure.add_layer("recording", layer)
    widget.include = ""
    count = len(layer.inputs)
    widget.peak_flops = 500.0
    assert len(layer.inputs) == count + 1
    assert layer.inputs[-1].roofline.peak_flops == 500.0
    widget.color_by = "rank"
    assert len(layer.inputs) == count + 2
    codes = layer.inputs[-1].color_codes(widget.to_dataframe())
    assert len(codes) == len(widget.to_dataframe())
