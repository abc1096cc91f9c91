"""Lines of a text read one piece at a time: what the text and CSV readers index.

:class:`Pieces` cuts UTF-8 chunks into pieces of whole lines (``\\n``, ``\\r\\n`` and ``\\r``
end a line, as in universal-newline mode; byte-order marks left by concatenated files are
dropped; a line longer than the cap is passed over with a note) and remembers whether the
text ended with a line break.  :class:`Piece` indexes the lines of one piece with numpy (the
byte offset where each starts and ends), so that a reader looks at the lines it needs, not at
every line.  :func:`read_in_pieces` hands a reader one piece after the other; the lines it
could not finish yet (a table cut by the end of the piece) come again at the start of the
next, and a reader that can finish nothing gets twice as much text the next time: the text
is read in time linear in its size, holding a few pieces at most.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

__all__ = ["ERRORS", "Piece", "Pieces", "read_in_pieces"]

#: How text that is no UTF-8 is carried through (a lone surrogate of a string given).
ERRORS = "surrogatepass"
_BOM = b"\xef\xbb\xbf"


class Pieces:
    """The text of a file as UTF-8 pieces of whole lines, each line ending in ``\\n``.

    Parameters
    ----------
    chunks : iterable of bytes
        The UTF-8 text, in chunks of any size.
    size : int
        The most bytes of new text per piece (a chunk is cut).
    max_line : int
        The longest line kept; a longer one becomes an empty line and a note.

    Attributes
    ----------
    cut_last_line : bool
        After the last piece: True if the text did not end with a line break (LIKWID ends
        every line: the output was cut off); that last line then has no ``\\n``.
    notes : list of str
        The lines passed over, one message each.

    Examples
    --------
    >>> pieces = Pieces([b"a\\r", b"\\nb\\rc", b"\\n\\xef\\xbb\\xbfd"])
    >>> b"".join(pieces), pieces.cut_last_line
    (b'a\\nb\\nc\\nd', True)
    """

    def __init__(self, chunks: Iterable[bytes], size: int = 2**22, max_line: int = 2**22):
        self._chunks = chunks
        self.size = max(size, 1)
        self.max_line = max_line
        self.cut_last_line = False
        self.notes: list[str] = []

    @classmethod
    def of_text(cls, text: str, size: int = 2**22) -> Pieces:
        """The pieces of a text held in a string."""
        return cls((text[k:k + size].encode("utf-8", ERRORS)
                    for k in range(0, len(text), size)), size)

    def _windows(self) -> Iterator[bytes]:
        """The chunks, cut to at most :attr:`size` bytes, ``\\r`` line ends and byte-order
        marks gone (a ``\\r`` or part of a mark at the end of one waits for the next)."""
        held = b""
        for chunk in self._chunks:
            for k in range(0, len(chunk), self.size):
                data = held + (chunk[k:k + self.size] if len(chunk) > self.size else chunk)
                held = b""
                for end in (b"\r", _BOM[:2], _BOM[:1]):
                    if data.endswith(end):
                        data, held = data[:-len(end)], end
                        break
                if b"\r" in data:
                    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                if b"\xef" in data and _BOM in data:  # a byte's search first: much faster
                    data = data.replace(_BOM, b"")
                yield data
        yield held.replace(b"\r", b"\n")  # a last '\r' ends a line

    def __iter__(self) -> Iterator[bytes]:
        tail, lines, skipped = b"", 0, -1  # skipped: bytes of a line passed over so far
        for data in self._windows():
            if skipped >= 0:
                end = data.find(b"\n")
                if end < 0:
                    skipped += len(data)
                    continue
                self._passed_over(lines + 1, skipped + end)
                skipped, data = -1, data[end:]  # the line end stays: an empty line
            data = tail + data
            first = data.find(b"\n")
            if first > self.max_line or (first < 0 and len(data) > self.max_line):
                if first < 0:
                    tail, skipped = b"", len(data)
                    continue
                self._passed_over(lines + 1, first)
                data = data[first:]
            cut = data.rfind(b"\n") + 1
            tail = data[cut:]
            if cut:
                lines += data.count(b"\n", 0, cut)
                yield data[:cut]
        if skipped >= 0:
            self._passed_over(lines + 1, skipped)
            yield b"\n"
        elif tail:
            self.cut_last_line = True
            yield tail

    def _passed_over(self, line: int, length: int) -> None:
        self.notes.append(f"line {line}: passed over a line of {length:,} bytes (no LIKWID "
                          f"output has lines longer than {self.max_line:,} bytes)")


class Piece:
    """Whole lines of a text as UTF-8 bytes, indexed by line.

    Parameters
    ----------
    data : bytes
        The lines, each ending in ``\\n`` (the last one may not, at the end of the text).
    first : int
        The 0-based number of its first line in the text.
    before : str
        The line before it (``""`` at the start of the text).
    last : bool
        Whether the text ends with it.

    Attributes
    ----------
    starts, ends : numpy.ndarray
        Per line the byte offset of its first character and of its end (its ``\\n``).
    count : int
        How many lines it has.
    """

    def __init__(self, data: bytes, first: int = 0, before: str = "", last: bool = True):
        self.data = data
        self.first = first
        self.before = before
        self.last = last
        self.array = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(self.array == 10)
        if data and data[-1] != 10:
            ends = np.append(ends, len(data))
        self.ends = ends
        self.starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else ends
        self.count = len(ends)
        self._texts: list[str] | None = None

    def line(self, k: int) -> str:
        """Line ``k`` (0-based in the piece; -1 is the line before it)."""
        if k < 0:
            return self.before
        texts = self.texts()
        if texts:
            return texts[k]
        return self.data[self.starts[k]:self.ends[k]].decode("utf-8", ERRORS)

    def sparse_line(self, k: int) -> str:
        """Line ``k`` (as :meth:`line`) without decoding the whole piece: for a reader that
        looks at a few lines of it (a region header, not every row of its tables)."""
        if k < 0:
            return self.before
        if self._texts:
            return self._texts[k]
        return self.data[self.starts[k]:self.ends[k]].decode("utf-8", ERRORS)

    def _decoded(self) -> list[str]:
        """Every line as text, decoded at once (a line's bytes never hold a ``\n``: the same
        texts as line by line); ``[]`` when some line cannot be decoded (then each line is
        decoded when asked for, so that only a line read raises)."""
        try:
            return self.data.decode("utf-8", ERRORS).split("\n")[:self.count] if self.count else []
        except UnicodeDecodeError:
            return []

    def get(self, k: int) -> str | None:
        """Line ``k``, or None past the last line."""
        return self.line(k) if k < self.count else None

    def texts(self) -> list[str]:
        """Every line of the piece as text (decoded once; ``[]`` when some line cannot be
        decoded: then read them with :meth:`line`)."""
        if self._texts is None:
            self._texts = self._decoded()
        return self._texts

    def first_bytes(self) -> np.ndarray:
        """Per line its first byte (``\\n``, 10, for an empty line)."""
        return self.array[self.starts]  # an empty line starts at its own line end

    def offset(self, k: int) -> int:
        """The byte offset where line ``k`` starts (the length of the data for ``count``)."""
        return int(self.starts[k]) if k < self.count else len(self.data)


def read_in_pieces(pieces: Iterable[bytes], read: Callable[[Piece], int]) -> int:
    """Hand ``read`` the text piece by piece; return how many lines the text has.

    ``read(piece)`` reads the lines of the :class:`Piece` it can finish and returns how many
    those are (all of them when ``piece.last``); the others start the next piece.
    """
    parts: list[bytes] = []
    size, need, first, before = 0, 0, 0, ""
    for data in pieces:
        parts.append(data)
        size += len(data)
        if size < need:
            continue
        buffer = b"".join(parts)
        piece = Piece(buffer, first, before, last=False)
        done = read(piece)
        if done:
            before = piece.sparse_line(done - 1)
            first += done
            rest = buffer[piece.offset(done):]
            parts, size, need = [rest] if rest else [], len(rest), 0
        else:  # nothing finished: wait for twice the text (linear time for a long table)
            parts, need = [buffer], 2 * size
    piece = Piece(b"".join(parts), first, before, last=True)
    read(piece)
    return first + piece.count
