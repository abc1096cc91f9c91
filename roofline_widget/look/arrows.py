"""Arrow heads on log-log axes without JavaScript: where they sit and how they turn.

bqplot has no oriented arrow mark, but a ``Scatter`` turns each marker by its
``rotation`` value: the front end maps it through the mark's rotation scale
onto ``[0, 180]`` and applies SVG ``rotate(angle)`` (degrees, clockwise on
screen; a ``triangle-up`` points up at 0).  A ``LinearScale(min=0, max=180)``
is the identity, and d3 does not clamp, so any angle in degrees passes
unchanged (:data:`ROTATION_SCALE_RANGE`).

A segment's direction on screen depends on the size in pixels over which the
scales are drawn (:func:`~roofline_widget.look.plot_area.scale_size`).  At
another width than assumed a head is turned by the error of that assumption
(a segment at 45 degrees on the assumed plot is at 39.8 degrees on a plot 20 %
wider), but it always sits ON its line: it is placed by moving back from the
end along the line in log-log coordinates (:func:`head_positions`).
"""

from __future__ import annotations

import numpy as np

from roofline_widget.look.markers import HEAD_SIZE, POINT_SIZE

__all__ = [
    "HEAD_GAP_PX",
    "ROTATION_SCALE_RANGE",
    "bqplot_rotation",
    "head_positions",
    "head_rotation",
    "screen_angle",
]

#: Distance (px) from a line's end to its head's centre: the tip touches the end point's
#: edge (a point's radius plus a head's centre-to-tip distance).
HEAD_GAP_PX = float(np.sqrt(POINT_SIZE / np.pi) + np.sqrt(HEAD_SIZE / np.sqrt(3)) * np.sqrt(3) / 2)
#: bqplot maps a Scatter's rotation scale onto this range (``ScatterBase.set_ranges``).
ROTATION_SCALE_RANGE = (0.0, 180.0)


def _log10(values) -> np.ndarray:
    """log10 of positive values, NaN for the rest."""
    values = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(values > 0, np.log10(values), np.nan)


def _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size):
    """Each segment's run (right) and rise (up) on screen, px, on log-log axes."""
    width, height = plot_size
    x_decades = np.log10(x_range[1]) - np.log10(x_range[0])
    y_decades = np.log10(y_range[1]) - np.log10(y_range[0])
    dx = (_log10(x1) - _log10(x0)) / x_decades * width
    dy = (_log10(y1) - _log10(y0)) / y_decades * height
    return dx, dy


def screen_angle(x0, y0, x1, y1, x_range, y_range, plot_size) -> np.ndarray:
    """Direction on screen of segments from (x0, y0) to (x1, y1) on log-log axes.

    Parameters
    ----------
    x0, y0, x1, y1 : array_like
        The segments' starts and ends in data units (positive).
    x_range, y_range : (float, float)
        The axes' (min, max) in data units.
    plot_size : (float, float)
        Width and height (px) the ranges are drawn over
        (:func:`~roofline_widget.look.plot_area.scale_size`).

    Returns
    -------
    numpy.ndarray
        Degrees counter-clockwise from the +x axis, y up (as a reader sees the
        plot), in (-180, 180]: ``atan2(Δlog10 y / y decades × height,
        Δlog10 x / x decades × width)``.  A segment of length 0 gives 0; a
        non-positive or NaN coordinate gives NaN.
    """
    dx, dy = _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size)
    return np.degrees(np.arctan2(dy, dx))


def bqplot_rotation(angle) -> np.ndarray:
    """The Scatter ``rotation`` (degrees) that turns a ``triangle-up`` to point at ``angle``.

    bqplot applies SVG ``rotate(r)``: clockwise on screen, and a
    ``triangle-up`` points up (90° counter-clockwise from +x) at r = 0, so
    ``r = (90 - angle) mod 360``: right is 90, down 180, left 270.  NaN stays NaN.
    """
    return np.mod(90.0 - np.asarray(angle, dtype=float), 360.0)


def head_rotation(x0, y0, x1, y1, x_range, y_range, plot_size) -> np.ndarray:
    """Rotation of each segment's head: :func:`bqplot_rotation` of :func:`screen_angle`."""
    return bqplot_rotation(screen_angle(x0, y0, x1, y1, x_range, y_range, plot_size))


def head_positions(x0, y0, x1, y1, x_range, y_range, plot_size,
                   gap_px: float = HEAD_GAP_PX) -> tuple[np.ndarray, np.ndarray]:
    """Where each head's centre goes: ``gap_px`` back from the segment's end, on the segment.

    The point is moved back along the segment in log10 coordinates (a straight
    line on log-log axes), by the fraction ``gap_px / length`` (length in px
    on ``plot_size``; at most the whole segment), so a head stays on its line
    whatever the plot's real size; only its distance from the end scales.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        x and y of the centres, in data units.
    """
    dx, dy = _screen_deltas(x0, y0, x1, y1, x_range, y_range, plot_size)
    length = np.hypot(dx, dy)
    with np.errstate(divide="ignore", invalid="ignore"):
        back = np.where(length > gap_px, gap_px / length, 1.0)
    lx0, ly0, lx1, ly1 = _log10(x0), _log10(y0), _log10(x1), _log10(y1)
    return 10.0 ** (lx1 - back * (lx1 - lx0)), 10.0 ** (ly1 - back * (ly1 - ly0))
