"""What the command line prints: results as text or JSON, warnings and errors on stderr.

A command returns an :class:`Outcome` (its JSON object, its text lines and
its exit code); :func:`emit` prints one or the other.  Region names come
from users' code and reach a terminal: every line printed goes through
:func:`~roofline_widget.escaping.terminal_text` (``printable``), so that a name
cannot move the cursor or recolour the screen.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import pandas as pd

from roofline_widget.cli.parser import EXIT_OK, PROGRAM
from roofline_widget.errors import LEFT_OUT_LIST
from roofline_widget.escaping import terminal_text

__all__ = ["CLI_LEFT_OUT_LIST", "Outcome", "WarningLog", "cli_text", "emit", "error_line",
           "one_line", "printable", "printable_lines", "records", "table_text"]

#: Where a command-line user finds the regions left out (the API's text names left_out_regions()).
CLI_LEFT_OUT_LIST = f"'{PROGRAM} points' lists them (with --json: \"left_out\")."


@dataclass
class Outcome:
    """What a command found.

    Attributes
    ----------
    data : dict
        The JSON object printed with ``--json`` (``warnings`` and ``exit_code`` are added).
    text : list of str
        The lines printed without ``--json``.
    exit_code : int
        0 (nothing found), 1 (findings) or 2 (input error).
    """

    data: dict
    text: list[str] = field(default_factory=list)
    exit_code: int = EXIT_OK


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-ready dicts: NaN and missing values are None.

    Examples
    --------
    >>> records(pd.DataFrame({"region": ["a"], "speedup": [float("nan")]}))
    [{'region': 'a', 'speedup': None}]
    """
    return json.loads(frame.to_json(orient="records", double_precision=15))


def _numpy_scalar(value: Any) -> Any:
    """``json.dump``'s ``default``: numpy scalars as Python numbers."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


#: Text for the terminal (:func:`roofline_widget.escaping.terminal_text`).
printable = terminal_text


def one_line(exc: BaseException) -> str:
    r"""An exception's message on one line: its lines joined by ``"; "`` (after a colon by a
    blank), list bullets dropped, an OS error as ``file: reason``.

    Examples
    --------
    >>> one_line(ValueError("cannot write:\n  - a.png: no such directory\n  - b.csv: read-only"))
    'cannot write: a.png: no such directory; b.csv: read-only'
    """
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return printable(f"{exc.filename}: {exc.strerror}")
    text = ""
    for line in str(exc).splitlines():
        line = line.strip().removeprefix("- ").strip()
        if line:
            text += (" " if not text or text.endswith(":") else "; ") + line
    return printable(text.strip()) or type(exc).__name__


def cli_text(message: str) -> str:
    """A message of the package as the command line says it: the list of the regions left out
    is where the command line has it (:data:`CLI_LEFT_OUT_LIST`), not ``left_out_regions()``.

    Examples
    --------
    >>> print(cli_text("2 x no bandwidth metric in the data. See left_out_regions() for the list."))
    2 x no bandwidth metric in the data. 'roofline-widget points' lists them (with --json: "left_out").
    """
    return message.replace(LEFT_OUT_LIST, CLI_LEFT_OUT_LIST)


def error_line(command: str | None, exc: BaseException, shown: list[str] | tuple = ()) -> str:
    """``"roofline-widget plot: error: <message>"`` (:func:`cli_text`); a warning ``shown``
    already (its message) is not said again: the error points to it."""
    where = f"{PROGRAM} {command}" if command else PROGRAM
    text = cli_text(one_line(exc))
    for message in shown:
        said = printable(message)
        if said and said in text:
            text = text.replace(said, "see the warning above")
    return f"{where}: error: {text}"


def table_text(frame: pd.DataFrame, columns: dict[str, str], *, digits: int = 4) -> list[str]:
    """``frame``'s ``columns`` (name -> heading) as aligned text lines, names made printable.

    Floats get ``digits`` significant digits, missing values a ``-``.
    """
    shown = pd.DataFrame({heading: frame[name] for name, heading in columns.items()})
    for heading in shown.columns:
        values = shown[heading]
        if pd.api.types.is_float_dtype(values):
            shown[heading] = [f"{v:.{digits}g}" if pd.notna(v) else "-" for v in values]
        else:
            shown[heading] = [printable(v) if pd.notna(v) else "-" for v in values]
    return shown.to_string(index=False).splitlines()


class WarningLog:
    """Every warning of a command: printed on stderr as it comes, kept for the JSON output.

    Install it as :func:`warnings.showwarning` inside :func:`warnings.catch_warnings`.
    A warning repeated with the same text (two calls reading one run) is shown once; its text
    is the command line's (:func:`cli_text`).
    """

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream
        self.items: list[dict] = []

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        item = {"category": category.__name__, "message": cli_text(str(message))}
        if item in self.items:
            return
        self.items.append(item)
        stream = self.stream or sys.stderr
        print(f"{PROGRAM}: warning: {category.__name__}: {printable_lines(item['message'])}",
              file=stream)


def printable_lines(text: str) -> str:
    """:func:`printable` per line, the line breaks kept."""
    return "\n".join(printable(line) for line in text.splitlines())


def emit(outcome: Outcome, *, as_json: bool, warnings: list[dict], stream: TextIO) -> None:
    """Print ``outcome`` as one JSON object (warnings and exit code added) or as its text."""
    if as_json:
        data = {**outcome.data, "warnings": warnings, "exit_code": outcome.exit_code}
        json.dump(data, stream, indent=2, allow_nan=False, default=_numpy_scalar)
        stream.write("\n")
        return
    for line in outcome.text:
        print(terminal_text(line), file=stream)
