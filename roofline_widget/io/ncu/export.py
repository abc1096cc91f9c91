"""One Nsight Compute CSV export to a table of kernel launches (:func:`parse_ncu`).

Two layouts of ``ncu --csv`` are read, recognised by their header line:

* the details page (the default, ``--page details``): one row per launch and
  metric, ``"ID","Process ID","Process Name","Host Name","Kernel Name",...,
  "Metric Name","Metric Unit","Metric Value"``;
* the raw page (``--page raw``): one row per launch, one column per metric,
  and a units row under the header (its launch cells empty).

Either page may carry columns of other ncu versions (``"Kernel Time"``,
``"Block Size"``, ``"Grid Size"``, ``"Device"``, ``"CC"``) and, on the details
page, trailing rule columns (``"Rule Name","Rule Type","Rule Description"``,
``"Estimated Speedup..."``) that metric rows leave out: a row may stop before
them (:data:`OPTIONAL_TAIL`), never before another column.

The program's output before (or among) the rows is passed over, like the
text around LIKWID's tables; ncu's own ``==PROF==``/``==ERROR==``/``==WARNING==``
lines are kept as notes, a kernel that failed to profile named as left out
(:mod:`.messages`).  A second header starts a new table (two exports
concatenated).  Values may carry thousands separators (``"663,913,408"``);
``n/a`` (and an empty cell) is NaN; every value is converted to its metric's
base unit (:mod:`.ncu_units`).  Only the metrics a roofline needs
(:data:`~.names.USED_METRICS`) are read.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.ncu.counters import DEVICE_NAME, USED_METRICS
from roofline_widget.io.ncu.messages import ncu_messages
from roofline_widget.io.ncu.ncu_units import UnitError, expected_dimension, to_base
from roofline_widget.model import Layout

__all__ = ["LAUNCH_COLUMNS", "OPTIONAL_TAIL", "NcuExport", "is_ncu_export", "parse_ncu",
           "rank_from_name"]

#: The header line both layouts start with.
HEADER = re.compile(r'^"ID","Process ID",', re.M)
#: Cell texts that mean "no value".
NA_TOKENS = frozenset({"", "n/a", "N/A", "-", "nan", "-nan", "NaN"})
# Numbers as ncu prints them: thousands separators in groups of three, optional decimals, exponent.
_INTEGER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)")
_NUMBER = re.compile(r"[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
#: The key columns of :attr:`NcuExport.launches`, before the metric columns (``cc``: the
#: compute capability of a ``"CC"`` column, ``""`` where the export has none).
LAUNCH_COLUMNS = ("source", "line", "pid", "launch", "kernel", "host", "device", "rank", "cc",
                  "device_name")
#: Columns that end a details-page header and that metric rows may leave out (rule results).
OPTIONAL_TAIL = frozenset({"Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
                           "Estimated Speedup"})

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
        export does not say; ``device_name`` None, ``cc`` ""), then one float column per
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


def _table_rows(lines: list[str], start: int, stop: int,
                source: str) -> tuple[np.ndarray, list[list[str]]]:
    """(1-based lines, cells) of the CSV rows in ``lines[start:stop]`` (the lines starting with a quote)."""
    numbers = [i for i in range(start, stop) if lines[i].startswith('"')]
    reader = csv.reader(lines[i] for i in numbers)
    firsts, rows, done = [], [], 0
    try:
        for cells in reader:
            firsts.append(numbers[done] + 1)
            rows.append(cells)
            done = reader.line_num  # a row with an unclosed quote takes several lines
    except csv.Error as exc:  # a cell over csv's field size limit (128 kB), say
        raise LikwidFormatError(source, numbers[done] + 1, "a CSV row", str(exc)) from None
    return np.asarray(firsts, dtype=np.int64), rows


def _parse_each(texts: np.ndarray, parse) -> np.ndarray:
    """``parse`` of every cell; the position of the first it refuses raised as IndexError."""
    out = np.empty(len(texts))
    for at, text in enumerate(texts.tolist()):
        try:
            out[at] = parse(text)
        except ValueError:
            raise IndexError(at) from None
    return out


def _integers(texts: np.ndarray, lines: np.ndarray, source: str, what: str,
              missing: int | None = None) -> np.ndarray:
    """Integer cells (thousands separators allowed); empty cells ``missing`` if given."""
    def parse(text: str) -> float:
        cell = text.strip()
        if not cell and missing is not None:
            return missing
        if _INTEGER.fullmatch(cell) is None:
            raise ValueError(cell)
        return int(cell.replace(",", ""))

    codes, uniques = pd.factorize(texts)  # launch IDs, process ids: each parsed once
    try:
        return _parse_each(np.asarray(uniques, dtype=object), parse).astype(np.int64)[codes]
    except IndexError as where:
        at = int(np.flatnonzero(codes == where.args[0])[0])
        raise LikwidFormatError(source, int(lines[at]), f"an integer {what}",
                                _shown(texts[at])) from None


def _value(text: str) -> float:
    """A metric value; ValueError for what is no number (``450,1e,760``), NaN for n/a and overflow."""
    cell = text.strip()
    if cell in NA_TOKENS:
        return math.nan
    if _NUMBER.fullmatch(cell) is None:
        raise ValueError(cell)
    value = float(cell.replace(",", ""))
    return value if math.isfinite(value) else math.nan


def _numbers(texts: np.ndarray, lines: np.ndarray, metrics: np.ndarray | str,
             source: str) -> np.ndarray:
    """Metric values: thousands separators allowed, n/a (and empty) NaN."""
    try:
        return _parse_each(texts, _value)
    except IndexError as where:
        at = where.args[0]
        what = metrics if isinstance(metrics, str) else metrics[at]
        raise LikwidFormatError(source, int(lines[at]), f"a number for {what} (digits with "
                                "optional thousands separators, or n/a)",
                                _shown(texts[at].strip())) from None


def _factor(unit: str, metric: str, source: str, line: int) -> float:
    try:
        return to_base(unit, expected_dimension(metric))
    except UnitError:
        raise LikwidFormatError(source, line, f"a unit of {expected_dimension(metric)} for "
                                f"{metric}", unit) from None


def _factors(units: np.ndarray, metrics: np.ndarray, lines: np.ndarray, source: str) -> np.ndarray:
    """Per row the factor of its unit to its metric's base unit (one look-up per pair)."""
    codes, uniques = pd.factorize(pd.MultiIndex.from_arrays([units, metrics]))
    first = np.unique(codes, return_index=True)[1]
    table = np.array([_factor(unit, metric, source, int(lines[at]))
                      for (unit, metric), at in zip(uniques, first)], dtype=float)
    return table[codes]


class _Header:
    """The columns of one header line, checked."""

    def __init__(self, cells: list[str], source: str, line: int):
        self.cells = cells
        self.source = source
        self.line = line
        if not all(name in cells for name in _REQUIRED):
            raise LikwidFormatError(source, line, "an Nsight Compute CSV header with the columns "
                                    "'ID' and 'Kernel Name'", _shown(",".join(cells)))
        if "Metric Name" in cells and any(c in cells for c in _SUMMARY_COLUMNS):
            raise LikwidFormatError(
                source, line, "one row per kernel launch (ncu --csv without --print-summary: "
                "a summary has no launch to join passes by)", "a per-kernel summary header")
        if len(set(cells)) < len(cells):
            twice = sorted({c for c in cells if cells.count(c) > 1})
            raise LikwidFormatError(source, line, "each column once in the header",
                                    f"{twice} twice")
        self.long = all(name in cells for name in _LONG_COLUMNS)
        lowered = {name.lower(): name for name in cells}
        self.rank = next((lowered[n] for n in _RANK_COLUMNS if n in lowered), None)
        tail = 0
        while self.long and tail < len(cells) and cells[len(cells) - 1 - tail] in OPTIONAL_TAIL:
            tail += 1
        #: The fewest cells a row may have: the rule columns at the end may be left out.
        self.shortest = len(cells) - tail

    def columns(self, lines: np.ndarray, rows: list[list[str]]) -> dict[str, np.ndarray]:
        """Column name -> its cells (object array), after checking each row's width.

        A row without the trailing rule columns (:data:`OPTIONAL_TAIL`) gets them empty.
        """
        full = len(self.cells)
        widths = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
        bad = (widths < self.shortest) | (widths > full)
        if bad.any():
            at = np.flatnonzero(bad)[0]
            expected = (f"a row of {full} cells" if self.shortest == full else
                        f"a row of {self.shortest} to {full} cells (the rule columns may be "
                        "left out)")
            raise LikwidFormatError(self.source, int(lines[at]), f"{expected} like the header "
                                    f"of line {self.line}", f"{widths[at]} cells")
        if (widths < full).any():
            rows = [row if len(row) == full else row + [""] * (full - len(row)) for row in rows]
        cells = zip(*rows) if rows else ([] for _ in self.cells)
        return {name: np.array(column, dtype=object) for name, column in zip(self.cells, cells)}


def _keys(columns: dict[str, np.ndarray], header: _Header, lines: np.ndarray,
          file_rank: int | None) -> pd.DataFrame:
    """The launch columns of the rows: source, line, pid, launch, kernel, host, device, rank."""
    source, n = header.source, len(lines)
    blank = np.full(n, "", dtype=object)
    default_rank = -1 if file_rank is None else file_rank
    rank = (_integers(columns[header.rank], lines, source, "MPI rank", missing=default_rank)
            if header.rank is not None else np.full(n, default_rank, dtype=np.int64))
    return pd.DataFrame({
        "source": np.full(n, source, dtype=object),
        "line": lines,
        "pid": _integers(columns.get("Process ID", blank), lines, source, "Process ID",
                         missing=-1),
        "launch": _integers(columns["ID"], lines, source, "launch ID (column 'ID')"),
        "kernel": columns["Kernel Name"],
        "host": columns.get("Host Name", blank),
        "device": _integers(columns.get("Device", blank), lines, source,
                            "device (column 'Device')", missing=-1),
        "rank": rank,
        "cc": [cell.strip() for cell in columns.get("CC", blank).tolist()],
    })


def _device_names(keys: pd.DataFrame, names: np.ndarray) -> pd.DataFrame:
    return keys.assign(device_name=[name.strip() for name in names.tolist()])


def _long_cells(header: _Header, lines, rows, file_rank) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cells: the launch columns, metric and value in base units; device names) of a details table."""
    columns = header.columns(lines, rows)
    metric = columns["Metric Name"]
    used = np.fromiter((m in USED_METRICS for m in metric.tolist()), dtype=bool, count=len(metric))
    named = metric == DEVICE_NAME
    pick = {name: values[used] for name, values in columns.items()}
    cells = _keys(pick, header, lines[used], file_rank)
    names_at = {name: values[named] for name, values in columns.items()}
    names = _device_names(_keys(names_at, header, lines[named], file_rank),
                          names_at["Metric Value"])
    units = pick.get("Metric Unit", np.full(int(used.sum()), "", dtype=object))
    numbers = _numbers(pick["Metric Value"], lines[used], pick["Metric Name"], header.source)
    cells["metric"] = pick["Metric Name"]
    cells["value"] = numbers * _factors(units, pick["Metric Name"], lines[used], header.source)
    return cells, names


def _wide_cells(header: _Header, lines, rows, file_rank,
                warnings: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cells, device names) of a raw-page table: its units row applied, one cell per (launch, metric)."""
    columns = header.columns(lines, rows)
    unit_rows = np.array([not text.strip() for text in columns["ID"].tolist()], dtype=bool)
    unit_lines = lines[unit_rows]
    if len(unit_lines) > 1:
        raise LikwidFormatError(header.source, int(unit_lines[1]), "one units row under the "
                                "header", "a second row without launch ID")
    if len(unit_lines):
        at = np.flatnonzero(unit_rows)[0]
        units, unit_line = {name: column[at] for name, column in columns.items()}, int(unit_lines[0])
    else:
        units, unit_line = dict.fromkeys(columns, ""), header.line
        warnings.append(f"{header.source}, line {header.line}: no units row under the raw-page "
                        "header; values read as base units (byte, cycle, inst, second)")
    data = {name: column[~unit_rows] for name, column in columns.items()}
    data_lines = lines[~unit_rows]
    keys = _keys(data, header, data_lines, file_rank)
    names = (_device_names(keys, data[DEVICE_NAME]) if DEVICE_NAME in data
             else keys.iloc[:0].assign(device_name=[]))
    parts = [keys.iloc[:0].assign(metric=[], value=[])]
    for metric in (name for name in header.cells if name in USED_METRICS):
        factor = _factor(units[metric], metric, header.source, unit_line)
        numbers = _numbers(data[metric], data_lines, metric, header.source)
        parts.append(keys.assign(metric=metric, value=numbers * factor))
    return pd.concat(parts, ignore_index=True), names


def _launches(cells: pd.DataFrame, names: pd.DataFrame, source: str) -> pd.DataFrame:
    """One row per (process, launch, kernel): the launch columns and one column per metric."""
    keys = ["pid", "launch", "kernel"]
    row = cells.groupby(keys, sort=False).ngroup().to_numpy()
    metric_codes, metrics = pd.factorize(cells["metric"])
    values = cells["value"].to_numpy(dtype=float)
    pair = pd.Series(row * len(metrics) + metric_codes)
    repeated = pair.duplicated(keep=False).to_numpy()
    if repeated.any():  # one metric of one launch twice: fine only with the same value
        spread = pd.DataFrame({"pair": pair[repeated], "value": values[repeated]}).groupby(
            "pair")["value"].nunique(dropna=False)
        conflicting = pair.isin(spread.index[spread > 1]).to_numpy() & pair.duplicated().to_numpy()
        if conflicting.any():
            at = np.flatnonzero(conflicting)[0]
            raise LikwidFormatError(
                source, int(cells["line"].iloc[at]), f"each metric once per launch: "
                f"{cells['metric'].iloc[at]} of launch {cells['launch'].iloc[at]} (process "
                f"{cells['pid'].iloc[at]}) again with another value", f"{values[at]:g}")
    first = np.unique(row, return_index=True)[1]
    launches = cells.iloc[first][list(LAUNCH_COLUMNS[:-1])].reset_index(drop=True)
    by_key = names.drop_duplicates(keys, keep="last").set_index(keys)["device_name"]
    launches["device_name"] = by_key.reindex(pd.MultiIndex.from_frame(launches[keys])).to_numpy(
        dtype=object) if len(by_key) else None
    table = np.full((len(launches), len(metrics)), np.nan)
    table[row, metric_codes] = values
    return pd.concat([launches, pd.DataFrame(table, columns=list(metrics))], axis=1)


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
        For a header without ``ID``/``Kernel Name`` (or with a column twice), a
        per-kernel summary, a row whose cell count differs from its header's,
        a launch ID that is no integer, a value that is no number (or ``n/a``),
        a unit that does not fit its metric, one metric of one launch twice
        with different values, or an export without any launch row.
    """
    lines = text.splitlines()
    warnings: list[str] = ncu_messages(lines, source)
    if lines and lines[-1].startswith('"') and not text.endswith(("\n", "\r")):
        # ncu ends every row: the file was cut off, maybe inside a number
        warnings.append(f"{source}, line {len(lines)}: the file ends inside this row (no final "
                        "newline); the row was not read")
        lines.pop()
    starts = [i for i, line in enumerate(lines) if line.startswith('"ID","Process ID",')]
    if not starts:
        raise LikwidFormatError(source, None, 'an Nsight Compute CSV header ("ID","Process ID",...)')
    file_rank = rank_from_name(source)
    cells, names, layouts = [], [], set()
    for start, stop in zip(starts, [*starts[1:], len(lines)]):
        header = _Header(next(csv.reader([lines[start]])), source, start + 1)
        numbers, rows = _table_rows(lines, start + 1, stop, source)
        if header.long:
            layouts.add(Layout.NCU_DETAILS)
            table_cells, table_names = _long_cells(header, numbers, rows, file_rank)
        else:
            layouts.add(Layout.NCU_RAW)
            table_cells, table_names = _wide_cells(header, numbers, rows, file_rank, warnings)
        cells.append(table_cells)
        names.append(table_names)
    joined = pd.concat(cells, ignore_index=True)
    if joined.empty:
        raise LikwidFormatError(source, starts[0] + 1, "at least one kernel launch row with a "
                                "roofline metric (FLOP counters, bytes, cycles or duration)",
                                "none")
    layout = Layout.NCU_DETAILS if Layout.NCU_DETAILS in layouts else Layout.NCU_RAW
    exported = {int(pid): frozenset(group) for pid, group in
                joined.groupby("pid", sort=False)["metric"]}
    return NcuExport(source, layout, _launches(joined, pd.concat(names, ignore_index=True), source),
                     exported, warnings)
