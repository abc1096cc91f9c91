"""The widget figure's plot area in CSS pixels: margins, sizes, and what the front end draws.

The kernel never learns how wide the browser draws the figure (it is
``width: 100%``).  It knows the figure's layout (``height``, ``min_width``,
``width`` when given in px), its ``fig_margin`` and bqplot's rules for the
rest (aspect-ratio limits, padding).  Two questions are answered from them,
here only:

- :func:`label_area`: the narrowest plot the ceiling labels must fit
  (:mod:`roofline_widget.look.ceiling_labels` places them for it);
- :func:`scale_size`: the width and height over which the x and y scales
  are drawn at the figure's width (assumed :data:`ASSUMED_FIGURE_WIDTH_PX`
  while it is not given in px), for directions on screen
  (:mod:`roofline_widget.look.arrows`); at :func:`least_width`, the
  narrowest the figure's layout lets the browser draw it, for the tick
  labels (:mod:`roofline_widget.widget.axes`);
- :func:`plot_frame`: where the log scales lie inside a figure element of a
  size the browser reported (a mouse event's box), so that a mouse position
  becomes data (:class:`PlotFrame`); with :func:`mark_padding`, the pixels
  bqplot keeps free at the ends of a scale for its marks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ASSUMED_FIGURE_HEIGHT_PX",
    "ASSUMED_FIGURE_WIDTH_PX",
    "BQPLOT_FIGURE_DEFAULTS",
    "DEFAULT_AREA",
    "FIG_MARGIN",
    "MIN_PLOT_PX",
    "PLOT_HEIGHT_PX",
    "PlotArea",
    "PlotFrame",
    "css_px",
    "figure_px",
    "label_area",
    "least_width",
    "mark_padding",
    "plot_frame",
    "scale_size",
]

#: The narrowest plot (CSS px inside the axes) the widget's labels are placed for: the
#: figure's ``min_width`` is this plus its left and right margins.  JupyterLab at a
#: 900 px wide window (file browser open) draws the plot about 380 px wide.
MIN_PLOT_PX = 360
#: Height (CSS px) of the widget's plot inside the axes; the figure is this plus its margins.
PLOT_HEIGHT_PX = 426
#: The widget figure's margins (px) around the plot.
FIG_MARGIN = {"top": 24, "bottom": 50, "left": 70, "right": 16}
#: Width (px) assumed for a figure whose ``layout.width`` is not in px (the widget's is 100%).
ASSUMED_FIGURE_WIDTH_PX = 900.0
#: Height (px) assumed for a figure whose ``layout.height`` is not in px (the widget's is 500px).
ASSUMED_FIGURE_HEIGHT_PX = 500.0
#: bqplot's own defaults of the Figure traits the layout depends on.
BQPLOT_FIGURE_DEFAULTS = {"min_aspect_ratio": 0.01, "max_aspect_ratio": 100.0,
                          "padding_x": 0.0, "padding_y": 0.025}


@dataclass(frozen=True)
class PlotArea:
    """The plot area (inside the axes) the labels are placed for, in CSS pixels.

    Attributes
    ----------
    min_width : float
        The narrowest the plot is drawn (the figure's ``min_width`` less its
        left and right margins).
    height : float
        The plot's height (the figure's height less its top and bottom margins).
    """

    min_width: float = float(MIN_PLOT_PX)
    height: float = float(PLOT_HEIGHT_PX)


#: The widget figure's plot area by default (``MIN_PLOT_PX`` x ``PLOT_HEIGHT_PX``).
DEFAULT_AREA = PlotArea()


def css_px(size) -> float | None:
    """A CSS size in px (``"500px"``, ``"500"`` or a number) as a float; None for any other.

    ``"100%"``, ``"60vh"``, None, zero, negative and non-finite sizes give None.
    """
    if isinstance(size, (int, float)):
        value = float(size)
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*", str(size or ""))
        if not match:
            return None
        value = float(match.group(1))
    return value if math.isfinite(value) and value > 0 else None


def figure_px(plot_px: float, *sides: str) -> int:
    """The figure's size (px) for a plot ``plot_px`` wide or high with the margins ``sides``."""
    return math.ceil(plot_px + sum(FIG_MARGIN[side] for side in sides))


def _margins(plot) -> dict:
    return {**FIG_MARGIN, **(getattr(plot, "fig_margin", None) or {})}


def _trait(plot, name: str) -> float:
    value = getattr(plot, name, None)
    return float(BQPLOT_FIGURE_DEFAULTS[name] if value is None else value)


def label_area(plot) -> PlotArea:
    """The plot's height and smallest width (px), from a figure's layout and margins.

    Parameters
    ----------
    plot : bqplot.Figure or None
        Its ``layout.min_width`` and ``layout.height`` when given in px, else
        the widget's (``MIN_PLOT_PX``, ``PLOT_HEIGHT_PX`` plus ``FIG_MARGIN``);
        less its ``fig_margin`` (``FIG_MARGIN`` where a side is not given).
    """
    layout = getattr(plot, "layout", None)
    margin = _margins(plot)
    height = css_px(getattr(layout, "height", None)) or figure_px(PLOT_HEIGHT_PX, "top", "bottom")
    width = css_px(getattr(layout, "min_width", None)) or figure_px(MIN_PLOT_PX, "left", "right")
    return PlotArea(min_width=max(width - margin["left"] - margin["right"], 1.0),
                    height=max(height - margin["top"] - margin["bottom"], 1.0))


def least_width(plot) -> float:
    """The narrowest (px) the browser draws a figure, as far as its layout tells the kernel.

    Its ``width`` when given in px (a user's, or a panel's fixed width) kept
    within ``max_width`` and at least ``min_width`` (CSS's order, each when in
    px); else its ``min_width`` in px (a ``width: 100%`` figure is drawn at
    least that wide, how much wider only the browser knows); else the widget's
    smallest figure (:data:`MIN_PLOT_PX` plus :data:`FIG_MARGIN`).

    Examples
    --------
    >>> from types import SimpleNamespace as Stub
    >>> [least_width(Stub(layout=Stub(width=w, min_width="446px", max_width=m)))
    ...  for w, m in (("100%", None), ("1200px", None), ("300px", None), ("1200px", "900px"))]
    [446.0, 1200.0, 446.0, 900.0]
    """
    layout = getattr(plot, "layout", None)
    least = css_px(getattr(layout, "min_width", None))
    width = css_px(getattr(layout, "width", None))
    if width is None:
        return least or float(figure_px(MIN_PLOT_PX, "left", "right"))
    most = css_px(getattr(layout, "max_width", None))
    return max(min(width, most or width), least or 0.0)


def _drawn_box(plot, width: float, height: float) -> tuple[float, float]:
    """The figure's box once bqplot kept it within its aspect-ratio limits."""
    low, high = _trait(plot, "min_aspect_ratio"), _trait(plot, "max_aspect_ratio")
    if width / height < low:
        height = width / low
    elif width / height > high:
        width = height * high
    return width, height


def scale_size(plot, width: float | None = None) -> tuple[float, float]:
    """The size (px) over which a figure's x and y scales are drawn, as the front end lays it out.

    Parameters
    ----------
    plot : bqplot.Figure or None
        Its ``layout.width``/``layout.height`` when given in px, else
        :data:`ASSUMED_FIGURE_WIDTH_PX`/:data:`ASSUMED_FIGURE_HEIGHT_PX`;
        then bqplot's rule: the box is narrowed (or lowered) to stay within
        ``min_aspect_ratio``..``max_aspect_ratio``, less ``fig_margin``, less
        ``padding_x``/``padding_y`` (fractions of the plot area, each side).
        None: the assumed size, the widget figure's margins, bqplot's defaults.
    width : float, optional
        The figure's width (px) to take instead (:func:`least_width`).

    Returns
    -------
    (float, float)
        Width and height (px).
    """
    layout = getattr(plot, "layout", None)
    width = width or css_px(getattr(layout, "width", None)) or ASSUMED_FIGURE_WIDTH_PX
    height = css_px(getattr(layout, "height", None)) or ASSUMED_FIGURE_HEIGHT_PX
    width, height = _drawn_box(plot, width, height)
    margin = _margins(plot)
    area_w = width - margin["left"] - margin["right"]
    area_h = height - margin["top"] - margin["bottom"]
    return (max(area_w * (1 - 2 * _trait(plot, "padding_x")), 1.0),
            max(area_h * (1 - 2 * _trait(plot, "padding_y")), 1.0))


def mark_padding(marks: Iterable) -> float:
    """The pixels bqplot keeps free at each end of a scale shared by ``marks``.

    bqplot's rule per mark, the largest wins (hidden marks count too): a
    Scatter, ScatterGL or Label keeps ``sqrt(default_size) / 2 + 1``; a Lines
    mark ``stroke_width / 2``, or with markers at least ``sqrt(marker_size) / 2 + 1``.
    """
    padding = 0.0
    for mark in marks:
        if hasattr(mark, "default_size"):
            padding = max(padding, math.sqrt(float(mark.default_size)) / 2 + 1)
        elif hasattr(mark, "stroke_width"):
            own = float(mark.stroke_width or 0) / 2
            if getattr(mark, "marker", None):
                own = max(own, math.sqrt(float(mark.marker_size)) / 2 + 1)
            padding = max(padding, own)
    return padding


@dataclass(frozen=True)
class PlotFrame:
    """Where a figure draws its two log scales, in CSS px from the figure element's top left.

    Attributes
    ----------
    x_px, y_px : (float, float)
        The pixels of the scales' low and high ends (y grows downwards: its low
        end is the larger pixel).
    x_range, y_range : (float, float)
        The scales' limits (data).
    plot_box : (float, float, float, float)
        The plot area inside the axes: left, top, right, bottom (px).
    """

    x_px: tuple[float, float]
    y_px: tuple[float, float]
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    plot_box: tuple[float, float, float, float]

    def to_pixels(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Pixels of data ``x``, ``y`` (arrays; a value that is not positive gives NaN)."""
        return (_log_map(x, self.x_range, self.x_px), _log_map(y, self.y_range, self.y_px))

    def to_data(self, px, py) -> tuple[np.ndarray, np.ndarray]:
        """Data of pixels ``px``, ``py`` (arrays)."""
        return (_log_unmap(px, self.x_range, self.x_px), _log_unmap(py, self.y_range, self.y_px))

    def contains(self, px: float, py: float) -> bool:
        """True when the pixel lies inside the plot area."""
        left, top, right, bottom = self.plot_box
        return left <= px <= right and top <= py <= bottom


def _log_map(values, limits, pixels) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(values > 0, np.log10(np.where(values > 0, values, 1.0)), np.nan)
    low, high = np.log10(limits[0]), np.log10(limits[1])
    return pixels[0] + (logs - low) / (high - low) * (pixels[1] - pixels[0])


def _log_unmap(pixels_at, limits, pixels) -> np.ndarray:
    fraction = (np.asarray(pixels_at, dtype=float) - pixels[0]) / (pixels[1] - pixels[0])
    low, high = np.log10(limits[0]), np.log10(limits[1])
    return 10.0 ** (low + fraction * (high - low))


def plot_frame(plot, width: float, height: float, x_range: tuple[float, float],
               y_range: tuple[float, float], padding_px: float) -> PlotFrame:
    """Where ``plot`` draws its log scales in a figure element ``width`` x ``height`` px.

    Parameters
    ----------
    plot : bqplot.Figure
        Its ``fig_margin``, ``padding_x``/``padding_y`` and aspect-ratio limits
        (bqplot's defaults where not set).
    width, height : float
        The figure element's size as the browser drew it (a mouse event's box).
    x_range, y_range : (float, float)
        The log scales' limits.
    padding_px : float
        :func:`mark_padding` of the figure's marks.
    """
    width, height = _drawn_box(plot, max(float(width), 1.0), max(float(height), 1.0))
    margin = _margins(plot)
    area_w = max(width - margin["left"] - margin["right"], 1.0)
    area_h = max(height - margin["top"] - margin["bottom"], 1.0)
    pad_x = area_w * _trait(plot, "padding_x") + padding_px
    pad_y = area_h * _trait(plot, "padding_y") + padding_px
    left, top = float(margin["left"]), float(margin["top"])
    return PlotFrame(x_px=(left + pad_x, left + area_w - pad_x),
                     y_px=(top + area_h - pad_y, top + pad_y),
                     x_range=(float(x_range[0]), float(x_range[1])),
                     y_range=(float(y_range[0]), float(y_range[1])),
                     plot_box=(left, top, left + area_w, top + area_h))
