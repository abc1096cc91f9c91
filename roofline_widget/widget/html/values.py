"""Values as the widget's HTML shows them, and the one escaped label/value table.

Numbers are rounded for display only (the data keeps all digits); a point
that sums several ranks reads as its ``rank_group`` (``"f0472 socket 0 (ranks
0-23)"``; :func:`~roofline_widget.points.rank_groups.summed_ranks`), the rank -1
without one as "all ranks"; names from users' code are escaped by whoever puts
them into HTML, here in :func:`rows_table` and :func:`names_text`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from roofline_widget.points.rank_groups import summed_ranks

__all__ = [
    "CELL_STYLE",
    "DISPLAY_DIGITS",
    "display_frame",
    "display_value",
    "names_text",
    "number_text",
    "percent_text",
    "rank_phrase",
    "rank_text",
    "ranks_text",
    "rows_table",
]

#: Significant digits of the numbers in the widget's HTML tables (the data keeps all).
DISPLAY_DIGITS = 3
#: Padding of a cell of the compact tables (tooltip, detail record).
CELL_STYLE = "padding:0 4px"


def rank_text(rank, rank_group: object = None) -> str:
    """A point's rank as shown to users: ``"3"``, or for a sum of several ranks its
    ``rank_group`` (``"f0472 socket 0 (ranks 0-23)"``; ``"all ranks"`` for -1 without one).

    Not escaped (host names come from files).
    """
    return summed_ranks(rank, rank_group) or str(rank)


def rank_phrase(rank, rank_group: object = None) -> str:
    """A point's ranks in a sentence: ``"rank 3"`` or what a sum covers (:func:`rank_text`)."""
    return summed_ranks(rank, rank_group) or f"rank {rank}"


def _rank_texts(frame: pd.DataFrame) -> list[str]:
    """:func:`rank_text` of every row (with its ``rank_group`` when the frame has one)."""
    groups = frame["rank_group"] if "rank_group" in frame.columns else [None] * len(frame)
    return [rank_text(rank, group) for rank, group in zip(frame["rank"], groups)]


def ranks_text(ranks) -> str:
    """Ranks as runs of consecutive numbers, ``"0, 2\u20135, 9"`` (``"all ranks"`` for -1)."""
    numbers = sorted({int(r) for r in ranks})
    parts = []
    first = 0
    while first < len(numbers):
        last = first
        while (last + 1 < len(numbers) and numbers[first] >= 0
               and numbers[last + 1] == numbers[last] + 1):
            last += 1
        parts.append(rank_text(numbers[first]) if first == last
                     else f"{numbers[first]}\u2013{numbers[last]}")
        first = last + 1
    return ", ".join(parts)


def display_value(value, column: str = "") -> str:
    """A value as shown in a table: floats to ``DISPLAY_DIGITS`` significant digits.

    Integers keep every digit (with thousands separators), NaN and None are
    ``"n/a"``, the rank -1 is ``"all ranks"``; anything else is ``str(value)``.
    Not escaped.
    """
    if column == "rank":
        return rank_text(value)
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return format(float(value), f".{DISPLAY_DIGITS}g")
    return str(value)


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every cell as its display text (:func:`display_value`;
    the ``rank`` of a sum over ranks as its ``rank_group``)."""
    return pd.DataFrame({column: _rank_texts(frame) if column == "rank" else
                         [display_value(v, column) for v in frame[column]]
                         for column in frame.columns}, index=frame.index)


def number_text(value, spec: str = ".4g") -> str:
    """``format(value, spec)``, or ``"n/a"`` for None and non-finite values."""
    return "n/a" if value is None or not np.isfinite(value) else format(value, spec)


def percent_text(value) -> str:
    """A signed percentage with one decimal (``"+12.5%"``), or ``"n/a"``."""
    return "n/a" if value is None or not np.isfinite(value) else f"{value:+.1f}%"


def names_text(names: Sequence, shown: int) -> str:
    """The first ``shown`` names, escaped and comma-separated, then "and N more"."""
    text = ", ".join(html.escape(str(n)) for n in names[:shown])
    more = len(names) - shown
    return text + (f" and {more} more" if more > 0 else "")


def rows_table(rows: Iterable[tuple[str, str]], *, table_style: str = "", cell_style: str = "",
               table_class: str = "", tail: str = "") -> str:
    """A two-column table, a header cell and a value cell per row; both texts escaped.

    Parameters
    ----------
    rows : iterable of (str, str)
        Label and value texts (plain text: escaped here).
    table_style, cell_style : str
        CSS of the table and of every cell ("" for none).
    table_class : str
        The table's DOM class ("" for none).
    tail : str
        More rows, HTML already escaped, after the others.
    """
    cell = f";{cell_style}" if cell_style else ""
    td = f" style='{cell_style}'" if cell_style else ""
    body = "".join(f"<tr><th style='text-align:left{cell}'>{html.escape(str(label))}</th>"
                   f"<td{td}>{html.escape(str(value))}</td></tr>" for label, value in rows)
    attributes = (f" class='{table_class}'" if table_class else "") + (
        f" style='{table_style}'" if table_style else "")
    return f"<table{attributes}>{body}{tail}</table>"
