"""The texts of a roofline figure, shared by the widget, the static plot and the command line.

Axis labels, the title, ceiling and ridge labels, the fields of a point's
hover text and the device it names (:func:`device_text`), and how wide a
label is drawn (:func:`text_px`, for placing it).

A ceiling's label is short and says what the roof is (:func:`roof_label`):
``"MEM 188.6 GB/s"``, ``"L2 2165 GB/s"``, ``"DP AVX-512 FMA 2339 GFLOP/s"``.
Where the number came from is read in full elsewhere (:func:`provenance_text`:
a roof's tooltip, the ceilings table, the data export).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roofline_widget import schema

if TYPE_CHECKING:
    from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

__all__ = [
    "BASELINE_RUN_LABEL",
    "CURRENT_RUN_LABEL",
    "DEVICE_FAMILY_NAMES",
    "LABEL_SIZE",
    "ROOF_VALUE_SPEC",
    "TOOLTIP_FIELDS",
    "X_LABEL",
    "Y_LABEL",
    "TooltipField",
    "device_text",
    "figure_title",
    "provenance_text",
    "ridge_text",
    "roof_label",
    "roof_tag",
    "text_px",
]

X_LABEL = "Arithmetic intensity [FLOP/byte]"
Y_LABEL = "Attained performance [GFLOP/s]"
#: Font size (px) of ceiling and ridge labels.
LABEL_SIZE = 12


def figure_title(empirical: str = "") -> str:
    """The static figure's title; it says which ceilings are empirical.

    Parameters
    ----------
    empirical : str
        :func:`~roofline_widget.roofs.lines.empirical_words` of the roofs drawn
        (``""``: none is empirical).

    Examples
    --------
    >>> figure_title("empirical bandwidth")
    'Roofline analysis (empirical bandwidth)'
    """
    return "Roofline analysis" + (f" ({empirical})" if empirical else "")


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

#: How a point's device family (its ``device_family``) is named in a hover text.
DEVICE_FAMILY_NAMES = {"cpu": "CPU", "nvidia": "NVIDIA GPU", "amd": "AMD GPU", "gpu": "GPU"}


def device_text(family, name=None) -> str:
    """The device line of a point's hover text: a GPU's name, with its family where the name
    does not say it; ``""`` for a CPU's point (the default of a LIKWID plot: its texts stay short).

    Parameters
    ----------
    family : str or None
        The point's ``device_family`` (``"cpu"``, ``"nvidia"``, ``"amd"``, ``"gpu"``).
    name : str or None
        The point's ``device_name`` as the data gives it (``""`` or None: not given).

    Examples
    --------
    >>> device_text("amd", "AMD MI200 (gfx90a, 104 CUs)")
    'AMD MI200 (gfx90a, 104 CUs)'
    >>> device_text("nvidia", "Tesla V100-SXM2-16GB"), device_text("nvidia", "")
    ('NVIDIA GPU: Tesla V100-SXM2-16GB', 'NVIDIA GPU')
    >>> device_text("cpu", "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz")
    ''
    """
    family = str(family or "cpu")
    if family == "cpu" or family not in DEVICE_FAMILY_NAMES:
        return ""
    label = DEVICE_FAMILY_NAMES[family]
    name = "" if name is None or name != name else str(name).strip()  # NaN: not given
    if not name:
        return label
    vendor = label.split()[0]  # "AMD", "NVIDIA", "GPU"
    return name if vendor.casefold() in name.casefold() else f"{label}: {name}"


#: How a roof's value is written in its label (``188.6``, ``2165``, ``41.27``).
ROOF_VALUE_SPEC = ".4g"
#: What a machine's roof name says after what the roof is: ``"(load, likwid-bench)"``.
_DETAIL = re.compile(r"\s*\([^()]*\)\s*$")
_PEAK = re.compile(r"\s+peak$", re.IGNORECASE)


def roof_tag(roof: ComputeRoof | BandwidthRoof) -> str:
    """What a roof is, in a few words: its name without the details in brackets and "peak".

    ``"MEM (stream_mem_avx_fma, likwid-bench)"`` is ``"MEM"``, ``"DP AVX FMA
    peak"`` is ``"DP AVX FMA"``, ``"A100-SXM4-40GB HBM"`` stays; an empirical
    roof keeps its whole name (``"Empirical peak"``).
    """
    name = roof.name.strip()
    if roof.empirical:
        return name
    shorter = _PEAK.sub("", _DETAIL.sub("", name))
    return shorter or name


def roof_label(roof: ComputeRoof | BandwidthRoof) -> str:
    """The label on a roof's line: what it is and its value, ``"MEM 188.6 GB/s"``.

    An empirical roof whose name does not say so gets ``" (empirical)"``.
    """
    tag = roof_tag(roof)
    empirical = " (empirical)" if roof.empirical and "empirical" not in tag.lower() else ""
    return f"{tag} {roof.value:{ROOF_VALUE_SPEC}} {roof.unit}{empirical}"


def _detail_value(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def provenance_text(roof: ComputeRoof | BandwidthRoof) -> str:
    """Where a roof's number came from, in full: its source and every detail recorded.

    ``"likwid-bench load, 16 threads, ... (milan_l2_16c.log); file: ...; line: 11;
    kernel: load; ..."``: the source, then each ``provenance`` entry that has a value.
    """
    details = [f"{key}: {_detail_value(value)}" for key, value in (roof.provenance or {}).items()
               if value is not None and value != ""]
    return "; ".join([roof.source, *details])


def ridge_text(ridge: float, short: bool = False) -> str:
    """The label of the ridge point (intensity where the main roofs meet); ``short``: without
    the unit (the x axis names it), for a plot with no room for the whole label."""
    return f"ridge {ridge:.3g}" if short else f"ridge {ridge:.3g} FLOP/byte"


#: Character widths (em) a little above DejaVu Sans', the widest common sans-serif
#: (its 12 px "Peak bandwidth: 204.8 GB/s" is 152 px wide in Chromium; estimated: 178 px).
_EM_WIDTHS = ((" .,:;/()[]'|-!ijlrtIf", 0.4), ("0123456789", 0.64),
              ("abcdeghknopqsuvxyz", 0.6), ("ABCDEFGHJKLNOPQRSTUVXYZmw", 0.76))


#: Width (em) of each character in ``_EM_WIDTHS``.
_CHAR_EM = {char: width for chars, width in _EM_WIDTHS for char in chars}


@functools.lru_cache(maxsize=1024)  # the label placement measures each text many times
def text_px(text: str) -> float:
    """Width in pixels a label (``LABEL_SIZE`` px sans-serif) takes at most (an estimate).

    Characters not in the table (M, W, %, ...) count as 0.9 em.
    """
    return sum(_CHAR_EM.get(char, 0.9) for char in text) * LABEL_SIZE


#: The label of the plotted (current) run in a comparison.
CURRENT_RUN_LABEL = "current"
#: The label of a single baseline run (a chain keeps its own labels).
BASELINE_RUN_LABEL = "baseline"
