"""The ``+---+`` tables of likwid-perfctr's and likwid-mpirun's text output.

:class:`TextTableReader` reads one table from its top border: the header
row, the rows and the closing border, with the cells cut at the column
boundaries of the border (so a metric name may contain ``|``).  The numbers of
a whole table are converted with one numpy call; a table with anything odd in
it goes to the exact path, row by row, whose error names the first bad line
and cell.  A table that is not LIKWID's (another tool's output in the same
log) is passed over with a warning.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.blocks import STAT_COLUMNS
from roofline_widget.io.cells import blank_tabs, parse_cells
from roofline_widget.io.lines import LineWindow

__all__ = ["TABLE_KINDS", "TextTable", "TextTableReader"]

#: The first header cell of the tables LIKWID prints.
TABLE_KINDS = ("Region Info", "Event", "Metric")
#: Deletes the characters that can occur in the numeric part of a table
#: (numbers, nan, inf, separators, any whitespace -- str.isspace, the highest
#: is U+3000); anything left sends the table to the slow, exact path.
_DELETE_NUMERIC = str.maketrans("", "", "0123456789.eE+-naifNAIF"
                                + "".join(chr(c) for c in range(0x3001) if chr(c).isspace()))


@dataclass
class TextTable:
    """One ``+---+`` table: header cells, row labels and the numbers.

    Attributes
    ----------
    line : int
        1-based line of the top border.
    header : list of str
        The header cells, stripped.
    names : list of str
        The first column of every body row.
    counters : list of str or None
        The second column (``Counter``) if the table has one.
    values : numpy.ndarray
        ``(rows, value columns)``; every cell that is not a number is NaN.
    """

    line: int
    header: list
    names: list
    counters: list | None
    values: np.ndarray

    @property
    def value_header(self) -> list:
        """The header cells of the value columns (the thread or STAT columns)."""
        return self.header[1 if self.counters is None else 2:]

    @property
    def is_stat(self) -> bool:
        """Whether this is a STAT table (``Sum | Max | Min | Avg``, likwid-mpirun's
        ``%ile`` columns too)."""
        heads = self.value_header
        return "Sum" in heads and all(h in STAT_COLUMNS or h.startswith("%ile") for h in heads)


class TextTableReader:
    """Reads the tables of one text.

    Parameters
    ----------
    lines : LineWindow
        The text's lines.
    source : str
        The file's name, for error messages.
    warnings : list of str
        Where a foreign table passed over is told.
    """

    def __init__(self, lines: LineWindow, source: str, warnings: list[str]) -> None:
        self.lines = lines
        self.source = source
        self.warnings = warnings
        self._borders: dict[str, tuple[int, ...]] = {}

    def _error(self, line: int, expected: str, found: str | None = None) -> LikwidFormatError:
        return LikwidFormatError(self.source, line, expected, found)

    def border(self, line: str) -> tuple[int, ...] | None:
        """Column-boundary positions of a ``+---+`` border, or None."""
        seps = self._borders.get(line)
        if seps is None:
            if len(line) < 3 or not line.startswith("+-") or not line.endswith("+") \
                    or line.strip("+-"):
                return None
            seps = tuple(m.start() for m in re.finditer(r"\+", line))
            self._borders[line] = seps
        return seps

    def read(self, i: int) -> tuple[TextTable | None, int]:
        """Read the table whose top border is line ``i`` (0-based).

        Returns
        -------
        (TextTable or None, int)
            The table (None for a line of ``+`` and ``-`` that starts no
            table, or a foreign table) and the index of the line after it.

        Raises
        ------
        LikwidFormatError
            For a border out of line, a row with the wrong number of cells,
            a cell that is not a number or a table cut off by the end of the
            text.
        """
        lines = self.lines
        border = lines[i].rstrip()
        seps = self.border(border)
        if seps is None or not (lines.get(i + 1) or "").startswith("|"):
            return None, i + 1  # a line of '+' and '-' that is no table
        start = i + 1  # 1-based line of the top border
        kind = lines[i + 1][1:].split("|", 1)[0].strip()
        if kind not in TABLE_KINDS:
            return None, self.skip_foreign(i, kind)
        header = self.cells(lines[i + 1].rstrip(), seps, i + 2, "the table header")
        if not lines.has(i + 2):
            raise self._error(i + 2, f"the border under the header of the table that starts "
                              f"at line {start}; the file ends inside the table")
        if lines[i + 2].rstrip() != border:
            raise self._error(i + 3, "a '+---+' border under the table header, as wide as "
                              "the one above it", lines[i + 2])
        j = i + 3
        while (row := lines.get(j)) is not None and row[:1] == "|":
            j += 1
        if row is None:
            raise self._error(j, f"the closing '+---+' border of the table that starts "
                              f"at line {start}; the file ends inside the table")
        if lines[j].rstrip() == border:
            end = j + 1
        elif j == i + 3:
            end = j  # a table without rows has no closing border
        else:
            raise self._error(j + 1, f"a table row or the closing '+---+' border of the "
                              f"table that starts at line {start}", lines[j])
        return self._body(start, header, lines.slice(i + 3, j), border, seps), end

    def skip_foreign(self, i: int, kind: str) -> int:
        """Pass over a table that is not LIKWID's (another tool's output), with a warning;
        return the index of the line after it."""
        self.warnings.append(f"line {i + 1}: ignored a table headed {kind!r} "
                             "(not a LIKWID Region Info, Event or Metric table)")
        lines, j = self.lines, i + 1
        while (line := lines.get(j)) is not None and line[:1] in ("|", "+"):
            below = lines.get(j + 1)
            if line[:1] == "+" and below is not None and \
                    below[1:].split("|", 1)[0].strip() in TABLE_KINDS:
                break  # a LIKWID table right below
            j += 1
        return j

    def cells(self, row: str, seps: tuple[int, ...], line: int, what: str) -> list[str]:
        """Cut one row at the border's column boundaries, checking them."""
        if len(row) == seps[-1] + 1 and all(row[p] == "|" for p in seps):
            return [blank_tabs(row[a + 1:b].strip()) for a, b in itertools.pairwise(seps)]
        raise self._error(line, f"{what} with {len(seps) - 1} cells between '|', aligned "
                          f"with the '+---+' border above", row)

    def _body(self, start: int, header: list, rows: list[str], border: str,
              seps: tuple[int, ...]) -> TextTable:
        labels = 2 if len(header) > 2 and header[1] == "Counter" else 1
        ncols = len(seps) - 1 - labels
        a, b = seps[0] + 1, seps[1]
        values = None
        if rows and all(len(r) == len(border) for r in rows):
            numeric = "\n".join([r[seps[labels]:] for r in rows])
            if numeric.count("|") == len(rows) * (ncols + 1):
                values = _numbers(numeric, len(rows) * ncols)
            if values is not None:
                names = [blank_tabs(r[a:b].strip()) for r in rows]
                counters = ([blank_tabs(r[seps[1] + 1:seps[2]].strip()) for r in rows]
                            if labels == 2 else None)
                return TextTable(start, header, names, counters,
                                 values.reshape(len(rows), ncols))
        return self._body_exact(start, header, rows, seps, labels, ncols)

    def _body_exact(self, start: int, header: list, rows: list[str], seps: tuple[int, ...],
                    labels: int, ncols: int) -> TextTable:
        """Row-by-row reading that names the line of the first bad row or cell."""
        names, counters, values = [], [], np.empty((len(rows), ncols))
        for k, row in enumerate(rows):
            line = start + 3 + k
            cells = self.cells(row.rstrip(), seps, line, "a table row")
            names.append(cells[0])
            if labels == 2:
                counters.append(cells[1])
            values[k] = parse_cells(cells[labels:], self.source, line,
                                    f"values of {cells[0]!r}")
        values[np.isinf(values)] = np.nan
        return TextTable(start, header, names, counters if labels == 2 else None, values)


def _numbers(text: str, expected: int) -> np.ndarray | None:
    """Parse the numeric part of a table in one call; None if anything is odd.

    ``|`` separators become blanks and centred ``-`` cells become ``nan``;
    ``inf`` (LIKWID's Min of an all-``-`` row) becomes NaN as well.
    """
    text = text.replace("|", " ")
    if " - " in text:
        text = text.replace(" - ", " nan ")
    if text.translate(_DELETE_NUMERIC):
        return None
    try:
        values = np.fromstring(text, dtype=np.float64, sep=" ")
    except ValueError:
        return None
    if values.size != expected:
        return None
    values[np.isinf(values)] = np.nan
    return values
