"""Region blocks of likwid-perfctr's and likwid-mpirun's CSV output, put together table by table.

A Raw ``TABLE`` starts a block (with the Region Info read before its header,
or that of a LIKWID 4.0.x ``STRUCT,Info,5`` block); the Metric table and the
STAT tables of the same (region, group) join it.  A table that is incomplete
(:attr:`~roofline_widget.io.csv_rows.CsvTable.incomplete`) is left out with
a warning, and so are the STAT tables of its block.
"""

from __future__ import annotations

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.blocks import STAT_COLUMNS, RegionBlock, event_names
from roofline_widget.io.csv_rows import CsvTable, RegionInfo
from roofline_widget.io.csv_struct import PendingInfo
from roofline_widget.io.lines import LineWindow
from roofline_widget.io.shared_lists import SharedLists
from roofline_widget.model import WHOLE_RUN_REGION

__all__ = ["CsvBlocks"]



class CsvBlocks:
    """The region blocks of one CSV text.

    Parameters
    ----------
    lines : LineWindow
        The text's lines (a ``TABLE`` line is quoted in errors).
    lists : SharedLists
        The file's shared name lists and thread columns (and its name).
    warnings : list of str
        Where tables left out are told.

    Attributes
    ----------
    blocks : list of RegionBlock
        The blocks, in order.
    pending : PendingInfo or None
        What the last ``STRUCT,Info`` block said about the next block
        (LIKWID 4.0.x).
    """

    def __init__(self, lines: LineWindow, lists: SharedLists, warnings: list[str]) -> None:
        self.lines = lines
        self.lists = lists
        self.source = lists.source
        self.warnings = warnings
        self.blocks: list[RegionBlock] = []
        self.pending: PendingInfo | None = None
        self._dropped: set[tuple] = set()  # (region, group index, group) of incomplete tables

    def _error(self, index: int, expected: str, found: str | None = None) -> LikwidFormatError:
        return LikwidFormatError(self.source, index + 1, expected, found)

    def add(self, table: CsvTable, region_info: RegionInfo | None) -> None:
        """Add a table read by :meth:`~roofline_widget.io.csv_rows.CsvRowReader.read_table`.

        Raises
        ------
        LikwidFormatError
            For thread columns that differ from the Region Info's or the Raw
            table's, a STAT table before its table or without the columns Sum,
            Min, Max and Avg.
        """
        if table.incomplete:
            region = self.region_of(table)
            self.warnings.append(f"{self.source}, line {table.line}: {table.incomplete}; "
                                 f"the {table.kind}{' STAT' if table.stat else ''} table of "
                                 f"region {region!r}, group {table.group_index} is "
                                 "incomplete and not used")
            self._dropped.add((region, table.group_index, table.group))
        elif table.stat:
            self._add_stats(table)
        elif table.kind == "Raw":
            self._add_raw(table, region_info)
        else:
            self._add_metrics(table)

    def region_of(self, table: CsvTable) -> str:
        """The region a table belongs to (its ``TABLE`` line's, a 4.0.x ``STRUCT,Info``
        block's, or the whole run)."""
        if table.region is not None:
            return table.region
        pending = self.pending
        if pending is not None and pending.group_index == table.group_index:
            return pending.region
        return WHOLE_RUN_REGION

    def _current_block(self, table: CsvTable) -> RegionBlock | None:
        if not self.blocks:
            return None
        block = self.blocks[-1]
        if (block.region, block.group_index, block.group) == (
                self.region_of(table), table.group_index, table.group):
            return block
        return None

    def _add_raw(self, table: CsvTable, region_info: RegionInfo | None) -> None:
        threads = self.lists.threads(table.columns, table.header_index + 1)
        pending = self.pending
        if region_info is None and pending is not None and table.region is None \
                and pending.group_index == table.group_index and pending.info.threads:
            region_info = pending.info
        if region_info is not None and [t.label for t in region_info.threads] != \
                [t.label for t in threads]:
            raise self._error(table.header_index, "the same thread columns as the Region Info "
                              "table", ",".join(table.columns))
        block = RegionBlock(self.region_of(table), table.group_index, table.group,
                            table.line, threads)
        if region_info is not None:
            block.runtime, block.call_count = region_info.runtime, region_info.call_count
        events, counters, rows = [], [], []
        for (event, counter), values in zip(table.labels, table.values):
            if counter == "CTR" and event == "Region calls":
                block.call_count = values
            elif counter == "TSC" and event.startswith("Runtime"):
                if block.runtime is None:
                    block.runtime = values
            else:
                events.append(event)
                counters.append(counter)
                rows.append(values)
        block.event_names = self.lists.names(event_names(events, counters))
        block.events = np.array(rows).reshape(len(rows), len(threads))
        self.blocks.append(block)

    def _add_metrics(self, table: CsvTable) -> None:
        threads = self.lists.threads(table.columns, table.header_index + 1)
        block = self._current_block(table)
        if block is None:
            block = RegionBlock(self.region_of(table), table.group_index, table.group,
                                table.line, threads)
            self.blocks.append(block)
        elif [t.label for t in block.threads] != [t.label for t in threads]:
            raise self._error(table.header_index, f"the thread columns of the Raw table on line "
                              f"{block.line} ({', '.join(t.label for t in block.threads)})",
                              ",".join(table.columns))
        block.metric_names = self.lists.names([label[0] for label in table.labels])
        block.metrics = np.array(table.values).reshape(len(table.labels), len(threads))

    def _add_stats(self, table: CsvTable) -> None:
        index = table.line - 1
        block = self._current_block(table)
        region = self.region_of(table)
        if block is None and (region, table.group_index, table.group) in self._dropped:
            self.warnings.append(f"{self.source}, line {table.line}: STAT table of an "
                                 f"incomplete {table.kind} table not used")
            return
        if block is None:
            raise self._error(index, f"a {table.kind} table of region {region!r}, "
                              f"group {table.group_index} before its STAT table", self.lines[index])
        position = {name.capitalize(): i for i, name in enumerate(table.columns)}
        if any(c not in position for c in STAT_COLUMNS):
            raise self._error(table.header_index, "STAT columns Sum, Min, Max, Avg",
                              ",".join(table.columns))
        kind = "event" if table.kind == "Raw" else "metric"
        picks = [position[c] for c in STAT_COLUMNS]
        names = [_without_stat(label[0]) for label in table.labels]
        if kind == "event":
            names = event_names(names, [label[1] for label in table.labels])
        block.stats.add(kind, self.lists.names(names), np.array(table.values)[:, picks])


def _without_stat(name: str) -> str:
    """``name`` without a trailing ``STAT`` (any case) after blanks (``"CPI STAT"`` -> ``"CPI"``)."""
    head = name[:-4]
    if name[-4:].upper() == "STAT" and head != head.rstrip():
        return head.rstrip()
    return name
