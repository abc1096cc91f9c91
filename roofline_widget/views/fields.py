"""The check of every field of a saved view: the settings' own rules, and the view's fields.

A view file may come from someone else, so each field is checked for what
JSON can hold (strings, numbers, lists, objects, however deep and large).
The fields that are settings (metrics, ranks, patterns, peaks, ``max_points``,
colour and size) go through :data:`roofline_widget.settings.SETTINGS`, with
the same sentence as the widget and the command line; ``include`` and
``exclude`` must also compile (:func:`~roofline_widget.settings.compile_patterns`).
``sweep_step`` and ``group_runs_by`` (a sweep's ringed step and grouping) are
settings too.  ``levels`` is a :class:`~roofline_widget.Selection`'s (level -> metric).  The
view's own fields (``ceilings``, ``selected``, ``baseline``) are checked here.
Each checker returns the normalised value or raises
:class:`~roofline_widget.errors.SettingError` with a sentence naming the field.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable

from roofline_widget.errors import SettingError
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof
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
    """Refuse a provenance that is no object, nested deeper than :data:`MAX_DEPTH`, too large,
    or with NaN or huge numbers."""
    if value is not None and not isinstance(value, dict):
        raise SettingError(f"ceilings: the provenance of {roof} must be an object or null, "
                           f"got {shown(value)}")
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


_ROOFS = {"compute": ComputeRoof, "bandwidth": BandwidthRoof}
#: The keys of a ceiling in a view: always, and those of the roof's kind that may be left out.
_CEILING_KEYS = {"kind", "name", "value", "source"}
_OPTIONAL = {"compute": {"provenance", "device", "family", "precision"},
             "bandwidth": {"provenance", "device", "family", "level"}}


def _roof(item: object) -> ComputeRoof | BandwidthRoof:
    """The roof a ``ceilings`` object of a view describes (a roof given in Python as it is)."""
    if isinstance(item, (ComputeRoof, BandwidthRoof)):
        return item
    kind = str(item.get("kind")) if isinstance(item, dict) else ""
    if not isinstance(item, dict) or kind not in _ROOFS \
            or not _CEILING_KEYS <= set(item) <= _CEILING_KEYS | _OPTIONAL[kind]:
        raise SettingError(f"ceilings must hold objects with the keys {sorted(_CEILING_KEYS)}, "
                           "and optionally provenance, device, family and a compute roof's precision "
                           "or "
                           f"a bandwidth roof's level; got {shown(item)}")
    fields = {key: value for key, value in item.items() if key != "kind"}
    _provenance(fields.get("provenance"), shown(fields["name"]))
    try:
        return _ROOFS[kind](fields.pop("name"), fields.pop("value"), **fields)
    except ValueError as exc:
        raise SettingError(f"ceilings: {exc}") from None


def _ceiling(item: object) -> ComputeRoof | BandwidthRoof:
    """A roof of the view, its value within :data:`~roofline_widget.settings.PEAK_LIMITS` as a
    peak's."""
    roof = _roof(item)
    _provenance(roof.provenance, repr(roof.name))
    number(unit=roof.unit, base=roof.unit.removeprefix("G"), limits=PEAK_LIMITS)(
        f"ceilings: the value of {roof.name!r:.80}", roof.value)
    return roof


def _ceilings(value: object) -> list[ComputeRoof | BandwidthRoof]:
    if not isinstance(value, (list, tuple)):
        raise SettingError(f"ceilings must be a list of ceilings, got {shown(value)}")
    return [_ceiling(item) for item in value]


def ceiling_document(roof: ComputeRoof | BandwidthRoof) -> dict:
    """A roof as JSON: provenance values that JSON lacks (paths, ...) written as text."""
    document = {"kind": roof.kind, "name": roof.name, "value": roof.value,
                "source": roof.source}
    for key in ("level", "precision", "device", "family"):
        if getattr(roof, key, None) is not None:
            document[key] = getattr(roof, key)
    if roof.provenance is not None:
        document["provenance"] = json.loads(json.dumps(roof.provenance, default=str))
    return document


#: Field name -> its check.
FIELD_CHECKS: dict[str, Callable[[object], object]] = {
    **{name: _setting(name) for name in ("flops_metric", "bandwidth_metric", "ranks",
                                         "group_ranks", "combine_ranks", "peak_flops",
                                         "peak_bandwidth", "color_by", "size_by",
                                         "sweep_step", "group_runs_by")},
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
