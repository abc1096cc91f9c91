"""The check of every field of a saved view: the settings' own rules, and the view's fields.

A view file may come from someone else, so each field is checked for what
JSON can hold (strings, numbers, lists, objects, however deep and large).
The fields that are settings (metrics, ranks, patterns, peaks, ``max_points``,
colour and size) go through :data:`roofline_widget.settings.SETTINGS`, with
the same sentence as the widget and the command line; ``include`` and
``exclude`` must also compile (:func:`~roofline_widget.settings.compile_patterns`).
The view's own fields (``ceilings``, ``levels``, ``selected``, ``baseline``)
are checked here.  Each checker returns the normalised value or raises
:class:`~roofline_widget.errors.SettingError` with a sentence naming the field.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable

from roofline_widget.ceilings import BandwidthRoof, ComputeRoof
from roofline_widget.errors import SettingError
from roofline_widget.schema import ALL_RANKS
from roofline_widget.settings import MAX_RANK, PEAK_LIMITS, SELECTION, SETTINGS, shown
from roofline_widget.settings.rules import number
from roofline_widget.views.json_text import MAX_DEPTH, Oversized

__all__ = ["FIELD_CHECKS", "ceiling_document", "checked"]

#: The most containers a ceiling's provenance may hold.
MAX_PROVENANCE_ITEMS = 10_000


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _setting(name: str, *, optional: bool = False) -> Callable[[object], object]:
    """The check of the setting ``name`` (None passes when ``optional``)."""
    def check(value: object) -> object:
        if value is None and optional:
            return None
        try:
            return SETTINGS[name].check(value)
        except TypeError as exc:  # a metric name that is no string
            raise SettingError(str(exc)) from None
    return check


def _pattern(name: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        text = str(SETTINGS[name].check(value))
        SELECTION[name].check(text or None)  # it compiles, within the bounds
        return text
    return check


def _selected(value: object) -> list[tuple[str, int, str]]:
    if not isinstance(value, (list, tuple)):
        raise SettingError(f"selected must be a list of [run, rank, region] keys, got {shown(value)}")
    keys = []
    for key in value:
        if not (isinstance(key, (list, tuple)) and len(key) == 3 and isinstance(key[0], str)
                and _is_int(key[1]) and ALL_RANKS <= key[1] <= MAX_RANK
                and isinstance(key[2], str)):
            raise SettingError(f"selected must hold [run, rank, region] keys (string, integer "
                               f"from {ALL_RANKS} to {MAX_RANK}, string), got {shown(key)}")
        keys.append((key[0], int(key[1]), key[2]))
    return keys


def _labels(value: object) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SettingError(f"baseline must be a list of run labels (strings) or null, "
                           f"got {shown(value)}")
    return list(value)


def _provenance(value: object, roof: str) -> None:
    """Refuse a provenance nested deeper than :data:`MAX_DEPTH`, too large, or with NaN/huge numbers."""
    stack, count = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            count += 1
            if depth > MAX_DEPTH or count > MAX_PROVENANCE_ITEMS:
                raise SettingError(f"ceilings: the provenance of {roof} is nested deeper than "
                                   f"{MAX_DEPTH} levels or holds more than "
                                   f"{MAX_PROVENANCE_ITEMS:,} lists and objects")
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict)
                                                          else item))
        elif isinstance(item, Oversized) or (isinstance(item, float) and not math.isfinite(item)):
            raise SettingError(f"ceilings: the provenance of {roof} holds {shown(item)}: numbers "
                               "must be finite and of at most 20 digits")


_CEILING_KEYS = {"kind", "name", "value", "source"}
_CEILING_OPTIONAL = {"level", "provenance", "device", "precision"}
#: What a roof bounds (optional keys): the kind of roof that has it.
_BOUNDS = {"level": "bandwidth", "precision": "compute", "device": None}
_ROOFS = {"compute": ComputeRoof, "bandwidth": BandwidthRoof}


def _ceiling_value(roof: ComputeRoof | BandwidthRoof) -> None:
    """A ceiling's value follows the rule of a peak (:data:`~roofline_widget.settings.PEAK_LIMITS`)."""
    base = roof.unit.removeprefix("G")
    number(unit=roof.unit, base=base, limits=PEAK_LIMITS)(f"ceilings: the value of {roof.name!r:.80}",
                                                           roof.value)


def _ceiling(item: object) -> ComputeRoof | BandwidthRoof:
    if isinstance(item, (ComputeRoof, BandwidthRoof)):
        _provenance(item.provenance, repr(item.name))
        _ceiling_value(item)
        return item
    if not isinstance(item, dict) or not _CEILING_KEYS <= set(item) \
            or not set(item) <= _CEILING_KEYS | _CEILING_OPTIONAL:
        raise SettingError(f"ceilings must hold objects with the keys {sorted(_CEILING_KEYS)} (and "
                           f"optionally {sorted(_CEILING_OPTIONAL)}), got {shown(item)}")
    if item["kind"] not in _ROOFS:
        raise SettingError(f"ceilings: kind must be 'compute' or 'bandwidth', "
                           f"got {shown(item['kind'])}")
    if isinstance(item["value"], bool) or not isinstance(item["value"], (int, float)):
        raise SettingError(f"ceilings: value must be a number, got {shown(item['value'])}")
    provenance = item.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        raise SettingError(f"ceilings: provenance must be an object or null, got {shown(provenance)}")
    _provenance(provenance, shown(item["name"]))
    extra: dict = {"provenance": provenance}
    for key, kind in _BOUNDS.items():
        value = item.get(key)
        if value is None:
            continue
        if kind not in (None, item["kind"]) or not isinstance(value, str):
            where = f"a {kind} ceiling" if kind else "a ceiling"
            raise SettingError(f"ceilings: {key} must be a string on {where}, got {shown(value)}")
        extra[key] = value
    try:
        roof = _ROOFS[item["kind"]](item["name"], item["value"], item["source"], **extra)
    except ValueError as exc:
        raise SettingError(f"ceilings: {exc}") from None
    _ceiling_value(roof)
    return roof


def _ceilings(value: object) -> list[ComputeRoof | BandwidthRoof]:
    if not isinstance(value, (list, tuple)):
        raise SettingError(f"ceilings must be a list of ceilings, got {shown(value)}")
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
    **{name: _setting(name) for name in ("flops_metric", "bandwidth_metric", "ranks",
                                         "group_ranks", "combine_ranks", "peak_flops",
                                         "peak_bandwidth", "color_by", "size_by")},
    "include": _pattern("include"), "exclude": _pattern("exclude"),
    "max_points": _setting("max_points", optional=True), "ceilings": _ceilings,
    "levels": SELECTION["levels"].check, "selected": _selected, "baseline": _labels,
}


def checked(values: dict[str, object]) -> tuple[dict[str, object], list[str]]:
    """The normalised values and one sentence per bad field (naming it)."""
    result, problems = {}, []
    for name, value in values.items():
        try:
            result[name] = FIELD_CHECKS[name](value)
        except SettingError as bad:
            problems.append(str(bad))
    return result, problems
