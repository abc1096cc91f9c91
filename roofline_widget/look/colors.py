"""Colours of a roofline, shared by the widget and the static plot.

The points' palette, the colours of the lines (ceilings, roof, ridge), of the
sanity-finding rings, of the rank-imbalance scale and of points whose
category has no colour.  Plain hex strings: both bqplot and matplotlib read them.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AXIS_GRID_COLOR",
    "DEVICE_LINE_COLORS",
    "FINDING_COLOR",
    "IMBALANCE_COLORS",
    "LINE_COLORS",
    "OTHER_COLOR",
    "PALETTE",
    "POINT_STROKE",
    "RIDGE_COLOR",
    "ROOF_COLOR",
    "STRONG_COLORS",
    "SWEEP_COLORS",
    "TAB20",
    "line_color",
    "palette_color",
    "strong_first",
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


def palette_color(code: int) -> str:
    """The colour of colour code ``code`` (an index into ``PALETTE``, repeating)."""
    return PALETTE[int(code) % len(PALETTE)]


#: Colour of a ceiling line (and its label) by kind.
LINE_COLORS = {"bandwidth": "#3d5a80", "compute": "#9b3d2a"}
#: Colour of the main roofline.
ROOF_COLOR = "black"
#: The line colours of each device's roofs: the CPU's (and any device's) are the colours
#: above; a GPU's a green family, so that CPU and GPU roofs on one plot are told apart.
DEVICE_LINE_COLORS = {
    "cpu": {**LINE_COLORS, "roof": ROOF_COLOR},
    "gpu": {"bandwidth": "#2a9d8f", "compute": "#6a994e", "roof": "#1b5e20"},
}


def line_color(kind: str, device: str | None = None) -> str:
    """The colour of a line of ``kind`` (``"bandwidth"``, ``"compute"``, ``"roof"``) of ``device``."""
    return DEVICE_LINE_COLORS.get(device or "cpu", DEVICE_LINE_COLORS["cpu"])[kind]
#: Colour of the ridge point's label.
RIDGE_COLOR = "#6b6b6b"
#: Stroke of the hollow ring over a point with a sanity finding (widget and static plot).
FINDING_COLOR = "#e8590c"
#: A point (a baseline point, a level dot) whose category has no colour of its own.
OTHER_COLOR = "#7f7f7f"
#: Outline of a point.
POINT_STROKE = "#222222"
#: The grid lines of the widget's axes.
AXIS_GRID_COLOR = "#e6e6e6"
#: The rank-imbalance colour scale (ranks view), from 1 (balanced) to the largest drawn.
IMBALANCE_COLORS = ("#1a9850", "#fee08b", "#d73027")
#: The shade of a sweep's runs (``scene.sweep``), light for the first step to dark for the
#: last: greys, so that it never reads as one of the regions' colours.
SWEEP_COLORS = ("#e3e3e3", "#969696", "#252525")
