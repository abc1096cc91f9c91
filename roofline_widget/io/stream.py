"""A LIKWID text or CSV file read in pieces, in two passes: never the whole text in memory.

:class:`TextFile` opens a path (or takes a file object, whose bytes are read
once, up to the cap) and gives its uncompressed bytes in chunks of
:data:`CHUNK`, counting them against :data:`~roofline_widget.io.opener.MAX_BYTES`.
:meth:`TextFile.scan` reads it once, chunk by chunk, to find what a parser
must know before the first line:

* the encoding: UTF-16/32 after a byte-order mark, else UTF-8, or latin-1
  for a file that is no UTF-8 (decided on the whole file, as
  :func:`~roofline_widget.io.opener.decode` does);
* the evidence the layout is told by (:class:`Scan`): the first 2 MB of
  text and the first line of a CSV and of a text LIKWID table anywhere;
* the likwid-topology block, if any (a few hundred lines of a job log);
* that the file is not empty, HDF5 or binary.

:meth:`TextFile.lines` then gives the lines of a second read to the parser
(:class:`~roofline_widget.io.lines.TextLines`), which holds one table at a
time.  Peak memory stays under 3 bytes per byte of the file, the model the
read builds included (``benchmarks/bench_memory.py``).
"""

from __future__ import annotations

import codecs
import io
import lzma
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import roofline_widget.io.opener as opener
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.lines import TextLines
from roofline_widget.io.opener import (
    BINARY_PROBE,
    COMPRESSED,
    PathOrBuffer,
    check_text_start,
    is_file_like,
    open_regular,
    read_bytes,
    read_failed,
    regular_file,
    source_name,
    too_large,
    utf16_or_32,
)
from roofline_widget.io.topology import TOPOLOGY_HEADER

__all__ = ["CHUNK", "CSV_TABLE_LINE", "HEAD_CHARACTERS", "MARKERS", "TEXT_TABLE_LINE", "Scan",
           "TextFile"]

#: Bytes read at a time.
CHUNK = 2**20
#: How much of the start of a file the layout detection looks at line by line.
HEAD_CHARACTERS = 2_000_000
#: A line that starts a likwid-perfctr or likwid-mpirun CSV block.
CSV_TABLE_LINE = re.compile(r"^(?:TABLE,Region|TABLE,Group|STRUCT,Info)", re.M)
#: The header row of a likwid-perfctr or likwid-mpirun text table.
TEXT_TABLE_LINE = re.compile(r"^\|\s*(?:Region Info|Event|Metric|Region|Group \d+ Raw)\s*\|", re.M)
#: The lines the layout is told by wherever they are: name -> (pattern, texts one of which a
#: piece of text must hold for the pattern to be searched in it, a quick test).
MARKERS: dict[str, tuple[re.Pattern, tuple[str, ...]]] = {
    "csv": (CSV_TABLE_LINE, ("TABLE,", "STRUCT,")),
    "text": (TEXT_TABLE_LINE, ("|",)),
}
#: Where the cache part of a likwid-topology block ends.
_TOPOLOGY_END = ("NUMA Topology", "Graphical Topology")
#: The most text kept of a likwid-topology block (a 1,024-thread machine prints ~100 KB).
_TOPOLOGY_CHARACTERS = 2**20
#: Lines before the block kept for its ``CPU name:`` line.
_TOPOLOGY_BEFORE = 8


@dataclass
class Scan:
    """What the first read of a file found (see the module docstring).

    Attributes
    ----------
    encoding : str
        The codec the file decodes with.
    evidence : str
        The first :data:`HEAD_CHARACTERS` of the text, then the first line
        of each of the :data:`MARKERS` (a CSV table line, a text table
        line, ...) found anywhere: what
        :func:`~roofline_widget.io.detect_format` decides the layout on.
    topology : str or None
        The likwid-topology block, preceded by as many line breaks as lines
        before it (so that line numbers hold), or None.
    """

    encoding: str
    evidence: str
    topology: str | None = None


class _Scanner:
    """State of one scan: fed pieces of whole lines."""

    def __init__(self, markers: dict[str, tuple[re.Pattern, tuple[str, ...]]]):
        self.patterns = markers
        self.head: list[str] = []
        self.head_size = 0
        self.markers: dict[str, str] = {}
        self.blank = True
        self.lines_before = 0          # lines in the pieces seen
        self.tail = ""                 # the last lines of the piece before (for CPU name)
        self.topology: list[str] | None = None
        self.topology_first = 0        # 0-based line where the kept topology text starts
        self.topology_done = False

    def feed(self, piece: str) -> None:
        if self.blank and piece and not piece.isspace():
            self.blank = False
        if self.head_size < HEAD_CHARACTERS:
            self.head.append(piece[:HEAD_CHARACTERS - self.head_size])
            self.head_size += len(self.head[-1])
        for name, (pattern, needles) in self.patterns.items():
            if name not in self.markers and any(n in piece for n in needles):
                match = pattern.search(piece)
                if match:
                    end = piece.find("\n", match.start())
                    self.markers[name] = piece[match.start():end if end >= 0 else None]
        self._topology(piece)
        self.lines_before += piece.count("\n")

    def _topology(self, piece: str) -> None:
        if self.topology_done:
            return
        if self.topology is None:
            at = piece.find(TOPOLOGY_HEADER)
            if at < 0:
                self.tail = "\n".join((self.tail + piece).rsplit("\n", _TOPOLOGY_BEFORE + 1)[1:])
                return
            start = piece.rfind("\n", 0, at) + 1
            before = (self.tail + piece[:start]).split("\n")[:-1][-_TOPOLOGY_BEFORE:]
            self.topology_first = self.lines_before + piece.count("\n", 0, start) - len(before)
            self.topology = [*(line + "\n" for line in before), piece[start:]]
        else:
            self.topology.append(piece)
        kept = "".join(self.topology)
        if any(end in kept for end in _TOPOLOGY_END) or len(kept) > _TOPOLOGY_CHARACTERS:
            self.topology_done = True

    def result(self, encoding: str) -> Scan:
        evidence = "".join(self.head) + "\n" + "\n".join(self.markers.values())
        topology = None
        if self.topology is not None:
            topology = "\n" * self.topology_first + "".join(self.topology)[:_TOPOLOGY_CHARACTERS]
        return Scan(encoding, evidence, topology)


class TextFile:
    """A text file (path or file object, plain or gzip/bz2/xz) read in chunks, as often as needed.

    Parameters
    ----------
    path_or_buffer : str, path-like or file object
        The file (with ``text``: only the name it is reported under).
    what : str
        What the file should hold, for the error messages.
    text : str, optional
        A text held in a string, read in pieces like a file (not checked for
        being empty or binary: the layout detection says what it lacks).

    Attributes
    ----------
    name : str
        The name the file is reported under.

    Raises
    ------
    LikwidFormatError
        For a directory, a FIFO or device, or a file past the cap.
    FileNotFoundError
        If the file does not exist.
    """

    def __init__(self, path_or_buffer: PathOrBuffer, what: str = "LIKWID output", *,
                 text: str | None = None):
        self.name = source_name(path_or_buffer)
        self.what = what
        self.limit = opener.MAX_BYTES  # looked up at the call (tests lower it)
        self._text = text
        self._open: Callable[[], IO[bytes]]
        if text is not None:
            pass
        elif is_file_like(path_or_buffer):
            data = read_bytes(path_or_buffer, self.limit)  # a stream is read once
            self._open = lambda: io.BytesIO(data)
        else:
            path = Path(path_or_buffer)  # type: ignore[arg-type]  # not file-like: a path
            regular_file(path)
            if path.stat().st_size > self.limit:
                raise too_large(self.name, self.limit)
            self._open = lambda: open_regular(path)

    def chunks(self) -> Iterator[bytes]:
        """The file's uncompressed bytes, :data:`CHUNK` at a time, up to the cap."""
        with self._open() as handle:
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
            try:
                while chunk := stream.read(CHUNK):
                    total += len(chunk)
                    if total > self.limit:
                        raise too_large(self.name, self.limit)
                    yield chunk
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
            For an empty, HDF5 or binary file, a damaged compressed file,
            UTF-16/32 text that does not decode, or a file past the cap.
        """
        codec: str | None = "str"
        if self._text is None:
            start = next(self.chunks(), b"")[:BINARY_PROBE]
            check_text_start(start, self.name, self.what)
            codec = utf16_or_32(start)
        for encoding in ([codec] if codec else ["utf-8-sig", "latin-1"]):
            scanner = _Scanner(MARKERS if markers is None else markers)
            pending = ""
            try:
                for text in self.text_chunks(encoding):
                    cut = text.rfind("\n") + 1
                    if cut:
                        scanner.feed(pending + text[:cut])
                        pending = text[cut:]
                    else:
                        pending += text
                    if len(pending) > CHUNK:  # a very long line: fed in pieces
                        scanner.feed(pending)
                        pending = ""
            except UnicodeDecodeError:
                continue  # no UTF-8: latin-1 decodes every byte
            scanner.feed(pending)
            if scanner.blank and self._text is None:
                raise LikwidFormatError(self.name, None, self.what, "an empty file")
            return scanner.result(encoding)
        raise AssertionError("latin-1 decodes every byte")  # pragma: no cover

    def lines(self, scan: Scan) -> TextLines:
        """The lines of a second read, for a parser (see :class:`TextLines`)."""
        return TextLines(self.text_chunks(scan.encoding))

    def text(self, scan: Scan) -> str:
        """The whole text of a second read, for a reader that takes it at once (byte-order
        marks dropped, as :func:`~roofline_widget.io.opener.decode` does)."""
        text = "".join(self.text_chunks(scan.encoding))
        return text.replace("\ufeff", "") if "\ufeff" in text else text
