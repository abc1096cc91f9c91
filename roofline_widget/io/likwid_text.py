"""Reader for the ASCII-table output of likwid-perfctr and likwid-mpirun.

One pass over the text, a piece at a time, finds block headers and ``+---+`` tables;
everything else (application output, ``INFO:``/``WARN:`` lines, likwid-bench output, several
runs concatenated in one slurm log) is passed over.  Layouts read:

* LIKWID 3.x: ``=====`` / ``Region: <tag> `` / ``=====``, ``core N`` columns, Event table
  without a Counter column, STAT columns ``Sum | Max | Min | Avg``;
* LIKWID 4.0.x: 80 ``=`` / ``Group 1 L3: Region listappend`` / 80 ``=``;
* LIKWID 4.1 to 5.x: ``Region <tag>, Group <n>: <GROUP>`` (marker mode) or ``Group <n>:
  <GROUP>`` (wrapper mode), ``Core N`` / ``HWThread N`` / ``GPU N`` columns, with or without
  blank lines and repeated CPU headers;
* likwid-mpirun: ``Region: <tag>`` and ``Group: <n>`` lines, ``host:rank:cpu`` columns, a
  ``Region calls | CTR`` row and ``%ile`` STAT columns.

This module reads the header lines and drives the pass: only the lines that may matter are
looked at (a table border, a header, a CPU line, a separator, a command line: found with numpy
for the whole piece), the tables are read by :mod:`~roofline_widget.io.text_tables`, put
together into region blocks by :class:`~roofline_widget.io.blocks.TextBlocks`, and the lines
where a new run may start kept by :class:`~roofline_widget.io.runs.RunMarks`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from roofline_widget.io.blocks import TextBlocks
from roofline_widget.io.cells import SharedLists
from roofline_widget.io.lines import Piece, Pieces, read_in_pieces
from roofline_widget.io.parsed import ParsedLikwid
from roofline_widget.io.run_marks import CPU_FIELDS, RunMarks
from roofline_widget.io.text_tables import TableReader, read_tables
from roofline_widget.model import WHOLE_RUN_REGION, Layout

__all__ = ["CpuHeader", "cpu_header", "cpu_line", "parse_text"]

_REGION_41 = re.compile(r"Region (?P<tag>.*), Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_REGION_40 = re.compile(r"Group (?P<gid>\d+) (?P<group>\S+): Region (?P<tag>.*)$", re.ASCII)
_GROUP_WRAPPER = re.compile(r"Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_GROUP_MPIRUN = re.compile(r"Group: (?P<gid>\d+)\s*$", re.ASCII)
_MEASURING_3X = re.compile(r"Measuring group (?P<group>\S+)")
#: What ``\s`` is under ``re.ASCII``: the blanks a 4.0 region header may end with.
_ASCII_BLANKS = " \t\n\r\x0b\x0c"
#: The first characters of the lines the pass looks at: table borders, headers, CPU lines,
#: separators (and any line with ``likwid-`` in it).
_LOOKED_AT = np.zeros(256, dtype=bool)
_LOOKED_AT[np.frombuffer(b"+RGCM#=*~-", dtype=np.uint8)] = True
_COMMAND = re.compile(rb"likwid-")
#: ``"CPU name:"`` -> ``"cpu_name"`` (the line's first 9 characters, 10 for ``CPU clock:``).
_CPU_PREFIXES = {f"{name}:": field for name, field in CPU_FIELDS.items()}
#: The most CPU lines of a header read at once (LIKWID prints 3).
_HEADER_LINES = 8


def cpu_line(line: str) -> tuple[str, str] | None:
    """``("cpu_name", value)`` (``cpu_type``, ``cpu_clock``) of a LIKWID CPU header line, else None."""
    prefix = line[:10] if line.startswith("CPU clock:") else line[:9]
    field = _CPU_PREFIXES.get(prefix)
    return None if field is None else (field, line.split(":", 1)[1].strip())


def cpu_header(text: str) -> dict[str, str]:
    """The first ``CPU name:``, ``CPU type:`` and ``CPU clock:`` values of a LIKWID output.

    Examples
    --------
    >>> cpu_header("CPU name:\\tAMD EPYC 7763 64-Core Processor   \\nCPU type:\\tAMD K19 (Zen3)")
    {'cpu_name': 'AMD EPYC 7763 64-Core Processor', 'cpu_type': 'AMD K19 (Zen3)'}
    """
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("CPU "):
            pair = cpu_line(line)
            if pair is not None:
                found.setdefault(*pair)
    return found


def parse_text(text: str | Pieces, source: str) -> ParsedLikwid:
    """Parse likwid-perfctr or likwid-mpirun text output.

    Parameters
    ----------
    text : str or Pieces
        The whole decoded output, or its pieces (a file read in pieces: the parser holds a
        piece at a time).
    source : str
        Name of the file, for error messages.

    Returns
    -------
    ParsedLikwid
        The blocks, layout (``"perfctr-text"`` or ``"mpirun-text"``), CPU header, version
        range and warnings; :func:`~roofline_widget.io.parsed.run_from` makes the run of it.

    Raises
    ------
    LikwidFormatError
        With the 1-based line for a row with the wrong number of cells, a table cut off by
        the end of the file, a region header without tables, a cell that is not a number, or
        a Metric table whose thread columns differ from the Event table's.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> text = open(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")).read()
    >>> parsed = parse_text(text, "perfctr.out")
    >>> [(b.region, b.group, len(b.threads)) for b in parsed.blocks]
    [('saxpy', 'FLOPS_DP', 1)]
    >>> parsed.likwid_version
    '>= 5.1'
    """
    pieces = Pieces.of_text(text) if isinstance(text, str) else text
    reader = _TextReader(str(source))
    read_in_pieces(pieces, reader.read)
    return reader.result(pieces.notes)


class CpuHeader(NamedTuple):
    """A CPU header that tells nothing new, read at once.

    likwid-perfctr prints its CPU header (a line of ``-``, ``CPU name:``, ``CPU type:``,
    ``CPU clock:``, a line of ``-``) before every region of some outputs.  Read line by line,
    such a header whose values were all read before finishes the open block, marks a run at
    its ``CPU name:`` line and changes nothing else: its lines are no program output (no
    context), no separator, no command, and no value differs (no warning).  The reader keeps
    the last one found as bytes, so that the next one printed alike is told by one
    comparison and read with the same effect.

    Attributes
    ----------
    text : bytes
        Its lines, each with its line end.
    names : tuple of (int, str)
        Per ``CPU name:`` line its offset from the first line and its value.
    lines : int
        How many lines it has.
    """

    text: bytes
    names: tuple[tuple[int, str], ...]
    lines: int


class _TextReader:
    """The pass over a text: header lines here, tables and blocks in their own classes."""

    def __init__(self, source: str):
        self.warnings: list[str] = []
        self.cpu: dict[str, str] = {}
        self.group_names: dict[int, str] = {}  # group id -> name seen in a perfctr header
        self.marks = RunMarks()
        self.tables = TableReader(source, self.warnings)
        self.labels: dict = {}  # the label columns of the tables read at once -> names
        self.blocks = TextBlocks(SharedLists(source))
        self._header: CpuHeader | None = None  # the last CPU header read at once

    def read(self, piece: Piece) -> int:
        """Read the lines of ``piece`` it can finish; return how many (see
        :func:`~roofline_widget.io.lines.read_in_pieces`)."""
        tables = read_tables(piece, self.tables, self.labels)
        looked_at = _LOOKED_AT[piece.first_bytes()]
        if b"likwid-" in piece.data:  # the lines a likwid-perfctr or likwid-mpirun command may be on
            looked_at[np.searchsorted(piece.ends, [m.start() for m in
                                                   _COMMAND.finditer(piece.data)])] = True
        add, marks, line_of = self.blocks.add_table, self.marks, piece.sparse_line
        data, starts = piece.data, piece.starts
        i, last, count = 0, piece.last, piece.count
        for k in np.flatnonzero(looked_at).tolist():
            if k < i:
                continue  # inside a table or a CPU header
            if marks.context_left and i < k:
                self._context(piece, i, k)
            found = tables.get(k)
            if found is not None:
                add(found[0])
                i = found[1]
                continue
            header = self._header
            if header is not None and data.startswith(header.text, starts[k]):
                i = self._header_again(piece, k, header)
                continue
            try:
                line = line_of(k)
                if line[:1] == "R":  # a region header (its "Group:" line may come next)
                    if k + 1 >= count and not last:
                        raise EOFError  # the piece ends before the text does
                    i = self._region_line(piece, k, line)
                    while (found := tables.get(i)) is not None:  # its tables, read at once
                        add(found[0])
                        i = found[1]
                else:
                    i = self._line(piece, k, line)
            except EOFError:  # read again with the next piece
                return k
        if marks.context_left:
            self._context(piece, i, count)
        return count

    def _context(self, piece: Piece, i: int, stop: int) -> None:
        """Lines ``i`` to ``stop - 1`` (no table, no header): output after a run mark."""
        for k in range(i, stop):
            line = piece.sparse_line(k)
            if line[:1] not in "+|":
                self.marks.context(line)
                if not self.marks.context_left:
                    return

    def _line(self, piece: Piece, i: int, line: str) -> int:
        """Read line ``i`` (a border, a group or CPU line, a mark); return the next index."""
        first = line[:1]
        if first == "+":
            table, end = self.tables.read(piece, i)
            if table is not None:
                self.blocks.add_table(table)
            return end
        if first == "-":
            header = self._cpu_header_at(piece, i, line)
            if header is not None:
                self._header = header
                return self._header_again(piece, i, header)
        if self.marks.context_left and first not in "+|":
            self.marks.context(line)
        index = piece.first + i
        if first == "G":
            self._group_line(index, line)
        elif first == "C":
            self._cpu_line(index, line)
        elif first == "M":
            match = _MEASURING_3X.match(line)
            if match:
                self.blocks.finish()
                self.blocks.measuring_group = match["group"]
        if first in "#=*~-" or "likwid-" in line:
            self.marks.other_line(index, line)
        return i + 1

    def result(self, notes: list[str]) -> ParsedLikwid:
        """What the pass read (``notes``: the lines the pieces passed over)."""
        blocks = self.blocks
        blocks.finish()
        layout = Layout.MPIRUN_TEXT if "mpirun" in blocks.styles else Layout.PERFCTR_TEXT
        if "mpirun" in blocks.styles and len(blocks.styles) > 1:
            self.warnings.append("the file mixes likwid-mpirun and likwid-perfctr tables; "
                                 "read as likwid-mpirun output")
        return ParsedLikwid(
            blocks=blocks.blocks, layout=layout, cpu_name=self.cpu.get("cpu_name"),
            cpu_type=self.cpu.get("cpu_type"), cpu_clock=self.cpu.get("cpu_clock"),
            likwid_version=" / ".join(blocks.versions) or None,
            warnings=[*self.warnings, *notes], marks=self.marks.run_marks())

    def _start(self, region: str, gid: int, group: str, index: int, style: str, line: str
               ) -> None:
        self.blocks.start(region, gid, group, index + 1, style, line)
        self.marks.end_context(line)  # the program's output ends at the header

    def _region_line(self, piece: Piece, i: int, line: str) -> int:
        index = piece.first + i
        match = _REGION_41.match(line)
        if match:  # LIKWID 4.1 to 5.x, the header of most files
            tag, gid, group = match.groups()
            self.marks.block_starts(line)
            self.blocks.start(tag, int(gid), group, index + 1, "4.1", line)
            self.group_names.setdefault(int(gid), group)
            return i + 1
        if self.marks.context_left:
            self.marks.context(line)
        if not line.startswith("Region: "):
            return i + 1
        previous = piece.sparse_line(i - 1)
        if previous.startswith("=====") and not previous.strip("="):
            # LIKWID 3.x prints "Region: %s \n" between lines of '='
            tag = line[8:-1] if line.endswith(" ") else line[8:]
            self._start(tag, 1, self.blocks.measuring_group or "Group 1", index, "3.x", line)
            return i + 1
        match = _GROUP_MPIRUN.match(piece.sparse_line(i + 1) if i + 1 < piece.count else "")
        if match:
            gid = int(match["gid"])
            self._start(line[8:], gid, self.group_names.get(gid, f"Group {gid}"), index,
                        "mpirun", line)
            return i + 2
        return i + 1

    def _group_line(self, index: int, line: str) -> None:
        match = _REGION_40.match(line)
        if match:
            self._start(match["tag"].rstrip(_ASCII_BLANKS), int(match["gid"]), match["group"],
                        index, "4.0", line)
            self.group_names.setdefault(int(match["gid"]), match["group"])
            return
        match = _GROUP_WRAPPER.match(line)
        if match:
            self._start(WHOLE_RUN_REGION, int(match["gid"]), match["group"], index, "wrapper",
                        line)
            self.group_names.setdefault(int(match["gid"]), match["group"])
            return
        match = _GROUP_MPIRUN.match(line)
        if match:  # likwid-mpirun without -m: no Region line
            gid = int(match["gid"])
            self._start(WHOLE_RUN_REGION, gid, self.group_names.get(gid, f"Group {gid}"),
                        index, "mpirun", line)

    def _header_again(self, piece: Piece, i: int, header: CpuHeader) -> int:
        """Read the CPU header at line ``i`` of ``piece`` at once (see :class:`CpuHeader`);
        return the index of the line after it."""
        self.blocks.finish()  # raises as the header's first CPU line would
        for offset, name in header.names:
            self.marks.mark(piece.first + i + offset, "header", name)
        return i + header.lines

    def _cpu_header_at(self, piece: Piece, i: int, line: str) -> CpuHeader | None:
        """The CPU header at line ``i`` (``line``, a line of ``-``) if it tells nothing new
        (see :class:`CpuHeader`), else None: read it line by line."""
        if line.strip("-"):
            return None
        names: list[tuple[int, str]] = []
        for k in range(i + 1, min(i + 2 + _HEADER_LINES, piece.count)):
            text = piece.sparse_line(k)
            if text and not text.strip("-") and k > i + 1:  # the closing line of '-'
                end = int(piece.ends[k])
                if end >= len(piece.data):
                    return None  # the text ends without a line end
                return CpuHeader(piece.data[int(piece.starts[i]):end + 1], tuple(names),
                                 k - i + 1)
            found = cpu_line(text)
            if found is None or self.cpu.get(found[0]) != found[1] or "likwid-" in text:
                return None
            if found[0] == "cpu_name":
                names.append((k - i, found[1]))
        return None

    def _cpu_line(self, index: int, line: str) -> None:
        found = cpu_line(line)
        if found is None:
            return
        self.blocks.finish()  # a CPU header is printed before a block, never inside one
        key, value = found
        self.marks.cpu_header(index, key, value)
        known = self.cpu.setdefault(key, value)
        if known != value:
            message = (f"line {index + 1}: {key.replace('_', ' ')} {value!r} differs from "
                       f"{known!r} printed earlier; keeping the first")
            if message not in self.warnings:
                self.warnings.append(message)
