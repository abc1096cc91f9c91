"""The parser core shared by every reader: blocks, the parsers' result, building runs.

Each format reader (text tables, CSV, likwid-mpirun) turns its input into a
list of :class:`RegionBlock` -- one per (region, group) table set -- and
:func:`build_run` turns those blocks into the columnar
:class:`~roofline_widget.model.LikwidRun`.
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io.cells import (
    NAN_TOKENS,
    ThreadColumn,
    parse_cells,
    parse_thread_header,
    thread_columns,
    version_from_threads,
)
from roofline_widget.model import Layout, LikwidRun
from roofline_widget.schema import KEY_COLUMNS

__all__ = [
    "NAN_TOKENS",
    "STATS_FRAME_COLUMNS",
    "STAT_COLUMNS",
    "ParsedLikwid",
    "RegionBlock",
    "ThreadColumn",
    "build_run",
    "check_metric_names",
    "check_unique_rows",
    "key_table",
    "merge_runs",
    "parse_cells",
    "parse_thread_header",
    "run_from",
    "thread_columns",
    "version_from_threads",
    "warn_passed_over",
]

#: The LIKWID STAT columns kept in :attr:`LikwidRun.stats`, in this order.
STAT_COLUMNS = ("Sum", "Min", "Max", "Avg")
#: The columns of :attr:`LikwidRun.stats`.
STATS_FRAME_COLUMNS = ["source", "line", "rank", "region", "group_index", "group",
                       "kind", "name", *STAT_COLUMNS]


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


@dataclass
class ParsedLikwid:
    """What a format parser read from one text: the contract between parsers and :func:`run_from`.

    Attributes
    ----------
    blocks : list of RegionBlock
        One per (region, group) table set, in file order.
    layout : Layout
        ``Layout.PERFCTR_TEXT``, ``PERFCTR_CSV``, ``MPIRUN_TEXT`` or ``MPIRUN_CSV``.
    cpu_name, cpu_type, cpu_clock : str or None
        What the CPU header said, where printed.
    likwid_version : str or None
        Version range inferred from the layout (``">= 5.1"``).
    warnings : list of str
        What the parser passed over, and where.
    """

    blocks: list[RegionBlock]
    layout: Layout
    cpu_name: str | None = None
    cpu_type: str | None = None
    cpu_clock: str | None = None
    likwid_version: str | None = None
    warnings: list[str] = field(default_factory=list)


def run_from(parsed: ParsedLikwid, *, source, label: str | None = None) -> LikwidRun:
    """Build the :class:`~roofline_widget.model.LikwidRun` of a parser's result.

    Parameters
    ----------
    parsed : ParsedLikwid
        What :func:`~roofline_widget.io.likwid_text.parse_text` or
        :func:`~roofline_widget.io.likwid_csv.parse_csv` returned.
    source : str or path
        The file it came from.
    label : str, optional
        Name of the run; the file stem by default.
    """
    return build_run(parsed.blocks, source=source, label=label, layout=parsed.layout,
                     cpu_name=parsed.cpu_name, cpu_type=parsed.cpu_type,
                     cpu_clock=parsed.cpu_clock, likwid_version=parsed.likwid_version,
                     warnings=parsed.warnings)


def key_table(*, source: str, total: int, line, rank, region, group_index, group, thread,
              host, cpu, device, call_count, runtime_s) -> pd.DataFrame:
    """The :data:`~roofline_widget.model.KEY_COLUMNS` frame, in their order and dtypes.

    Every argument but ``source`` and ``total`` is one value per row (an
    array or a :class:`pandas.Categorical`); ``region``, ``group``,
    ``thread``, ``host`` and ``device`` become categoricals, ``line``,
    ``rank``, ``group_index`` and ``cpu`` int64, the rest float64.
    """
    def category(values):
        if isinstance(values, pd.Categorical):
            return values
        return pd.Categorical(np.asarray(values, dtype=object)) if total else pd.Categorical([])

    columns = {
        "source": pd.Categorical.from_codes(np.zeros(total, dtype=np.int8), [source]),
        "line": np.asarray(line, dtype=np.int64),
        "rank": np.asarray(rank, dtype=np.int64),
        "region": category(region),
        "group_index": np.asarray(group_index, dtype=np.int64),
        "group": category(group),
        "thread": category(thread),
        "host": category(host),
        "cpu": np.asarray(cpu, dtype=np.int64),
        "device": category(device),
        "call_count": np.asarray(call_count, dtype=np.float64),
        "runtime_s": np.asarray(runtime_s, dtype=np.float64),
    }
    return pd.DataFrame({name: columns[name] for name in KEY_COLUMNS})


def check_metric_names(names, source: str) -> None:
    """Raise :class:`LikwidFormatError` if a metric is named like a key column."""
    clash = set(names) & set(KEY_COLUMNS)
    if clash:
        raise LikwidFormatError(source, None, "metric names other than the key columns",
                                ", ".join(sorted(clash)))


def check_unique_rows(table: pd.DataFrame, subset: list[str], expected: str,
                      source: str | None = None) -> None:
    """Raise :class:`LikwidFormatError` for the first row repeating ``subset``.

    Parameters
    ----------
    table : pandas.DataFrame
        A frame with the key columns.
    subset : list of str
        The columns that together must be unique.
    expected : str
        What the message says was expected.
    source : str, optional
        The file named in the message (default: the row's ``source``).
    """
    duplicated = table.duplicated(subset=subset)
    if duplicated.any():
        row = table[duplicated].iloc[0]
        raise LikwidFormatError(
            row["source"] if source is None else source, int(row["line"]), expected,
            f"region {row['region']!r}, group {row['group']}, thread {row['thread']}, "
            f"rank {row['rank']} again",
        )


def warn_passed_over(source, messages: Sequence[str], stacklevel: int = 2) -> None:
    """Warn :class:`~roofline_widget.errors.LikwidReadWarning` listing what a reader passed over.

    Every reader warns this one way: one warning per file, one message per
    line. Nothing is warned when ``messages`` is empty.
    """
    if not messages:
        return
    listed = "\n".join(f"  - {message}" for message in messages)
    _warnings.warn(f"{source}: read, but passed over {len(messages)} part(s) of it "
                   f"(also in run.warnings):\n{listed}", LikwidReadWarning,
                   stacklevel=stacklevel + 1)


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
    layout, cpu_name, cpu_type, cpu_clock, likwid_version, warnings
        As in :class:`ParsedLikwid` (see :func:`run_from`).
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

    keys = key_table(
        source=source, total=total,
        line=per_block([b.line for b in blocks]),
        rank=per_thread(lambda t: default_rank if t.rank is None else t.rank, np.int64),
        region=per_block([b.region for b in blocks]).astype(object),
        group_index=per_block([b.group_index for b in blocks]),
        group=per_block([b.group for b in blocks]).astype(object),
        thread=[t.label for b in blocks for t in b.threads],
        host=[t.host for b in blocks for t in b.threads],
        cpu=per_thread(lambda t: t.cpu, np.int64),
        device=[str(t.device) for b in blocks for t in b.threads],
        call_count=optional("call_count"),
        runtime_s=optional("runtime"),
    )
    metrics = _stack_by_signature(blocks, "metric_names", "metrics", offsets)
    check_metric_names(metrics.columns, source)
    runtime_metric = "Runtime (RDTSC) [s]"
    if runtime_metric in metrics.columns:
        missing = np.isnan(keys["runtime_s"].to_numpy())
        keys.loc[missing, "runtime_s"] = metrics[runtime_metric].to_numpy()[missing]
    table = pd.concat([keys, metrics], axis=1)
    check_unique_rows(table, ["source", "rank", "region", "group", "thread"],
                      "each (rank, region, group, thread) once", source)
    events = _stack_by_signature(blocks, "event_names", "events", offsets)
    stats = _stats_frame(blocks, source, default_rank)
    return LikwidRun(
        label=label or Path(source).stem, sources=(source,), table=table, events=events,
        stats=stats, cpu_name=cpu_name, cpu_type=cpu_type, cpu_clock=cpu_clock,
        likwid_version=likwid_version, layout=layout, warnings=list(warnings or []),
    )


def _stats_frame(blocks, source, rank) -> pd.DataFrame:
    """The STAT rows of all blocks, built column by column."""
    rows = [stat for b in blocks for stat in b.stats]
    if not rows:
        return pd.DataFrame([], columns=STATS_FRAME_COLUMNS)
    counts = np.fromiter((len(b.stats) for b in blocks), dtype=np.intp, count=len(blocks))

    def per_block(values, dtype=object):
        return np.repeat(np.array(values, dtype=dtype), counts)

    kinds, names, *numbers = zip(*rows)
    columns = {
        "source": [source] * len(rows),
        "line": per_block([b.line for b in blocks], np.int64),  # the block's, as in the table
        "rank": np.full(len(rows), rank, dtype=np.int64),
        "region": per_block([b.region for b in blocks]),
        "group_index": per_block([b.group_index for b in blocks], np.int64),
        "group": per_block([b.group for b in blocks]),
        "kind": kinds,
        "name": names,
    }
    columns.update((name, np.array(column, dtype=np.float64))
                   for name, column in zip(STAT_COLUMNS, numbers))
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
    check_unique_rows(table, ["rank", "region", "group", "thread"],
                      "each (rank, region, group, thread) once across the merged files "
                      "(read files of different jobs separately)")
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
        topology=next((r.topology for r in runs if r.topology is not None), None),
        full_names={name: full for r in runs for name, full in r.full_names.items()},
    )
