"""The lines where a new measurement may start, as the text and CSV readers meet them.

Both readers pass every line outside a LIKWID table that may be a mark to one
:class:`RunMarks`: a likwid-perfctr CPU header, a separator line or a
likwid-perfctr/likwid-mpirun command line becomes a :class:`RunMark`, and up to
:data:`CONTEXT_LINES` lines of the program's output after it are kept with it, to tell the
runs of a file apart (:func:`~roofline_widget.io.runs.plan_runs` reads them).  Every line is
read with string methods, in time linear in the line.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["CONTEXT_LINES", "CPU_FIELDS", "RunMark", "RunMarks", "command_of", "is_context",
           "separator_text"]

#: How many lines of other output after a mark are kept to tell runs apart.
CONTEXT_LINES = 8
#: The lines of likwid-perfctr's CPU header the readers keep (``CPU name:``), and the
#: :class:`~roofline_widget.io.parsed.ParsedLikwid` field each one fills.
CPU_FIELDS = {"CPU name": "cpu_name", "CPU type": "cpu_type", "CPU clock": "cpu_clock"}
#: The characters a separator line is drawn with.
_SEPARATOR_CHARACTERS = "#=*~-"
#: The blanks after ``likwid-perfctr`` or ``likwid-mpirun`` and the dash of its first option.
_OPTION = re.compile(r"\s+-")
#: Lines of LIKWID's own header that are the same in every run (or differ in rounding only).
_HEADER_PREFIXES = ("CPU name:", "CPU type:", "CPU clock:", "CPU stepping:", "INFO:", "WARN",
                    "Writing Likwid Marker API", "Using Likwid Marker API")



class RunMark(NamedTuple):
    """A line where a new measurement may start (a named tuple: a file may print one per
    region, 50,000 of them).

    Attributes
    ----------
    line : int
        1-based line of the mark.
    kind : {"header", "separator", "command"}
        A likwid-perfctr CPU header, a separator line, a command line.
    text : str
        The CPU name, the separator's text (``""`` for a plain line) or the command.
    context : tuple of str
        Up to :data:`CONTEXT_LINES` lines of other output that followed the
        mark before the next table (the program's own output).
    """

    line: int
    kind: str
    text: str
    context: tuple[str, ...] = ()


def separator_text(line: str) -> str | None:
    """The text of a separator line (``""`` for one without text), or None for any other line.

    A separator line is at least three of one of ``#=*~-``, a text that does not start with one
    of them, and at least three of the same character again, with blanks around the text and at
    the end (``#### 2097152 ####``); a line of at least six ``#`` and nothing else is one
    without text. Read with string methods, in time linear in the line (a pattern with two
    runs of blanks was quadratic).

    Examples
    --------
    >>> separator_text("#################### 2097152  ####################")
    '2097152'
    >>> separator_text("=" * 80) is None, separator_text("#" * 80)
    (True, '')
    """
    mark = line[:1]
    if not mark or mark not in _SEPARATOR_CHARACTERS:
        return None
    body = line.rstrip(" \t")
    lead = len(body) - len(body.lstrip(mark))
    if lead == len(body):  # '----', '====', '****' are LIKWID's own lines
        return "" if mark == "#" and lead >= 6 else None
    trail = len(body) - len(body.rstrip(mark))
    if lead < 3 or trail < 3:
        return None
    text = body[lead:len(body) - trail].strip(" \t")
    if not text:
        return "" if mark == "#" else None
    return None if text[0] in _SEPARATOR_CHARACTERS else text


def command_of(line: str) -> str | None:
    """The likwid-perfctr or likwid-mpirun command a line runs, or None.

    The command starts at ``likwid-perfctr`` or ``likwid-mpirun`` (at the start of the line or
    after a blank, ``;``, ``&``, ``|`` or ``(``), followed by blanks and an option, and runs to
    the end of the line.

    Examples
    --------
    >>> command_of("+ srun likwid-perfctr -C 0-7 -g MEM_DP -m ./lulesh -s 30")
    'likwid-perfctr -C 0-7 -g MEM_DP -m ./lulesh -s 30'
    """
    start = line.find("likwid-")
    while start >= 0:
        if start == 0 or line[start - 1].isspace() or line[start - 1] in ";&|(":
            for tool in ("perfctr", "mpirun"):
                if line.startswith(tool, start + 7) \
                        and _OPTION.match(line, start + 7 + len(tool)) is not None:
                    return line[start:].rstrip()
        start = line.find("likwid-", start + 1)
    return None


def is_context(line: str) -> bool:
    """Whether a line of other output may tell runs apart (not blank, not LIKWID's header)."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(_HEADER_PREFIXES) \
        and bool(stripped.strip("-=*#+~ \t"))


class RunMarks:
    """The run marks of one file, in the order its lines are read.

    Attributes
    ----------
    context_left : int
        How many more lines of other output are kept with the last mark (0: none; a reader
        checks it before it calls :meth:`context`, so that a file without marks costs nothing).

    Examples
    --------
    >>> marks = RunMarks()
    >>> marks.other_line(0, "#### 2097152 ####")
    >>> marks.context("Running problem size 30^3")
    >>> marks.run_marks()
    [RunMark(line=1, kind='separator', text='2097152', context=('Running problem size 30^3',))]
    """

    def __init__(self) -> None:
        self._marks: list[tuple[int, str, str, list[str]]] = []  # (line, kind, text, context)
        self.context_left = 0

    def mark(self, index: int, kind: str, text: str) -> None:
        """Line ``index`` (0-based) may start a new measurement: ``kind`` is ``"header"``,
        ``"separator"`` or ``"command"``, ``text`` what tells it apart."""
        self._marks.append((index + 1, kind, text, []))
        self.context_left = CONTEXT_LINES

    def context(self, line: str) -> None:
        """A line of other output after the last mark: kept if it may tell runs apart."""
        if is_context(line):
            self._marks[-1][3].append(line.strip())
            self.context_left -= 1

    def other_line(self, index: int, line: str) -> None:
        """Mark line ``index`` if it is a separator or a likwid-perfctr/mpirun command line."""
        if line[:1] in _SEPARATOR_CHARACTERS:
            text = separator_text(line)
            if text is not None:
                self.mark(index, "separator", text)
        command = command_of(line)
        if command is not None:
            self.mark(index, "command", command)

    def cpu_header(self, index: int, field: str, value: str) -> None:
        """A CPU header line (``field`` a value of :data:`CPU_FIELDS`): its ``CPU name``
        starts a new likwid-perfctr run."""
        if field == "cpu_name":
            self.mark(index, "header", value)

    def end_context(self, header: str | None = None) -> None:
        """The program's output ends here (a LIKWID block starts); ``header``, the block's
        first line, is not output of the program if it was kept."""
        if self.context_left:
            self.context_left = 0
            context = self._marks[-1][3]
            if header is not None and context and context[-1] == header.strip():
                context.pop()

    def block_starts(self, header: str) -> None:
        """A LIKWID block starts at the line ``header``, given to neither :meth:`context` nor
        :meth:`end_context` before: both at once (kept, then dropped again as the block's
        header, unless it is the last line kept)."""
        if self.context_left == 1 and is_context(header):
            self._marks[-1][3].append(header.strip())
        self.context_left = 0

    def run_marks(self) -> list[RunMark]:
        """The marks read so far."""
        return [RunMark(line, kind, text, tuple(context))
                for line, kind, text, context in self._marks]
