"""Nsight Compute's own messages in an export: ``==PROF==``, ``==ERROR==``, ``==WARNING==`` lines.

``ncu`` prints them on the same stream as the CSV when ``--csv`` output is
captured from the terminal: a preamble (``==PROF== Connected to process``),
one progress line per profiled launch (``==PROF== Profiling "k" - 3: 0%....100%
- 10 passes``), and errors.  :func:`ncu_messages` keeps what a reader of the
results should know as notes (they end up in ``run.warnings``):

* ``==ERROR== Failed to profile "<kernel>" in process <pid>``: that kernel
  launch has no row; it is named as left out;
* every other ``==ERROR==`` and ``==WARNING==`` line, and ``==PROF==`` lines
  that are not routine (``Received signal``, ``Trying to shutdown target
  application``: a run cut short).

Routine ``==PROF==`` lines (connecting, the progress of each launch, the
report's name) are passed over.  A message glued to the end of another line
(a progress line cut by a signal) counts as a line of its own.  At most
:data:`MAX_NOTES` messages are listed, the failed kernels first, the rest counted.
"""

from __future__ import annotations

import re

__all__ = ["MAX_NOTES", "ncu_messages"]

#: The most messages listed one by one; the rest are counted in one note.
MAX_NOTES = 20
_TAG = re.compile(r"==(PROF|ERROR|WARNING|INFO)==")
_FAILED = re.compile(r'^==ERROR== Failed to profile "(?P<kernel>[^"]*)"(?: in process (?P<pid>\d+))?')
_ROUTINE = ("Connected to process", "Disconnected from process", "Profiling \"", "Report:",
            "Creating report", "Target process", "Profiling is", "Profiled kernels")
_SHOWN = 200


def _parts(line: str) -> list[str]:
    """The messages of one line: each ``==TAG==`` starts one."""
    starts = [match.start() for match in _TAG.finditer(line)]
    return [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)])]


def _note(message: str, source: str, number: int) -> str | None:
    """The note on one message (None: routine)."""
    failed = _FAILED.match(message)
    if failed:
        process = f" (process {failed['pid']})" if failed["pid"] else ""
        return (f"{source}, line {number}: kernel {failed['kernel']!r}{process} failed to "
                "profile: left out, the export has no counters of that launch")
    tag, _, text = message.partition("== ")
    if tag == "==PROF" and text.startswith(_ROUTINE):
        return None
    shown = message if len(message) <= _SHOWN else message[:_SHOWN - 3] + "..."
    return f"{source}, line {number}: ncu said {shown!r}"


def ncu_messages(lines: list[str], source: str) -> list[str]:
    """The notes on ncu's messages among ``lines`` (see the module docstring).

    Parameters
    ----------
    lines : list of str
        The export's lines.
    source : str
        The file, for the notes.

    Returns
    -------
    list of str
        One note per message kept (``"<file>, line 3: kernel 'k' (process 12) failed
        to profile: left out ..."``), at most :data:`MAX_NOTES` and a count of the rest.

    Examples
    --------
    >>> notes = ncu_messages(['==PROF== Connected to process 7',
    ...                       '==ERROR== Failed to profile "k" in process 7', '"ID","Process ID"'], "a.csv")
    >>> notes[0][:56]
    "a.csv, line 2: kernel 'k' (process 7) failed to profile:"
    """
    failed: list[str] = []
    others: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.startswith("=="):
            continue
        for message in _parts(line):
            note = _note(message, source, number)
            if note is not None:
                (failed if _FAILED.match(message) else others).append(note)
    notes = failed + others
    if len(notes) > MAX_NOTES:
        notes = [*notes[:MAX_NOTES], f"{source}: and {len(notes) - MAX_NOTES} more ncu "
                 "messages (==ERROR==, ==WARNING==, ==PROF==) not listed"]
    return notes
