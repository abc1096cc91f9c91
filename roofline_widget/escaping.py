"""Every text the package writes, escaped for where it goes: one rule per target, each written once.

Region names, run labels, metric and file names come from users' code and
files: they may hold a formula, a ``$`` pair, an escape sequence or bytes that
are no UTF-8.  Each target has one function, called where text leaves the
package:

* :func:`file_name`: a path as it is named in messages, runs and tables
  (undecodable bytes, which Python keeps as lone surrogates, shown as
  ``\\xff``: such a name can be printed, encoded and stored everywhere);
* :func:`spreadsheet_cell`, :func:`spreadsheet_safe`: a CSV cell that starts
  like a formula is prefixed by ``'`` (OWASP's advice on CSV injection), for
  every CSV the package writes;
* :func:`matplotlib_text`: a string drawn by matplotlib is never mathtext
  (``$`` escaped) and carries no control character (which would also make an
  SVG that does not parse);
* :func:`xml_text`: what XML 1.0 cannot hold (control characters, lone
  surrogates, U+FFFE/U+FFFF) shown as escapes;
* :func:`terminal_text`: every character that is not printable shown as an
  escape, so a name cannot move the cursor or recolour a terminal.

HTML has its own home (``html.escape`` in :mod:`roofline_widget.widget.html`).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMULA_STARTS", "file_name", "matplotlib_text", "spreadsheet_cell",
           "spreadsheet_safe", "terminal_text", "xml_text"]

#: What a spreadsheet takes for the start of a formula (and the full-width forms some accept).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: Characters XML 1.0 cannot hold, and lone surrogates (no encoding writes them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(character: str) -> str:
    """``\\x1b``, ``\\udcff`` ...: how Python writes the character in a string literal."""
    return repr(character)[1:-1]


def _undecoded(match: re.Match[str]) -> str:
    """A lone surrogate: an undecodable byte (``\\xff``) or itself escaped (``\\ud800``)."""
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def file_name(path: str | os.PathLike | bytes) -> str:
    r"""A path as the package names it: text, with bytes that are no UTF-8 shown as ``\xNN``.

    Python keeps such bytes of a file name as lone surrogates (``os.fsdecode``);
    a string holding one cannot be encoded, printed or stored in a table.

    Examples
    --------
    >>> file_name(b"job\xff.txt")
    'job\\xff.txt'
    >>> file_name("run.txt")
    'run.txt'
    """
    text = os.fsdecode(path)
    return _SURROGATE.sub(_undecoded, text) if _SURROGATE.search(text) else text


def spreadsheet_cell(value: object) -> object:
    """``value``, with a ``'`` in front when it is text that starts like a formula.

    Examples
    --------
    >>> spreadsheet_cell("=1+2"), spreadsheet_cell("solve"), spreadsheet_cell(-1)
    ("'=1+2", 'solve', -1)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every text cell that starts like a formula prefixed by ``'`` (a copy if any).

    A spreadsheet opening the CSV then shows ``'=HYPERLINK(...)`` as text
    instead of running it.  Numbers are left alone (a rank of -1 is a number,
    not a formula); text, categorical and object columns are looked at, and
    the column names.

    Examples
    --------
    >>> import pandas as pd
    >>> spreadsheet_safe(pd.DataFrame({"region": ["=1+2", "solve"], "rank": [-1, 0]}))
      region  rank
    0  '=1+2    -1
    1  solve     0
    """
    import pandas as pd

    safe = table
    for column in table.columns:
        values = table[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        text = values.astype(object)
        risky = text.map(lambda cell: isinstance(cell, str) and cell.startswith(FORMULA_STARTS))
        if risky.any():
            if safe is table:
                safe = table.copy()
            safe[column] = text.where(~risky, "'" + text[risky].astype(str))
    names = [spreadsheet_cell(name) for name in table.columns]
    if names != list(table.columns):
        safe = safe.set_axis(names, axis=1)
    return safe


def xml_text(text: object) -> str:
    r"""``text`` with what XML 1.0 cannot hold shown as escapes (``"\x1b"``, ``"\x07"``).

    Examples
    --------
    >>> xml_text("bell\x07 esc\x1b[31m")
    'bell\\x07 esc\\x1b[31m'
    """
    text = str(text)
    if not _NOT_XML.search(text):
        return text
    text = _SURROGATE.sub(_undecoded, text)
    return _NOT_XML.sub(lambda match: _escape(match.group()), text)


def matplotlib_text(text: object) -> str:
    r"""``text`` as matplotlib draws it literally: ``$`` escaped (no mathtext), no control character.

    matplotlib parses a string with two unescaped ``$`` as mathtext: ``"$\frac{$"``
    makes the figure fail to draw, ``"cost $5 and $6"`` is drawn "cost 5and6".
    Control characters have no glyph, and in an SVG they make a file that does
    not parse; they are drawn as their escapes.

    Examples
    --------
    >>> matplotlib_text("cost $5 and $6")
    'cost \\$5 and \\$6'
    """
    return xml_text(text).replace("$", r"\$")


def terminal_text(text: object) -> str:
    r"""``text`` with every non-printable character escaped (``"a\x1b[31m"`` stays visible).

    Examples
    --------
    >>> terminal_text("solve\x1b[2J")
    'solve\\x1b[2J'
    """
    text = str(text)
    if text.isprintable():
        return text
    text = _SURROGATE.sub(_undecoded, text)
    return "".join(c if c.isprintable() else _escape(c) for c in text)
