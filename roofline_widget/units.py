"""Units of LIKWID metrics, parsed from the metric names themselves.

LIKWID puts a metric's unit in its name: ``DP [MFLOP/s]``,
``Memory bandwidth [MBytes/s]`` (LIKWID >= 5.0), or without brackets in the
4.x groups (``DP MFLOP/s``, ``Packed MUOPS/s``); likwid-bench prints
``MFlops/s`` and ``MByte/s``.  This module turns such a name into a
:class:`Unit` that knows the quantity measured and the factor to the giga
scale the roofline is drawn in (GFLOP/s and GB/s).

Prefixes are decimal (``k``, ``M``, ``G``, ``T``, ``P``, ``E``) unless written
as IEC binary prefixes (``Ki``, ``Mi``, ``Gi``, ``Ti``, ``Pi``): ``TiB/s`` is
2**40 bytes per second, i.e. 1099.511627776 GB/s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from roofline_widget.enums import StrEnum

__all__ = ["Unit", "UnitKind", "parse_unit", "split_metric_name"]


class UnitKind(StrEnum):
    """The quantity a metric measures (a ``str``: ``UnitKind.FLOP_RATE == "flop_rate"``)."""

    FLOP_RATE = "flop_rate"
    UOP_RATE = "uop_rate"
    BYTE_RATE = "byte_rate"
    BYTE_VOLUME = "byte_volume"
    INTENSITY = "intensity"
    TIME = "time"
    OTHER = "other"


_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}

_BRACKETED = re.compile(r"^(?P<stem>.*?)\s*\[(?P<unit>[^\]]+)\]\s*(?P<suffix>.*)$")
# A rate or volume written into the name without brackets (LIKWID 4.x groups,
# likwid-bench): "DP MFLOP/s", "Packed MUOPS/s", "MFlops/s", "MByte/s".
_BARE = re.compile(
    r"(?<![A-Za-z])(?P<unit>(?:[kKMGTPE]i?)?(?:FLOPS?|Flops?|flops?|UOPS|Uops|uops|"
    r"Bytes?|bytes?|B)(?:/s)?)(?![A-Za-z/])"
)
_QUANTITY = re.compile(
    r"^(?P<prefix>(?:[kKMGTPE]i?)?)(?P<base>FLOPS?|Flops?|flops?|UOPS|Uops|uops|"
    r"Bytes?|bytes?|B)(?P<per_second>/s)?$"
)


@dataclass(frozen=True)
class Unit:
    """A metric's unit as parsed from its name.

    Attributes
    ----------
    text : str
        The unit as LIKWID printed it (``"MFLOP/s"``), or ``""`` when the
        name carries none.
    kind : UnitKind
        A ``str`` enum member: one of ``"flop_rate"``, ``"uop_rate"``, ``"byte_rate"``,
        ``"byte_volume"``, ``"intensity"``, ``"time"`` or ``"other"``.
    to_giga : float
        Factor that converts a value in this unit to GFLOP/s (flop rates),
        GUOP/s (uop rates), GB/s (byte rates) or GB (volumes); ``nan`` for the
        other kinds.
    """

    text: str
    kind: str
    to_giga: float = float("nan")

    @property
    def is_rate(self) -> bool:
        """Whether the unit is a FLOP, uop or byte rate."""
        return self.kind in (UnitKind.FLOP_RATE, UnitKind.UOP_RATE, UnitKind.BYTE_RATE)


def split_metric_name(name: str) -> tuple[str, str, str]:
    """Split a LIKWID metric name into stem, bracketed unit and suffix.

    Parameters
    ----------
    name : str
        A metric name exactly as LIKWID printed it.

    Returns
    -------
    tuple of str
        ``(stem, unit, suffix)``; ``unit`` is ``""`` when the name has no
        bracketed unit.

    Examples
    --------
    >>> split_metric_name("Memory bandwidth (channels 0-3) [MBytes/s]")
    ('Memory bandwidth (channels 0-3)', 'MBytes/s', '')
    >>> split_metric_name("DP [MFLOP/s] (scalar assumed)")
    ('DP', 'MFLOP/s', '(scalar assumed)')
    """
    match = _BRACKETED.match(name.strip())
    if match is None:
        return name.strip(), "", ""
    return match["stem"], match["unit"].strip(), match["suffix"]


def _quantity_unit(text: str) -> Unit | None:
    match = _QUANTITY.match(text)
    if match is None:
        return None
    prefix, base, per_second = match["prefix"], match["base"].lower(), match["per_second"]
    factor = _BINARY.get(prefix, _DECIMAL.get(prefix))
    if factor is None:
        return None
    if base.startswith("flop"):
        # "MFLOPS" without "/s" is still a rate; "FLOP" alone is a count.
        if not per_second and not base.endswith("s"):
            return Unit(text, UnitKind.OTHER)
        return Unit(text, UnitKind.FLOP_RATE, factor / 1e9)
    if base.startswith("uop"):
        rate = per_second or base.endswith("s")
        return Unit(text, UnitKind.UOP_RATE if rate else UnitKind.OTHER, factor / 1e9)
    kind = UnitKind.BYTE_RATE if per_second else UnitKind.BYTE_VOLUME
    return Unit(text, kind, factor / 1e9)


@lru_cache(maxsize=4096)
def parse_unit(metric_name: str) -> Unit:
    """Parse the unit from a LIKWID metric name.

    Parameters
    ----------
    metric_name : str
        A derived-metric name as printed by LIKWID, e.g. ``"DP [MFLOP/s]"``,
        ``"Memory bandwidth [MBytes/s]"``, ``"DP MFLOP/s"`` (4.x) or
        ``"MFlops/s"`` (likwid-bench).

    Returns
    -------
    Unit
        The parsed unit; ``kind == "other"`` when the name has no unit this
        module understands (``CPI``, ``Clock [MHz]``, ``Energy [J]``).

    Examples
    --------
    >>> parse_unit("DP [MFLOP/s]").to_giga
    0.001
    >>> parse_unit("HBM bandwidth [TiB/s]").to_giga
    1099.511627776
    >>> parse_unit("Packed MUOPS/s").kind
    <UnitKind.UOP_RATE: 'uop_rate'>
    >>> parse_unit("Packed MUOPS/s").kind == "uop_rate"
    True
    """
    stem, unit_text, _ = split_metric_name(metric_name)
    lowered = metric_name.lower()
    if unit_text:
        parsed = _quantity_unit(unit_text.replace(" ", ""))
        if parsed is not None:
            return Unit(unit_text, parsed.kind, parsed.to_giga)
        compact = unit_text.replace(" ", "").lower()
        if compact in ("flop/byte", "flops/byte", "flop/b"):
            return Unit(unit_text, UnitKind.INTENSITY)
        if compact == "s":
            return Unit(unit_text, UnitKind.TIME, float("nan"))
        return Unit(unit_text, UnitKind.OTHER)
    match = _BARE.search(stem)
    if match is not None:
        parsed = _quantity_unit(match["unit"])
        # Outside brackets only an explicit rate counts: "Flops per DP instr"
        # or a bare "Bytes" inside a sentence is no unit.
        if parsed is not None and parsed.is_rate and match["unit"].endswith("/s"):
            return parsed
    if "intensity" in lowered:
        return Unit("", UnitKind.INTENSITY)
    return Unit("", UnitKind.OTHER)
