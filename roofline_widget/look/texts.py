"""The texts of a roofline figure, shared by the widget and the static plot.

Axis labels, the title, ceiling and ridge labels, the fields of a point's
hover text, and how wide a label is drawn (:func:`text_px`, for placing it).
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline_widget import schema

__all__ = [
    "BASELINE_RUN_LABEL",
    "CURRENT_RUN_LABEL",
    "LABEL_SIZE",
    "TOOLTIP_FIELDS",
    "X_LABEL",
    "Y_LABEL",
    "TooltipField",
    "ceiling_label",
    "ceiling_value_label",
    "figure_title",
    "ridge_text",
    "text_px",
]

X_LABEL = "Arithmetic intensity [FLOP/byte]"
Y_LABEL = "Attained performance [GFLOP/s]"
#: Font size (px) of ceiling and ridge labels.
LABEL_SIZE = 12


def figure_title(empirical: bool) -> str:
    """The static figure's title; it says when the ceilings are empirical."""
    return "Roofline analysis" + (" (empirical ceilings)" if empirical else "")


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


def _unit(segment: dict) -> str:
    return "GB/s" if segment["kind"] == "bandwidth" else "GFLOP/s"


def ceiling_label(segment: dict) -> str:
    """Name and value of a ceiling, short enough to sit on its line.

    Parameters
    ----------
    segment : dict
        One entry of :meth:`~roofline_widget.Roofline.lines` (``name``, ``kind``,
        ``value``, ``empirical``).
    """
    empirical = " (empirical)" if segment["empirical"] else ""
    return f"{segment['name']}: {segment['value']:.4g} {_unit(segment)}{empirical}"


def ceiling_value_label(segment: dict) -> str:
    """The short label of a ceiling (value and unit) where its full label does not fit."""
    return f"{segment['value']:.4g} {_unit(segment)}"


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


#: The label of the plotted (current) run in a comparison.
CURRENT_RUN_LABEL = "current"
#: The label of a single baseline run (a chain keeps its own labels).
BASELINE_RUN_LABEL = "baseline"
