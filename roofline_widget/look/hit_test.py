"""Which drawn points a mouse gesture hits, in pixels: a rectangle, a free shape, the nearest one.

The widget selects in the kernel from the mouse path (the same rule for SVG
and WebGL points): the points' pixels come from
:meth:`~roofline_widget.look.plot_area.PlotFrame.to_pixels`, the gesture's
from the browser.  Pure numpy; every loop is bounded by the caller's vertex
count (:data:`MAX_PATH_VERTICES`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_PATH_VERTICES", "inside_box", "inside_polygon", "nearest_within"]

#: Most vertices of a free-shape (lasso) path kept; further mouse moves only close it.
MAX_PATH_VERTICES = 1000


def inside_box(px: np.ndarray, py: np.ndarray, corner: tuple[float, float],
               other: tuple[float, float]) -> np.ndarray:
    """Indices of the pixels ``(px, py)`` inside the rectangle of two opposite corners (edges in)."""
    x0, x1 = sorted((float(corner[0]), float(other[0])))
    y0, y1 = sorted((float(corner[1]), float(other[1])))
    return np.flatnonzero((px >= x0) & (px <= x1) & (py >= y0) & (py <= y1))


def inside_polygon(px: np.ndarray, py: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Indices of the pixels ``(px, py)`` inside the closed polygon ``vertices`` (even-odd rule).

    Parameters
    ----------
    px, py : numpy.ndarray
        Pixel positions (NaN: never inside).
    vertices : numpy.ndarray
        Shape (n, 2), the path in order; it is closed from the last vertex to
        the first.  Fewer than 3 vertices enclose nothing.
    """
    vertices = np.asarray(vertices, dtype=float).reshape(-1, 2)[:MAX_PATH_VERTICES]
    if len(vertices) < 3:
        return np.zeros(0, dtype=np.intp)
    inside = np.zeros(len(px), dtype=bool)
    ends = np.roll(vertices, -1, axis=0)
    for (xa, ya), (xb, yb) in zip(vertices, ends):
        if ya == yb:
            continue  # a horizontal edge crosses no horizontal ray
        spans = (ya > py) != (yb > py)
        crossing = xa + (py - ya) * (xb - xa) / (yb - ya)
        inside ^= spans & (px < crossing)
    return np.flatnonzero(inside)


def nearest_within(px: np.ndarray, py: np.ndarray, at: tuple[float, float],
                   radius: float) -> int | None:
    """Index of the pixel nearest to ``at`` if it is at most ``radius`` px away, else None.

    Of equally near pixels the last one wins: it is drawn on top.
    """
    if not len(px):
        return None
    distance = np.hypot(px - at[0], py - at[1])
    distance = np.where(np.isfinite(distance), distance, np.inf)
    best = len(distance) - 1 - int(np.argmin(distance[::-1]))
    return best if distance[best] <= radius else None
