"""The ``TABLE`` blocks of likwid-perfctr's and likwid-mpirun's CSV output.

A ``TABLE,...`` line declares a table and the number of its data rows; its header line
(``Event,Counter,...`` or ``Metric,...``, after the ``Region Info`` rows of a Raw table) names
the thread or STAT columns.  :class:`CsvTableReader` reads a table up to the next block, a
blank line or a line that is not CSV: the declared count decides whether a line that does not
parse after the last declared row ends the table (text after the CSV) or is an error, and
whether the table is complete (see :attr:`CsvTable.incomplete`).  The rows of a table are
split once and all its numbers converted in one call; a table with anything odd in a row (a
cell that is no number, a comma in a name, blanks as padding) is read again row by row, whose
error names the line and the cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.cells import SharedLists, blank_tabs, is_number, parse_cells
from roofline_widget.io.lines import Piece

__all__ = ["CALLS_ROW", "REGION_INFO", "RUNTIME_ROW", "TABLE_LINE", "CsvLines", "CsvTable",
           "CsvTableReader", "RegionInfo", "is_boundary", "split_cells", "strip_padding"]

#: ``TABLE,Region <tag>,Group <g> Raw,<GROUP>,<rows>`` (``Region <tag>,`` only in marker mode;
#: ``Metric`` for a Metric table, ``Raw STAT``/``Metric Stat`` for a STAT table).
TABLE_LINE = re.compile(
    r"^TABLE,(?:Region (?P<region>.*),)?Group (?P<index>\d+) (?P<kind>Raw|Metric)"
    r"(?: (?P<stat>STAT|Stat))?,(?P<group>[^,]*),(?P<count>\d+)[,\s]*$", re.ASCII)
#: The first cell of the Region Info header, and of its runtime and call count rows.
REGION_INFO = "Region Info"
RUNTIME_ROW = "RDTSC Runtime [s]"
CALLS_ROW = "call count"
#: Deletes the characters the value cells of a table read at once may hold.
_NUMERIC = str.maketrans("", "", "0123456789.eE+-naifNAIF ,")
_NO_VALUE = ("", "-")


def split_cells(line: str) -> list[str]:
    """The stripped cells of a CSV line (a tab inside a name is a blank)."""
    if "\t" in line:  # tested here: no call for the many lines without one
        line = blank_tabs(line)
    return [cell.strip() for cell in line.split(",")]


def strip_padding(cells: list[str]) -> list[str]:
    """``cells`` without the empty cells at its end (LIKWID pads lines with commas)."""
    end = len(cells)
    while end > 0 and not cells[end - 1]:
        end -= 1
    return cells[:end]


def is_boundary(line: str) -> bool:
    """Whether a line ends the rows of a table (next block, blank, not CSV)."""
    return not line.strip() or "," not in line or line.startswith(("TABLE,", "STRUCT,Info"))


class CsvLines:
    """The lines of a piece by their number in the text, for the row-by-row reading.

    Raises :class:`EOFError` for a line past the end of a piece that is not the last (read
    it with the next piece).
    """

    def __init__(self, piece: Piece, cut_last_line: bool) -> None:
        self.piece = piece
        self.cut_last_line = cut_last_line and piece.last
        self.count = piece.first + piece.count

    def get(self, index: int) -> str | None:
        """Line ``index`` (0-based in the text), or None past the last line."""
        k = index - self.piece.first
        if k >= self.piece.count and not self.piece.last:
            raise EOFError  # the piece ends before the text does
        return self.piece.get(k)

    def rows_from(self, index: int) -> list[str]:
        """The lines from ``index`` up to the first :func:`is_boundary` one or the end of the
        text (as :meth:`get` line by line, without a call per line).

        Raises :class:`EOFError` where the piece ends first and is not the last.
        """
        texts = self.piece.texts()
        k = index - self.piece.first
        if not texts:  # a line that cannot be decoded: line by line, so that it raises
            rows: list[str] = []
            while (line := self.get(index + len(rows))) is not None and not is_boundary(line):
                rows.append(line)
            return rows
        end, count = k, self.piece.count
        while end < count and not is_boundary(texts[end]):
            end += 1
        if end >= count and not self.piece.last:
            raise EOFError  # the piece ends before the text does
        return texts[k:end]

    def has(self, index: int) -> bool:
        return self.get(index) is not None

    def __getitem__(self, index: int) -> str:
        return self.piece.line(index - self.piece.first)


@dataclass
class RegionInfo:
    """The Region Info of one region block: thread columns, runtime and call count per thread,
    and the rows passed over."""

    threads: list = field(default_factory=list)
    runtime: np.ndarray | None = None
    call_count: np.ndarray | None = None
    notes: list = field(default_factory=list)


@dataclass
class CsvTable:
    """One ``TABLE`` block as read.

    Attributes
    ----------
    line : int
        1-based line of the ``TABLE`` line.
    region : str or None
        The region tag of the ``TABLE`` line (None in wrapper mode).
    group_index : int
        The group's id.
    kind : str
        ``"Raw"`` or ``"Metric"``.
    stat : bool
        Whether it is a STAT table.
    group : str
        The group's name.
    columns : list of str
        The value columns of the header line (thread or STAT columns).
    header_index : int
        0-based line of the header line.
    labels : list of tuple of str
        Per row: ``(event, counter)`` (Raw) or ``(metric,)``.
    values : numpy.ndarray
        ``(rows, columns)``, the numbers.
    incomplete : str or None
        Why the table cannot be used (fewer rows than declared, cut off by the end of the
        text), or None.
    notes : list of str
        What was passed over in it (more rows than declared).
    text : str
        The ``TABLE`` line as printed.
    """

    line: int
    region: str | None
    group_index: int
    kind: str
    stat: bool
    group: str
    columns: list
    header_index: int
    labels: list = field(default_factory=list)
    values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    incomplete: str | None = None
    notes: list = field(default_factory=list)
    text: str = ""


class CsvTableReader:
    """Reads the ``TABLE`` blocks of one CSV text.

    Parameters
    ----------
    lists : SharedLists
        The file's shared thread columns (and its name, for messages).
    """

    def __init__(self, lists: SharedLists) -> None:
        self.lists = lists
        self.source = lists.source

    def error(self, index: int | None, expected: str, found: str | None = None
              ) -> LikwidFormatError:
        """The error for line ``index`` (0-based; None: the whole text)."""
        return LikwidFormatError(self.source, None if index is None else index + 1, expected,
                                 found)

    def read_table(self, lines: CsvLines, index: int, match: re.Match
                   ) -> tuple[CsvTable, RegionInfo | None, int]:
        """Read the table of the ``TABLE`` line ``index`` (``match``: :data:`TABLE_LINE`'s).

        Returns
        -------
        (CsvTable, RegionInfo or None, int)
            The table, the Region Info rows read before a Raw table's header (None if it has
            none) and the index of the line after the table.

        Raises
        ------
        LikwidFormatError
            For a missing header line, a row with too few cells or a cell that is not a
            number (before the declared rows are read), or a table without rows.
        """
        kind, stat = match["kind"], match["stat"] is not None
        cursor = index + 1
        region_info = None
        if kind == "Raw" and not stat and (lines.get(cursor) or "").startswith(REGION_INFO + ","):
            region_info, cursor = self.read_region_info(lines, cursor)
        header = "Event,Counter," if kind == "Raw" else "Metric,"
        line = lines.get(cursor)
        if line is None:
            raise self.error(cursor - 1, f"the header line {header!r} of the TABLE on line "
                             f"{index + 1}", "the end of the file")
        if not line.startswith(header):
            raise self.error(cursor, f"the header line {header!r} of the TABLE on line "
                             f"{index + 1}", line)
        n_labels = 2 if kind == "Raw" else 1
        table = CsvTable(index + 1, match["region"], int(match["index"]), kind, stat,
                         match["group"], strip_padding(split_cells(line))[n_labels:], cursor,
                         text=lines[index])
        cursor = self.read_rows(lines, table, cursor + 1, n_labels, int(match["count"]))
        return table, region_info, cursor

    def read_region_info(self, lines: CsvLines, index: int) -> tuple[RegionInfo, int]:
        """Read the ``Region Info`` header and rows that follow a Raw TABLE line."""
        info = RegionInfo(self.lists.threads(strip_padding(split_cells(lines[index]))[1:],
                                             index + 1))
        cursor = index + 1
        while (line := lines.get(cursor)) is not None and not line.startswith("Event,Counter"):
            if is_boundary(line):
                break
            cells = self.fit(lines, split_cells(line), 1 + len(info.threads), cursor,
                             "a Region Info row")
            values = parse_cells(cells[1:], self.source, cursor + 1, f"values of {cells[0]!r}")
            if cells[0] == RUNTIME_ROW:
                info.runtime = values
            elif cells[0] == CALLS_ROW:
                info.call_count = values
            else:
                info.notes.append(f"{self.source}, line {cursor + 1}: ignored Region Info "
                                  f"row {cells[0]!r}")
            cursor += 1
        return info, cursor

    def read_rows(self, lines: CsvLines, table: CsvTable, index: int, n_labels: int,
                  declared: int) -> int:
        """Read data rows until the next block; return the index after them."""
        width = n_labels + len(table.columns)
        rows = lines.rows_from(index)
        cursor = index + len(rows) if self._at_once(table, rows, n_labels, width) else \
            self._row_by_row(lines, table, index, n_labels, width, declared)
        at_end = not lines.has(cursor)
        cut = at_end and lines.cut_last_line
        found = len(table.labels)
        if not found and not cut:
            raise self.error(lines.count - 1 if at_end else cursor, f"data rows of the TABLE on "
                             f"line {table.line}", "the end of the file" if at_end else
                             lines[cursor])
        if cut:
            table.incomplete = (f"the file ends inside line {cursor} (no newline at its end: "
                                "the output was cut off)")
        elif found < declared:
            table.incomplete = f"TABLE declares {declared} rows, {found} found"
        elif found > declared:
            table.notes.append(f"{self.source}, line {table.line}: TABLE declares {declared} "
                               f"rows, {found} found")
        return cursor

    def _at_once(self, table: CsvTable, rows: list[str], n_labels: int, width: int) -> bool:
        """Read plain rows (``width`` cells, padding, numbers) at once; False for any other."""
        if not rows or "\t" in "".join(rows):  # one scan, not a generator step per row
            return False
        labels, cells = [], []
        for row in rows:
            parts = row.split(",")
            end = len(parts)
            while end > width and not parts[end - 1]:
                end -= 1
            if end != width:
                return False
            labels.append(tuple(map(str.strip, parts[:n_labels])))
            cells += parts[n_labels:end]
        if ",".join(cells).translate(_NUMERIC):
            return False
        try:
            values = np.array(cells, dtype=np.float64)
        except ValueError:
            try:
                values = np.array(["nan" if c.strip() in _NO_VALUE else c for c in cells],
                                  dtype=np.float64)
            except ValueError:
                return False
        values[np.isinf(values)] = np.nan  # inf and overflowing numbers (1e400): not measured
        table.labels, table.values = labels, values.reshape(len(rows), width - n_labels)
        return True

    def _row_by_row(self, lines: CsvLines, table: CsvTable, index: int, n_labels: int,
                    width: int, declared: int) -> int:
        """Read rows one at a time, naming the first bad one; return the index after them."""
        values = []
        cursor = index
        while (line := lines.get(cursor)) is not None and not is_boundary(line):
            try:
                cells = self.fit(lines, split_cells(line), width, cursor,
                                 f"a row of the {table.kind} table of line {table.line}",
                                 joinable=n_labels == 1)
                row = parse_cells(cells[n_labels:], self.source, cursor + 1,
                                  f"values of {cells[0]!r}")
            except LikwidFormatError:
                if len(table.labels) >= declared > 0:
                    break  # text after the table, not a row of it
                if not lines.has(cursor + 1) and lines.cut_last_line:
                    cursor += 1  # a row cut off by the end of the file
                    break
                raise
            table.labels.append(tuple(cells[:n_labels]))
            values.append(row)
            cursor += 1
        table.values = np.array(values).reshape(len(values), width - n_labels)
        return cursor

    def fit(self, lines: CsvLines, cells: list[str], width: int, index: int, what: str,
            joinable: bool = False) -> list[str]:
        """Drop trailing padding; with ``joinable``, join surplus leading cells (a comma in a
        metric name), never an empty or numeric one (an extra comma, not a name).

        Raises
        ------
        LikwidFormatError
            For too few cells, or cells to spare that are no part of a name.
        """
        end = len(cells)
        while end > width and not cells[end - 1]:
            end -= 1
        surplus = end - width
        if surplus < 0 or (surplus and not (joinable and all(cells[:surplus + 1])
                                            and not any(map(is_number, cells[1:surplus + 1])))):
            raise self.error(index, f"{what} with {width} cells", lines[index])
        if not surplus:
            return cells[:end]
        name = ",".join(blank_tabs(lines[index]).split(",", surplus + 1)[:surplus + 1])
        return [name.strip(), *cells[surplus + 1:end]]
