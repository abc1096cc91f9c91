"""Region-name patterns from anyone: compiled within fixed bounds, matched under a time budget.

A pattern (``include=``, ``--include``, a saved view's) may come from someone
else.  Before anything compiles it, :func:`pattern_problem` bounds its size:
groups nested at most :data:`MAX_NESTING` deep, and at most :data:`MAX_EXPANSION`
characters once every counted repeat is written out (``(?:a{1000}){1000}``
stands for a million): the ``regex`` package, which matches region names with
a timeout, writes counted repeats out when it compiles, and
``(?:(?:(?:a{1000}){1000}){1000})`` took 12 GB before its matching began.
Within the bounds a pattern compiles in milliseconds, and its ``regex`` twin is
compiled inside the budget of its matching: :data:`MATCH_SECONDS` of CPU time
(and :data:`NAME_SECONDS` more per name) for the names of one selection, so a
pattern that backtracks catastrophically (``(\\w|\\w)+!``) raises a
``SelectionError`` instead of hanging the kernel.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import regex

from roofline_widget.errors import SelectionError

__all__ = ["MATCH_SECONDS", "MAX_EXPANSION", "MAX_NESTING", "NAME_SECONDS", "compile_patterns",
           "names_selected", "pattern_problem"]

#: CPU seconds the region names of one selection may take to compile and match its patterns,
#: and more per name (matching a plain pattern takes about 4 microseconds a name).
MATCH_SECONDS = 1.0
NAME_SECONDS = 1e-5
#: The most characters a pattern may stand for with its counted repeats written out (regex
#: compiles 100,000 in about 40 ms and 40 MB).
MAX_EXPANSION = 100_000
#: The deepest nesting of groups in a pattern.
MAX_NESTING = 32
_QUANTIFIER = re.compile(r"\{(\d*)(,?)(\d*)\}")
_PLAIN = re.compile(r"[^\\\[(){|*+?^$]+")
#: What follows "(" in an extension group: opened (a prefix) or whole (flags, a comment, a reference).
_GROUP_PREFIX = re.compile(r"\?(?:[:=!>]|<[=!]|P?<\w+>|[aiLmsux-]+:)")
_WHOLE_GROUP = re.compile(r"\?(?:[aiLmsux-]+|#[^)]*|P=\w+)\)")
#: A count of more digits is taken as 10**12 (no 5,000-digit int()), a size from 10**12 on
#: shown as "more than" that.
_COUNT_DIGITS = 12
_HUGE = 10**_COUNT_DIGITS


def _class_end(text: str, start: int) -> int:
    """The index after the ``]`` closing the character class that opens at ``start``."""
    index = start + 1
    if text.startswith("^", index):
        index += 1
    if text.startswith("]", index):  # a ']' first in a class is a character
        index += 1
    while index < len(text) and text[index] != "]":
        index += 2 if text[index] == "\\" else 1
    return index + 1


def _count(digits: str) -> int:
    return int(digits) if len(digits) <= _COUNT_DIGITS else _HUGE


def _expansion(text: str) -> tuple[int, int]:
    """(characters ``text`` stands for with its counted repeats written out, deepest nesting).

    A counted repeat counts with its largest count (``{2,50}``: 50), an open
    one (``*``, ``+``, ``{3,}``) with its smallest: the ``regex`` package writes
    out what is counted and loops over the rest.
    """
    stack = [[0, 0]]  # per open group: characters so far, the last item's
    index, deepest = 0, 0
    while index < len(text):
        character, item = text[index], None
        if plain := _PLAIN.match(text, index):  # characters: a quantifier after takes the last
            stack[-1][0] += plain.end() - index - 1
            index, item = plain.end(), 1
        elif character == "\\":
            index, item = index + 2, 1
        elif character == "[":
            index, item = _class_end(text, index), 1
        elif character == "(" and (whole := _WHOLE_GROUP.match(text, index + 1)):
            index, item = whole.end(), 1
        elif character == "(":
            prefix = _GROUP_PREFIX.match(text, index + 1)
            index = prefix.end() if prefix else index + 1
            stack.append([0, 0])
            deepest = max(deepest, len(stack) - 1)
        elif character == ")" and len(stack) > 1:
            index, item = index + 1, stack.pop()[0]
        elif character == "{" and (counts := _QUANTIFIER.match(text, index)) and any(
                counts.group(1, 3)):
            largest = max(_count(digits) for digits in counts.group(1, 3) if digits)
            frame = stack[-1]
            frame[0] += frame[1] * (largest - 1)
            frame[1] *= largest
            index = counts.end()
        else:
            index, item = index + 1, 0 if character in "|*+?^$" else 1
        if item is not None:
            stack[-1][0] += item
            stack[-1][1] = item
    return sum(frame[0] for frame in stack), deepest


def pattern_problem(text: str) -> str | None:
    """Why ``text`` is too large to compile in bounded time, or None.

    The bounds: at most :data:`MAX_EXPANSION` characters long and as many with
    every counted repeat written out, groups nested at most :data:`MAX_NESTING` deep.

    Examples
    --------
    >>> pattern_problem("(?:a{1000}){1000}")
    'stands for 1,000,000 characters with its repeats written out (at most 100,000)'
    >>> pattern_problem(r"solve_\\w{1,8}|setup") is None
    True
    """
    if len(text) > MAX_EXPANSION:
        return f"is {len(text):,} characters long (at most {MAX_EXPANSION:,})"
    size, deepest = _expansion(text)
    if deepest > MAX_NESTING:
        return f"nests groups {deepest} deep (at most {MAX_NESTING})"
    if size > MAX_EXPANSION:
        shown = f"{size:,}" if size < _HUGE else f"more than {_HUGE:,}"
        return (f"stands for {shown} characters with its repeats written out "
                f"(at most {MAX_EXPANSION:,})")
    return None


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
        For an invalid regular expression, one past the bounds of
        :func:`pattern_problem`, or a pattern that is not a string.
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
        text = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
        if not isinstance(text, str):
            raise SelectionError(f"{what} patterns must be strings, got {pattern!r:.80}")
        problem = pattern_problem(text)
        if problem is not None:
            raise SelectionError(f"{what} pattern {text!r:.80} {problem}: too large to match in "
                                 "bounded time")
        if isinstance(pattern, re.Pattern):
            compiled.append(pattern)
            continue
        try:
            compiled.append(re.compile(text))
        except (re.error, RecursionError, OverflowError) as exc:
            raise SelectionError(f"invalid {what} pattern {text!r:.80}: {exc}") from None
    return compiled


_FLAGS = ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE")


@lru_cache(maxsize=256)
def _bounded(text: str, flags: int) -> Any:
    """The ``regex`` twin of a :mod:`re` pattern (the two modules number their flags apart)."""
    return regex.compile(text, sum(getattr(regex, name) for name in _FLAGS
                                   if flags & getattr(re, name)))


_METACHARACTERS = frozenset(".^$*+?{}[]\\|()")
_Matcher = tuple[str, Callable[..., object] | None]


def _matchers(patterns: Sequence[re.Pattern[str]] | None, what: str, deadline: float,
              budget: float) -> list[_Matcher] | None:
    """(pattern text, its ``regex`` twin's ``match``) of each pattern, or None.

    A plain prefix (no metacharacter, no flag) has no twin: ``str.startswith``
    gives the answer of :func:`re.match` in no time.  The twins (of patterns
    :func:`compile_patterns` bounded) are compiled within the budget of the
    matching (``deadline``).
    """
    if patterns is None:
        return None
    matchers: list[_Matcher] = []
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
        if time.process_time() > deadline:
            raise SelectionError(f"{what} pattern {text!r:.80} took more than {budget:.3g} s "
                                 "to compile: simplify it")
    return matchers


def _any_match(matchers: list[_Matcher], name: str, what: str, deadline: float,
               budget: float) -> bool:
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
        When compiling the patterns and matching all names takes more than
        :data:`MATCH_SECONDS` plus :data:`NAME_SECONDS` per name of CPU time
        (naming the pattern and the region it stopped at).
    """
    budget = MATCH_SECONDS + NAME_SECONDS * len(names)
    deadline = time.process_time() + budget  # regex's timeout counts CPU time too
    includes = _matchers(include, "include", deadline, budget)
    excludes = _matchers(exclude, "exclude", deadline, budget)
    keep = np.ones(len(names), dtype=bool)
    for index, name in enumerate(names):
        if includes is not None and not _any_match(includes, name, "include", deadline, budget):
            keep[index] = False
        elif excludes is not None and _any_match(excludes, name, "exclude", deadline, budget):
            keep[index] = False
    return keep
