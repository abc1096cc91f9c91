"""Ranks as a user gives them: a number, a list, or a text (``"0-71,144"``, ``"f0702 socket 1"``).

With thousands of ranks a list of numbers is no way to pick them; a person
types what the figure names: ranks and ranges (``0-71,144``), a host
(``f0702``), a socket (``f0702 socket 1``), or a glob over those names
(``f07*``, ``* socket 1``).  This module is the one home of those rules:

* :func:`ranks`: the rule of the ``ranks`` setting (the widget's trait, a
  view's field, every ``ranks=`` keyword, ``--ranks``).  Numbers become a
  sorted list; a text is checked item by item without the data (each rank an
  integer from 0 to :data:`MAX_RANK`, each range ``a-b`` with ``a <= b``,
  each name shaped as a host, socket or glob) and kept as typed, so that it
  names the right ranks of every run it is applied to.
* :func:`parse_rank_text`: a text against the data's place names and ranks
  (:func:`~roofline_widget.points.rank_places.resolve_ranks` gives them);
  :func:`format_rank_text` writes a rank list back as the shortest such text.

A range is never expanded past the data's ranks when they are known
(``known=``: a sorted array is cut with two binary searches); without them a
text may name at most :data:`MAX_TEXT_RANKS` ranks, and at most
:data:`MAX_TEXT_CHARACTERS` characters are read: a typo such as
``0-2000000000`` is never a list of two billion numbers.
"""

from __future__ import annotations

import fnmatch
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from roofline_widget.errors import SelectionError
from roofline_widget.settings.rules import MAX_RANK, shown

__all__ = [
    "MAX_TEXT_CHARACTERS",
    "MAX_TEXT_RANKS",
    "format_rank_text",
    "parse_rank_text",
    "rank_number",
    "ranks",
]

#: The most ranks a text names when the data's ranks are not known.
MAX_TEXT_RANKS = 1_000_000
#: The longest text read.
MAX_TEXT_CHARACTERS = 100_000
_NAME = "ranks"
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_RANGE = re.compile(r"^(?P<low>[+-]?[0-9]+)\s*-\s*(?P<high>[+-]?[0-9]+)$")
_DECIMAL = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
#: A host (``f0702``), a socket (``f0702 socket 1``, ``socket 0``) or a glob over them.
_PLACE = re.compile(r"^[A-Za-z*?\[][A-Za-z0-9._\-*?\[\]! ]*$")
_GLOB = frozenset("*?[")
#: Words a person may write for "every rank" or "no rank": refused, with what to write instead.
_WORDS = frozenset({"all", "none", "every", "any"})
_NAMES_SHOWN = 5
#: The most digits of a rank read as a number (a longer one is out of range anyway).
_DIGITS = 4000


class _Item(NamedTuple):
    """One item of a ranks text: a rank or range (``low``, ``high``), or a place name."""

    text: str
    low: int | None = None
    high: int | None = None


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def rank_number(name: str, value: object) -> int:
    """One rank: an integer from 0 to :data:`MAX_RANK` (numpy integers too, never a bool).

    Raises
    ------
    SelectionError
        ``"ranks must be integers from 0 to 2147483647, got -1"``: the same
        sentence for ``[-1]`` and for the text ``"-1"``.
    """
    if not _is_integer(value) or not 0 <= value <= MAX_RANK:  # type: ignore[operator]
        raise SelectionError(f"{name} must be integers from 0 to {MAX_RANK}, got {shown(value)}")
    return int(value)  # type: ignore[call-overload]


def _integer(name: str, digits: str) -> int:
    if len(digits) > _DIGITS:
        raise SelectionError(f"{name} must be integers from 0 to {MAX_RANK}, got <an integer "
                             f"of {len(digits.lstrip('+-')):,} digits>")
    return rank_number(name, int(digits))


def _items(text: str, name: str = _NAME) -> Iterator[_Item]:
    """The items of a ranks text, each checked for its shape (not against any data).

    Raises
    ------
    SelectionError
        For anything but a string, a text longer than :data:`MAX_TEXT_CHARACTERS`,
        a rank out of range (``-1``, ``1.5``), a range ``b-a`` with ``b > a``, or
        an item that is no rank, range or place name.
    """
    if not isinstance(text, str):
        raise SelectionError(f"a ranks text must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARACTERS:
        raise SelectionError(f"a ranks text of {len(text):,} characters; at most "
                             f"{MAX_TEXT_CHARACTERS:,} are read")
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if _INTEGER.match(item):
            rank = _integer(name, item)
            yield _Item(item, rank, rank)
        elif (match := _RANGE.match(item)) is not None:
            low, high = _integer(name, match["low"]), _integer(name, match["high"])
            if high < low:
                raise SelectionError(f"rank range {item!r}: expected a-b with a <= b")
            yield _Item(item, low, high)
        elif _DECIMAL.match(item):
            rank_number(name, float(item))  # "1.5": the sentence of ranks=[1.5]
        elif item.lower() in _WORDS:
            raise SelectionError(f"{name} text {item!r}: None selects every rank; a text names "
                                 "ranks, ranges, hosts and sockets (\"0-71,144\", \"f0702 socket 1\")")
        elif _PLACE.match(item):
            yield _Item(" ".join(item.split()))
        else:
            raise SelectionError(f"{name} text {item!r} is no rank (144), range (0-71), host "
                                 "(f0702), socket (f0702 socket 1) or glob (f07*)")


def ranks(name: str, value: object) -> list[int] | str:
    """The rule of the ``ranks`` setting: numbers as a sorted list, a text as typed (checked).

    Parameters
    ----------
    name : str
        The setting's name, for the message.
    value : int, iterable of int, or str
        Ranks; or a text of ranks, ranges, host and socket names and globs
        (``"0-71,144"``, ``"f0702 socket 1"``), checked item by item here and
        read against the data where the data is known
        (:func:`~roofline_widget.points.rank_places.resolve_ranks`).

    Returns
    -------
    list of int or str
        The distinct ranks, sorted; a text unchanged.

    Raises
    ------
    SelectionError
        With one sentence naming the setting and the value.

    Examples
    --------
    >>> ranks("ranks", (3, 1, 3)), ranks("ranks", "f0702 socket 1, 0-3")
    ([1, 3], 'f0702 socket 1, 0-3')
    """
    if isinstance(value, str):
        for _item in _items(value, name):
            pass
        return value
    if _is_integer(value):
        items: Iterable = [value]
    elif isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise SelectionError(f"{name} must be an int, a list of ints, a text such as "
                             f"\"0-71,144\" or \"f0702 socket 1\", or None, got {shown(value)}")
    else:
        items = value
    return sorted({rank_number(name, item) for item in items})


def _named(item: str, places: Mapping[str, Sequence[int]] | None) -> list[np.ndarray]:
    """The ranks of the places an item names: exactly, without case, or as a glob."""
    if places is None:
        raise SelectionError(f"{_NAME} {item!r} names a host or socket: that needs the data "
                             "(pass the text as ranks= with the data)")
    if item in places:
        return [np.asarray(places[item], dtype=np.int64)]
    if _GLOB.intersection(item):
        matched = [np.asarray(of, dtype=np.int64) for name, of in places.items()
                   if fnmatch.fnmatchcase(name, item)]
    else:
        lower = item.lower()
        matched = [np.asarray(of, dtype=np.int64) for name, of in places.items()
                   if name.lower() == lower]
    if matched:
        return matched
    names = list(places)
    if not names:
        raise SelectionError(f"{_NAME} {item!r}: no host or socket of that name in the data "
                             "(it names no hosts: only likwid-mpirun output does)")
    known = (", ".join(repr(n) for n in names[:_NAMES_SHOWN])
             + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""))
    raise SelectionError(f"{_NAME} {item!r}: no host or socket of that name in the data "
                         f"(hosts and sockets: {known})")


def _range(item: _Item, known: np.ndarray | None) -> np.ndarray:
    """The ranks of ``low-high`` (those of ``known`` only, when given), or the one rank."""
    low, high = int(item.low), int(item.high)  # type: ignore[arg-type]
    if low == high:  # one rank: kept, known or not (the selection names those the data lacks)
        return np.array([low], dtype=np.int64)
    if known is not None:
        return known[np.searchsorted(known, low, "left"):np.searchsorted(known, high, "right")]
    if high - low >= MAX_TEXT_RANKS:
        raise SelectionError(f"rank range {item.text!r} names {high - low + 1:,} ranks; at most "
                             f"{MAX_TEXT_RANKS:,} without the data's ranks")
    return np.arange(low, high + 1, dtype=np.int64)


def parse_rank_text(text: str, places: Mapping[str, Sequence[int]] | None = None, *,
                    known: Iterable[int] | None = None) -> list[int]:
    """The ranks a text names, sorted and distinct.

    Parameters
    ----------
    text : str
        Items separated by commas: a rank (``144``), a range (``0-71``,
        both ends included), or a place name of ``places`` (``f0702``,
        ``f0702 socket 1``: exactly, else without regard to case), or a glob
        over the place names (``f07*``).  Blanks around items are ignored;
        a blank text names no rank.
    places : mapping of str to sequence of int, optional
        Place name -> its ranks
        (:func:`~roofline_widget.points.rank_places.rank_places_of`); None:
        the data is not known, and a name is an error.
    known : iterable of int, optional
        The data's ranks: ranges give only these (and may then be as wide as
        wanted); a single rank is kept whether known or not (the caller's
        selection reports ranks the data lacks).

    Returns
    -------
    list of int

    Raises
    ------
    SelectionError
        For an item of the wrong shape (:func:`ranks`), a name that is not
        among ``places`` (naming the known ones), more than
        :data:`MAX_TEXT_RANKS` ranks without ``known``.

    Examples
    --------
    >>> parse_rank_text("0-3, 144")
    [0, 1, 2, 3, 144]
    >>> parse_rank_text("f0703, 0", {"f0702": range(72), "f0703": range(72, 144)})[:3]
    [0, 72, 73]
    """
    known_ranks = None if known is None else np.unique(np.fromiter(known, dtype=np.int64))
    parts: list[np.ndarray] = []
    total = 0
    for item in _items(text):
        found = [_range(item, known_ranks)] if item.low is not None else _named(item.text, places)
        parts += found
        total += sum(len(part) for part in found)
        if known_ranks is None and total > MAX_TEXT_RANKS:
            raise SelectionError(f"the ranks text names more than {MAX_TEXT_RANKS:,} ranks")
    if not parts:
        return []
    return np.unique(np.concatenate(parts)).tolist()


def format_rank_text(numbers: Iterable[int]) -> str:
    """Ranks as the shortest text :func:`parse_rank_text` reads back: ``"0-71,144"``.

    Examples
    --------
    >>> format_rank_text([144, 0, 1, 2, 3, 5])
    '0-3,5,144'
    >>> parse_rank_text(format_rank_text(range(0, 2304, 72)))[:3]
    [0, 72, 144]
    """
    # sorted, repeats dropped (np.unique hashes: 4x slower on the 6,250 ranks of a big job)
    values = np.sort(np.fromiter(numbers, dtype=np.int64))
    values = values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values
    if not len(values):
        return ""
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    starts = values[np.r_[0, breaks]].tolist()
    ends = values[np.r_[breaks - 1, len(values) - 1]].tolist()
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(starts, ends))
