"""The one file opener every reader uses: bytes in, decoded text out.

:func:`open_text` accepts a path or a file-like object (text or binary),
decompresses gzip, bz2 and xz files recognised by their magic bytes (never by
the suffix), decodes UTF-8 (with or without a byte-order mark) and falls back
to latin-1, and raises :class:`~roofline_widget.errors.LikwidFormatError` for
what cannot be read (a directory, a FIFO or device, an empty or binary file).

All reading goes through :func:`read_bytes`, so that limits on what is read
(a size cap, streaming) have exactly one place to live.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import LikwidFormatError

__all__ = ["Source", "PathOrBuffer", "open_text", "read_bytes", "source_name",
           "is_file_like", "decompress", "decode", "peek", "HDF5_MAGIC"]

#: A path, or an open file (text or binary).
PathOrBuffer = str | os.PathLike | IO[str] | IO[bytes]

#: The first bytes of an HDF5 file (scope-profiler's results).
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"

_COMPRESSED = (
    (b"\x1f\x8b", "gzip", gzip.decompress),
    (b"BZh", "bz2", bz2.decompress),
    (b"\xfd7zXZ\x00", "xz", lzma.decompress),
)
_BINARY_PROBE = 65536


@dataclass(frozen=True)
class Source:
    """A file's decoded text and the name used for it in runs and messages."""

    name: str
    text: str


def is_file_like(obj) -> bool:
    """Whether ``obj`` is an open file (has a ``read`` method), not a path."""
    return hasattr(obj, "read") and not isinstance(obj, (str, bytes, os.PathLike))


def source_name(path_or_buffer: PathOrBuffer) -> str:
    """The name a path or file object is reported under (``"<stream>"`` if it has none)."""
    if is_file_like(path_or_buffer):
        name = getattr(path_or_buffer, "name", None)
        return str(name) if isinstance(name, (str, os.PathLike)) else "<stream>"
    return str(path_or_buffer)


def read_bytes(path_or_buffer: PathOrBuffer) -> bytes:
    """Every byte of a regular file or a file object (text objects encoded as UTF-8).

    Raises
    ------
    LikwidFormatError
        For a directory, or a path that is no regular file (a FIFO, a device).
    FileNotFoundError
        If the file does not exist.
    """
    if is_file_like(path_or_buffer):
        data = path_or_buffer.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    path = Path(path_or_buffer)
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise LikwidFormatError(path, None, "a file, not a directory")
    if not stat.S_ISREG(mode):
        raise LikwidFormatError(path, None, "a regular file", "a FIFO, socket or device")
    return path.read_bytes()


def decompress(raw: bytes, source: str) -> bytes:
    """``raw`` uncompressed if it starts with gzip, bz2 or xz magic bytes.

    Examples
    --------
    >>> import gzip
    >>> decompress(gzip.compress(b"+--+"), "run.txt.gz")
    b'+--+'
    >>> decompress(b"plain", "run.txt")
    b'plain'
    """
    for magic, name, function in _COMPRESSED:
        if raw.startswith(magic):
            try:
                return function(raw)
            except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
                raise LikwidFormatError(source, None, f"a complete {name}-compressed file",
                                        str(exc)) from None
    return raw


def decode(raw: bytes) -> str:
    """UTF-8 text (a byte-order mark dropped), or latin-1 where it is no UTF-8.

    Examples
    --------
    >>> decode(b"\\xef\\xbb\\xbfCPU name:"), decode(b"caf\\xe9") == "caf\\u00e9"
    ('CPU name:', True)
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # latin-1 decodes every byte


def open_text(path_or_buffer: PathOrBuffer, what: str = "LIKWID output") -> Source:
    """Read, decompress and decode a text file or file object.

    Parameters
    ----------
    path_or_buffer : str, path-like or file object
        A file (plain, gzip, bz2 or xz), or an open text or binary file.
    what : str
        What the file should hold, for the error messages.

    Returns
    -------
    Source
        The name (the path, the file object's ``name`` or ``"<stream>"``)
        and the decoded text.

    Raises
    ------
    LikwidFormatError
        For a directory, a FIFO or device, an empty file, binary data or a
        damaged compressed file.
    FileNotFoundError
        If the file does not exist.
    """
    name = source_name(path_or_buffer)
    raw = decompress(read_bytes(path_or_buffer), name)
    if not raw.strip():
        raise LikwidFormatError(name, None, what, "an empty file")
    if b"\x00" in raw[:_BINARY_PROBE]:
        raise LikwidFormatError(name, None, f"a text file of {what}", "binary data")
    return Source(name, decode(raw))


def peek(path_or_buffer: PathOrBuffer, size: int = 8) -> bytes:
    """The first ``size`` bytes of a file (``b""`` for file objects and unreadable paths)."""
    if is_file_like(path_or_buffer):
        return b""
    try:
        if not stat.S_ISREG(os.stat(path_or_buffer).st_mode):
            return b""  # never open a FIFO or device just to look at it
        with open(path_or_buffer, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""

