"""The ``TABLE`` blocks of likwid-perfctr's and likwid-mpirun's CSV output, read row by row.

A ``TABLE,...`` line declares a table and the number of its data rows; its
header line (``Event,Counter,...`` or ``Metric,...``, after the ``Region
Info`` rows of a Raw table) names the thread or STAT columns.
:class:`CsvRowReader` reads a table up to the next block, a blank line or a
line that is not CSV: the declared count decides whether a line that does not
parse after the last declared row ends the table (text after the CSV) or is an
error, and whether the table is complete (see :attr:`CsvTable.incomplete`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.cells import blank_tabs, is_number, parse_cells
from roofline_widget.io.lines import LineWindow
from roofline_widget.io.shared_lists import SharedLists

__all__ = [
    "CALLS_ROW",
    "REGION_INFO",
    "RUNTIME_ROW",
    "TABLE_LINE",
    "CsvRowReader",
    "CsvTable",
    "RegionInfo",
    "is_boundary",
    "split_cells",
    "strip_padding",
]

#: ``TABLE,Region <tag>,Group <g> Raw,<GROUP>,<rows>`` (``Region <tag>,`` only in marker
#: mode; ``Metric`` for a Metric table, ``Raw STAT``/``Metric Stat`` for a STAT table).
TABLE_LINE = re.compile(
    r"^TABLE,(?:Region (?P<region>.*),)?Group (?P<index>\d+) (?P<kind>Raw|Metric)"
    r"(?: (?P<stat>STAT|Stat))?,(?P<group>[^,]*),(?P<count>\d+)[,\s]*$", re.ASCII)
#: The first cell of the Region Info header, and of its runtime and call count rows.
REGION_INFO = "Region Info"
RUNTIME_ROW = "RDTSC Runtime [s]"
CALLS_ROW = "call count"


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
    return (not line.strip() or "," not in line
            or line.startswith(("TABLE,", "STRUCT,Info")))


@dataclass
class RegionInfo:
    """The Region Info of one region block: thread columns, runtime and call count per thread."""

    threads: list = field(default_factory=list)
    runtime: np.ndarray | None = None
    call_count: np.ndarray | None = None


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
    values : list of numpy.ndarray
        Per row, the numbers.
    lines : list of int
        Per row, its 1-based line.
    incomplete : str or None
        Why the table cannot be used (fewer rows than declared, cut off by
        the end of the text), or None.
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
    values: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    incomplete: str | None = None


class CsvRowReader:
    """Reads the ``TABLE`` blocks of one CSV text.

    Parameters
    ----------
    lines : LineWindow
        The text's lines.
    lists : SharedLists
        The file's shared thread columns (and its name, for messages).
    warnings : list of str
        Where rows passed over and row counts that disagree are told.
    """

    def __init__(self, lines: LineWindow, lists: SharedLists, warnings: list[str]) -> None:
        self.lines = lines
        self.lists = lists
        self.source = lists.source
        self.warnings = warnings

    def error(self, index: int | None, expected: str, found: str | None = None
              ) -> LikwidFormatError:
        """The error for line ``index`` (0-based; None: the whole text)."""
        line = None if index is None else index + 1
        return LikwidFormatError(self.source, line, expected, found)

    def read_table(self, index: int, match: re.Match) -> tuple[CsvTable, RegionInfo | None, int]:
        """Read the table of the ``TABLE`` line ``index`` (``match``: :data:`TABLE_LINE`'s).

        Returns
        -------
        (CsvTable, RegionInfo or None, int)
            The table, the Region Info rows read before a Raw table's header
            (None if it has none) and the index of the line after the table.

        Raises
        ------
        LikwidFormatError
            For a missing header line, a row with too few cells or a cell
            that is not a number (before the declared rows are read), or a
            table without rows.
        """
        kind, stat = match["kind"], match["stat"] is not None
        cursor = index + 1
        region_info = None
        if kind == "Raw" and not stat and self.line_starts(cursor, REGION_INFO + ","):
            region_info, cursor = self.read_region_info(cursor)
        header = "Event,Counter," if kind == "Raw" else "Metric,"
        if not self.lines.has(cursor):
            raise self.error(cursor - 1, f"the header line {header!r} of the TABLE on line "
                             f"{index + 1}", "the end of the file")
        if not self.line_starts(cursor, header):
            raise self.error(cursor, f"the header line {header!r} of the TABLE on line {index + 1}",
                             self.lines[cursor])
        n_labels = 2 if kind == "Raw" else 1
        columns = strip_padding(split_cells(self.lines[cursor]))[n_labels:]
        table = CsvTable(index + 1, match["region"], int(match["index"]), kind, stat,
                         match["group"], columns, cursor)
        cursor = self.read_rows(table, cursor + 1, n_labels, int(match["count"]))
        return table, region_info, cursor

    def line_starts(self, index: int, prefix: str) -> bool:
        """Whether the text has a line ``index`` that starts with ``prefix``."""
        line = self.lines.get(index)
        return line is not None and line.startswith(prefix)

    def read_region_info(self, index: int) -> tuple[RegionInfo, int]:
        """Read the ``Region Info`` header and rows that follow a Raw TABLE line."""
        info = RegionInfo(self.lists.threads(strip_padding(split_cells(self.lines[index]))[1:],
                                             index + 1))
        cursor = index + 1
        while (line := self.lines.get(cursor)) is not None and \
                not line.startswith("Event,Counter"):
            if is_boundary(line):
                break
            cells = self.fit(split_cells(line), 1 + len(info.threads), cursor,
                             "a Region Info row")
            values = parse_cells(cells[1:], self.source, cursor + 1, f"values of {cells[0]!r}")
            if cells[0] == RUNTIME_ROW:
                info.runtime = values
            elif cells[0] == CALLS_ROW:
                info.call_count = values
            else:
                self.warnings.append(f"{self.source}, line {cursor + 1}: ignored Region Info "
                                     f"row {cells[0]!r}")
            cursor += 1
        return info, cursor

    def read_rows(self, table: CsvTable, index: int, n_labels: int, declared: int) -> int:
        """Read data rows until the next block; return the index after them."""
        width = n_labels + len(table.columns)
        cursor = index
        while (line := self.lines.get(cursor)) is not None and not is_boundary(line):
            try:
                cells = self.fit(split_cells(line), width, cursor,
                                 f"a row of the {table.kind} table of line {table.line}",
                                 joinable=n_labels == 1)
                values = parse_cells(cells[n_labels:], self.source, cursor + 1,
                                     f"values of {cells[0]!r}")
            except LikwidFormatError:
                if len(table.labels) >= declared > 0:
                    break  # text after the table, not a row of it
                if not self.lines.has(cursor + 1) and self.lines.cut_last_line:
                    cursor += 1  # a row cut off by the end of the file
                    break
                raise
            table.labels.append(tuple(cells[:n_labels]))
            table.values.append(values)
            table.lines.append(cursor + 1)
            cursor += 1
        at_end = not self.lines.has(cursor)
        cut = at_end and self.lines.cut_last_line
        if not table.labels and not cut:
            found = "the end of the file" if at_end else self.lines[cursor]
            raise self.error(self.lines.count - 1 if at_end else cursor,
                             f"data rows of the TABLE on line {table.line}", found)
        if cut:
            table.incomplete = (f"the file ends inside line {cursor} (no newline at its end: "
                                "the output was cut off)")
        elif len(table.labels) < declared:
            table.incomplete = f"TABLE declares {declared} rows, {len(table.labels)} found"
        elif len(table.labels) > declared:
            self.warnings.append(f"{self.source}, line {table.line}: TABLE declares {declared} "
                                 f"rows, {len(table.labels)} found")
        return cursor

    def fit(self, cells: list[str], width: int, index: int, what: str,
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
            raise self.error(index, f"{what} with {width} cells", self.lines[index])
        if not surplus:
            return cells[:end]
        name = ",".join(blank_tabs(self.lines[index]).split(",", surplus + 1)[:surplus + 1])
        return [name.strip(), *cells[surplus + 1:end]]
