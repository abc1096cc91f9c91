"""The parsers' result and the runs built of it: :class:`ParsedLikwid`, :func:`run_from`.

A parser (``parse_text``, ``parse_csv``) turns a text into a :class:`ParsedLikwid`: one
:class:`~roofline_widget.io.blocks.RegionBlock` per (region, group) table set, STAT tables in
the blocks' STAT rows, never in thread columns; anything malformed is a
:class:`~roofline_widget.errors.LikwidFormatError` with the 1-based line.  :func:`build_run`
turns the blocks into the columnar :class:`~roofline_widget.model.LikwidRun`.  The key columns
of every reader, scope-profiler's and Nsight Compute's too, are built by :func:`key_table` and
checked by :func:`check_metric_names` and :func:`check_unique_rows`.
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io.blocks import STAT_COLUMNS, RegionBlock
from roofline_widget.io.cells import ThreadColumn
from roofline_widget.io.key_codes import column_codes, duplicated, integer_codes
from roofline_widget.io.run_marks import RunMark
from roofline_widget.io.runs import RunPlan, plan_runs
from roofline_widget.model import Layout, LikwidRun
from roofline_widget.schema import KEY_COLUMNS

__all__ = ["STATS_FRAME_COLUMNS", "ParsedLikwid", "RegionBlock", "ThreadColumn", "build_run",
           "check_metric_names", "check_table_rows", "check_unique_rows", "key_table",
           "merge_runs", "relabel", "run_from", "warn_passed_over"]

#: The columns of :attr:`LikwidRun.stats`.
STATS_FRAME_COLUMNS = ["source", "line", "rank", "region", "group_index", "group",
                       "kind", "name", *STAT_COLUMNS]


def _stacked(blocks, names_attr: str, values_attr: str, offsets, release: bool) -> pd.DataFrame:
    """Per-block (names x threads) arrays as one row-aligned frame, NaN where a block lacks a name.

    The numbers are written once, into the one 2-D array the frame is made of: the blocks
    that share a list of names (one list per distinct table of a file) a few thousand at a
    time; with ``release`` each block's array is dropped once copied, so a large file's
    numbers are never held twice.
    """
    total = int(offsets[-1])
    position: dict[str, int] = {}
    groups: dict[int, tuple[list, list[int]]] = {}  # a list of names -> the blocks with it
    for k, block in enumerate(blocks):
        names = getattr(block, names_attr)
        if names:
            group = groups.get(id(names))
            if group is None or group[0] is not names:
                group = groups[id(names)] = (names, [])
                for name in names:
                    position.setdefault(name, len(position))
            group[1].append(k)
    if not position:
        return pd.DataFrame(index=range(total))
    data = np.full((len(position), total), np.nan)
    counts = np.diff(offsets)
    for names, members in groups.values():
        rows = np.fromiter((position[n] for n in names), dtype=np.intp, count=len(names))
        for first in range(0, len(members), _BATCH):
            batch = members[first:first + _BATCH]
            values = np.concatenate([getattr(blocks[k], values_attr) for k in batch], axis=1)
            data[rows[:, None], _columns(offsets, counts, batch)] = values
            if release:
                for k in batch:
                    setattr(blocks[k], values_attr, _RELEASED)
    return pd.DataFrame(data.T, columns=list(position), copy=False)


def _columns(offsets: np.ndarray, counts: np.ndarray, members: list[int]) -> np.ndarray:
    """The rows of the run (columns of the stacked array) of the threads of ``members``."""
    sizes = counts[members]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return np.arange(int(sizes.sum())) + np.repeat(offsets[members] - starts, sizes)


#: How many blocks' arrays are stacked at a time (bounds the memory of the copy).
_BATCH = 4096
#: What a released block array is replaced with (see :func:`build_run`).
_RELEASED = np.zeros((0, 0))


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
    marks : list of RunMark
        Where a new measurement may start (CPU headers, separator and
        command lines), in file order: :func:`run_from` splits a file of
        several runs there (:mod:`roofline_widget.io.runs`).
    """

    blocks: list[RegionBlock]
    layout: Layout
    cpu_name: str | None = None
    cpu_type: str | None = None
    cpu_clock: str | None = None
    likwid_version: str | None = None
    warnings: list[str] = field(default_factory=list)
    marks: list[RunMark] = field(default_factory=list)


def run_from(parsed: ParsedLikwid, *, source, label: str | None = None) -> LikwidRun:
    """Build the :class:`~roofline_widget.model.LikwidRun` of a parser's result.

    A file of several runs (:func:`~roofline_widget.io.runs.plan_runs`) gives
    one run holding every row, its :attr:`~LikwidRun.runs` the runs one by
    one; blocks printed twice identically are read once, noted in
    ``run.warnings``.  The blocks' metric and event arrays are moved into the
    run (``parsed.blocks`` keep their names, not their numbers).

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
    source = str(source)
    label = label or Path(source).stem
    check_table_rows(parsed.blocks, source)  # before the blocks are compared with each other
    plan = plan_runs(parsed.blocks, parsed.marks, source)
    several = len(plan.bounds) > 1
    run = build_run(plan.blocks, source=source, label=label, layout=parsed.layout,
                    cpu_name=parsed.cpu_name, cpu_type=parsed.cpu_type,
                    cpu_clock=parsed.cpu_clock, likwid_version=parsed.likwid_version,
                    warnings=[*parsed.warnings, *plan.notes], unique=not several,
                    release=True)
    if several:
        run.runs = _runs_of(run, plan)
    return run


def _runs_of(run: LikwidRun, plan: RunPlan) -> tuple[LikwidRun, ...]:
    """The runs of a file of several: row slices of ``run`` (no copy of the numbers)."""
    counts = np.fromiter((len(b.threads) for b in plan.blocks), dtype=np.intp,
                         count=len(plan.blocks))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    stat_lines = run.stats["line"].to_numpy() if len(run.stats) else np.zeros(0, dtype=np.int64)
    run_codes = len(plan.bounds) + np.arange(len(run.table), dtype=np.int64)  # runs checked at once
    for number, (first, stop) in enumerate(plan.bounds):
        run_codes[int(offsets[first]):int(offsets[stop])] = number
    check_unique_rows(run.table, ["source", "rank", "region", "group", "thread"],
                      "each (rank, region, group, thread) once in a run", run.sources[0],
                      within=run_codes)
    runs = []
    for (first, stop), info in zip(plan.bounds, plan.infos):
        rows = slice(int(offsets[first]), int(offsets[stop]))
        table = run.table.iloc[rows].reset_index(drop=True)
        in_run = (stat_lines >= info.first_line) & (stat_lines <= info.last_line)
        runs.append(LikwidRun(
            label=info.label_for(run.label), sources=run.sources, table=table,
            events=run.events.iloc[rows].reset_index(drop=True),
            stats=run.stats[in_run].reset_index(drop=True), cpu_name=run.cpu_name,
            cpu_type=run.cpu_type, cpu_clock=run.cpu_clock, likwid_version=run.likwid_version,
            layout=run.layout, run_info=info))
    return tuple(runs)


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


def check_table_rows(blocks, source: str) -> None:
    """Raise :class:`LikwidFormatError` for a block whose Event or Metric table names a row twice.

    LIKWID prints each event (``EVENT:COUNTER``) and each metric of a group
    once: a name printed twice in one table means rows of another table
    among its own (a damaged file), and which of the two values is the
    region's cannot be told.
    """
    first: dict[int, tuple] = {}  # name lists are shared between blocks: each checked once
    for block in blocks:
        first.setdefault(id(block.event_names), (block, "Event", block.event_names))
        first.setdefault(id(block.metric_names), (block, "Metric", block.metric_names))
    for block, table, names in first.values():
        if len(set(names)) < len(names):
            twice = next(n for k, n in enumerate(names) if n in names[:k])
            raise LikwidFormatError(source, block.line, f"each row of the {table} table of "
                                    f"region {block.region!r} once", f"{twice!r} twice")


def check_unique_rows(table: pd.DataFrame, subset: list[str], expected: str,
                      source: str | None = None, within: np.ndarray | None = None) -> None:
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
    within : numpy.ndarray, optional
        Per row a code (0 or more): a row repeats only a row of the same code (the runs of a
        file, checked in one pass); the first repeated row in table order is named.
    """
    again = _repeated_rows(table, subset, within)
    if again.any():
        row = table.iloc[int(np.flatnonzero(again)[0])]
        raise LikwidFormatError(
            row["source"] if source is None else source, int(row["line"]), expected,
            f"region {row['region']!r}, group {row['group']}, thread {row['thread']}, "
            f"rank {row['rank']} again",
        )


def _repeated_rows(table: pd.DataFrame, subset: list[str],
                   within: np.ndarray | None = None) -> np.ndarray:
    """Per row whether an earlier row has the same ``subset`` values (``table.duplicated``, a
    missing value equal to a missing one), from the columns' integer codes: nothing hashed per
    row of text."""
    columns = [] if within is None else [np.asarray(within, dtype=np.int64)]
    for name in subset:
        column = table[name]
        if pd.api.types.is_integer_dtype(column.dtype):
            columns.append(integer_codes(column.to_numpy()))
        else:  # a categorical gives its codes; -1 (missing) becomes a code of its own
            columns.append(column_codes(column)[0] + 1)
    return duplicated(columns) if len(table) else np.zeros(0, dtype=bool)


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
              cpu_clock=None, likwid_version=None, warnings=None, rank=None,
              unique: bool = True, release: bool = False) -> LikwidRun:
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
    unique : bool, default True
        Check that each (rank, region, group, thread) appears once (False for
        the rows of several runs, which are checked run by run).
    release : bool, default False
        Move the blocks' metric and event arrays into the run: each block's
        arrays are dropped (empty) once copied, so that the numbers of a
        large file are never held twice (what :func:`run_from` does).

    Raises
    ------
    LikwidFormatError
        If ``blocks`` is empty, a table names a row twice, or one (rank,
        region, group, thread) appears twice.
    """
    source = str(source)
    if not blocks:
        raise LikwidFormatError(source, None, "at least one LIKWID region table "
                                "(a 'Region <tag>, Group <n>: <GROUP>' block, a "
                                "likwid-mpirun 'Region:'/'Group:' block or a CSV 'TABLE' block)")
    check_table_rows(blocks, source)
    counts = np.fromiter((len(b.threads) for b in blocks), dtype=np.intp, count=len(blocks))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    total = int(offsets[-1])
    default_rank = 0 if rank is None else int(rank)

    def per_block(values, dtype=None):
        return np.repeat(np.array(values, dtype=dtype), counts)

    def optional(attr):
        values = [getattr(block, attr) for block in blocks]
        if all(v is None for v in values):
            return np.full(total, np.nan)
        missing: dict[int, np.ndarray] = {}  # threads -> NaN of as many
        out = np.concatenate([missing.setdefault(n, np.full(n, np.nan)) if v is None else v
                              for v, n in zip(values, counts.tolist())]).astype(np.float64)
        if len(out) != total:  # a block whose row is not one value per thread
            raise ValueError(f"{attr} of {len(out)} threads for {total} thread rows")
        return out

    threads = _thread_columns(blocks, default_rank)
    keys = key_table(
        source=source, total=total,
        line=per_block([b.line for b in blocks]),
        rank=threads["rank"],
        region=per_block([b.region for b in blocks], object),
        group_index=per_block([b.group_index for b in blocks]),
        group=per_block([b.group for b in blocks], object),
        thread=threads["label"], host=threads["host"], cpu=threads["cpu"],
        device=threads["device"],
        call_count=optional("call_count"),
        runtime_s=optional("runtime"),
    )
    metrics = _stacked(blocks, "metric_names", "metrics", offsets, release)
    check_metric_names(metrics.columns, source)
    runtime_metric = "Runtime (RDTSC) [s]"
    if runtime_metric in metrics.columns:
        missing = np.isnan(keys["runtime_s"].to_numpy())
        keys.loc[missing, "runtime_s"] = metrics[runtime_metric].to_numpy()[missing]
    table = pd.concat([keys, metrics], axis=1)
    if unique:
        check_unique_rows(table, ["source", "rank", "region", "group", "thread"],
                          "each (rank, region, group, thread) once", source)
    events = _stacked(blocks, "event_names", "events", offsets, release)
    stats = _stats_frame(blocks, source, default_rank)
    return LikwidRun(
        label=label or Path(source).stem, sources=(source,), table=table, events=events,
        stats=stats, cpu_name=cpu_name, cpu_type=cpu_type, cpu_clock=cpu_clock,
        likwid_version=likwid_version, layout=layout, warnings=list(warnings or []),
    )


def _thread_columns(blocks, default_rank: int) -> dict[str, np.ndarray]:
    """The per-thread key columns of every block's rows (once per thread list: blocks of
    one header share theirs)."""
    columns: dict[int, tuple] = {}
    parts = []
    for block in blocks:
        found = columns.get(id(block.threads))
        if found is None or found[-1] is not block.threads:
            threads = block.threads
            found = columns[id(threads)] = (
                np.array([t.label for t in threads], dtype=object),
                np.array([t.host for t in threads], dtype=object),
                np.array([t.cpu for t in threads], dtype=np.int64),
                np.array([default_rank if t.rank is None else t.rank for t in threads],
                         dtype=np.int64),
                np.array([str(t.device) for t in threads], dtype=object), threads)
        parts.append(found)
    return {name: np.concatenate([part[k] for part in parts]) if parts else np.zeros(0)
            for k, name in enumerate(("label", "host", "cpu", "rank", "device"))}


def _stats_frame(blocks, source, rank) -> pd.DataFrame:
    """The STAT rows of all blocks, built column by column (names as categoricals)."""
    counts = np.fromiter((len(b.stats) for b in blocks), dtype=np.intp, count=len(blocks))
    total = int(counts.sum())
    if not total:
        return pd.DataFrame([], columns=STATS_FRAME_COLUMNS)

    def per_block(values, dtype=object):
        return np.repeat(np.array(values, dtype=dtype), counts)

    values = np.concatenate([b.stats.values for b in blocks if len(b.stats)])
    columns = {
        "source": pd.Categorical.from_codes(np.zeros(total, dtype=np.int8), [source]),
        "line": per_block([b.line for b in blocks], np.int64),  # the block's, as in the table
        "rank": np.full(total, rank, dtype=np.int64),
        "region": pd.Categorical(per_block([b.region for b in blocks])),
        "group_index": per_block([b.group_index for b in blocks], np.int64),
        "group": pd.Categorical(per_block([b.group for b in blocks])),
        "kind": pd.Categorical([k for b in blocks for k in b.stats.kinds]),
        "name": pd.Categorical([n for b in blocks for n in b.stats.names]),
    }
    columns.update((name, values[:, k]) for k, name in enumerate(STAT_COLUMNS))
    return pd.DataFrame(columns)


def relabel(run: LikwidRun, label: str) -> LikwidRun:
    """Give ``run`` the label ``label``, and each of its :attr:`~LikwidRun.runs` ``label#n (...)``."""
    run.label = label
    for part in run.runs:
        part.label = part.run_info.label_for(label)
    return run


def merge_runs(runs, *, label=None) -> LikwidRun:
    """Merge runs of one job (e.g. a MEM_DP file and a FLOPS_DP file) into one.

    Rows are concatenated; metrics of different groups measured on the same
    (rank, region, thread) are later joined by the aggregation in
    :mod:`roofline_widget.points`.  Files of several runs each (a MEM_DP
    sweep and a FLOPS_DP sweep) are joined run by run: the first runs of
    every file, then the second ones, ...

    Raises
    ------
    LikwidFormatError
        If one (rank, region, group, thread) appears in two of the files (in
        one run), or the files hold different numbers of runs.
    """
    runs = list(runs)
    if len(runs) == 1:
        return relabel(runs[0], label) if label else runs[0]
    counts = [len(r.each_run()) for r in runs]
    if len(set(counts)) > 1:
        held = ", ".join(f"{count} run(s) in {Path(r.sources[0]).name}"
                         for count, r in zip(counts, runs))
        raise LikwidFormatError(
            runs[0].sources[0], None, "files holding the same number of runs, to be joined run "
            f"by run (read files of different jobs separately); they hold {held}")
    merged = _joined(runs, label, unique=counts[0] == 1)
    if counts[0] > 1:
        parts = [_joined(list(side), None, unique=True) for side in zip(*(r.runs for r in runs))]
        for part, first in zip(parts, runs[0].runs):
            part.run_info = first.run_info
        merged.runs = tuple(parts)
        relabel(merged, merged.label)
    return merged


def _joined(runs: list[LikwidRun], label: str | None, unique: bool) -> LikwidRun:
    """The rows of ``runs`` in one run (checked for repeated rows if ``unique``)."""
    table = pd.concat([r.table for r in runs], ignore_index=True)
    for column in ("source", "region", "group", "thread", "host", "device"):
        table[column] = table[column].astype("category")
    if unique:
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
