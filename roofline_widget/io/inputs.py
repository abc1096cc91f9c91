"""What the user passed, sorted into runs: the one rule of what a list means, for every entry point.

**The rule.** A *run* is a :class:`~roofline_widget.model.LikwidRun`, scope-profiler
``ProfilingResults``, a path (LIKWID text or CSV output, an Nsight Compute export, a
scope-profiler HDF5 file: told apart by :mod:`~roofline_widget.io.formats`), an open file, or
**a list (or tuple) of paths and open files: the files of one run**, merged (a MEM_DP file and a
FLOPS_DP file of one job).  An argument that is *runs* is one run or a list of runs: **the items
of the outer list are the runs** (``[a.txt, b.h5]`` is two runs; ``[[mem.txt, flops.txt],
other.txt]`` is two runs, the first made of two files).

So a function that takes one run reads a list as that run's files, and a function that takes
runs reads a list as runs: :func:`~roofline_widget.read_likwid` takes one run
(``read_likwid(files)`` is the run that ``RegionSums.from_runs([files])`` shows), while
``RegionSums.from_runs``, ``points_dataframe``, ``collect_roofline_points``,
``RooflineWidget``, ``plot_roofline``, ... take runs (``RegionSums.from_runs(files)`` shows one
run per file).  :func:`run_inputs` applies the rule (``one_run=True`` for a function that
takes one run); nothing else reads an argument.

A pandas DataFrame is a table of roofline points (:mod:`roofline_widget.io.points_table`):
given alone, its runs, one per ``file`` label; in a list of runs, one run (the runs of one file
as one run of several).

A mapping is refused (``TypeError``): runs are labelled by their own label;
``compare_points`` takes ``{label: run}`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from roofline_widget.io.formats import RUN, Format, identify
from roofline_widget.io.opener import is_file_like

__all__ = ["RunInput", "run_inputs"]

_NOT_A_FILE = ("read_likwid takes a path (str or os.PathLike), a file object or a list of them; "
               "got {what} {value}")
_NOT_DATA = ("expected a LikwidRun, scope-profiler ProfilingResults, a path to LIKWID output or "
             "to a scope-profiler HDF5 file, an open file, or a list of them (a list inside the "
             "list: the files of one run); got {what}")


@dataclass(frozen=True)
class RunInput:
    """One run of the user's argument.

    Attributes
    ----------
    items : tuple
        The run's object, or its files (one or more).
    format : Format or None
        The format of the object or binary file (:func:`~roofline_widget.io.formats.identify`);
        None for text files, each told by its content when read.
    given : bool
        Whether the object is taken as it is (an aggregate the caller already has, ``keep``).
    """

    items: tuple
    format: Format | None = None
    given: bool = False

    @property
    def engine(self) -> str:
        """The sums engine of the run (``"given"`` for an aggregate taken as it is)."""
        if self.given:
            return "given"
        return "per-thread" if self.format is None else self.format.engine


def _is_file(item: object) -> bool:
    return isinstance(item, (str, os.PathLike)) or is_file_like(item)


def _is_list(item: object) -> bool:
    return (isinstance(item, Iterable) and not isinstance(item, (str, bytes, bytearray, Mapping))
            and not is_file_like(item))


def _files(items: Iterable) -> tuple:
    """The files of one run, checked."""
    files = tuple(items)
    if not files:
        raise ValueError("read_likwid needs at least one file")
    for item in files:
        if not _is_file(item):
            raise TypeError(_NOT_A_FILE.format(what=type(item).__name__, value=repr(item)[:80]))
    return files


def _one_run(item: object, keep: tuple[type, ...]) -> RunInput:
    if keep and isinstance(item, keep):
        return RunInput((item,), given=True)
    fmt = identify(item)
    return RunInput((item,), fmt) if fmt is not None else _files_of(item)


def _files_of(item: object) -> RunInput:
    """A run of text files: one file, or a list of them; a ``TypeError`` for anything else."""
    if _is_file(item):
        return RunInput((item,))
    if _is_list(item):
        return RunInput(_files(item))  # type: ignore[arg-type]
    raise TypeError(_NOT_DATA.format(what=type(item).__name__))


def run_inputs(data: object, keep: tuple[type, ...] = (), *, one_run: bool = False
               ) -> list[RunInput]:
    """The runs of what the user passed (see the module docstring for the rule).

    Parameters
    ----------
    data : run or list of runs
        A run is a LikwidRun, ProfilingResults, a path or open file, or a list of paths and
        open files (the files of one run).
    keep : tuple of type
        Objects of these types are runs given as they are, e.g. an aggregate the caller
        already has.
    one_run : bool
        The caller takes one run of files (``read_likwid``): a list is its files.

    Returns
    -------
    list of RunInput
        One per run, in order (one with ``one_run``).

    Raises
    ------
    TypeError
        For an argument or item of another type (a mapping, bytes, ...).
    ValueError
        For an empty list.
    """
    if one_run:
        if _is_file(data):
            return [RunInput((data,))]
        if not _is_list(data):
            raise TypeError(_NOT_A_FILE.format(what=type(data).__name__, value=repr(data)[:80]))
        return [RunInput(_files(data))]  # type: ignore[arg-type]
    if keep and isinstance(data, keep):
        return [RunInput((data,), given=True)]
    fmt = identify(data)
    if fmt is not None and fmt.split is not None:  # a DataFrame of points: its runs
        return [RunInput((run,), RUN) for run in fmt.split(data)]
    if fmt is not None:
        return [RunInput((data,), fmt)]
    if not _is_list(data):
        return [_files_of(data)]
    items = list(data)  # type: ignore[call-overload]
    if not items:
        raise ValueError("no runs given")
    return [_one_run(item, keep) for item in items]
