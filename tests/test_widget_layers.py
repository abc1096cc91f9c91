"""The widget's layers: a scene's part drawn between the ceilings and the points, bounding the axes,
speaking in the status, drawn again only when its part changes."""

import numpy as np
import pytest

from roofline_widget import RooflineWidget, read_likwid, sample_path
from roofline_widget.scene.parts import LevelsPart

SAMPLE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
#: The three runs of one program, L2, L3 and MEM_DP (the shipped renderings): two regions.
RENDERED = [sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
            for group in ("L2", "L3", "MEM_DP")]


@pytest.fixture
def widget():
    return RooflineWidget(read_likwid(sample_path(SAMPLE)))


@pytest.fixture
def levels():
    return RooflineWidget(read_likwid(RENDERED), levels=["L2", "L3", "MEM"])


def test_layer_marks_sit_between_ceilings_and_points(levels):
    figure = levels.figure
    marks = figure.plot.marks
    # the ceilings' marks, the levels, then the points' marks: the SVG points (the rank spread's
    # marks are made when first drawn, the hover proxy at the first hover, the selection
    # outline at the first drag)
    assert list(figure.layers) == ["levels"]
    layer_marks = list(figure.layers["levels"].marks)
    start = len(figure.roof_marks)
    assert marks[:start] == list(figure.roof_marks)
    assert marks[start:start + len(layer_marks)] == layer_marks
    assert figure.pointer.outline is None
    assert marks[start + len(layer_marks):] == [figure.scatter]
    assert figure.layer("levels") is figure.layers["levels"]  # made once
    # the spread's marks, once made (here: read), come first among the layers'
    spread = figure.layers["ranks"]
    assert list(figure.layers) == ["levels", "ranks"]
    layer_marks = [*spread.marks, *figure.layers["levels"].marks]
    marks = figure.plot.marks
    assert marks[start:start + len(layer_marks)] == layer_marks
    # the square's click was handed to the layer when it was made
    assert spread.on_click == levels.square_ranks.click


def test_a_layer_is_made_when_a_scene_first_has_its_part(widget):
    assert list(widget.figure.layers) == []  # the points view: no spread made
    assert widget.figure.scene.levels is None
    assert widget.figure.scene.comparison is None
    widget.baseline = read_likwid(sample_path(SAMPLE.replace(".txt", "_take.txt")))
    assert list(widget.figure.layers) == ["baseline"]
    assert all(mark in widget.figure.plot.marks for mark in widget.baseline_layer.marks)


def test_the_layers_part_bounds_the_axes_and_speaks_in_the_status(levels):
    part = levels.figure.scene.levels
    assert isinstance(part, LevelsPart)
    assert part.levels == ("L2", "L3", "MEM")
    figure = levels.figure
    # triad and stencil<3d> at three levels each: the dots' intensities are inside the axes
    x = np.concatenate([dots.x for dots in part.dots.values()])
    assert len(x) == 6
    assert figure.x_scale.min <= x.min()
    assert x.max() <= figure.x_scale.max
    np.testing.assert_allclose(figure.layers["levels"].dots["L3"].x, part.dots["L3"].x)
    assert "levels: L2, L3, MEM" in levels.controls.status_html.value


def test_a_peak_change_keeps_the_parts_and_a_colour_change_recolours_them(levels):
    scene = levels.figure.scene
    levels.peak_flops = 500.0
    assert levels.figure.scene.roofline.peak_flops == 500.0
    assert levels.figure.scene.points is scene.points  # no point arrays sent
    # empirical roofs: no roof check, the same findings and the same part
    assert levels.figure.scene.levels is scene.levels
    assert levels.figure.scene.obstacles is scene.obstacles
    levels.color_by = "rank"
    recoloured = levels.figure.scene.levels
    assert recoloured is not scene.levels
    assert recoloured.frame is scene.levels.frame  # the same rows, other colours
    assert levels.figure.scene.points.x is scene.points.x
    codes = levels.figure.scene.coloring.codes(recoloured.frame["rank"])
    np.testing.assert_array_equal(recoloured.dots["L2"].codes, codes[
        recoloured.frame["level"].astype(str).to_numpy() == "L2"])
