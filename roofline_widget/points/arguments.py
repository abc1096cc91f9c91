"""The checks of each selection field, and matching region names in bounded time.

:class:`~roofline_widget.points.selection.Selection` calls these once, when it
is built; every function raises :class:`~roofline_widget.errors.SelectionError`
(a ``ValueError``) naming the offending value, or ``TypeError`` for a metric
name that is no string, so a bad argument fails before any work is done.

Region names are matched with the ``regex`` package (the syntax of Python's
:mod:`re`) under a time budget, :data:`MATCH_SECONDS` of CPU time (and
:data:`NAME_SECONDS` more per name) for the names of one selection: a pattern
that backtracks catastrophically (``(\\w|\\w)+!``, from a saved view someone
sent) raises a ``SelectionError`` instead of hanging the kernel.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeAlias, TypeGuard

import numpy as np
import regex

from roofline_widget.errors import SelectionError

__all__ = [
    "MATCH_SECONDS",
    "MAX_RANK",
    "NAME_SECONDS",
    "PatternsArgument",
    "RanksArgument",
    "check_combine_ranks",
    "check_levels",
    "check_metric_argument",
    "compile_patterns",
    "names_selected",
    "normalize_ranks",
]

#: What ``ranks=`` accepts: an int, an iterable of ints, a text ``"0-71,144"``, or None (all ranks).
RanksArgument: TypeAlias = "int | np.integer | Iterable[int | np.integer] | str | None"
#: What ``include=``/``exclude=`` accept: a pattern, an iterable of patterns, or None.
PatternsArgument: TypeAlias = "str | re.Pattern[str] | Iterable[str | re.Pattern[str]] | None"

#: The largest rank accepted (MPI numbers ranks with a C ``int``).
MAX_RANK = 2**31 - 1
#: CPU seconds the region names of one selection may take to match its patterns, and
#: more per name (matching a plain pattern takes about 4 microseconds a name).
MATCH_SECONDS = 1.0
NAME_SECONDS = 1e-5


def _is_int(value: object) -> TypeGuard[int | np.integer]:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def normalize_ranks(ranks: object) -> list[int] | None:
    """Turn the ``ranks`` argument into a sorted list of distinct ints (None: all ranks).

    Parameters
    ----------
    ranks : int, iterable of int, str, or None
        Python or numpy integers from 0 to :data:`MAX_RANK`, or a text of
        ranks and ranges, ``"0-71,144"``
        (:func:`~roofline_widget.points.rank_text.parse_rank_text`).

    Raises
    ------
    SelectionError
        For anything else (strings, floats, booleans, negative or huge ranks).

    Examples
    --------
    >>> normalize_ranks(np.int64(1))
    [1]
    >>> normalize_ranks((3, 1, 3)), normalize_ranks("4-6, 0")
    ([1, 3], [0, 4, 5, 6])
    """
    if ranks is None:
        return None
    if _is_int(ranks):
        items = [ranks]
    elif isinstance(ranks, str):  # "0-71,144" (host names need the data: rank_text.ranks_of)
        from roofline_widget.points.rank_text import parse_rank_text
        return parse_rank_text(ranks)
    elif isinstance(ranks, bytes):
        raise SelectionError(f"ranks must be an int, an iterable of ints or None, got {ranks!r}")
    else:
        try:
            items = list(ranks)  # type: ignore[call-overload]
        except TypeError:
            raise SelectionError("ranks must be an int, an iterable of ints or None, "
                                 f"got {type(ranks).__name__} {ranks!r:.80}") from None
    numbers = set()
    for item in items:
        if not _is_int(item) or not 0 <= item <= MAX_RANK:
            raise SelectionError(f"ranks must be integers from 0 to {MAX_RANK}, got {item!r:.80}")
        numbers.add(int(item))
    return sorted(numbers)


def compile_patterns(patterns: object, what: str = "include") -> list[re.Pattern[str]] | None:
    """Compile ``include``/``exclude`` regular expressions (a string, a pattern or a list).

    Parameters
    ----------
    patterns : str, re.Pattern, iterable of them, or None
        None selects every region; an empty list none.
    what : str
        The argument's name, for the error message.

    Returns
    -------
    list of re.Pattern or None

    Raises
    ------
    SelectionError
        For an invalid regular expression or a pattern that is not a string.
    """
    if patterns is None:
        return None
    if isinstance(patterns, (str, re.Pattern)):
        patterns = [patterns]
    try:
        items = list(patterns)  # type: ignore[call-overload]
    except TypeError:
        raise SelectionError(f"{what} must be a string, a list of strings or None, "
                             f"got {patterns!r:.80}") from None
    compiled = []
    for pattern in items:
        if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
            compiled.append(pattern)
            continue
        if not isinstance(pattern, str):
            raise SelectionError(f"{what} patterns must be strings, got {pattern!r:.80}")
        try:
            compiled.append(re.compile(pattern))
        except (re.error, RecursionError, OverflowError) as exc:
            raise SelectionError(f"invalid {what} pattern {pattern!r:.80}: {exc}") from None
    return compiled


_FLAGS = ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE")


@lru_cache(maxsize=256)
def _bounded(text: str, flags: int) -> Any:
    """The ``regex`` twin of a :mod:`re` pattern (the two modules number their flags apart)."""
    return regex.compile(text, sum(getattr(regex, name) for name in _FLAGS
                                   if flags & getattr(re, name)))


_METACHARACTERS = frozenset(".^$*+?{}[]\\|()")


def _matchers(patterns: Sequence[re.Pattern[str]] | None,
              what: str) -> list[tuple[str, Callable[..., object] | None]] | None:
    """(pattern text, its ``regex`` twin's ``match``) of each pattern, or None.

    A plain prefix (no metacharacter, no flag) has no twin: ``str.startswith``
    gives the answer of :func:`re.match` in no time.
    """
    if patterns is None:
        return None
    matchers: list[tuple[str, Callable[..., object] | None]] = []
    for pattern in patterns:
        text = pattern.pattern
        if pattern.flags == re.UNICODE and not _METACHARACTERS.intersection(text):
            matchers.append((text, None))
            continue
        try:
            matchers.append((text, _bounded(text, pattern.flags).match))
        except regex.error as exc:  # re accepted it: a corner where the two modules differ
            raise SelectionError(f"{what} pattern {text!r:.80} cannot be matched in bounded "
                                 f"time ({exc}); write it another way") from None
    return matchers


def _any_match(matchers: list[tuple[str, Callable[..., object] | None]], name: str, what: str,
               deadline: float, budget: float) -> bool:
    for text, match in matchers:
        if match is None:
            if name.startswith(text):
                return True
            continue
        try:
            remaining = deadline - time.process_time()
            if remaining <= 0:
                raise TimeoutError
            if match(name, timeout=remaining):
                return True
        except TimeoutError:
            raise SelectionError(
                f"{what} pattern {text!r:.80} took more than {budget:.3g} s on the region names "
                f"(stopped at {name!r:.80}): it backtracks catastrophically (nested or "
                "overlapping repeats such as (a|a)+ or (a+)+); simplify it") from None
    return False


def names_selected(names: Sequence[str], include: Sequence[re.Pattern[str]] | None,
                   exclude: Sequence[re.Pattern[str]] | None) -> np.ndarray:
    """Boolean mask over unique region names (matched at the name's start, as :func:`re.match`).

    Parameters
    ----------
    names : sequence of str
        Region names.
    include, exclude : sequence of re.Pattern or None
        As :func:`compile_patterns` returns them; a name is kept when it
        matches some ``include`` pattern (or ``include`` is None) and no
        ``exclude`` pattern.

    Raises
    ------
    SelectionError
        When matching all names takes more than :data:`MATCH_SECONDS` plus
        :data:`NAME_SECONDS` per name of CPU time (naming the pattern and the
        region it stopped at).
    """
    budget = MATCH_SECONDS + NAME_SECONDS * len(names)
    deadline = time.process_time() + budget  # regex's timeout counts CPU time too
    includes, excludes = _matchers(include, "include"), _matchers(exclude, "exclude")
    keep = np.ones(len(names), dtype=bool)
    for index, name in enumerate(names):
        if includes is not None and not _any_match(includes, name, "include", deadline, budget):
            keep[index] = False
        elif excludes is not None and _any_match(excludes, name, "exclude", deadline, budget):
            keep[index] = False
    return keep


def check_combine_ranks(combine_ranks: object) -> bool:
    """``combine_ranks`` as a bool.

    Raises
    ------
    SelectionError
        For anything but a Python or numpy bool.
    """
    if not isinstance(combine_ranks, (bool, np.bool_)):
        raise SelectionError(f"combine_ranks must be True or False, got {combine_ranks!r:.80}")
    return bool(combine_ranks)


def check_metric_argument(value: object, role: str) -> str | None:
    """A metric argument: None or one metric name.

    Raises
    ------
    TypeError
        Naming the argument (``role``, e.g. ``"flops_metric"``) and what it got.
    """
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{role} must be one metric name (str) or None, got "
                        f"{type(value).__name__} {value!r:.80}")
    return value


def check_levels(levels: object) -> tuple[tuple[str, str], ...] | None:
    """``levels`` (memory level -> bandwidth metric overrides) as a tuple of pairs, or None.

    The level names are checked against the data's levels where they are
    used (:func:`~roofline_widget.analysis.levels.detect_levels`).

    Raises
    ------
    SelectionError
        For anything but a mapping of strings to strings.
    """
    if levels is None:
        return None
    if isinstance(levels, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in levels):
        levels = dict(levels)  # the form returned, given back by dataclasses.replace
    if not isinstance(levels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in levels.items()):
        raise SelectionError('levels must be a mapping of level name to metric name '
                             f'({{"L2": "L2 bandwidth [MBytes/s]"}}) or None, got {levels!r:.80}')
    return tuple(levels.items())
