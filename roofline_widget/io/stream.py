"""A text file read in pieces, in two passes: never the whole text in memory.

:class:`TextFile` opens a path (or takes a file object, whose bytes are read once, up to the
cap, or a string) and gives its uncompressed bytes in chunks of :data:`CHUNK`, counting them
against :data:`~roofline_widget.io.opener.MAX_BYTES`.  :meth:`TextFile.scan` reads it once to
find what a reader must know before the first line:

* the encoding: UTF-16/32 after a byte-order mark, else UTF-8, or latin-1 for a file that is
  no UTF-8 (decided on the whole file, as :func:`~roofline_widget.io.opener.decode` does);
* the evidence the format is told by (:class:`Scan`): the first 2 MB of text and the first
  line of each of the :data:`MARKERS` (a CSV or a text LIKWID table line) anywhere;
* the likwid-topology block, if any (a few hundred lines of a job log);
* that the file is not empty, HDF5 or binary (a NUL byte anywhere is binary data).

:meth:`TextFile.pieces` then gives the text of a second read as
:class:`~roofline_widget.io.lines.Pieces`: UTF-8 bytes cut at line ends, every line ending in
``\\n`` (``\\r\\n`` and ``\\r`` end a line too), byte-order marks dropped, and a line longer
than :data:`MAX_LINE` (no LIKWID output has one) passed over with a note, never held whole.
Peak memory stays under 3 bytes per byte of the file, the model the read builds included
(``benchmarks/bench_memory.py``).
"""

from __future__ import annotations

import codecs
import io
import lzma
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import numpy as np

import roofline_widget.io.opener as opener
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.lines import ERRORS, Pieces
from roofline_widget.io.opener import (
    BINARY_PROBE,
    COMPRESSED,
    PathOrBuffer,
    check_text_start,
    is_file_like,
    open_regular,
    read_bytes,
    read_failed,
    source_name,
    too_large,
    utf16_or_32,
)
from roofline_widget.io.scope.snapshot import (
    TEXT_ATTEMPTS,
    Checksum,
    FileChanged,
    FileIdentity,
    file_identity,
    read_one_version,
    what_changed,
)
from roofline_widget.io.topology import TOPOLOGY_HEADER

__all__ = ["CHUNK", "CSV_TABLE_LINE", "HEAD_CHARACTERS", "MARKERS", "MAX_LINE", "TEXT_TABLE_LINE",
           "Scan", "TextFile", "read_one_text_version"]

#: Bytes read at a time.
CHUNK = 2**22
#: How much of the start of a file the format detection looks at line by line.
HEAD_CHARACTERS = 2_000_000
#: The longest line read (bytes of UTF-8): a row of a likwid-mpirun table of 200,000 hardware
#: threads. A longer line is passed over (an empty line in its place) with a note.
MAX_LINE = 2**22
#: A line that starts a likwid-perfctr or likwid-mpirun CSV block.
CSV_TABLE_LINE = re.compile(r"^(?:TABLE,Region|TABLE,Group|STRUCT,Info)", re.M)
#: The header row of a likwid-perfctr or likwid-mpirun text table.
TEXT_TABLE_LINE = re.compile(r"^\|\s*(?:Region Info|Event|Metric|Region|Group \d+ Raw)\s*\|", re.M)
#: The lines the format is told by wherever they are: name -> (a pattern anchored at the start
#: of a line, the texts such a line starts with).
MARKERS: dict[str, tuple[re.Pattern, tuple[str, ...]]] = {
    "csv": (CSV_TABLE_LINE, ("TABLE,Region", "TABLE,Group", "STRUCT,Info")),
    "text": (TEXT_TABLE_LINE, ("|",)),
}
#: Where the cache part of a likwid-topology block ends.
_TOPOLOGY_END = ("NUMA Topology", "Graphical Topology")
#: The most text kept of a likwid-topology block (a 1,024-thread machine prints ~100 KB).
_TOPOLOGY_CHARACTERS = 2**20
#: Lines before the block kept for its ``CPU name:`` line, and the most bytes kept of them.
_TOPOLOGY_BEFORE = 8
_TAIL = 2**16
_UTF8 = ("utf-8-sig", "str")
_TOPOLOGY_HEADER = TOPOLOGY_HEADER.encode()
T = TypeVar("T")


@dataclass
class Scan:
    """What the first read of a file found (see the module docstring).

    Attributes
    ----------
    encoding : str
        The codec the file decodes with (``"str"`` for a text given as a string).
    evidence : str
        The first :data:`HEAD_CHARACTERS` of the text, then the first line of each of the
        :data:`MARKERS` found anywhere: what the format is told by
        (:func:`~roofline_widget.io.formats.text_format`).
    topology : str or None
        The likwid-topology block, preceded by as many line breaks as lines before it (so that
        line numbers hold), or None.
    """

    encoding: str
    evidence: str
    topology: str | None = None


class _Scanner:
    """State of one scan: fed pieces of whole lines as UTF-8 bytes, looked at with numpy and
    decoded only where a marker, the topology block or the head is looked for."""

    def __init__(self, markers: dict[str, tuple[re.Pattern, tuple[str, ...]]], name: str,
                 what: str, codec: str, errors: str):
        self.patterns = {key: (pattern, [prefix.encode() for prefix in prefixes])
                         for key, (pattern, prefixes) in markers.items()}
        self.name = name
        self.what = what
        self.head: list[str] = []
        self.head_size = 0
        self.markers: dict[str, str] = {}
        self.blank = True
        self.lines_before = 0          # lines in the pieces seen
        self.tail = b""                # the last lines of the piece before (for CPU name)
        self.topology: list[str] | None = None
        self.topology_first = 0        # 0-based line where the kept topology text starts
        self.topology_done = False
        self.codec = codec             # of the next piece (a byte-order mark only at the start)
        self.errors = errors           # strict for a file's bytes, which may be no UTF-8

    def feed(self, piece: bytes) -> None:
        """Look at one piece of whole lines (:class:`UnicodeDecodeError` if it is no UTF-8)."""
        decoded: list[str] = []

        def text() -> str:
            if not decoded:
                decoded.append(piece.decode(self.codec, self.errors))
            return decoded[0]

        if not piece.isascii():
            text()  # is it UTF-8?
        self.codec = "utf-8"
        if b"\x00" in piece:  # binary data past the first bytes looked at: never part of a name
            line = self.lines_before + piece.count(b"\n", 0, piece.index(b"\x00")) + 1
            raise LikwidFormatError(self.name, line, f"a text file of {self.what}",
                                    "binary data (a NUL byte)")
        if self.blank and piece and not piece.isspace():
            self.blank = text().isspace()
        if self.head_size < HEAD_CHARACTERS:
            self.head.append(text()[:HEAD_CHARACTERS - self.head_size])
            self.head_size += len(self.head[-1])
        array = np.frombuffer(piece, dtype=np.uint8)
        ends = np.flatnonzero(array == 10)
        if len(self.markers) < len(self.patterns):
            self._markers(piece, array, ends, text)
        if not self.topology_done:
            self._topology(piece, text)
        self.lines_before += len(ends)

    def _markers(self, piece: bytes, array: np.ndarray, ends: np.ndarray, text) -> None:
        """The first line of each marker not found yet (a pattern anchored at a line start):
        tried where a line starts with one of its prefixes (found with numpy)."""
        starts = np.concatenate(([0], ends + 1))
        starts = starts[starts < len(array)]
        ascii_only = piece.isascii()
        for key, (pattern, prefixes) in self.patterns.items():
            if key in self.markers:
                continue
            if not ascii_only:  # character offsets are no byte offsets
                match = pattern.search(text())
            else:
                match = next(filter(None, (pattern.match(text(), start) for start in
                                           _starting(array, starts, prefixes))), None)
            if match:
                end = text().find("\n", match.start())
                self.markers[key] = text()[match.start():end if end >= 0 else None]

    def _topology(self, piece: bytes, text) -> None:
        if self.topology is None:
            if _TOPOLOGY_HEADER not in piece:  # keep the last lines, for the CPU name before it
                cut = len(piece)
                for _ in range(_TOPOLOGY_BEFORE + 1):
                    cut = piece.rfind(b"\n", 0, cut)
                    if cut < 0:
                        break
                self.tail = (piece[cut + 1:] if cut >= 0 else b"\n".join(
                    (self.tail + piece).rsplit(b"\n", _TOPOLOGY_BEFORE + 1)[1:]))[-_TAIL:]
                return
            tail = self.tail.decode("utf-8", ERRORS)
            at = text().find(TOPOLOGY_HEADER)
            start = text().rfind("\n", 0, at) + 1
            before = (tail + text()[:start]).split("\n")[:-1][-_TOPOLOGY_BEFORE:]
            self.topology_first = self.lines_before + text().count("\n", 0, start) - len(before)
            self.topology = [*(line + "\n" for line in before), text()[start:]]
        else:
            self.topology.append(text())
        kept = "".join(self.topology)
        if any(end in kept for end in _TOPOLOGY_END) or len(kept) > _TOPOLOGY_CHARACTERS:
            self.topology_done = True

    def result(self, encoding: str) -> Scan:
        evidence = "".join(self.head) + "\n" + "\n".join(self.markers.values())
        topology = None
        if self.topology is not None:
            topology = "\n" * self.topology_first + "".join(self.topology)[:_TOPOLOGY_CHARACTERS]
        return Scan(encoding, evidence, topology)


def _starting(array: np.ndarray, starts: np.ndarray, prefixes: list[bytes]) -> list[int]:
    """The line starts (sorted) where one of ``prefixes`` begins."""
    found = []
    for prefix in prefixes:
        at = starts[array[starts] == prefix[0]]
        for k, byte in enumerate(prefix[1:], start=1):
            at = at[at + k < len(array)]
            at = at[array[at + k] == byte]
        found.append(at)
    return np.sort(np.concatenate(found)).tolist()


def _char_start(data: bytes) -> int:
    """The length of ``data`` without a UTF-8 character its end cuts (at most 3 bytes off)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:  # the first byte of a character of (byte >= 0xE0) + (byte >= 0xF0) + 2
            size = 2 + (byte >= 0xE0) + (byte >= 0xF0)
            return len(data) if back >= size else len(data) - back
    return len(data)


class TextFile:
    """A text file (path or file object, plain or gzip/bz2/xz, or a string) read in chunks.

    Parameters
    ----------
    path_or_buffer : str, path-like or file object
        The file (with ``text``: only the name it is reported under).
    what : str
        What the file should hold, for the error messages.
    text : str, optional
        A text held in a string, read in pieces like a file (not checked for being empty or
        binary at its start: the format detection says what it lacks).
    identity : FileIdentity, optional
        The file a path named when the read started (default: taken now).  Every open of the
        path and the end of every pass checks it, and the bytes of every whole pass must be
        those of the first (:mod:`roofline_widget.io.scope.snapshot`): a file replaced,
        appended to or rewritten during the read raises
        :class:`~roofline_widget.io.scope.snapshot.FileChanged`, for
        :func:`~roofline_widget.io.scope.snapshot.read_one_version` to read it again.

    Attributes
    ----------
    name : str
        The name the file is reported under.
    identity : FileIdentity or None
        The file a path names (None for a file object or a string).

    Raises
    ------
    LikwidFormatError
        For a directory, a FIFO or device, or a file past the cap.
    FileNotFoundError
        If the file does not exist.
    """

    def __init__(self, path_or_buffer: PathOrBuffer, what: str = "LIKWID output", *,
                 text: str | None = None, identity: FileIdentity | None = None):
        self.name = source_name(path_or_buffer)
        self.what = what
        self.limit = opener.MAX_BYTES  # looked up at the call (tests lower it)
        self.identity: FileIdentity | None = None
        self._text = text
        self._open: object = None
        self._pass_checksum: str | None = None  # of the first whole pass over a path
        if text is not None:
            pass
        elif is_file_like(path_or_buffer):
            data = read_bytes(path_or_buffer, self.limit)  # a stream is read once
            self._open = lambda: io.BytesIO(data)
        else:
            path = Path(path_or_buffer)  # type: ignore[arg-type]  # not file-like: a path
            self.identity = identity or file_identity(path)
            if self.identity.size > self.limit:
                raise too_large(self.name, self.limit)
            self._open = lambda: self._open_pinned(path)

    def _open_pinned(self, path: Path) -> IO[bytes]:
        """``path`` opened, if it is still the file the read started with."""
        handle = open_regular(path)
        try:
            self._check(handle)
        except FileChanged:
            handle.close()
            raise
        return handle

    def _check(self, handle: IO[bytes], checksum: Checksum | None = None) -> None:
        """Raise :class:`FileChanged` if the open file is not the one pinned, or a whole pass
        (``checksum``) read other bytes than the first."""
        if self.identity is None:
            return
        now = FileIdentity.of(os.fstat(handle.fileno()))
        if now != self.identity:
            raise FileChanged(self.name, what_changed(self.identity, now))
        if checksum is not None:
            digest = checksum.hexdigest()
            if self._pass_checksum is None:
                self._pass_checksum = digest
            elif digest != self._pass_checksum:
                raise FileChanged(self.name, "its content differs between two passes")

    def chunks(self) -> Iterator[bytes]:
        """The file's uncompressed bytes, :data:`CHUNK` at a time, up to the cap.

        Raises
        ------
        FileChanged
            For a path, if the file is not the one the read started with when it is opened or
            when its end is reached, or its bytes differ from those of the first whole pass.
        """
        with self._open() as handle:  # type: ignore[operator]
            try:
                magic = handle.read(8)
            except OSError as exc:  # /proc/self/mem: stat says a file, reads fail
                raise read_failed(self.name, exc) from None
            handle.seek(0)
            stream: IO[bytes] = handle
            kind = None
            for known, name, decompressed in COMPRESSED:
                if magic.startswith(known):
                    stream, kind = decompressed(handle), name  # type: ignore[assignment]
            total = 0
            checksum = Checksum() if self.identity is not None else None
            try:
                while chunk := stream.read(CHUNK):
                    total += len(chunk)
                    if total > self.limit:
                        raise too_large(self.name, self.limit)
                    if checksum is not None:
                        checksum.update(chunk)
                    yield chunk
                self._check(handle, checksum)  # the end of a whole pass
            except LikwidFormatError:
                raise
            except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
                if kind is None:
                    if isinstance(exc, OSError):
                        raise read_failed(self.name, exc) from None
                    raise
                raise LikwidFormatError(self.name, None, f"a complete {kind}-compressed file",
                                        str(exc)) from None
            finally:
                if stream is not handle:
                    stream.close()

    def text_chunks(self, encoding: str) -> Iterator[str]:
        """The decoded text in chunks.

        Raises
        ------
        LikwidFormatError
            For UTF-16/32 text that does not decode.
        UnicodeDecodeError
            For UTF-8 that does not decode (:meth:`scan` then takes latin-1).
        """
        if self._text is not None:
            yield from (self._text[k:k + CHUNK] for k in range(0, len(self._text), CHUNK))
            return
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            for chunk in self.chunks():
                yield decoder.decode(chunk)
            yield decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            if encoding.startswith("utf-8"):
                raise
            name = encoding.upper()
            raise LikwidFormatError(self.name, None, f"{name} text (the file starts with a "
                                    f"{name} byte-order mark)", str(exc)) from None

    def scan(self, markers: dict[str, tuple[re.Pattern, tuple[str, ...]]] | None = None) -> Scan:
        """The first read (see the module docstring); ``markers`` as :data:`MARKERS` (default).

        Raises
        ------
        LikwidFormatError
            For an empty, HDF5 or binary file, a damaged compressed file, UTF-16/32 text that
            does not decode, or a file past the cap.
        """
        codec: str | None = "str"
        if self._text is None:
            start = next(self.chunks(), b"")[:BINARY_PROBE]
            check_text_start(start, self.name, self.what)
            codec = utf16_or_32(start)
        for encoding in ([codec] if codec else ["utf-8-sig", "latin-1"]):
            utf8 = encoding == "utf-8-sig"  # the bytes as they are, else text made UTF-8
            scanner = _Scanner(MARKERS if markers is None else markers, self.name, self.what,
                               encoding if utf8 else "utf-8", "strict" if utf8 else ERRORS)
            pending = b""
            try:
                for chunk in self.chunks() if utf8 else self._utf8_chunks(encoding):
                    cut = chunk.rfind(b"\n") + 1
                    if cut:
                        scanner.feed(pending + chunk[:cut])
                        pending = chunk[cut:]
                    else:
                        pending += chunk
                    if len(pending) > CHUNK:  # a very long line: fed in pieces
                        cut = _char_start(pending)
                        scanner.feed(pending[:cut])
                        pending = pending[cut:]
                scanner.feed(pending)
            except UnicodeDecodeError:
                continue  # no UTF-8: latin-1 decodes every byte
            if scanner.blank and self._text is None:
                raise LikwidFormatError(self.name, None, self.what, "an empty file")
            return scanner.result(encoding)
        raise AssertionError("latin-1 decodes every byte")  # pragma: no cover

    def pieces(self, scan: Scan) -> Pieces:
        """The text of a second read, as UTF-8 pieces of whole lines (see the module docstring)."""
        return Pieces(self._utf8_chunks(scan.encoding), CHUNK, MAX_LINE)

    def _utf8_chunks(self, encoding: str) -> Iterator[bytes]:
        if encoding not in _UTF8:  # latin-1, UTF-16, UTF-32: transcoded
            yield from (text.encode("utf-8", "surrogatepass") for text in
                        self.text_chunks(encoding))
        elif self._text is not None:
            yield from (text.encode("utf-8", "surrogatepass") for text in
                        self.text_chunks(encoding))
        else:  # UTF-8, checked by the scan: the bytes as they are
            yield from self.chunks()

    def text(self, scan: Scan) -> str:
        """The whole text of a second read, for a reader that takes it at once (byte-order
        marks dropped, as :func:`~roofline_widget.io.opener.decode` does)."""
        text = "".join(self.text_chunks(scan.encoding))
        return text.replace("\ufeff", "") if "\ufeff" in text else text


def read_one_text_version(path_or_buffer: PathOrBuffer, read: Callable[[TextFile], T]) -> T:
    """``read(TextFile(path_or_buffer))`` of one version of the file.

    A path is pinned when the read starts (:func:`~roofline_widget.io.scope.snapshot.file_identity`)
    and checked on every open, at the end of every pass and after ``read``; a read that saw a
    change is done again from scratch, once (:data:`~roofline_widget.io.scope.snapshot.TEXT_ATTEMPTS`
    reads in all, :func:`~roofline_widget.io.scope.snapshot.read_one_version`).  A file object is
    read once, whole: it needs no pin.

    Raises
    ------
    LikwidFormatError
        What ``read`` raises, or, for a file that changed during every read, the error naming
        the file and what changed the last time.
    """
    if is_file_like(path_or_buffer):
        return read(TextFile(path_or_buffer))
    result, _ = read_one_version(path_or_buffer,
                                 lambda identity: read(TextFile(path_or_buffer, identity=identity)),
                                 file_identity, attempts=TEXT_ATTEMPTS)
    return result
