"""On-disk cache of the per-region sums of scope-profiler HDF5 files (``.npz``).

The first :func:`~roofline_widget.io.scope.h5.read_scope_sums` of a file
stores its columns (sums of every metric, rank, region, group, cpus,
runtime, call count) in one ``.npz`` file; later reads load that instead of
the HDF5 file.  An entry is used only when its key matches the file now:

* the resolved path,
* the file's size and modification time (nanoseconds),
* the roofline-widget version and the cache format.

The key is stored inside the entry and compared on every load, so a file
rewritten or touched since, or a cache written by another version, is never
served; it is read again and the entry replaced (written to a temporary file
and renamed, so a reader never sees half an entry).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["FORMAT", "cache_key", "default_cache_dir", "entry_path", "load", "store"]

#: Bumped whenever what an entry holds changes.
FORMAT = 2
_STRING_COLUMNS = ("region", "groups", "metric_names", "unmeasured_names")
_NUMBER_COLUMNS = ("sums", "unmeasured", "rank", "n_threads", "runtime_s", "call_count")


def default_cache_dir() -> Path:
    """``platformdirs.user_cache_dir("roofline-widget") / "scope-h5"``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("roofline-widget")) / "scope-h5"


def cache_key(path) -> dict:
    """What an entry must match: resolved path, size, mtime (ns), package version, format."""
    from roofline_widget import __version__

    path = Path(path).resolve()
    status = path.stat()
    return {"path": str(path), "size": status.st_size, "mtime_ns": status.st_mtime_ns,
            "version": __version__, "format": FORMAT}


def entry_path(path, cache_dir=None) -> Path:
    """The ``.npz`` entry of ``path`` in ``cache_dir`` (one per file, named by a path hash)."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:24]
    return directory / f"{digest}.npz"


def load(path, cache_dir=None) -> dict | None:
    """The cached columns of ``path``, or None when there is no entry or it is stale."""
    entry = entry_path(path, cache_dir)
    try:
        with np.load(entry, allow_pickle=False) as stored:
            if json.loads(str(stored["key"])) != cache_key(path):
                return None
            table = {name: stored[name] for name in _NUMBER_COLUMNS}
            table.update((name, stored[name].tolist()) for name in _STRING_COLUMNS)
    except (OSError, KeyError, ValueError):
        return None  # no entry, or an unreadable one: read the file again
    return table


def store(path, cache_dir, table: dict, key: dict) -> Path | None:
    """Write ``table`` as the entry of ``path``, read when the file had ``key``.

    Nothing is written (None returned) when the file has changed since ``key``
    was taken, or when the directory is not writable.
    """
    if cache_key(path) != key:
        return None
    entry = entry_path(path, cache_dir)
    columns = {name: np.asarray(table[name]) for name in _NUMBER_COLUMNS}
    columns.update((name, np.array(table[name], dtype=str)) for name in _STRING_COLUMNS)
    columns["key"] = np.array(json.dumps(key))
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".npz.tmp")
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **columns)
        os.replace(temporary, entry)
    except OSError:
        return None
    return entry
