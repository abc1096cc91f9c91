"""Log axes: what they can show, how their limits are padded, how their ticks read.

Also the one clipping rule: which part of a straight line is inside a box
(:func:`clip_segment`; :func:`visible_part` on log axes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["PLAIN_TICKS", "clip_segment", "log_ranges", "padded_range", "positive", "tick_format",
           "visible_part"]

#: Axis limits inside which ticks read best as plain numbers; outside, as powers of ten.
PLAIN_TICKS = (1e-3, 1e4)


def positive(values: ArrayLike) -> np.ndarray:
    """The finite, positive entries of ``values`` (what a log axis can show)."""
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values) & (values > 0)]


def padded_range(values: ArrayLike, margin: float,
                 default: tuple[float, float]) -> tuple[float, float]:
    """Smallest / ``margin`` to largest * ``margin`` of the positive values.

    Parameters
    ----------
    values : array-like
        Everything the axis must show (points, ridge points, roofs).
    margin : float
        Factor (>= 1) between the data and the axis limits on a log axis.
    default : (float, float)
        The range when no value is positive and finite.
    """
    values = positive(values)
    if not values.size:
        return float(default[0]), float(default[1])
    return float(values.min() / margin), float(values.max() * margin)


def tick_format(low: float, high: float) -> str:
    """d3 format of a log axis' ticks: plain numbers, or powers of ten over a wide range."""
    if PLAIN_TICKS[0] <= low and high <= PLAIN_TICKS[1]:
        return "~g"
    return ".0e"


def log_ranges(x_scale, y_scale) -> tuple | None:
    """``((x min, x max), (y min, y max))`` of two scales, or None while one is not a log range.

    Parameters
    ----------
    x_scale, y_scale
        Objects with ``min`` and ``max`` (bqplot scales); a range is valid when
        both ends are set and ``0 < min < max``.
    """
    ranges = ((x_scale.min, x_scale.max), (y_scale.min, y_scale.max))
    if all(low is not None and high is not None and 0 < low < high for low, high in ranges):
        return ranges
    return None


_EPS = 1e-9


def clip_segment(start: Sequence[float], end: Sequence[float], lower: Sequence[float],
                 upper: Sequence[float]) -> tuple[float, float] | None:
    """The part of the segment ``start``-``end`` strictly inside a box (Liang-Barsky).

    Parameters
    ----------
    start, end : sequence of float
        The segment's ends, in linear coordinates (pixels; log10 of data on log axes).
    lower, upper : sequence of float
        The box's lower and upper corner.

    Returns
    -------
    (float, float) or None
        The fractions ``(t0, t1)`` of the segment between which it is inside,
        or None when it only touches the box or misses it.
    """
    low, high = 0.0, 1.0  # plain floats: the label placement calls this thousands of times
    for axis in range(len(start)):
        step = end[axis] - start[axis]
        for direction, distance in ((-step, start[axis] - lower[axis]),
                                    (step, upper[axis] - start[axis])):
            if abs(direction) < _EPS:
                if distance <= 0:
                    return None
                continue
            t = distance / direction
            if direction < 0:
                low = max(low, t)
            else:
                high = min(high, t)
            if low >= high:
                return None
    return low, high


def visible_part(x: Sequence[float], y: Sequence[float], x_limits: Sequence[float],
                 y_limits: Sequence[float]) -> tuple | None:
    """The part of a straight line on log axes (``x[0], y[0]`` to ``x[-1], y[-1]``) inside the limits.

    Returns
    -------
    ((float, float), (float, float)) or None
        Its ends in data units, or None when none of it is inside.
    """
    start = np.log10([x[0], y[0]]).tolist()
    end = np.log10([x[-1], y[-1]]).tolist()
    part = clip_segment(start, end, np.log10([x_limits[0], y_limits[0]]).tolist(),
                        np.log10([x_limits[1], y_limits[1]]).tolist())
    if part is None:
        return None
    return tuple((float(10.0 ** (start[0] + t * (end[0] - start[0]))),
                  float(10.0 ** (start[1] + t * (end[1] - start[1])))) for t in part)
