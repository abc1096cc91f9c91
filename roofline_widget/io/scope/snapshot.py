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
with the package's error naming the file.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

from roofline_widget.errors import LikwidFormatError
from roofline_widget.escaping import file_name
from roofline_widget.io.opener import open_regular, read_failed

__all__ = ["ATTEMPTS", "FileChanged", "FileVersion", "changed_while_read", "file_version",
           "read_one_version", "steady_version"]

#: How many times a read is tried before a file that keeps changing is refused.
ATTEMPTS = 3
_BLOCK = 16 * 2**20


def _crc32(data: memoryview) -> str:
    return f"{zlib.crc32(data):08x}"


_HASH: Callable[[memoryview], str]
try:
    import xxhash

    _HASH_NAME, _HASH = "xxh3", xxhash.xxh3_64_hexdigest
except ImportError:  # pragma: no cover - a dependency; CRC-32 is five times slower
    _HASH_NAME, _HASH = "crc32", _crc32
T = TypeVar("T")


class FileChanged(Exception):
    """The file changed while its version was taken (internal: the read is tried again)."""


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
            raise FileChanged(path)
    return FileVersion(*before, f"{_HASH_NAME}:{''.join(sums)}")


def steady_version(path, attempts: int = ATTEMPTS) -> FileVersion:
    """:func:`file_version`, taken again while the file changes under it (refused after ``attempts``).

    Raises
    ------
    LikwidFormatError
        If the file changed during every attempt (:func:`changed_while_read`).
    """
    for _ in range(attempts):
        try:
            return file_version(path)
        except FileChanged:
            continue
    raise changed_while_read(path, attempts)


def changed_while_read(path, attempts: int = ATTEMPTS) -> LikwidFormatError:
    """The error for a file that changed during every one of ``attempts`` reads."""
    return LikwidFormatError(file_name(path), None, "a file that stays the same while it is read",
                             f"it changed during each of {attempts} reads (is a job still "
                             "writing it?)")


def read_one_version(path, read: Callable[[FileVersion], T], *, first: FileVersion | None = None,
                     attempts: int = ATTEMPTS) -> tuple[T, FileVersion]:
    """``read(version)`` of one version of ``path``: tried again while the file changes under it.

    Parameters
    ----------
    path : str or path-like
    read : callable
        Reads the file (by its path, as often and in as many processes as it
        likes), given the version taken before.
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
    for _ in range(attempts):
        try:
            before = first if first is not None else file_version(path)
            first = None
            try:
                result = read(before)
            except LikwidFormatError:
                if file_version(path) == before:
                    raise  # the file's own damage
                continue  # a change broke the read: again
            if file_version(path) == before:
                return result, before
        except FileChanged:
            continue
    raise changed_while_read(path, attempts)
