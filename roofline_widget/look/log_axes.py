"""Log axes: what they can show, how their limits are padded, which ticks they show and how
those read.

Ticks read as plain numbers (0.05, 1, 10, 100) in every view, or with an SI
prefix (500k, 1M, 2M) on an axis of counts that reaches a million, never both
forms on one axis: the widget's axes take d3's format of the range
(:func:`tick_format`), the static plot writes the same text (:func:`tick_text`)
at the ticks bqplot's log axis shows (:func:`log_ticks`).  Labels never
overlap: :func:`labelled_ticks` is the one rule of which ticks keep their label
on an axis of a given length; the static plot applies it to its ticks, the
widget to every tick bqplot may show as the view pans (:func:`spaced_labels`).

Also the one clipping rule: which part of a straight line is inside a box
(:func:`clip_segment`; :func:`visible_part` on log axes).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["PREFIX_TICK_FORMAT", "TICK_FORMAT", "TICK_PRECISION", "bqplot_shows", "clip_segment",
           "decade_steps", "labelled_ticks", "log_ranges", "log_ticks", "padded_range", "positive", "showable",
           "spaced_labels", "tick_format", "tick_text", "visible_part"]

#: d3 format of every log axis' tick labels in the widget: plain numbers, 6 significant
#: digits, trailing zeros dropped (``0.05``, ``1``, ``2``, ``100000``; ``1e+6`` and ``1e-7``
#: beyond, as JavaScript's ``toPrecision``).
TICK_FORMAT = "~g"
#: d3 format of a log axis from 1 up past a million (problem sizes, element counts): an SI
#: prefix, 6 significant digits, trailing zeros dropped (``20k``, ``500k``, ``1M``, ``50M``).
PREFIX_TICK_FORMAT = "~s"
#: The significant digits of both formats (d3's default precision).
TICK_PRECISION = 6
#: d3's SI prefixes from 10^0 to 10^24, a step of 10^3 each.
_PREFIXES = ("", "k", "M", "G", "T", "P", "E", "Z", "Y")


def showable(values: ArrayLike) -> np.ndarray:
    """Which entries of ``values`` a log axis can show (finite and positive), as a mask."""
    values = np.asarray(values, dtype=float)
    return np.isfinite(values) & (values > 0)


def positive(values: ArrayLike) -> np.ndarray:
    """The finite, positive entries of ``values`` (what a log axis can show)."""
    values = np.asarray(values, dtype=float)
    return values[showable(values)]


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
    """d3 format of a log axis' ticks over ``low`` to ``high``: one form for every tick.

    Plain numbers (:data:`TICK_FORMAT`), except on an axis from 1 up past a
    million, where ``"~g"`` would write ``500000`` next to ``1e+6``: there an SI
    prefix (:data:`PREFIX_TICK_FORMAT`: ``500k``, ``1M``).  Below 1 a prefix
    would read as a unit (``m``, ``µ``), so a range that starts below 1 keeps
    plain numbers.  The ticks bqplot shows thin out as the range widens
    (:func:`log_ticks`), so the labels stay apart; :func:`tick_text` is the same
    text in Python.

    Examples
    --------
    >>> tick_format(0.01, 1e4), tick_format(2e4, 5e7), tick_format(0.5, 5e7)
    ('~g', '~s', '~g')
    """
    return PREFIX_TICK_FORMAT if low >= 1 and high >= 1e6 else TICK_FORMAT


def tick_text(value: float, tick_format: str = TICK_FORMAT) -> str:
    """A tick's label as d3 writes it in ``tick_format`` (:func:`tick_format`'s two).

    ``"~g"`` is JavaScript's ``toPrecision(6)``, zeros trimmed; ``"~s"`` the
    value in thousands, millions, ... with 6 significant digits, zeros trimmed,
    and the prefix (values from 1 up).

    Examples
    --------
    >>> [tick_text(v) for v in (0.05, 0.1, 1.0, 2.0, 100.0, 25000.0, 1e6, 2e-7)]
    ['0.05', '0.1', '1', '2', '100', '25000', '1e+6', '2e-7']
    >>> [tick_text(v, "~s") for v in (1.0, 20.0, 1500.0, 500000.0, 1e6, 5e7)]
    ['1', '20', '1.5k', '500k', '1M', '50M']
    """
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if tick_format == PREFIX_TICK_FORMAT and value >= 1:
        return _prefixed_text(value)
    mantissa, exponent_text = f"{value:.{TICK_PRECISION - 1}e}".split("e")
    exponent = int(exponent_text)
    if exponent < -6 or exponent >= TICK_PRECISION:
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    digits = max(TICK_PRECISION - 1 - exponent, 0)
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _prefixed_text(value: float) -> str:
    """``value`` (at least 1) as d3's ``"~s"`` writes it: 6 significant digits over an SI prefix."""
    exponent = int(f"{value:.{TICK_PRECISION - 1}e}".split("e")[1])
    step = min(exponent // 3, len(_PREFIXES) - 1)
    digits = max(TICK_PRECISION - 1 - (exponent - 3 * step), 0)
    text = f"{value / 1000 ** step:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + _PREFIXES[step]


def decade_steps(low: float, high: float) -> np.ndarray:
    """Every ``m x 10^k`` (``m`` = 1..9) from ``low`` to ``high``, as d3's log scale makes them.

    d3 (the version bqplot bundles) multiplies the power of ten, parsed from
    ``"1e<k>"``, by the step: ``3 x 10^-1`` is ``0.30000000000000004`` there and
    here, so the values equal those of the browser's ticks bit for bit.
    """
    if not (0 < low < high and math.isfinite(high)):
        return np.zeros(0)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    values = np.array([float(f"1e{power}") * step for power in range(first, last + 1)
                       for step in range(1, 10)])
    return values[(values >= low * (1 - 1e-12)) & (values <= high * (1 + 1e-12))]


def bqplot_shows(values: ArrayLike, decades: float) -> np.ndarray:
    """Which of ``values`` (:func:`decade_steps`) bqplot's log axis shows on an axis ``decades`` long.

    Under 2 decades every 1..9 x 10^k, under 7 decades 1, 2 and 5 x 10^k,
    from 7 decades on the powers of ten (every ``round(decades / 10)``-th), as a mask.
    """
    values = np.asarray(values, dtype=float)
    powers = np.floor(np.log10(values) + 1e-9)
    steps = np.round(values / 10.0 ** powers).astype(int)
    if decades < 2:
        return np.ones(len(values), dtype=bool)
    if decades < 7:
        return np.isin(steps, (1, 2, 5))
    every = max(round(decades / 10), 1)
    return (steps == 1) & (powers.astype(int) % every == 0)


def log_ticks(low: float, high: float) -> np.ndarray:
    """The tick values bqplot's log axis shows between ``low`` and ``high`` (:func:`bqplot_shows`).

    The static plot labels the same values.
    """
    values = decade_steps(low, high)
    return values[bqplot_shows(values, math.log10(high / low))] if len(values) else values


#: Labels are kept at least this far apart (pixels) beyond their half extents.
_LABEL_GAP_PX = 8.0


def labelled_ticks(ticks: ArrayLike, low: float, high: float, length_px: float,
                   extents_px: ArrayLike) -> np.ndarray:
    """Which of a log axis' ``ticks`` get a label without two labels overlapping.

    Labels are placed by rank, 1 x 10^k first, then 2 and 5 x 10^k, then the
    other steps; a tick whose label would come closer than :data:`_LABEL_GAP_PX`
    to a label already placed stays an unlabelled tick (a figure narrower than
    the widget's axis shows fewer labels, never a run of digits).

    Parameters
    ----------
    ticks : array-like
        Tick values within ``low`` to ``high`` (:func:`log_ticks`).
    low, high : float
        The axis' limits, ``0 < low < high``.
    length_px : float
        The axis' length in pixels.
    extents_px : array-like
        Each tick label's extent along the axis in pixels (its width on an x
        axis, its height on a y axis).

    Returns
    -------
    numpy.ndarray
        A mask over ``ticks``.

    Examples
    --------
    >>> ticks = log_ticks(0.47, 42.0)  # 0.5, 0.6, ..., 0.9, 1, 2, ..., 40
    >>> shown = labelled_ticks(ticks, 0.47, 42.0, 775.0, [22.0] * len(ticks))
    >>> [tick_text(t) for t in ticks[shown]]
    ['0.5', '0.6', '0.8', '1', '2', '3', '4', '5', '6', '8', '10', '20', '30', '40']
    """
    ticks = np.asarray(ticks, dtype=float)
    extents = np.asarray(extents_px, dtype=float)
    positions = length_px * np.log(ticks / low) / math.log(high / low)
    mantissas = np.round(ticks / 10.0 ** np.floor(np.log10(ticks) + 1e-9)).astype(int)
    ranks = np.where(mantissas == 1, 0, np.where(np.isin(mantissas, (2, 5)), 1, 2))
    reach = (extents + _LABEL_GAP_PX) / 2  # two labels fit when their reaches do not overlap
    at_px, reach_px = positions.tolist(), reach.tolist()
    placed: list[float] = []  # the labels placed, by position: a new one need only fit its neighbours
    chosen: list[int] = []
    for rank in range(3):
        for index in np.flatnonzero(ranks == rank).tolist():
            at = bisect.bisect(placed, at_px[index])
            if all(abs(at_px[index] - at_px[other]) >= reach_px[index] + reach_px[other]
                   for other in chosen[max(at - 1, 0):at + 1]):
                placed.insert(at, at_px[index])
                chosen.insert(at, index)
    mask = np.zeros(len(ticks), dtype=bool)
    mask[chosen] = True
    return mask


def spaced_labels(low: float, high: float, length_px: float,
                  extent_px: Callable[[float], float]) -> tuple[np.ndarray, np.ndarray]:
    """Every tick bqplot may show around ``low`` to ``high``, and which carry a label that fits.

    For a front end that picks its ticks itself as the user pans (a page
    without a kernel): every ``m x 10^k`` from ``reach`` decades below ``low``
    to ``reach`` above ``high`` (``reach``: the axis' span, at least 2 decades,
    whole decades), at the axis' pixels per decade.  A label goes where
    :func:`labelled_ticks` places one among the ticks bqplot shows at this span
    (:func:`bqplot_shows`); every other tick, and every step bqplot only shows
    on a shorter span, has none: labels kept apart here stay apart when the
    view pans or zooms in, which only spreads them.

    Parameters
    ----------
    low, high : float
        The axis' limits, ``0 < low < high``.
    length_px : float
        The pixels from ``low`` to ``high`` (the axis' smallest length: labels
        apart there are apart on any longer axis).
    extent_px : callable
        ``extent_px(value)``: the extent of a tick's label along the axis (px).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The ticks (:func:`decade_steps`) and a mask of those with a label.

    Examples
    --------
    5.5 decades on 360 px (65.5 px a decade), 7 px a character: "2" and "5"
    fit between "1" and "10" (19.7 px from each, 15 and 18.5 needed), "20" does
    not fit beside "10" (19.7 px, 22 needed):

    >>> ticks, labelled = spaced_labels(0.083, 26132.0, 360.0, lambda v: 7.0 * len(tick_text(v)))
    >>> [tick_text(t) for t in ticks[labelled] if 0.083 <= t <= 26132.0]
    ['0.1', '1', '2', '5', '10', '100', '1000', '10000']
    """
    decades = math.log10(high / low)
    reach = max(math.ceil(decades), 2)
    wide_low = 10.0 ** (math.floor(math.log10(low)) - reach)
    wide_high = 10.0 ** (math.ceil(math.log10(high)) + reach)
    ticks = decade_steps(wide_low, wide_high)
    shown = np.flatnonzero(bqplot_shows(ticks, decades))
    wide_px = length_px * math.log10(wide_high / wide_low) / decades
    labelled = np.zeros(len(ticks), dtype=bool)
    labelled[shown] = labelled_ticks(ticks[shown], wide_low, wide_high, wide_px,
                                     [extent_px(value) for value in ticks[shown]])
    return ticks, labelled


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
