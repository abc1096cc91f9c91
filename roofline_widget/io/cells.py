"""Cells and thread headers: the smallest pieces every LIKWID parser reads.

:func:`parse_thread_header` and :func:`thread_columns` read per-thread column
headers, :func:`version_from_threads` tells the LIKWID version they imply, and
:func:`parse_cells` converts a row of cell texts to float64, :func:`blank_tabs`
makes a tab in a name a blank.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.model import CPU, GPU, Device

__all__ = [
    "NAN_TOKENS",
    "NUMBER",
    "SharedLists",
    "ThreadColumn",
    "blank_tabs",
    "cell_to_float",
    "exact_floats",
    "is_number",
    "parse_cells",
    "parse_thread_header",
    "thread_columns",
    "version_from_threads",
]

#: Cell texts that mean "no value", compared in lower case: LIKWID prints ``-`` for a counter
#: it could not read, ``nil`` where a statistic is undefined (5.2: the STAT ``Avg`` of
#: ``TOPDOWN_SLOTS``), ``nan``/``-nan`` for 0/0 and ``inf`` where a value overflowed.  Every
#: one of them, and every non-finite number (``1e400`` overflows), becomes NaN in
#: :func:`parse_cells`: not measured, never 0.
NAN_TOKENS = frozenset({"", "-", "nil", "nan", "-nan", "+nan", "inf", "-inf", "+inf", "n/a"})

#: A number as LIKWID prints it (C ``%d``, ``%f``, ``%e``, Lua ``%.14g``): ASCII digits only.
#: Python's ``float`` also reads ``1_16.3005``, ``1e1_0`` and non-ASCII digits (fullwidth
#: ``U+FF11 U+FF12``, Arabic-Indic ``U+0661``), none of which LIKWID writes: such a cell is an
#: error, not a number. Written so that no two parts can take the same digits: linear in the
#: cell, however long (``[0-9]+\.?[0-9]*`` backtracked quadratically on a long run of digits).
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
#: Deletes the characters of plain LIKWID numbers: a row with nothing left is read by numpy
#: in one call (every form numpy reads from these characters alone is one LIKWID prints).
_PLAIN_NUMBER_CHARACTERS = str.maketrans("", "", "0123456789.eE+- ")

_HWTHREAD = re.compile(r"^(?:HWThread|Core|core|CPU|Thread)\s+(\d+)$", re.ASCII)
_GPU = re.compile(r"^GPU\s+(\d+)$", re.ASCII)
_MPI = re.compile(r"^(?P<host>[^:\s]+):(?P<rank>\d+):(?P<cpu>\d+)$", re.ASCII)


@dataclass(frozen=True)
class ThreadColumn:
    """What a per-thread column header says.

    Attributes
    ----------
    label : str
        The header as printed (``"HWThread 3"``, ``"sonata:1:25"``).
    cpu : int
        OS id of the hardware thread, or the GPU id.
    device : Device
        ``Device.CPU`` or ``Device.GPU`` (equal to ``"cpu"`` / ``"gpu"``).
    rank : int or None
        MPI rank from a likwid-mpirun ``host:rank:cpu`` header.
    host : str
        Host name from such a header, ``""`` otherwise.
    """

    label: str
    cpu: int
    device: Device = CPU
    rank: int | None = None
    host: str = ""


def parse_thread_header(text: str) -> ThreadColumn | None:
    """Parse a per-thread column header, or return None if it is not one.

    Examples
    --------
    >>> parse_thread_header("HWThread 64")
    ThreadColumn(label='HWThread 64', cpu=64, device=<Device.CPU: 'cpu'>, rank=None, host='')
    >>> parse_thread_header("sonata:1:25").rank
    1
    >>> parse_thread_header("GPU 0").device == "gpu"
    True
    """
    text = text.strip()
    match = _HWTHREAD.match(text)
    if match:
        return ThreadColumn(text, int(match[1]))
    match = _GPU.match(text)
    if match:
        return ThreadColumn(text, int(match[1]), GPU)
    match = _MPI.match(text)
    if match:
        return ThreadColumn(text, int(match["cpu"]), CPU, int(match["rank"]), match["host"])
    return None


_THREAD_HEADERS = "('HWThread 0', 'Core 0', 'core 0', 'GPU 0' or 'host:rank:cpu')"


def thread_columns(labels: Sequence[str], source: str, line: int | None) -> list[ThreadColumn]:
    """Parse the per-thread column headers of a table, all of them or an error.

    Parameters
    ----------
    labels : sequence of str
        The headers as printed.
    source : str
        The file, for the error message.
    line : int or None
        1-based line of the headers, for the error message.

    Raises
    ------
    LikwidFormatError
        Naming the first header that is no thread column (or an empty list).

    Examples
    --------
    >>> [t.cpu for t in thread_columns(["HWThread 0", "HWThread 4"], "run.txt", 3)]
    [0, 4]
    """
    threads = [parse_thread_header(label) for label in labels]
    columns = [t for t in threads if t is not None]
    if threads and len(columns) == len(threads):
        return columns
    bad = labels[threads.index(None)] if None in threads else ""
    raise LikwidFormatError(source, line, f"per-thread column headers {_THREAD_HEADERS}", bad)


def version_from_threads(labels: Sequence[str], *, wrapper: bool = False) -> str | None:
    """LIKWID version range told by the thread column names, or None.

    ``HWThread N`` columns came with 5.1, ``core N`` is 3.x, ``Core N`` is
    4.x to 5.0.x (4.0 already in wrapper mode, marker regions from 4.1) and
    ``GPU N`` columns came with 5.0.

    Examples
    --------
    >>> version_from_threads(["HWThread 0"]), version_from_threads(["Core 0"], wrapper=True)
    ('>= 5.1', '4.0 - 5.0.x')
    """
    if any(label.startswith("HWThread ") for label in labels):
        return ">= 5.1"
    if any(label.startswith("core ") for label in labels):
        return "3.x"
    if any(label.startswith("Core ") for label in labels):
        return "4.0 - 5.0.x" if wrapper else "4.1 - 5.0.x"
    if any(label.startswith("GPU ") for label in labels):
        return ">= 5.0"
    return None


def blank_tabs(text: str) -> str:
    """``text`` with every tab a blank.

    A tab inside a name (an edited or re-indented file) must not make a second
    metric of ``DP [MFLOP/s]``: the text tables apply this to each cell, the
    CSV reader to each line before it splits it.

    Examples
    --------
    >>> blank_tabs("DP\\t[MFLOP/s]")
    'DP [MFLOP/s]'
    """
    return text.replace("\t", " ") if "\t" in text else text


def cell_to_float(cell: str) -> float:
    """One cell as LIKWID printed it: a number, or NaN for a :data:`NAN_TOKENS` text.

    Raises
    ------
    ValueError
        For anything else (``1_0``, fullwidth or Arabic-Indic digits, ``0x1f``, ``1e``).

    Examples
    --------
    >>> cell_to_float(" 2.556572e+06 "), cell_to_float("nil")
    (2556572.0, nan)
    """
    cell = cell.strip()
    if cell.lower() in NAN_TOKENS:
        return np.nan
    if NUMBER.fullmatch(cell) is None:
        raise ValueError(f"not a LIKWID number: {cell!r}")
    return float(cell)


def is_number(cell: str) -> bool:
    """Whether :func:`cell_to_float` reads ``cell`` (a number or a "no value" token)."""
    try:
        cell_to_float(cell)
    except ValueError:
        return False
    return True


def parse_cells(cells, source, line: int, what: str) -> np.ndarray:
    """Convert a row of cell texts to float64; ``-``, ``nil``, ``nan``, ``inf``, ``1e400`` to NaN.

    Every non-finite value becomes NaN: a thread whose cell is not a finite
    number was not measured (the sums engines count such threads, see
    :mod:`roofline_widget.points`).  Only the number forms LIKWID prints are
    read (:data:`NUMBER`): digit separators and non-ASCII digits are errors.

    Parameters
    ----------
    cells : sequence of str
        The cells (surrounding blanks allowed).
    source, line
        Where the row came from, for the error message.
    what : str
        What the row is (``"values of metric 'CPI'"``), for the error message.

    Raises
    ------
    LikwidFormatError
        If a cell is neither a number nor one of :data:`NAN_TOKENS`.
    """
    values = None
    if not "".join(cells).translate(_PLAIN_NUMBER_CHARACTERS):
        try:
            values = np.array(cells, dtype=np.float64)
        except ValueError:
            values = None  # a '-' or a malformed number: cell by cell
    if values is None:
        try:
            values = np.array([cell_to_float(c) for c in cells], dtype=np.float64)
        except ValueError:
            bad = next(c for c in cells if not is_number(c))
            raise LikwidFormatError(source, line, f"numbers or '-' as {what}", bad) from None
    values[np.isinf(values)] = np.nan  # inf and overflowing numbers (1e400): not measured
    return values


class SharedLists:
    """One list per distinct row-name list and one per thread header of a file, shared by its
    blocks: a large file prints the same names and thread columns for hundreds of regions,
    whose blocks then take the memory of their numbers, not of their names, and every thread
    header is read once.

    Parameters
    ----------
    source : str
        The file's name, for the error of a thread header that cannot be read.

    Examples
    --------
    >>> lists = SharedLists("run.txt")
    >>> lists.names(["CPI", "IPC"]) is lists.names(["CPI", "IPC"])
    True
    >>> [t.cpu for t in lists.threads(("HWThread 0", "HWThread 3"), 7)]
    [0, 3]
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._names: dict[tuple, list[str]] = {}
        self._threads: dict[tuple, list[ThreadColumn]] = {}

    def names(self, names: list[str]) -> list[str]:
        """The one list equal to ``names`` (``names`` itself the first time)."""
        return self._names.setdefault(tuple(names), names)

    def threads(self, labels: Sequence[str], line: int | None) -> list[ThreadColumn]:
        """The thread columns of a header (one list per distinct header: never change it).

        Raises
        ------
        LikwidFormatError
            If a label is not a thread column (see :func:`thread_columns`), naming ``line``.
        """
        key = tuple(labels)
        columns = self._threads.get(key)
        if columns is None:
            columns = self._threads[key] = thread_columns(labels, self.source, line)
        return columns


#: Lines of numbers as bytes: a number per line for pandas (``|`` a line end), or blanks.
_TO_LINES = bytes.maketrans(b"|", b"\n")
_TO_BLANK = bytes.maketrans(b"|", b" ")
#: Decimal numbers whose nearest double a parser gets wrong unless it rounds exactly.
_HARD = ("1.700000000000000177635684", "0.00000000000001953", "2.2250738585072011e-308",
         "9007199254740993", "7.038531e-26", "1e400", "-0.0000", "4.9e-324")


def _pandas_numbers(text: bytes) -> np.ndarray:
    """A number per line (a blank line NaN), read by pandas' C parser."""
    return pd.read_csv(io.BytesIO(text), header=None, names=[0], dtype=np.float64,
                       engine="c", quoting=3, skip_blank_lines=False)[0].to_numpy(copy=True)


@functools.cache
def _pandas_is_exact() -> bool:
    """Whether pandas' CSV parser reads numbers as Python does (pandas >= 3.1: fast_float,
    correctly rounded; older ones miss the last bit of some numbers)."""
    try:
        got = _pandas_numbers("\n".join(_HARD).encode() + b"\n")
    except (ValueError, TypeError):
        return False
    return got.tobytes() == np.array([float(h) for h in _HARD]).tobytes()


def exact_floats(text: bytes, columns: int) -> np.ndarray | None:
    """Lines of ``columns`` cells each, between ``|``, blanks around them, as a ``(lines,
    columns)`` array: each number what Python's ``float`` reads of it (the decimal's nearest
    double), ``-`` NaN; None if a cell holds anything else.  No cell may be blank (the caller
    checks: one token per cell).

    pandas' C parser reads them where it rounds exactly (a cell of ``-`` made blank: NaN),
    else :func:`numpy.fromstring` (``-`` made ``nan``).

    Examples
    --------
    >>> exact_floats(b" 1.5 | 2e3 \\n  - |  -0 \\n", 2).tolist()
    [[1.5, 2000.0], [nan, -0.0]]
    """
    dashes = b" - " in text
    lines = text.count(b"\n")
    try:
        if not text.translate(None, b"0123456789.eE+-| \n") and _pandas_is_exact():
            if dashes:  # no nan or inf either: pandas reads those in its own way
                text = text.replace(b" - ", b"   ").replace(b" - ", b"   ")
            flat = _pandas_numbers(text.translate(_TO_LINES, b" "))
        else:
            if dashes:
                text = text.replace(b" - ", b" nan ").replace(b" - ", b" nan ")
            flat = np.fromstring(text.translate(_TO_BLANK), sep=" ")
    except (ValueError, pd.errors.ParserError):
        return None
    return flat.reshape(lines, columns) if len(flat) == lines * columns else None
