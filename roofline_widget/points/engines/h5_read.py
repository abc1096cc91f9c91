"""Reading a scope-profiler HDF5 file into a :class:`ScopeH5Source`: executors, progress, cache.

:func:`read_scope_sums` is the one HDF5 path of the sums engines
(``RegionSums.from_runs(path)``, ``points_dataframe(path)``,
``RooflineWidget(path)``).  It takes the file's ranks from
:func:`~roofline_widget.io.scope.h5.scope_file_overview`, reads them in
chunks (:func:`~roofline_widget.points.engines.h5.read_rank_rows`: read and
reduce, one rank at a time) serially or on an executor, joins the ranks
(:func:`~roofline_widget.points.engines.h5.tabulate`) and keeps the result
in the on-disk cache (:mod:`roofline_widget.io.scope.cache`).  All ranks come
from one version of the file (:mod:`~roofline_widget.io.scope.snapshot`): a
file changed while it is read is read again.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

from roofline_widget.escaping import file_name, terminal_text
from roofline_widget.io.opener import regular_file
from roofline_widget.io.scope import cache as scope_cache
from roofline_widget.io.scope.h5 import (
    UnreadRank,
    check_engine,
    guarded_h5py,
    scope_file_overview,
    warn_fallback,
)
from roofline_widget.io.scope.regions import no_likwid_data
from roofline_widget.io.scope.snapshot import read_one_version, steady_version
from roofline_widget.points.engines.h5 import RankRows, ScopeH5Source, read_rank_rows, tabulate

__all__ = ["PARALLEL_MIN_REGIONS", "read_scope_sums"]

#: Files with at least this many (rank, region) groups are read by a process pool by default.
PARALLEL_MIN_REGIONS = 4000


def _chunks(items: list, n: int) -> list[list]:
    size = max(1, -(-len(items) // n))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _raw_ranks(path: str, ranks: list, n_regions: int, engine: str, executor, bar
               ) -> list[RankRows | UnreadRank]:
    """Every rank through the raw engine, serially or on ``executor`` (never h5py)."""
    own_pool = None
    if executor is None and ranks and n_regions * len(ranks) >= PARALLEL_MIN_REGIONS:
        executor = own_pool = ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1, len(ranks)))
    try:
        results: list[RankRows | UnreadRank] = []
        if executor is None:
            for item in ranks:
                results += read_rank_rows(path, [item], engine)
                bar.update(1)
            return results
        chunks = _chunks(ranks, 8 * (os.cpu_count() or 1))
        futures = [executor.submit(read_rank_rows, path, chunk, engine) for chunk in chunks]
        for chunk, future in zip(chunks, futures):  # in order; the bar moves as they finish
            results += future.result()
            bar.update(len(chunk))
        return results
    finally:
        if own_pool is not None:
            own_pool.shutdown()


def _h5py_ranks(path: str, ranks: list, why: str) -> list[RankRows]:
    """The given ranks through h5py, in guarded worker processes (a hang is stopped)."""
    chunks = _chunks(ranks, 4 * (os.cpu_count() or 1))
    parts = guarded_h5py(read_rank_rows, [(path, chunk, "h5py") for chunk in chunks], path, why)
    return [rows for part in parts for rows in part]


def _read_all(path: str, ranks: list, n_regions: int, engine: str, executor,
              progress: bool) -> tuple[list[RankRows], list[UnreadRank]]:
    """Every rank, with a progress bar after ~1 s; and the ranks h5py read for the raw engine."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(ranks), unit="rank", desc=f"reading {terminal_text(Path(path).name)}",
               delay=1.0,
               disable=not progress, leave=False)
    try:
        if engine == "h5py":
            rows = _h5py_ranks(path, ranks, "engine='h5py'")
            bar.update(len(ranks))
            return rows, []
        parts = _raw_ranks(path, ranks, n_regions, engine, executor, bar)
        unread = [part for part in parts if isinstance(part, UnreadRank)]
        if unread:
            read = {rows.rank: rows for rows in _h5py_ranks(
                path, [(u.rank, u.group) for u in unread],
                f"its HDF5 layout is not read by roofline-widget's own reader ({unread[0].reason})")}
            parts = [read[part.rank] if isinstance(part, UnreadRank) else part for part in parts]
        return [part for part in parts if isinstance(part, RankRows)], unread
    finally:
        bar.close()


def read_scope_sums(path, *, label: str | None = None, executor: Executor | None = None,
                    cache: bool = True, cache_dir=None, progress: bool = True,
                    engine: str = "auto") -> ScopeH5Source:
    """Read the per-region sums of a scope-profiler HDF5 file, fast.

    Parameters
    ----------
    path : str or path-like
        A file written by scope-profiler (``rank<r>/likwid/regions/...``).
    label : str, optional
        Run label; default the file's ``metadata`` label, else its stem.
    executor : concurrent.futures.Executor, optional
        Where to read the ranks (in chunks): any ``Executor``, e.g. a
        ``ProcessPoolExecutor`` or a dask ``Client.get_executor()``.  By
        default a process pool sized to the machine when the file has at least
        :data:`PARALLEL_MIN_REGIONS` regions, else serial in this process.
    cache : bool
        Read from and write to the on-disk cache (default True); see
        :mod:`roofline_widget.io.scope.cache`.
    cache_dir : str or path-like, optional
        The cache directory (default: the user cache dir of platformdirs).
    progress : bool
        Show a ``tqdm.auto`` bar when reading takes more than a second.
    engine : {"auto", "h5py", "raw"}
        Who reads the file (:mod:`roofline_widget.io.scope.h5`): the direct
        reader, h5py, or the direct reader with h5py for the layouts it does
        not read (default).  h5py always runs in worker processes with a
        timeout (:mod:`roofline_widget.io.scope.guard`), never on
        ``executor``: libhdf5 may hang on a damaged file.

    Returns
    -------
    ScopeH5Source

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    LikwidFormatError
        If it holds no LIKWID region, is damaged, or a region's arrays do not
        have one column per cpu (the message names the rank and the region),
        or it changed during every read (a job still writing it).
    ImportError
        If the file needs h5py (a layout the direct reader does not read, or
        ``engine="h5py"``) and h5py is not installed.

    Warns
    -----
    EngineFallbackWarning
        Once, with ``engine="auto"``, when ranks were read through h5py.
    """
    check_engine(engine)
    path = regular_file(path, "a scope-profiler HDF5 file")
    version = steady_version(path)
    if cache:
        table = scope_cache.load(path, version, engine, cache_dir)
        if table is not None:
            return ScopeH5Source(path, label or table["label"], table, from_cache=True,
                                 engine=engine, version=version)

    def read(_version) -> tuple[dict, str, list[UnreadRank], int]:
        overview = scope_file_overview(path, engine)
        blocks, unread = _read_all(path, overview.ranks, overview.first_rank_regions, engine,
                                   executor, progress)
        return tabulate(blocks), overview.label, unread, len(blocks)

    (table, file_label, unread, n_ranks), version = read_one_version(path, read, first=version)
    warn_fallback(file_name(path), unread, n_ranks)
    if not len(table["rank"]):
        raise no_likwid_data(file_name(path))
    if cache:
        scope_cache.store(path, version, engine, cache_dir, {**table, "label": file_label})
    return ScopeH5Source(path, label or file_label, table, engine=engine, version=version)
