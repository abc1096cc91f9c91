"""Labels on a log-log plot in pixels: the canvas, a text's box, turned or not, what it overlaps.

:class:`LabelCanvas` says what labels are placed for: the plot's size and how
its texts are drawn (the widget's: :data:`WIDGET_CANVAS`).

:class:`PlotPixels` maps data to the pixels of a plot area (log axes, y up) and
back; :class:`TextBox` is the rectangle a label's text covers there, in its own
frame (``left``/``right`` along the text, ``bottom``/``top`` across it) about an
``origin``, turned by ``angle`` (a static plot's slope label runs along its
line).  A box tells whether it lies inside the plot, overlaps another box,
crosses a line or covers points; an unturned box does so with the plain
comparisons of an axis-aligned rectangle.  :class:`LogPoints` are the points a
label keeps clear of, their logarithms worked out once per drawing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from roofline_widget.look.log_axes import clip_segment, showable
from roofline_widget.look.markers import POINT_SIZE
from roofline_widget.look.plot_area import DEFAULT_AREA, PlotArea
from roofline_widget.look.texts import LABEL_SIZE, text_px

__all__ = [
    "LABEL_GAP_PX",
    "LABEL_HALF_HEIGHT_PX",
    "LABEL_LINE_GAP_PX",
    "POINT_CLEARANCE_PX",
    "WIDGET_CANVAS",
    "LabelCanvas",
    "LogPoints",
    "PlotPixels",
    "PointRows",
    "TextBox",
    "free_ends",
    "segment_distance",
]

#: Horizontal gap (px) between a label's text and its anchor.
LABEL_GAP_PX = 5
#: Vertical gap (px) between a label's text and the line it names.
LABEL_LINE_GAP_PX = 2
#: Half the height (px) of a label's text box (a 12 px font draws 14 px high).
LABEL_HALF_HEIGHT_PX = 0.6 * 12
#: A label keeps this far (px) from a point's centre: the radius of a point of
#: ``POINT_SIZE`` (an area in px^2) and one pixel.
POINT_CLEARANCE_PX = math.sqrt(POINT_SIZE) / 2 + 1
_EPS = 1e-9


@dataclass(frozen=True)
class LabelCanvas:
    """What the labels are placed for: the plot's size in pixels and how its texts are drawn.

    Attributes
    ----------
    area : PlotArea
        The plot (inside the axes): the widget's narrowest, or a static figure's exact size.
    font_px : float
        The labels' font size (px); text widths are :func:`~roofline_widget.look.texts.text_px`
        scaled to it.
    anchor_gap_px : float
        Gap between a text's end (or start) and its anchor, along the text.
    line_gap_px : float
        Gap between a text and the line it names.
    point_clearance_px : float
        How far a label keeps from a point's centre.
    turned : bool
        False: every label horizontal (the widget, whose width the kernel does not
        know); True: a slope's label turned along its line as drawn, its anchor on
        the line (a static figure of a known size).
    ridge_label : bool
        Whether the ridge point gets a label.
    """

    area: PlotArea = DEFAULT_AREA
    font_px: float = LABEL_SIZE
    anchor_gap_px: float = LABEL_GAP_PX
    line_gap_px: float = LABEL_LINE_GAP_PX
    point_clearance_px: float = POINT_CLEARANCE_PX
    turned: bool = False
    ridge_label: bool = True

    @property
    def half_height_px(self) -> float:
        """Half the height of a label's text box."""
        return 0.6 * self.font_px

    def text_px(self, text: str) -> float:
        """The width (px) a label's text takes at most (an estimate)."""
        width = text_px(text)
        return width if self.font_px == LABEL_SIZE else width * self.font_px / LABEL_SIZE

    def with_area(self, area: PlotArea) -> LabelCanvas:
        """The same canvas for a plot of another size."""
        return self if area == self.area else replace(self, area=area)


#: The widget's canvas: its narrowest plot, 12 px labels, every label horizontal.
WIDGET_CANVAS = LabelCanvas()




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
        """From ``(x values, y values)`` (or a LogPoints); points a log axis cannot show are left out."""
        if isinstance(points, LogPoints):
            return points
        x, y = (np.asarray(values, dtype=float) for values in points)
        if x.shape != y.shape or not x.size:
            return cls(np.zeros(0), np.zeros(0))
        keep = showable(x) & showable(y)
        return cls(np.log10(x[keep]), np.log10(y[keep]))


class PlotPixels:
    """Data coordinates to pixels of a plot area (log axes, y up from the bottom), and back."""

    def __init__(self, x_range, y_range, area: PlotArea) -> None:
        self.lx0, self.lx1 = np.log10(x_range)
        self.ly0, self.ly1 = np.log10(y_range)
        self.width, self.height = float(area.min_width), float(area.height)

    def px(self, x, y) -> tuple[float, float]:
        """The pixel of the data point ``(x, y)``."""
        return (self.width * (math.log10(x) - self.lx0) / (self.lx1 - self.lx0),
                self.height * (math.log10(y) - self.ly0) / (self.ly1 - self.ly0))

    def data(self, px_x: float, px_y: float) -> tuple[float, float]:
        """The data point at pixel ``(px_x, px_y)``."""
        return (10.0 ** (self.lx0 + px_x / self.width * (self.lx1 - self.lx0)),
                10.0 ** (self.ly0 + px_y / self.height * (self.ly1 - self.ly0)))

    def points(self, points) -> np.ndarray:
        """Pixel centres ``(n, 2)`` of ``points`` (:class:`LogPoints` or ``(x values, y values)``)."""
        logs = LogPoints.of(points)
        return np.column_stack([self.width * (logs.x - self.lx0) / (self.lx1 - self.lx0),
                                self.height * (logs.y - self.ly0) / (self.ly1 - self.ly0)])

    def contains(self, x: float, y: float) -> bool:
        """Whether the data point ``(x, y)`` lies inside the plot area."""
        px_x, px_y = self.px(x, y)
        return 0.0 <= px_x <= self.width and 0.0 <= px_y <= self.height


@dataclass(frozen=True)
class TextBox:
    """The rectangle a label's text covers, in pixels of the plot area.

    Attributes
    ----------
    left, right, bottom, top : float
        Its edges in its own frame: along the text and across it, from ``origin``.
    origin : (float, float)
        The pixel its frame starts at (``(0, 0)``: the edges are the plot's pixels).
    angle : float
        How far it is turned, degrees counter-clockwise on screen.
    """

    left: float
    right: float
    bottom: float
    top: float
    origin: tuple[float, float] = (0.0, 0.0)
    angle: float = 0.0

    @property
    def plain(self) -> bool:
        """Unturned at the origin: its edges are the plot's pixels (plain comparisons, fast)."""
        return self.angle == 0.0 and self.origin == (0.0, 0.0)

    @cached_property
    def _turn(self) -> tuple[float, float]:
        return math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))

    @cached_property
    def _axes(self) -> np.ndarray:
        """The box's own x and y directions (rows), in the plot's pixels."""
        cos, sin = self._turn
        return np.array([(cos, sin), (-sin, cos)])

    def to_local(self, points: np.ndarray) -> np.ndarray:
        """Pixels ``(n, 2)`` of the plot in the box's own frame."""
        return (np.asarray(points, dtype=float) - self.origin) @ self._axes.T

    @cached_property
    def corners(self) -> np.ndarray:
        """The four corners ``(4, 2)`` in the plot's pixels."""
        local = np.array([(self.left, self.bottom), (self.right, self.bottom),
                          (self.right, self.top), (self.left, self.top)])
        return self.origin + local @ self._axes

    @cached_property
    def span(self) -> tuple[float, float, float]:
        """Leftmost and rightmost pixel, and the height of the centre (for stacking)."""
        if self.plain:
            return self.left, self.right, (self.bottom + self.top) / 2
        x, y = self.corners[:, 0], self.corners[:, 1]
        return float(x.min()), float(x.max()), float(y.mean())

    def inside(self, width: float, height: float) -> bool:
        """Whether the box lies inside a plot ``width`` x ``height`` px."""
        if self.plain:
            return (self.left >= -_EPS and self.right <= width + _EPS
                    and self.bottom >= -_EPS and self.top <= height + _EPS)
        x, y = self.corners[:, 0], self.corners[:, 1]
        return bool((x >= -_EPS).all() and (x <= width + _EPS).all()
                    and (y >= -_EPS).all() and (y <= height + _EPS).all())

    def overlaps(self, other: TextBox, gap: float) -> bool:
        """Whether the two boxes come closer than ``gap`` px (no separating edge direction)."""
        if self.plain and other.plain:
            return (self.left < other.right + gap and other.left < self.right + gap
                    and self.bottom < other.top + gap and other.bottom < self.top + gap)
        for axis in (*self._axes, *other._axes):
            a, b = self.corners @ axis, other.corners @ axis
            if a.max() + gap <= b.min() or b.max() + gap <= a.min():
                return False
        return True

    def hits(self, p: tuple[float, float], q: tuple[float, float]) -> bool:
        """Whether the segment ``p``-``q`` (pixels) passes through the inside of the box."""
        if self.angle or self.origin != (0.0, 0.0):  # plain floats: called thousands of times
            (cos, sin), (ox, oy) = self._turn, self.origin
            p, q = ((cos * (x - ox) + sin * (y - oy), cos * (y - oy) - sin * (x - ox))
                    for x, y in (p, q))
        elif (max(p[0], q[0]) < self.left or min(p[0], q[0]) > self.right
              or max(p[1], q[1]) < self.bottom or min(p[1], q[1]) > self.top):
            return False  # wholly on one side (what clip_segment finds, in fewer steps)
        return clip_segment(p, q, (self.left, self.bottom), (self.right, self.top)) is not None

    def covers(self, points: np.ndarray | PointRows, reach: float) -> int:
        """How many pixel centres ``(n, 2)`` (or :class:`PointRows`) lie within ``reach`` px of
        the box."""
        if isinstance(points, PointRows):
            if self.plain:  # only the rows of points near the box are looked at
                return points.count(self.left - reach, self.right + reach,
                                     self.bottom - reach, self.top + reach)
            points = points.points
        if not len(points):
            return 0
        local = points if self.plain else self.to_local(points)
        x, y = local[:, 0], local[:, 1]
        return int(np.count_nonzero((x > self.left - reach) & (x < self.right + reach)
                                    & (y > self.bottom - reach) & (y < self.top + reach)))


class PointRows:
    """Pixel centres sorted by rows of pixels: a box's count looks at the rows it spans only.

    A label's box is a strip a few pixels high, so counting the points inside it
    (:meth:`count`) compares the points of its rows, not all 50,000 of them: the
    same comparisons on the same numbers, so the same counts.

    Parameters
    ----------
    points : numpy.ndarray
        Pixel centres ``(n, 2)``; those not finite are left out (no box holds them).
    """

    #: At most this many rows (a taller spread of points gets taller rows).
    MAX_ROWS = 60_000

    def __init__(self, points: np.ndarray) -> None:
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        if not np.isfinite(points).all():
            points = points[np.isfinite(points[:, 0]) & np.isfinite(points[:, 1])]
        self.points = points
        y = points[:, 1]
        self._y0 = float(y.min()) if len(y) else 0.0
        span = float(y.max()) - self._y0 if len(y) else 0.0
        self._row_px = max(2.0, span / (self.MAX_ROWS - 1))
        rows = ((y - self._y0) / self._row_px).astype(np.uint16)  # >= 0: truncation floors
        order = np.argsort(rows, kind="stable")  # 16-bit keys: a radix sort
        self._x, self._y = points[:, 0][order], y[order]
        self._starts = np.searchsorted(rows[order], np.arange(int(rows.max(initial=0)) + 2))

    def __len__(self) -> int:
        return len(self.points)

    def count(self, left: float, right: float, bottom: float, top: float) -> int:
        """How many points lie strictly inside ``left < x < right``, ``bottom < y < top``."""
        last = len(self._starts) - 2  # rows a row off either way: rounding never loses a point
        low = max(math.floor((bottom - self._y0) / self._row_px) - 1, 0)
        high = min(math.floor((top - self._y0) / self._row_px) + 1, last)
        if high < low:
            return 0
        start, stop = self._starts[low], self._starts[high + 1]
        x, y = self._x[start:stop], self._y[start:stop]
        return int(np.count_nonzero((x > left) & (x < right) & (y > bottom) & (y < top)))


def free_ends(lines: Sequence[Sequence[tuple]], width: float,
              height: float) -> list[tuple[int, tuple]]:
    """Where a line stops inside a plot of ``width`` x ``height`` px, on no other line.

    ``lines``: each line's straight pieces as pixel end points, in order.  Returns
    ``(index of the line, end pixel)`` per such end: a line ending at or beyond the plot's
    edge, or on another line (the ridge point, where the roofline's slope and roof meet),
    has none.
    """
    ends = []
    for i, pieces in enumerate(lines):
        if not pieces:
            continue
        for end in (pieces[0][0], pieces[-1][1]):
            if not (0.0 < end[0] < width and 0.0 < end[1] < height):
                continue
            others = (piece for j, other in enumerate(lines) if j != i for piece in other)
            if all(segment_distance(end, p, q) > 1.0 for p, q in others):
                ends.append((i, end))
    return ends


def segment_distance(point: tuple, p: tuple, q: tuple) -> float:
    """Pixels from ``point`` to the segment ``p``-``q``."""
    (x, y), (x0, y0), (x1, y1) = point, p, q
    dx, dy = x1 - x0, y1 - y0
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else min(max(((x - x0) * dx + (y - y0) * dy) / length, 0.0), 1.0)
    return math.hypot(x - x0 - t * dx, y - y0 - t * dy)
