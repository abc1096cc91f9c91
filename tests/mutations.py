"""Damage the fuzz tests do to a real file, and how they read it (test_fuzz_readers, test_fuzz_ncu).

Positions are drawn with ``sampled_from`` (about uniform), not ``integers`` (biased towards 0),
so that cuts and deletions land all over the file, in the tables at its end too.
"""

from __future__ import annotations

import io
import warnings

from hypothesis import strategies as st

from roofline_widget.errors import LikwidFormatError

__all__ = ["cut", "delete_lines", "read_quietly"]


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
