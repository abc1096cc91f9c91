"""Marker shapes of a roofline, in bqplot's and matplotlib's names, and the marks' sizes.

One table: a memory level's dots, a baseline run's hollow points, the current
run's points and the arrow heads have the same shape in the widget (bqplot)
and the static plot (matplotlib), and the status line names them with the same
symbol.  Each mark's size and stroke is one :class:`Size` too: what bqplot
and matplotlib are given for the same look (a Scatter's area in px², a
scatter's ``s`` in pt²; a line's width in px and pt).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ARROW_STROKE",
    "CEILING_STROKE",
    "CIRCLE",
    "CROSS",
    "CURRENT_MARKER",
    "DIAMOND",
    "FINDING_RING",
    "FLAGGED_STROKE",
    "HEAD_MARKER",
    "HEAD_SIZE",
    "JOIN_STROKE",
    "LEVEL_DOT",
    "LEVEL_MARKERS",
    "MEDIAN_DOT",
    "OUTLINE",
    "PATH_STROKE",
    "POINT",
    "POINT_SIZE",
    "RING_STROKE",
    "ROOF_STROKE",
    "RUN_MARKERS",
    "RUN_POINT",
    "RUN_STROKE",
    "SQUARE",
    "SWEEP_DOT",
    "SWEEP_RING",
    "TRIANGLE_DOWN",
    "TRIANGLE_UP",
    "WHISKER_STROKE",
    "Marker",
    "Size",
    "run_marker",
]


@dataclass(frozen=True)
class Marker:
    """One marker shape.

    Attributes
    ----------
    bqplot : str
        bqplot's name (``Scatter.marker``).
    matplotlib : str
        matplotlib's name (``scatter(marker=)``).
    symbol : str
        The character that stands for it in text (the status line).
    """

    bqplot: str
    matplotlib: str
    symbol: str


CIRCLE = Marker("circle", "o", "●")
SQUARE = Marker("square", "s", "□")
DIAMOND = Marker("diamond", "D", "◇")
CROSS = Marker("cross", "P", "✚")
TRIANGLE_UP = Marker("triangle-up", "^", "△")
TRIANGLE_DOWN = Marker("triangle-down", "v", "▽")

#: One marker per memory level, inner to outer.
LEVEL_MARKERS = {"L1": TRIANGLE_UP, "L2": DIAMOND, "L3": SQUARE, "MEM": CIRCLE}
#: Marker shapes of the baseline runs, in chain order (cycled past the last).
RUN_MARKERS = (SQUARE, DIAMOND, CROSS, TRIANGLE_DOWN)
#: The marker of the current run's points.
CURRENT_MARKER = CIRCLE
#: An arrow head: a triangle pointing up, turned along its line (``look.arrows``).
HEAD_MARKER = TRIANGLE_UP
#: The widget's points' area in px² (bqplot's ``default_size``): a radius of 5.35 px.
POINT_SIZE = 90
#: Area of an arrow head in px²: 12.2 px wide, 5.3 px from centre to tip.
HEAD_SIZE = 64


def run_marker(index: int) -> Marker:
    """The marker of the baseline run at chain position ``index`` (0-based), cycled."""
    return RUN_MARKERS[index % len(RUN_MARKERS)]


@dataclass(frozen=True)
class Size:
    """One mark's size (or stroke width) for each renderer.

    Attributes
    ----------
    bqplot : float
        A Scatter's ``default_size`` (area, px²) or a line's ``stroke_width`` (px).
    matplotlib : float
        A scatter's ``s`` (area, pt²) or a line's ``linewidth`` (pt).
    """

    bqplot: float
    matplotlib: float


#: The points.
POINT = Size(POINT_SIZE, 36)
#: A memory level's dot.
LEVEL_DOT = Size(60, 30)
#: The hollow ring over a dot with a sanity finding.
FINDING_RING = Size(260, 150)
#: A baseline run's (hollow) point.
RUN_POINT = Size(70, 40)
#: A region's rank median (the spread view).
MEDIAN_DOT = Size(80, 40)
#: A run's point on a sweep's path, and the ring over the points of the run chosen.
SWEEP_DOT = Size(40, 22)
SWEEP_RING = Size(220, 120)
#: A ceiling line, the roofline, a line joining a region's level dots, a baseline arrow, a whisker.
CEILING_STROKE = Size(1.5, 1.0)
ROOF_STROKE = Size(3.0, 2.0)
JOIN_STROKE = Size(1.0, 0.8)
ARROW_STROKE = Size(2.0, 1.4)
WHISKER_STROKE = Size(2.0, 1.4)
#: A point's outline; a hollow baseline point's; a finding's ring; a point beyond the hardware's
#: (drawn hollow in its colour).
OUTLINE = Size(0.8, 0.4)
RUN_STROKE = Size(2.0, 1.4)
RING_STROKE = Size(2.5, 1.6)
#: A sweep's path through a region's runs.
PATH_STROKE = Size(1.6, 1.2)
FLAGGED_STROKE = Size(2.0, 1.4)
