"""Where the ceiling and ridge labels of the widget's figure sit.

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
the points and of the lines, and stacked in the order of the lines (the label
of a lower roof of its kind below the label of a higher one).  A name too long
for the narrowest plot is cut (``"…"``, the value kept); the least bad spot is
taken when nothing fits.  Where labels still overlap (another device's slope
passing the ridge), the ridge label goes first instead if that overlaps less
and cuts no more labels.  The placement is worked out again whenever the
lines or the axes move (a peak slider, a zoom): a label stays on its line.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from roofline_widget.look.ceiling_lines import CeilingLine
from roofline_widget.look.log_axes import clip_segment, showable
from roofline_widget.look.markers import POINT_SIZE
from roofline_widget.look.plot_area import DEFAULT_AREA, PlotArea
from roofline_widget.look.texts import ridge_text, roof_tag, text_px

__all__ = [
    "LABELS_APART_PX",
    "LABEL_GAP_PX",
    "LABEL_HALF_HEIGHT_PX",
    "LABEL_LINE_GAP_PX",
    "POINT_CLEARANCE_PX",
    "RIDGE_LABEL_DROP_PX",
    "RIDGE_ROOM_PLOT_PX",
    "SLOPE_LABEL_ALONG",
    "LabelLayout",
    "LabelSpot",
    "LogPoints",
    "label_boxes_px",
    "label_room_decades",
    "place_labels",
    "ridge_label_end",
]

#: Horizontal gap (px) between a label's text and its anchor.
LABEL_GAP_PX = 5
#: Vertical gap (px) between a label's text and the line it names.
LABEL_LINE_GAP_PX = 2
#: Least room (px) between two labels: the browser draws a text up to about a pixel off its
#: box here (font metrics, whole-pixel offsets).
LABELS_APART_PX = 2
#: Half the height (px) of a label's text box (a 12 px font draws 14 px high).
LABEL_HALF_HEIGHT_PX = 0.6 * 12
#: A label keeps this far (px) from a point's centre: the radius of a point of
#: ``POINT_SIZE`` (an area in px^2) and one pixel.
POINT_CLEARANCE_PX = math.sqrt(POINT_SIZE) / 2 + 1
#: The ridge label's centre sits this far (px) below the roof.
RIDGE_LABEL_DROP_PX = 12
#: A bandwidth label preferably ends this fraction along the part of its slope inside
#: the axes.
SLOPE_LABEL_ALONG = 0.2
#: The x axis reaches far enough right of the ridge for the ridge label in a plot this
#: wide (px); in narrower plots the label goes elsewhere.
RIDGE_ROOM_PLOT_PX = 700

#: Anchors tried along a bandwidth slope.
_SLOPE_STEPS = 12
#: Right ends (axis fractions) tried for a compute roof's label, right edge first.
_COMPUTE_ENDS = (1.0, 0.8, 0.6, 0.4)
_EPS = 1e-9


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
        Data coordinates of the anchor: the text ends (``align="end"``) or
        begins (``"start"``) ``LABEL_GAP_PX`` from ``x`` (the Label's
        ``x_offset``), its vertical centre is at ``y`` (bqplot's Label draws
        ``dominant-baseline: central``; ``y_offset`` 0).
    align : str
        ``"end"`` or ``"start"``.
    inside : bool
        The text is inside the plot at every width from ``PlotArea.min_width``.
    clear : bool
        ...and crosses no line, no other label and no point, stacked in the
        order of the lines.
    y_offset_px : int
        How far (px, downwards) the text's centre is from ``y``: 0 for the
        ceilings; the ridge label keeps the ridge point as its anchor.
    """

    text: str
    x: float
    y: float
    align: str
    inside: bool
    clear: bool
    y_offset_px: int = 0


@dataclass(frozen=True)
class LabelLayout:
    """Every label of a roofline: the ceilings' in the order given, and the ridge's."""

    ceilings: tuple[LabelSpot, ...]
    ridge: LabelSpot | None


@dataclass(frozen=True)
class _Box:
    """A text's extent in the narrowest plot: pixels from the left and from the bottom."""

    left: float
    right: float
    bottom: float
    top: float

    def overlaps(self, other: _Box) -> bool:
        """Whether the two boxes come closer than ``LABELS_APART_PX``."""
        gap = LABELS_APART_PX
        return (self.left < other.right + gap and other.left < self.right + gap
                and self.bottom < other.top + gap and other.bottom < self.top + gap)


class _Axes:
    """Data coordinates to pixels of the narrowest plot, and back (log axes)."""

    def __init__(self, x_range, y_range, area: PlotArea) -> None:
        self.lx0, self.lx1 = np.log10(x_range)
        self.ly0, self.ly1 = np.log10(y_range)
        self.width, self.height = float(area.min_width), float(area.height)

    def px(self, x, y) -> tuple[float, float]:
        return (self.width * (math.log10(x) - self.lx0) / (self.lx1 - self.lx0),
                self.height * (math.log10(y) - self.ly0) / (self.ly1 - self.ly0))

    def data(self, px_x: float, px_y: float) -> tuple[float, float]:
        return (10.0 ** (self.lx0 + px_x / self.width * (self.lx1 - self.lx0)),
                10.0 ** (self.ly0 + px_y / self.height * (self.ly1 - self.ly0)))

    def inside(self, box: _Box) -> bool:
        return (box.left >= -_EPS and box.right <= self.width + _EPS
                and box.bottom >= -_EPS and box.top <= self.height + _EPS)


@dataclass(frozen=True)
class _Candidate:
    text: str
    anchor: tuple[float, float]   # px: x of the anchor, y of the text's centre
    align: str

    def box(self) -> _Box:
        width = text_px(self.text) + LABEL_GAP_PX
        x, y = self.anchor
        half = LABEL_HALF_HEIGHT_PX
        left, right = (x - width, x) if self.align == "end" else (x, x + width)
        return _Box(left, right, y - half, y + half)


def _segment_hits(box: _Box, p: tuple[float, float], q: tuple[float, float]) -> bool:
    """Whether the segment ``p``-``q`` passes through the inside of ``box``."""
    return clip_segment(p, q, (box.left, box.bottom), (box.right, box.top)) is not None


@dataclass(frozen=True)
class LogPoints:
    """The base-10 logarithms of the points a log axis can show: what the labels keep clear of.

    Worked out once per drawing (a peak drag or a zoom moves the axes, not the
    points): :meth:`of` the points' ``(intensities, GFLOP/s)``.
    """

    x: np.ndarray
    y: np.ndarray

    @classmethod
    def of(cls, points) -> LogPoints:
        """From ``(x values, y values)``; points a log axis cannot show are left out."""
        x, y = (np.asarray(values, dtype=float) for values in points)
        if x.shape != y.shape or not x.size:
            return cls(np.zeros(0), np.zeros(0))
        keep = showable(x) & showable(y)
        return cls(np.log10(x[keep]), np.log10(y[keep]))


def _point_pixels(points, axes: _Axes) -> np.ndarray:
    """Pixel centres of ``points`` (:class:`LogPoints`, or ``(x values, y values)``)."""
    logs = points if isinstance(points, LogPoints) else LogPoints.of(points)
    px_x = axes.width * (logs.x - axes.lx0) / (axes.lx1 - axes.lx0)
    px_y = axes.height * (logs.y - axes.ly0) / (axes.ly1 - axes.ly0)
    return np.column_stack([px_x, px_y])


def _line_pixels(segments: Sequence[dict], axes: _Axes) -> list[tuple]:
    """Every straight piece of the drawn lines, as pixel end points."""
    pieces = []
    for segment in segments:
        points = [axes.px(x, y) for x, y in zip(segment["x"], segment["y"]) if x > 0 and y > 0]
        pieces += list(itertools.pairwise(points))
    return pieces


def _visible(segment: dict, axes: _Axes) -> bool:
    """Whether some of the line ``segment`` is inside the axes."""
    area = _Box(0.0, axes.width, 0.0, axes.height)
    return any(_segment_hits(area, p, q) for p, q in _line_pixels([segment], axes))


def _inside_point(axes: _Axes, x: float, y: float) -> bool:
    px_x, px_y = axes.px(x, y)
    return 0.0 <= px_x <= axes.width and 0.0 <= px_y <= axes.height


@dataclass(frozen=True)
class _Obstacles:
    """What a label must keep clear of: lines (pixel pieces), labels placed, points (pixels)."""

    lines: list
    placed: list
    points: np.ndarray   # (n, 2) pixel centres
    higher: tuple = ()   # boxes of the labels of higher lines of the same kind

    def out_of_order(self, box: _Box) -> int:
        """How many labels of higher lines this one is not below, where they share columns."""
        centre = (box.bottom + box.top) / 2
        return sum(1 for other in self.higher
                   if box.left < other.right and other.left < box.right
                   and centre >= (other.bottom + other.top) / 2)

    def points_covered(self, box: _Box) -> int:
        if not len(self.points):
            return 0
        x, y = self.points[:, 0], self.points[:, 1]
        reach = POINT_CLEARANCE_PX
        return int(np.count_nonzero((x > box.left - reach) & (x < box.right + reach)
                                    & (y > box.bottom - reach) & (y < box.top + reach)))


def _conflicts(candidate: _Candidate, axes: _Axes, obstacles: _Obstacles) -> tuple:
    """(outside, labels overlapped, out of order, points covered, lines crossed) of a candidate."""
    box = candidate.box()
    return (0 if axes.inside(box) else 1, sum(box.overlaps(other) for other in obstacles.placed),
            obstacles.out_of_order(box), obstacles.points_covered(box),
            sum(_segment_hits(box, p, q) for p, q in obstacles.lines))


def _slope_y(axes: _Axes, gbs: float, px_x: float) -> float:
    """Pixel height of the slope ``gbs`` GB/s at pixel ``px_x``."""
    x, _ = axes.data(px_x, 0.0)
    return axes.px(x, gbs * x)[1]


def _compute_candidates(segment: dict, texts: Sequence[str], axes: _Axes) -> Iterator[_Candidate]:
    start, y = axes.px(segment["x"][0], segment["value"])
    offset = LABEL_LINE_GAP_PX + LABEL_HALF_HEIGHT_PX
    for text in texts:
        width = text_px(text) + LABEL_GAP_PX
        for end in _COMPUTE_ENDS:
            right = end * axes.width
            if end < 1.0 and right - width < start:
                continue  # only the right edge may stick out over the line's start
            for centre in (y + offset, y - offset):
                yield _Candidate(text, (right, centre), "end")


def _grid(low: float, high: float, preferred: float) -> list[float]:
    """Positions between ``low`` and ``high``, nearest ``preferred`` first."""
    if high < low:
        return []
    steps = np.linspace(low, high, _SLOPE_STEPS)
    return sorted(steps, key=lambda v: abs(v - preferred))


def _bandwidth_candidates(segment: dict, texts: Sequence[str],
                          axes: _Axes) -> Iterator[_Candidate]:
    gbs = segment["value"]
    end = min(axes.px(segment["x"][-1], segment["y"][-1])[0], axes.width)
    enter = max(0.0, _inverse_slope(axes, gbs, 0.0))          # the slope enters the axes
    leave = min(end, _inverse_slope(axes, gbs, axes.height))  # ...and leaves them
    offset = LABEL_LINE_GAP_PX + LABEL_HALF_HEIGHT_PX
    for text in texts:
        width = text_px(text) + LABEL_GAP_PX
        preferred = enter + SLOPE_LABEL_ALONG * (leave - enter)
        # Above the slope, ending on it (align "end"): the slope is lower left of the anchor.
        for x in _grid(max(enter, width), leave, preferred):
            yield _Candidate(text, (x, _slope_y(axes, gbs, x) + offset), "end")
        # Below the slope, starting on it (align "start"): the slope is higher right of it.
        for x in _grid(enter, min(leave, axes.width - width), preferred):
            yield _Candidate(text, (x, _slope_y(axes, gbs, x) - offset), "start")
    # Last resort (a slope barely inside the axes): the short text at the right edge.
    half = LABEL_HALF_HEIGHT_PX
    y = min(max(_slope_y(axes, gbs, leave), half), axes.height - half)
    yield _Candidate(texts[-1], (axes.width, y), "end")


def _inverse_slope(axes: _Axes, gbs: float, px_y: float) -> float:
    """Pixel x where the slope ``gbs`` is at pixel height ``px_y``."""
    _, y = axes.data(0.0, px_y)
    return axes.px(y / gbs, y)[0]


def _ridge_candidates(text: str, ridge: tuple[float, float], axes: _Axes) -> Iterator[_Candidate]:
    x, y = axes.px(*ridge)
    for step in range(4):  # right of the ridge, below the roof, further down each time
        drop = RIDGE_LABEL_DROP_PX + 2 * step * LABEL_HALF_HEIGHT_PX
        yield _Candidate(text, (x, y - drop), "start")
    # left of the ridge, above the height of the roof
    yield _Candidate(text, (x, y + LABEL_LINE_GAP_PX + LABEL_HALF_HEIGHT_PX), "end")


def _choose(candidates: Iterator[_Candidate], axes: _Axes,
            obstacles: _Obstacles) -> tuple[_Candidate, tuple]:
    """The first clear candidate, else the least bad one (inside first)."""
    best, best_cost = None, None
    for candidate in candidates:
        cost = _conflicts(candidate, axes, obstacles)
        if not any(cost):
            return candidate, cost
        if best_cost is None or cost < best_cost:
            best, best_cost = candidate, cost
    if best is None or best_cost is None:
        raise ValueError("no candidate spot for a label")
    return best, best_cost


def _spot(candidate: _Candidate, cost: tuple, axes: _Axes,
          anchor: tuple[float, float] | None = None) -> LabelSpot:
    """The spot of ``candidate``; its data anchor is ``anchor`` if given (then offset in px)."""
    data_x, data_y = axes.data(*candidate.anchor)
    offset = 0
    if anchor is not None:  # bqplot's offsets are whole pixels
        data_x, data_y = anchor
        offset = round(axes.px(*anchor)[1] - candidate.anchor[1])
    return LabelSpot(candidate.text, float(data_x), float(data_y), candidate.align,
                     inside=cost[0] == 0, clear=not any(cost), y_offset_px=offset)


def _texts(line: CeilingLine, axes: _Axes) -> tuple[str, ...]:
    """The label, and where it is wider than the plot, its name cut with "…" (value kept)."""
    room = axes.width - LABEL_GAP_PX
    if text_px(line.text) <= room:
        return (line.text,)
    name = roof_tag(line.roof)
    tail = line.text[len(name):]  # " <value> <unit>" and any " (empirical)"
    while name and text_px(name + "\u2026" + tail) > room:
        name = name[:-1]
    return (line.text, name.rstrip() + "\u2026" + tail)


def place_labels(ceilings: Sequence[CeilingLine], segments: Sequence[dict],
                 ridge: tuple[float, float] | None, x_range: tuple[float, float],
                 y_range: tuple[float, float], area: PlotArea = DEFAULT_AREA,
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
        The ridge point (intensity, GFLOP/s) whose label ``ridge_text`` is placed.
    x_range, y_range : (float, float)
        The axis limits.
    area : PlotArea
        The plot's height and smallest width.
    points : LogPoints or (array-like, array-like)
        The points drawn (and the layers' dots), or their intensities and
        GFLOP/s: a label covers none of them where it can.

    Returns
    -------
    LabelLayout
        A spot per ceiling (in the order of ``ceilings``) and the ridge's.
    """
    axes = _Axes(x_range, y_range, area)
    lines = _line_pixels(segments, axes)
    pixels = _point_pixels(points, axes)
    layout, overlaps = _placed(ceilings, ridge, axes, lines, pixels, ridge_first=False)
    if overlaps:
        # Another device's slope may pass the ridge: the ridge label first, where that overlaps
        # less and shortens no ceiling's label more.
        other, fewer = _placed(ceilings, ridge, axes, lines, pixels, ridge_first=True)
        if fewer < overlaps and _shortened(other, ceilings) <= _shortened(layout, ceilings):
            return other
    return layout


def _shortened(layout: LabelLayout, ceilings: Sequence[CeilingLine]) -> int:
    """How many ceilings' labels are cut (their full text did not fit)."""
    return sum(spot.text != line.text for spot, line in zip(layout.ceilings, ceilings)
               if spot.text)


def _placed(ceilings: Sequence[CeilingLine], ridge: tuple[float, float] | None, axes: _Axes,
            lines: list, pixels: np.ndarray, *, ridge_first: bool) -> tuple[LabelLayout, int]:
    """The labels placed one after the other (the ridge's first or last), and how many overlap."""
    placed: list[_Box] = []
    overlaps = 0
    ridge_spot = None

    def place_ridge() -> LabelSpot | None:
        nonlocal overlaps
        if ridge is None:
            return None
        if not _inside_point(axes, *ridge):
            return LabelSpot("", float(ridge[0]), float(ridge[1]), "start", True, True)
        candidate, cost = _choose(_ridge_candidates(ridge_text(ridge[0]), ridge, axes),
                                  axes, _Obstacles(lines, placed, pixels))
        placed.append(candidate.box())
        overlaps += cost[1]
        return _spot(candidate, cost, axes, anchor=ridge)

    if ridge_first:
        ridge_spot = place_ridge()
    spots: dict[int, LabelSpot] = {}
    higher: dict[str, list[_Box]] = {"compute": [], "bandwidth": []}  # placed, per kind
    order = sorted(range(len(ceilings)), key=lambda i: ceilings[i].kind != "compute")
    for i in order:
        line = ceilings[i]
        segment = line.segment
        if not _visible(segment, axes):  # zoomed away: no label
            spots[i] = LabelSpot("", float(segment["x"][0]), float(segment["y"][0]), "end",
                                 inside=True, clear=True)
            continue
        texts = _texts(line, axes)
        if line.kind == "compute":
            candidates = _compute_candidates(segment, texts, axes)
        else:
            candidates = _bandwidth_candidates(segment, texts, axes)
        obstacles = _Obstacles(lines, placed, pixels, tuple(higher[line.kind]))
        candidate, cost = _choose(candidates, axes, obstacles)
        placed.append(candidate.box())
        higher[line.kind].append(candidate.box())
        overlaps += cost[1]
        spots[i] = _spot(candidate, cost, axes)
    if not ridge_first:
        ridge_spot = place_ridge()
    return LabelLayout(tuple(spots[i] for i in range(len(ceilings))), ridge_spot), overlaps


def label_boxes_px(layout: LabelLayout, x_range, y_range, area: PlotArea) -> list[tuple]:
    """``(text, left, right, bottom, top)`` of every label in the narrowest plot (pixels)."""
    axes = _Axes(x_range, y_range, area)
    spots = [*layout.ceilings, *([layout.ridge] if layout.ridge is not None else [])]
    boxes = []
    for spot in spots:
        x, y = axes.px(spot.x, spot.y)
        box = _Candidate(spot.text, (x, y - spot.y_offset_px), spot.align).box()
        boxes.append((spot.text, box.left, box.right, box.bottom, box.top))
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
