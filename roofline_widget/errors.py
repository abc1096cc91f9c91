"""Every exception and warning of roofline-widget, in one place (like :mod:`pandas.errors`).

Errors derive from :class:`RooflineError`, warnings from
:class:`RooflineWarning`, so a caller can catch or filter all of the
package's own at once::

    import warnings
    from roofline_widget.errors import RooflineWarning
    warnings.simplefilter("error", RooflineWarning)

Each error also derives from the built-in class a caller would expect
(``ValueError`` for bad input, ``RuntimeError`` for a failed worker), so code
written against those keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "LEFT_OUT_LIST",
    "CeilingFileError",
    "CeilingWarning",
    "CommandLineError",
    "EngineFallbackWarning",
    "HDF5DamagedError",
    "HDF5NotSupportedError",
    "HtmlScriptsError",
    "LikwidFormatError",
    "LikwidReadWarning",
    "MachineError",
    "MetricChoiceWarning",
    "NcuUnitError",
    "OutputPathError",
    "ParallelReadError",
    "PointsTableError",
    "RegionsLeftOutWarning",
    "RooflineError",
    "RooflineWarning",
    "SelectionError",
    "SelectionWarning",
    "SettingError",
    "StatSumMismatchWarning",
    "ViewError",
    "ViewWarning",
]


# ---------------------------------------------------------------- errors
class RooflineError(Exception):
    """Base class of every error roofline-widget raises on purpose."""


class LikwidFormatError(RooflineError, ValueError):
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

    def __init__(self, source: object, line: int | None, expected: str,
                 found: str | None = None) -> None:
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


class CeilingFileError(LikwidFormatError):
    """A ceiling file that does not have the layout it should, or holds no ceiling.

    likwid-bench output without a usable benchmark, an Empirical Roofline
    Toolkit ``roofline.json`` or a rocprof-compute ``roofline.csv`` that is
    not laid out as they write it; the message names the file, the line
    (where there is one) and what was expected, as :class:`LikwidFormatError`'s.

    Parameters
    ----------
    source : str or path-like
        The file (or a description of the text) being read.
    line : int or None
        1-based line of the problem, or None when it concerns the whole file.
    expected : str
        What the reader expected to find there.
    found : str, optional
        What it found instead (shortened in the message).
    """


class MachineError(RooflineError, ValueError):
    """What the machine can do is not known well enough for what was asked.

    A CPU type that is not in the table of cores
    (:data:`~roofline_widget.cpu_cores.CORE_TABLE`), a run that names no CPU
    type or no clock, a set of likwid-bench results without the benchmark a
    roof needs: the message says what is missing and how to give it.
    """


class ParallelReadError(RooflineError, RuntimeError):
    """Reading one file on an executor failed with an error that did not name the file.

    Parameters
    ----------
    source : str
        The file.
    error : BaseException
        What the worker raised.

    Attributes
    ----------
    source : str
        The file.
    """

    def __init__(self, source: object, error: BaseException) -> None:
        self.source = str(source)
        super().__init__(f"{self.source}: reading failed on the executor: "
                         f"{type(error).__name__}: {error}")

    def __reduce__(self):
        return (_rebuild_parallel_error, (self.source, str(self)))


def _rebuild_parallel_error(source: str, message: str) -> ParallelReadError:
    error = ParallelReadError.__new__(ParallelReadError)
    RuntimeError.__init__(error, message)
    error.source = source
    return error


class PointsTableError(LikwidFormatError):
    """A table of roofline points (a DataFrame, a CSV or Parquet file) that cannot be read.

    A missing column (the message names it and what else would do), a cell
    that is no number or out of range, an empty region name, a point given
    twice.  A :class:`LikwidFormatError`, so callers that catch bad input
    files catch it too.

    Parameters
    ----------
    source : str
        The file, or ``"<DataFrame>"``.
    line : int or None
        The CSV line (a DataFrame's row position + 2; 1 for its header), or
        None when the problem concerns the whole table.
    expected : str
        What the reader expected: the columns a points table needs, a number...
    found : str, optional
        What it found instead.
    """


class OutputPathError(RooflineError, ValueError):
    """One or more output paths of a call cannot be written; nothing was written.

    Parameters
    ----------
    problems : sequence of (path, kind, reason)
        Every bad path, what it was to hold (``"image"``, ``"data"``) and why it
        cannot be written (one entry per reason).

    Attributes
    ----------
    problems : list of (str, str, str)
    """

    def __init__(self, problems: Sequence[tuple[object, object, object]]) -> None:
        self.problems = [(str(path), str(kind), str(reason)) for path, kind, reason in problems]
        lines = "".join(f"\n  - {path!r} ({kind}): {reason}"
                        for path, kind, reason in self.problems)
        files = len({(path, kind) for path, kind, _ in self.problems})
        super().__init__(f"cannot write {files} output file(s); nothing was written:{lines}")


class HtmlScriptsError(RooflineError, FileNotFoundError):
    """A script the HTML export inlines is not installed; the message says how to get it.

    The HTML widget manager and RequireJS are downloaded when the package is
    built (``hatch_build.py``); bqplot's, bqscales' and bqplot-gl's bundles come
    with those Python packages.
    """


class SettingError(RooflineError, ValueError):
    """A user setting's value breaks a rule of :mod:`roofline_widget.settings`.

    The message is the rule's one sentence, naming the setting and the value
    (``"peak_flops is in GFLOP/s; 5e9 looks like FLOP/s"``); the widget, a
    view, ``plot_roofline`` and the command line all show it as it is.
    """


class SelectionError(SettingError):
    """A selection argument that cannot be used.

    Ranks that are no non-negative integers, an invalid regular expression,
    a pattern too large to compile in bounded time or that takes too long on
    the region names (it backtracks catastrophically), a ``combine_ranks`` or
    ``unmeasured`` value that is none of the choices.  The message names the
    argument and the value.
    """


class ViewError(RooflineError, ValueError):
    """A saved view that cannot be used.

    Parameters
    ----------
    source : str
        The file (or ``"<string>"``, ``"View"``) the view came from.
    problems : list of str
        Every problem found, one sentence each.

    Attributes
    ----------
    source : str
    problems : list of str
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = list(problems)
        super().__init__(f"{source}: " + "; ".join(self.problems))


class CommandLineError(RooflineError, ValueError):
    """A command line ``roofline-widget`` cannot run (a missing file argument, an unknown
    option, a value a setting refuses); printed as one line, exit code 2.

    Parameters
    ----------
    program : str
        The command (``"roofline-widget plot"``).
    message : str
        What is wrong, as argparse words it.

    Attributes
    ----------
    program : str
    """

    def __init__(self, program: str, message: str) -> None:
        self.program = program
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (self.program, str(self)))


class HDF5DamagedError(RooflineError):
    """The bytes of an HDF5 file contradict the format: the file is refused, not handed to h5py.

    Raised and caught inside the package's own HDF5 reader, which reports the
    file as a :class:`LikwidFormatError`.
    """


class HDF5NotSupportedError(RooflineError):
    """A valid HDF5 feature outside the subset the package's own reader reads: h5py may read it."""


class NcuUnitError(RooflineError, ValueError):
    """An Nsight Compute unit that is not of the dimension wanted (the reader makes it a format error)."""


# ---------------------------------------------------------------- warnings
class RooflineWarning(UserWarning):
    """Base class of every warning roofline-widget emits."""


class LikwidReadWarning(RooflineWarning):
    """A LIKWID file was read, but the reader passed over part of it.

    The message lists what was passed over and where (an unrecognised table,
    Region Info rows that do not match, ...); the same texts are kept in
    :attr:`roofline_widget.model.LikwidRun.warnings`.
    """


class StatSumMismatchWarning(RooflineWarning):
    """The threads read do not add up to the ``Sum`` LIKWID printed in its STAT table."""


class RegionsLeftOutWarning(RooflineWarning):
    """Some selected regions could not be placed on the roofline."""


#: The last sentence of a :class:`RegionsLeftOutWarning` (and of the error when nothing is
#: placed): where the Python user finds the list.  The command line names its own instead.
LEFT_OUT_LIST = "See left_out_regions() for the list."


class MetricChoiceWarning(RooflineWarning):
    """An automatically detected metric may not be the one meant."""


class SelectionWarning(RooflineWarning):
    """A selection argument names what is not in the data (ranks), or selects nothing (``include=[]``)."""


class EngineFallbackWarning(RooflineWarning):
    """Part of an HDF5 file is in a layout the package's own reader does not read: h5py read it."""


class ViewWarning(RooflineWarning):
    """A view applied only in part: what the data lacks was left out (listed in the message)."""


class CeilingWarning(RooflineWarning):
    """A ceiling may not be what its label says.

    A likwid-bench kernel whose working set does not fit the cache level its
    likwid-perfctr group names (an "L3" roof that measured memory), or
    ceilings measured on another machine than the run (the CPU names differ).
    ``sanity_check(..., ceilings=)`` reports the same as findings.
    """
