"""Reader for the ASCII-table output of likwid-perfctr and likwid-mpirun.

One pass over the lines finds block headers and ``+---+`` tables; everything
else (application output, ``INFO:``/``WARN:`` lines, likwid-bench output,
several runs concatenated in one slurm log) is passed over.  Layouts read:

* LIKWID 3.x: ``=====`` / ``Region: <tag> `` / ``=====``, ``core N`` columns,
  Event table without a Counter column, STAT columns ``Sum | Max | Min | Avg``;
* LIKWID 4.0.x: 80 ``=`` / ``Group 1 L3: Region listappend`` / 80 ``=``;
* LIKWID 4.1 to 5.x: ``Region <tag>, Group <n>: <GROUP>`` (marker mode) or
  ``Group <n>: <GROUP>`` (wrapper mode), ``Core N`` / ``HWThread N`` /
  ``GPU N`` columns, with or without blank lines and repeated CPU headers;
* likwid-mpirun: ``Region: <tag>`` and ``Group: <n>`` lines, ``host:rank:cpu``
  columns, a ``Region calls | CTR`` row and ``%ile`` STAT columns.

This module reads the header lines and drives the pass; the tables are read
by :mod:`~roofline_widget.io.text_tables`, put together into region blocks by
:mod:`~roofline_widget.io.text_blocks`, and the lines where a new run may start
are kept by :mod:`~roofline_widget.io.run_marks`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

from roofline_widget.io.lines import LineWindow, lines_of
from roofline_widget.io.parsed import ParsedLikwid
from roofline_widget.io.run_marks import CPU_FIELDS, RunMarks
from roofline_widget.io.shared_lists import SharedLists
from roofline_widget.io.text_blocks import TextBlocks
from roofline_widget.io.text_tables import TextTableReader
from roofline_widget.model import WHOLE_RUN_REGION, Layout

__all__ = ["cpu_header", "cpu_line", "parse_text"]

_REGION_41 = re.compile(r"Region (?P<tag>.*), Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_REGION_40 = re.compile(r"Group (?P<gid>\d+) (?P<group>\S+): Region (?P<tag>.*)$", re.ASCII)
_GROUP_WRAPPER = re.compile(r"Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_GROUP_MPIRUN = re.compile(r"Group: (?P<gid>\d+)\s*$", re.ASCII)
_MEASURING_3X = re.compile(r"Measuring group (?P<group>\S+)")
#: Lines read over before the window forgets them (see :class:`~roofline_widget.io.lines.LineWindow`).
_KEPT_LINES = 512
#: ``"CPU name:"`` -> ``"cpu_name"`` (the line's first 9 characters, 10 for ``CPU clock:``).
_CPU_PREFIXES = {f"{name}:": field for name, field in CPU_FIELDS.items()}


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


def parse_text(text: str | Iterable[str], source: str) -> ParsedLikwid:
    """Parse likwid-perfctr or likwid-mpirun text output.

    Parameters
    ----------
    text : str or iterable of str
        The whole decoded output, or its lines without line breaks (a
        :class:`~roofline_widget.io.lines.TextLines` of a file read in
        pieces: the parser holds one table at a time).
    source : str
        Name of the file, for error messages.

    Returns
    -------
    ParsedLikwid
        The blocks, layout (``"perfctr-text"`` or ``"mpirun-text"``), CPU
        header, version range and warnings; :func:`~roofline_widget.io.parsed.run_from` makes
        the run of it.

    Raises
    ------
    LikwidFormatError
        With the 1-based line for a row with the wrong number of cells, a
        table cut off by the end of the file, a region header without tables,
        a cell that is not a number, or a Metric table whose thread columns
        differ from the Event table's.

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
    with warnings.catch_warnings():
        # np.fromstring warns (and stops) at unparsable data: the table reader
        # then sees too few values and the table goes to the exact path
        warnings.filterwarnings("ignore", "string or file could not be read to its end",
                                DeprecationWarning)
        lines = lines_of(text) if isinstance(text, str) else text
        return _TextReader(LineWindow(lines), str(source)).read()


class _TextReader:
    """The pass over a text: header lines here, tables and blocks in their own classes."""

    def __init__(self, lines: LineWindow, source: str):
        self.lines = lines
        self.warnings: list[str] = []
        self.cpu: dict[str, str] = {}
        self.group_names: dict[int, str] = {}  # group id -> name seen in a perfctr header
        self.marks = RunMarks()
        self.tables = TextTableReader(lines, source, self.warnings)
        self.blocks = TextBlocks(lines, SharedLists(source))

    def read(self) -> ParsedLikwid:
        lines, marks, blocks = self.lines, self.marks, self.blocks
        start, buffer = lines.view(0)
        i = 0
        while True:
            if i - start >= len(buffer):
                if not lines.has(i):
                    break
            elif i - start > _KEPT_LINES:
                lines.release(i - 1)  # the line before is the furthest back a header looks
                start, buffer = lines.view(i)
            line = buffer[i - start]
            first = line[:1]
            if marks.context_left and first not in "+|":
                marks.context(line)
            if first == "+":
                table, i = self.tables.read(i)
                if table is not None:
                    blocks.add_table(table)
                continue
            if first == "R":
                i = self._region_line(i, line)
                continue
            if first == "G":
                self._group_line(i, line)
            elif first == "C":
                self._cpu_line(i, line)
            elif first == "M":
                match = _MEASURING_3X.match(line)
                if match:
                    blocks.finish()
                    blocks.measuring_group = match["group"]
            if first in "#=*~-" or "likwid-" in line:
                marks.other_line(i, line)
            i += 1
        blocks.finish()
        layout = Layout.MPIRUN_TEXT if "mpirun" in blocks.styles else Layout.PERFCTR_TEXT
        if "mpirun" in blocks.styles and len(blocks.styles) > 1:
            self.warnings.append("the file mixes likwid-mpirun and likwid-perfctr tables; "
                                 "read as likwid-mpirun output")
        return ParsedLikwid(
            blocks=blocks.blocks, layout=layout, cpu_name=self.cpu.get("cpu_name"),
            cpu_type=self.cpu.get("cpu_type"), cpu_clock=self.cpu.get("cpu_clock"),
            likwid_version=" / ".join(blocks.versions) or None, warnings=self.warnings,
            marks=marks.run_marks())

    def _start(self, region: str, gid: int, group: str, i: int, style: str) -> None:
        self.blocks.start(region, gid, group, i, style)
        self.marks.end_context(self.lines[i])  # the program's output ends at the header

    def _region_line(self, i: int, line: str) -> int:
        match = _REGION_41.match(line)
        if match:
            self._start(match["tag"], int(match["gid"]), match["group"], i, "4.1")
            self.group_names.setdefault(int(match["gid"]), match["group"])
            return i + 1
        if not line.startswith("Region: "):
            return i + 1
        previous = self.lines[i - 1] if i else ""
        if previous.startswith("=====") and not previous.strip("="):
            # LIKWID 3.x prints "Region: %s \n" between lines of '='
            tag = line[8:-1] if line.endswith(" ") else line[8:]
            group = self.blocks.measuring_group or "Group 1"
            self._start(tag, 1, group, i, "3.x")
            return i + 1
        following = self.lines.get(i + 1) or ""
        match = _GROUP_MPIRUN.match(following)
        if match:
            gid = int(match["gid"])
            self._start(line[8:], gid, self.group_names.get(gid, f"Group {gid}"), i, "mpirun")
            return i + 2
        return i + 1

    def _group_line(self, i: int, line: str) -> None:
        match = _REGION_40.match(line)
        if match:
            self._start(match["tag"].rstrip(" \t\r\x0b\x0c"), int(match["gid"]), match["group"], i, "4.0")
            self.group_names.setdefault(int(match["gid"]), match["group"])
            return
        match = _GROUP_WRAPPER.match(line)
        if match:
            self._start(WHOLE_RUN_REGION, int(match["gid"]), match["group"], i, "wrapper")
            self.group_names.setdefault(int(match["gid"]), match["group"])
            return
        match = _GROUP_MPIRUN.match(line)
        if match:  # likwid-mpirun without -m: no Region line
            gid = int(match["gid"])
            self._start(WHOLE_RUN_REGION, gid, self.group_names.get(gid, f"Group {gid}"),
                        i, "mpirun")

    def _cpu_line(self, i: int, line: str) -> None:
        found = cpu_line(line)
        if found is None:
            return
        self.blocks.finish()  # a CPU header is printed before a block, never inside one
        key, value = found
        self.marks.cpu_header(i, key, value)
        known = self.cpu.setdefault(key, value)
        if known != value:
            message = (f"line {i + 1}: {key.replace('_', ' ')} {value!r} differs from "
                       f"{known!r} printed earlier; keeping the first")
            if message not in self.warnings:
                self.warnings.append(message)
