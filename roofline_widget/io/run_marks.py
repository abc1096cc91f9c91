"""The lines where a new measurement may start, as the text and CSV readers meet them.

Both readers pass every line that is not part of a LIKWID table to one
:class:`RunMarks`: a likwid-perfctr CPU header, a separator line or a
likwid-perfctr/likwid-mpirun command line becomes a
:class:`~roofline_widget.io.runs.RunMark`, and up to
:data:`~roofline_widget.io.runs.CONTEXT_LINES` lines of the program's output
after it are kept with it, to tell the runs apart
(:func:`~roofline_widget.io.runs.plan_runs` reads them).
"""

from __future__ import annotations

from roofline_widget.io.runs import CONTEXT_LINES, RunMark, command_of, is_context, separator_text

__all__ = ["CPU_FIELDS", "RunMarks"]

#: The lines of likwid-perfctr's CPU header the readers keep (``CPU name:``), and the
#: :class:`~roofline_widget.io.parsed.ParsedLikwid` field each one fills.
CPU_FIELDS = {"CPU name": "cpu_name", "CPU type": "cpu_type", "CPU clock": "cpu_clock"}


class RunMarks:
    """The run marks of one file, in the order its lines are read.

    Attributes
    ----------
    context_left : int
        How many more lines of other output are kept with the last mark
        (0: none; a reader checks it before it calls :meth:`context`, so that
        a file without marks costs nothing).

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
        if line[:1] in "#=*~-":
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

    def run_marks(self) -> list[RunMark]:
        """The marks read so far."""
        return [RunMark(line, kind, text, tuple(context))
                for line, kind, text, context in self._marks]
