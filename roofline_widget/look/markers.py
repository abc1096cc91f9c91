"""Marker shapes of a roofline, in bqplot's and matplotlib's names, and the point sizes.

One table: a memory level's dots, a baseline run's hollow points, the current
run's points and the arrow heads have the same shape in the widget (bqplot)
and the static plot (matplotlib), and the status line names them with the same
symbol.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CIRCLE",
    "CROSS",
    "CURRENT_MARKER",
    "DIAMOND",
    "HEAD_MARKER",
    "HEAD_SIZE",
    "LEVEL_MARKERS",
    "POINT_SIZE",
    "RUN_MARKERS",
    "SQUARE",
    "TRIANGLE_DOWN",
    "TRIANGLE_UP",
    "Marker",
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
