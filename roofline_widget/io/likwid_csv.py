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

This module drives the pass and reads the lines outside the CSV blocks; the
tables are read by :mod:`~roofline_widget.io.csv_rows`, the ``STRUCT,Info``
blocks by :mod:`~roofline_widget.io.csv_struct`, the blocks put together by
:mod:`~roofline_widget.io.csv_blocks`, and the lines where a new run may start
kept by :mod:`~roofline_widget.io.run_marks`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from roofline_widget.io.cells import version_from_threads
from roofline_widget.io.csv_blocks import CsvBlocks
from roofline_widget.io.csv_rows import TABLE_LINE, CsvRowReader
from roofline_widget.io.csv_struct import STRUCT_LINE, StructInfo
from roofline_widget.io.lines import LineWindow, lines_of
from roofline_widget.io.parsed import ParsedLikwid
from roofline_widget.io.run_marks import CPU_FIELDS, RunMarks
from roofline_widget.io.shared_lists import SharedLists
from roofline_widget.model import Layout

__all__ = ["parse_csv"]

#: A CPU header line of likwid-perfctr's text output before the CSV (``CPU name:\t...``).
_TEXT_INFO = re.compile(rf"^({'|'.join(CPU_FIELDS)}):\t(.*)$")


class _CsvReader:
    """The pass over a CSV text: lines outside the blocks here, tables and blocks in
    their own classes; use :func:`parse_csv`."""

    def __init__(self, lines: LineWindow, source: str):
        # a last line without its newline was cut off (LIKWID ends every line):
        # lines.cut_last_line, known once the end is reached
        self.lines = lines
        self.warnings: list[str] = []
        lists = SharedLists(source)
        self.rows = CsvRowReader(lines, lists, self.warnings)
        self.struct = StructInfo(self.rows)
        self.blocks = CsvBlocks(lines, lists, self.warnings)
        self.marks = RunMarks()
        self.text_info: dict[str, str] = {}
        self.mixed_case_stat = False

    def read(self) -> ParsedLikwid:
        index = 0
        while (line := self.lines.get(index)) is not None:
            self.lines.release(index)
            table = TABLE_LINE.match(line)
            if table:
                self.marks.end_context()
                self.mixed_case_stat = self.mixed_case_stat or table["stat"] == "Stat"
                table_read, region_info, index = self.rows.read_table(index, table)
                self.blocks.add(table_read, region_info)
                continue
            struct = STRUCT_LINE.match(line)
            if struct:
                self.marks.end_context()
                index, self.blocks.pending = self.struct.read(index, int(struct["count"]))
                continue
            if line.startswith(("TABLE,", "STRUCT,Info")):
                self.unreadable(index, line)
            else:
                self.other_line(index, line)
            index += 1
        if not self.blocks.blocks:
            raise self.rows.error(None, "likwid-perfctr or likwid-mpirun CSV ('TABLE,...,Group "
                                  "<n> Raw,<GROUP>,<rows>' lines followed by 'Event,Counter,...')",
                                  "no TABLE block")
        return self.result()

    def unreadable(self, index: int, line: str) -> None:
        """A ``TABLE`` or ``STRUCT,Info`` line that does not say what it must: an error (its
        table would be dropped silently), or a warning where the end of the file cut it."""
        if not self.lines.has(index + 1) and self.lines.cut_last_line:
            self.warnings.append(f"{self.rows.source}, line {index + 1}: the file ends inside "
                                 f"line {index + 1} (no newline at its end: the output was cut "
                                 "off); the table it starts is not used")
            return
        raise self.rows.error(index, "a TABLE line 'TABLE,[Region <tag>,]Group <n> Raw|Metric"
                              "[ STAT],<GROUP>,<rows>' or a STRUCT line 'STRUCT,Info,<lines>'",
                              line)

    def other_line(self, index: int, line: str) -> None:
        """A line outside the CSV blocks: a text CPU header, a separator, a command, output."""
        if self.marks.context_left:
            self.marks.context(line)
        text_info = _TEXT_INFO.match(line)
        if text_info:
            field, value = CPU_FIELDS[text_info[1]], text_info[2].strip()
            if not self.blocks.blocks:
                self.text_info.setdefault(field, value)
            self.marks.cpu_header(index, field, value)
            return
        self.marks.other_line(index, line)

    def result(self) -> ParsedLikwid:
        blocks = self.blocks.blocks
        info = {key: self.struct.info.get(key, self.text_info.get(key))
                for key in CPU_FIELDS.values()}
        mpirun = any(t.rank is not None for b in blocks for t in b.threads)
        return ParsedLikwid(blocks=blocks,
                            layout=Layout.MPIRUN_CSV if mpirun else Layout.PERFCTR_CSV,
                            **info, likwid_version=self.version(mpirun), warnings=self.warnings,
                            marks=self.marks.run_marks())

    def version(self, mpirun: bool) -> str | None:
        """The LIKWID version range the layout shows."""
        if self.struct.struct_info_5:
            return "4.0.x"
        if self.mixed_case_stat:
            return "4.1.x"
        labels = [t.label for b in self.blocks.blocks for t in b.threads]
        return version_from_threads(labels) or (">= 4.3" if mpirun else None)


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
        header, version range and warnings; :func:`~roofline_widget.io.parsed.run_from` makes
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
    return _CsvReader(LineWindow(lines), str(source)).read()
