"""Readers: LIKWID output files and scope-profiler results to :class:`LikwidRun`.

The entry point is :func:`read_likwid`, which detects the layout from the
content (never from the file suffix) and dispatches to one reader per format:

* :mod:`.text` -- likwid-perfctr text tables (3.x, 4.0.x, 4.1+, 5.x; marker
  and wrapper mode) and likwid-mpirun text output;
* :mod:`.csv` -- likwid-perfctr ``-O``/``-o file.csv`` output and
  likwid-mpirun CSV;
* :mod:`.bench` -- likwid-bench results, as measured ceilings;
* :mod:`.scope` -- scope-profiler ``ProfilingResults`` and HDF5 files;
* :mod:`.ncu` -- Nsight Compute CSV exports (GPU kernels), all files of one
  call read together so that their profiling passes are joined.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.likwid_csv import parse_csv
from roofline_widget.io.likwid_text import parse_text
from roofline_widget.io.ncu import NcuExport, is_ncu_export, ncu_run, parse_ncu
from roofline_widget.io.opener import HDF5_MAGIC, PathOrBuffer, is_file_like, open_text, peek, source_name
from roofline_widget.io.parallel import check_executor, read_each
from roofline_widget.io.parsed import ParsedLikwid, merge_runs, run_from, warn_passed_over
from roofline_widget.io.stat_check import check_stat_sums
from roofline_widget.io.topology import parse_topology
from roofline_widget.model import LikwidRun

__all__ = [
    "FORMATS",
    "as_runs",
    "detect_format",
    "read_likwid",
    "read_likwid_text",
]

_TOPOLOGY_MARKERS = ("Hardware Thread Topology", "Cache Topology", "NUMA Topology")


#: The text formats: name -> parser ``(text, source) -> ParsedLikwid``.
TEXT_PARSERS: dict[str, Callable[[str, str], ParsedLikwid]] = {
    "text": parse_text,
    "csv": parse_csv,
}


def _read_scope(path_or_buffer: PathOrBuffer, label: str | None) -> LikwidRun:
    from roofline_widget.io.scope.objects import read_scope_h5
    if is_file_like(path_or_buffer):
        raise LikwidFormatError(source_name(path_or_buffer), None,
                                "a path to a scope-profiler HDF5 file, not a file object")
    return read_scope_h5(path_or_buffer, label)


#: The binary formats: name -> reader ``(path, label) -> LikwidRun``.
FILE_READERS: dict[str, Callable[[PathOrBuffer, str | None], LikwidRun]] = {
    "scope-h5": _read_scope,
}

#: The text formats whose files of one call are read together (passes joined): name -> parser.
JOINED_PARSERS: dict[str, Callable[[str, str], NcuExport]] = {
    "ncu": parse_ncu,
}

#: Every format :func:`read_likwid` accepts as ``format=``.
FORMATS = (*TEXT_PARSERS, *FILE_READERS, *JOINED_PARSERS)


_BENCH_BANNER = "LIKWID MICRO BENCHMARK"
_BENCH_RESULT = re.compile(r"^(?:MFlops/s|MByte/s):\t", re.M)
_CSV_TABLE = re.compile(r"^(?:TABLE,Region|TABLE,Group|STRUCT,Info)", re.M)
_TEXT_TABLE = re.compile(r"^\|\s*(?:Region Info|Event|Metric|Region|Group \d+ Raw)\s*\|", re.M)


_NOT_A_FILE = ("read_likwid takes a path (str or os.PathLike), a file object or a list of them; "
               "got {what} {value}")


def detect_format(text: str, source) -> str:
    """Return ``"csv"`` or ``"text"`` for LIKWID output, ``"ncu"`` for an Nsight Compute
    CSV export, or raise for output we do not read.

    Raises
    ------
    LikwidFormatError
        For timeline, topology or likwid-bench output, and text without any
        LIKWID table.
    """
    if is_ncu_export(text):
        return "ncu"
    # A job log may print lscpu, likwid-topology, likwid-bench and application output before the
    # measurement: the header rows of likwid-perfctr/likwid-mpirun tables decide, wherever they are.
    if _CSV_TABLE.search(text):
        return "csv"
    if _TEXT_TABLE.search(text):
        return "text"
    head = text[:2_000_000]
    for line_number, line in enumerate(head.splitlines(), start=1):
        if line.startswith(("TABLE,Region", "TABLE,Group", "STRUCT,Info")):
            return "csv"
        if line.startswith("+--"):
            return "text"
        if line.startswith("# GID|") or line.startswith("# HWThreads:") or line.startswith("# Cores:"):
            raise LikwidFormatError(
                source, line_number,
                "likwid-perfctr marker (-m) or wrapper output; this is timeline output "
                "(-t), which has no per-region tables", line)
        if any(marker in line for marker in _TOPOLOGY_MARKERS):
            raise LikwidFormatError(
                source, line_number,
                "likwid-perfctr or likwid-mpirun output; this is likwid-topology output", line)
    if _BENCH_BANNER in head and _BENCH_RESULT.search(head):
        raise LikwidFormatError(
            source, None, "likwid-perfctr tables; this file holds only likwid-bench "
            "results (read them with read_likwid_bench)")
    raise LikwidFormatError(
        source, None, "likwid-perfctr or likwid-mpirun output (text tables framed by "
        "'+---' borders, or CSV 'TABLE,' blocks)", "no LIKWID table")


def _check_format(format: str | None) -> None:
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; valid formats: "
                         f"{', '.join(map(repr, FORMATS))} (or None to detect it)")


def read_likwid_text(text: str, source: str = "<string>", *, label: str | None = None,
                     format: str | None = None) -> LikwidRun:
    """Read LIKWID output held in a string (what :func:`read_likwid` does per file).

    Parameters
    ----------
    text : str
        The whole output.
    source : str
        Name used for the run's source and in error messages.
    label : str, optional
        Name of the run (default: the stem of ``source``).
    format : {"text", "csv"}, optional
        The layout; detected from the content when None.

    Returns
    -------
    LikwidRun
        With :attr:`~roofline_widget.model.LikwidRun.topology` set when the
        text also holds likwid-topology output.
    """
    _check_format(format)
    if format in FILE_READERS:
        raise ValueError(f"format {format!r} is read from a file, not from a string")
    run = _text_run(text, source, label, format)
    warn_passed_over(source, run.warnings, stacklevel=2)
    check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return run


def _text_run(text: str, source, label: str | None, format: str | None) -> LikwidRun:
    layout = format or detect_format(text, source)
    if layout in JOINED_PARSERS:
        return ncu_run([JOINED_PARSERS[layout](text, str(source))], label=label)
    parsed = TEXT_PARSERS[layout](text, str(source))
    run = run_from(parsed, source=str(source), label=label)
    run.topology = _topology(text, str(source), run.warnings)
    return run


def _topology(text: str, source: str, warnings: list):
    """The likwid-topology block of a log, or None; a damaged block is a warning, not an error."""
    if _TOPOLOGY_MARKERS[0] not in text:
        return None
    try:
        return parse_topology(text, source)
    except LikwidFormatError as exc:
        warnings.append(f"likwid-topology output not read ({exc}); run.topology is None")
        return None


def _read_one(path_or_buffer: PathOrBuffer, format: str | None) -> LikwidRun | NcuExport:
    """One file, without warning (what one worker does; read_likwid warns).

    An Nsight Compute export comes back parsed, not yet a run: :func:`_join_exports`
    makes one run of all exports of the call.
    """
    if format in FILE_READERS:
        return FILE_READERS[format](path_or_buffer, None)
    source = open_text(path_or_buffer)
    layout = format or detect_format(source.text, source.name)
    if layout in JOINED_PARSERS:
        return JOINED_PARSERS[layout](source.text, source.name)
    return _text_run(source.text, source.name, None, layout)


def _join_exports(results: list) -> list[LikwidRun]:
    """The runs read, the Nsight Compute exports among them made one run (where the first was)."""
    exports = [r for r in results if isinstance(r, NcuExport)]
    if not exports:
        return results
    joined = ncu_run(exports)
    first = next(i for i, r in enumerate(results) if isinstance(r, NcuExport))
    return [joined if i == first else r for i, r in enumerate(results)
            if i == first or not isinstance(r, NcuExport)]


def read_likwid(path_or_paths, *, label: str | None = None,
                format: str | None = None, executor=None) -> LikwidRun:
    """Read likwid-perfctr or likwid-mpirun output into a :class:`LikwidRun`.

    The layout is recognised from the content, not the file name: text
    tables of LIKWID 3.x to 5.x (marker mode ``-m`` and wrapper mode),
    likwid-perfctr CSV (``-O`` or ``-o file.csv``, with or without the text
    header that precedes it on stdout), likwid-mpirun text output
    (scope-profiler HDF5 files with ``format="scope-h5"``). Application output, ``INFO:``/``WARNING:``
    lines and several runs concatenated in one log (a slurm file) are
    tolerated. Files may be gzip, bz2 or xz compressed.  Nsight Compute CSV
    exports (GPU kernels, see :func:`~roofline_widget.io.ncu.read_ncu`) are
    recognised too; all those of one call are read together, their
    profiling passes joined.

    Parameters
    ----------
    path_or_paths : str, path-like, file object or sequence of them
        One file, or several files of one job (e.g. a MEM_DP run and a
        FLOPS_DP run), which are merged into one run so that a FLOP metric
        of one group and a bandwidth metric of another form one point.
        Open files (text or binary) are read to their end.
    label : str, optional
        Name of the run in plots and tables; defaults to the (first) file's
        stem.
    format : str, optional
        One of :data:`FORMATS` (``"text"``, ``"csv"``, ``"scope-h5"``,
        ``"ncu"``), for every file; ``"text"``, ``"csv"`` or ``"ncu"``
        detected from each file's content when None.
    executor : optional
        Read the files in parallel on it: a ``concurrent.futures`` executor
        (``ThreadPoolExecutor(8)``, ``ProcessPoolExecutor()``), a dask
        ``distributed.Client`` or anything with ``submit``/``map``
        (:mod:`roofline_widget.io.parallel`). The merged run is the one the
        serial read (None, the default) gives, files in the given order.

    Returns
    -------
    LikwidRun
        One row per (rank, region, group, hardware thread); see
        :class:`~roofline_widget.model.LikwidRun`.  ``run.topology`` holds
        what likwid-topology printed in the same file (a job log), or None.

    Raises
    ------
    LikwidFormatError
        For files that are not readable LIKWID output (empty, binary,
        timeline or topology output, truncated or ragged tables, duplicated
        region/thread pairs); the message names the file, the line and what
        was expected.
    ValueError
        For a ``format`` not in :data:`FORMATS` (the message lists them).
    FileNotFoundError
        If a file does not exist.

    Examples
    --------
    >>> from roofline_widget import read_likwid, sample_path
    >>> run = read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    >>> run.regions
    ['Setup', 'Solve']
    >>> read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"), format="xml")
    Traceback (most recent call last):
    ...
    ValueError: unknown format 'xml'; valid formats: 'text', 'csv', 'scope-h5', 'ncu' (or None to detect it)
    """
    _check_format(format)
    check_executor(executor)
    if isinstance(path_or_paths, (str, os.PathLike)) or is_file_like(path_or_paths):
        items = [path_or_paths]
    elif isinstance(path_or_paths, (bytes, bytearray)) or not isinstance(path_or_paths, Iterable):
        raise TypeError(_NOT_A_FILE.format(what=type(path_or_paths).__name__,
                                           value=repr(path_or_paths)[:80]))
    else:
        items = list(path_or_paths)
        if not items:
            raise ValueError("read_likwid needs at least one file")
        for item in items:
            if not (isinstance(item, (str, os.PathLike)) or is_file_like(item)):
                raise TypeError(_NOT_A_FILE.format(what=type(item).__name__, value=repr(item)[:80]))
    runs = _join_exports(read_each(items, functools.partial(_read_one, format=format), executor))
    for run in runs:
        warn_passed_over(run.sources[0], run.warnings, stacklevel=2)
        check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return merge_runs(runs, label=label)


def is_scope_results(obj: object) -> bool:
    """Whether ``obj`` is scope-profiler ``ProfilingResults`` (checked without importing scope-profiler)."""
    return type(obj).__name__ == "ProfilingResults" and hasattr(obj, "get_likwid_regions")


def as_runs(data) -> list[LikwidRun]:
    """Normalise anything the public functions accept to a list of runs.

    Parameters
    ----------
    data : LikwidRun, ProfilingResults, str, path-like, or a sequence of them
        Runs, scope-profiler results (in memory or as HDF5 file paths) or
        LIKWID output files (each file one run).

    Returns
    -------
    list of LikwidRun
    """
    if isinstance(data, LikwidRun):
        return [data]
    if is_scope_results(data):
        from roofline_widget.io.scope.objects import from_scope_profiler
        return [from_scope_profiler(data)]
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if peek(path) == HDF5_MAGIC:
            from roofline_widget.io.scope.objects import read_scope_h5
            return [read_scope_h5(path)]
        return [read_likwid(path)]
    if isinstance(data, Iterable):
        runs = [run for item in data for run in as_runs(item)]
        if not runs:
            raise ValueError("no runs given")
        return runs
    raise TypeError(
        "expected a LikwidRun, a scope-profiler ProfilingResults, a path to LIKWID "
        f"output or a scope-profiler HDF5 file, or a sequence of them; got {type(data).__name__}")
