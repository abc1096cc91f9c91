"""The arrays of the widget's ceiling marks: lines, labels, the roofline and the ridge point."""

from __future__ import annotations

import numpy as np

from roofline_widget.ceilings import Roofline
from roofline_widget.look.ceiling_labels import LABEL_GAP_PX, LabelSpot, place_labels
from roofline_widget.look.ceiling_lines import ceiling_lines, ceiling_row
from roofline_widget.look.colors import line_color
from roofline_widget.look.plot_area import DEFAULT_AREA, PlotArea

__all__ = ["LINE_VERTICES", "roof_marks_data"]

#: Every ceiling line is padded to this many vertices (one Lines mark holds them all).
LINE_VERTICES = 3


def _pad(values) -> list:
    return list(values) + [values[-1]] * (LINE_VERTICES - len(values))


def roof_marks_data(roofline: Roofline | None, x_range: tuple[float, float],
                    y_range: tuple[float, float], area: PlotArea = DEFAULT_AREA,
                    points=((), ())) -> dict:
    """Arrays for the ceiling Lines and labels, the main roof and the ridge marks ({} for None).

    The labels are placed by :func:`~roofline_widget.look.ceiling_labels.place_labels`
    for a plot ``area`` (its height and smallest width), clear of ``points``
    (intensities, GFLOP/s); ``ceiling_rows`` are the ceilings' table rows
    (:func:`~roofline_widget.look.ceiling_lines.ceiling_row`), for their tooltips.
    """
    if roofline is None:
        return {}
    lines, segments = ceiling_lines(roofline, x_range)
    ceilings = [line.segment for line in lines]
    roof = segments[-1]
    # each device's roofline (another device's before the main one), in its device's colour
    roofs = [s for s in segments if s["kind"] == "roof"]
    ridge_x = roofline.ridge_point()
    layout = place_labels(lines, segments, (ridge_x, roofline.peak_flops), x_range, y_range,
                          area, points)
    # a ridge point was given: the layout has its spot
    ridge = layout.ridge or LabelSpot("", ridge_x, roofline.peak_flops, "start", True, True)
    return {
        "ceiling_x": np.array([_pad(s["x"]) for s in ceilings]),
        "ceiling_y": np.array([_pad(s["y"]) for s in ceilings]),
        "ceiling_labels": [line.text for line in lines],
        "ceiling_rows": [ceiling_row(line.roof) for line in lines],
        "ceiling_colors": [line_color(line.kind, line.roof.device) for line in lines],
        # one Label mark per alignment (bqplot's ``align`` is the mark's): each holds every
        # ceiling, its text "" where the other mark draws it
        "label_texts": [spot.text if spot.align == "end" else "" for spot in layout.ceilings],
        "start_texts": [spot.text if spot.align == "start" else "" for spot in layout.ceilings],
        "label_x": np.array([spot.x for spot in layout.ceilings]),
        "label_y": np.array([spot.y for spot in layout.ceilings]),
        "roof_x": np.array(roof["x"]) if len(roofs) == 1 else np.array([_pad(s["x"]) for s in roofs]),
        "roof_y": np.array(roof["y"]) if len(roofs) == 1 else np.array([_pad(s["y"]) for s in roofs]),
        "roof_labels": [s["label"] for s in roofs],
        "roof_colors": [line_color("roof", s["device"]) for s in roofs],
        "ridge_x": np.array([ridge_x]),
        "ridge_y": np.array([roofline.peak_flops]),
        "ridge_text": [ridge.text],
        "ridge_align": ridge.align,
        "ridge_offset": (LABEL_GAP_PX * (1 if ridge.align == "start" else -1),
                         ridge.y_offset_px),
    }
