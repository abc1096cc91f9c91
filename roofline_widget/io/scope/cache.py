"""On-disk cache of the per-region sums of scope-profiler HDF5 files (``.npz``), keyed on content.

The first :func:`~roofline_widget.points.read_scope_sums` of a file stores
its columns (sums of every metric, rank, region, group, cpus, runtime, call
count, the run label) in one ``.npz`` file per file and engine; later reads
load that instead of the HDF5 file.  An entry is used only when its key
matches the file now:

* the content that was read: the size and the checksum of every byte of the
  version the read saw (:class:`~roofline_widget.io.scope.snapshot.FileVersion`:
  a rewrite is seen whatever it does to the timestamps, a write through
  ``mmap`` included; a file only touched or copied is still a hit);
* the engine (``"auto"``, ``"raw"`` or ``"h5py"``): each reads and refuses
  other files, so each has its own entry;
* the resolved path (the label may be the file's stem), the roofline-widget
  version and the cache format.

The key is stored inside the entry and compared on every load, with a hash
of the columns (``np.load`` does not check a zip member's CRC: a flipped byte
would load as another number).  An entry that does not load, whose hash
differs or whose columns do not fit together, is deleted and read again.
Entries are written to a temporary file and renamed, so a reader never sees
half an entry; the temporary file is removed whatever
fails (a full disk).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from roofline_widget.io.scope.snapshot import FileVersion

__all__ = ["FORMAT", "cache_key", "default_cache_dir", "entry_path", "load", "store"]

#: Bumped whenever what an entry holds (or its key) changes.
FORMAT = 4
_STRING_COLUMNS = ("region", "groups", "metric_names", "unmeasured_names")
_NUMBER_COLUMNS = ("sums", "unmeasured", "rank", "n_threads", "runtime_s", "call_count")


def default_cache_dir() -> Path:
    """``platformdirs.user_cache_dir("roofline-widget") / "scope-h5"``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("roofline-widget")) / "scope-h5"


def cache_key(path, version: FileVersion, engine: str) -> dict:
    """What an entry must match: the file's path, the content read, the engine (see the module)."""
    from roofline_widget import __version__

    return {"path": os.fsencode(Path(path).resolve()).hex(), "size": version.size,
            "checksum": version.checksum, "engine": engine, "version": __version__,
            "format": FORMAT}


def entry_path(path, cache_dir=None, engine: str = "auto") -> Path:
    """The ``.npz`` entry of ``path`` read with ``engine``, in ``cache_dir`` (named by a hash)."""
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    name = os.fsencode(Path(path).resolve()) + b"\0" + engine.encode()
    return directory / f"{hashlib.sha256(name).hexdigest()[:24]}.npz"


def _integrity(columns: dict) -> str:
    """A hash of every column's bytes: ``np.load`` does not check a member's CRC, so a flipped
    byte inside an array would load as another number."""
    digest = hashlib.sha256()
    for name in sorted(columns):
        array = np.ascontiguousarray(columns[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _fits(table: dict) -> bool:
    """Whether the loaded columns fit together (a damaged entry may load but not fit)."""
    n, names = len(table["rank"]), len(table["metric_names"])
    return (table["sums"].shape == table["unmeasured"].shape == (names, n)
            and all(len(table[name]) == n for name in ("region", "groups", "n_threads",
                                                       "runtime_s", "call_count"))
            and len(table["unmeasured_names"]) == int(np.count_nonzero(table["unmeasured"]))
            and isinstance(table["label"], str))


def load(path, version: FileVersion, engine: str, cache_dir=None) -> dict | None:
    """The cached columns of ``path`` (and its ``label``), or None when no entry holds ``version``.

    ``version`` is the file now (:func:`~roofline_widget.io.scope.snapshot.file_version`).
    An entry of another version is left for :func:`store` to replace; one
    that does not load or whose columns do not fit together is deleted.
    """
    entry = entry_path(path, cache_dir, engine)
    if not entry.is_file():
        return None
    try:
        with np.load(entry, allow_pickle=False) as stored:
            if json.loads(str(stored["key"])) != cache_key(path, version, engine):
                return None
            arrays = {name: stored[name] for name in (*_NUMBER_COLUMNS, *_STRING_COLUMNS,
                                                      "label")}
            intact = str(stored["integrity"]) == _integrity(arrays)
            table = {name: arrays[name] for name in _NUMBER_COLUMNS}
            table.update((name, arrays[name].tolist()) for name in _STRING_COLUMNS)
            table["label"] = str(arrays["label"])
        if intact and _fits(table):
            return table
    except Exception:  # whatever is wrong with the entry, read the file again
        pass
    with contextlib.suppress(OSError):
        entry.unlink()
    return None


def store(path, version: FileVersion, engine: str, cache_dir, table: dict) -> Path | None:
    """Write ``table``, read from ``version`` of ``path`` with ``engine``, as its entry.

    Nothing is written (None returned) when the entry cannot be written (no
    directory, a full disk: no temporary file is left behind).
    """
    entry = entry_path(path, cache_dir, engine)
    columns = {name: np.asarray(table[name]) for name in _NUMBER_COLUMNS}
    columns.update((name, np.array(table[name], dtype=str)) for name in _STRING_COLUMNS)
    columns["label"] = np.array(str(table["label"]))
    columns["integrity"] = np.array(_integrity(columns))
    columns["key"] = np.array(json.dumps(cache_key(path, version, engine)))
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
