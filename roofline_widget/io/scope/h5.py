"""Reading scope-profiler HDF5 files: every LIKWID region's arrays, rank by rank; nothing summed.

Layout read (what scope-profiler's ``write_likwid_results`` writes)::

    metadata/                      attrs: label (optional)
    rank<r>/likwid/regions/<tag with "/" as "|">/
        attrs: tag, group_id, group_name, metric_names, event_names, counter_names
        datasets: cpus, times, call_counts, events, metrics (names x cpus)

``engine`` picks who reads (:data:`ENGINES`, like pandas' ``read_csv(engine=)``):

* ``"raw"``: the direct reader (:class:`~roofline_widget.io.scope.h5_engines.RawReader`);
  a layout it does not read is an error;
* ``"h5py"``: h5py's low-level API, for every layout;
* ``"auto"`` (default): raw, and h5py for the ranks (or the file) in a valid
  layout the raw reader does not read, said once in an
  :class:`~roofline_widget.errors.EngineFallbackWarning`.

A damaged file is refused by the raw reader with the package's error and
never handed to h5py; where h5py reads a file, it runs in a worker process
with a timeout (:mod:`~roofline_widget.io.scope.guard`), so a file that makes
libhdf5 hang never hangs the caller.  :func:`read_ranks_raw` yields one
rank's regions at a time (the sums engine reduces each before the next is
read), :func:`read_ranks_h5py` the same through h5py (what a guarded worker
runs); :func:`scope_file_overview` gives the ranks, the label and the size;
:func:`read_scope_h5` builds the per-thread :class:`LikwidRun`.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from roofline_widget.errors import EngineFallbackWarning, LikwidFormatError
from roofline_widget.escaping import file_name
from roofline_widget.io.opener import regular_file
from roofline_widget.io.scope.guard import file_seconds, guarded_map, h5py_missing
from roofline_widget.io.scope.h5_engines import H5pyReader, RawReader, ScopeFileReader
from roofline_widget.io.scope.h5_format import NotSupported
from roofline_widget.io.scope.objects import run_from_regions
from roofline_widget.io.scope.regions_h5 import RegionArrays
from roofline_widget.io.scope.snapshot import FileVersion, read_one_version
from roofline_widget.model import LikwidRun

__all__ = [
    "ENGINES",
    "RankRegions",
    "ScopeFileOverview",
    "UnreadRank",
    "check_engine",
    "guarded_h5py",
    "read_ranks_h5py",
    "read_ranks_raw",
    "read_scope_h5",
    "read_scope_version",
    "scope_file_overview",
    "warn_fallback",
]

#: The values of ``engine=``.
ENGINES = ("auto", "h5py", "raw")


def check_engine(engine: str) -> str:
    """``engine`` if it is one of :data:`ENGINES`; ValueError naming them otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"unknown HDF5 engine {engine!r}; valid engines: "
                         f"{', '.join(map(repr, ENGINES))}")
    return engine


@dataclass(frozen=True)
class RankRegions:
    """The regions of one rank, and which engine read them."""

    rank: int
    regions: list[RegionArrays]
    engine: str


@dataclass(frozen=True)
class UnreadRank:
    """A rank the raw engine does not read: a valid layout outside its subset (h5py reads it)."""

    rank: int
    group: str
    reason: str


@dataclass(frozen=True)
class ScopeFileOverview:
    """What is known of a file before its regions are read.

    Attributes
    ----------
    ranks : list of (int, str)
        (rank, group name) of every rank with LIKWID regions, ranks ascending.
    label : str
        The ``metadata`` label, else the file's stem.
    first_rank_regions : int
        How many regions the first rank has (0 without ranks).
    raw_reason : str
        Why the raw engine does not read the file ("" when it does).
    """

    ranks: list[tuple[int, str]]
    label: str
    first_rank_regions: int
    raw_reason: str = ""


def _not_read(where: str, reason: str) -> LikwidFormatError:
    return LikwidFormatError(where, None, "an HDF5 layout the raw engine reads (engine='auto' or "
                             "'h5py' reads the others)", reason)


def _overview(reader: ScopeFileReader, path: str, raw_reason: str = "") -> ScopeFileOverview:
    try:
        ranks = reader.ranks()
        label = reader.label()
        count = reader.count_regions(ranks[0][1]) if ranks else 0
    finally:
        reader.close()
    if label is not None and not isinstance(label, str):
        raise LikwidFormatError(path, None, "the metadata label to be one string",
                                f"{type(label).__name__} {str(label)[:40]}")
    return ScopeFileOverview(ranks, label or file_name(Path(path).stem), count, raw_reason)


def h5py_overview(path: str, raw_reason: str = "") -> ScopeFileOverview:
    """:func:`scope_file_overview` through h5py (what a guarded worker runs)."""
    return _overview(H5pyReader(path), path, raw_reason)


def guarded_h5py(function, calls: list[tuple], path: str, why: str) -> list:
    """``function(*args)`` per call in guarded worker processes (h5py on an untrusted file).

    All calls together may take :func:`~roofline_widget.io.scope.guard.file_seconds`
    of the file's size: the time limit is per file, whatever its number of ranks.

    Raises
    ------
    ImportError
        If h5py is not installed (naming ``why`` and the install command).
    LikwidFormatError
        If the calls do not finish in time, or a worker dies.
    """
    if importlib.util.find_spec("h5py") is None:
        raise h5py_missing(path, why)
    return guarded_map(function, calls, seconds=file_seconds(os.stat(path).st_size),
                       where=file_name(path), workers=len(calls))


def scope_file_overview(path, engine: str = "auto") -> ScopeFileOverview:
    """The ranks, the label and the size of a scope-profiler HDF5 file.

    Raises
    ------
    FileNotFoundError
    LikwidFormatError
        If the file is damaged, or (``engine="raw"``) in a layout the raw
        engine does not read.
    """
    path = regular_file(path, "a scope-profiler HDF5 file")
    reason = "engine='h5py'"
    if check_engine(engine) != "h5py":
        try:
            return _overview(RawReader(path), path)
        except NotSupported as exc:
            if engine == "raw":
                raise _not_read(path, str(exc)) from None
            reason = str(exc)
    return guarded_h5py(h5py_overview, [(path, reason)], path,
                        f"its HDF5 layout is not read by roofline-widget's own reader ({reason})")[0]


def read_ranks_raw(path, ranks: list[tuple[int, str]], *, detail: bool = False,
                   skip_unsupported: bool = False) -> Iterator[RankRegions | UnreadRank]:
    """The regions of the given ranks through the raw engine, one rank at a time, in order.

    Parameters
    ----------
    path : str or path-like
    ranks : list of (int, str)
        As :attr:`ScopeFileOverview.ranks`.
    detail : bool
        Also read cpus and events (for the per-thread run).
    skip_unsupported : bool
        Yield an :class:`UnreadRank` for a rank in a layout the raw engine does
        not read (else that is a :class:`LikwidFormatError`).

    Raises
    ------
    LikwidFormatError
        For a damaged file or region (naming file, rank and region), or one
        that does not hold what scope-profiler writes.
    """
    path = str(path)
    try:
        reader = RawReader(path)
    except NotSupported as exc:
        if not skip_unsupported:
            raise _not_read(path, str(exc)) from None
        yield from (UnreadRank(rank, group, str(exc)) for rank, group in ranks)
        return
    try:
        for rank, group in ranks:
            try:
                yield RankRegions(rank, reader.read_rank(rank, group, detail), reader.name)
            except NotSupported as exc:
                if not skip_unsupported:
                    raise _not_read(f"{path} (rank {rank})", str(exc)) from None
                yield UnreadRank(rank, group, str(exc))
    finally:
        reader.close()


def read_ranks_h5py(path, ranks: list[tuple[int, str]], *, detail: bool = False
                    ) -> Iterator[RankRegions]:
    """The regions of the given ranks through h5py, one rank at a time (run it guarded)."""
    reader = H5pyReader(str(path))
    try:
        for rank, group in ranks:
            yield RankRegions(rank, reader.read_rank(rank, group, detail), reader.name)
    finally:
        reader.close()


def _h5py_rank_list(path: str, ranks: list[tuple[int, str]], detail: bool) -> list[RankRegions]:
    return list(read_ranks_h5py(path, ranks, detail=detail))


def warn_fallback(path: str, unread: list[UnreadRank], n_ranks: int, stacklevel: int = 3) -> None:
    """Say once that ranks of ``path`` were read through h5py, how many and why."""
    if unread:
        reasons = sorted({rank.reason for rank in unread})
        warnings.warn(f"{path}: {len(unread)} of {n_ranks} rank(s) are in an HDF5 layout "
                      f"roofline-widget's own reader does not read ({'; '.join(reasons[:3])}); "
                      "they were read through h5py (slower). engine='h5py' reads the whole file "
                      "through h5py and says nothing; engine='raw' refuses such files.",
                      EngineFallbackWarning, stacklevel=stacklevel)


def read_scope_h5(path, label: str | None = None, *, engine: str = "auto") -> LikwidRun:
    """Read a scope-profiler HDF5 file as a per-thread :class:`LikwidRun`.

    The run equals ``from_scope_profiler(ProfilingResults.from_h5(path))``,
    built from the arrays read here (without scope-profiler), all of one
    version of the file (:mod:`~roofline_widget.io.scope.snapshot`).

    Parameters
    ----------
    path : str or path-like
        The merged profiling file.
    label : str, optional
        Name of the run (default: the file's ``metadata`` label, else its stem).
    engine : {"auto", "h5py", "raw"}
        Who reads the file (see the module docstring).

    Raises
    ------
    LikwidFormatError
        If the file holds no LIKWID data, or cannot be read: truncated or
        damaged, a region without one of its datasets, ``metric_names`` one
        string instead of a list, arrays of the wrong shape, a file that
        changed during every read. The message names the file and, where it
        can, the rank and region.
    FileNotFoundError
        If the file does not exist.

    Warns
    -----
    EngineFallbackWarning
        With ``engine="auto"``, when ranks were read through h5py.
    """
    return read_scope_version(path, label, engine=engine)[0]


def read_scope_version(path, label: str | None = None, *, engine: str = "auto"
                       ) -> tuple[LikwidRun, FileVersion]:
    """:func:`read_scope_h5`, and the version of the file it read."""
    path = regular_file(path, "a scope-profiler HDF5 file")
    (run, unread, n_ranks), version = read_one_version(
        path, lambda _: _read_run(path, label, check_engine(engine)))
    if engine == "auto":
        warn_fallback(file_name(path), unread, n_ranks)
    return run, version


def _read_run(path: str, label: str | None, engine: str
              ) -> tuple[LikwidRun, list[UnreadRank], int]:
    overview = scope_file_overview(path, engine)
    parts: list[RankRegions | UnreadRank] = (
        [UnreadRank(rank, group, "engine='h5py'") for rank, group in overview.ranks]
        if engine == "h5py" else
        list(read_ranks_raw(path, overview.ranks, detail=True, skip_unsupported=engine == "auto")))
    unread = [part for part in parts if isinstance(part, UnreadRank)]
    if unread:
        read = guarded_h5py(_h5py_rank_list, [(path, [(u.rank, u.group) for u in unread], True)],
                            path, "its HDF5 layout is not read by roofline-widget's "
                            f"own reader ({unread[0].reason})")[0]
        by_rank = {part.rank: part for part in read}
        parts = [by_rank[part.rank] if isinstance(part, UnreadRank) else part for part in parts]
    regions = {part.rank: {region.tag: region for region in part.regions}
               for part in parts if isinstance(part, RankRegions)}
    run = run_from_regions(regions, file_name(path), label or overview.label)
    return run, (unread if engine == "auto" else []), len(parts)
