"""One rocprof-compute CSV file (``pmc_perf.csv``, ``sysinfo.csv``) to named columns, checked.

rocprof-compute writes plain comma-separated files: a header line, then one
row per kernel dispatch (``pmc_perf.csv``) or per workload (``sysinfo.csv``),
every row as wide as the header.  :func:`read_table` reads one with the
:mod:`csv` module and :func:`numbers` converts a column to floats; both raise
:class:`~roofline_widget.errors.LikwidFormatError` naming the file, the line
and what was expected.  A header naming a column twice (the counters of
several passes are written under ``Wave_Size``, ``Wave_Size_1``, ...) keeps
the first.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import numpy as np

from roofline_widget.errors import LikwidFormatError

__all__ = ["CsvTable", "numbers", "read_table"]

_SHOWN = 80
#: Cells that mean "not measured".
_MISSING = frozenset({"", "nan", "NaN", "N/A", "n/a", "NA", "None"})


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


@dataclass(frozen=True)
class CsvTable:
    """The rows of one CSV file.

    Attributes
    ----------
    source : str
        The file.
    header : list of str
        The column names.
    rows : list of list of str
        The data rows, each as wide as the header.
    lines : list of int
        Each row's 1-based line in the file.
    """

    source: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def index(self, name: str) -> int | None:
        """The position of column ``name`` (its first, if named twice), None if absent."""
        try:
            return self.header.index(name)
        except ValueError:
            return None

    def has(self, *names: str) -> bool:
        """Whether every one of ``names`` is a column."""
        return all(name in self.header for name in names)

    def cells(self, name: str) -> list[str]:
        """The cells of column ``name`` (KeyError if absent)."""
        at = self.index(name)
        if at is None:
            raise KeyError(name)
        return [row[at] for row in self.rows]


def read_table(text: str, source: str, what: str) -> CsvTable:
    """The header and rows of a CSV text, every row checked to be as wide as the header.

    Parameters
    ----------
    text : str
        The whole file.
    source : str
        Its name, for messages.
    what : str
        What the file should be (``"rocprof-compute pmc_perf.csv"``), for messages.

    Raises
    ------
    LikwidFormatError
        For an empty file, a cell the csv module refuses, or a row whose width differs
        from the header's.
    """
    reader = csv.reader(text.splitlines())
    try:
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            raise LikwidFormatError(source, 1, f"{what}: a header line", "an empty file")
        header = [cell.strip() for cell in header]
        rows, lines = [], []
        line = reader.line_num
        for row in reader:
            if row and any(cell.strip() for cell in row):
                if len(row) != len(header):
                    raise LikwidFormatError(source, line + 1, f"a row of {len(header)} cells like "
                                            "the header of line 1", f"{len(row)} cells")
                rows.append(row)
                lines.append(line + 1)
            line = reader.line_num
    except csv.Error as exc:
        raise LikwidFormatError(source, reader.line_num, f"{what}: CSV rows", str(exc)) from None
    return CsvTable(source, header, rows, lines)


def _number(text: str) -> float:
    cell = text.strip()
    if cell in _MISSING:
        return math.nan
    value = float(cell)  # ValueError for what is no number
    return value if math.isfinite(value) else math.nan


def numbers(table: CsvTable, name: str) -> np.ndarray:
    """Column ``name`` as floats (an empty or ``nan`` cell is NaN).

    Raises
    ------
    LikwidFormatError
        Naming the line and the column of a cell that is no number.
    """
    cells = table.cells(name)
    out = np.empty(len(cells))
    for at, cell in enumerate(cells):
        try:
            out[at] = _number(cell)
        except ValueError:
            raise LikwidFormatError(table.source, table.lines[at], f"a number in column {name!r}",
                                    _shown(cell.strip())) from None
    return out
