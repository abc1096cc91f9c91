"""Readers: LIKWID output files and scope-profiler results to :class:`LikwidRun`.

The entry point is :func:`read_likwid`, which detects the layout from the
content (never from the file suffix) and dispatches to one reader per format:

* :mod:`.likwid_text` -- likwid-perfctr text tables (3.x, 4.0.x, 4.1+, 5.x; marker
  and wrapper mode) and likwid-mpirun text output;
* :mod:`.likwid_csv` -- likwid-perfctr ``-O``/``-o file.csv`` output and
  likwid-mpirun CSV;
* :mod:`.bench` -- likwid-bench results, as measured ceilings;
* :mod:`.scope` -- scope-profiler ``ProfilingResults`` and HDF5 files;
* :mod:`.ncu` -- Nsight Compute CSV exports (GPU kernels), all files of one
  call read together so that their profiling passes are joined;
* :mod:`.rocprof` -- rocprof-compute workloads (AMD GPU kernels): a folder, or its
  ``pmc_perf.csv`` with ``sysinfo.csv`` beside it.

What a list means (the files of one run, here) is decided by the one
dispatcher, :mod:`.inputs`; :func:`as_runs` turns anything the public
functions take into runs through it.

A format is one entry of a table: :data:`TEXT_PARSERS` (text in,
:class:`~roofline_widget.io.parsed.ParsedLikwid` out), :data:`FILE_READERS`
(a path in, a :class:`LikwidRun` out) or :data:`JOINED_PARSERS` (the files of
one call parsed together); :data:`FORMATS` names them all.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.inputs import InputKind, RunInput, is_scope_results, run_files, run_inputs
from roofline_widget.io.likwid_csv import parse_csv
from roofline_widget.io.likwid_text import parse_text
from roofline_widget.io.ncu import NcuExport, is_ncu_export, ncu_run, parse_ncu
from roofline_widget.io.ncu.export import HEADER as NCU_HEADER
from roofline_widget.io.opener import PathOrBuffer, is_file_like, source_name
from roofline_widget.io.parallel import check_executor, read_each
from roofline_widget.io.parsed import ParsedLikwid, merge_runs, run_from, warn_passed_over
from roofline_widget.io.points_table import is_points_file, read_points_table
from roofline_widget.io.rocprof import is_rocprof_path
from roofline_widget.io.stat_check import check_stat_sums
from roofline_widget.io.stream import CSV_TABLE_LINE, MARKERS, TEXT_TABLE_LINE, Scan, TextFile
from roofline_widget.io.topology import parse_topology
from roofline_widget.model import LikwidRun

__all__ = [
    "FORMATS",
    "as_runs",
    "detect_format",
    "is_scope_results",
    "read_likwid",
    "read_likwid_text",
    "run_of",
]

_TOPOLOGY_MARKERS = ("Hardware Thread Topology", "Cache Topology", "NUMA Topology")


#: The text formats: name -> parser ``(text or lines, source) -> ParsedLikwid``.
TEXT_PARSERS: dict[str, Callable[..., ParsedLikwid]] = {
    "text": parse_text,
    "csv": parse_csv,
}


def _read_scope(path_or_buffer: PathOrBuffer, label: str | None, engine: str) -> LikwidRun:
    from roofline_widget.io.scope.h5 import read_scope_h5
    if is_file_like(path_or_buffer):
        raise LikwidFormatError(source_name(path_or_buffer), None,
                                "a path to a scope-profiler HDF5 file, not a file object")
    return read_scope_h5(path_or_buffer, label, engine=engine)


#: The binary formats: name -> reader ``(path, label, engine) -> LikwidRun``.
FILE_READERS: dict[str, Callable[[PathOrBuffer, str | None, str], LikwidRun]] = {
    "scope-h5": _read_scope,
}


# -- rocprof-compute (AMD GPU kernels) ------------------------------------------------------
# A format read from a path (a workload folder, or pmc_perf.csv with sysinfo.csv beside it):
# recognised by is_rocprof_path before the text formats, read by rocprof_workload.
def _read_rocprof(path_or_buffer: PathOrBuffer, label: str | None, engine: str) -> LikwidRun:
    from roofline_widget.io.rocprof import rocprof_workload
    return rocprof_workload(path_or_buffer, label=label)


FILE_READERS["rocprof"] = _read_rocprof
# -------------------------------------------------------------------------------------------

#: The text formats whose files of one call are read together (passes joined): name -> parser.
JOINED_PARSERS: dict[str, Callable[[str, str], NcuExport]] = {
    "ncu": parse_ncu,
}

#: Every format :func:`read_likwid` accepts as ``format=``.
FORMATS = (*TEXT_PARSERS, *FILE_READERS, *JOINED_PARSERS)


_BENCH_BANNER = "LIKWID MICRO BENCHMARK"
_BENCH_RESULT = re.compile(r"^(?:MFlops/s|MByte/s):\t", re.M)


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
    if CSV_TABLE_LINE.search(text):
        return "csv"
    if TEXT_TABLE_LINE.search(text):
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
    file = TextFile(source, text=text)
    run = _text_run(file, *_scanned(file, format), label=label)
    warn_passed_over(source, run.warnings, stacklevel=2)
    check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return run


#: What the first pass of a text file looks for anywhere (:mod:`roofline_widget.io.stream`):
#: the LIKWID table lines and an Nsight Compute export's header.
_MARKERS = {**MARKERS, "ncu": (NCU_HEADER, ('"ID"',))}


def _scanned(file: TextFile, format: str | None) -> tuple[Scan, str]:
    """The first pass over a text file and its layout (``format``, or detected)."""
    scan = file.scan(_MARKERS)
    return scan, format or detect_format(scan.evidence, file.name)


def _text_run(file: TextFile, scan: Scan, layout: str, label: str | None = None) -> LikwidRun:
    """The second pass over a text or CSV file: the parser reads it in pieces."""
    if layout in JOINED_PARSERS:
        return ncu_run([JOINED_PARSERS[layout](file.text(scan), file.name)], label=label)
    parsed = TEXT_PARSERS[layout](file.lines(scan), file.name)
    run = run_from(parsed, source=file.name, label=label)
    run.topology = _topology(scan, file.name, run.warnings)
    for part in run.runs:
        part.topology = run.topology
    return run


def _topology(scan: Scan, source: str, warnings: list):
    """The likwid-topology block of a log, or None; a damaged block is a warning, not an error."""
    if scan.topology is None:
        return None
    try:
        return parse_topology(scan.topology, source)
    except LikwidFormatError as exc:
        warnings.append(f"likwid-topology output not read ({exc}); run.topology is None")
        return None


def _read_one(path_or_buffer: PathOrBuffer, format: str | None,
              engine: str = "auto") -> LikwidRun | NcuExport:
    """One file, without warning (what one worker does; read_likwid warns).

    An Nsight Compute export comes back parsed, not yet a run: :func:`_join_exports`
    makes one run of all exports of the call.
    """
    if format is None and is_points_file(path_or_buffer):  # a CSV or Parquet table of points
        return read_points_table(path_or_buffer)
    if format in FILE_READERS:
        return FILE_READERS[format](path_or_buffer, None, engine)
    if format is None and is_rocprof_path(path_or_buffer):
        return FILE_READERS["rocprof"](path_or_buffer, None, engine)
    file = TextFile(path_or_buffer)
    scan, layout = _scanned(file, format)
    if layout in JOINED_PARSERS:
        return JOINED_PARSERS[layout](file.text(scan), file.name)
    return _text_run(file, scan, layout)


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
                format: str | None = None, executor=None, engine: str = "auto") -> LikwidRun:
    """Read likwid-perfctr or likwid-mpirun output into a :class:`LikwidRun`.

    The layout is recognised from the content, not the file name: text
    tables of LIKWID 3.x to 5.x (marker mode ``-m`` and wrapper mode),
    likwid-perfctr CSV (``-O`` or ``-o file.csv``, with or without the text
    header that precedes it on stdout), likwid-mpirun text output
    (scope-profiler HDF5 files with ``format="scope-h5"``). Application output, ``INFO:``/``WARNING:``
    lines are tolerated; the groups of one job in one log (a MEM_DP and a
    FLOPS_DP run in a slurm file) are joined, while runs that measure the
    same regions again (a scaling study, a sweep, repetitions appended to
    one log) are told apart (:mod:`roofline_widget.io.runs`).  Files may be
    gzip, bz2 or xz compressed; text and CSV are read in pieces.  Nsight
    Compute CSV exports (GPU kernels, see
    :func:`~roofline_widget.io.ncu.read_ncu`) are recognised too; all those
    of one call are read together, their profiling passes joined; so are
    rocprof-compute workloads (a folder, or its ``pmc_perf.csv``: AMD GPU
    kernels, see :func:`~roofline_widget.io.rocprof.read_rocprof`).

    Parameters
    ----------
    path_or_paths : str, path-like, file object or sequence of them
        One file, or the files of one run (e.g. a MEM_DP run and a FLOPS_DP
        run of one job), which are merged so that a FLOP metric of one group
        and a bandwidth metric of another form one point (the rule of
        :mod:`roofline_widget.io.inputs`: ``read_likwid`` reads one run, so
        its list is that run's files).  Open files (text or binary) are
        read to their end.
    label : str, optional
        Name of the run in plots and tables; defaults to the (first) file's
        stem.
    format : str, optional
        One of :data:`FORMATS` (``"text"``, ``"csv"``, ``"scope-h5"``,
        ``"rocprof"``, ``"ncu"``), for every file; ``"text"``, ``"csv"``, ``"ncu"`` or
        ``"rocprof"`` (a workload folder, or a plain ``pmc_perf.csv``)
        detected from each file's content when None.
    executor : optional
        Read the files in parallel on it: a ``concurrent.futures`` executor
        (``ThreadPoolExecutor(8)``, ``ProcessPoolExecutor()``), a dask
        ``distributed.Client`` or anything with ``submit``/``map``
        (:mod:`roofline_widget.io.parallel`). The merged run is the one the
        serial read (None, the default) gives, files in the given order.
    engine : {"auto", "h5py", "raw"}
        Who reads scope-profiler HDF5 files (``format="scope-h5"``): the
        direct reader, h5py, or the direct reader with h5py for layouts it
        does not read (default); see :mod:`roofline_widget.io.scope.h5`.

    Returns
    -------
    LikwidRun
        One row per (rank, region, group, hardware thread); see
        :class:`~roofline_widget.model.LikwidRun`.  ``run.topology`` holds
        what likwid-topology printed in the same file (a job log), or None.
        A file of several runs gives their rows together and ``run.runs``,
        each run on its own (``<file>#2 (what differs)``), which every
        function that takes runs takes apart (one point per region and run).

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
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown format 'xml'; valid formats: 'text', 'csv', 'scope-h5', 'rocprof', ...
    """
    _check_format(format)
    check_executor(executor)
    from roofline_widget.io.scope.h5 import check_engine

    check_engine(engine)
    items = run_files(path_or_paths)
    runs = _join_exports(read_each(items, functools.partial(_read_one, format=format, engine=engine),
                                   executor))
    for run in runs:
        warn_passed_over(run.sources[0], run.warnings, stacklevel=2)
        check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return merge_runs(runs, label=label)


def run_of(run_input: RunInput, engine: str = "auto") -> LikwidRun:
    """The per-thread :class:`LikwidRun` of one run of the user's argument.

    ``engine`` picks the reader of a scope-profiler HDF5 file (see
    :func:`read_likwid`).
    """
    item = run_input.items[0]
    if run_input.kind == InputKind.RUN:
        return item
    if run_input.kind == InputKind.SCOPE_RESULTS:
        from roofline_widget.io.scope.objects import from_scope_profiler
        return from_scope_profiler(item)
    if run_input.kind == InputKind.SCOPE_H5:
        return read_likwid(item, format="scope-h5", engine=engine)
    if run_input.kind == InputKind.LIKWID_FILES:
        return read_likwid(list(run_input.items))
    raise TypeError(f"no LikwidRun for {type(item).__name__}")


def as_runs(data, engine: str = "auto") -> list[LikwidRun]:
    """Normalise anything the public functions accept to a list of runs.

    Parameters
    ----------
    data : run or list of runs
        Runs, scope-profiler results (in memory or as HDF5 file paths),
        LIKWID output files, or lists of files (the files of one run); see
        :mod:`roofline_widget.io.inputs` for what a list means.
    engine : {"auto", "h5py", "raw"}
        The reader of scope-profiler HDF5 files.

    Returns
    -------
    list of LikwidRun
        A file of several runs (a sweep appended to one log) gives each of
        its runs (:attr:`LikwidRun.runs`).
    """
    return [run for run_input in run_inputs(data) for run in run_of(run_input, engine).each_run()]
