"""Reader for likwid-perfctr and likwid-mpirun CSV output.

Layouts handled (see ``likwid-formats.md`` sections 3, 7 and 8):

* ``likwid-perfctr -O`` captured from stdout: a text header (``CPU name:\\t...``)
  and the application's output precede the CSV;
* ``likwid-perfctr -o file.csv``: CSV only;
* a ``STRUCT,Info,N`` block before every (region, group) block, including the
  LIKWID 4.0.x variant ``STRUCT,Info,5`` whose ``<gid>,<GROUP>,<region>`` line
  and ``Region Info`` rows live inside the info block;
* ``TABLE,Region <tag>,Group <g> Raw,<GROUP>,<n>`` (marker mode) and
  ``TABLE,Group <g> Raw,<GROUP>,<n>`` (wrapper mode, one implicit region);
* ``Raw STAT`` / ``Metric STAT`` tables (``Raw Stat`` / ``Metric Stat`` in
  4.1.x), which go to :attr:`RegionBlock.stats`;
* likwid-mpirun CSV: the same ``TABLE`` lines without ``STRUCT,Info``,
  ``host:rank:cpu`` columns and a ``Region calls,CTR`` row.

The row count printed in a ``TABLE`` line excludes the header and the
Region Info rows, so tables are parsed by recognising their header lines
(``Region Info,``, ``Event,Counter,``, ``Metric,``); the count decides
whether a line that does not parse after the last declared row ends the table
(it is then text that follows the CSV) or is an error, and whether a table is
complete.  An incomplete table -- fewer rows than declared, or rows that run
to the end of a text without its final newline (LIKWID ends every line: the
file was cut off, maybe inside a number) -- is never used: it is dropped with
a warning naming the file and the ``TABLE`` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.lines import LineWindow, lines_of
from roofline_widget.io.parsed import (
    STAT_COLUMNS,
    ParsedLikwid,
    RegionBlock,
    parse_cells,
    thread_columns,
    version_from_threads,
)
from roofline_widget.io.runs import CONTEXT_LINES, RunMark, command_of, is_context, separator_text
from roofline_widget.model import WHOLE_RUN_REGION, Layout

__all__ = ["parse_csv"]

_TABLE = re.compile(
    r"^TABLE,(?:Region (?P<region>.*),)?Group (?P<index>\d+) (?P<kind>Raw|Metric)"
    r"(?: (?P<stat>STAT|Stat))?,(?P<group>[^,]*),(?P<count>\d+)[,\s]*$", re.ASCII)
_STRUCT = re.compile(r"^STRUCT,Info,(?P<count>\d+)[,\s]*$", re.ASCII)
_GROUP_LINE = re.compile(r"^(?P<index>\d+),(?P<group>[^,]+),(?P<region>.*?),*$", re.ASCII)
_STAT_SUFFIX = re.compile(r"\s+STAT$", re.IGNORECASE)
_TEXT_INFO = re.compile(r"^(CPU name|CPU type|CPU clock):\t(.*)$")
_INFO_KEYS = {"CPU name": "cpu_name", "CPU type": "cpu_type", "CPU clock": "cpu_clock"}

_REGION_INFO = "Region Info"
_RUNTIME_ROW = "RDTSC Runtime [s]"
_CALLS_ROW = "call count"


@dataclass
class _Table:
    """One ``TABLE`` block as read: header fields, columns and rows."""

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


@dataclass
class _PendingInfo:
    """What a LIKWID 4.0.x ``STRUCT,Info,5`` block said about the next block."""

    group_index: int
    group: str
    region: str
    threads: list = field(default_factory=list)
    runtime: np.ndarray | None = None
    call_count: np.ndarray | None = None


def _cells(line: str) -> list[str]:
    if "\t" in line:  # a tab inside a name is a blank, as in the text tables
        line = line.replace("\t", " ")
    return [cell.strip() for cell in line.split(",")]


def _strip_padding(cells: list[str]) -> list[str]:
    end = len(cells)
    while end > 0 and not cells[end - 1]:
        end -= 1
    return cells[:end]


def _is_boundary(line: str) -> bool:
    """Whether a line ends the rows of a table (next block, blank, not CSV)."""
    return (not line.strip() or "," not in line
            or line.startswith(("TABLE,", "STRUCT,Info")))


class _CsvParser:
    """State of one pass over a CSV text; use :func:`parse_csv`."""

    def __init__(self, lines: LineWindow, source: str):
        # a last line without its newline was cut off (LIKWID ends every line):
        # lines.cut_last_line, known once the end is reached
        self.lines = lines
        self.source = source
        self.blocks: list[RegionBlock] = []
        self.info: dict[str, str] = {}
        self.text_info: dict[str, str] = {}
        self.warnings: list[str] = []
        self.pending: _PendingInfo | None = None
        self.mixed_case_stat = False
        self.struct_info_5 = False
        self.dropped: set[tuple] = set()   # (region, group index, group) of incomplete tables
        self.marks: list[tuple[int, str, str, list[str]]] = []  # (line, kind, text, context)
        self.name_lists: dict[tuple, list[str]] = {}
        self.thread_lists: dict[tuple, list] = {}
        self.context_left = 0  # lines of other output still kept after the last mark

    # ------------------------------------------------------------ errors
    def error(self, index: int | None, expected: str, found: str | None = None):
        line = None if index is None else index + 1
        return LikwidFormatError(self.source, line, expected, found)

    # ------------------------------------------------------------ driver
    def run(self) -> ParsedLikwid:
        index = 0
        while (line := self.lines.get(index)) is not None:
            self.lines.release(index)
            table = _TABLE.match(line)
            if table:
                self.context_left = 0
                index = self.read_table(index, table)
                continue
            struct = _STRUCT.match(line)
            if struct:
                self.context_left = 0
                index = self.read_struct(index, int(struct["count"]))
                continue
            self.other_line(index, line)
            index += 1
        if not self.blocks:
            raise self.error(None, "likwid-perfctr or likwid-mpirun CSV ('TABLE,...,Group <n> Raw,"
                             "<GROUP>,<rows>' lines followed by 'Event,Counter,...')",
                             "no TABLE block")
        return self.result()

    def other_line(self, index: int, line: str) -> None:
        """A line outside the CSV blocks: a text CPU header, a separator, a command, output."""
        if self.context_left and is_context(line):
            self.marks[-1][3].append(line.strip())
            self.context_left -= 1
        text_info = _TEXT_INFO.match(line)
        if text_info:
            value = text_info[2].strip()
            if not self.blocks:
                self.text_info.setdefault(_INFO_KEYS[text_info[1]], value)
            if text_info[1] == "CPU name":
                self.mark(index, "header", value)
            return
        separator = separator_text(line) if line[:1] in "#=*~-" else None
        if separator is not None:
            self.mark(index, "separator", separator)
        command = command_of(line)
        if command is not None:
            self.mark(index, "command", command)

    def mark(self, index: int, kind: str, text: str) -> None:
        """A line where a new measurement may start (see :mod:`roofline_widget.io.runs`)."""
        self.marks.append((index + 1, kind, text, []))
        self.context_left = CONTEXT_LINES

    def result(self) -> ParsedLikwid:
        info = {key: self.info.get(key, self.text_info.get(key))
                for key in ("cpu_name", "cpu_type", "cpu_clock")}
        mpirun = any(t.rank is not None for b in self.blocks for t in b.threads)
        marks = [RunMark(line, kind, text, tuple(context))
                 for line, kind, text, context in self.marks]
        return ParsedLikwid(blocks=self.blocks,
                            layout=Layout.MPIRUN_CSV if mpirun else Layout.PERFCTR_CSV,
                            **info, likwid_version=self.version(mpirun), warnings=self.warnings,
                            marks=marks)

    def version(self, mpirun: bool) -> str | None:
        if self.struct_info_5:
            return "4.0.x"
        if self.mixed_case_stat:
            return "4.1.x"
        labels = [t.label for b in self.blocks for t in b.threads]
        return version_from_threads(labels) or (">= 4.3" if mpirun else None)

    # ------------------------------------------------------------ STRUCT,Info
    def read_struct(self, index: int, count: int) -> int:
        """Read a ``STRUCT,Info,N`` block: CPU info, and 4.0.x region info."""
        self.struct_info_5 = self.struct_info_5 or count == 5
        pending = None
        end = index + 1
        while end <= index + count and (line := self.lines.get(end)) is not None:
            if line.startswith(("TABLE,", "STRUCT,Info")):
                break
            cells = _strip_padding(_cells(line))
            key = cells[0] if cells else ""
            if key.rstrip(":") in _INFO_KEYS and len(cells) >= 2:
                self.set_info(key.rstrip(":"), ",".join(cells[1:]), end)
            elif key == _REGION_INFO and pending is not None:
                pending.threads = self.thread_columns(cells[1:], end)
            elif key in (_RUNTIME_ROW, _CALLS_ROW) and pending is not None:
                values = self.fit(cells, 1 + len(pending.threads), end, f"a {key!r} row")
                parsed = parse_cells(values[1:], self.source, end + 1, f"values of {key!r}")
                if key == _RUNTIME_ROW:
                    pending.runtime = parsed
                else:
                    pending.call_count = parsed
            elif (match := _GROUP_LINE.match(line)) is not None:
                pending = _PendingInfo(int(match["index"]), match["group"], match["region"])
            else:
                self.warnings.append(f"{self.source}, line {end + 1}: ignored an unrecognised "
                                     f"STRUCT,Info line {line[:60]!r}")
            end += 1
        self.pending = pending
        return end

    def set_info(self, label: str, value: str, index: int) -> None:
        key, value = _INFO_KEYS[label], value.strip()
        if key == "cpu_clock" and value.endswith(" MHz"):
            # LIKWID 4.0.x prints clock * 1e-9 (a value in GHz) followed by "MHz".
            value = value[:-4] + " GHz"
        previous = self.info.setdefault(key, value)
        # Clocks legitimately differ in precision between the info blocks.
        if previous != value and key != "cpu_clock":
            self.warnings.append(f"{self.source}, line {index + 1}: {label} {value!r} differs "
                                 f"from the earlier {previous!r}; keeping the first")

    # ------------------------------------------------------------ tables
    def read_table(self, index: int, match: re.Match) -> int:
        """Read one ``TABLE`` block and attach it to the current region block."""
        kind, stat = match["kind"], match["stat"] is not None
        self.mixed_case_stat = self.mixed_case_stat or match["stat"] == "Stat"
        cursor = index + 1
        region_info = None
        if kind == "Raw" and not stat and self.line_starts(cursor, _REGION_INFO + ","):
            region_info, cursor = self.read_region_info(cursor)
        header = "Event,Counter," if kind == "Raw" else "Metric,"
        if not self.lines.has(cursor):
            raise self.error(cursor - 1, f"the header line {header!r} of the TABLE on line "
                             f"{index + 1}", "the end of the file")
        if not self.line_starts(cursor, header):
            raise self.error(cursor, f"the header line {header!r} of the TABLE on line {index + 1}",
                             self.lines[cursor])
        n_labels = 2 if kind == "Raw" else 1
        columns = _strip_padding(_cells(self.lines[cursor]))[n_labels:]
        table = _Table(index + 1, match["region"], int(match["index"]), kind, stat,
                       match["group"], columns, cursor)
        cursor = self.read_rows(table, cursor + 1, n_labels, int(match["count"]))
        if table.incomplete:
            self.warnings.append(f"{self.source}, line {table.line}: {table.incomplete}; "
                                 f"the {table.kind}{' STAT' if stat else ''} table of region "
                                 f"{self.region_of(table)!r}, group {table.group_index} is "
                                 "incomplete and not used")
            self.dropped.add((self.region_of(table), table.group_index, table.group))
        elif stat:
            self.add_stats(table, index)
        elif kind == "Raw":
            self.add_raw(table, region_info)
        else:
            self.add_metrics(table)
        return cursor

    def line_starts(self, index: int, prefix: str) -> bool:
        line = self.lines.get(index)
        return line is not None and line.startswith(prefix)

    def read_region_info(self, index: int):
        """Read the ``Region Info`` header and rows that follow a Raw TABLE line."""
        threads = self.thread_columns(_strip_padding(_cells(self.lines[index]))[1:], index)
        info: dict = {"threads": threads, "runtime": None, "call_count": None}
        cursor = index + 1
        while (line := self.lines.get(cursor)) is not None and \
                not line.startswith("Event,Counter"):
            if _is_boundary(line):
                break
            cells = self.fit(_cells(line), 1 + len(threads), cursor, "a Region Info row")
            values = parse_cells(cells[1:], self.source, cursor + 1, f"values of {cells[0]!r}")
            if cells[0] == _RUNTIME_ROW:
                info["runtime"] = values
            elif cells[0] == _CALLS_ROW:
                info["call_count"] = values
            else:
                self.warnings.append(f"{self.source}, line {cursor + 1}: ignored Region Info "
                                     f"row {cells[0]!r}")
            cursor += 1
        return info, cursor

    def read_rows(self, table: _Table, index: int, n_labels: int, declared: int) -> int:
        """Read data rows until the next block; return the index after them."""
        width = n_labels + len(table.columns)
        cursor = index
        while (line := self.lines.get(cursor)) is not None and not _is_boundary(line):
            try:
                cells = self.fit(_cells(line), width, cursor,
                                 f"a row of the {table.kind} table of line {table.line}")
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

    def fit(self, cells: list[str], width: int, index: int, what: str) -> list[str]:
        """Drop trailing padding; join surplus leading cells (a comma in a name)."""
        while len(cells) > width and not cells[-1]:
            cells = cells[:-1]
        if len(cells) < width:
            raise self.error(index, f"{what} with {width} cells", self.lines[index])
        surplus = len(cells) - width
        if surplus:
            cells = [",".join(cells[:surplus + 1]), *cells[surplus + 1:]]
        return cells

    def thread_columns(self, headers: list[str], index: int) -> list:
        """The thread columns of a header (parsed once per distinct header)."""
        key = tuple(headers)
        columns = self.thread_lists.get(key)
        if columns is None:
            columns = self.thread_lists[key] = thread_columns(headers, self.source, index + 1)
        return list(columns)

    # ------------------------------------------------------------ blocks
    def current_block(self, table: _Table) -> RegionBlock | None:
        if not self.blocks:
            return None
        block = self.blocks[-1]
        if (block.region, block.group_index, block.group) == (
                self.region_of(table), table.group_index, table.group):
            return block
        return None

    def region_of(self, table: _Table) -> str:
        if table.region is not None:
            return table.region
        pending = self.pending
        if pending is not None and pending.group_index == table.group_index:
            return pending.region
        return WHOLE_RUN_REGION

    def add_raw(self, table: _Table, region_info: dict | None) -> None:
        threads = self.thread_columns(table.columns, table.header_index)
        pending = self.pending
        if region_info is None and pending is not None and table.region is None \
                and pending.group_index == table.group_index and pending.threads:
            region_info = {"threads": pending.threads, "runtime": pending.runtime,
                           "call_count": pending.call_count}
        if region_info is not None and [t.label for t in region_info["threads"]] != \
                [t.label for t in threads]:
            raise self.error(table.header_index, "the same thread columns as the Region Info table",
                             ",".join(table.columns))
        block = RegionBlock(self.region_of(table), table.group_index, table.group,
                            table.line, threads)
        if region_info is not None:
            block.runtime, block.call_count = region_info["runtime"], region_info["call_count"]
        names, rows = [], []
        for (event, counter), values in zip(table.labels, table.values):
            if counter == "CTR" and event == "Region calls":
                block.call_count = values
            elif counter == "TSC" and event.startswith("Runtime"):
                if block.runtime is None:
                    block.runtime = values
            else:
                names.append(f"{event}:{counter}")
                rows.append(values)
        block.event_names = self.shared(names)
        block.events = np.array(rows).reshape(len(rows), len(threads))
        self.blocks.append(block)

    def add_metrics(self, table: _Table) -> None:
        threads = self.thread_columns(table.columns, table.header_index)
        block = self.current_block(table)
        if block is None:
            block = RegionBlock(self.region_of(table), table.group_index, table.group,
                                table.line, threads)
            self.blocks.append(block)
        elif [t.label for t in block.threads] != [t.label for t in threads]:
            raise self.error(table.header_index, f"the thread columns of the Raw table on line "
                             f"{block.line} ({', '.join(t.label for t in block.threads)})",
                             ",".join(table.columns))
        block.metric_names = self.shared([label[0] for label in table.labels])
        block.metrics = np.array(table.values).reshape(len(table.labels), len(threads))

    def add_stats(self, table: _Table, index: int) -> None:
        block = self.current_block(table)
        if block is None and (self.region_of(table), table.group_index, table.group) in self.dropped:
            self.warnings.append(f"{self.source}, line {index + 1}: STAT table of an incomplete "
                                 f"{table.kind} table not used")
            return
        if block is None:
            raise self.error(index, f"a {table.kind} table of region {self.region_of(table)!r}, "
                             f"group {table.group_index} before its STAT table", self.lines[index])
        position = {name.capitalize(): i for i, name in enumerate(table.columns)}
        missing = [c for c in STAT_COLUMNS if c not in position]
        if missing:
            raise self.error(table.header_index, "STAT columns Sum, Min, Max, Avg", ",".join(table.columns))
        kind = "event" if table.kind == "Raw" else "metric"
        picks = [position[c] for c in STAT_COLUMNS]
        names = [_STAT_SUFFIX.sub("", label[0]) for label in table.labels]
        if kind == "event":
            names = [f"{name}:{label[1]}" for name, label in zip(names, table.labels)]
        block.stats.add(kind, self.shared(names), np.array(table.values)[:, picks])

    def shared(self, names: list[str]) -> list[str]:
        """One list (and its strings) for every block that prints these names: the blocks
        of a large file take the memory of their numbers, not of their names."""
        return self.name_lists.setdefault(tuple(names), names)


def parse_csv(text: str | Iterable[str], source: str) -> ParsedLikwid:
    """Parse likwid-perfctr / likwid-mpirun CSV output.

    Parameters
    ----------
    text : str or iterable of str
        The whole decoded output (a text header and application output
        before the CSV are tolerated), or its lines without line breaks (a
        :class:`~roofline_widget.io.lines.TextLines` of a file read in
        pieces: the parser holds one table at a time).
    source : str
        The file name, for error messages.

    Returns
    -------
    ParsedLikwid
        The blocks, layout (``"perfctr-csv"`` or ``"mpirun-csv"``), CPU
        header, version range and warnings; :func:`~.core.run_from` makes
        the run of it.

    Raises
    ------
    LikwidFormatError
        With the 1-based line for a row with too few cells, a non-numeric
        cell, a TABLE without its header line, a file ending inside a table
        before any row, a Metric table whose thread columns differ from its
        Raw table's, or a text without any TABLE block.

    Examples
    --------
    >>> text = "\\n".join([
    ...     "TABLE,Group 1 Raw,CLOCK,1",
    ...     "Event,Counter,HWThread 0",
    ...     "INSTR_RETIRED_ANY,FIXC0,1000",
    ...     "TABLE,Group 1 Metric,CLOCK,1",
    ...     "Metric,HWThread 0",
    ...     "CPI,0.5", ""])
    >>> parsed = parse_csv(text, "run.csv")
    >>> block = parsed.blocks[0]
    >>> block.region, block.event_names, block.metrics.tolist()
    ('(whole run)', ['INSTR_RETIRED_ANY:FIXC0'], [[0.5]])
    """
    lines = lines_of(text) if isinstance(text, str) else text
    return _CsvParser(LineWindow(lines), str(source)).run()
