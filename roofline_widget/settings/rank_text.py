"""Ranks written as text: ``"0-71,144"``, host and socket names, in bounded time and memory.

With thousands of ranks a list of numbers is no way to pick them; a person
types what the figure names: ranks and ranges (``0-71,144``), a host
(``f0702``), a socket (``f0702 socket 1``), or a glob over those names
(``f07*``, ``* socket 1``).  :func:`parse_rank_text` turns such a text into
the sorted list of ranks ``ranks=`` takes; :func:`format_rank_text` writes a
rank list back as the shortest such text; :func:`rank_places_of` gives the
names the data knows and :func:`~roofline_widget.points.rank_places.ranks_of`
does both for a user's data (:mod:`roofline_widget.points.rank_places`).

A range is never expanded past the data's ranks when they are known
(``known=``: a sorted array is cut with two binary searches); without them a
text may name at most :data:`MAX_TEXT_RANKS` ranks, and at most
:data:`MAX_TEXT_CHARACTERS` characters are read: a typo such as
``0-2000000000`` is an error, never a list of two billion numbers.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from roofline_widget.errors import SelectionError

__all__ = [
    "MAX_RANK",
    "MAX_TEXT_CHARACTERS",
    "MAX_TEXT_RANKS",
    "format_rank_text",
    "parse_rank_text",
]

#: The most ranks a text names when the data's ranks are not known.
MAX_TEXT_RANKS = 1_000_000
#: The longest text read.
MAX_TEXT_CHARACTERS = 100_000
#: The largest rank accepted (MPI numbers ranks with a C ``int``).
MAX_RANK = 2**31 - 1
_NUMBER = re.compile(r"^[0-9]{1,19}$")
_RANGE = re.compile(r"^(?P<low>[0-9]{1,19})\s*-\s*(?P<high>[0-9]{1,19})$")
_GLOB = frozenset("*?[")
_NAMES_SHOWN = 5


def _check_rank(value: int, item: str) -> int:
    if value > MAX_RANK:
        raise SelectionError(f"rank {value} in {item!r} is larger than {MAX_RANK}")
    return value


def _range(low: int, high: int, item: str, known: np.ndarray | None) -> np.ndarray:
    """The ranks of ``low-high`` (those of ``known`` only, when given)."""
    if high < low:
        raise SelectionError(f"rank range {item!r}: expected a-b with a <= b")
    if known is not None:
        return known[np.searchsorted(known, low, "left"):np.searchsorted(known, high, "right")]
    if high - low >= MAX_TEXT_RANKS:
        raise SelectionError(f"rank range {item!r} names {high - low + 1:,} ranks; at most "
                             f"{MAX_TEXT_RANKS:,} without the data's ranks")
    return np.arange(low, high + 1, dtype=np.int64)


def _named(item: str, places: Mapping[str, Sequence[int]]) -> list[np.ndarray]:
    """The ranks of the places an item names: exactly, without case, or as a glob."""
    if item in places:
        return [np.asarray(places[item], dtype=np.int64)]
    if _GLOB.intersection(item):
        matched = [np.asarray(ranks, dtype=np.int64) for name, ranks in places.items()
                   if fnmatch.fnmatchcase(name, item)]
    else:
        lower = item.lower()
        matched = [np.asarray(ranks, dtype=np.int64) for name, ranks in places.items()
                   if name.lower() == lower]
    if matched:
        return matched
    names = list(places)
    if not names:
        raise SelectionError(f"ranks must be an int, an iterable of ints, a text of ranks and "
                             f"ranges such as '0-71,144', or None; {item!r} is none of these (a "
                             "host or socket name needs the data: ranks_of(data, text))")
    known = (", ".join(repr(n) for n in names[:_NAMES_SHOWN])
             + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""))
    raise SelectionError(f"no rank, range, host or socket {item!r} in the ranks text; the hosts "
                         f"and sockets are {known}")


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
        (:func:`~roofline_widget.points.rank_places.rank_places_of`).
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
        For an item that is none of these (naming it and the known places),
        a range ``a-b`` with ``b < a``, more than :data:`MAX_TEXT_RANKS`
        ranks without ``known``, a text longer than
        :data:`MAX_TEXT_CHARACTERS`, or anything but a string.

    Examples
    --------
    >>> parse_rank_text("0-3, 144")
    [0, 1, 2, 3, 144]
    >>> parse_rank_text("f0703, 0", {"f0702": range(72), "f0703": range(72, 144)})[:3]
    [0, 72, 73]
    """
    if not isinstance(text, str):
        raise SelectionError(f"a ranks text must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARACTERS:
        raise SelectionError(f"a ranks text of {len(text):,} characters; at most "
                             f"{MAX_TEXT_CHARACTERS:,} are read")
    known_ranks = None if known is None else np.unique(np.fromiter(known, dtype=np.int64))
    parts: list[np.ndarray] = []
    total = 0
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if _NUMBER.match(item):
            found = [np.array([_check_rank(int(item), item)], dtype=np.int64)]
        elif (match := _RANGE.match(item)) is not None:
            low, high = (_check_rank(int(match[end]), item) for end in ("low", "high"))
            found = [_range(low, high, item, known_ranks)]
        else:
            found = _named(item, places or {})
        parts += found
        total += sum(len(part) for part in found)
        if known_ranks is None and total > MAX_TEXT_RANKS:
            raise SelectionError(f"the ranks text names more than {MAX_TEXT_RANKS:,} ranks")
    if not parts:
        return []
    return np.unique(np.concatenate(parts)).tolist()


def format_rank_text(ranks: Iterable[int]) -> str:
    """Ranks as the shortest text :func:`parse_rank_text` reads back: ``"0-71,144"``.

    Examples
    --------
    >>> format_rank_text([144, 0, 1, 2, 3, 5])
    '0-3,5,144'
    >>> parse_rank_text(format_rank_text(range(0, 2304, 72)))[:3]
    [0, 72, 144]
    """
    values = np.unique(np.fromiter(ranks, dtype=np.int64))
    if not len(values):
        return ""
    breaks = np.flatnonzero(np.diff(values) != 1) + 1
    starts = values[np.r_[0, breaks]].tolist()
    ends = values[np.r_[breaks - 1, len(values) - 1]].tolist()
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(starts, ends))
