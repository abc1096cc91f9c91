"""The ceiling labels of the static (matplotlib) roofline: on their lines, inside, apart.

Each ceiling is labelled with the one label rule
(:func:`~roofline_widget.look.texts.roof_label`: ``"MEM 188.6 GB/s"``), in its
line's colour:

- a bandwidth roof along its slope (turned as the slope runs on screen), just
  above or just below it, starting at a point of the part inside the axes;
- a compute roof on its line, ending at the right edge of the axes (or further
  left), just above or just below it.

Candidates are tried in order of preference; the first whose text (its own
turned rectangle, measured with the figure's renderer) lies inside the axes,
overlaps no label placed before, covers no point, keeps the labels of one kind
stacked in the order of their lines (the label of a lower roof below that of a
higher one where they share columns) and crosses no other line is taken; else
the least bad one.  Call :func:`label_ceilings` once the axis limits are final.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from roofline_widget.escaping import matplotlib_text
from roofline_widget.look.ceiling_lines import CeilingLine
from roofline_widget.look.colors import line_color
from roofline_widget.look.log_axes import visible_part

__all__ = ["CEILING_LABEL_GID", "CEILING_LABEL_SIZE", "LINE_GAP_PT", "label_ceilings",
           "text_outline"]

#: Font size (pt) of the ceiling labels.
CEILING_LABEL_SIZE = 8.5
#: Gap (pt) between a label and its line.
LINE_GAP_PT = 2.5
#: The matplotlib gid of every ceiling label (an SVG id prefix: ``<gid>-<n>``).
CEILING_LABEL_GID = "roofline-ceiling-label"
#: Where along the part of a slope inside the axes its label may start (fractions).
_ALONG = (0.08, 0.16, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75)
#: Where a compute roof's label may end (fractions of the line inside the axes, from its start).
_COMPUTE_ENDS = (1.0, 0.75, 0.5)
#: A label keeps this far (pt) from a point's centre (the scatter's s=36: 3 pt radius).
_POINT_CLEARANCE_PT = 4.0


def text_outline(text, renderer, pad: float = 0.0):
    """The rectangle a matplotlib text covers, turned as drawn (a closed ``Path``, pixels).

    A turned text's window extent is the box around its turned rectangle, mostly
    empty; this is the rectangle itself (widened by ``pad`` pixels on every
    side), turned about the text's anchor (``rotation_mode="anchor"``) or its centre.
    """
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D

    angle = text.get_rotation()
    text.set_rotation(0)
    try:
        box = text.get_window_extent(renderer)
    finally:
        text.set_rotation(angle)
    if text.get_rotation_mode() == "anchor":
        x = {"left": box.x0, "center": (box.x0 + box.x1) / 2, "right": box.x1}[text.get_ha()]
        y = {"bottom": box.y0, "baseline": box.y0, "center": (box.y0 + box.y1) / 2,
             "center_baseline": (box.y0 + box.y1) / 2, "top": box.y1}[text.get_va()]
    else:
        x, y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    x0, y0, x1, y1 = box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad
    corners = Affine2D().rotate_deg_around(x, y, angle).transform(
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)])
    return Path(corners, closed=True)


@dataclass(frozen=True)
class _Spot:
    """Where a label may go: its anchor (data), angle (degrees), alignment, offset (pt)."""

    anchor: tuple[float, float]
    angle: float
    ha: str
    va: str
    offset: tuple[float, float]


def _pt_to_px(axes, points: float) -> float:
    return points * axes.figure.dpi / 72.0


def _screen_angle(axes, start, end) -> float:
    """The angle (degrees) of the segment ``start``-``end`` (data) as drawn."""
    (x0, y0), (x1, y1) = axes.transData.transform([start, end])
    return math.degrees(math.atan2(y1 - y0, x1 - x0))


def _along(part, fraction: float) -> tuple[float, float]:
    """The point ``fraction`` along a straight line on log axes between ``part``'s ends."""
    (x0, y0), (x1, y1) = part
    return (10 ** (math.log10(x0) + fraction * math.log10(x1 / x0)),
            10 ** (math.log10(y0) + fraction * math.log10(y1 / y0)))


def _slope_spots(axes, line: CeilingLine) -> Iterator[_Spot]:
    part = visible_part(line.segment["x"], line.segment["y"], axes.get_xlim(), axes.get_ylim())
    if part is None:
        return
    angle = _screen_angle(axes, *part)
    normal = (-math.sin(math.radians(angle)), math.cos(math.radians(angle)))
    for fraction in _ALONG:
        anchor = _along(part, fraction)
        for side, va in ((1, "bottom"), (-1, "top")):  # above the slope, then below it
            offset = (side * LINE_GAP_PT * normal[0], side * LINE_GAP_PT * normal[1])
            yield _Spot(anchor, angle, "left", va, offset)


def _compute_spots(axes, line: CeilingLine) -> Iterator[_Spot]:
    part = visible_part(line.segment["x"], line.segment["y"], axes.get_xlim(), axes.get_ylim())
    if part is None:
        return
    for fraction in _COMPUTE_ENDS:
        anchor = _along(part, fraction)
        for side, va in ((1, "bottom"), (-1, "top")):
            yield _Spot(anchor, 0.0, "right", va, (-2.0 if fraction == 1.0 else 0.0,
                                                    side * LINE_GAP_PT))


class _Placer:
    """Candidates measured against what is placed; the kept labels."""

    def __init__(self, axes, lines: Sequence[CeilingLine], segments: Sequence[dict],
                 points_xy) -> None:
        from matplotlib.path import Path

        self.axes = axes
        self.renderer = axes.figure.canvas.get_renderer()
        self.frame = axes.get_window_extent(self.renderer)
        self.placed: list = []  # (outline, kind, centre y, x extent)
        x, y = (np.asarray(values, dtype=float) for values in points_xy)
        keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
        self.points = (axes.transData.transform(np.column_stack([x[keep], y[keep]]))
                       if keep.any() else np.zeros((0, 2)))
        self.clearance = _pt_to_px(axes, _POINT_CLEARANCE_PT)
        self.line_paths = {id(segment): Path(axes.transData.transform(
            np.column_stack([segment["x"], segment["y"]]))) for segment in segments}

    def cost(self, text, line: CeilingLine) -> tuple:
        outline = text_outline(text, self.renderer)
        corners = outline.vertices[:-1]
        frame = self.frame
        outside = int(not np.all((corners[:, 0] >= frame.x0) & (corners[:, 0] <= frame.x1)
                                 & (corners[:, 1] >= frame.y0) & (corners[:, 1] <= frame.y1)))
        overlaps = sum(outline.intersects_path(other, filled=True) for other, *_ in self.placed)
        centre = corners.mean(axis=0)
        left, right = corners[:, 0].min(), corners[:, 0].max()
        out_of_order = sum(1 for _o, kind, y, (o_left, o_right) in self.placed
                           if kind == line.kind and left < o_right and o_left < right
                           and centre[1] >= y)
        covered = 0
        if len(self.points):
            around = text_outline(text, self.renderer, pad=self.clearance)
            covered = int(np.count_nonzero(around.contains_points(self.points)))
        crossed = sum(path.intersects_path(outline, filled=True)
                      for key, path in self.line_paths.items() if key != id(line.segment))
        return outside, overlaps, out_of_order, covered, crossed

    def keep(self, text, line: CeilingLine) -> None:
        outline = text_outline(text, self.renderer)
        corners = outline.vertices[:-1]
        self.placed.append((outline, line.kind, corners[:, 1].mean(),
                            (corners[:, 0].min(), corners[:, 0].max())))


def _annotation(axes, line: CeilingLine, spot: _Spot, number: int):
    return axes.annotate(
        matplotlib_text(line.text), spot.anchor, xytext=spot.offset, textcoords="offset points",
        rotation=spot.angle, rotation_mode="anchor", ha=spot.ha, va=spot.va,
        fontsize=CEILING_LABEL_SIZE, color=line_color(line.kind, line.roof.device), zorder=4,
        annotation_clip=False, gid=f"{CEILING_LABEL_GID}-{number}")


def label_ceilings(axes, lines: Sequence[CeilingLine], segments: Sequence[dict],
                   points_xy=((), ())) -> list:
    """Label every ceiling of ``lines`` drawn on ``axes`` (see the module); the texts.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
        Log-log roofline axes, limits final, on a figure with a canvas.
    lines : sequence of CeilingLine
        The ceilings (:func:`~roofline_widget.look.ceiling_lines.ceiling_lines`),
        each kind highest first.
    segments : sequence of dict
        Every line drawn (what a label should not cross).
    points_xy : (array-like, array-like)
        Intensities and GFLOP/s of the points drawn: no label covers one where it can.

    Returns
    -------
    list of matplotlib.text.Annotation
        One per ceiling with a part inside the axes, in the order of ``lines``.
    """
    placer = _Placer(axes, lines, segments, points_xy)
    order = sorted(range(len(lines)), key=lambda i: lines[i].kind != "compute")
    texts: dict[int, object] = {}
    for number in order:
        line = lines[number]
        spots = (_compute_spots(axes, line) if line.kind == "compute"
                 else _slope_spots(axes, line))
        best, best_cost = None, None
        for spot in spots:
            text = _annotation(axes, line, spot, number)
            cost = placer.cost(text, line)
            if best_cost is None or cost < best_cost:
                if best is not None:
                    best.remove()
                best, best_cost = text, cost
            else:
                text.remove()
            if not any(cost):
                break
        if best is not None:
            placer.keep(best, line)
            texts[number] = best
    return [texts[i] for i in range(len(lines)) if i in texts]
