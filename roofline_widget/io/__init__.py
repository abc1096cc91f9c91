"""Readers: LIKWID output files and scope-profiler results to :class:`LikwidRun`.

The entry point is :func:`read_likwid`, which detects the layout from the
content (never from the file suffix) and dispatches to one reader per format:

* :mod:`.text` -- likwid-perfctr text tables (3.x, 4.0.x, 4.1+, 5.x; marker
  and wrapper mode) and likwid-mpirun text output;
* :mod:`.csv` -- likwid-perfctr ``-O``/``-o file.csv`` output and
  likwid-mpirun CSV;
* :mod:`.bench` -- likwid-bench results, as measured ceilings;
* :mod:`.scope` -- scope-profiler ``ProfilingResults`` and HDF5 files.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from pathlib import Path

from ..errors import LikwidFormatError, LikwidReadWarning
from ..model import LikwidRun
from ._core import build_run, merge_runs

__all__ = ["read_likwid", "read_likwid_text", "as_runs"]

_TOPOLOGY_MARKERS = ("Hardware Thread Topology", "Cache Topology", "NUMA Topology")


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise LikwidFormatError(path, None, "a file, not a directory") from None
    if not raw.strip():
        raise LikwidFormatError(path, None, "LIKWID output", "an empty file")
    if b"\x00" in raw[:65536]:
        raise LikwidFormatError(path, None, "a text file of LIKWID output", "binary data")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        try:
            return raw.decode("latin-1")
        except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes anything
            raise LikwidFormatError(path, line, "UTF-8 text") from None


def _detect_layout(text: str, source) -> str:
    """Return ``"csv"`` or ``"text"``, or raise for output we do not read."""
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
    if "MFlops/s:" in head or "MByte/s:" in head:
        raise LikwidFormatError(
            source, None, "likwid-perfctr tables; this file holds only likwid-bench "
            "results (read them with read_likwid_bench)")
    raise LikwidFormatError(
        source, None, "likwid-perfctr or likwid-mpirun output (text tables framed by "
        "'+---' borders, or CSV 'TABLE,' blocks)", "no LIKWID table")


def read_likwid_text(text: str, source: str = "<string>", *, label: str | None = None) -> LikwidRun:
    """Read LIKWID output held in a string (what :func:`read_likwid` does per file).

    Parameters
    ----------
    text : str
        The whole output.
    source : str
        Name used for the run's source and in error messages.
    label : str, optional
        Name of the run (default: the stem of ``source``).

    Returns
    -------
    LikwidRun
    """
    from .csv import parse_csv
    from .text import parse_text

    layout = _detect_layout(text, source)
    parser = parse_csv if layout == "csv" else parse_text
    parsed = parser(text, str(source))
    run = build_run(source=str(source), label=label, **parsed)
    if run.warnings:
        listed = "\n".join(f"  - {message}" for message in run.warnings)
        warnings.warn(f"{source}: read, but passed over {len(run.warnings)} part(s) of it "
                      f"(also in run.warnings):\n{listed}", LikwidReadWarning, stacklevel=3)
    return run


def read_likwid(path_or_paths, *, label: str | None = None) -> LikwidRun:
    """Read likwid-perfctr or likwid-mpirun output into a :class:`LikwidRun`.

    The layout is recognised from the content, not the file name: text
    tables of LIKWID 3.x to 5.x (marker mode ``-m`` and wrapper mode),
    likwid-perfctr CSV (``-O`` or ``-o file.csv``, with or without the text
    header that precedes it on stdout) and likwid-mpirun text output.
    Application output, ``INFO:``/``WARNING:`` lines and several runs
    concatenated in one log (a slurm file) are tolerated.

    Parameters
    ----------
    path_or_paths : str, path-like or sequence of them
        One file, or several files of one job (e.g. a MEM_DP run and a
        FLOPS_DP run), which are merged into one run so that a FLOP metric
        of one group and a bandwidth metric of another form one point.
    label : str, optional
        Name of the run in plots and tables; defaults to the (first) file's
        stem.

    Returns
    -------
    LikwidRun
        One row per (rank, region, group, hardware thread); see
        :class:`~roofline_widget.model.LikwidRun`.

    Raises
    ------
    LikwidFormatError
        For files that are not readable LIKWID output (empty, binary,
        timeline or topology output, truncated or ragged tables, duplicated
        region/thread pairs); the message names the file, the line and what
        was expected.
    FileNotFoundError
        If a file does not exist.

    Examples
    --------
    >>> from roofline_widget import read_likwid, sample_path
    >>> run = read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    >>> run.regions
    ['Setup', 'Solve']
    """
    if isinstance(path_or_paths, (str, os.PathLike)):
        paths = [Path(path_or_paths)]
    else:
        paths = [Path(p) for p in path_or_paths]
        if not paths:
            raise ValueError("read_likwid needs at least one file")
    runs = [read_likwid_text(_read_text(p), str(p)) for p in paths]
    return merge_runs(runs, label=label)


def is_scope_results(obj: object) -> bool:
    """Whether ``obj`` is scope-profiler ``ProfilingResults`` (checked without importing scope-profiler)."""
    return type(obj).__name__ == "ProfilingResults" and hasattr(obj, "get_likwid_regions")


def _looks_like_hdf5(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(8) == b"\x89HDF\r\n\x1a\n"
    except OSError:
        return False


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
        from .scope import from_scope_profiler
        return [from_scope_profiler(data)]
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if _looks_like_hdf5(path):
            from .scope import read_scope_h5
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
