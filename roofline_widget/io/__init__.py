"""Readers: LIKWID output, GPU profiler exports, points tables and scope-profiler results to :class:`LikwidRun`.

:func:`read_likwid` reads one run (a file, or the files of one run); :func:`as_runs` turns
anything the public functions take into runs.  Both consult the one registry of formats,
:mod:`.formats` (how a format is told, read and summed), and the one rule of what a list means,
:mod:`.inputs`.  The readers of the formats:

* :mod:`.likwid_text` -- likwid-perfctr text tables (3.x, 4.0.x, 4.1+, 5.x; marker and wrapper
  mode) and likwid-mpirun text output;
* :mod:`.likwid_csv` -- likwid-perfctr ``-O``/``-o file.csv`` output and likwid-mpirun CSV;
* :mod:`.ncu` -- Nsight Compute CSV exports (GPU kernels), all files of one call read
  together so that their profiling passes are joined;
* :mod:`.rocprof` -- rocprof-compute workloads (AMD GPU kernels): a folder, or its
  ``pmc_perf.csv`` with ``sysinfo.csv`` beside it;
* :mod:`.points_table` -- tables of roofline points (a DataFrame, a CSV or Parquet file);
* :mod:`.scope` -- scope-profiler ``ProfilingResults`` and HDF5 files;
* :mod:`.bench` -- likwid-bench results, as measured ceilings.
"""

from __future__ import annotations

import functools

from roofline_widget.io.formats import (
    FORMATS,
    detect_format,
    format_named,
    is_scope_results,
    markers,
    sniffed,
    text_format,
)
from roofline_widget.io.inputs import RunInput, run_inputs
from roofline_widget.io.parallel import check_executor, read_each
from roofline_widget.io.parsed import merge_runs, relabel, warn_passed_over
from roofline_widget.io.stat_check import check_stat_sums
from roofline_widget.io.stream import TextFile, read_one_text_version
from roofline_widget.model import LikwidRun

__all__ = ["FORMATS", "as_runs", "detect_format", "is_scope_results", "read_likwid",
           "read_likwid_text", "run_of"]


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
    format : {"text", "csv", "ncu"}, optional
        The layout; detected from the content when None.

    Returns
    -------
    LikwidRun
        With :attr:`~roofline_widget.model.LikwidRun.topology` set when the text also holds
        likwid-topology output.
    """
    fmt = format_named(format)
    if fmt is not None and fmt.marker is None:
        raise ValueError(f"format {format!r} is read from a file, not from a string")
    run = _read_one(TextFile(source, text=text), fmt)
    if isinstance(run, _Part):  # a format whose files are read together
        run = run.format.join([run.value])
    if label:
        relabel(run, label)
    warn_passed_over(source, run.warnings, stacklevel=2)
    check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return run


class _Part:
    """What a joined format read of one file: joined with the others of the call."""

    def __init__(self, fmt, value) -> None:
        self.format, self.value = fmt, value


def _read_one(file_or_path, fmt=None, engine: str = "auto") -> LikwidRun | _Part:
    """One file, without warning (what one worker does; :func:`read_likwid` warns): a run, or
    a part of the run its format reads the files of one call into."""
    if fmt is None and not isinstance(file_or_path, TextFile):
        fmt = sniffed(file_or_path)  # a points table, a rocprof-compute workload
    if fmt is not None and fmt.marker is None:  # a binary or sniffed format
        return fmt.read(file_or_path, None, engine)
    if isinstance(file_or_path, TextFile):
        return _read_text(file_or_path, fmt)
    return read_one_text_version(file_or_path, functools.partial(_read_text, fmt=fmt))


def _read_text(file: TextFile, fmt=None) -> LikwidRun | _Part:
    """A text file: its first pass, then its format's reader."""
    scan = file.scan(markers())
    fmt = fmt or text_format(scan.evidence, file.name)
    result = fmt.read(file, scan)
    return _Part(fmt, result) if fmt.join is not None else result


def _joined(results: list) -> list[LikwidRun]:
    """The runs read, the parts of each joined format made one run (where its first part was)."""
    out: list = []
    parts: dict = {}
    for result in results:
        if isinstance(result, _Part):
            if result.format.name not in parts:
                out.append(result.format.name)
            parts.setdefault(result.format.name, (result.format, []))[1].append(result.value)
        else:
            out.append(result)
    return [parts[r][0].join(parts[r][1]) if isinstance(r, str) else r for r in out]


def read_likwid(path_or_paths, *, label: str | None = None,
                format: str | None = None, executor=None, engine: str = "auto") -> LikwidRun:
    """Read one run of LIKWID output (or GPU profiler exports) into a :class:`LikwidRun`.

    The format is told by the content, not the file name (:mod:`roofline_widget.io.formats`):
    text tables of LIKWID 3.x to 5.x (marker mode ``-m`` and wrapper mode), likwid-perfctr CSV
    (``-O`` or ``-o file.csv``, with or without the text header that precedes it on stdout),
    likwid-mpirun text and CSV output, Nsight Compute CSV exports (all those of one call read
    together, their profiling passes joined); scope-profiler HDF5 files with
    ``format="scope-h5"``.  Application output and ``INFO:``/``WARNING:`` lines are tolerated;
    the groups of one job in one log (a MEM_DP and a FLOPS_DP run in a slurm file) are joined,
    while runs that measure the same regions again (a scaling study, a sweep, repetitions
    appended to one log) are told apart (:mod:`roofline_widget.io.runs`).  Files may be gzip,
    bz2 or xz compressed; text and CSV are read in pieces.  rocprof-compute workloads (a folder,
    or its ``pmc_perf.csv``: AMD GPU kernels, see :func:`~roofline_widget.io.rocprof.read_rocprof`)
    and tables of roofline points (:mod:`roofline_widget.io.points_table`) are recognised too.

    Parameters
    ----------
    path_or_paths : str, path-like, file object or sequence of them
        One file, or the files of one run (e.g. a MEM_DP and a FLOPS_DP run of one job), which
        are merged so that a FLOP metric of one group and a bandwidth metric of another form
        one point (:mod:`roofline_widget.io.inputs`: ``read_likwid`` takes one run, so a list
        is that run's files).  Open files (text or binary) are read to their end.
    label : str, optional
        Name of the run in plots and tables; defaults to the (first) file's stem.
    format : str, optional
        One of :data:`FORMATS` (``"text"``, ``"csv"``, ``"scope-h5"``, ``"rocprof"``,
        ``"ncu"``), for every file; told from each file's content when None.
    executor : optional
        Read the files in parallel on it: a ``concurrent.futures`` executor, a dask
        ``distributed.Client`` or anything with ``submit``/``map``
        (:mod:`roofline_widget.io.parallel`). The merged run is the one the serial read gives.
    engine : {"auto", "h5py", "raw"}
        Who reads scope-profiler HDF5 files (``format="scope-h5"``): the direct reader, h5py,
        or the direct reader with h5py for layouts it does not read (default); see
        :mod:`roofline_widget.io.scope.h5`.

    Returns
    -------
    LikwidRun
        One row per (rank, region, group, hardware thread); see
        :class:`~roofline_widget.model.LikwidRun`.  ``run.topology`` holds what
        likwid-topology printed in the same file (a job log), or None.  A file of several runs
        gives their rows together and ``run.runs``, each run on its own (``<file>#2 (what
        differs)``), which every function that takes runs takes apart.

    Raises
    ------
    LikwidFormatError
        For files that are not readable LIKWID output (empty, binary, timeline or topology
        output, truncated or ragged tables, duplicated region/thread pairs); the message names
        the file, the line and what was expected.
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
    fmt = format_named(format)
    check_executor(executor)
    from roofline_widget.io.scope.h5 import check_engine

    check_engine(engine)
    (files,) = run_inputs(path_or_paths, one_run=True)
    runs = _joined(read_each(files.items, functools.partial(_read_one, fmt=fmt, engine=engine),
                             executor))
    for run in runs:
        warn_passed_over(run.sources[0], run.warnings, stacklevel=2)
        check_stat_sums(run, stacklevel=2)  # LIKWID's STAT Sum against the threads read
    return merge_runs(runs, label=label)


def run_of(run_input: RunInput, engine: str = "auto") -> LikwidRun:
    """The per-thread :class:`LikwidRun` of one run of the user's argument.

    ``engine`` picks the reader of a scope-profiler HDF5 file (see :func:`read_likwid`).
    """
    fmt = run_input.format
    if run_input.given:
        raise TypeError(f"no LikwidRun for {type(run_input.items[0]).__name__}")
    if fmt is None:  # text files, each told by its content
        return read_likwid(list(run_input.items))
    if fmt.takes is not None:
        return fmt.read(run_input.items[0])
    return read_likwid(run_input.items[0], format=fmt.name, engine=engine)


def as_runs(data, engine: str = "auto") -> list[LikwidRun]:
    """Normalise anything the public functions accept to a list of runs.

    Parameters
    ----------
    data : run or list of runs
        Runs, scope-profiler results (in memory or as HDF5 file paths), LIKWID output files,
        or lists of files (the files of one run); see :mod:`roofline_widget.io.inputs` for
        what a list means.
    engine : {"auto", "h5py", "raw"}
        The reader of scope-profiler HDF5 files.

    Returns
    -------
    list of LikwidRun
        A file of several runs (a sweep appended to one log) gives each of its runs
        (:attr:`LikwidRun.runs`).
    """
    return [run for run_input in run_inputs(data) for run in run_of(run_input, engine).each_run()]

