"""Lines of a text read one piece at a time: what the text and CSV parsers index.

:class:`TextLines` cuts decoded chunks into lines (``\\n``, ``\\r\\n`` and
``\\r`` end a line, as in universal-newline mode; byte-order marks left by
concatenated files are dropped) and remembers whether the text ended with
a line break.  :class:`LineWindow` gives the parsers the lines by their
0-based number, reading ahead as far as they look and forgetting the lines
before what they :meth:`~LineWindow.release`: a parser holds one table at a
time, never the whole file.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

__all__ = ["LineWindow", "TextLines", "lines_of"]

#: Lines read from the source at a time.
_BATCH = 256
#: Forgotten lines are dropped from the buffer once this many have piled up (a line of a
#: 1,024-thread table is 12 KB: the window stays a few MB).
_COMPACT = 512


class TextLines:
    """The lines of a text given in chunks, without their line breaks.

    Parameters
    ----------
    chunks : iterable of str
        The decoded text, in pieces of any size.

    Attributes
    ----------
    cut_last_line : bool
        After the last line was read: True if the text did not end with a
        line break (LIKWID ends every line: the output was cut off).

    Examples
    --------
    >>> lines = TextLines(["a\\r", "\\nb\\rc", "\\n", "d"])
    >>> list(lines), lines.cut_last_line
    (['a', 'b', 'c', 'd'], True)
    """

    def __init__(self, chunks: Iterable[str]):
        self._chunks = chunks
        self.cut_last_line = False

    def __iter__(self) -> Iterator[str]:
        pending = ""
        for chunk in self._chunks:
            if "\ufeff" in chunk:
                chunk = chunk.replace("\ufeff", "")  # a byte-order mark where files were joined
            text = pending + chunk
            tail = ""
            if "\r" in text:
                if text.endswith("\r"):  # maybe the first half of a "\r\n" cut by the chunking
                    text, tail = text[:-1], "\r"
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            pending = lines.pop() + tail
            yield from lines
        if pending.endswith("\r"):
            yield pending[:-1]
        elif pending:
            self.cut_last_line = True
            yield pending


def lines_of(text: str) -> TextLines:
    """The lines of a text held in one string (see :class:`TextLines`)."""
    return TextLines([text])


class LineWindow:
    """Random access by line number to the lines a parser still needs.

    Parameters
    ----------
    lines : iterable of str
        The lines, in order (a :class:`TextLines` or a list).

    Attributes
    ----------
    count : int
        How many lines were read so far: the number of lines once
        :meth:`has` returned False.
    """

    def __init__(self, lines: Iterable[str]):
        self._lines = lines
        self._source = iter(lines)
        self._buffer: list[str] = []
        self._first = 0  # the number of the line _buffer[0]
        self._ended = False

    @property
    def count(self) -> int:
        return self._first + len(self._buffer)

    @property
    def cut_last_line(self) -> bool:
        """Whether the text ended without a line break (known at its end)."""
        return bool(getattr(self._lines, "cut_last_line", False))

    def _fill(self, index: int) -> bool:
        while index >= self._first + len(self._buffer):
            if self._ended:
                return False
            before = len(self._buffer)
            self._buffer.extend(itertools.islice(self._source, _BATCH))
            if len(self._buffer) == before:
                self._ended = True
        return True

    def get(self, index: int) -> str | None:
        """Line ``index`` (0-based), or None past the last line."""
        position = index - self._first
        if position < 0:
            raise IndexError(f"line {index + 1} was released")
        try:
            return self._buffer[position]
        except IndexError:
            return self._buffer[position] if self._fill(index) else None

    def has(self, index: int) -> bool:
        """Whether the text has a line ``index``."""
        return self.get(index) is not None

    def __getitem__(self, index: int) -> str:
        line = self.get(index)
        if line is None:
            raise IndexError(f"the text has no line {index + 1}")
        return line

    def view(self, index: int) -> tuple[int, list[str]]:
        """``(first, buffer)`` with ``buffer[index - first]`` line ``index`` if the text has it.

        For a fast sequential scan: the list grows in place as lines are read
        ahead (:meth:`get`, :meth:`has`) and is valid until the next
        :meth:`release`.
        """
        self._fill(index)
        return self._first, self._buffer

    def slice(self, start: int, stop: int) -> list[str]:
        """Lines ``start`` to ``stop - 1`` (all read before)."""
        return self._buffer[start - self._first:stop - self._first]

    def release(self, index: int) -> None:
        """The lines before ``index`` are not needed any more."""
        drop = index - self._first
        if drop >= _COMPACT:
            del self._buffer[:drop]
            self._first = index
