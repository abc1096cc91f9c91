"""What a parser reads per (region, group): :class:`RegionBlock` and its STAT rows.

Every reader (text tables, CSV, likwid-mpirun) turns its input into a list of
region blocks; :func:`~roofline_widget.io.parsed.build_run` turns them into
the columnar :class:`~roofline_widget.model.LikwidRun`.  A block holds its
numbers as numpy arrays (8 bytes a number) and its STAT rows as one array
(:class:`StatRows`), so that the blocks of a large file take less memory than
its text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["STAT_COLUMNS", "RegionBlock", "StatRows", "event_names"]

#: The LIKWID STAT columns kept in :attr:`LikwidRun.stats`, in this order.
STAT_COLUMNS = ("Sum", "Min", "Max", "Avg")


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

    ``kind`` is ``"event"`` or ``"metric"``, ``name`` drops ``STAT``
    (``"DP [MFLOP/s]"``, ``"INSTR_RETIRED_ANY:FIXC0"``).  Iterating gives the
    tuples; a ``StatRows`` equals the list of its tuples.

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
        self.values = np.zeros((0, len(STAT_COLUMNS)))

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


@dataclass
class RegionBlock:
    """The tables LIKWID printed for one region measured with one group.

    Attributes
    ----------
    region : str
        Region tag (:data:`~roofline_widget.model.WHOLE_RUN_REGION` in
        wrapper mode).
    group_index : int
        The group's id (``Group 2`` -> 2).
    group : str
        The group's name (``MEM_DP``; ``Custom`` for event sets).
    line : int
        1-based line of the block's header in the source.
    threads : list of ThreadColumn
        The per-thread columns, in printed order.
    runtime : numpy.ndarray or None
        ``RDTSC Runtime [s]`` per thread from the Region Info table.
    call_count : numpy.ndarray or None
        Call count per thread (Region Info, or likwid-mpirun's
        ``Region calls`` row).
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
    events: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    metric_names: list = field(default_factory=list)
    metrics: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    stats: StatRows = field(default_factory=StatRows)
