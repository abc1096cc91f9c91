"""Units of Nsight Compute metric values (the ``Metric Unit`` column, the raw page's units row).

``ncu`` prints base units with ``--print-units base`` (``byte``, ``cycle``,
``inst``, ``cycle/second``, ``nsecond``) and scales them to fit by default
(``Mbyte``, ``Kinst``, ``cycle/nsecond``, ``Ghz``, ``usecond``, ``msecond``);
units may differ from launch to launch of one metric.  :func:`to_base` gives
the factor to the base unit of a metric's role.  Prefixes are decimal
(``Kbyte`` = 1000 bytes); IEC prefixes (``Kibyte``, ``KiB``) are binary.
An empty unit is the base unit.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roofline_widget.errors import NcuUnitError as UnitError

__all__ = ["UnitError", "expected_dimension", "to_base"]

# prefix -> (radix, exponent): exact powers, so that cycle/nsecond is exactly 1e9 cycle/second
_PREFIXES = {"": (10, 0), "n": (10, -9), "u": (10, -6), "\u00b5": (10, -6), "m": (10, -3),
             "K": (10, 3), "k": (10, 3), "M": (10, 6), "G": (10, 9), "T": (10, 12), "P": (10, 15),
             "Ki": (2, 10), "Mi": (2, 20), "Gi": (2, 30), "Ti": (2, 40)}
# base unit text -> dimension
_BASES = {"inst": "inst", "byte": "byte", "B": "byte", "cycle": "cycle", "second": "second",
          "s": "second", "hz": "cycle/second", "Hz": "cycle/second"}
_PART = re.compile(r"^(?P<prefix>[nu\u00b5mkKMGTP]i?|)(?P<base>inst|byte|B|cycle|second|s|hz|Hz)$")


def expected_dimension(metric: str) -> str:
    """The dimension a used metric's unit must have.

    Examples
    --------
    >>> expected_dimension("sm__cycles_elapsed.avg.per_second")
    'cycle/second'
    >>> expected_dimension("dram__bytes.sum.peak_sustained")
    'byte/cycle'
    """
    if metric.endswith(".per_second"):
        return "cycle/second"
    if metric.startswith("gpu__time_duration"):
        return "second"
    if "__cycles_elapsed" in metric:
        return "cycle"
    per_cycle = metric.endswith(".peak_sustained")
    base = "byte" if "bytes" in metric else "inst"
    return f"{base}/cycle" if per_cycle else base


def _part(text: str) -> tuple[dict[int, int], str]:
    """({radix: exponent}, dimension) of one side of a unit."""
    match = _PART.match(text)
    if match is None:
        raise UnitError(text)
    radix, exponent = _PREFIXES[match["prefix"]]
    return {radix: exponent}, _BASES[match["base"]]


@lru_cache(maxsize=256)
def to_base(unit: str, dimension: str) -> float:
    """The factor from ``unit`` to the base unit of ``dimension``.

    Parameters
    ----------
    unit : str
        As ncu printed it (``"Mbyte"``, ``"cycle/nsecond"``, ``"usecond"``, ``""``).
    dimension : str
        What it must measure: ``"inst"``, ``"byte"``, ``"cycle"``, ``"second"``,
        ``"cycle/second"``, ``"inst/cycle"`` or ``"byte/cycle"``.

    Raises
    ------
    UnitError
        If ``unit`` is not a unit of ``dimension``.

    Examples
    --------
    >>> to_base("Mbyte", "byte"), to_base("cycle/nsecond", "cycle/second"), to_base("Ghz", "cycle/second")
    (1000000.0, 1000000000.0, 1000000000.0)
    >>> to_base("", "inst")
    1.0
    """
    text = unit.strip()
    if not text:
        return 1.0
    head, _, tail = text.partition("/")
    powers, found = _part(head)
    if tail:
        tail_powers, tail_dimension = _part(tail)
        for radix, exponent in tail_powers.items():
            powers[radix] = powers.get(radix, 0) - exponent
        found = f"{found}/{tail_dimension}"
    if found != dimension:
        raise UnitError(text)
    factor = 1.0
    for radix, exponent in powers.items():
        factor *= float(radix) ** exponent
    return factor
