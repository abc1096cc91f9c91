"""The parser core shared by every reader: cells, thread headers, blocks.

Each format reader (text tables, CSV, likwid-mpirun) turns its input into a
list of :class:`RegionBlock` -- one per (region, group) table set -- and
:func:`build_run` turns those blocks into the columnar
:class:`~roofline_widget.model.LikwidRun`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LikwidFormatError
from ..model import CPU, GPU, KEY_COLUMNS, LikwidRun

__all__ = ["RegionBlock", "ThreadColumn", "parse_thread_header", "parse_cells",
           "build_run", "NAN_TOKENS"]

#: Cell texts that mean "not measured" (LIKWID prints ``-``) or not a number.
NAN_TOKENS = frozenset({"-", "nan", "-nan", "NaN", "inf", "-inf", "", "N/A"})

_HWTHREAD = re.compile(r"^(?:HWThread|Core|core|CPU|Thread)\s+(\d+)$")
_GPU = re.compile(r"^GPU\s+(\d+)$")
_MPI = re.compile(r"^(?P<host>[^:\s]+):(?P<rank>\d+):(?P<cpu>\d+)$")


@dataclass(frozen=True)
class ThreadColumn:
    """What a per-thread column header says.

    Attributes
    ----------
    label : str
        The header as printed (``"HWThread 3"``, ``"sonata:1:25"``).
    cpu : int
        OS id of the hardware thread, or the GPU id.
    device : str
        ``"cpu"`` or ``"gpu"``.
    rank : int or None
        MPI rank from a likwid-mpirun ``host:rank:cpu`` header.
    host : str
        Host name from such a header, ``""`` otherwise.
    """

    label: str
    cpu: int
    device: str = CPU
    rank: int | None = None
    host: str = ""


def parse_thread_header(text: str) -> ThreadColumn | None:
    """Parse a per-thread column header, or return None if it is not one.

    Examples
    --------
    >>> parse_thread_header("HWThread 64")
    ThreadColumn(label='HWThread 64', cpu=64, device='cpu', rank=None, host='')
    >>> parse_thread_header("sonata:1:25").rank
    1
    >>> parse_thread_header("GPU 0").device
    'gpu'
    """
    text = text.strip()
    match = _HWTHREAD.match(text)
    if match:
        return ThreadColumn(text, int(match[1]))
    match = _GPU.match(text)
    if match:
        return ThreadColumn(text, int(match[1]), GPU)
    match = _MPI.match(text)
    if match:
        return ThreadColumn(text, int(match["cpu"]), CPU, int(match["rank"]), match["host"])
    return None


def _cell_to_float(cell: str) -> float:
    cell = cell.strip()
    if cell in NAN_TOKENS:
        return np.nan
    return float(cell)


def parse_cells(cells, source, line: int, what: str) -> np.ndarray:
    """Convert a row of cell texts to float64, ``-`` and ``nan`` to NaN.

    Parameters
    ----------
    cells : sequence of str
        The cells (surrounding blanks allowed).
    source, line
        Where the row came from, for the error message.
    what : str
        What the row is (``"values of metric 'CPI'"``), for the error message.

    Raises
    ------
    LikwidFormatError
        If a cell is neither a number nor one of :data:`NAN_TOKENS`.
    """
    try:
        return np.array(cells, dtype=np.float64)
    except ValueError:
        pass
    try:
        return np.array([_cell_to_float(c) for c in cells], dtype=np.float64)
    except ValueError:
        bad = next(c for c in cells if not _is_number(c))
        raise LikwidFormatError(source, line, f"numbers or '-' as {what}", bad) from None


def _is_number(cell: str) -> bool:
    try:
        _cell_to_float(cell)
    except ValueError:
        return False
    return True


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
    stats : list of tuple
        ``(kind, name, sum, min, max, avg)`` rows of the STAT tables, where
        ``kind`` is ``"event"`` or ``"metric"`` and ``name`` drops ``STAT``.
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
    stats: list = field(default_factory=list)


def _stack_by_signature(blocks, names_attr: str, values_attr: str, offsets) -> pd.DataFrame:
    """Concatenate per-block (names x threads) arrays into one row-aligned frame.

    Blocks that share a list of names are stacked together with one
    ``np.concatenate``; frames of different name sets are then aligned by
    column, NaN filling the gaps.
    """
    total = offsets[-1]
    order: dict[str, None] = {}
    by_signature: dict[tuple, list[int]] = {}
    for index, block in enumerate(blocks):
        names = tuple(getattr(block, names_attr))
        by_signature.setdefault(names, []).append(index)
        for name in names:
            order.setdefault(name, None)
    columns = list(order)
    position = {name: i for i, name in enumerate(columns)}
    data = np.full((len(columns), total), np.nan)
    for names, indices in by_signature.items():
        if not names:
            continue
        rows = np.fromiter((position[n] for n in names), dtype=np.intp, count=len(names))
        starts = [offsets[i] for i in indices]
        stacked = np.concatenate([getattr(blocks[i], values_attr) for i in indices], axis=1)
        target = np.concatenate([np.arange(s, s + len(blocks[i].threads))
                                 for s, i in zip(starts, indices)])
        data[np.ix_(rows, target)] = stacked
    return pd.DataFrame(dict(zip(columns, data)), copy=False) if columns else pd.DataFrame(index=range(total))


def build_run(blocks, *, source, label=None, layout="", cpu_name=None, cpu_type=None,
              cpu_clock=None, likwid_version=None, warnings=None, rank=None) -> LikwidRun:
    """Turn parsed region blocks into a :class:`~roofline_widget.model.LikwidRun`.

    Parameters
    ----------
    blocks : list of RegionBlock
        Blocks in the order they were read.
    source : str or path
        The file they came from.
    label : str, optional
        Name of the run; the file stem by default.
    rank : int, optional
        Rank to give rows whose header carries none (default 0).

    Raises
    ------
    LikwidFormatError
        If ``blocks`` is empty, or if one (rank, region, group, thread)
        appears twice.
    """
    source = str(source)
    if not blocks:
        raise LikwidFormatError(source, None, "at least one LIKWID region table "
                                "(a 'Region <tag>, Group <n>: <GROUP>' block, a "
                                "likwid-mpirun 'Region:'/'Group:' block or a CSV 'TABLE' block)")
    counts = np.fromiter((len(b.threads) for b in blocks), dtype=np.intp, count=len(blocks))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    total = int(offsets[-1])
    default_rank = 0 if rank is None else int(rank)

    def per_thread(getter, dtype):
        return np.fromiter((getter(t) for b in blocks for t in b.threads), dtype=dtype, count=total)

    def per_block(values):
        return np.repeat(np.asarray(values), counts)

    def optional(attr):
        out = np.full(total, np.nan)
        for block, start in zip(blocks, offsets[:-1]):
            values = getattr(block, attr)
            if values is not None:
                out[start:start + len(block.threads)] = values
        return out

    keys = pd.DataFrame({
        "source": pd.Categorical([source] * total) if total else pd.Categorical([]),
        "line": per_block([b.line for b in blocks]).astype(np.int64),
        "rank": per_thread(lambda t: default_rank if t.rank is None else t.rank, np.int64),
        "region": pd.Categorical(per_block([b.region for b in blocks]).astype(object)),
        "group_index": per_block([b.group_index for b in blocks]).astype(np.int64),
        "group": pd.Categorical(per_block([b.group for b in blocks]).astype(object)),
        "thread": pd.Categorical([t.label for b in blocks for t in b.threads]),
        "host": pd.Categorical([t.host for b in blocks for t in b.threads]),
        "cpu": per_thread(lambda t: t.cpu, np.int64),
        "device": pd.Categorical([t.device for b in blocks for t in b.threads]),
        "call_count": optional("call_count"),
        "runtime_s": optional("runtime"),
    })
    metrics = _stack_by_signature(blocks, "metric_names", "metrics", offsets)
    clash = set(metrics.columns) & set(KEY_COLUMNS)
    if clash:
        raise LikwidFormatError(source, None, "metric names other than the key columns",
                                ", ".join(sorted(clash)))
    runtime_metric = "Runtime (RDTSC) [s]"
    if runtime_metric in metrics.columns:
        missing = np.isnan(keys["runtime_s"].to_numpy())
        keys.loc[missing, "runtime_s"] = metrics[runtime_metric].to_numpy()[missing]
    table = pd.concat([keys, metrics], axis=1)
    _check_duplicates(table, source)
    events = _stack_by_signature(blocks, "event_names", "events", offsets)
    stats = _stats_frame(blocks, source, default_rank)
    return LikwidRun(
        label=label or Path(source).stem, sources=(source,), table=table, events=events,
        stats=stats, cpu_name=cpu_name, cpu_type=cpu_type, cpu_clock=cpu_clock,
        likwid_version=likwid_version, layout=layout, warnings=list(warnings or []),
    )


def _check_duplicates(table: pd.DataFrame, source: str) -> None:
    subset = ["source", "rank", "region", "group", "thread"]
    duplicated = table.duplicated(subset=subset)
    if duplicated.any():
        row = table[duplicated].iloc[0]
        raise LikwidFormatError(
            source, int(row["line"]), "each (rank, region, group, thread) once",
            f"region {row['region']!r}, group {row['group']}, thread {row['thread']}, "
            f"rank {row['rank']} again",
        )


_STATS_COLUMNS = ["source", "rank", "region", "group_index", "group",
                  "kind", "name", "Sum", "Min", "Max", "Avg"]


def _stats_frame(blocks, source, rank) -> pd.DataFrame:
    """The STAT rows of all blocks, built column by column."""
    rows = [stat for b in blocks for stat in b.stats]
    if not rows:
        return pd.DataFrame([], columns=_STATS_COLUMNS)
    counts = np.fromiter((len(b.stats) for b in blocks), dtype=np.intp, count=len(blocks))

    def per_block(values, dtype=object):
        return np.repeat(np.array(values, dtype=dtype), counts)

    kinds, names, *numbers = zip(*rows)
    columns = {
        "source": [source] * len(rows),
        "rank": np.full(len(rows), rank, dtype=np.int64),
        "region": per_block([b.region for b in blocks]),
        "group_index": per_block([b.group_index for b in blocks], np.int64),
        "group": per_block([b.group for b in blocks]),
        "kind": kinds,
        "name": names,
    }
    columns.update((name, np.array(column, dtype=np.float64))
                   for name, column in zip(_STATS_COLUMNS[-4:], numbers))
    return pd.DataFrame(columns)


def merge_runs(runs, *, label=None) -> LikwidRun:
    """Merge runs of one job (e.g. a MEM_DP file and a FLOPS_DP file) into one.

    Rows are concatenated; metrics of different groups measured on the same
    (rank, region, thread) are later joined by the aggregation in
    :mod:`roofline_widget.points`.

    Raises
    ------
    LikwidFormatError
        If one (rank, region, group, thread) appears in two of the files.
    """
    runs = list(runs)
    if len(runs) == 1:
        run = runs[0]
        if label:
            run.label = label
        return run
    table = pd.concat([r.table for r in runs], ignore_index=True)
    for column in ("source", "region", "group", "thread", "host", "device"):
        table[column] = table[column].astype("category")
    duplicated = table.duplicated(subset=["rank", "region", "group", "thread"])
    if duplicated.any():
        row = table[duplicated].iloc[0]
        raise LikwidFormatError(
            row["source"], int(row["line"]), "each (rank, region, group, thread) once "
            "across the merged files (read files of different jobs separately)",
            f"region {row['region']!r}, group {row['group']}, thread {row['thread']}, "
            f"rank {row['rank']} again",
        )
    metric_order = list(dict.fromkeys(n for r in runs for n in r.metric_names))
    table = table[list(KEY_COLUMNS) + metric_order]
    events = pd.concat([r.events for r in runs], ignore_index=True)
    stats = pd.concat([r.stats for r in runs], ignore_index=True)
    first = runs[0]

    def common(attr):
        values = {getattr(r, attr) for r in runs} - {None}
        return values.pop() if len(values) == 1 else (" / ".join(sorted(values)) or None)

    return LikwidRun(
        label=label or first.label, sources=tuple(s for r in runs for s in r.sources),
        table=table, events=events, stats=stats, cpu_name=common("cpu_name"),
        cpu_type=common("cpu_type"), cpu_clock=common("cpu_clock"),
        likwid_version=common("likwid_version"), layout=common("layout") or "",
        warnings=[w for r in runs for w in r.warnings],
    )
