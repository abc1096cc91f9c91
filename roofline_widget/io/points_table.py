"""A table of roofline points (a DataFrame, a CSV or Parquet file) read as runs of the canonical model.

A points table is what :func:`~roofline_widget.points_dataframe` writes, a
colleague's CSV, another tool's export: one row per point.  It is read into
:class:`~roofline_widget.model.LikwidRun` rows, so every function and view
that takes runs takes it unchanged (``RooflineWidget(points)``,
``plot_roofline(points)``, ``compare_points(points, other)``, the command
line with a ``.csv`` or ``.parquet`` file of points).

The columns read (:mod:`roofline_widget.io.points_cells` checks them; its
:data:`~roofline_widget.io.points_cells.POINT_RATE_COLUMNS` and
:data:`~roofline_widget.io.points_cells.COUNT_COLUMNS` say which names each takes):

* ``region`` (required) and either ``performance_gflops`` and
  ``bandwidth_gbs`` (GFLOP/s and GB/s), or ``performance_gflops`` and the
  intensity ``arithmetic_intensity_flops_per_byte``, or FLOP and byte
  counts with a runtime (``flops``, ``bytes``, ``runtime_seconds``);
* optional: ``file`` (the run's label; every label is a run of its own, and
  labels ``<file>#<n> (...)`` with one ``<file>`` and the numbers of the
  ``run`` column are the runs of one file, a chain), ``rank``
  (0 when missing; -1 for a sum of every rank), ``device`` (``cpu``/``gpu``),
  ``runtime_seconds``, ``call_count``, ``groups``, ``n_threads`` (1 when
  missing), ``flops_metric`` and ``bandwidth_metric`` (the metric names the
  rates are named by; ``FLOP rate [GFLOP/s]`` and
  ``Memory bandwidth [GBytes/s]`` when missing).

Each point becomes ``n_threads`` thread rows of its (file, rank, region,
device), each with an equal share of its rates and its runtime: the sums
over threads, which every view reads, are the point's rates again, and its
thread count (which the beyond-the-hardware check multiplies by) is kept.
The table holds no more: the rows are not a measurement of each thread.
What a points table cannot carry back: ``rank_group`` (the point is keyed
by its ``rank``), ``unmeasured_threads``, intensities given along with both
rates (the ratio of the rates is used).

Bad input raises :class:`~roofline_widget.errors.PointsTableError` naming
the file (or ``<DataFrame>``), the line (a CSV file's line, a frame's row
position + 2, as a CSV written from it without index would number it) and
what was expected.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import PointsTableError
from roofline_widget.io.key_codes import duplicated, integer_codes, text_dtype
from roofline_widget.io.opener import PathOrBuffer, is_file_like, peek, read_bytes, source_name
from roofline_widget.io.parsed import key_table
from roofline_widget.io.points_cells import (
    COUNT_COLUMNS,
    NEEDED,
    POINT_RATE_COLUMNS,
    Rates,
    column_named,
    integer_cells,
    number_cells,
    point_rates,
    relabeled,
    text_cells,
)
from roofline_widget.io.runs import RunInfo
from roofline_widget.model import Layout, LikwidRun
from roofline_widget.units import parse_unit

__all__ = [
    "FRAME_SOURCE",
    "MAX_THREAD_ROWS",
    "PARQUET_MAGIC",
    "is_points_file",
    "is_points_frame",
    "points_table_runs",
    "read_points_table",
    "sniff_points_table",
]

#: The source name of a DataFrame.
FRAME_SOURCE = "<DataFrame>"
#: The first bytes of a Parquet file.
PARQUET_MAGIC = b"PAR1"
#: The most thread rows a table may expand to (the sum of its ``n_threads``).
MAX_THREAD_ROWS = 20_000_000
#: The bytes of a file's start looked at to tell a points table.
_SNIFF_BYTES = 65_536
#: Columns that say a CSV with a ``region`` column holds points (not some other table).
_POINT_MARKERS = frozenset({*POINT_RATE_COLUMNS, *(n for names in COUNT_COLUMNS.values()
                                                   for n in names)})
_CHAIN_LABEL = re.compile(r"^(?P<stem>.+)#(?P<number>[0-9]{1,9})(?: \((?P<detail>.*)\))?$", re.S)


def is_points_frame(obj: object) -> bool:
    """Whether ``obj`` is a pandas DataFrame (any DataFrame is read as a points table)."""
    return isinstance(obj, pd.DataFrame)


def sniff_points_table(head: bytes) -> bool:
    """Whether a file's first bytes are those of a points table.

    A Parquet file (its magic bytes; no LIKWID reader reads one), or text
    whose first line is a CSV header with a ``region`` column and a rate or
    count column (:data:`POINT_RATE_COLUMNS`, :data:`COUNT_COLUMNS`).
    LIKWID's own CSV starts otherwise (``STRUCT,Info``, ``TABLE,Region``, a
    text header).

    Examples
    --------
    >>> sniff_points_table(b"file,region,rank,performance_gflops,bandwidth_gbs\\n")
    True
    >>> sniff_points_table(b"TABLE,Region 1,Group 1 Raw,MEM_DP,6\\n")
    False
    """
    if head.startswith(PARQUET_MAGIC):
        return True
    first = head.split(b"\n", 1)[0].rstrip(b"\r").lstrip(b"\xef\xbb\xbf")
    if b"region" not in first.lower() or b"\x00" in first or b"\r" in first:
        return False  # no header of points (binary, compressed, another table)
    try:
        cells = {cell.strip().lower() for cell in next(csv.reader([first.decode("utf-8",
                                                                                 "replace")]), [])}
    except csv.Error:
        return False
    return "region" in cells and not cells.isdisjoint(_POINT_MARKERS)


def is_points_file(path_or_buffer: PathOrBuffer) -> bool:
    """Whether a path is a regular file holding a points table (False for file objects)."""
    if is_file_like(path_or_buffer):
        return False
    return sniff_points_table(peek(path_or_buffer, _SNIFF_BYTES))


# ------------------------------------------------------------------ reading files
def _file_frame(path_or_buffer: PathOrBuffer) -> tuple[pd.DataFrame, str]:
    """The table of a CSV or Parquet file (every CSV cell as text), and the file's name."""
    name = source_name(path_or_buffer)
    raw = read_bytes(path_or_buffer)
    if raw.startswith(PARQUET_MAGIC):
        try:
            return pd.read_parquet(io.BytesIO(raw)), name
        except ImportError as exc:
            raise ImportError(f"{name}: reading a Parquet file of points needs pyarrow "
                              f"(pip install pyarrow): {exc}") from None
        except (OSError, ValueError) as exc:
            raise PointsTableError(name, None, "a complete Parquet file", str(exc)) from None
    try:
        frame = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False,
                            skip_blank_lines=True)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise PointsTableError(name, None, "a CSV table of points", str(exc)) from None
    return frame, name


# ------------------------------------------------------------------ rows of the model
@dataclass(frozen=True)
class _Points:
    """The checked columns of a points table, one value per point."""

    files: pd.Categorical
    regions: pd.Categorical
    ranks: np.ndarray
    devices: pd.Categorical
    threads: np.ndarray
    call_counts: np.ndarray
    groups: pd.Categorical
    run_numbers: np.ndarray | None
    rates: Rates


def _points(frame: pd.DataFrame, source: str, label: str) -> _Points:
    if not len(frame.columns) or column_named(frame, ["region"]) is None:
        raise PointsTableError(source, 1, f"{NEEDED}; missing 'region'",
                               "columns " + ", ".join(map(str, frame.columns[:12])))
    if not len(frame):
        raise PointsTableError(source, None, "a points table of at least one point", "no rows")
    level = column_named(frame, ["level"])
    if level is not None and frame[level].nunique() > 1:
        raise PointsTableError(source, None, "one memory level per table (hierarchical_points "
                               "writes a row per level): pick one, table[table.level == 'MEM']",
                               "levels " + ", ".join(map(str, frame[level].unique()[:4])))
    regions = text_cells(frame, column_named(frame, ["region"]), "")
    empty = np.flatnonzero(_rows_with(regions, lambda name: name == ""))
    if len(empty):
        raise PointsTableError(source, int(empty[0]) + 2, "a region name", "an empty cell")
    devices = text_cells(frame, column_named(frame, ["device"]), "cpu")
    devices = relabeled(np.asarray(devices.codes), [name.lower() for name in devices.categories])
    bad = np.flatnonzero(_rows_with(devices, lambda name: name not in ("cpu", "gpu")))
    if len(bad):
        raise PointsTableError(source, int(bad[0]) + 2, "device 'cpu' or 'gpu'",
                               str(devices[bad[0]]))
    run_column = column_named(frame, ["run"])
    points = _Points(
        files=text_cells(frame, column_named(frame, ["file"]), label), regions=regions,
        ranks=integer_cells(frame, column_named(frame, ["rank"]), source, 0, schema.ALL_RANKS, 2**31 - 1),
        devices=devices,
        threads=integer_cells(frame, column_named(frame, ["n_threads"]), source, 1, 1, MAX_THREAD_ROWS),
        call_counts=number_cells(frame, column_named(frame, ["call_count"]), source),
        groups=text_cells(frame, column_named(frame, ["groups"]), "points"),
        run_numbers=None if run_column is None else integer_cells(frame, run_column, source, 1, 1,
                                                              10**9),
        rates=point_rates(frame, source))
    total = int(points.threads.sum())
    if total > MAX_THREAD_ROWS:
        raise PointsTableError(source, None, f"at most {MAX_THREAD_ROWS:,} threads over all "
                               "points (the sum of n_threads)", f"{total:,}")
    _check_unique(points, source)
    return points


def _rows_with(texts: pd.Categorical, test) -> np.ndarray:
    """Per row whether its text passes ``test`` (tested once per distinct text)."""
    passed = np.array([bool(test(text)) for text in texts.categories] + [False])
    return passed[np.asarray(texts.codes)]


def _check_unique(points: _Points, source: str) -> None:
    keys = [np.asarray(points.files.codes, dtype=np.int64), integer_codes(points.ranks),
            *(np.asarray(texts.codes, dtype=np.int64) for texts in (points.regions, points.devices))]
    again = np.flatnonzero(duplicated(keys))
    if len(again):
        twin = int(again[0])
        first = int(np.flatnonzero(np.logical_and.reduce([key == key[twin] for key in keys]))[0])
        raise PointsTableError(source, int(twin) + 2, "one point per (file, rank, region, "
                               f"device); line {int(first) + 2} has this one",
                               f"region {points.regions[first]!r}, rank {points.ranks[first]} "
                               "again")


def _codes(values: pd.Categorical, rows: np.ndarray | slice) -> pd.Categorical:
    """``values[rows]`` as a categorical (the categories of the whole column kept)."""
    return pd.Categorical.from_codes(np.asarray(values.codes)[rows], dtype=values.dtype)


def _thread_dtype(widest: int) -> pd.CategoricalDtype:
    """The dtype of the ``thread`` labels ``thread 0`` .. ``thread <widest - 1>`` (the usual
    few made once)."""
    labels = tuple(f"thread {i}" for i in range(widest))
    return text_dtype(labels) if widest <= 256 else pd.CategoricalDtype(list(labels))


def _run_table(points: _Points, rows: np.ndarray, source: str) -> pd.DataFrame:
    """The per-thread rows of the points at ``rows``: each point's rates shared by its threads."""
    threads = points.threads[rows]
    one_each = not len(threads) or int(threads.max()) == 1  # a thread row per point
    expanded = rows if one_each else np.repeat(rows, threads)
    offsets = (np.zeros(len(rows), dtype=np.int64) if one_each else
               np.arange(len(expanded)) - np.repeat(np.cumsum(threads) - threads, threads))
    share = 1.0 if one_each else 1.0 / np.repeat(threads, threads).astype(float)
    # every point once, in order (the rows of a table of one file): its columns as they are
    # (the frame copies them), not copied first
    pick = slice(None) if one_each and len(rows) == len(points.threads) else expanded
    rates = points.rates
    widest = int(threads.max()) if len(threads) else 0
    table = key_table(
        source=source, total=len(expanded), line=expanded + 2, rank=points.ranks[pick],
        region=_codes(points.regions, pick), group_index=np.ones(len(expanded), np.int64),
        group=_codes(points.groups, pick),
        thread=pd.Categorical.from_codes(offsets, dtype=_thread_dtype(widest)),
        host=pd.Categorical.from_codes(np.zeros(len(expanded), np.int8), dtype=text_dtype(("",))),
        cpu=np.full(len(expanded), -1), device=_codes(points.devices, pick),
        call_count=points.call_counts[pick], runtime_s=rates.runtime[pick])
    flops_to_native = 1.0 / parse_unit(rates.flops_metric).to_giga
    bytes_to_native = 1.0 / parse_unit(rates.bandwidth_metric).to_giga
    table[rates.flops_metric] = rates.performance[pick] * share * flops_to_native
    table[rates.bandwidth_metric] = rates.bandwidth[pick] * share * bytes_to_native
    return table


def _chain(labels: list[str], points: _Points) -> tuple[str, list[str]] | None:
    """(file stem, per label its detail) when the labels are the runs of one file, else None."""
    matches = [_CHAIN_LABEL.match(label) for label in labels]
    if len(labels) < 2 or any(m is None for m in matches):
        return None
    stems = {m["stem"] for m in matches}  # type: ignore[index]
    numbers = [int(m["number"]) for m in matches]  # type: ignore[index]
    if len(stems) != 1 or len(set(numbers)) != len(numbers):
        return None
    if points.run_numbers is not None:
        for label, number in zip(labels, numbers):
            if set(points.run_numbers[np.asarray(points.files == label)].tolist()) != {number}:
                return None
    return stems.pop(), [m["detail"] or "" for m in matches]  # type: ignore[index]


def _run(table: pd.DataFrame, label: str, source: str, info: RunInfo | None = None) -> LikwidRun:
    """A run of points-table rows (no raw event counts: the table has none; a DataFrame is no file)."""
    sources = () if source == FRAME_SOURCE else (source,)
    return LikwidRun(label=label, sources=sources, table=table.reset_index(drop=True),
                     events=pd.DataFrame(index=range(len(table))), layout=Layout.POINTS_TABLE,
                     run_info=info)


def points_table_runs(frame: pd.DataFrame, source: str = FRAME_SOURCE,
                      label: str | None = None) -> list[LikwidRun]:
    """The runs of a points table, in the order their ``file`` labels first appear.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per point (see the module docstring for the columns).
    source : str
        The file it was read from, for the runs and the error messages.
    label : str, optional
        The run label of a table without a ``file`` column (default: the
        file's stem, ``"points"`` for a DataFrame).

    Returns
    -------
    list of LikwidRun
        One run per ``file`` label; labels that are the runs of one file
        (``<file>#1 (...)``, ``<file>#2 (...)``, ...) give ONE run holding
        them as its :attr:`~LikwidRun.runs` (a chain, as the file they came
        from).

    Raises
    ------
    PointsTableError
        For a missing column (named), a value that is no number or out of
        range, an empty region name, a point given twice.
    """
    label = label or (Path(source).stem if source != FRAME_SOURCE else "points")
    points = _points(frame.reset_index(drop=True), source, label)
    labels = list(points.files.categories)  # in order of first appearance
    tables = [_run_table(points, np.flatnonzero(points.files.codes == code), source)
              for code in range(len(labels))]
    chain = _chain(labels, points)
    if chain is None:
        return [_run(table, name, source) for table, name in zip(tables, labels)]
    stem, details = chain
    runs = []
    for table, name, detail in zip(tables, labels, details):
        lines = table["line"].to_numpy()
        widest = int(table.groupby(["rank", "region"], observed=True).size().max())
        info = RunInfo(int(_CHAIN_LABEL.match(name)["number"]), len(labels),  # type: ignore[index]
                       int(lines.min()), int(lines.max()), widest, (), detail)
        runs.append(_run(table, name, source, info))
    whole = _run(pd.concat([r.table for r in runs], ignore_index=True), stem, source)
    whole.runs = tuple(runs)
    return [whole]


def read_points_table(path_or_frame, label: str | None = None) -> LikwidRun:
    """Read a points table (a DataFrame, or a CSV or Parquet file) as ONE run.

    Parameters
    ----------
    path_or_frame : pandas.DataFrame, str, path-like or file object
        The table, or a CSV (every cell read as text, then checked) or
        Parquet file of it.
    label : str, optional
        The label of a table without a ``file`` column.

    Returns
    -------
    LikwidRun
        A table of several ``file`` labels gives one run holding them as
        its :attr:`~LikwidRun.runs` (as a file of several runs): every
        function that takes runs takes them apart.

    Raises
    ------
    PointsTableError
        See :func:`points_table_runs`.

    Examples
    --------
    >>> import pandas as pd
    >>> run = read_points_table(pd.DataFrame({"region": ["solve"], "performance_gflops": [8.0],
    ...                                       "bandwidth_gbs": [2.0], "n_threads": [4]}))
    >>> run.regions, len(run.table)
    (['solve'], 4)
    """
    if is_points_frame(path_or_frame):
        runs = points_table_runs(path_or_frame, FRAME_SOURCE, label)
        source = FRAME_SOURCE
    else:
        frame, source = _file_frame(path_or_frame)
        runs = points_table_runs(frame, source, label)
    if len(runs) == 1:
        return runs[0]
    whole = _run(pd.concat([r.table for r in runs], ignore_index=True),
                 label or Path(source).stem, source)
    whole.runs = tuple(runs)
    return whole
