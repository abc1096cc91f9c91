"""How a roofline looks, shared by the widget and :func:`~roofline_widget.plot_roofline`.

Palette, axis labels, tooltip fields, ceiling labels, the axis-range rule and
the rule for regions without floating-point work live here once; the widget
(``roofline_widget.widget``) and the static plot
(``roofline_widget.static.plot``) both read them.  Nothing here imports a
plotting library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from roofline_widget import schema

__all__ = [
    "FIG_MARGIN",
    "FINDING_COLOR",
    "LABEL_GAP_PX",
    "LABEL_HALF_HEIGHT_PX",
    "LABEL_LINE_GAP_PX",
    "LABEL_SIZE",
    "LINE_COLORS",
    "MIN_PLOT_PX",
    "NO_FLOP_NAMES_SHOWN",
    "NO_FLOP_WORK_FRACTION",
    "PALETTE",
    "PLAIN_TICKS",
    "PLOT_HEIGHT_PX",
    "RIDGE_COLOR",
    "RIDGE_LABEL_DROP_PX",
    "RIDGE_ROOM_PLOT_PX",
    "SLOPE_LABEL_ALONG",
    "STRONG_COLORS",
    "TAB20",
    "TOOLTIP_CLASS",
    "TOOLTIP_CSS",
    "TOOLTIP_FIELDS",
    "TOOLTIP_STYLE",
    "X_LABEL",
    "Y_LABEL",
    "TooltipField",
    "ceiling_label",
    "ceiling_value_label",
    "label_room_decades",
    "no_flop_work_text",
    "padded_range",
    "pinned",
    "positive",
    "ridge_label_end",
    "ridge_text",
    "split_flop_work",
    "strong_first",
    "text_px",
    "tick_format",
]

#: matplotlib's "tab20", the reference implementation's default colour map: a dark
#: and a light shade of each of the ten "tab10" colours.
TAB20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
         "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
         "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")


def strong_first(colors: Sequence) -> list:
    """A paired palette (dark, light, dark, light, ...) with the dark shades first.

    Neighbouring categories then differ in hue, not only in lightness.
    """
    colors = list(colors)
    return colors[0::2] + colors[1::2]


#: Point colours: the strong shades first (tab10's order), then the light ones.
PALETTE = tuple(strong_first(TAB20))
#: The ten strong shades (tab10), e.g. when matplotlib is not there to sample a colormap.
STRONG_COLORS = PALETTE[:10]

X_LABEL = "Arithmetic intensity [FLOP/byte]"
Y_LABEL = "Attained performance [GFLOP/s]"

#: Colour of a ceiling line (and its label) by kind.
LINE_COLORS = {"bandwidth": "#3d5a80", "compute": "#9b3d2a"}
RIDGE_COLOR = "#6b6b6b"
#: Stroke of the hollow ring over a point with a sanity finding (widget and static plot).
FINDING_COLOR = "#e8590c"
#: Font size (px) of ceiling and ridge labels.
LABEL_SIZE = 12
#: The narrowest plot (CSS px inside the axes) the widget's labels are placed for: the
#: figure's ``min_width`` is this plus its left and right margins.  JupyterLab at a
#: 900 px wide window (file browser open) draws the plot about 380 px wide.
MIN_PLOT_PX = 360
#: The x axis reaches far enough right of the ridge for the ridge label in a plot this
#: wide (px); in narrower plots the label goes elsewhere (``widget.ceiling_labels``).
RIDGE_ROOM_PLOT_PX = 700
#: Height (CSS px) of the widget's plot inside the axes; the figure is this plus its margins.
PLOT_HEIGHT_PX = 426
#: The widget figure's margins (px) around the plot.
FIG_MARGIN = {"top": 24, "bottom": 50, "left": 70, "right": 16}
#: Horizontal gap (px) between a label's text and its anchor.
LABEL_GAP_PX = 5
#: Vertical gap (px) between a label's text and the line it names.
LABEL_LINE_GAP_PX = 2
#: Half the height (px) of a label's text box (a 12 px font draws 14 px high).
LABEL_HALF_HEIGHT_PX = 0.6 * 12
#: The ridge label's centre sits this far (px) below the roof.
RIDGE_LABEL_DROP_PX = 12
#: A bandwidth label preferably ends this fraction along the part of its slope inside
#: the axes.
SLOPE_LABEL_ALONG = 0.2
#: Axis limits inside which ticks read best as plain numbers; outside, as powers of ten.
PLAIN_TICKS = (1e-3, 1e4)


#: CSS of every hover tooltip of the widget's marks (bqplot's ``tooltip_style``, applied to
#: the mark's tooltip div each time it is shown, after bqplot's own ``pointer-events``):
#: clicks go through a tooltip that opens under the pointer to the mark beneath it.
TOOLTIP_STYLE = {"opacity": 0.95, "pointer-events": "none"}
#: DOM class of the main tooltip's content (``RooflineFigure.tooltip``).
TOOLTIP_CLASS = "roofline-tooltip"
#: A stylesheet for the one container bqplot puts every tooltip of a figure in (a div
#: ``.bqplot_tooltip_div`` in the page's body, which ``tooltip_style`` does not reach and
#: which takes the pointer's clicks wherever it covers a mark): the figure's containers,
#: those holding a ``TOOLTIP_CLASS`` element, let clicks through too.
TOOLTIP_CSS = (f".bqplot_tooltip_div:has(.{TOOLTIP_CLASS}), .bqplot_tooltip_div:has(.{TOOLTIP_CLASS}) "
               "* { pointer-events: none !important; }")


@dataclass(frozen=True)
class TooltipField:
    """One row of a point's hover text.

    Attributes
    ----------
    label : str
        What the row is called.
    column : str
        The points-frame column it shows.
    spec : str
        ``format`` spec of a number (``""``: the value as text).
    """

    label: str
    column: str
    spec: str = ""


#: The hover text of a point, top to bottom.
TOOLTIP_FIELDS = (
    TooltipField("region", "region"),
    TooltipField("run", "file"),
    TooltipField("rank", "rank"),
    TooltipField("GFLOP/s", schema.PERFORMANCE, ".4g"),
    TooltipField("GB/s", schema.BANDWIDTH, ".4g"),
    TooltipField("FLOP/byte", schema.INTENSITY, ".4g"),
    TooltipField("efficiency %", "efficiency_percent", ".1f"),
    TooltipField("bound", "bound"),
)


def ceiling_label(segment: dict) -> str:
    """Name and value of a ceiling, short enough to sit on its line.

    Parameters
    ----------
    segment : dict
        One entry of :meth:`~roofline_widget.Roofline.lines` (``name``, ``kind``,
        ``value``, ``empirical``).
    """
    unit = "GB/s" if segment["kind"] == "bandwidth" else "GFLOP/s"
    empirical = " (empirical)" if segment["empirical"] else ""
    return f"{segment['name']}: {segment['value']:.4g} {unit}{empirical}"


def ceiling_value_label(segment: dict) -> str:
    """The short label of a ceiling (value and unit) where its full label does not fit."""
    unit = "GB/s" if segment["kind"] == "bandwidth" else "GFLOP/s"
    return f"{segment['value']:.4g} {unit}"


def ridge_text(ridge: float) -> str:
    """The label of the ridge point (intensity where the main roofs meet)."""
    return f"ridge {ridge:.3g} FLOP/byte"


#: Character widths (em) a little above DejaVu Sans', the widest common sans-serif
#: (its 12 px "Peak bandwidth: 204.8 GB/s" is 152 px wide in Chromium; estimated: 178 px).
_EM_WIDTHS = ((" .,:;/()[]'|-!ijlrtIf", 0.4), ("0123456789", 0.64),
              ("abcdeghknopqsuvxyz", 0.6), ("ABCDEFGHJKLNOPQRSTUVXYZmw", 0.76))


def text_px(text: str) -> float:
    """Width in pixels a label (``LABEL_SIZE`` px sans-serif) takes at most (an estimate).

    Characters not in the table (M, W, %, ...) count as 0.9 em.
    """
    em = 0.0
    for char in text:
        em += next((width for chars, width in _EM_WIDTHS if char in chars), 0.9)
    return em * LABEL_SIZE


def positive(values: ArrayLike) -> np.ndarray:
    """The finite, positive entries of ``values`` (what a log axis can show)."""
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values) & (values > 0)]


def padded_range(values: ArrayLike, margin: float,
                 default: tuple[float, float]) -> tuple[float, float]:
    """The axis-range rule: smallest / ``margin`` to largest * ``margin`` of the positive values.

    Parameters
    ----------
    values : array-like
        Everything the axis must show (points, ridge points, roofs).
    margin : float
        Factor (> 1) between the data and the axis limits on a log axis.
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


# --------------------------------------------------------------------------
# regions without floating-point work
# --------------------------------------------------------------------------
#: A point whose GFLOP/s is below this fraction of the largest does no FLOP work to
#: speak of (an MPI wait, an initialisation): the axis ranges follow the other points.
NO_FLOP_WORK_FRACTION = 1e-6
#: At most this many region names in the note; the rest are counted.
NO_FLOP_NAMES_SHOWN = 5


def split_flop_work(frame: pd.DataFrame, fraction: float | None = None
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split points into the bulk and those doing almost no floating-point work.

    Parameters
    ----------
    frame : pandas.DataFrame
        Points with a ``performance_gflops`` column.
    fraction : float, optional
        A point is "no FLOP work" when its GFLOP/s is below ``fraction`` times
        the largest GFLOP/s of ``frame`` (default ``NO_FLOP_WORK_FRACTION``, read
        at each call; 0 turns the rule off).

    Returns
    -------
    bulk, no_flop : pandas.DataFrame
        The rows of ``frame`` (index kept) in two parts; every row is in
        exactly one.  Rows with a NaN rate stay in the bulk.
    """
    fraction = NO_FLOP_WORK_FRACTION if fraction is None else fraction
    performance = frame[schema.PERFORMANCE].to_numpy(dtype=float)
    largest = positive(performance)
    if not largest.size:
        return frame, frame.iloc[:0]
    below = performance < fraction * largest.max()
    return frame[~below], frame[below]


def no_flop_work_text(no_flop: pd.DataFrame, where: str, fraction: float | None = None) -> str:
    """The note naming the points that do almost no FLOPs ("" when there are none).

    Parameters
    ----------
    no_flop : pandas.DataFrame
        The second part of :func:`split_flop_work` (``region`` column).
    where : str
        Where they are shown, e.g. ``"shown at the axis edge"``.
    fraction : float, optional
        The threshold used, named in the note (default ``NO_FLOP_WORK_FRACTION``).

    Returns
    -------
    str
        Plain text (not escaped), e.g. ``"1 region does almost no FLOPs (below
        1e-06 of the largest GFLOP/s): <init_datastructures> - shown at the
        axis edge"``.
    """
    if not len(no_flop):
        return ""
    fraction = NO_FLOP_WORK_FRACTION if fraction is None else fraction
    regions = [str(r) for r in pd.unique(no_flop["region"].astype(object))]
    names = ", ".join(regions[:NO_FLOP_NAMES_SHOWN])
    if len(regions) > NO_FLOP_NAMES_SHOWN:
        names += f" and {len(regions) - NO_FLOP_NAMES_SHOWN:,} more"
    count = f"{len(regions):,} region{'s' if len(regions) != 1 else ''}"
    if len(no_flop) != len(regions):
        count = f"{len(no_flop):,} points ({count})"
    verb = "does" if len(no_flop) == 1 else "do"
    return (f"{count} {verb} almost no FLOPs (below {fraction:g} of the largest GFLOP/s): "
            f"{names} \N{EM DASH} {where}")


def pinned(values: ArrayLike, limits: tuple[float, float]) -> np.ndarray:
    """``values`` moved inside the axis ``limits`` (where the outliers are drawn)."""
    return np.clip(np.asarray(values, dtype=float), limits[0], limits[1])
