"""Damage the fuzz tests do to a real file, and how they read it (test_fuzz_readers, test_fuzz_ncu).

Positions are drawn with ``sampled_from`` (about uniform), not ``integers`` (biased towards 0),
so that cuts and deletions land all over the file, in the tables at its end too.
"""

from __future__ import annotations

import io
import warnings

from hypothesis import strategies as st

from roofline_widget.errors import LikwidFormatError

__all__ = ["GARBAGE", "HOSTILE_NAMES", "cut", "delete_lines", "print_twice", "read_quietly",
           "rename_regions", "replace_pieces"]

#: What :func:`replace_pieces` puts in place of a comma-separated piece.
GARBAGE = ["x", "?", "12a", "1.2.3", "0x1f", "#", "1e", "abc", "--", "+-1", "1..0", "e5", '"']

#: Region names a user's code may give, each hostile to one output (issue 37): formulas for a
#: spreadsheet, mathtext for matplotlib, control characters for SVG and terminals, markup.
HOSTILE_NAMES = [
    '=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)", "\uff1d1+1",
    "cost $5 and $6", "$\\frac{$", "$x^2$", "bell\x07", "esc\x1b[31mred", "\x1b]0;title\x07",
    "back\bspace", "\u202eright-to-left", "<script>alert(1)</script>", "a & b", "tab\tname",
    "ünïcödé ✓", "back\\slash", "\x7fdel", "\x85next line",
]


def cut(text: str, data) -> str:
    """``text`` cut off at a random line and column."""
    lines = text.splitlines(keepends=True)
    line = data.draw(st.sampled_from(range(len(lines))), label="cut in line")
    column = data.draw(st.sampled_from(range(len(lines[line]))), label="at column")
    return "".join(lines[:line]) + lines[line][:column]


def delete_lines(text: str, data) -> str:
    """``text`` without one to three random lines (one line is always left)."""
    lines = text.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 3), label="lines deleted")):
        if len(lines) > 1:
            del lines[data.draw(st.sampled_from(range(len(lines))), label="line")]
    return "".join(lines)


def print_twice(text: str, data) -> str:
    """``text`` with a random span of up to 80 lines printed again right after itself."""
    lines = text.splitlines(keepends=True)
    start = data.draw(st.sampled_from(range(len(lines))), label="span start")
    length = data.draw(st.integers(1, 80), label="span length")
    return "".join(lines[:start + length] + lines[start:start + length] + lines[start + length:])


def replace_pieces(text: str, data) -> str:
    """``text`` with one to three random comma-separated pieces replaced by :data:`GARBAGE`
    (inside quotes too, where the piece had them)."""
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3), label="pieces replaced")):
        k = data.draw(st.sampled_from(range(len(lines))), label="line")
        pieces = lines[k].split(",")
        at = data.draw(st.sampled_from(range(len(pieces))), label="piece")
        keep_quotes = data.draw(st.booleans(), label="keep quotes")
        token = data.draw(st.sampled_from(GARBAGE), label="garbage")
        piece = pieces[at]
        if keep_quotes:
            token = ('"' if piece.startswith('"') else "") + token + \
                ('"' if piece.endswith('"') and len(piece) > 1 else "")
        pieces[at] = token
        lines[k] = ",".join(pieces)
    return "\n".join(lines) + "\n"


def read_quietly(read, text: str):
    """``read`` of ``text`` as a binary file object; None for a LikwidFormatError.

    Warnings are allowed (silenced): the fuzz tests check the numbers.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return read(io.BytesIO(text.encode("utf-8")))
        except LikwidFormatError:
            return None


def rename_regions(text: str, data) -> tuple[str, dict[str, str]]:
    """``text`` with every region renamed to a drawn :data:`HOSTILE_NAMES` entry (each once).

    Returns the text and {old name: new name}.  Region names are found on the
    ``Region <name>, Group`` lines of LIKWID's text output.
    """
    import re

    names = list(dict.fromkeys(re.findall(r"^Region (.+?), Group", text, flags=re.MULTILINE)))
    chosen = data.draw(st.lists(st.sampled_from(HOSTILE_NAMES), min_size=len(names),
                                max_size=len(names), unique=True), label="hostile names")
    renamed = dict(zip(names, chosen))
    for old, new in renamed.items():
        text = text.replace(f"Region {old}, Group", f"Region {new}, Group")
    return text, renamed
