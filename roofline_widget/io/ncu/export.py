"""One Nsight Compute CSV export to a table of kernel launches (:func:`parse_ncu`).

Two layouts of ``ncu --csv`` are read, recognised by their header line:

* the details page (the default, ``--page details``): one row per launch and
  metric, ``"ID","Process ID","Process Name","Host Name","Kernel Name",...,
  "Metric Name","Metric Unit","Metric Value"``;
* the raw page (``--page raw``): one row per launch, one column per metric,
  and a units row under the header (its launch cells empty).

The program's output and ``==PROF==`` lines before (or among) the rows are
passed over, like the text around LIKWID's tables; a second header starts
a new table (two exports concatenated).  Values may carry thousands
separators (``"663,913,408"``); ``n/a`` (and an empty cell) is NaN; every
value is converted to its metric's base unit (:mod:`.ncu_units`).  Only
the metrics a roofline needs (:data:`~.names.USED_METRICS`) are read.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.ncu.names import DEVICE_NAME, USED_METRICS
from roofline_widget.io.ncu.ncu_units import UnitError, expected_dimension, to_base
from roofline_widget.model import Layout

__all__ = ["LAUNCH_COLUMNS", "NcuExport", "is_ncu_export", "parse_ncu", "rank_from_name"]

#: The header line both layouts start with.
HEADER = re.compile(r'^"ID","Process ID",', re.M)
#: Cell texts that mean "no value".
NA_TOKENS = frozenset({"", "n/a", "N/A", "-", "nan", "NaN"})
#: The key columns of :attr:`NcuExport.launches`, before the metric columns.
LAUNCH_COLUMNS = ("source", "line", "pid", "launch", "kernel", "host", "device", "rank",
                  "device_name")

_RANK_COLUMNS = ("mpi rank", "rank", "mpi_rank")
_RANK_IN_NAME = re.compile(r"(?:^|[^a-z])(?:mpi[_-]?)?rank[_.-]?(\d+)", re.IGNORECASE)
_SUMMARY_COLUMNS = ("Minimum", "Maximum", "Average")
_LONG_COLUMNS = ("Metric Name", "Metric Value")
_REQUIRED = ("ID", "Kernel Name")
_MAX_SHOWN = 80


@dataclass
class NcuExport:
    """What one export holds: one row per (process, launch), the used metrics in base units.

    Attributes
    ----------
    source : str
        The file.
    layout : Layout
        ``Layout.NCU_DETAILS`` or ``Layout.NCU_RAW``.
    launches : pandas.DataFrame
        :data:`LAUNCH_COLUMNS` (``device`` -1 and ``rank`` -1 where the
        export does not say; ``device_name`` None), then one float column per
        used metric exported (base units: FLOP-counting instructions, bytes,
        cycles, seconds, cycles per second; NaN for ``n/a``).
    exported : dict of int to frozenset
        Per process id the metrics exported for it.
    warnings : list of str
        What was passed over, and where.
    """

    source: str
    layout: Layout
    launches: pd.DataFrame
    exported: dict[int, frozenset[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def metrics(self) -> list[str]:
        """The used metrics exported, in first-appearance order."""
        return list(self.launches.columns[len(LAUNCH_COLUMNS):])


def is_ncu_export(text: str) -> bool:
    """Whether ``text`` holds an Nsight Compute CSV export (its header line).

    Examples
    --------
    >>> is_ncu_export('==PROF== done\\n"ID","Process ID","Process Name"\\n')
    True
    >>> is_ncu_export("TABLE,Region x,Group 1 Raw,FLOPS_DP,6")
    False
    """
    return HEADER.search(text) is not None


def rank_from_name(source: str) -> int | None:
    """The MPI rank a file name says (``prof_rank3.csv``, ``run.rank-12.csv``), or None.

    Examples
    --------
    >>> rank_from_name("/scratch/ncu_rank3.csv"), rank_from_name("pass1.csv")
    (3, None)
    """
    match = _RANK_IN_NAME.search(Path(source).name)
    return int(match[1]) if match else None


def _shown(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN - 3] + "..."


def _rows(lines: list[str], start: int, stop: int,
          source: str) -> Iterator[tuple[int, list[str]]]:
    """(1-based line, cells) of every CSV row in ``lines[start:stop]`` (lines starting with a quote)."""
    numbers = [i for i in range(start, stop) if lines[i].startswith('"')]
    reader = csv.reader(lines[i] for i in numbers)
    done = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # a cell over csv's field size limit (128 kB), say
            raise LikwidFormatError(source, numbers[done] + 1, "a CSV row", str(exc)) from None
        yield numbers[done] + 1, cells
        done = reader.line_num  # a row with an unclosed quote takes several lines


def _number(text: str, source: str, line: int, what: str) -> float:
    cell = text.strip()
    if cell in NA_TOKENS:
        return math.nan
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        raise LikwidFormatError(source, line, f"a number for {what} (digits with optional "
                                "thousands separators, or n/a)", _shown(cell)) from None


def _factor(unit: str, metric: str, source: str, line: int) -> float:
    try:
        return to_base(unit, expected_dimension(metric))
    except UnitError:
        raise LikwidFormatError(source, line, f"a unit of {expected_dimension(metric)} for "
                                f"{metric}", unit) from None


def _integer(text: str, source: str, line: int, what: str, missing: int | None = None) -> int:
    cell = text.strip().replace(",", "")
    if not cell and missing is not None:
        return missing
    try:
        return int(cell)
    except ValueError:
        raise LikwidFormatError(source, line, f"an integer {what}", _shown(text)) from None


class _Table:
    """The column positions of one header, and the launches read under it."""

    def __init__(self, cells: list[str], source: str, line: int):
        self.cells = cells
        self.source = source
        self.line = line
        position = {name: i for i, name in enumerate(cells)}
        missing = [name for name in _REQUIRED if name not in position]
        if missing:
            raise LikwidFormatError(source, line, "an Nsight Compute CSV header with the columns "
                                    "'ID' and 'Kernel Name'", _shown(",".join(cells)))
        if "Metric Name" in position and any(c in position for c in _SUMMARY_COLUMNS):
            raise LikwidFormatError(
                source, line, "one row per kernel launch (ncu --csv without --print-summary: "
                "a summary has no launch to join passes by)", "a per-kernel summary header")
        self.long = all(name in position for name in _LONG_COLUMNS)
        self.position = position
        lowered = {name.lower(): i for i, name in enumerate(cells)}
        self.rank_at = next((lowered[n] for n in _RANK_COLUMNS if n in lowered), None)

    def cell(self, cells: list[str], name: str, default: str = "") -> str:
        at = self.position.get(name)
        return cells[at] if at is not None else default

    def check_width(self, cells: list[str], line: int) -> None:
        if len(cells) != len(self.cells):
            raise LikwidFormatError(self.source, line, f"a row of {len(self.cells)} cells like "
                                    f"the header of line {self.line}",
                                    f"{len(cells)} cells")


class _Launches:
    """Launch keys and metric values collected over the tables of one file."""

    def __init__(self, source: str, file_rank: int | None):
        self.source = source
        self.file_rank = file_rank
        self.keys: dict[tuple[int, int, str], int] = {}
        self.rows: list[dict] = []
        self.values: dict[str, dict[int, float]] = {}
        self.exported: dict[int, set[str]] = {}
        self.device_names: dict[tuple[int, int, str], str] = {}

    def key(self, table: _Table, cells: list[str], line: int) -> tuple[int, int, str]:
        """(process id, launch ID, kernel name) of a data row."""
        source = self.source
        launch = _integer(table.cell(cells, "ID"), source, line, "launch ID (column 'ID')")
        pid = _integer(table.cell(cells, "Process ID"), source, line, "Process ID", missing=-1)
        return pid, launch, table.cell(cells, "Kernel Name")

    def name_device(self, table: _Table, cells: list[str], line: int, name: str) -> None:
        """Keep the GPU name a row gives for its launch."""
        self.device_names[self.key(table, cells, line)] = name.strip()

    def launch(self, table: _Table, cells: list[str], line: int) -> int:
        """The row number of the launch a data row belongs to (added on first sight)."""
        source = self.source
        key = self.key(table, cells, line)
        pid, launch, kernel = key
        row = self.keys.get(key)
        if row is None:
            rank = self.file_rank if self.file_rank is not None else -1
            if table.rank_at is not None:
                rank = _integer(cells[table.rank_at], source, line, "MPI rank", missing=rank)
            row = self.keys[key] = len(self.rows)
            self.rows.append({
                "source": source, "line": line, "pid": pid, "launch": launch, "kernel": kernel,
                "host": table.cell(cells, "Host Name"),
                "device": _integer(table.cell(cells, "Device"), source, line, "device (column "
                                   "'Device')", missing=-1),
                "rank": rank, "device_name": None})
        return row

    def put(self, row: int, metric: str, value: float, line: int) -> None:
        column = self.values.setdefault(metric, {})
        before = column.get(row)
        if before is not None and not (before == value or (math.isnan(before) and math.isnan(value))):
            key = self.rows[row]
            raise LikwidFormatError(
                self.source, line, f"each metric once per launch: {metric} of launch "
                f"{key['launch']} (process {key['pid']}) again with another value",
                f"{value:g} after {before:g}")
        column[row] = value
        self.exported.setdefault(self.rows[row]["pid"], set()).add(metric)

    def frame(self) -> pd.DataFrame:
        for key, name in self.device_names.items():
            row = self.keys.get(key)
            if row is not None:
                self.rows[row]["device_name"] = name
        frame = pd.DataFrame(self.rows, columns=list(LAUNCH_COLUMNS))
        for metric, column in self.values.items():
            values = np.full(len(frame), np.nan)
            if column:
                values[np.fromiter(column, dtype=np.intp)] = np.fromiter(column.values(), dtype=float)
            frame[metric] = values
        return frame


def _read_long(table: _Table, rows, launches: _Launches) -> None:
    source = launches.source
    name_at, value_at = table.position["Metric Name"], table.position["Metric Value"]
    unit_at = table.position.get("Metric Unit")
    for line, cells in rows:
        table.check_width(cells, line)
        metric = cells[name_at]
        if metric == DEVICE_NAME:
            launches.name_device(table, cells, line, cells[value_at])
            continue
        if metric not in USED_METRICS:
            continue
        row = launches.launch(table, cells, line)
        unit = cells[unit_at] if unit_at is not None else ""
        value = _number(cells[value_at], source, line, metric)
        launches.put(row, metric, value * _factor(unit, metric, source, line), line)


def _read_wide(table: _Table, rows, launches: _Launches, warnings: list[str]) -> None:
    source = launches.source
    used = [(i, name) for i, name in enumerate(table.cells) if name in USED_METRICS]
    name_at = table.position.get(DEVICE_NAME)
    factors = dict.fromkeys((i for i, _ in used), 1.0)
    units_seen = False
    for line, cells in rows:
        table.check_width(cells, line)
        if not cells[table.position["ID"]].strip():
            if units_seen:
                raise LikwidFormatError(source, line, "one units row under the header",
                                        "a second row without launch ID")
            units_seen = True
            factors = {i: _factor(cells[i], name, source, line) for i, name in used}
            continue
        if not units_seen:
            warnings.append(f"{source}, line {table.line}: no units row under the raw-page "
                            "header; values read as base units (byte, cycle, inst, second)")
            units_seen = True
        row = launches.launch(table, cells, line)
        if name_at is not None:
            launches.name_device(table, cells, line, cells[name_at])
        for i, name in used:
            launches.put(row, name, _number(cells[i], source, line, name) * factors[i], line)


def parse_ncu(text: str, source: str) -> NcuExport:
    """Read one Nsight Compute CSV export (details or raw page).

    Parameters
    ----------
    text : str
        The whole export (``ncu --csv`` output, possibly after the program's output).
    source : str
        The file name, for messages and for an MPI rank in the name (:func:`rank_from_name`).

    Returns
    -------
    NcuExport

    Raises
    ------
    LikwidFormatError
        For a header without ``ID``/``Kernel Name``, a per-kernel summary, a
        row whose cell count differs from its header's, a launch ID that is
        no integer, a value that is no number (or ``n/a``), a unit that does
        not fit its metric, one metric of one launch twice with different
        values, or an export without any launch row.
    """
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith('"ID","Process ID",')]
    if not starts:
        raise LikwidFormatError(source, None, 'an Nsight Compute CSV header ("ID","Process ID",...)')
    launches = _Launches(source, rank_from_name(source))
    warnings: list[str] = []
    layouts = set()
    for start, stop in zip(starts, [*starts[1:], len(lines)]):
        header = next(csv.reader([lines[start]]))
        table = _Table(header, source, start + 1)
        rows = _rows(lines, start + 1, stop, source)
        if table.long:
            layouts.add(Layout.NCU_DETAILS)
            _read_long(table, rows, launches)
        else:
            layouts.add(Layout.NCU_RAW)
            _read_wide(table, rows, launches, warnings)
    if not launches.rows:
        raise LikwidFormatError(source, starts[0] + 1, "at least one kernel launch row with a "
                                "roofline metric (FLOP counters, bytes, cycles or duration)",
                                "none")
    layout = Layout.NCU_DETAILS if Layout.NCU_DETAILS in layouts else Layout.NCU_RAW
    return NcuExport(source, layout, launches.frame(),
                     {pid: frozenset(m) for pid, m in launches.exported.items()}, warnings)
