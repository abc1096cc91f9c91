"""What a parser reads per (region, group): :class:`RegionBlock`, and the text's blocks table by table.

Every reader (text tables, CSV, likwid-mpirun) turns its input into a list of region blocks;
:func:`~roofline_widget.io.parsed.build_run` turns them into the columnar
:class:`~roofline_widget.model.LikwidRun`.  A block holds its numbers as numpy arrays (8 bytes
a number) and its STAT rows as one array (:class:`StatRows`), so that the blocks of a large
file take less memory than its text.

:class:`TextBlocks` puts the blocks of a text together: a block starts at a region or group
header line (:meth:`TextBlocks.start`) and takes the tables that follow it
(:meth:`TextBlocks.add_table`): Region Info (runtime and call count per thread), Event,
Metric and their STAT tables; it ends at the next header, a CPU header or the end of the
text (:meth:`TextBlocks.finish`).  Every table of a block must have the same thread columns;
a block without an Event or Metric table is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.cells import SharedLists, version_from_threads
from roofline_widget.io.text_tables import STAT_HEADS, TextTable
from roofline_widget.model import WHOLE_RUN_REGION

__all__ = ["STAT_COLUMNS", "RegionBlock", "StatRows", "TextBlocks", "event_names",
           "text_version"]

#: The LIKWID STAT columns kept in :attr:`LikwidRun.stats`, in this order.
STAT_COLUMNS = STAT_HEADS
#: The arrays of a block or STAT rows without any (shared: arrays are replaced, never changed).
_NO_ROWS = np.zeros((0, 0))
_NO_STATS = np.zeros((0, len(STAT_COLUMNS)))
_NO_ROWS.flags.writeable = _NO_STATS.flags.writeable = False
#: likwid-mpirun's call count row of an Event table, and the runtime row LIKWID 3.x prints there.
_CALLS_EVENT = "Region calls:CTR"
_RUNTIME_EVENT = "Runtime (RDTSC) [s]:TSC"
#: The rows of a Region Info table a block keeps: its runtime and call count per thread.
_INFO_RUNTIME, _INFO_CALLS = "RDTSC Runtime [s]", "call count"


def event_names(events: Sequence[str], counters: Sequence[str]) -> list[str]:
    """The ``"EVENT:COUNTER"`` names of raw event rows (:attr:`RegionBlock.event_names`).

    Examples
    --------
    >>> event_names(["INSTR_RETIRED_ANY", "PMC0_EVENT"], ["FIXC0", "PMC0"])
    ['INSTR_RETIRED_ANY:FIXC0', 'PMC0_EVENT:PMC0']
    """
    return [f"{event}:{counter}" for event, counter in zip(events, counters)]


class StatRows:
    """The STAT rows of one block: ``(kind, name, sum, min, max, avg)`` tuples, stored compactly.

    ``kind`` is ``"event"`` or ``"metric"``, ``name`` drops ``STAT`` (``"DP [MFLOP/s]"``,
    ``"INSTR_RETIRED_ANY:FIXC0"``).  Iterating gives the tuples; a ``StatRows`` equals the list
    of its tuples.

    Examples
    --------
    >>> rows = StatRows()
    >>> rows.add("metric", ["CPI"], np.array([[2.0, 0.5, 1.5, 1.0]]))
    >>> list(rows), len(rows), ("metric", "CPI", 2.0, 0.5, 1.5, 1.0) in rows
    ([('metric', 'CPI', 2.0, 0.5, 1.5, 1.0)], 1, True)
    """

    __slots__ = ("kinds", "names", "values")

    def __init__(self):
        self.kinds: list[str] = []
        self.names: list[str] = []
        self.values = _NO_STATS

    def add(self, kind: str, names: Sequence[str], values: np.ndarray) -> None:
        """Append one STAT table: its row names and a ``(rows, 4)`` array of Sum, Min, Max, Avg."""
        self.kinds += [kind] * len(names)
        self.names += list(names)
        values = np.asarray(values, dtype=np.float64).reshape(len(names), len(STAT_COLUMNS))
        self.values = values if not len(self.values) else np.concatenate([self.values, values])

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[tuple]:
        return iter([(k, n, *v) for k, n, v in zip(self.kinds, self.names, self.values.tolist())])

    def __contains__(self, row: object) -> bool:
        return row in list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StatRows):
            return (self.kinds == other.kinds and self.names == other.names
                    and np.array_equal(self.values, other.values, equal_nan=True))
        return isinstance(other, list) and list(self) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StatRows({list(self)!r})"


@dataclass(slots=True)
class RegionBlock:
    """The tables LIKWID printed for one region measured with one group.

    Attributes
    ----------
    region : str
        Region tag (:data:`~roofline_widget.model.WHOLE_RUN_REGION` in wrapper mode).
    group_index : int
        The group's id (``Group 2`` -> 2).
    group : str
        The group's name (``MEM_DP``; ``Custom`` for event sets).
    line : int
        1-based line of the block's header in the source.
    threads : list of ThreadColumn
        The per-thread columns, in printed order (shared by the blocks of one header).
    runtime : numpy.ndarray or None
        ``RDTSC Runtime [s]`` per thread from the Region Info table.
    call_count : numpy.ndarray or None
        Call count per thread (Region Info, or likwid-mpirun's ``Region calls`` row).
    event_names : list of str
        ``"EVENT:COUNTER"`` per raw event row.
    events : numpy.ndarray
        Raw counts, shape ``(len(event_names), len(threads))``.
    metric_names : list of str
        Derived metric names as printed.
    metrics : numpy.ndarray
        Values, shape ``(len(metric_names), len(threads))``.
    stats : StatRows
        The rows of the STAT tables (``(kind, name, sum, min, max, avg)``).
    """

    region: str
    group_index: int
    group: str
    line: int
    threads: list = field(default_factory=list)
    runtime: np.ndarray | None = None
    call_count: np.ndarray | None = None
    event_names: list = field(default_factory=list)
    events: np.ndarray = field(default_factory=lambda: _NO_ROWS)
    metric_names: list = field(default_factory=list)
    metrics: np.ndarray = field(default_factory=lambda: _NO_ROWS)
    stats: StatRows = field(default_factory=StatRows)


@dataclass(slots=True)
class _OpenBlock:
    """A block being put together: its header's layout (``"3.x"``, ``"4.0"``, ``"4.1"``,
    ``"wrapper"``, ``"implicit"``, ``"mpirun"``), header line, thread columns, tables."""

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
    lists : SharedLists
        The file's shared name lists and thread columns (and the file's name).

    Attributes
    ----------
    blocks : list of RegionBlock
        The finished blocks, in order.
    styles : set of str
        The layout of every finished block.
    versions : dict
        The LIKWID version ranges they show, in order (values unused).
    measuring_group : str or None
        The group of a LIKWID 3.x ``Measuring group <GROUP>`` line, for an Event table
        without a header.
    """

    def __init__(self, lists: SharedLists) -> None:
        self.lists = lists
        self.blocks: list[RegionBlock] = []
        self.styles: set[str] = set()
        self.versions: dict[str, None] = {}
        self.measuring_group: str | None = None
        self.current: _OpenBlock | None = None
        self._rows: dict[tuple, tuple] = {}  # a table's names -> the block's names and rows
        self._versions: dict[tuple, str] = {}  # (layout, thread columns) -> version range

    def _error(self, line: int, expected: str, found: str | None = None) -> LikwidFormatError:
        return LikwidFormatError(self.lists.source, line, expected, found)

    def start(self, region: str, gid: int, group: str, line: int, style: str, header: str
              ) -> None:
        """Finish the open block and start one at the header ``header`` (1-based ``line``)."""
        if self.current is not None:
            self.finish()
        self.current = _OpenBlock(RegionBlock(region, gid, group, line, [], None, None, [],
                                              _NO_ROWS, [], _NO_ROWS, StatRows()), style, header)

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
            raise self._error(current.block.line, "an Event or Metric table after this region "
                              "header (the output ends or the next block starts before any)",
                              current.header)
        block = current.block
        threads = len(block.threads)
        if block.events.shape != (len(block.event_names), threads):
            block.events = np.zeros((0, threads))
        if block.metrics.shape != (len(block.metric_names), threads):
            block.metrics = np.zeros((0, threads))
        self.blocks.append(block)
        self.styles.add(current.style)
        key = (current.style, current.labels)
        version = self._versions.get(key)
        if version is None:
            version = self._versions[key] = text_version(current.style, current.labels)
        self.versions.setdefault(version, None)

    def add_table(self, table: TextTable | tuple) -> None:
        """Add a table (a :class:`TextTable`, or a tuple of its fields) to the open block (an
        Event table without one starts a block).

        Raises
        ------
        LikwidFormatError
            For a table in the wrong place (a Region Info table after the Event table, a
            second Event table, a STAT table before its table, a Metric table without a
            header) or thread columns that differ from the block's first table's.
        """
        line, shape, names, counters, values, top = table
        role, current, labels = shape.role, self.current, shape.value_header
        if role == "event":
            if current is None:  # LIKWID 3.x wrapper mode: an Event table without a header
                current = self.current = _OpenBlock(RegionBlock(
                    WHOLE_RUN_REGION, 1, self.measuring_group or "Group 1", line),
                    "implicit", top)
            elif current.has_events:
                raise self._error(line, "a region header before this second Event table")
            if current.labels is not labels:
                self._threads(current, line, labels, "Event")
            current.has_events = True
            block = current.block
            block.event_names, calls, runtime, kept, _ = self._names(names, counters, role)
            if calls is not None:
                block.call_count = values[calls]
                values = values[kept]
            if block.runtime is None and runtime is not None:
                block.runtime = values[runtime]
            block.events = values
        elif role == "metric":
            if current is None or current.has_metrics:
                raise self._error(line, "a region header and an Event table before this "
                                  "Metric table")
            if current.labels is not labels:
                self._threads(current, line, labels, "Metric")
            current.has_metrics = True
            current.block.metric_names = self._names(names, counters, role)[0]
            current.block.metrics = values
        elif role == "info":
            if current is None or current.has_info or current.has_events or current.has_metrics:
                raise self._error(line, "a 'Region <tag>, Group <n>: <GROUP>' line before this "
                                  "Region Info table")
            if current.labels is not labels:
                self._threads(current, line, labels, "Region Info")
            current.has_info = True
            _, calls, runtime, _, _ = self._names(names, counters, role)
            if runtime is not None:
                current.block.runtime = values[runtime]
            if calls is not None:
                current.block.call_count = values[calls]
        else:
            if current is None or not (current.has_events or current.has_metrics):
                raise self._error(line, "an Event table of a region block before this STAT "
                                  "table")
            self._stats(current, shape, names, counters, values, role)

    def _threads(self, current: _OpenBlock, line: int, labels: tuple, what: str) -> None:
        if current.labels is labels:
            return
        if current.labels is None:
            current.labels = labels
            current.block.threads = self.lists.threads(labels, line)
        elif labels != current.labels:
            raise self._error(line, f"the same thread columns in the {what} table as in the "
                              f"tables above ({', '.join(current.labels)})", ", ".join(labels))

    def _names(self, names: list, counters: list | None, role: str) -> tuple:
        """The names a table gives its block, and the rows of the call count, the runtime
        and the others (Event and Region Info tables), computed once per list of names."""
        key = (id(names), id(counters), role)
        found = self._rows.get(key)
        if found is not None and found[-1] is names:
            return found
        given = names
        if role == "info":  # the rows it gives (of a name printed twice, the last)
            rows = {name: k for k, name in enumerate(names)}
            found = self._rows[key] = (names, rows.get(_INFO_CALLS), rows.get(_INFO_RUNTIME),
                                       None, given)
            return found
        if role.startswith("stat-"):
            names = [n[:-5] if n.endswith(" STAT") else n for n in names]
        if counters is not None and role != "metric":
            names = event_names(names, counters)
        else:
            names = list(names)
        calls = runtime = kept = None
        if role == "event" and _CALLS_EVENT in names:  # likwid-mpirun's call count row
            calls = names.index(_CALLS_EVENT)
            kept = [k for k in range(len(names)) if k != calls]
            del names[calls]
        if role == "event" and _RUNTIME_EVENT in names:
            runtime = names.index(_RUNTIME_EVENT)  # among the rows kept
        found = self._rows[key] = (self.lists.names(names), calls, runtime, kept, given)
        return found

    def _stats(self, current: _OpenBlock, shape, names: list, counters: list | None,
               values: np.ndarray, role: str) -> None:
        heads = shape.value_header
        names = self._names(names, counters, role)[0]
        if all(h in heads for h in STAT_COLUMNS):
            values = values[:, [heads.index(h) for h in STAT_COLUMNS]]
        else:
            nan = np.full(len(names), np.nan)
            values = np.column_stack([values[:, heads.index(h)] if h in heads else nan
                                      for h in STAT_COLUMNS])
        current.block.stats.add(role[5:], names, values)


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
