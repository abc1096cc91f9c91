"""The ``+---+`` tables of likwid-perfctr's and likwid-mpirun's text output.

A table is a top border, a header row, a border, rows and a closing border; its cells are cut
at the column boundaries of the border (so a metric name may contain ``|``).  Two readers,
one result:

* :func:`read_tables` reads every table of a :class:`~roofline_widget.io.lines.Piece` at
  once, tables printed alike (the same borders and header) together: their rows are checked
  with numpy (as long as the border, ``|`` at every column boundary, plain ASCII, one number
  or ``-`` per cell), their label columns looked up once per distinct text, and every number
  of the piece converted in one call.  This is where a large file's time goes: its cost is
  per byte, hardly per table.
* :class:`TableReader` reads one table row by row: every table :func:`read_tables` leaves
  out (anything odd in it, another tool's table, a table cut by the end of the text).  Its
  error names the first bad line and cell; another tool's table is passed over with a
  warning.  A table read by both gives the same :class:`TextTable`.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.cells import blank_tabs, exact_floats, parse_cells
from roofline_widget.io.lines import Piece

__all__ = ["STAT_HEADS", "TABLE_KINDS", "Shape", "TableReader", "TextTable", "border_columns",
           "read_tables"]

#: The first header cell of the tables LIKWID prints.
TABLE_KINDS = ("Region Info", "Event", "Metric")
#: The value columns of a STAT table (likwid-mpirun adds ``%ile`` columns).
STAT_HEADS = ("Sum", "Min", "Max", "Avg")
_PLUS, _BAR, _SPACE = ord("+"), ord("|"), ord(" ")
#: The bytes a row read at once may hold in its value cells: numbers, ``-``, nan and inf.
_NUMERIC_BYTES = b"0123456789.eE+-naifNAIF |"
_NUMERIC = np.zeros(256, dtype=bool)
_NUMERIC[np.frombuffer(_NUMERIC_BYTES, dtype=np.uint8)] = True


class Shape:
    """What a table's top border and header row say: the same for every table printed alike.

    Attributes
    ----------
    border : str
        The top border.
    columns : tuple of int
        The positions of its ``+`` (the column boundaries).
    header : tuple of str
        The header cells, stripped; ``header[0]`` is the kind (``"Region Info"``,
        ``"Event"``, ``"Metric"``).
    labels : int
        The label columns: 2 with a ``Counter`` column, else 1.
    value_header : tuple of str
        The header cells of the value columns (the thread or STAT columns).
    is_stat : bool
        Whether this is a STAT table (``Sum | Max | Min | Avg``, ``%ile`` columns too).
    role : str
        What the table gives its block: ``"info"``, ``"event"``, ``"metric"``,
        ``"stat-event"`` or ``"stat-metric"``.
    """

    __slots__ = ("border", "columns", "header", "is_stat", "labels", "role", "value_header")

    def __init__(self, border: str, columns: tuple[int, ...], header: tuple[str, ...]) -> None:
        self.border = border
        self.columns = columns
        self.header = header
        self.labels = 2 if len(header) > 2 and header[1] == "Counter" else 1
        self.value_header = header[self.labels:]
        heads = self.value_header
        self.is_stat = "Sum" in heads and all(h in STAT_HEADS or h.startswith("%ile")
                                              for h in heads)
        kind = {"Region Info": "info", "Event": "event"}.get(header[0], "metric")
        self.role = f"stat-{kind}" if self.is_stat and kind != "info" else kind


class TextTable(NamedTuple):
    """One ``+---+`` table: its shape, row labels and numbers.

    Attributes
    ----------
    line : int
        1-based line of the top border.
    shape : Shape
        Its border and header.
    names : list of str
        The first column of every row.
    counters : list of str or None
        The second column (``Counter``) if the table has one.
    values : numpy.ndarray
        ``(rows, value columns)``; every cell that is not a finite number is NaN.
    top : str
        The top border as printed.
    """

    line: int
    shape: Shape
    names: list
    counters: list | None
    values: np.ndarray
    top: str


def border_columns(line: str) -> tuple[int, ...] | None:
    """The column boundaries (positions of ``+``) of a ``+---+`` border, or None.

    Examples
    --------
    >>> border_columns("+-----+---+"), border_columns("+-+ not a table")
    ((0, 6, 10), None)
    """
    if len(line) < 3 or not line.startswith("+-") or not line.endswith("+") or line.strip("+-"):
        return None
    return tuple(k for k, c in enumerate(line) if c == "+")


def _cut(row: str, columns: tuple[int, ...]) -> list[str] | None:
    """The cells of a row cut at ``columns``, or None if it is not aligned with them."""
    if len(row) == columns[-1] + 1 and all(row[p] == "|" for p in columns):
        return [blank_tabs(row[a + 1:b].strip()) for a, b in itertools.pairwise(columns)]
    return None


def _shape(border: str, header: str) -> Shape | None:
    """The shape of a LIKWID table with this border and header row, or None."""
    columns = border_columns(border)
    cells = None if columns is None else _cut(header, columns)
    if columns is None or cells is None or header[1:].split("|", 1)[0].strip() not in TABLE_KINDS:
        return None
    return Shape(border, columns, tuple(cells))


class TableReader:
    """Reads one table row by row (see the module docstring).

    Parameters
    ----------
    source : str
        The file's name, for error messages.
    warnings : list of str
        Where a foreign table passed over is told.
    """

    def __init__(self, source: str, warnings: list[str]) -> None:
        self.source = source
        self.warnings = warnings
        self.shapes: dict[tuple[str, str], Shape] = {}
        self.known: dict[bytes, Shape | None] = {}  # border and header as bytes -> shape

    def _error(self, piece: Piece, k: int, expected: str, found: str | None = None
               ) -> LikwidFormatError:
        """The error for line ``k`` of ``piece`` (1-based: its 0-based number in the piece)."""
        return LikwidFormatError(self.source, piece.first + k, expected, found)

    def _line(self, piece: Piece, k: int) -> str | None:
        """Line ``k``; :class:`EOFError` past the end of a piece that is not the last."""
        if k >= piece.count and not piece.last:
            raise EOFError  # the piece ends before the text does
        return piece.sparse_line(k) if k < piece.count else None

    def read(self, piece: Piece, i: int) -> tuple[TextTable | None, int]:
        """Read the table whose top border is line ``i`` of ``piece``.

        Returns
        -------
        (TextTable or None, int)
            The table (None for a line of ``+`` and ``-`` that starts no table, or a foreign
            table) and the index of the line after it.

        Raises
        ------
        LikwidFormatError
            For a border out of line, a row with the wrong number of cells, a cell that is not
            a number or a table cut off by the end of the text.
        EOFError
            If the table may run past the end of the piece (read it with the next).
        """
        border = piece.sparse_line(i).rstrip()
        columns = border_columns(border)
        below = self._line(piece, i + 1) or ""
        if columns is None or not below.startswith("|"):
            return None, i + 1  # a line of '+' and '-' that is no table
        start = piece.first + i + 1  # 1-based line of the top border
        kind = below[1:].split("|", 1)[0].strip()
        if kind not in TABLE_KINDS:
            return None, self.skip_foreign(piece, i, kind)
        header = _cut(below.rstrip(), columns)
        if header is None:
            raise self._misaligned(piece, i + 1, len(columns) - 1, "the table header", below)
        under = self._line(piece, i + 2)
        if under is None:
            raise self._error(piece, i + 2, f"the border under the header of the table that "
                              f"starts at line {start}; the file ends inside the table")
        if under.rstrip() != border:
            raise self._error(piece, i + 3, "a '+---+' border under the table header, as wide "
                              "as the one above it", under)
        j = i + 3
        while (row := self._line(piece, j)) is not None and row[:1] == "|":
            j += 1
        if row is None:
            raise self._error(piece, j, f"the closing '+---+' border of the table that starts "
                              f"at line {start}; the file ends inside the table")
        if row.rstrip() == border:
            end = j + 1
        elif j == i + 3:
            end = j  # a table without rows has no closing border
        else:
            raise self._error(piece, j + 1, f"a table row or the closing '+---+' border of the "
                              f"table that starts at line {start}", row)
        shape = self.shapes.get((border, below))
        if shape is None:
            shape = self.shapes[border, below] = Shape(border, columns, tuple(header))
        return self._rows(piece, start, shape, i + 3, j, piece.sparse_line(i)), end

    def _misaligned(self, piece: Piece, k: int, cells: int, what: str, row: str
                    ) -> LikwidFormatError:
        return self._error(piece, k + 1, f"{what} with {cells} cells between '|', aligned with "
                           "the '+---+' border above", row.rstrip())

    def _rows(self, piece: Piece, start: int, shape: Shape, first: int, stop: int, top: str
              ) -> TextTable:
        labels = shape.labels
        names, counters = [], []
        values = np.empty((stop - first, len(shape.columns) - 1 - labels))
        for k in range(first, stop):
            row = piece.sparse_line(k)
            cells = _cut(row.rstrip(), shape.columns)
            if cells is None:
                raise self._misaligned(piece, k, len(shape.columns) - 1, "a table row", row)
            names.append(cells[0])
            if labels == 2:
                counters.append(cells[1])
            values[k - first] = parse_cells(cells[labels:], self.source, piece.first + k + 1,
                                            f"values of {cells[0]!r}")
        values[np.isinf(values)] = np.nan
        return TextTable(start, shape, names, counters if labels == 2 else None, values, top)

    def skip_foreign(self, piece: Piece, i: int, kind: str) -> int:
        """Pass over a table that is not LIKWID's (another tool's output), with a warning;
        return the index of the line after it."""
        j = i + 1
        while (line := self._line(piece, j)) is not None and line[:1] in ("|", "+"):
            below = self._line(piece, j + 1)
            if line[:1] == "+" and below is not None and \
                    below[1:].split("|", 1)[0].strip() in TABLE_KINDS:
                break  # a LIKWID table right below
            j += 1
        self.warnings.append(f"line {piece.first + i + 1}: ignored a table headed {kind!r} "
                             "(not a LIKWID Region Info, Event or Metric table)")
        return j


# ---------------------------------------------------------------- every table of a piece at once
class _Checked(NamedTuple):
    """The tables of one shape in a piece that passed the checks, before their numbers."""

    shape: Shape
    tops: list[int]
    ends: list[int]
    counts: np.ndarray  # rows per table
    values: np.ndarray  # the cells of their rows: a line each, ``|`` between cells
    names: list         # per table (names, counters)


def read_tables(piece: Piece, reader: TableReader, labels: dict) -> dict[int, tuple[tuple, int]]:
    """The tables of ``piece`` read at once (see the module docstring).

    Parameters
    ----------
    piece : Piece
        Lines of the text.
    reader : TableReader
        The file's reader (its shapes are kept for the file).
    labels : dict
        The label columns of a table, as bytes -> its names and counters: one list each for
        every table printed with the same rows in the file.

    Returns
    -------
    dict of int to (tuple, int)
        Per top border (its line, 0-based in the piece) the fields of the table (those of a
        :class:`TextTable`, in its order) and the index of the line after it; a table left
        out here is read by :meth:`TableReader.read`.
    """
    first = piece.first_bytes()
    plus, bar = first == _PLUS, first == _BAR
    tops = np.flatnonzero(plus[:-4] & bar[1:-3] & plus[2:-2] & bar[3:-1])
    others = np.flatnonzero(~bar)
    at = np.searchsorted(others, tops + 3)
    tops, closes = tops[at < len(others)], others[at[at < len(others)]]
    lengths = piece.ends - piece.starts
    checked = []
    for width in np.unique(lengths[tops]).tolist():  # tables as wide as each other, together
        if width < 3:
            continue
        alike = (lengths[tops] == width) & (lengths[tops + 1] == width) \
            & (lengths[tops + 2] == width) & (lengths[closes] == width)
        top, close = tops[alike], closes[alike]
        windows = np.lib.stride_tricks.sliding_window_view(piece.array, width)
        border, header = windows[piece.starts[top]], windows[piece.starts[top + 1]]
        same = (windows[piece.starts[top + 2]] == border).all(axis=1) \
            & (windows[piece.starts[close]] == border).all(axis=1)
        head = np.concatenate([border, header], axis=1)[same]
        for members in _alike(head):  # printed with the same border and header
            shape = _known_shape(reader, head[members[0], :width].tobytes() + b"\n"
                                 + head[members[0], width:].tobytes())
            if shape is not None:
                found = _check(piece, shape, top[same][members], close[same][members], labels)
                if found is not None:
                    checked.append(found)
    return _tables(piece, checked)


def _alike(rows: np.ndarray) -> list[np.ndarray]:
    """The indices of the rows of a byte matrix (or of its first axis), one array per distinct
    row (compared with the first of those left: few distinct rows, no sort)."""
    out, left = [], np.arange(len(rows))
    axes = tuple(range(1, rows.ndim))
    while len(left):
        equal = (rows[left] == rows[left[0]]).all(axis=axes)
        out.append(left[equal])
        left = left[~equal]
    return out


def _known_shape(reader: TableReader, head: bytes) -> Shape | None:
    """The shape of a border and header row (``head``, as bytes), or None: not read at once."""
    if head in reader.known:
        return reader.known[head]
    shape = None
    if head.isascii():
        border, header = head.decode("ascii").split("\n")
        shape = _shape(border, header)
        if shape is not None and len(shape.columns) - 1 - shape.labels < 1:
            shape = None  # no value column: row by row
    reader.known[head] = shape
    return shape


def _check(piece: Piece, shape: Shape, tops: np.ndarray, closes: np.ndarray, labels: dict
           ) -> _Checked | None:
    """The tables of one shape whose rows pass: as long as the border, ``|`` at every column
    boundary, plain ASCII, one token of a number (or ``-``, nan, inf) in each value cell."""
    width, columns = len(shape.border), np.array(shape.columns)
    counts = closes - tops - 3
    offsets = np.concatenate(([0], np.cumsum(counts)))
    rows = np.arange(offsets[-1]) + np.repeat(tops + 3 - offsets[:-1], counts)
    row_starts = piece.starts[rows]
    windows = np.lib.stride_tricks.sliding_window_view(piece.array, width)
    matrix = windows[np.minimum(row_starts, len(windows) - 1)]  # each row's bytes, one copy
    value_start = shape.columns[shape.labels]
    values = matrix[:, value_start:]
    fits = ((piece.ends[rows] - row_starts) == width) & (matrix[:, columns] == _BAR).all(axis=1)
    if matrix.max(initial=0) >= 128:
        fits &= (matrix < 128).all(axis=1)
    if values.tobytes().translate(None, _NUMERIC_BYTES):  # a cell with something else in it
        fits &= np.take(_NUMERIC, values).all(axis=1)
    gap = ((values == _SPACE) | (values == _BAR)).ravel()
    token = ~gap
    token[1:] &= gap[:-1]  # the first character of a number (each row starts with a bar)
    fits &= (np.add.reduceat(token.reshape(values.shape), columns[shape.labels:-1] - value_start,
                             axis=1) == 1).all(axis=1)
    good = np.logical_and.reduceat(fits, offsets[:-1])
    if not good.any():
        return None
    keep = np.repeat(good, counts)
    counts = counts[good]
    return _Checked(shape, tops[good].tolist(), (closes[good] + 1).tolist(), counts,
                    values[keep, 1:],
                    _table_labels(labels, matrix[keep, 1:value_start], counts, shape))


def _tables(piece: Piece, checked: list[_Checked]) -> dict[int, tuple[tuple, int]]:
    """The tables of the shapes checked, with their numbers: those of every shape with as
    many value columns converted in one call."""
    found: dict[int, tuple[tuple, int]] = {}
    line = piece.first + 1
    for columns in {len(group.shape.value_header) for group in checked}:
        groups = [group for group in checked if len(group.shape.value_header) == columns]
        numbers = iter(_numbers([_lines(group.values) for group in groups],
                                np.concatenate([group.counts for group in groups]), columns))
        for group in groups:
            shape = group.shape
            for top, end, values, (names, counters) in zip(group.tops, group.ends, numbers,
                                                           group.names):
                if values is not None:  # the fields of a TextTable, in its order
                    found[top] = ((line + top, shape, names, counters, values, shape.border),
                                  end)
    return found


def _lines(values: np.ndarray) -> bytes:
    """Rows of cells (after their first bar) as lines of text: the last bar a line end."""
    rows = values.copy()
    rows[:, -1] = 10
    return rows.tobytes()


def _numbers(texts: list[bytes], counts: np.ndarray, columns: int) -> list[np.ndarray | None]:
    """Per table its numbers, ``(rows, columns)``, converted in one call; None for a table
    with a cell that is no number (read row by row, which names it).

    ``texts`` hold the tables' rows, a line each, ``|`` between cells; every cell holds one
    token of ``0-9.eE+-naifNAIF`` (checked before): what is read of those is what Python's
    ``float`` reads, and anything else stops the conversion.
    """
    flat = exact_floats(b"".join(texts), columns)
    bounds = np.concatenate(([0], np.cumsum(counts))).tolist()
    if flat is None:  # a table holds something else: each on its own
        if len(counts) == 1:
            return [None]
        text = b"".join(texts)
        ends = np.concatenate(([0], np.flatnonzero(np.frombuffer(text, np.uint8) == 10) + 1))
        return [_numbers([text[ends[a]:ends[b]]], counts[k:k + 1], columns)[0]
                for k, (a, b) in enumerate(itertools.pairwise(bounds))]
    flat[np.isinf(flat)] = np.nan  # inf and overflowing numbers (1e400): not measured
    return [flat[a:b] for a, b in itertools.pairwise(bounds)]


def _table_labels(labels: dict, text: np.ndarray, counts: np.ndarray, shape: Shape) -> list:
    """Per table the names (and counters) of its rows; tables with the same label columns
    (told apart with numpy) share one list."""
    offsets = np.concatenate(([0], np.cumsum(counts)))
    out: list = [None] * len(counts)
    for n in np.unique(counts).tolist():  # the tables of n rows: (tables, n, width) of bytes
        members = np.flatnonzero(counts == n)
        blocks = text.reshape(len(counts), n, -1) if len(members) == len(counts) else \
            text[offsets[members][:, None] + np.arange(n)]
        for alike in _alike(blocks):
            found = _labels(labels, blocks[alike[0]].tobytes(), shape, n)
            for table in members[alike].tolist():
                out[table] = found
    return out


def _labels(labels: dict, text: bytes, shape: Shape, n: int) -> tuple[list, list | None]:
    """The names (and counters) of a table's ``n`` rows, one list per distinct label text."""
    key = (shape.columns[1], shape.labels, text)
    found = labels.get(key)
    if found is None:
        whole = text.decode("ascii")
        size, split = len(whole) // n, shape.columns[1] - 1
        rows = [whole[k * size:(k + 1) * size] for k in range(n)]
        names = [blank_tabs(r[:split].strip()) for r in rows]
        counters = [blank_tabs(r[split + 1:].strip()) for r in rows] if shape.labels == 2 else None
        found = labels[key] = (names, counters)
    return found
