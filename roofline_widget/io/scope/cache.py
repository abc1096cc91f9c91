"""On-disk cache of the per-region sums of scope-profiler HDF5 files (``.npz``).

The first :func:`~roofline_widget.points.read_scope_sums` of a file stores
its columns (sums of every metric, rank, region, group, cpus, runtime, call
count, the run label) in one ``.npz`` file; later reads load that instead of
the HDF5 file.  An entry is used only when its key matches the file now:

* the resolved path, the inode, the size, the modification and the status
  change time in nanoseconds (a same-size rewrite whose modification time is
  put back still changes the status change time; a file replaced by a copy
  has another inode);
* a fingerprint of the content: a hash of evenly spread samples of the file
  (the first and last 64 KiB and 64 blocks of 4 KiB between), and of the
  whole file when the timestamps cannot tell a rewrite (the entry is written
  less than :data:`RACY_SECONDS` after the file changed, or the file system
  keeps whole seconds only: then a rewrite within that second keeps every
  timestamp);
* the roofline-widget version and the cache format.

The key is stored inside the entry and compared on every load.  An entry
that does not load, or whose columns do not fit together, is deleted and
read again.  Entries are written to a temporary file and renamed, so a
reader never sees half an entry; the temporary file is removed whatever
fails (a full disk).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

__all__ = ["FORMAT", "RACY_SECONDS", "FileStatus", "cache_key", "default_cache_dir", "entry_path",
           "file_status", "load", "store"]

#: Bumped whenever what an entry holds changes.
FORMAT = 3
#: An entry written this soon after the file changed also hashes the whole file.
RACY_SECONDS = 2.0
_STRING_COLUMNS = ("region", "groups", "metric_names", "unmeasured_names")
_NUMBER_COLUMNS = ("sums", "unmeasured", "rank", "n_threads", "runtime_s", "call_count")
_SAMPLE_EDGE, _SAMPLE_BLOCK, _SAMPLES = 64 * 1024, 4096, 64
_CHUNK = 16 * 2**20


@dataclass(frozen=True)
class FileStatus:
    """What :func:`os.stat` says of a file that changes with its content."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def file_status(path) -> FileStatus:
    """The :class:`FileStatus` of ``path`` now."""
    status = os.stat(path)
    return FileStatus(status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def default_cache_dir() -> Path:
    """``platformdirs.user_cache_dir("roofline-widget") / "scope-h5"``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("roofline-widget")) / "scope-h5"


def _fingerprint(path, size: int, whole: bool) -> str:
    """A hash of samples of the file (or of all of it): see the module docstring."""
    digest = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb", buffering=0) as handle:
        if whole:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
        else:
            step = max(1, (size - 2 * _SAMPLE_EDGE) // _SAMPLES)
            starts = [0, max(0, size - _SAMPLE_EDGE),
                      *range(_SAMPLE_EDGE, max(_SAMPLE_EDGE, size - _SAMPLE_EDGE), step)]
            for start in starts[:_SAMPLES + 2]:
                digest.update(os.pread(handle.fileno(), _SAMPLE_EDGE if start in starts[:2]
                                       else _SAMPLE_BLOCK, start))
    return digest.hexdigest()


def _racy(status: FileStatus, now_ns: int) -> bool:
    """Whether the timestamps cannot tell a rewrite from now on (see the module docstring)."""
    whole_seconds = status.mtime_ns % 1_000_000_000 == 0 and status.ctime_ns % 1_000_000_000 == 0
    return whole_seconds or now_ns - max(status.mtime_ns, status.ctime_ns) < RACY_SECONDS * 1e9


def cache_key(path, whole: bool | None = None) -> dict:
    """What an entry must match (see the module docstring).

    ``whole`` says whether the fingerprint covers the whole file; by default
    it does when the file changed less than :data:`RACY_SECONDS` ago or has
    whole-second timestamps.
    """
    from roofline_widget import __version__

    resolved = Path(path).resolve()
    status = file_status(resolved)
    if whole is None:
        whole = _racy(status, time.time_ns())
    return {"path": str(resolved), **asdict(status), "whole": bool(whole),
            "fingerprint": _fingerprint(resolved, status.size, whole),
            "version": __version__, "format": FORMAT}


def entry_path(path, cache_dir=None) -> Path:
    """The ``.npz`` entry of ``path`` in ``cache_dir`` (one per file, named by a path hash)."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:24]
    return directory / f"{digest}.npz"


def _fits(table: dict) -> bool:
    """Whether the loaded columns fit together (a damaged entry may load but not fit)."""
    n, names = len(table["rank"]), len(table["metric_names"])
    return (table["sums"].shape == table["unmeasured"].shape == (names, n)
            and all(len(table[name]) == n for name in ("region", "groups", "n_threads",
                                                       "runtime_s", "call_count"))
            and len(table["unmeasured_names"]) == int(np.count_nonzero(table["unmeasured"]))
            and isinstance(table["label"], str))


def load(path, cache_dir=None) -> dict | None:
    """The cached columns of ``path`` (and its ``label``), or None when there is no usable entry.

    An entry that is stale is left for :func:`store` to replace; one that
    does not load or whose columns do not fit together is deleted.
    """
    entry = entry_path(path, cache_dir)
    if not entry.is_file():
        return None
    try:
        with np.load(entry, allow_pickle=False) as stored:
            key = json.loads(str(stored["key"]))
            if key != cache_key(path, whole=key.get("whole")):
                return None
            table = {name: stored[name] for name in _NUMBER_COLUMNS}
            table.update((name, stored[name].tolist()) for name in _STRING_COLUMNS)
            table["label"] = str(stored["label"])
        if _fits(table):
            if key["whole"] and not _racy(file_status(path), time.time_ns()):
                # verified whole; from now on a change moves the timestamps: samples will do
                store(path, cache_dir, table, cache_key(path, whole=False))
            return table
    except Exception:  # whatever is wrong with the entry, read the file again
        pass
    with contextlib.suppress(OSError):
        entry.unlink()
    return None


def store(path, cache_dir, table: dict, key: dict) -> Path | None:
    """Write ``table`` as the entry of ``path``, read when the file had ``key``.

    Nothing is written (None returned) when the file has changed since ``key``
    was taken, or when the entry cannot be written (no directory, a full
    disk: no temporary file is left behind).
    """
    if cache_key(path, whole=key["whole"]) != key:
        return None
    entry = entry_path(path, cache_dir)
    columns = {name: np.asarray(table[name]) for name in _NUMBER_COLUMNS}
    columns.update((name, np.array(table[name], dtype=str)) for name in _STRING_COLUMNS)
    columns["label"] = np.array(str(table["label"]))
    columns["key"] = np.array(json.dumps(key))
    temporary = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".npz.tmp")
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **columns)  # type: ignore[arg-type]
        os.replace(temporary, entry)
        temporary = None
    except OSError:
        return None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return entry
