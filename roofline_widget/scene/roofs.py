"""The roofs of a scene: each ceiling and roofline as a line, the labels placed on their lines.

:func:`roof_part` gives, for one roofline and the axis ranges, every line
(:class:`~roofline_widget.scene.parts.RoofLine`: a ceiling dashed, dotted if
empirical; each device's roofline solid, the main one last) and every label
(:class:`~roofline_widget.scene.parts.Label`), placed for a canvas by
:func:`~roofline_widget.look.ceiling_labels.place_labels`: horizontal for the
widget, along their slopes for a static figure.  A peak drag or a zoom calls
it again (the points' pixels, the ``obstacles``, stay).
"""

from __future__ import annotations

import math

from roofline_widget.ceilings import Roofline
from roofline_widget.look.ceiling_labels import LabelCanvas, LabelSpot, LogPoints, place_labels
from roofline_widget.look.ceiling_lines import ceiling_lines
from roofline_widget.look.colors import RIDGE_COLOR, line_color
from roofline_widget.scene.parts import Label, RoofLine

__all__ = ["roof_part"]


def _label(spot: LabelSpot, color: str, canvas: LabelCanvas, kind: str = "ceiling") -> Label:
    """A placed spot as a scene label: its offset reaches the text's reference point."""
    sign = 1.0 if spot.align == "start" else -1.0
    radians = math.radians(spot.angle)
    gap = sign * canvas.anchor_gap_px
    offset = (spot.offset_px[0] + gap * math.cos(radians),
              spot.offset_px[1] + gap * math.sin(radians) - spot.y_offset_px)
    return Label(spot.text, spot.x, spot.y, spot.align, color, offset, spot.angle, kind)


def roof_part(roofline: Roofline | None, x_range: tuple[float, float],
              y_range: tuple[float, float], canvas: LabelCanvas, obstacles: LogPoints
              ) -> tuple[tuple[RoofLine, ...], tuple[Label, ...], tuple[float, float] | None]:
    """The roof lines, their labels and the main ridge point (nothing for no roofline).

    Parameters
    ----------
    roofline : Roofline or None
    x_range, y_range : (float, float)
        The axis limits.
    canvas : LabelCanvas
        What the labels are placed for.
    obstacles : LogPoints
        The points the labels keep clear of.
    """
    if roofline is None:
        return (), (), None
    lines, segments = ceiling_lines(roofline, x_range)
    roofs = [RoofLine(line.kind, tuple(line.segment["x"]), tuple(line.segment["y"]), line.text,
                      line_color(line.kind, line.roof.device),
                      "dotted" if line.roof.empirical else "dashed", line.roof)
             for line in lines]
    roofs += [RoofLine("roof", tuple(s["x"]), tuple(s["y"]), s["label"],
                       line_color("roof", s["device"]), "solid")
              for s in segments if s["kind"] == "roof"]
    ridge = (roofline.ridge_point(), roofline.peak_flops)
    layout = place_labels(lines, segments, ridge, x_range, y_range, canvas, obstacles)
    labels = [_label(spot, roof.color, canvas) for spot, roof in zip(layout.ceilings, roofs)]
    if layout.ridge is not None:
        labels.append(_label(layout.ridge, RIDGE_COLOR, canvas, "ridge"))
    return tuple(roofs), tuple(labels), ridge
