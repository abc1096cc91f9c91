"""Region blocks of likwid-perfctr's and likwid-mpirun's text output, put together table by table.

A block starts at a region or group header line (:meth:`TextBlocks.start`)
and takes the tables that follow it (:meth:`TextBlocks.add_table`): Region
Info (runtime and call count per thread), Event, Metric and their STAT
tables; it ends at the next header, a CPU header or the end of the text
(:meth:`TextBlocks.finish`).  Every table of a block must have the same thread
columns; a block without an Event or Metric table is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.blocks import STAT_COLUMNS, RegionBlock, event_names
from roofline_widget.io.cells import version_from_threads
from roofline_widget.io.lines import LineWindow
from roofline_widget.io.shared_lists import SharedLists
from roofline_widget.io.text_tables import TextTable
from roofline_widget.model import WHOLE_RUN_REGION

__all__ = ["OpenBlock", "TextBlocks", "text_version"]

#: likwid-mpirun's call count row of an Event table, and the runtime row LIKWID 3.x prints there.
_CALLS_EVENT = "Region calls:CTR"
_RUNTIME_EVENT = "Runtime (RDTSC) [s]:TSC"


@dataclass
class OpenBlock:
    """A region block being put together.

    Attributes
    ----------
    block : RegionBlock
        What was read of it so far.
    style : str
        The header's layout: ``"3.x"``, ``"4.0"``, ``"4.1"``, ``"wrapper"``,
        ``"implicit"`` (an Event table without a header) or ``"mpirun"``.
    header : str
        The header line as printed, for messages.
    labels : tuple of str or None
        The thread columns of its first table.
    has_info, has_events, has_metrics : bool
        Which tables it has.
    """

    block: RegionBlock
    style: str
    header: str
    labels: tuple | None = None
    has_info: bool = False
    has_events: bool = False
    has_metrics: bool = False


class TextBlocks:
    """The region blocks of one text, and the layouts and versions they show.

    Parameters
    ----------
    lines : LineWindow
        The text's lines (a block's header line is kept for messages).
    lists : SharedLists
        The file's shared name lists and thread columns (also gives the
        file's name for error messages).

    Attributes
    ----------
    blocks : list of RegionBlock
        The finished blocks, in order.
    styles : set of str
        The :attr:`OpenBlock.style` of every finished block.
    versions : dict
        The LIKWID version ranges they show, in order (values unused).
    measuring_group : str or None
        The group of a LIKWID 3.x ``Measuring group <GROUP>`` line, for an
        Event table without a header.
    """

    def __init__(self, lines: LineWindow, lists: SharedLists) -> None:
        self.lines = lines
        self.lists = lists
        self.blocks: list[RegionBlock] = []
        self.styles: set[str] = set()
        self.versions: dict[str, None] = {}
        self.measuring_group: str | None = None
        self.current: OpenBlock | None = None

    def _error(self, line: int, expected: str, found: str | None = None) -> LikwidFormatError:
        return LikwidFormatError(self.lists.source, line, expected, found)

    def start(self, region: str, gid: int, group: str, i: int, style: str) -> None:
        """Finish the open block and start one at the header on line ``i`` (0-based)."""
        self.finish()
        block = RegionBlock(region=region, group_index=gid, group=group, line=i + 1)
        self.current = OpenBlock(block, style, self.lines[i])

    def finish(self) -> None:
        """Finish the open block, if any.

        Raises
        ------
        LikwidFormatError
            If it has neither an Event nor a Metric table.
        """
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
        self.versions.setdefault(text_version(current.style, current.labels), None)

    def add_table(self, table: TextTable) -> None:
        """Add a table to the open block (an Event table without one starts a block).

        Raises
        ------
        LikwidFormatError
            For a table in the wrong place (a Region Info table after the
            Event table, a second Event table, a STAT table before its
            table, a Metric table without a header) or thread columns that
            differ from the block's first table's.
        """
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

    def _implicit_block(self, table: TextTable) -> OpenBlock:
        """Start a block for an Event table with no header (LIKWID 3.x wrapper mode)."""
        group = self.measuring_group or "Group 1"
        self.current = OpenBlock(RegionBlock(WHOLE_RUN_REGION, 1, group, table.line),
                                 "implicit", self.lines[table.line - 1])
        return self.current

    def _needs_events(self, table: TextTable) -> OpenBlock:
        current = self.current
        if current is None or not (current.has_events or current.has_metrics):
            raise self._error(table.line, "an Event table of a region block before this "
                              "STAT table")
        return current

    def _set_threads(self, current: OpenBlock, table: TextTable, what: str) -> None:
        labels = tuple(table.value_header)
        if current.labels is None:
            current.labels = labels
            current.block.threads = self.lists.threads(labels, table.line)
        elif labels != current.labels:
            raise self._error(table.line, f"the same thread columns in the {what} table as "
                              f"in the tables above ({', '.join(current.labels)})",
                              ", ".join(labels))

    def _region_info(self, current: OpenBlock, table: TextTable) -> None:
        self._set_threads(current, table, "Region Info")
        current.has_info = True
        for name, row in zip(table.names, table.values):
            if name == "RDTSC Runtime [s]":
                current.block.runtime = row
            elif name == "call count":
                current.block.call_count = row

    def _events(self, current: OpenBlock, table: TextTable) -> None:
        self._set_threads(current, table, "Event")
        current.has_events = True
        block = current.block
        names, counters, values = table.names, table.counters, table.values
        if counters is None:  # LIKWID 3.x: no Counter column
            names = list(names)
        else:
            names = event_names(names, counters)
        if _CALLS_EVENT in names:  # likwid-mpirun's call count row
            row = names.index(_CALLS_EVENT)
            block.call_count = values[row]
            del names[row]
            values = np.delete(values, row, axis=0)
        if block.runtime is None and _RUNTIME_EVENT in names:
            block.runtime = values[names.index(_RUNTIME_EVENT)]
        block.event_names = self.lists.names(names)
        block.events = values

    def _metrics(self, current: OpenBlock, table: TextTable) -> None:
        self._set_threads(current, table, "Metric")
        current.has_metrics = True
        current.block.metric_names = self.lists.names(list(table.names))
        current.block.metrics = table.values

    def _stats(self, current: OpenBlock, table: TextTable, kind: str) -> None:
        heads = table.value_header
        nan = np.full(len(table.names), np.nan)
        columns = [table.values[:, heads.index(h)] if h in heads else nan for h in STAT_COLUMNS]
        names = [n[:-5] if n.endswith(" STAT") else n for n in table.names]
        if table.counters is not None:
            names = event_names(names, table.counters)
        current.block.stats.add(kind, self.lists.names(names), np.column_stack(columns))


def text_version(style: str, labels: tuple | None) -> str:
    """The LIKWID version range a text block's layout and thread column names show.

    Examples
    --------
    >>> text_version("4.0", None), text_version("4.1", ("HWThread 0",))
    ('4.0.x', '>= 5.1')
    """
    if style == "3.x":
        return "3.x"
    if style == "4.0":
        return "4.0.x"
    if style == "mpirun":
        return ">= 4.3 (likwid-mpirun)"
    return version_from_threads(labels or (), wrapper=style == "wrapper") or "unknown"
