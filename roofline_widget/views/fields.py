"""The check of every field of a saved view: its JSON type, then its range.

A view file may come from someone else, so each field is checked for what
JSON can hold (strings, numbers, lists, objects, however deep and large),
then for the range the widget can use; the selection fields then go through
:class:`~roofline_widget.points.Selection`'s own checks.  Each checker
returns the normalised value or raises :class:`BadField` with a sentence
that completes "'field' ...".  Values are shown through :func:`shown`, which
never recurses without bound nor prints a 5,000-digit number.
"""

from __future__ import annotations

import json
import math
import numbers
import reprlib
from collections.abc import Callable
from typing import TypeGuard

from roofline_widget.analysis.levels import LEVELS
from roofline_widget.ceilings import PEAK_LIMITS, BandwidthRoof, ComputeRoof, check_peak
from roofline_widget.errors import SelectionError
from roofline_widget.points.arguments import MAX_RANK, compile_patterns
from roofline_widget.points.rank_groups import GROUP_RANKS_CHOICES
from roofline_widget.schema import ALL_RANKS

__all__ = ["COLOR_CHOICES", "FIELD_CHECKS", "MAX_DEPTH", "MAX_POINTS", "SIZE_CHOICES", "BadField",
           "Oversized", "ceiling_document", "checked", "shown"]

COLOR_CHOICES = ("region", "run", "rank")
SIZE_CHOICES = ("none", "runtime")
#: The deepest nesting of lists and objects a view may hold (its own layout needs 4).
MAX_DEPTH = 16
#: The largest ``max_points`` a view may set.
MAX_POINTS = 10**9
#: The most containers a ceiling's provenance may hold.
MAX_PROVENANCE_ITEMS = 10_000


class BadField(Exception):
    """One field's problem (the message completes "'field' ...")."""


class Oversized:
    """An integer too long for a view, as JSON parsing leaves it (never converted)."""

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {len(self.digits.lstrip('-')):,} digits>"


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80


def shown(value: object) -> str:
    """A short, bounded repr of a field value for a message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"<an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits>"
    try:
        return _REPR.repr(value)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__}>"


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _optional_text(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BadField(f"must be a string or null, got {shown(value)}")
    return value


def _pattern(value: object) -> str:
    if not isinstance(value, str):
        raise BadField(f"must be a string (\"\" for no filter), got {shown(value)}")
    try:
        compile_patterns(value)
    except SelectionError as exc:
        raise BadField(f"is not a valid regular expression ({exc}): {shown(value)}") from None
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise BadField(f"must be true or false, got {shown(value)}")
    return value


def _ranks(value: object) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(_is_int(r) and r >= 0 for r in value):
        raise BadField(f"must be a list of non-negative integers or null, got {shown(value)}")
    too_large = [r for r in value if r > MAX_RANK]
    if too_large:
        raise BadField(f"holds the rank {shown(too_large[0])}; ranks go up to {MAX_RANK}")
    return sorted({int(r) for r in value})


def _peak(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise BadField(f"must be a positive number or null, got {shown(value)}")
    try:
        return check_peak(value, "peak")
    except ValueError:
        raise BadField(f"must be between {PEAK_LIMITS[0]:g} and {PEAK_LIMITS[1]:g} or null, "
                       f"got {shown(value)}") from None


def _choice(options: tuple[str, ...]) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in options:
            raise BadField(f"must be one of {list(options)}, got {shown(value)}")
        return value
    return check


def _max_points(value: object) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or value <= 0:
        raise BadField(f"must be a positive integer or null, got {shown(value)}")
    if value > MAX_POINTS:
        raise BadField(f"must be at most {MAX_POINTS:,}, got {shown(value)}")
    return int(value)


def _levels(value: object) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise BadField(f"must be an object of level name -> metric name, or null, "
                       f"got {shown(value)}")
    unknown = [level for level in value if level not in LEVELS]
    if unknown:
        raise BadField(f"names unknown level(s) {shown(unknown)}; levels: {list(LEVELS)}")
    return dict(value)


def _selected(value: object) -> list[tuple[str, int, str]]:
    if not isinstance(value, (list, tuple)):
        raise BadField(f"must be a list of [run, rank, region] keys, got {shown(value)}")
    keys = []
    for key in value:
        if not (isinstance(key, (list, tuple)) and len(key) == 3 and isinstance(key[0], str)
                and _is_int(key[1]) and ALL_RANKS <= key[1] <= MAX_RANK
                and isinstance(key[2], str)):
            raise BadField(f"must hold [run, rank, region] keys (string, integer from "
                           f"{ALL_RANKS} to {MAX_RANK}, string), got {shown(key)}")
        keys.append((key[0], int(key[1]), key[2]))
    return keys


def _labels(value: object) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise BadField(f"must be a list of run labels (strings) or null, got {shown(value)}")
    return list(value)


def _provenance(value: object, roof: str) -> None:
    """Refuse a provenance nested deeper than :data:`MAX_DEPTH`, too large, or with NaN/huge numbers."""
    stack, count = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            count += 1
            if depth > MAX_DEPTH or count > MAX_PROVENANCE_ITEMS:
                raise BadField(f"provenance of {roof} is nested deeper than {MAX_DEPTH} levels or "
                               f"holds more than {MAX_PROVENANCE_ITEMS:,} lists and objects")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, Oversized) or (isinstance(item, float) and not math.isfinite(item)):
            raise BadField(f"provenance of {roof} holds {shown(item)}: numbers must be finite "
                           "and of at most 20 digits")


_CEILING_KEYS = {"kind", "name", "value", "source"}
_CEILING_OPTIONAL = {"level", "provenance", "device", "precision", "family"}
#: What a roof bounds (optional keys): the kind of roof that has it.
_BOUNDS = {"level": "bandwidth", "precision": "compute", "device": None, "family": None}
_ROOFS = {"compute": ComputeRoof, "bandwidth": BandwidthRoof}


def _ceiling(item: object) -> ComputeRoof | BandwidthRoof:
    if isinstance(item, (ComputeRoof, BandwidthRoof)):
        _provenance(item.provenance, repr(item.name))
        _ceiling_value(item.value, item.name)
        return item
    if not isinstance(item, dict) or not _CEILING_KEYS <= set(item) \
            or not set(item) <= _CEILING_KEYS | _CEILING_OPTIONAL:
        raise BadField(f"must hold objects with the keys {sorted(_CEILING_KEYS)} (and optionally "
                       f"{sorted(_CEILING_OPTIONAL)}), got {shown(item)}")
    if item["kind"] not in _ROOFS:
        raise BadField(f"kind must be 'compute' or 'bandwidth', got {shown(item['kind'])}")
    if isinstance(item["value"], bool) or not isinstance(item["value"], (int, float)):
        raise BadField(f"value must be a number, got {shown(item['value'])}")
    provenance = item.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        raise BadField(f"provenance must be an object or null, got {shown(provenance)}")
    _provenance(provenance, shown(item["name"]))
    extra: dict = {"provenance": provenance}
    for key, kind in _BOUNDS.items():
        value = item.get(key)
        if value is None:
            continue
        if kind not in (None, item["kind"]) or not isinstance(value, str):
            where = f"a {kind} ceiling" if kind else "a ceiling"
            raise BadField(f"{key} must be a string on {where}, got {shown(value)}")
        extra[key] = value
    try:
        roof = _ROOFS[item["kind"]](item["name"], item["value"], item["source"], **extra)
    except ValueError as exc:
        raise BadField(str(exc)) from None
    _ceiling_value(roof.value, roof.name)
    return roof


def _ceiling_value(value: float, name: str) -> None:
    try:
        check_peak(value, "value")
    except ValueError:
        raise BadField(f"value of {name!r:.80} must be between {PEAK_LIMITS[0]:g} and "
                       f"{PEAK_LIMITS[1]:g}, got {shown(value)}") from None


def _ceilings(value: object) -> list[ComputeRoof | BandwidthRoof]:
    if not isinstance(value, (list, tuple)):
        raise BadField(f"must be a list of ceilings, got {shown(value)}")
    return [_ceiling(item) for item in value]


def ceiling_document(roof: ComputeRoof | BandwidthRoof) -> dict:
    """A roof as JSON: provenance values that JSON lacks (paths, ...) written as text."""
    document = {"kind": roof.kind, "name": roof.name, "value": roof.value,
                "source": roof.source}
    for key in _BOUNDS:
        if getattr(roof, key, None) is not None:
            document[key] = getattr(roof, key)
    if roof.provenance is not None:
        document["provenance"] = json.loads(json.dumps(roof.provenance, default=str))
    return document


#: Field name -> its check.
FIELD_CHECKS: dict[str, Callable[[object], object]] = {
    "flops_metric": _optional_text, "bandwidth_metric": _optional_text, "ranks": _ranks,
    "group_ranks": _choice(GROUP_RANKS_CHOICES), "combine_ranks": _flag,
    "include": _pattern, "exclude": _pattern,
    "peak_flops": _peak, "peak_bandwidth": _peak, "ceilings": _ceilings,
    "levels": _levels, "color_by": _choice(COLOR_CHOICES), "size_by": _choice(SIZE_CHOICES),
    "max_points": _max_points, "selected": _selected, "baseline": _labels,
}


def checked(values: dict[str, object]) -> tuple[dict[str, object], list[str]]:
    """The normalised values and one sentence per bad field (naming it)."""
    result, problems = {}, []
    for name, value in values.items():
        try:
            result[name] = FIELD_CHECKS[name](value)
        except BadField as bad:
            problems.append(f"{name!r} {bad}")
    return result, problems
