"""Reader for likwid-perfctr and likwid-mpirun CSV output.

Layouts handled (see ``likwid-formats.md`` sections 3, 7 and 8):

* ``likwid-perfctr -O`` captured from stdout: a text header (``CPU name:\\t...``) and the
  application's output precede the CSV;
* ``likwid-perfctr -o file.csv``: CSV only;
* a ``STRUCT,Info,N`` block before every (region, group) block: the CPU header, the same in
  every one; LIKWID 4.0.x prints ``STRUCT,Info,5``, whose ``<gid>,<GROUP>,<region>`` line and
  ``Region Info`` rows tell the region, thread columns, runtime and call count of the next
  ``TABLE`` (:class:`PendingInfo`);
* ``TABLE,Region <tag>,Group <g> Raw,<GROUP>,<n>`` (marker mode) and
  ``TABLE,Group <g> Raw,<GROUP>,<n>`` (wrapper mode, one implicit region);
* ``Raw STAT`` / ``Metric STAT`` tables (``Raw Stat`` / ``Metric Stat`` in 4.1.x), which go
  to :attr:`RegionBlock.stats`;
* likwid-mpirun CSV: the same ``TABLE`` lines without ``STRUCT,Info``, ``host:rank:cpu``
  columns and a ``Region calls,CTR`` row.

A Raw ``TABLE`` starts a block (with the Region Info read before its header, or that of a
4.0.x ``STRUCT,Info,5`` block); the Metric table and the STAT tables of the same (region,
group) join it.  An incomplete table -- fewer rows than declared, or rows that run to the end
of a text without its final newline (LIKWID ends every line: the file was cut off, maybe
inside a number) -- is never used: it is left out with a warning naming the file and the
``TABLE`` line, and so are the STAT tables of its block.  A ``TABLE`` or ``STRUCT,Info`` line
that does not say what it must is an error (its table would be dropped silently).

This module drives the pass and reads the lines outside the tables; the tables are read by
:mod:`~roofline_widget.io.csv_tables`, the lines where a new run may start kept by
:class:`~roofline_widget.io.runs.RunMarks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.blocks import STAT_COLUMNS, RegionBlock, event_names
from roofline_widget.io.cells import SharedLists, parse_cells, version_from_threads
from roofline_widget.io.csv_tables import (
    CALLS_ROW,
    REGION_INFO,
    RUNTIME_ROW,
    TABLE_LINE,
    CsvLines,
    CsvTable,
    CsvTableReader,
    RegionInfo,
    split_cells,
    strip_padding,
)
from roofline_widget.io.lines import Piece, Pieces, read_in_pieces
from roofline_widget.io.parsed import ParsedLikwid
from roofline_widget.io.run_marks import CPU_FIELDS, RunMarks
from roofline_widget.model import WHOLE_RUN_REGION, Layout

__all__ = ["STRUCT_LINE", "PendingInfo", "parse_csv"]

#: The line that opens a ``STRUCT,Info`` block of ``count`` lines.
STRUCT_LINE = re.compile(r"^STRUCT,Info,(?P<count>\d+)[,\s]*$", re.ASCII)
_GROUP_LINE = re.compile(r"^(?P<index>\d+),(?P<group>[^,]+),(?P<region>.*)$", re.ASCII)
#: A CPU header line of likwid-perfctr's text output before the CSV (``CPU name:\t...``).
_TEXT_INFO = re.compile(rf"^({'|'.join(CPU_FIELDS)}):\t(.*)$")
#: The first characters of the lines the pass looks at (and any line with ``likwid-``).
_LOOKED_AT = np.zeros(256, dtype=bool)
_LOOKED_AT[np.frombuffer(b"TSC#=*~-", dtype=np.uint8)] = True
_COMMAND = re.compile(rb"likwid-")


@dataclass
class PendingInfo:
    """What a LIKWID 4.0.x ``STRUCT,Info,5`` block said about the next block."""

    group_index: int
    group: str
    region: str
    info: RegionInfo = field(default_factory=RegionInfo)


def parse_csv(text: str | Pieces, source: str) -> ParsedLikwid:
    """Parse likwid-perfctr / likwid-mpirun CSV output.

    Parameters
    ----------
    text : str or Pieces
        The whole decoded output (a text header and application output before the CSV are
        tolerated), or its pieces (a file read in pieces: the parser holds a piece at a time).
    source : str
        The file name, for error messages.

    Returns
    -------
    ParsedLikwid
        The blocks, layout (``"perfctr-csv"`` or ``"mpirun-csv"``), CPU header, version range
        and warnings; :func:`~roofline_widget.io.parsed.run_from` makes the run of it.

    Raises
    ------
    LikwidFormatError
        With the 1-based line for a row with too few cells, a non-numeric cell, a TABLE
        without its header line, a file ending inside a table before any row, a Metric table
        whose thread columns differ from its Raw table's, or a text without any TABLE block.

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
    pieces = Pieces.of_text(text) if isinstance(text, str) else text
    reader = _CsvReader(str(source), pieces)
    read_in_pieces(pieces, reader.read)
    return reader.result()


class _CsvReader:
    """The pass over a CSV text: lines outside the tables here; use :func:`parse_csv`."""

    def __init__(self, source: str, pieces: Pieces):
        self.source = source
        self.pieces = pieces  # its cut_last_line is known once the last piece is read
        self.warnings: list[str] = []
        self.lists = SharedLists(source)
        self.tables = CsvTableReader(self.lists)
        self.marks = RunMarks()
        self.info: dict[str, str] = {}       # the CPU header of the STRUCT,Info blocks
        self.text_info: dict[str, str] = {}  # ... of the text header before the CSV
        self.struct_info_5 = False
        self.mixed_case_stat = False
        self.blocks: list[RegionBlock] = []
        self.pending: PendingInfo | None = None
        self.dropped: set[tuple] = set()  # (region, group index, group) of incomplete tables

    def read(self, piece: Piece) -> int:
        """Read the lines of ``piece`` it can finish; return how many."""
        lines = CsvLines(piece, self.pieces.cut_last_line)
        looked_at = np.flatnonzero(_LOOKED_AT[piece.first_bytes()])
        commands = [match.start() for match in _COMMAND.finditer(piece.data)]
        if commands:
            looked_at = np.union1d(looked_at, np.searchsorted(piece.ends, commands))
        i = 0
        for k in looked_at.tolist():
            if k < i:
                continue
            self._context(piece, i, k)
            try:
                i = self._line(lines, piece.first + k, piece.line(k)) - piece.first
            except EOFError:  # read again with the next piece
                return k
        self._context(piece, i, piece.count)
        return piece.count

    def _context(self, piece: Piece, i: int, stop: int) -> None:
        """Lines ``i`` to ``stop - 1``: output, maybe after a run mark."""
        for k in range(i, stop):
            if not self.marks.context_left:
                return
            self.marks.context(piece.line(k))

    def _line(self, lines: CsvLines, index: int, line: str) -> int:
        """Read line ``index`` (a TABLE or STRUCT line, a CPU line, a mark); the next index."""
        table = TABLE_LINE.match(line)
        if table:
            read, region_info, end = self.tables.read_table(lines, index, table)
            self.marks.end_context()
            self.mixed_case_stat = self.mixed_case_stat or table["stat"] == "Stat"
            self.warnings += [*(region_info.notes if region_info else ()), *read.notes]
            self.add(read, region_info)
            return end
        struct = STRUCT_LINE.match(line)
        if struct:
            end = self.read_struct(lines, index, int(struct["count"]))
            self.marks.end_context()
            return end
        if line.startswith(("TABLE,", "STRUCT,Info")):
            if not lines.has(index + 1) and lines.cut_last_line:
                self.warnings.append(f"{self.source}, line {index + 1}: the file ends inside "
                                     f"line {index + 1} (no newline at its end: the output was "
                                     "cut off); the table it starts is not used")
                return index + 1
            raise self.tables.error(index, "a TABLE line 'TABLE,[Region <tag>,]Group <n> Raw|"
                                    "Metric[ STAT],<GROUP>,<rows>' or a STRUCT line 'STRUCT,"
                                    "Info,<lines>'", line)
        if self.marks.context_left:
            self.marks.context(line)
        text_info = _TEXT_INFO.match(line)
        if text_info:
            key, value = CPU_FIELDS[text_info[1]], text_info[2].strip()
            if not self.blocks:
                self.text_info.setdefault(key, value)
            self.marks.cpu_header(index, key, value)
        else:
            self.marks.other_line(index, line)
        return index + 1

    def result(self) -> ParsedLikwid:
        if not self.blocks:
            raise self.tables.error(None, "likwid-perfctr or likwid-mpirun CSV ('TABLE,...,Group "
                                    "<n> Raw,<GROUP>,<rows>' lines followed by 'Event,Counter,"
                                    "...')", "no TABLE block")
        info = {key: self.info.get(key, self.text_info.get(key)) for key in CPU_FIELDS.values()}
        mpirun = any(t.rank is not None for b in self.blocks for t in b.threads)
        if self.struct_info_5:
            version: str | None = "4.0.x"
        elif self.mixed_case_stat:
            version = "4.1.x"
        else:
            labels = [t.label for b in self.blocks for t in b.threads]
            version = version_from_threads(labels) or (">= 4.3" if mpirun else None)
        return ParsedLikwid(blocks=self.blocks,
                            layout=Layout.MPIRUN_CSV if mpirun else Layout.PERFCTR_CSV, **info,
                            likwid_version=version, warnings=[*self.warnings, *self.pieces.notes],
                            marks=self.marks.run_marks())

    # ------------------------------------------------------------ STRUCT,Info blocks
    def read_struct(self, lines: CsvLines, index: int, count: int) -> int:
        """Read the block of the ``STRUCT,Info,<count>`` line ``index``; the index after it."""
        body = []
        end = index + 1
        while end <= index + count and (line := lines.get(end)) is not None:
            if line.startswith(("TABLE,", "STRUCT,Info")):
                break
            body.append(line)
            end += 1
        self.struct_info_5 = self.struct_info_5 or count == 5
        pending = None
        for k, line in enumerate(body, start=index + 1):
            cells = strip_padding(split_cells(line))
            key = cells[0] if cells else ""
            if key.rstrip(":") in CPU_FIELDS and len(cells) >= 2:
                self.set_info(key.rstrip(":"), ",".join(cells[1:]), k)
            elif key == REGION_INFO and pending is not None:
                pending.info.threads = self.lists.threads(cells[1:], k + 1)
            elif key in (RUNTIME_ROW, CALLS_ROW) and pending is not None:
                values = self.tables.fit(lines, cells, 1 + len(pending.info.threads), k,
                                         f"a {key!r} row")
                parsed = parse_cells(values[1:], self.source, k + 1, f"values of {key!r}")
                if key == RUNTIME_ROW:
                    pending.info.runtime = parsed
                else:
                    pending.info.call_count = parsed
            elif (match := _GROUP_LINE.match(line)) is not None:
                pending = PendingInfo(int(match["index"]), match["group"],
                                      match["region"].rstrip(","))
            else:
                self.warnings.append(f"{self.source}, line {k + 1}: ignored an unrecognised "
                                     f"STRUCT,Info line {line[:60]!r}")
        self.pending = pending
        return end

    def set_info(self, label: str, value: str, index: int) -> None:
        """Keep the CPU header line ``label`` (``"CPU name"``) of line ``index`` (0-based)."""
        key, value = CPU_FIELDS[label], value.strip()
        if key == "cpu_clock" and value.endswith(" MHz"):
            # LIKWID 4.0.x prints clock * 1e-9 (a value in GHz) followed by "MHz".
            value = value[:-4] + " GHz"
        previous = self.info.setdefault(key, value)
        # Clocks legitimately differ in precision between the info blocks.
        if previous != value and key != "cpu_clock":
            self.warnings.append(f"{self.source}, line {index + 1}: {label} {value!r} differs "
                                 f"from the earlier {previous!r}; keeping the first")

    # ------------------------------------------------------------ blocks, table by table
    def _error(self, index: int, expected: str, found: str | None = None) -> LikwidFormatError:
        return LikwidFormatError(self.source, index + 1, expected, found)

    def add(self, table: CsvTable, region_info: RegionInfo | None) -> None:
        """Add a table to the blocks (see the module docstring).

        Raises
        ------
        LikwidFormatError
            For thread columns that differ from the Region Info's or the Raw table's, a STAT
            table before its table or without the columns Sum, Min, Max and Avg.
        """
        if table.incomplete:
            region = self.region_of(table)
            self.warnings.append(f"{self.source}, line {table.line}: {table.incomplete}; the "
                                 f"{table.kind}{' STAT' if table.stat else ''} table of region "
                                 f"{region!r}, group {table.group_index} is incomplete and not "
                                 "used")
            self.dropped.add((region, table.group_index, table.group))
        elif table.stat:
            self._add_stats(table)
        elif table.kind == "Raw":
            self._add_raw(table, region_info)
        else:
            self._add_metrics(table)

    def region_of(self, table: CsvTable) -> str:
        """The region a table belongs to (its ``TABLE`` line's, a 4.0.x ``STRUCT,Info`` block's,
        or the whole run)."""
        if table.region is not None:
            return table.region
        pending = self.pending
        if pending is not None and pending.group_index == table.group_index:
            return pending.region
        return WHOLE_RUN_REGION

    def _current_block(self, table: CsvTable) -> RegionBlock | None:
        block = self.blocks[-1] if self.blocks else None
        if block is not None and (block.region, block.group_index, block.group) == (
                self.region_of(table), table.group_index, table.group):
            return block
        return None

    def _add_raw(self, table: CsvTable, region_info: RegionInfo | None) -> None:
        threads = self.lists.threads(table.columns, table.header_index + 1)
        pending = self.pending
        if region_info is None and pending is not None and table.region is None \
                and pending.group_index == table.group_index and pending.info.threads:
            region_info = pending.info
        if region_info is not None and region_info.threads is not threads and \
                [t.label for t in region_info.threads] != [t.label for t in threads]:
            raise self._error(table.header_index, "the same thread columns as the Region Info "
                              "table", ",".join(table.columns))
        block = RegionBlock(self.region_of(table), table.group_index, table.group, table.line,
                            threads)
        if region_info is not None:
            block.runtime, block.call_count = region_info.runtime, region_info.call_count
        kept = []
        for k, (event, counter) in enumerate(table.labels):
            if counter == "CTR" and event == "Region calls":
                block.call_count = table.values[k]
            elif counter == "TSC" and event.startswith("Runtime"):
                if block.runtime is None:
                    block.runtime = table.values[k]
            else:
                kept.append(k)
        block.event_names = self.lists.names(event_names(
            [table.labels[k][0] for k in kept], [table.labels[k][1] for k in kept]))
        block.events = table.values if len(kept) == len(table.labels) else table.values[kept]
        self.blocks.append(block)

    def _add_metrics(self, table: CsvTable) -> None:
        threads = self.lists.threads(table.columns, table.header_index + 1)
        block = self._current_block(table)
        if block is None:
            block = RegionBlock(self.region_of(table), table.group_index, table.group, table.line,
                                threads)
            self.blocks.append(block)
        elif block.threads is not threads and \
                [t.label for t in block.threads] != [t.label for t in threads]:
            raise self._error(table.header_index, f"the thread columns of the Raw table on line "
                              f"{block.line} ({', '.join(t.label for t in block.threads)})",
                              ",".join(table.columns))
        block.metric_names = self.lists.names([label[0] for label in table.labels])
        block.metrics = table.values

    def _add_stats(self, table: CsvTable) -> None:
        block = self._current_block(table)
        region = self.region_of(table)
        if block is None and (region, table.group_index, table.group) in self.dropped:
            self.warnings.append(f"{self.source}, line {table.line}: STAT table of an "
                                 f"incomplete {table.kind} table not used")
            return
        if block is None:
            raise self._error(table.line - 1, f"a {table.kind} table of region {region!r}, group "
                              f"{table.group_index} before its STAT table", table.text)
        position = {name.capitalize(): i for i, name in enumerate(table.columns)}
        if any(c not in position for c in STAT_COLUMNS):
            raise self._error(table.header_index, "STAT columns Sum, Min, Max, Avg",
                              ",".join(table.columns))
        names = [_without_stat(label[0]) for label in table.labels]
        if table.kind == "Raw":
            names = event_names(names, [label[1] for label in table.labels])
        block.stats.add("event" if table.kind == "Raw" else "metric", self.lists.names(names),
                        table.values[:, [position[c] for c in STAT_COLUMNS]])


def _without_stat(name: str) -> str:
    """``name`` without a trailing ``STAT`` (any case) after blanks (``"CPI STAT"`` -> ``"CPI"``)."""
    head = name[:-4]
    if name[-4:].upper() == "STAT" and head != head.rstrip():
        return head.rstrip()
    return name
