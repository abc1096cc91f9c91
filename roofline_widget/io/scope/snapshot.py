"""One version of a file per read: the file's identity and content pinned before, checked after.

A scope-profiler HDF5 file is read rank by rank, by one or several processes,
each opening it by name; a job may rewrite it meanwhile (in place, through
``mmap``, or saving safely: a new file moved over the old one with
:func:`os.replace`).  Without a check, a read then mixes ranks of two versions
under one label, or a cache serves numbers the file no longer holds.

:func:`file_version` pins what the path names now: device, inode, size,
modification and status-change times and a hash of every byte
(:class:`FileVersion`; a write through ``mmap`` may move no timestamp, so the
bytes are what decides).  :func:`read_one_version` runs a read between two
such versions and accepts it only when both are equal: the file held the same
bytes under the same name when the read started and when it ended.  A read
that saw a change is done again (:data:`ATTEMPTS` times in all), then refused
with the package's error naming the file and what changed.

A LIKWID text or CSV file is read whole several times (the first pass, then the
pieces the parser reads): it is pinned by :func:`file_identity` (device, inode,
size, modification time: :func:`os.stat`, no byte read), checked by the reader
on every open and at the end of every pass (with a :class:`Checksum` of the
bytes of each pass: the passes must agree), and run through the same loop,
:func:`read_one_version` with ``pin=file_identity``, with :data:`TEXT_ATTEMPTS`.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

from roofline_widget.errors import LikwidFormatError
from roofline_widget.escaping import file_name
from roofline_widget.io.opener import open_regular, read_failed, regular_file

__all__ = ["ATTEMPTS", "TEXT_ATTEMPTS", "Checksum", "FileChanged", "FileIdentity", "FileVersion",
           "changed_while_read", "file_identity", "file_version", "read_one_version",
           "steady_version", "what_changed"]

#: How many times a read is tried before a file that keeps changing is refused.
ATTEMPTS = 3
#: The same for a text or CSV file: read again once from scratch (each read parses it all).
TEXT_ATTEMPTS = 2
_BLOCK = 16 * 2**20


def _crc32(data: memoryview) -> str:
    return f"{zlib.crc32(data):08x}"


_HASH: Callable[[memoryview], str]
_RUNNING_HASH: Callable[[], Any] | None  # a new running hash object
try:
    import xxhash

    _HASH_NAME, _HASH, _RUNNING_HASH = "xxh3", xxhash.xxh3_64_hexdigest, xxhash.xxh3_64
except ImportError:  # pragma: no cover - a dependency; CRC-32 is five times slower
    _HASH_NAME, _HASH, _RUNNING_HASH = "crc32", _crc32, None
T = TypeVar("T")


class FileChanged(Exception):
    """The file changed while it was read (internal: the read is tried again).

    Parameters
    ----------
    path : str or path-like
    change : str
        What changed, in words (:func:`what_changed`).
    """

    def __init__(self, path, change: str = "") -> None:
        super().__init__(path, change)
        self.change = change


class Checksum:
    """A running hash of the bytes given (xxh3, or CRC-32 without the ``xxhash`` package)."""

    def __init__(self) -> None:
        self._xxh = _RUNNING_HASH() if _RUNNING_HASH is not None else None
        self._crc = 0

    def update(self, data: bytes) -> None:
        """Add ``data``."""
        if self._xxh is not None:
            self._xxh.update(data)
        else:  # pragma: no cover - without xxhash
            self._crc = zlib.crc32(data, self._crc)

    def hexdigest(self) -> str:
        """The name of the hash and the hash of every byte given, in hex."""
        value = self._xxh.hexdigest() if self._xxh is not None else f"{self._crc:08x}"
        return f"{_HASH_NAME}:{value}"


@dataclass(frozen=True)
class FileIdentity:
    """Which file a path names and its state, as :func:`os.stat` says (no byte is read).

    Attributes
    ----------
    device, inode : int
        Which file (a file moved over the path with ``os.replace`` is another inode).
    size, mtime_ns : int
        Its size and modification time (an append, a rewrite, ``touch``).
    """

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        """The identity :func:`os.stat` or :func:`os.fstat` gave."""
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


def file_identity(path) -> FileIdentity:
    """The :class:`FileIdentity` of ``path`` now.

    Raises
    ------
    FileNotFoundError
    LikwidFormatError
        For a path that is no regular file (see
        :func:`~roofline_widget.io.opener.regular_file`).
    """
    regular_file(path)
    return FileIdentity.of(os.stat(path))


_CHANGES = {"device": "another file is at its path", "inode": "another file is at its path",
            "mtime_ns": "its modification time moved", "ctime_ns": "its status-change time moved",
            "checksum": "its content differs"}


def what_changed(before: Any, after: Any) -> str:
    """What differs between two pins of one path (:class:`FileIdentity` or
    :class:`FileVersion`), in words, each thing once (the times not when the size moved).

    Examples
    --------
    >>> what_changed(FileIdentity(1, 2, 10, 5), FileIdentity(1, 3, 12, 5))
    'another file is at its path; its size went from 10 to 12 bytes'
    """
    said: list[str] = []
    for field in fields(before):
        old, new = getattr(before, field.name), getattr(after, field.name)
        if old == new or (field.name.endswith("time_ns") and before.size != after.size):
            continue  # a new size says the times moved
        if field.name == "ctime_ns" and before.mtime_ns != after.mtime_ns:
            continue  # and a new modification time the status-change time
        words = (f"its size went from {old:,} to {new:,} bytes" if field.name == "size"
                 else _CHANGES[field.name])
        if words not in said:
            said.append(words)
    return "; ".join(said)


@dataclass(frozen=True)
class FileVersion:
    """What a path names at one moment: the file and its content.

    Attributes
    ----------
    device, inode : int
        Which file (a file moved over the path with ``os.replace`` is another inode).
    size, mtime_ns, ctime_ns : int
        As :func:`os.stat` gives them.
    checksum : str
        The name of the hash, then the hash of each block of 16 MiB, in hex
        (xxh3, or CRC-32 without the ``xxhash`` package; a change in any byte
        is seen: a write through ``mmap`` may move no timestamp).
    """

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    checksum: str

    def same_content(self, other: FileVersion) -> bool:
        """Whether ``other`` holds the same bytes (touched, copied or moved: it may be another file)."""
        return (self.size, self.checksum) == (other.size, other.checksum)


def _fill(handle: io.BufferedReader, buffer: bytearray) -> int:
    """Read into ``buffer`` until it is full or the file ends (blocks fall on the same bytes
    whatever sizes the reads return); how many bytes it holds."""
    view, filled = memoryview(buffer), 0
    while filled < len(buffer):
        count = handle.readinto(view[filled:])
        if not count:
            break
        filled += count
    return filled


def _status(handle) -> tuple[int, int, int, int, int]:
    status = os.fstat(handle.fileno())
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns


def file_version(path, what: str = "a scope-profiler HDF5 file") -> FileVersion:
    """The :class:`FileVersion` of ``path`` now (every byte is read once).

    Raises
    ------
    FileChanged
        If the file changed while it was read (its status moved, or it holds
        another number of bytes than its size).
    FileNotFoundError
    LikwidFormatError
        For a path that is no regular file, or a read that fails, naming the file.
    """
    with open_regular(path, what) as handle:
        before = _status(handle)
        sums, total = [], 0
        buffer = bytearray(_BLOCK)
        try:
            while count := _fill(cast(io.BufferedReader, handle), buffer):
                sums.append(_HASH(memoryview(buffer)[:count]))
                total += count
                if total > before[2] or count < _BLOCK:
                    break
        except OSError as exc:  # /proc/self/mem and the like: stat says a file, reads fail
            raise read_failed(path, exc) from None
        if _status(handle) != before or total != before[2]:
            raise FileChanged(path, "its size or times moved while its bytes were hashed")
    return FileVersion(*before, f"{_HASH_NAME}:{''.join(sums)}")


def steady_version(path, attempts: int = ATTEMPTS) -> FileVersion:
    """:func:`file_version`, taken again while the file changes under it (refused after ``attempts``).

    Raises
    ------
    LikwidFormatError
        If the file changed during every attempt (:func:`changed_while_read`).
    """
    change = ""
    for _ in range(attempts):
        try:
            return file_version(path)
        except FileChanged as exc:
            change = exc.change
    raise changed_while_read(path, attempts, change)


def changed_while_read(path, attempts: int = ATTEMPTS, change: str = "") -> LikwidFormatError:
    """The error for a file that changed during every one of ``attempts`` reads (``change``:
    what changed the last time, in words; the message is cut at 80 characters)."""
    found = f"it changed during each of {attempts} reads"
    found += f": {change}" if change else " (is a job still writing it?)"
    return LikwidFormatError(file_name(path), None, "a file that stays the same while it is read",
                             found)


def read_one_version(path, read: Callable[[Any], T], pin: Callable[[Any], Any] = file_version, *,
                     first: Any = None, attempts: int = ATTEMPTS) -> tuple[T, Any]:
    """``read(before)`` of one version of ``path``: accepted only when ``pin(path)`` after it
    equals ``before``, tried again while the file changes under it.

    Parameters
    ----------
    path : str or path-like
    read : callable
        Reads the file (by its path, as often and in as many processes as it
        likes), given the version taken before.  It may raise :class:`FileChanged`
        when it sees a change itself (the text reader, on an open or at the end of
        a pass); the read is then tried again.
    pin : callable
        What pins the file: :func:`file_version` (every byte hashed, the
        default) or :func:`file_identity` (the text reader's).
    first : FileVersion, optional
        The version just taken (saves reading the file once more).
    attempts : int
        Reads tried before the file is refused.

    Returns
    -------
    result, version
        What ``read`` returned, and the version of the file it read.

    Raises
    ------
    LikwidFormatError
        If the file changed during every attempt (:func:`changed_while_read`),
        or ``read`` raised it and the file did not change meanwhile (damage,
        not a change).
    """
    change = ""
    for _ in range(attempts):
        try:
            before = first if first is not None else pin(path)
            first = None
            try:
                result = read(before)
            except LikwidFormatError:
                after = pin(path)
                if after == before:
                    raise  # the file's own damage
                change = what_changed(before, after)
                continue  # a change broke the read: again
            after = pin(path)
            if after == before:
                return result, before
            change = what_changed(before, after)
        except FileChanged as exc:
            change = exc.change
    raise changed_while_read(path, attempts, change)
