"""The rules a setting's value follows, each with its one sentence.

A rule is a function ``rule(name, value)`` that returns the value to use
(normalised: a float, a sorted list of levels) or raises
:class:`~roofline_widget.errors.SettingError` with one sentence that names
the setting and shows the value (:func:`shown`: bounded, numbers as written,
``5e9`` not ``5000000000.0``).  The widget, a saved view, ``plot_roofline``
and the command line show that sentence as it is.  The functions ending in
``_in_data`` are the rules that need the data; they return the sentence
(None when the value is fine) so that a caller may raise it or collect it.
The rule of ``ranks`` (numbers, and texts such as ``"f0702 socket 1"``) is
:func:`roofline_widget.settings.rank_text.ranks`.
"""

from __future__ import annotations

import math
import numbers
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from roofline_widget.errors import SettingError
from roofline_widget.metric_names import LEVELS

__all__ = ["MAX_RANK", "Rule", "choice", "flag", "integer", "level_metrics", "level_names",
           "levels_in_data", "metric_in_data", "metric_name", "number", "number_text",
           "pattern_text", "ranks_in_data", "shown"]

#: The largest rank accepted (MPI numbers ranks with a C ``int``).
MAX_RANK = 2**31 - 1

#: ``rule(name, value)``: the value to use (normalised), or a SettingError.
Rule = Callable[[str, object], Any]

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80
_EXPONENT = re.compile(r"e([+-])0*(\d)")


def number_text(value: float) -> str:
    """A float as a person writes it: ``5e9``, ``1e-320``, ``2.5``, ``0``, ``nan``.

    Examples
    --------
    >>> number_text(5e9), number_text(1e-320), number_text(-1.0), number_text(0.1 + 0.2)
    ('5e9', '1e-320', '-1', '0.30000000000000004')
    """
    texts = [_EXPONENT.sub(lambda m: "e" + m[1].replace("+", "") + m[2], text).removesuffix(".0")
             for text in (f"{value:g}", repr(value))]
    exact = [text for text in texts if not math.isfinite(value) or float(text) == value]
    return min(exact or texts, key=len)


def shown(value: object) -> str:
    """A short, bounded text of any value for a message (never a 5,000-digit number)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
        if number.bit_length() > 64:
            return f"<an integer of about {int(number.bit_length() * math.log10(2)) + 1:,} digits>"
        return str(number)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return number_text(float(value))
    try:
        return _REPR.repr(value)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__}>"


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def number(*, unit: str = "", base: str = "", limits: tuple[float, float] | None = None) -> Rule:
    """A positive finite number (a float), in ``unit``, within ``limits`` if given.

    Above the limits the value is taken for one in the ``base`` unit
    (``"peak_flops is in GFLOP/s; 5e9 looks like FLOP/s"``).
    """
    of, paren = (f" of {unit}", f" ({unit})") if unit else ("", "")

    def rule(name: str, value: object) -> float:
        if not _is_number(value):
            raise SettingError(f"{name} must be a number{of}, got {shown(value)}")
        figure = float(value)  # type: ignore[arg-type]
        if not math.isfinite(figure):
            raise SettingError(f"{name} must be a finite number{of}, got {number_text(figure)}")
        if figure <= 0:
            raise SettingError(f"{name} must be positive{paren}, got {number_text(figure)}")
        if limits is not None and figure < limits[0]:
            raise SettingError(f"{name} must be at least {number_text(limits[0])} {unit} "
                               f"(1 k{base}), got {number_text(figure)}")
        if limits is not None and figure > limits[1]:
            raise SettingError(f"{name} is in {unit}; {number_text(figure)} looks like {base}")
        return figure
    return rule


def integer(low: int, high: int) -> Rule:
    """An integer from ``low`` to ``high`` (numpy integers too, never a bool)."""
    def rule(name: str, value: object) -> int:
        if not _is_integer(value) or not low <= value <= high:  # type: ignore[operator]
            raise SettingError(f"{name} must be an integer from {low:,} to {high:,}, "
                               f"got {shown(value)}")
        return int(value)  # type: ignore[call-overload]
    return rule


def choice(options: Sequence[str]) -> Rule:
    """One of ``options``."""
    def rule(name: str, value: object) -> str:
        if not isinstance(value, str) or value not in options:
            raise SettingError(f"{name} must be one of {list(options)}, got {shown(value)}")
        return value
    return rule


def flag(name: str, value: object) -> bool:
    """True or False (a numpy bool too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise SettingError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def _text(name: str, value: str) -> str:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise SettingError(f"{name} holds a lone surrogate ({shown(value)}): not valid "
                               "Unicode text") from None
    return value


def metric_name(name: str, value: object) -> str:
    """One metric name.

    Raises
    ------
    TypeError
        For anything but a string (a list of names, say).
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one metric name (str) or None, got "
                        f"{type(value).__name__} {shown(value)}")
    return _text(name, value)


def pattern_text(name: str, value: object) -> str:
    """The text of a regular expression (None: ``""``, no filter); its compiling is
    :func:`~roofline_widget.settings.patterns.compile_patterns`'."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SettingError(f'{name} must be a string ("" for no filter), got {shown(value)}')
    return _text(name, value)


def _level(name: str, value: object) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise SettingError(f"{name} must be among {', '.join(LEVELS)}, got {shown(value)}")
    return value


def level_names(name: str, value: object) -> list[str]:
    """Memory levels (one name or several), each once, inner to outer (L1 ... MEM)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable) or isinstance(items, Mapping):
        raise SettingError(f"{name} must be memory levels ({', '.join(LEVELS)}), "
                           f"got {shown(value)}")
    chosen = {_level(name, item) for item in items}
    return [level for level in LEVELS if level in chosen]


def level_metrics(name: str, value: object) -> dict[str, str]:
    """Memory level -> the bandwidth metric used for it (a mapping, or its pairs)."""
    if isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        value = dict(value)  # the pairs Selection keeps, given back by dataclasses.replace
    if not isinstance(value, Mapping) or not all(isinstance(metric, str)
                                                 for metric in value.values()):
        raise SettingError(f'{name} must be a mapping of level name to metric name '
                           f'({{"L2": "L2 bandwidth [MBytes/s]"}}), got {shown(value)}')
    return {_level(name, level): _text(name, metric) for level, metric in value.items()}


# ---------------------------------------------------------------- rules that need the data
def metric_in_data(name: str, value: str | None, of_kind: Sequence[str], every: Sequence[str],
                   kind: str) -> str | None:
    """Why the metric ``value`` cannot be used with the data (``kind``: "a FLOP rate"), or None."""
    if value is None or value in of_kind:
        return None
    if value in every:
        return f"{name} {value!r} is not {kind}"
    return f"{name} {value!r} is not in the data (available: {list(of_kind) or 'none'})"


def ranks_in_data(chosen: Sequence[int] | None, present: Sequence[int]) -> str | None:
    """Why ``chosen`` ranks cannot all be shown, or None."""
    missing = sorted(set(chosen or ()) - set(present))
    if not missing:
        return None  # bounded: a job of thousands of ranks is not listed in full
    return f"ranks {shown(missing)} are not in the data (ranks: {shown(list(present))})"


def levels_in_data(chosen: Sequence[str], measured: Sequence[str]) -> str | None:
    """Why the memory levels ``chosen`` cannot all be drawn, or None."""
    unknown = [level for level in chosen if level not in measured]
    if not unknown:
        return None
    return (f"unknown memory level(s) {unknown}; levels measured in the data: "
            f"{list(measured) or 'none'}")
