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

Cells are cut at the column boundaries of the table's ``+---+`` border (so a
metric name may contain ``|``), and the numbers of a whole table are converted
with one numpy call.
"""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

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

__all__ = ["cpu_header", "cpu_line", "parse_text"]

_REGION_41 = re.compile(r"Region (?P<tag>.*), Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_REGION_40 = re.compile(r"Group (?P<gid>\d+) (?P<group>\S+): Region (?P<tag>.*?)\s*$", re.ASCII)
_GROUP_WRAPPER = re.compile(r"Group (?P<gid>\d+): (?P<group>\S+)\s*$", re.ASCII)
_GROUP_MPIRUN = re.compile(r"Group: (?P<gid>\d+)\s*$", re.ASCII)
_MEASURING_3X = re.compile(r"Measuring group (?P<group>\S+)")
#: Deletes the characters that can occur in the numeric part of a table
#: (numbers, nan, inf, separators, any whitespace -- str.isspace, the highest
#: is U+3000); anything left sends the table to the slow, exact path.
_DELETE_NUMERIC = str.maketrans("", "", "0123456789.eE+-naifNAIF"
                                + "".join(chr(c) for c in range(0x3001) if chr(c).isspace()))
_TABLE_KINDS = ("Region Info", "Event", "Metric")
#: Lines read over before the window forgets them (see :class:`~roofline_widget.io.lines.LineWindow`).
_KEPT_LINES = 512
_CPU_KEYS = {"CPU name:": "cpu_name", "CPU type:": "cpu_type", "CPU clock:": "cpu_clock"}



def cpu_line(line: str) -> tuple[str, str] | None:
    """``("cpu_name", value)`` (``cpu_type``, ``cpu_clock``) of a LIKWID CPU header line, else None."""
    prefix = line[:10] if line.startswith("CPU clock:") else line[:9]
    key = _CPU_KEYS.get(prefix)
    return None if key is None else (key, line.split(":", 1)[1].strip())


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


@dataclass
class _Table:
    """One ``+---+`` table: header cells, row labels and the numbers."""

    line: int                 # 1-based line of the top border
    header: list              # header cells, stripped
    names: list               # first column of every body row
    counters: list | None     # second column ("Counter") if the table has one
    values: np.ndarray        # (rows, value columns)

    @property
    def value_header(self) -> list:
        return self.header[1 if self.counters is None else 2:]

    @property
    def is_stat(self) -> bool:
        heads = self.value_header
        return "Sum" in heads and all(h in STAT_COLUMNS or h.startswith("%ile") for h in heads)


@dataclass
class _Open:
    """A region block being assembled."""

    block: RegionBlock
    style: str                # "3.x", "4.0", "4.1", "wrapper", "implicit", "mpirun"
    header: str               # the header line as printed, for messages
    labels: tuple | None = None
    has_info: bool = False
    has_events: bool = False
    has_metrics: bool = False


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
        header, version range and warnings; :func:`~.core.run_from` makes
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
        # np.fromstring warns (and stops) at unparsable data: _numbers then
        # sees too few values and the table goes to the exact path
        warnings.filterwarnings("ignore", "string or file could not be read to its end",
                                DeprecationWarning)
        lines = lines_of(text) if isinstance(text, str) else text
        return _TextReader(LineWindow(lines), str(source)).read()


class _TextReader:
    """State of one pass over a text file."""

    def __init__(self, lines: LineWindow, source: str):
        self.lines = lines
        self.source = source
        self.blocks: list[RegionBlock] = []
        self.warnings: list[str] = []
        self.cpu: dict = {}
        self.versions: dict = {}
        self.styles: set = set()
        self.group_names: dict = {}       # group id -> name seen in a perfctr header
        self.measuring_group: str | None = None
        self.current: _Open | None = None
        self._border_cache: dict = {}
        self._thread_cache: dict = {}
        self._name_lists: dict[tuple, list[str]] = {}
        self.marks: list[tuple[int, str, str, list[str]]] = []  # (line, kind, text, context)
        self.context_left = 0  # lines of other output still kept after the last mark

    # ------------------------------------------------------------------ driver
    def read(self) -> ParsedLikwid:
        lines = self.lines
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
            if self.context_left and first not in "+|":
                self._context(line)
            if first == "+":
                table, i = self._read_table(i)
                if table is not None:
                    self._on_table(table)
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
                    self._finish()
                    self.measuring_group = match["group"]
            elif first in "#=*~-":
                self._separator_line(i, line)
            if "likwid-" in line:
                self._command_line(i, line)
            i += 1
        self._finish()
        layout = Layout.MPIRUN_TEXT if "mpirun" in self.styles else Layout.PERFCTR_TEXT
        if "mpirun" in self.styles and len(self.styles) > 1:
            self.warnings.append("the file mixes likwid-mpirun and likwid-perfctr tables; "
                                 "read as likwid-mpirun output")
        return ParsedLikwid(
            blocks=self.blocks, layout=layout, cpu_name=self.cpu.get("cpu_name"),
            cpu_type=self.cpu.get("cpu_type"), cpu_clock=self.cpu.get("cpu_clock"),
            likwid_version=" / ".join(self.versions) or None, warnings=self.warnings,
            marks=[RunMark(line, kind, text, tuple(context))
                   for line, kind, text, context in self.marks])

    def _error(self, line: int | None, expected: str, found: str | None = None):
        return LikwidFormatError(self.source, line, expected, found)

    # ------------------------------------------------------ where runs start
    def _mark(self, i: int, kind: str, text: str) -> None:
        """A line where a new measurement may start (see :mod:`roofline_widget.io.runs`)."""
        self.marks.append((i + 1, kind, text, []))
        self.context_left = CONTEXT_LINES

    def _context(self, line: str) -> None:
        if is_context(line):
            self.marks[-1][3].append(line.strip())
            self.context_left -= 1

    def _separator_line(self, i: int, line: str) -> None:
        text = separator_text(line)
        if text is not None:
            self._mark(i, "separator", text)

    def _command_line(self, i: int, line: str) -> None:
        command = command_of(line)
        if command is not None:
            self._mark(i, "command", command)

    # ----------------------------------------------------------- header lines
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
            group = self.measuring_group or "Group 1"
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
            self._start(match["tag"], int(match["gid"]), match["group"], i, "4.0")
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
        self._finish()  # a CPU header is printed before a block, never inside one
        key, value = found
        if key == "cpu_name":
            self._mark(i, "header", value)
        known = self.cpu.setdefault(key, value)
        if known != value:
            message = (f"line {i + 1}: {key.replace('_', ' ')} {value!r} differs from "
                       f"{known!r} printed earlier; keeping the first")
            if message not in self.warnings:
                self.warnings.append(message)

    # ------------------------------------------------------------------ blocks
    def _start(self, region: str, gid: int, group: str, i: int, style: str) -> None:
        self._finish()
        if self.context_left:  # the program's output ends at the block's header
            self.context_left = 0
            context = self.marks[-1][3]
            if context and context[-1] == self.lines[i].strip():
                context.pop()
        block = RegionBlock(region=region, group_index=gid, group=group, line=i + 1)
        self.current = _Open(block, style, self.lines[i])

    def _finish(self) -> None:
        current, self.current = self.current, None
        if current is None:
            return
        if not (current.has_events or current.has_metrics):
            raise self._error(current.block.line, "an Event or Metric table after this "
                              "region header (the output ends or the next block starts "
                              "before any)", current.header)
        block = current.block
        if block.events.shape != (len(block.event_names), len(block.threads)):
            block.events = np.zeros((0, len(block.threads)))
        if block.metrics.shape != (len(block.metric_names), len(block.threads)):
            block.metrics = np.zeros((0, len(block.threads)))
        self.blocks.append(block)
        self.styles.add(current.style)
        self.versions.setdefault(_version(current.style, current.labels), None)

    def _on_table(self, table: _Table) -> None:
        kind = table.header[0]
        current = self.current
        if kind == "Region Info":
            if current is None or current.has_info or current.has_events or current.has_metrics:
                raise self._error(table.line, "a 'Region <tag>, Group <n>: <GROUP>' line "
                                  "before this Region Info table")
            self._region_info(current, table)
        elif kind == "Event" and table.is_stat:
            self._stats(self._needs_events(table), table, "event")
        elif kind == "Event":
            if current is None:
                current = self._implicit_block(table)
            elif current.has_events:
                raise self._error(table.line, "a region header before this second Event table")
            self._events(current, table)
        elif kind == "Metric" and table.is_stat:
            self._stats(self._needs_events(table), table, "metric")
        else:
            if current is None or current.has_metrics:
                raise self._error(table.line, "a region header and an Event table before "
                                  "this Metric table")
            self._metrics(current, table)

    def _implicit_block(self, table: _Table) -> _Open:
        """Start a block for an Event table with no header (LIKWID 3.x wrapper mode)."""
        group = self.measuring_group or "Group 1"
        self.current = _Open(RegionBlock(WHOLE_RUN_REGION, 1, group, table.line),
                             "implicit", self.lines[table.line - 1])
        return self.current

    def _needs_events(self, table: _Table) -> _Open:
        current = self.current
        if current is None or not (current.has_events or current.has_metrics):
            raise self._error(table.line, "an Event table of a region block before this "
                              "STAT table")
        return current

    def _set_threads(self, current: _Open, table: _Table, what: str) -> None:
        labels = tuple(table.value_header)
        if current.labels is None:
            current.labels = labels
            current.block.threads = self._threads(labels, table.line)
        elif labels != current.labels:
            raise self._error(table.line, f"the same thread columns in the {what} table as "
                              f"in the tables above ({', '.join(current.labels)})",
                              ", ".join(labels))

    def _threads(self, labels: tuple, line: int) -> list:
        threads = self._thread_cache.get(labels)
        if threads is None:
            threads = thread_columns(labels, self.source, line)
            self._thread_cache[labels] = threads
        return list(threads)

    def _region_info(self, current: _Open, table: _Table) -> None:
        self._set_threads(current, table, "Region Info")
        current.has_info = True
        for name, row in zip(table.names, table.values):
            if name == "RDTSC Runtime [s]":
                current.block.runtime = row
            elif name == "call count":
                current.block.call_count = row

    def _events(self, current: _Open, table: _Table) -> None:
        self._set_threads(current, table, "Event")
        current.has_events = True
        block = current.block
        names, counters, values = table.names, table.counters, table.values
        if counters is None:  # LIKWID 3.x: no Counter column
            event_names = list(names)
        else:
            event_names = [f"{n}:{c}" for n, c in zip(names, counters)]
        if "Region calls:CTR" in event_names:  # likwid-mpirun's call count row
            row = event_names.index("Region calls:CTR")
            block.call_count = values[row]
            del event_names[row]
            values = np.delete(values, row, axis=0)
        if block.runtime is None and "Runtime (RDTSC) [s]:TSC" in event_names:
            block.runtime = values[event_names.index("Runtime (RDTSC) [s]:TSC")]
        block.event_names = self._shared(event_names)
        block.events = values

    def _metrics(self, current: _Open, table: _Table) -> None:
        self._set_threads(current, table, "Metric")
        current.has_metrics = True
        current.block.metric_names = self._shared(list(table.names))
        current.block.metrics = table.values

    def _stats(self, current: _Open, table: _Table, kind: str) -> None:
        heads = table.value_header
        nan = np.full(len(table.names), np.nan)
        columns = [table.values[:, heads.index(h)] if h in heads else nan for h in STAT_COLUMNS]
        names = [n[:-5] if n.endswith(" STAT") else n for n in table.names]
        if table.counters is not None:
            names = [f"{n}:{c}" for n, c in zip(names, table.counters)]
        current.block.stats.add(kind, self._shared(names), np.column_stack(columns))

    def _shared(self, names: list[str]) -> list[str]:
        """One list (and its strings) for every block that prints these names: the blocks
        of a large file take the memory of their numbers, not of their names."""
        return self._name_lists.setdefault(tuple(names), names)

    # ------------------------------------------------------------------ tables
    def _border(self, line: str):
        """Column-boundary positions of a ``+---+`` border, or None."""
        seps = self._border_cache.get(line)
        if seps is None:
            if len(line) < 3 or not line.startswith("+-") or not line.endswith("+") \
                    or line.strip("+-"):
                return None
            seps = tuple(m.start() for m in re.finditer(r"\+", line))
            self._border_cache[line] = seps
        return seps

    def _read_table(self, i: int):
        """Read the table whose top border is line ``i``; return (table, next index)."""
        lines = self.lines
        border = lines[i].rstrip()
        seps = self._border(border)
        if seps is None or not (lines.get(i + 1) or "").startswith("|"):
            return None, i + 1  # a line of '+' and '-' that is no table
        start = i + 1  # 1-based line of the top border
        kind = lines[i + 1][1:].split("|", 1)[0].strip()
        if kind not in _TABLE_KINDS:
            return None, self._skip_foreign_table(i, kind)
        header = self._cells(lines[i + 1].rstrip(), seps, i + 2, "the table header")
        if not lines.has(i + 2):
            raise self._error(i + 2, f"the border under the header of the table that starts "
                              f"at line {start}; the file ends inside the table")
        if lines[i + 2].rstrip() != border:
            raise self._error(i + 3, "a '+---+' border under the table header, as wide as "
                              "the one above it", lines[i + 2])
        j = i + 3
        while (row := lines.get(j)) is not None and row[:1] == "|":
            j += 1
        if row is None:
            raise self._error(j, f"the closing '+---+' border of the table that starts "
                              f"at line {start}; the file ends inside the table")
        if lines[j].rstrip() == border:
            end = j + 1
        elif j == i + 3:
            end = j  # a table without rows has no closing border
        else:
            raise self._error(j + 1, f"a table row or the closing '+---+' border of the "
                              f"table that starts at line {start}", lines[j])
        return self._table_body(start, header, lines.slice(i + 3, j), border, seps), end

    def _skip_foreign_table(self, i: int, kind: str) -> int:
        """Pass over a table that is not LIKWID's (another tool's output); warn."""
        self.warnings.append(f"line {i + 1}: ignored a table headed {kind!r} "
                             "(not a LIKWID Region Info, Event or Metric table)")
        lines, j = self.lines, i + 1
        while (line := lines.get(j)) is not None and line[:1] in ("|", "+"):
            below = lines.get(j + 1)
            if line[:1] == "+" and below is not None and \
                    below[1:].split("|", 1)[0].strip() in _TABLE_KINDS:
                break  # a LIKWID table right below
            j += 1
        return j

    def _cells(self, row: str, seps: tuple, line: int, what: str) -> list:
        """Cut one row at the border's column boundaries, checking them."""
        if len(row) == seps[-1] + 1 and all(row[p] == "|" for p in seps):
            return [_blank_tabs(row[a + 1:b].strip()) for a, b in itertools.pairwise(seps)]
        raise self._error(line, f"{what} with {len(seps) - 1} cells between '|', aligned "
                          f"with the '+---+' border above", row)

    def _table_body(self, start: int, header: list, rows: list, border: str, seps: tuple):
        labels = 2 if len(header) > 2 and header[1] == "Counter" else 1
        ncols = len(seps) - 1 - labels
        a, b = seps[0] + 1, seps[1]
        values = None
        if rows and all(len(r) == len(border) for r in rows):
            numeric = "\n".join([r[seps[labels]:] for r in rows])
            if numeric.count("|") == len(rows) * (ncols + 1):
                values = _numbers(numeric, len(rows) * ncols)
            if values is not None:
                names = [_blank_tabs(r[a:b].strip()) for r in rows]
                counters = ([_blank_tabs(r[seps[1] + 1:seps[2]].strip()) for r in rows]
                            if labels == 2 else None)
                return _Table(start, header, names, counters, values.reshape(len(rows), ncols))
        return self._table_body_exact(start, header, rows, seps, labels, ncols)

    def _table_body_exact(self, start, header, rows, seps, labels, ncols) -> _Table:
        """Row-by-row reading that names the line of the first bad row or cell."""
        names, counters, values = [], [], np.empty((len(rows), ncols))
        for k, row in enumerate(rows):
            line = start + 3 + k
            cells = self._cells(row.rstrip(), seps, line, "a table row")
            names.append(cells[0])
            if labels == 2:
                counters.append(cells[1])
            values[k] = parse_cells(cells[labels:], self.source, line,
                                    f"values of {cells[0]!r}")
        values[np.isinf(values)] = np.nan
        return _Table(start, header, names, counters if labels == 2 else None, values)


def _blank_tabs(cell: str) -> str:
    """A cell with every tab a blank: a tab inside a name (an edited or re-indented
    file) must not make a second metric of ``DP [MFLOP/s]``."""
    return cell.replace("\t", " ") if "\t" in cell else cell


def _numbers(text: str, expected: int) -> np.ndarray | None:
    """Parse the numeric part of a table in one call; None if anything is odd.

    ``|`` separators become blanks and centred ``-`` cells become ``nan``;
    ``inf`` (LIKWID's Min of an all-``-`` row) becomes NaN as well.
    """
    text = text.replace("|", " ")
    if " - " in text:
        text = text.replace(" - ", " nan ")
    if text.translate(_DELETE_NUMERIC):
        return None
    try:
        values = np.fromstring(text, dtype=np.float64, sep=" ")
    except ValueError:
        return None
    if values.size != expected:
        return None
    values[np.isinf(values)] = np.nan
    return values


def _version(style: str, labels: tuple | None) -> str:
    """LIKWID version range from the block layout and the thread column names."""
    if style == "3.x":
        return "3.x"
    if style == "4.0":
        return "4.0.x"
    if style == "mpirun":
        return ">= 4.3 (likwid-mpirun)"
    return version_from_threads(labels or (), wrapper=style == "wrapper") or "unknown"
