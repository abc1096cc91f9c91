"""The reader registry: one record per input format, the one table every entry point consults.

A :class:`Format` says how an input of the format is told (an object's type, a file's first
bytes, or a line of its text wherever it is), how it is read, which sums engine aggregates its
runs (:mod:`roofline_widget.points.engines.dispatch` names them) and which extra its reader
needs.  :data:`REGISTRY` holds them all; :func:`identify` tells an object or a binary file,
:func:`text_format` a text file from what its first pass found
(:class:`~roofline_widget.io.stream.Scan`), :func:`sniffed` a file told by a look at it before
it is read.  Adding a format is adding one record (an Nsight Compute layout, rocprof's
``pmc_perf.csv``, a DataFrame of points, a ceiling file):

* a text file: ``marker`` (a line that tells it, anywhere: the first pass looks for it),
  ``read(file, scan)`` (a run, or a part that ``join`` makes one run of with the other parts
  of one call: the passes of ``ncu``);
* a binary file: ``magic`` (its first bytes), ``read(path, label, engine)``;
* a file (or folder) told before it is read: ``sniff(path)`` (a points table's header, a
  rocprof-compute workload folder), ``read(path, label, engine)``;
* an object: ``takes(obj)``, ``read(obj)``; ``split(obj)``, its runs when it is given alone
  (a DataFrame of points: one run per ``file`` label);
* ``produces``: ``"run"`` (a :class:`~roofline_widget.model.LikwidRun`), or another kind of
  result (``"ceilings"``) for the readers that take that.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.likwid_csv import parse_csv
from roofline_widget.io.likwid_text import parse_text
from roofline_widget.io.ncu import ncu_run, parse_ncu
from roofline_widget.io.ncu.export import HEADER as NCU_HEADER
from roofline_widget.io.opener import HDF5_MAGIC, PathOrBuffer, is_file_like, peek, source_name
from roofline_widget.io.parsed import run_from
from roofline_widget.io.points_table import (
    is_points_file,
    is_points_frame,
    points_table_runs,
    read_points_table,
)
from roofline_widget.io.rocprof import is_rocprof_path
from roofline_widget.io.stream import MARKERS, Scan, TextFile
from roofline_widget.io.topology import parse_topology
from roofline_widget.model import LikwidRun

__all__ = ["CSV", "FORMATS", "NCU", "POINTS_FRAME", "POINTS_TABLE", "REGISTRY", "ROCPROF", "RUN",
           "SCOPE_H5", "SCOPE_RESULTS", "TEXT", "Format", "detect_format", "format_named",
           "identify", "is_scope_results", "markers", "sniffed", "text_format"]


@dataclass(frozen=True, eq=False)
class Format:
    """What the package knows of one input format (see the module docstring).

    Attributes
    ----------
    name : str
        Its name (``format=`` of :func:`~roofline_widget.read_likwid` for a file format).
    description : str
        What it is, for messages.
    read : callable
        How it is read: ``(file, scan)`` for a text format, ``(path, label, engine)`` for a
        binary or sniffed one, ``(obj)`` for objects.
    engine : str
        The sums engine of its runs.
    extra : str or None
        The ``pip install roofline-widget[<extra>]`` its reader needs, if any.
    takes : callable or None
        Whether an object is of this format.
    magic : bytes or None
        The first bytes of a file of this format.
    sniff : callable or None
        Whether a path is of this format, told before it is read (checked, in
        :data:`REGISTRY`'s order, before the text formats when no format is given).
    marker : (re.Pattern, tuple of str) or None
        A line that tells a text file of this format wherever it is: a pattern anchored at a
        line start, and the texts such a line starts with.
    precedence : int
        A file that shows the markers of several text formats is of the lowest.
    join : callable or None
        Makes one run of the parts ``read`` gave for the files of one call.
    produces : str
        ``"run"``, or what else its reader gives.
    named : bool
        Whether ``format=`` takes its name (False: told by its content only).
    split : callable or None
        The runs of an object of this format given alone (not in a list of runs).
    """

    name: str
    description: str
    read: Callable
    engine: str = "per-thread"
    extra: str | None = None
    takes: Callable[[object], bool] | None = None
    magic: bytes | None = None
    sniff: Callable[[PathOrBuffer], bool] | None = None
    marker: tuple[re.Pattern, tuple[str, ...]] | None = None
    precedence: int = 0
    join: Callable[[list], LikwidRun] | None = None
    produces: str = "run"
    named: bool = True
    split: Callable[[object], list[LikwidRun]] | None = None

    def __repr__(self) -> str:
        return f"<Format {self.name!r}: {self.description}>"


def is_scope_results(obj: object) -> bool:
    """Whether ``obj`` is scope-profiler ``ProfilingResults`` (checked without importing scope-profiler)."""
    return type(obj).__name__ == "ProfilingResults" and hasattr(obj, "get_likwid_regions")


def _likwid_run(parse: Callable) -> Callable[[TextFile, Scan], LikwidRun]:
    """The reader of a LIKWID text format: the parser's blocks made a run, with the
    likwid-topology block of the same file (a job log), if any."""
    def read(file: TextFile, scan: Scan) -> LikwidRun:
        with _no_cycle_collection():
            run = run_from(parse(file.pieces(scan), file.name), source=file.name)
        run.topology = _topology(scan, file.name, run.warnings)
        for part in run.runs:
            part.topology = run.topology
        return run
    return read


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused (if it runs) while a large file is read.

    A read makes a few objects per region (its block, its lists of names) and keeps them all
    (no cycles among them); the collector, run every few hundred new objects, went through
    every object kept so far again and again: up to a quarter of a first read of 50,000
    regions (``benchmarks/profile_read.py``).  Cycles made meanwhile (an error's traceback)
    are collected once it runs again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _topology(scan: Scan, source: str, warnings: list):
    """The likwid-topology block of a log, or None; a damaged block is a warning, not an error."""
    if scan.topology is None:
        return None
    try:
        return parse_topology(scan.topology, source)
    except LikwidFormatError as exc:
        warnings.append(f"likwid-topology output not read ({exc}); run.topology is None")
        return None


def _read_scope_h5(path_or_buffer, label: str | None, engine: str) -> LikwidRun:
    from roofline_widget.io.scope.h5 import read_scope_h5
    if is_file_like(path_or_buffer):
        raise LikwidFormatError(source_name(path_or_buffer), None,
                                "a path to a scope-profiler HDF5 file, not a file object")
    return read_scope_h5(path_or_buffer, label, engine=engine)


def _read_rocprof(path_or_folder, label: str | None, engine: str) -> LikwidRun:
    from roofline_widget.io.rocprof import rocprof_workload
    return rocprof_workload(path_or_folder, label=label)


def _from_scope_profiler(results) -> LikwidRun:
    from roofline_widget.io.scope.objects import from_scope_profiler
    return from_scope_profiler(results)


TEXT = Format("text", "likwid-perfctr or likwid-mpirun text tables", _likwid_run(parse_text),
              marker=MARKERS["text"], precedence=2)
CSV = Format("csv", "likwid-perfctr or likwid-mpirun CSV (-O)", _likwid_run(parse_csv),
             marker=MARKERS["csv"], precedence=1)
SCOPE_H5 = Format("scope-h5", "a scope-profiler HDF5 file", _read_scope_h5, engine="scope-h5",
                  extra="hdf5", magic=HDF5_MAGIC)
POINTS_TABLE = Format("points-table", "a CSV or Parquet table of roofline points",
                      lambda path, label, engine: read_points_table(path, label),
                      sniff=is_points_file, named=False)
ROCPROF = Format("rocprof", "a rocprof-compute workload (a folder, or its pmc_perf.csv)",
                 _read_rocprof, sniff=is_rocprof_path)
NCU = Format("ncu", "an Nsight Compute CSV export (ncu --csv)",
             lambda file, scan: parse_ncu(file.text(scan), file.name),
             marker=(NCU_HEADER, ('"ID","Process ID",',)), precedence=0,
             join=lambda exports: ncu_run(exports))
RUN = Format("run", "a LikwidRun", lambda run: run, takes=lambda obj: isinstance(obj, LikwidRun))
POINTS_FRAME = Format("points-frame", "a pandas DataFrame of roofline points", read_points_table,
                      takes=is_points_frame, split=points_table_runs)
SCOPE_RESULTS = Format("scope-results", "scope-profiler ProfilingResults", _from_scope_profiler,
                       engine="scope-results", extra="scope", takes=is_scope_results)

#: Every format the package reads.
REGISTRY: tuple[Format, ...] = (TEXT, CSV, SCOPE_H5, POINTS_TABLE, ROCPROF, NCU, RUN, POINTS_FRAME,
                                SCOPE_RESULTS)
#: The file formats :func:`~roofline_widget.read_likwid` takes as ``format=``.
FORMATS = tuple(f.name for f in REGISTRY if f.takes is None and f.produces == "run" and f.named)
_TEXT_FORMATS = sorted((f for f in REGISTRY if f.marker is not None), key=lambda f: f.precedence)


def markers() -> dict[str, tuple[re.Pattern, tuple[str, ...]]]:
    """The lines the first pass over a text file looks for: text format name -> marker."""
    return {f.name: f.marker for f in _TEXT_FORMATS if f.marker is not None}


def format_named(name: str | None) -> Format | None:
    """The file format ``name`` (None: None, told from the content).

    Raises
    ------
    ValueError
        For a name not in :data:`FORMATS` (the message lists them).
    """
    if name is None:
        return None
    found = next((f for f in REGISTRY if f.name == name and f.name in FORMATS), None)
    if found is None:
        raise ValueError(f"unknown format {name!r}; valid formats: "
                         f"{', '.join(map(repr, FORMATS))} (or None to detect it)")
    return found


def sniffed(path_or_buffer: PathOrBuffer) -> Format | None:
    """The format of a path told before it is read (:attr:`Format.sniff`), or None."""
    return next((f for f in REGISTRY if f.sniff is not None and f.sniff(path_or_buffer)), None)


def identify(item: object) -> Format | None:
    """The format of an object, or of a path by its first bytes (a binary format); None for
    a path or file object of text (told by its content when read, :func:`text_format`)."""
    for fmt in REGISTRY:
        if fmt.takes is not None and fmt.takes(item):
            return fmt
    if isinstance(item, (str, os.PathLike)):
        head = peek(item)
        return next((f for f in REGISTRY if f.magic and head.startswith(f.magic)), None)
    return None


_BENCH_BANNER = "LIKWID MICRO BENCHMARK"
_BENCH_RESULT = re.compile(r"^(?:MFlops/s|MByte/s):\t", re.M)
_TOPOLOGY_MARKERS = ("Hardware Thread Topology", "Cache Topology", "NUMA Topology")


def text_format(evidence: str, source) -> Format:
    """The text format of a file whose first pass found ``evidence`` (its head and the first
    line of each marker found anywhere), or an error saying why no reader of the package
    reads it.

    Raises
    ------
    LikwidFormatError
        For timeline, topology or likwid-bench output, and text without any LIKWID table.
    """
    for fmt in _TEXT_FORMATS:
        if fmt.marker is not None and fmt.marker[0].search(evidence) is not None:
            return fmt
    # A job log may print lscpu, likwid-topology, likwid-bench and application output before
    # the measurement: a table border decides, else the first line that tells what it is.
    head = evidence[:2_000_000]
    for line_number, line in enumerate(head.splitlines(), start=1):
        if line.startswith("+--"):
            return TEXT
        if line.startswith(("# GID|", "# HWThreads:", "# Cores:")):
            raise LikwidFormatError(
                source, line_number, "likwid-perfctr marker (-m) or wrapper output; this is "
                "timeline output (-t), which has no per-region tables", line)
        if any(marker in line for marker in _TOPOLOGY_MARKERS):
            raise LikwidFormatError(source, line_number, "likwid-perfctr or likwid-mpirun "
                                    "output; this is likwid-topology output", line)
    if _BENCH_BANNER in head and _BENCH_RESULT.search(head):
        raise LikwidFormatError(
            source, None, "likwid-perfctr tables; this file holds only likwid-bench "
            "results (read them with read_likwid_bench)")
    raise LikwidFormatError(
        source, None, "likwid-perfctr or likwid-mpirun output (text tables framed by "
        "'+---' borders, or CSV 'TABLE,' blocks)", "no LIKWID table")


def detect_format(text: str, source) -> str:
    """The name of the text format of ``text`` (:func:`text_format` of a whole text).

    Examples
    --------
    >>> detect_format("TABLE,Group 1 Raw,CLOCK,1", "run.csv")
    'csv'
    """
    return text_format(text, source).name
