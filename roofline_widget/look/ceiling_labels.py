"""Where the ceiling and ridge labels of a roofline figure sit: the widget's, and a static figure's.

The kernel does not know how wide the browser draws the plot; it knows the
plot's height and its smallest width (the figure's layout: ``height``,
``min_width`` and ``fig_margin``, :class:`PlotArea`).  A label is a text of a
fixed size in pixels, while a log axis' decades stretch with the width.  In
axis fractions (``u``: 0 at the left edge, 1 at the right) every line stays
where it is at any width, and a label right-aligned at an anchor covers
``[u - width_px / plot_width, u]``: in a wider plot, a part of what it covers
in the narrowest one.  A label that lies inside the plot, clear of the lines
and of the other labels in a plot ``min_width`` wide, therefore does so in
every wider plot; the placement is worked out for that width only
(:func:`place_labels`).

Each label (:func:`~roofline_widget.look.texts.roof_label`: what the roof is
and its value) tries its candidate spots in order of preference (a compute
roof's label at the right end of its line, above it; a bandwidth label ending
on its slope, above it; the ridge label right of and below the ridge point)
and takes the first that is inside the plot, clear of the other labels, of
the points and of the lines (and :data:`LINE_END_CLEARANCE_PX` from where a
line stops inside the plot: a ceiling cut at a roof's height), and stacked in
the order of the lines (the label of a lower roof of its kind below the label
of a higher one).  A name too long for the narrowest plot is cut (``"…"``,
the value kept); the ridge label loses its unit where the whole one fits
nowhere; the least bad spot is taken when nothing fits.  Where labels still
overlap (another device's slope passing the ridge), the ridge label goes
first instead if that leaves fewer conflicts (labels overlapped, lines
crossed, points covered) and cuts no more labels.  The placement is worked out again whenever the
lines or the axes move (a peak slider, a zoom): a label stays on its line.

A static figure's size is known (its :class:`LabelCanvas` is ``turned``): a
slope's label runs along its line as drawn, anchored on it, tried at fractions
of the line's part inside the axes (:data:`TURNED_SLOPE_ALONG`), each label's
box the turned rectangle of its text.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from roofline_widget.look.ceiling_lines import CeilingLine
from roofline_widget.look.label_boxes import (
    LABEL_GAP_PX,
    LABEL_HALF_HEIGHT_PX,
    LABEL_LINE_GAP_PX,
    POINT_CLEARANCE_PX,
    WIDGET_CANVAS,
    LabelCanvas,
    LogPoints,
    PlotPixels,
    PointRows,
    TextBox,
    free_ends,
)
from roofline_widget.look.log_axes import visible_part
from roofline_widget.look.plot_area import DEFAULT_AREA, PlotArea
from roofline_widget.look.texts import ridge_text, roof_tag, text_px

__all__ = ["LABELS_APART_PX", "LABEL_GAP_PX", "LABEL_HALF_HEIGHT_PX", "LABEL_LINE_GAP_PX",
           "LINE_END_CLEARANCE_PX", "POINT_CLEARANCE_PX", "RIDGE_LABEL_DROP_PX",
           "RIDGE_ROOM_PLOT_PX", "SLOPE_LABEL_ALONG", "TURNED_SLOPE_ALONG", "WIDGET_CANVAS",
           "LabelCanvas", "LabelLayout", "LabelSpot", "LogPoints", "label_boxes_px",
           "label_room_decades", "place_labels", "ridge_label_end"]

#: Least room (px) between two labels: the browser draws a text up to about a pixel off its
#: box here (font metrics, whole-pixel offsets).
LABELS_APART_PX = 2
#: A label keeps this far (px) from where a drawn line stops inside the plot (a ceiling cut
#: at a compute roof's height): a line ending closer looks as if it ran into the text.  A
#: label above a line may sit this far and a pixel above it, to keep clear of such an end.
LINE_END_CLEARANCE_PX = 4
#: The ridge label's centre sits this far (px) below the roof.
RIDGE_LABEL_DROP_PX = 12
#: A bandwidth label preferably ends this fraction along the part of its slope inside
#: the axes.
SLOPE_LABEL_ALONG = 0.2
#: Where along the part of a slope inside the axes a turned label may start (fractions).
TURNED_SLOPE_ALONG = (0.08, 0.16, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75)
#: The x axis reaches far enough right of the ridge for the ridge label in a plot this
#: wide (px); in narrower plots the label goes elsewhere.
RIDGE_ROOM_PLOT_PX = 700

#: Anchors tried along a bandwidth slope.
_SLOPE_STEPS = 12
#: Right ends (axis fractions) tried for a compute roof's label, right edge first.
_COMPUTE_ENDS = (1.0, 0.8, 0.6, 0.4)


@dataclass(frozen=True)
class LabelSpot:
    """One placed label.

    Attributes
    ----------
    text : str
        What the label says (:func:`~roofline_widget.look.texts.roof_label`, its
        name cut with "…" where it does not fit), or ``""`` when the line (the
        ridge point) is not inside the axes.
    x, y : float
        Data coordinates of the anchor.  Unturned: the text ends (``align="end"``)
        or begins (``"start"``) the canvas' ``anchor_gap_px`` from ``x`` (the
        Label's ``x_offset``), its vertical centre is at ``y`` (bqplot's Label
        draws ``dominant-baseline: central``).  Turned: a point of the line, the
        text's anchor ``offset_px`` from it.
    align : str
        ``"end"`` or ``"start"``.
    inside : bool
        The text is inside the plot (at every width from ``PlotArea.min_width``).
    clear : bool
        ...and crosses no line, no other label and no point, stacked in the
        order of the lines.
    y_offset_px : int
        How far (px, downwards) the text's centre is from ``y``: 0 for the
        ceilings; the ridge label keeps the ridge point as its anchor.
    angle : float
        Degrees counter-clockwise on screen (0 unless turned along a slope).
    offset_px : (float, float)
        Pixels right and up from the data anchor to the text's anchor (turned labels).
    """

    text: str
    x: float
    y: float
    align: str
    inside: bool
    clear: bool
    y_offset_px: int = 0
    angle: float = 0.0
    offset_px: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class LabelLayout:
    """Every label of a roofline: the ceilings' in the order given, and the ridge's."""

    ceilings: tuple[LabelSpot, ...]
    ridge: LabelSpot | None


@dataclass(frozen=True)
class _Candidate:
    text: str
    anchor: tuple[float, float]   # px: where the text is aligned (its end or start, less the gap)
    align: str
    angle: float = 0.0
    on_line: tuple[float, float] | None = None  # px: the point of the line (turned labels)

    def box(self, canvas: LabelCanvas) -> TextBox:
        width = canvas.text_px(self.text) + canvas.anchor_gap_px
        half = canvas.half_height_px
        x, y = self.anchor
        if self.angle:
            left, right = (-width, 0.0) if self.align == "end" else (0.0, width)
            return TextBox(left, right, -half, half, origin=(x, y), angle=self.angle)
        left, right = (x - width, x) if self.align == "end" else (x, x + width)
        return TextBox(left, right, y - half, y + half)


def _line_pixels(segments: Sequence[dict], axes: PlotPixels) -> list[tuple]:
    """Every straight piece of the drawn lines, as pixel end points."""
    pieces = []
    for segment in segments:
        points = [axes.px(x, y) for x, y in zip(segment["x"], segment["y"]) if x > 0 and y > 0]
        pieces += list(itertools.pairwise(points))
    return pieces


def _free_ends(segments: Sequence[dict], axes: PlotPixels) -> list[tuple[int, tuple]]:
    """:func:`~roofline_widget.look.label_boxes.free_ends` of the drawn lines:
    ``(id(segment), pixel)`` (a ceiling cut at a compute roof's height ends in the open)."""
    lines = [_line_pixels([segment], axes) for segment in segments]
    return [(id(segments[i]), end) for i, end in free_ends(lines, axes.width, axes.height)]


def _visible(segment: dict, axes: PlotPixels) -> bool:
    """Whether some of the line ``segment`` is inside the axes."""
    area = TextBox(0.0, axes.width, 0.0, axes.height)
    return any(area.hits(p, q) for p, q in _line_pixels([segment], axes))


@dataclass(frozen=True)
class _Obstacles:
    """What a label must keep clear of: lines (pixel pieces) and where they stop in the open,
    labels placed, points (pixels)."""

    canvas: LabelCanvas
    lines: list
    placed: list
    points: PointRows    # the pixel centres
    ends: np.ndarray     # the lines' free ends (:func:`_free_ends`)
    higher: tuple = ()   # boxes of the labels of higher lines of the same kind

    def out_of_order(self, box: TextBox) -> int:
        """How many labels of higher lines this one is not below, where they share columns."""
        left, right, centre = box.span
        return sum(1 for other in self.higher
                   if left < other.span[1] and other.span[0] < right and centre >= other.span[2])

    def conflicts(self, candidate: _Candidate, axes: PlotPixels) -> tuple:
        """(outside, labels overlapped, out of order, points covered, lines crossed or
        ending near it)."""
        box = candidate.box(self.canvas)
        return (0 if box.inside(axes.width, axes.height) else 1,
                sum(box.overlaps(other, LABELS_APART_PX) for other in self.placed),
                self.out_of_order(box), box.covers(self.points, self.canvas.point_clearance_px),
                sum(box.hits(p, q) for p, q in self.lines)
                + box.covers(self.ends, LINE_END_CLEARANCE_PX))


def _slope_y(axes: PlotPixels, gbs: float, px_x: float) -> float:
    """Pixel height of the slope ``gbs`` GB/s at pixel ``px_x``."""
    x, _ = axes.data(px_x, 0.0)
    return axes.px(x, gbs * x)[1]


def _compute_candidates(segment: dict, texts: Sequence[str], axes: PlotPixels,
                        canvas: LabelCanvas) -> Iterator[_Candidate]:
    start, y = axes.px(segment["x"][0], segment["value"])
    offset = canvas.line_gap_px + canvas.half_height_px
    raised = LINE_END_CLEARANCE_PX + 1 + canvas.half_height_px  # clear of a line's end below
    for text in texts:
        width = canvas.text_px(text) + canvas.anchor_gap_px
        for end in _COMPUTE_ENDS:
            right = end * axes.width
            if end < 1.0 and right - width < start:
                continue  # only the right edge may stick out over the line's start
            for centre in (y + offset, y - offset, y + raised):
                yield _Candidate(text, (right, centre), "end",
                                 on_line=(right, y) if canvas.turned else None)


def _grid(low: float, high: float, preferred: float) -> list[float]:
    """Positions between ``low`` and ``high``, nearest ``preferred`` first."""
    if high < low:
        return []
    steps = np.linspace(low, high, _SLOPE_STEPS)
    return sorted(steps, key=lambda v: abs(v - preferred))


def _bandwidth_candidates(segment: dict, texts: Sequence[str], axes: PlotPixels,
                          canvas: LabelCanvas) -> Iterator[_Candidate]:
    if canvas.turned:
        yield from _turned_candidates(segment, texts, axes, canvas)
        return
    gbs = segment["value"]
    end = min(axes.px(segment["x"][-1], segment["y"][-1])[0], axes.width)
    enter = max(0.0, _inverse_slope(axes, gbs, 0.0))          # the slope enters the axes
    leave = min(end, _inverse_slope(axes, gbs, axes.height))  # ...and leaves them
    offset = canvas.line_gap_px + canvas.half_height_px
    for text in texts:
        width = canvas.text_px(text) + canvas.anchor_gap_px
        preferred = enter + SLOPE_LABEL_ALONG * (leave - enter)
        # Above the slope, ending on it (align "end"): the slope is lower left of the anchor.
        for x in _grid(max(enter, width), leave, preferred):
            yield _Candidate(text, (x, _slope_y(axes, gbs, x) + offset), "end")
        # Below the slope, starting on it (align "start"): the slope is higher right of it.
        for x in _grid(enter, min(leave, axes.width - width), preferred):
            yield _Candidate(text, (x, _slope_y(axes, gbs, x) - offset), "start")
    # Last resort (a slope barely inside the axes): the short text at the right edge.
    half = canvas.half_height_px
    y = min(max(_slope_y(axes, gbs, leave), half), axes.height - half)
    yield _Candidate(texts[-1], (axes.width, y), "end")


def _turned_candidates(segment: dict, texts: Sequence[str], axes: PlotPixels,
                       canvas: LabelCanvas) -> Iterator[_Candidate]:
    """A slope's label along its line, starting on it at fractions of its part inside the axes."""
    limits = (axes.data(0.0, 0.0), axes.data(axes.width, axes.height))
    part = visible_part(segment["x"], segment["y"], (limits[0][0], limits[1][0]),
                        (limits[0][1], limits[1][1]))
    if part is None:
        return
    (x0, y0), (x1, y1) = (axes.px(*end) for end in part)
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    normal = (-math.sin(math.radians(angle)), math.cos(math.radians(angle)))
    offset = canvas.line_gap_px + canvas.half_height_px
    for text in texts:
        for fraction in TURNED_SLOPE_ALONG:
            point = (x0 + fraction * (x1 - x0), y0 + fraction * (y1 - y0))
            for side in (1, -1):  # above the slope, then below it
                anchor = (point[0] + side * offset * normal[0], point[1] + side * offset * normal[1])
                yield _Candidate(text, anchor, "start", angle, on_line=point)


def _inverse_slope(axes: PlotPixels, gbs: float, px_y: float) -> float:
    """Pixel x where the slope ``gbs`` is at pixel height ``px_y``."""
    _, y = axes.data(0.0, px_y)
    return axes.px(y / gbs, y)[0]


def _ridge_candidates(ridge: tuple[float, float], axes: PlotPixels, canvas: LabelCanvas,
                      short: bool = False) -> Iterator[_Candidate]:
    """The ridge label's spots (``short``: the label without its unit)."""
    x, y = axes.px(*ridge)
    half = canvas.half_height_px
    text = ridge_text(ridge[0], short=short)
    for step in range(4):  # right of the ridge, below the roof, further down each time
        drop = RIDGE_LABEL_DROP_PX + 2 * step * half
        yield _Candidate(text, (x, y - drop), "start")
    # left of the ridge, above the height of the roof (higher: clear of a line's end)
    for gap in (canvas.line_gap_px, LINE_END_CLEARANCE_PX + 1):
        yield _Candidate(text, (x, y + gap + half), "end")


def _choose(candidates: Iterator[_Candidate], axes: PlotPixels,
            obstacles: _Obstacles) -> tuple[_Candidate, tuple]:
    """The first clear candidate, else the least bad one (inside first)."""
    best, best_cost = None, None
    for candidate in candidates:
        cost = obstacles.conflicts(candidate, axes)
        if not any(cost):
            return candidate, cost
        if best_cost is None or cost < best_cost:
            best, best_cost = candidate, cost
    if best is None or best_cost is None:
        raise ValueError("no candidate spot for a label")
    return best, best_cost


def _spot(candidate: _Candidate, cost: tuple, axes: PlotPixels,
          anchor: tuple[float, float] | None = None) -> LabelSpot:
    """The spot of ``candidate``; its data anchor is ``anchor`` if given (then offset in px)."""
    inside, clear = cost[0] == 0, not any(cost)
    if candidate.on_line is not None:  # turned: anchored on its line, the text offset from it
        data_x, data_y = axes.data(*candidate.on_line)
        offset = (candidate.anchor[0] - candidate.on_line[0],
                  candidate.anchor[1] - candidate.on_line[1])
        return LabelSpot(candidate.text, float(data_x), float(data_y), candidate.align, inside,
                         clear, angle=candidate.angle, offset_px=offset)
    data_x, data_y = axes.data(*candidate.anchor)
    y_offset = 0
    if anchor is not None:  # bqplot's offsets are whole pixels
        data_x, data_y = anchor
        y_offset = round(axes.px(*anchor)[1] - candidate.anchor[1])
    return LabelSpot(candidate.text, float(data_x), float(data_y), candidate.align, inside,
                     clear, y_offset_px=y_offset)


def _texts(line: CeilingLine, axes: PlotPixels, canvas: LabelCanvas) -> tuple[str, ...]:
    """The label, and where it is wider than the plot, its name cut with "…" (value kept)."""
    room = axes.width - canvas.anchor_gap_px
    if canvas.text_px(line.text) <= room:
        return (line.text,)
    name = roof_tag(line.roof)
    tail = line.text[len(name):]  # " <value> <unit>" and any " (empirical)"
    while name and canvas.text_px(name + "\u2026" + tail) > room:
        name = name[:-1]
    return (line.text, name.rstrip() + "\u2026" + tail)


def place_labels(ceilings: Sequence[CeilingLine], segments: Sequence[dict],
                 ridge: tuple[float, float] | None, x_range: tuple[float, float],
                 y_range: tuple[float, float], area: PlotArea | LabelCanvas = DEFAULT_AREA,
                 points=((), ())) -> LabelLayout:
    """Place the label of every ceiling and the ridge label.

    Parameters
    ----------
    ceilings : sequence of CeilingLine
        The labelled lines (:func:`~roofline_widget.look.ceiling_lines.ceiling_lines`),
        each kind highest first.
    segments : sequence of dict
        Every line drawn (the ceilings and the roofline): what labels must not cross.
    ridge : (float, float) or None
        The ridge point (intensity, GFLOP/s) whose label ``ridge_text`` is placed
        (unless the canvas has no ridge label).
    x_range, y_range : (float, float)
        The axis limits.
    area : PlotArea or LabelCanvas
        The plot's height and smallest width (the widget's canvas), or the whole canvas.
    points : LogPoints or (array-like, array-like)
        The points drawn (and the layers' dots), or their intensities and
        GFLOP/s: a label covers none of them where it can.

    Returns
    -------
    LabelLayout
        A spot per ceiling (in the order of ``ceilings``) and the ridge's.
    """
    canvas = area if isinstance(area, LabelCanvas) else WIDGET_CANVAS.with_area(area)
    axes = PlotPixels(x_range, y_range, canvas.area)
    lines = (_line_pixels(segments, axes), _free_ends(segments, axes))
    pixels = PointRows(axes.points(points))
    ridge = ridge if canvas.ridge_label else None
    layout, faults = _placed(ceilings, ridge, axes, canvas, lines, pixels, ridge_first=False)
    if faults[0] and ridge is not None:
        # Another device's slope may pass the ridge: the ridge label first, where that leaves
        # fewer conflicts (not a label overlapped for lines crossed) and shortens no ceiling's
        # label more.
        other, fewer = _placed(ceilings, ridge, axes, canvas, lines, pixels, ridge_first=True)
        if (fewer[1] < faults[1]
                and _shortened(other, ceilings) <= _shortened(layout, ceilings)):
            return other
    return layout


def _shortened(layout: LabelLayout, ceilings: Sequence[CeilingLine]) -> int:
    """How many ceilings' labels are cut (their full text did not fit)."""
    return sum(spot.text != line.text for spot, line in zip(layout.ceilings, ceilings)
               if spot.text)


def _placed(ceilings: Sequence[CeilingLine], ridge: tuple[float, float] | None,
            axes: PlotPixels, canvas: LabelCanvas, lines: tuple, pixels: PointRows, *,
            ridge_first: bool) -> tuple[LabelLayout, tuple[int, int]]:
    """The labels placed one after the other (the ridge's first or last), how many overlap
    and how many conflicts there are in all (overlaps, out of order, points, lines)."""
    placed: list[TextBox] = []
    overlaps = faults = 0
    ridge_spot = None

    def obstacles(higher: tuple = (), own: dict | None = None) -> _Obstacles:
        ends = [end for segment, end in lines[1] if segment != id(own)]  # not its own line's
        return _Obstacles(canvas, lines[0], placed, pixels,
                          np.array(ends, dtype=float).reshape(-1, 2), higher)

    def keep(candidate: _Candidate, cost: tuple) -> None:
        nonlocal overlaps, faults
        placed.append(candidate.box(canvas))
        overlaps += cost[1]
        faults += sum(cost[1:])

    def place_ridge() -> LabelSpot | None:
        if ridge is None:
            return None
        if not axes.contains(*ridge):
            return LabelSpot("", float(ridge[0]), float(ridge[1]), "start", True, True)
        candidate, cost = _choose(_ridge_candidates(ridge, axes, canvas), axes, obstacles())
        if cost[0] or cost[1]:  # the whole label fits nowhere inside, clear of the labels
            shorter = _choose(_ridge_candidates(ridge, axes, canvas, short=True), axes,
                              obstacles())
            candidate, cost = min((candidate, cost), shorter, key=lambda pair: pair[1])
        keep(candidate, cost)
        return _spot(candidate, cost, axes, anchor=ridge)

    if ridge_first:
        ridge_spot = place_ridge()
    spots: dict[int, LabelSpot] = {}
    higher: dict[str, list[TextBox]] = {"compute": [], "bandwidth": []}  # placed, per kind
    order = sorted(range(len(ceilings)), key=lambda i: ceilings[i].kind != "compute")
    for i in order:
        line = ceilings[i]
        segment = line.segment
        if not _visible(segment, axes):  # zoomed away: no label
            spots[i] = LabelSpot("", float(segment["x"][0]), float(segment["y"][0]), "end",
                                 inside=True, clear=True)
            continue
        make: Callable = (_compute_candidates if line.kind == "compute"
                          else _bandwidth_candidates)
        candidate, cost = _choose(make(segment, _texts(line, axes, canvas), axes, canvas),
                                  axes, obstacles(tuple(higher[line.kind]), segment))
        keep(candidate, cost)
        higher[line.kind].append(candidate.box(canvas))
        spots[i] = _spot(candidate, cost, axes)
    if not ridge_first:
        ridge_spot = place_ridge()
    return LabelLayout(tuple(spots[i] for i in range(len(ceilings))), ridge_spot), (overlaps,
                                                                                   faults)


def label_boxes_px(layout: LabelLayout, x_range, y_range,
                   area: PlotArea | LabelCanvas) -> list[tuple]:
    """``(text, left, right, bottom, top)`` of every label in the narrowest plot (pixels).

    A turned label's box is the one around its turned rectangle.
    """
    canvas = area if isinstance(area, LabelCanvas) else WIDGET_CANVAS.with_area(area)
    axes = PlotPixels(x_range, y_range, canvas.area)
    spots = [*layout.ceilings, *([layout.ridge] if layout.ridge is not None else [])]
    boxes = []
    for spot in spots:
        x, y = axes.px(spot.x, spot.y)
        anchor = (x + spot.offset_px[0], y + spot.offset_px[1] - spot.y_offset_px)
        box = _Candidate(spot.text, anchor, spot.align, spot.angle).box(canvas)
        corners = box.corners
        boxes.append((spot.text, float(corners[:, 0].min()), float(corners[:, 0].max()),
                      float(corners[:, 1].min()), float(corners[:, 1].max())))
    return boxes


def label_room_decades(text: str, decades: float, plot_px: float = RIDGE_ROOM_PLOT_PX) -> float:
    """Decades a label takes next to ``decades`` of axis in a plot ``plot_px`` wide."""
    width = text_px(text) + LABEL_GAP_PX
    return max(decades, 1.0) * width / (plot_px - width)


def ridge_label_end(ridge: float, x_low: float) -> float:
    """The intensity up to which the x axis must reach for the ridge label to fit.

    The label starts at the ridge and takes ``width / (RIDGE_ROOM_PLOT_PX - width)``
    of the decades left of the ridge.
    """
    return ridge * 10 ** label_room_decades(ridge_text(ridge), math.log10(ridge / x_low))
