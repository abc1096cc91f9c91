"""One list per distinct row-name list and thread header of a file, shared by its blocks.

A large file prints the same names (the group's events and metrics) and the
same thread columns for hundreds of regions; :class:`SharedLists` keeps one
list of each, so that the blocks of a file take the memory of their numbers,
not of their names, and every thread header is parsed once.
"""

from __future__ import annotations

from collections.abc import Sequence

from roofline_widget.io.cells import ThreadColumn, thread_columns

__all__ = ["SharedLists"]


class SharedLists:
    """The name lists and thread columns one parse has seen.

    Parameters
    ----------
    source : str
        The file's name, for the error of a thread header that cannot be read.

    Examples
    --------
    >>> lists = SharedLists("run.txt")
    >>> lists.names(["CPI", "IPC"]) is lists.names(["CPI", "IPC"])
    True
    >>> [t.cpu for t in lists.threads(("HWThread 0", "HWThread 3"), 7)]
    [0, 3]
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._names: dict[tuple, list[str]] = {}
        self._threads: dict[tuple, list[ThreadColumn]] = {}

    def names(self, names: list[str]) -> list[str]:
        """The one list equal to ``names`` (``names`` itself the first time)."""
        return self._names.setdefault(tuple(names), names)

    def threads(self, labels: Sequence[str], line: int | None) -> list[ThreadColumn]:
        """The thread columns of a header (a new list; the header parsed once per file).

        Parameters
        ----------
        labels : sequence of str
            The header's per-thread cells.
        line : int or None
            1-based line of the header, for the error message.

        Raises
        ------
        LikwidFormatError
            If a label is not a thread column (see
            :func:`~roofline_widget.io.cells.thread_columns`).
        """
        key = tuple(labels)
        columns = self._threads.get(key)
        if columns is None:
            columns = self._threads[key] = thread_columns(labels, self.source, line)
        return list(columns)
