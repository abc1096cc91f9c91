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
  (:mod:`roofline_widget.look.arrows`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "ASSUMED_FIGURE_HEIGHT_PX",
    "ASSUMED_FIGURE_WIDTH_PX",
    "BQPLOT_FIGURE_DEFAULTS",
    "DEFAULT_AREA",
    "FIG_MARGIN",
    "MIN_PLOT_PX",
    "PLOT_HEIGHT_PX",
    "PlotArea",
    "css_px",
    "figure_px",
    "label_area",
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


def scale_size(plot) -> tuple[float, float]:
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

    Returns
    -------
    (float, float)
        Width and height (px).
    """
    layout = getattr(plot, "layout", None)
    width = css_px(getattr(layout, "width", None)) or ASSUMED_FIGURE_WIDTH_PX
    height = css_px(getattr(layout, "height", None)) or ASSUMED_FIGURE_HEIGHT_PX
    low, high = _trait(plot, "min_aspect_ratio"), _trait(plot, "max_aspect_ratio")
    if width / height < low:
        height = width / low
    elif width / height > high:
        width = height * high
    margin = _margins(plot)
    area_w = width - margin["left"] - margin["right"]
    area_h = height - margin["top"] - margin["bottom"]
    return (max(area_w * (1 - 2 * _trait(plot, "padding_x")), 1.0),
            max(area_h * (1 - 2 * _trait(plot, "padding_y")), 1.0))
