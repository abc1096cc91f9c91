"""The one exception raised for input files that cannot be read."""

from __future__ import annotations

__all__ = ["LikwidFormatError", "LikwidReadWarning"]


class LikwidFormatError(ValueError):
    """A LIKWID output file that does not have the layout it should.

    Parameters
    ----------
    source : str
        The file (or a description of the in-memory source) being read.
    line : int or None
        1-based line number where the problem was found, or None when the
        problem concerns the whole file (an empty file, say).
    expected : str
        What the reader expected to find there.
    found : str, optional
        What it found instead (shortened in the message).

    Attributes
    ----------
    source, line, expected, found
        The parameters, for callers that want to report them their own way.

    Examples
    --------
    >>> err = LikwidFormatError("run.txt", 12, "a table row with 5 cells", "| a | b |")
    >>> str(err)
    "run.txt, line 12: expected a table row with 5 cells, found '| a | b |'"
    """

    def __init__(self, source, line: int | None, expected: str, found: str | None = None):
        self.source = str(source)
        self.line = line
        self.expected = expected
        self.found = found
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.source if self.line is None else f"{self.source}, line {self.line}"
        message = f"{where}: expected {self.expected}"
        if self.found is not None:
            found = self.found if len(self.found) <= 80 else self.found[:77] + "..."
            message += f", found {found!r}"
        return message

    def __reduce__(self):
        return (type(self), (self.source, self.line, self.expected, self.found))


class LikwidReadWarning(UserWarning):
    """A LIKWID file was read, but the reader passed over part of it.

    The message lists what was passed over and where (an unrecognised table,
    Region Info rows that do not match, ...); the same texts are kept in
    :attr:`roofline_widget.model.LikwidRun.warnings`.
    """
