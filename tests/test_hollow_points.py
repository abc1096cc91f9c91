"""A point beyond the hardware stays hollow while points are selected (widget.hollow_points).

Sample 23 (tests/wild_samples.py): three host points, f0702 (row 0, rank 61's wrapped counter,
1,235 GFLOP/s) flagged, f0703 and f0704 plausible.  bqplot applies a selection style's opacity
over a point's own, so a flagged marker would show again: the SVG points fade by their own
opacities instead, and the outline of a selected flagged point turns black.
"""

from __future__ import annotations

import warnings

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pytest
from wild_samples import WRAPPED_RANK

from roofline_widget import RooflineWidget
from roofline_widget.widget.hollow_points import UNSELECTED_OPACITY
from roofline_widget.widget.points_mark import PointsMark


@pytest.fixture(scope="module")
def widget() -> RooflineWidget:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the wrapped counter's warning: tested elsewhere
        return RooflineWidget(WRAPPED_RANK)


def _key(widget: RooflineWidget, host: str) -> tuple:
    rows = widget.figure.scene.point_rows
    row = rows[rows["rank_group"].astype(str).str.startswith(host)].iloc[0]
    return (row["file"], int(row["rank"]), row["region"])


def test_selecting_keeps_the_flagged_marker_transparent_and_fades_by_opacity(widget):
    marks = widget.figure.points
    svg, hollow = marks.svg, marks.hollow
    assert marks.active is svg
    assert list(widget.figure.scene.points.flagged) == [True, False, False]
    assert hollow.unselected_style == {"opacity": UNSELECTED_OPACITY}

    widget.selected = [_key(widget, "f0702")]  # the flagged point itself
    assert list(svg.selected) == [0]
    assert "opacity" not in svg.selected_style
    assert svg.selected_style["stroke"] == "black"
    assert svg.unselected_style == {}  # no style opacity to show the transparent marker
    np.testing.assert_allclose(svg.opacities, [0.0, UNSELECTED_OPACITY, UNSELECTED_OPACITY])
    assert list(hollow.selected) == [0]  # its outline is selected: black
    assert hollow.selected_style == {"stroke": "black"}

    widget.selected = [_key(widget, "f0703")]  # a plausible point: the outline fades
    np.testing.assert_allclose(svg.opacities, [0.0, 1.0, UNSELECTED_OPACITY])
    assert hollow.selected is not None
    assert len(hollow.selected) == 0

    widget.selected = []  # no selection: every marker at full opacity but the hollow one
    assert svg.selected is None
    assert hollow.selected is None
    np.testing.assert_allclose(svg.opacities, [0.0, 1.0, 1.0])

    widget.ranks = list(range(72, 216))  # nothing flagged: bqplot's own styles come back
    widget.selected = [_key(widget, "f0703")]
    assert svg.selected_style["opacity"] == 1.0
    assert svg.unselected_style == {"opacity": UNSELECTED_OPACITY}
    assert list(svg.opacities) == [1.0]


def test_webgl_points_keep_their_styles_their_opacities_hide_the_flagged_marker():
    """ScatterGL multiplies a style's opacity into the point's: the styles stay as they are."""
    x, y = bq.LogScale(), bq.LogScale()
    plot = bq.Figure(scale_x=x, scale_y=y)
    marks = PointsMark({"x": x, "y": y, "color": bq.OrdinalColorScale()}, widgets.HTML(), plot,
                       lambda: None)
    marks.threshold = 2  # three points: WebGL
    flagged = np.array([False, True, False])
    marks.assign(np.array([1.0, 2.0, 4.0]), np.array([3.0, 5.0, 7.0]), np.zeros(3), None,
                 np.array([1]), flagged)
    assert marks.active is marks.gl
    assert marks.gl.selected_style == {"opacity": 1.0, "stroke": "black"}
    assert marks.gl.unselected_style == {"opacity": UNSELECTED_OPACITY}
    np.testing.assert_array_equal(marks.gl.opacities, [1.0, 0.0, 1.0])
    np.testing.assert_allclose(marks.hollow.x, [2.0])
    assert list(marks.hollow.selected) == [0]
    marks.show_selected(np.array([0, 2]))
    assert list(marks.hollow.selected) == []
