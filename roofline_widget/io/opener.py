"""The one file opener every reader uses: bytes in, decoded text out.

:func:`open_text` accepts a path or a file-like object (text or binary),
decompresses gzip, bz2 and xz files recognised by their magic bytes (never by
the suffix), decodes UTF-8 (with or without a byte-order mark) and falls back
to latin-1, and raises :class:`~roofline_widget.errors.LikwidFormatError` for
what cannot be read (a directory, a FIFO or device, an empty or binary file).

All reading goes through :func:`read_bytes` (or, for the text and CSV
readers, which read a file in pieces, :mod:`roofline_widget.io.stream` with
the checks here: :func:`regular_file`, :data:`COMPRESSED`,
:func:`check_text_start`), which reads in chunks and stops at
:data:`MAX_BYTES` (also the cap on what a compressed file may expand to), so
that neither an endless stream nor a compression bomb exhausts memory.
"""

from __future__ import annotations

import bz2
import gzip
import importlib.util
import io
import lzma
import os
import stat
from dataclasses import dataclass
from typing import IO, cast

from roofline_widget.errors import LikwidFormatError
from roofline_widget.escaping import file_name

__all__ = [
    "BINARY_PROBE",
    "COMPRESSED",
    "HDF5_MAGIC",
    "MAX_BYTES",
    "PathOrBuffer",
    "Source",
    "check_text_start",
    "decode",
    "decompress",
    "is_file_like",
    "open_regular",
    "open_text",
    "peek",
    "read_bytes",
    "read_failed",
    "regular_file",
    "source_name",
    "too_large",
    "utf16_or_32",
]

#: A path, or an open file (text or binary).
PathOrBuffer = str | os.PathLike | IO[str] | IO[bytes]

#: The first bytes of an HDF5 file (scope-profiler's results).
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"

#: The most bytes read from one file (after decompression): 1 GiB.  The text
#: and CSV readers read a file in pieces and keep under 3 bytes of memory
#: per byte of the file (``benchmarks/bench_memory.py``), so a read at the cap
#: stays under 3 GiB, what a notebook on a laptop or a login node can give.
#: Larger LIKWID text output does not occur; a read stops here with a clear error.
MAX_BYTES = 2**30

_CHUNK = 16 * 2**20
#: Compressed files, known by their first bytes: (magic, name, opener of a binary stream).
COMPRESSED = (
    (b"\x1f\x8b", "gzip", lambda stream: gzip.GzipFile(fileobj=stream)),
    (b"BZh", "bz2", bz2.BZ2File),
    (b"\xfd7zXZ\x00", "xz", lzma.LZMAFile),
)
#: How many first bytes are looked at for NUL bytes (a binary file).
BINARY_PROBE = 65536
# byte-order marks, longest first (the UTF-32 LE mark starts with the UTF-16 LE one)
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"),
)


@dataclass(frozen=True)
class Source:
    """A file's decoded text and the name used for it in runs and messages."""

    name: str
    text: str


def is_file_like(obj) -> bool:
    """Whether ``obj`` is an open file (has a ``read`` method), not a path."""
    return hasattr(obj, "read") and not isinstance(obj, (str, bytes, os.PathLike))


def source_name(path_or_buffer: PathOrBuffer) -> str:
    """The name a path or file object is reported under (``"<stream>"`` if it has none).

    Bytes of the name that are no UTF-8 are shown as ``\\xNN``
    (:func:`~roofline_widget.escaping.file_name`): the name goes into tables and messages.
    """
    if is_file_like(path_or_buffer):
        name = getattr(path_or_buffer, "name", None)
        return file_name(name) if isinstance(name, (str, os.PathLike)) else "<stream>"
    return file_name(path_or_buffer)  # type: ignore[arg-type]


def read_failed(name, exc: OSError) -> LikwidFormatError:
    """The error for a read that fails on a file ``stat`` calls regular (``/proc/self/mem``)."""
    return LikwidFormatError(file_name(name), None, "a file that can be read",
                             f"the read failed: {exc.strerror or exc}")


def too_large(name, limit: int) -> LikwidFormatError:
    """The error for a file (or stream, or what a compressed file expands to) past ``limit`` bytes."""
    return LikwidFormatError(name, None, f"at most {limit:,} bytes of LIKWID output "
                             "(the cap roofline_widget.io.opener.MAX_BYTES)",
                             "more: the read was stopped there")


def _read_chunks(read, name, limit: int, cap: int | None = None) -> bytes:
    """Call ``read(size)`` until it returns nothing; raise past ``limit`` bytes (naming ``cap``)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        chunks.append(bytes(chunk))
        total += len(chunk)
        if total > limit:
            raise too_large(name, limit if cap is None else cap)


def read_bytes(path_or_buffer: PathOrBuffer, limit: int | None = None) -> bytes:
    """Every byte of a regular file or a file object (text objects encoded as UTF-8).

    Read in chunks of 16 MiB, so that a file object that never ends is
    stopped at the cap instead of filling the memory.

    Parameters
    ----------
    path_or_buffer : str, path-like or file object
    limit : int, optional
        The most bytes read (default :data:`MAX_BYTES`, looked up at the call).

    Raises
    ------
    LikwidFormatError
        For a directory, a path that is no regular file (a FIFO, a device),
        or more than ``limit`` bytes (the message names the file and the cap).
    FileNotFoundError
        If the file does not exist.
    """
    limit = MAX_BYTES if limit is None else limit
    name = source_name(path_or_buffer)
    if is_file_like(path_or_buffer):
        return _read_chunks(cast(IO, path_or_buffer).read, name, limit)
    with open_regular(cast(os.PathLike, path_or_buffer)) as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > limit:
            raise too_large(name, limit)
        try:
            data = handle.read(info.st_size + 1)  # one read of the size stat gave, and one more byte
            if len(data) <= info.st_size:
                return data
            # the file grew since stat (a log still written): the rest in chunks, up to the cap
            if len(data) > limit:
                raise too_large(name, limit)
            return data + _read_chunks(handle.read, name, limit - len(data), limit)
        except OSError as exc:
            raise read_failed(name, exc) from None


def decompress(raw: bytes, source: str, limit: int | None = None) -> bytes:
    """``raw`` uncompressed if it starts with gzip, bz2 or xz magic bytes.

    At most ``limit`` bytes (default :data:`MAX_BYTES`) are uncompressed;
    more raise :class:`LikwidFormatError`, so a compression bomb is stopped.

    Examples
    --------
    >>> import gzip
    >>> decompress(gzip.compress(b"+--+"), "run.txt.gz")
    b'+--+'
    >>> decompress(b"plain", "run.txt")
    b'plain'
    """
    limit = MAX_BYTES if limit is None else limit
    for magic, name, opener in COMPRESSED:
        if raw.startswith(magic):
            try:
                with opener(io.BytesIO(raw)) as stream:
                    return _read_chunks(stream.read, source, limit)
            except LikwidFormatError:
                raise
            except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
                raise LikwidFormatError(source, None, f"a complete {name}-compressed file",
                                        str(exc)) from None
    return raw


def utf16_or_32(raw: bytes) -> str | None:
    """The codec named by a UTF-16 or UTF-32 byte-order mark at the start of ``raw``, or None."""
    return next((codec for bom, codec in _BOMS if raw.startswith(bom)), None)


def decode(raw: bytes, source: str = "<bytes>") -> str:
    """UTF-8 text, or UTF-16/32 after its byte-order mark, or latin-1 where it is no UTF-8.

    Byte-order marks are dropped wherever they are: one at the start of a
    line is what concatenating files (``cat a.txt b.txt``) leaves behind.

    Raises
    ------
    LikwidFormatError
        For UTF-16/UTF-32 text that does not decode (cut in the middle of a
        character, for example).

    Examples
    --------
    >>> decode(b"\\xef\\xbb\\xbfCPU name:"), decode(b"caf\\xe9") == "caf\\u00e9"
    ('CPU name:', True)
    >>> decode("CPU name:".encode("utf-16"))
    'CPU name:'
    """
    codec = utf16_or_32(raw)
    if codec is not None:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as exc:
            raise LikwidFormatError(source, None, f"{codec.upper()} text (the file starts with "
                                    f"a {codec.upper()} byte-order mark)", str(exc)) from None
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")  # latin-1 decodes every byte
    return text.replace("\ufeff", "") if "\ufeff" in text else text


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
    check_text_start(raw[:BINARY_PROBE], name, what)
    return Source(name, decode(raw, name))


def check_text_start(start: bytes, name: str, what: str) -> None:
    """Raise for a file no text reader reads, told by its first (uncompressed) bytes.

    Raises
    ------
    LikwidFormatError
        For an HDF5 file (with the readers that take one), or NUL bytes in
        the first :data:`BINARY_PROBE` bytes of a file without a UTF-16/32
        byte-order mark (binary data).
    """
    if start.startswith(HDF5_MAGIC):
        raise LikwidFormatError(name, None, f"a text file of {what}; {_hdf5_advice()}")
    if utf16_or_32(start) is None and b"\x00" in start[:BINARY_PROBE]:
        raise LikwidFormatError(name, None, f"a text file of {what}", "binary data")


def _hdf5_advice() -> str:
    advice = ("this is an HDF5 file (scope-profiler results?): pass it to "
              "read_likwid(path, format='scope-h5'), read_scope_h5(path), "
              "points_dataframe(path) or RooflineWidget(path)")
    if importlib.util.find_spec("h5py") is None:
        advice += "; reading HDF5 needs h5py (pip install h5py)"
    return advice


def regular_file(path: str | os.PathLike, what: str = "a regular file") -> str:
    """``path`` as a string if it names a regular file (following symbolic links).

    Nothing is opened, so a FIFO cannot block and a device is never read.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    LikwidFormatError
        For a directory, a FIFO, socket or device, a symbolic link loop or
        any other path that cannot be looked at, naming the path.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:  # a symbolic link loop, a name too long, no permission
        raise LikwidFormatError(file_name(path), None, what, exc.strerror or str(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise LikwidFormatError(file_name(path), None, f"{what}, not a directory")
    if not stat.S_ISREG(info.st_mode):
        raise LikwidFormatError(file_name(path), None, what, "a FIFO, socket or device")
    return os.fspath(path)


def open_regular(path: str | os.PathLike, what: str = "a regular file") -> IO[bytes]:
    """Open ``path`` for reading in binary if it is a regular file (see :func:`regular_file`).

    The file is opened non-blocking and checked again once open, so a path
    swapped for a FIFO or a device in between is refused too.
    """
    regular_file(path, what)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise LikwidFormatError(file_name(path), None, what, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise LikwidFormatError(file_name(path), None, what, "a FIFO, socket or device")
    return os.fdopen(descriptor, "rb")


def peek(path_or_buffer: PathOrBuffer, size: int = 8) -> bytes:
    """The first ``size`` bytes of a regular file (``b""`` for file objects and other paths)."""
    if is_file_like(path_or_buffer):
        return b""
    try:
        with open_regular(path_or_buffer) as handle:  # type: ignore[arg-type]
            return handle.read(size)
    except (OSError, LikwidFormatError):
        return b""
