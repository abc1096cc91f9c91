"""Reading a view's JSON text that may come from anyone: bounded depth and numbers, valid text.

Python's :mod:`json` recurses once per level of nesting (a ``RecursionError``
for a few thousand ``[``) and converts every integer, however long (a plain
``ValueError`` past 4,300 digits).  :func:`parse` scans the nesting first,
without recursion, and refuses a document deeper than
:data:`MAX_DEPTH`, naming the top-level key
where it got too deep; integers of more than 20 digits are left as
:class:`Oversized` for the field checks to
refuse by name.  A string holding half of a UTF-16 pair (JSON may write
``"\ud800"``) is no text a notebook can send: the document is refused,
naming the top-level key.
"""

from __future__ import annotations

import json
import re

from roofline_widget.errors import ViewError
from roofline_widget.settings import shown

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "Oversized", "parse"]

#: The deepest nesting of lists and objects a view may hold (its own layout needs 4).
MAX_DEPTH = 16
#: Integers longer than this stay unconverted (:class:`Oversized`).
MAX_INT_DIGITS = 20
_TOKENS = re.compile(r'[\\"\[\]{}:]')


class Oversized:
    """An integer too long for a view, as JSON parsing leaves it (never converted)."""

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {len(self.digits.lstrip('-')):,} digits>"


def _integer(text: str) -> int | Oversized:
    return Oversized(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _too_deep(text: str) -> tuple[str | None, int] | None:
    """(top-level key, offset) where the nesting passes :data:`MAX_DEPTH`, or None."""
    depth, key, last_string, start = 0, None, None, 0
    in_string, skip = False, -1
    for match in _TOKENS.finditer(text):
        index, token = match.start(), match.group()
        if index == skip:  # the character after a backslash
            continue
        if in_string:
            if token == "\\":
                skip = index + 1
            elif token == '"':
                in_string = False
                last_string = text[start:index]
            continue
        if token == '"':
            in_string, start = True, index + 1
        elif token == ":" and depth == 1:
            key = last_string
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return key, index
        elif token in "]}":
            depth -= 1
    return None


def parse(text: str, source: str) -> object:
    """The decoded JSON document of a view.

    Raises
    ------
    ViewError
        Naming ``source``: invalid JSON (line and column), or nesting deeper
        than :data:`MAX_DEPTH` (the field and the line).
    """
    deep = _too_deep(text)
    if deep is not None:
        key, offset = deep
        where = f"{key!r:.80}" if key is not None else "the document"
        line = text.count("\n", 0, offset) + 1
        raise ViewError(source, [f"{where} is nested deeper than {MAX_DEPTH} levels "
                                 f"(line {line}); a view is a few levels deep"])
    try:
        document = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise ViewError(source, [f"not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg}"]) from None
    except (ValueError, RecursionError) as exc:  # a float literal Python cannot read, ...
        raise ViewError(source, [f"not a JSON document this version reads: {exc}"]) from None
    surrogate = _lone_surrogate(document)
    if surrogate is not None:
        key, value = surrogate
        raise ViewError(source, [f"{key} holds a lone surrogate ({shown(value)}): not valid "
                                 "Unicode text"])
    return document


def _lone_surrogate(document: object) -> tuple[str, str] | None:
    """(top-level key, the surrogate) of the first lone surrogate in ``document``, or None."""
    top = document.items() if isinstance(document, dict) else [("the document", document)]
    for key, value in top:
        try:
            json.dumps([key, value], ensure_ascii=False, default=repr).encode("utf-8")
        except UnicodeEncodeError as exc:
            return key if key.isidentifier() else shown(key), exc.object[exc.start:exc.end]
    return None
