"""What the user passed, sorted into runs: the one dispatcher of every entry point.

Every public function that takes data goes through :func:`run_inputs` (or,
for :func:`~roofline_widget.io.read_likwid`, :func:`run_files`), so one rule
says what an argument means everywhere:

* **One run** is a :class:`~roofline_widget.model.LikwidRun`, scope-profiler
  ``ProfilingResults``, a path (LIKWID text or CSV output, or a
  scope-profiler HDF5 file, told apart by its first bytes), an open file, or
  **a list (or tuple) of paths and open files: the files of one run**, merged
  (a MEM_DP file and a FLOPS_DP file of one job).
* The functions that take runs (``RegionSums.from_runs``, ``points_dataframe``,
  ``collect_roofline_points``, ``RooflineWidget``, ``plot_roofline``, ...)
  take one run or a list of runs: **the items of the outer list are the
  runs**, one each (``[a.txt, b.h5]`` is two runs; ``[[mem.txt, flops.txt],
  other.txt]`` is two runs, the first made of two files).
* :func:`~roofline_widget.io.read_likwid` reads **one** run, so a list given
  to it is the files of that run: ``read_likwid(files)`` is the run that
  ``RegionSums.from_runs([files])`` shows, while ``RegionSums.from_runs(files)``
  shows one run per file.

A pandas DataFrame is a table of roofline points (:mod:`roofline_widget.io.points_table`):
its runs, one per ``file`` label (the runs of one file as one run of several).

A mapping is refused (``TypeError``): runs are labelled by their own label;
``compare_points`` takes ``{label: run}`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from roofline_widget.enums import StrEnum
from roofline_widget.io.opener import is_file_like, is_hdf5
from roofline_widget.io.points_table import is_points_frame, points_table_runs, read_points_table
from roofline_widget.model import LikwidRun

__all__ = ["InputKind", "RunInput", "is_scope_results", "run_files", "run_inputs"]

_NOT_A_FILE = ("read_likwid takes a path (str or os.PathLike), a file object or a list of them; "
               "got {what} {value}")
_NOT_DATA = ("expected a LikwidRun, scope-profiler ProfilingResults, a path to LIKWID output or "
             "to a scope-profiler HDF5 file, an open file, or a list of them (a list inside the "
             "list: the files of one run); got {what}")


class InputKind(StrEnum):
    """What one run of the user's argument is."""

    RUN = "run"
    SCOPE_RESULTS = "scope-results"
    SCOPE_H5 = "scope-h5"
    LIKWID_FILES = "likwid-files"
    GIVEN = "given"


@dataclass(frozen=True)
class RunInput:
    """One run of the user's argument.

    Attributes
    ----------
    kind : InputKind
    items : tuple
        The run's object (``RUN``, ``SCOPE_RESULTS``, ``GIVEN``), its HDF5
        path (``SCOPE_H5``), or its files, one or more (``LIKWID_FILES``).
    """

    kind: InputKind
    items: tuple


def is_scope_results(obj: object) -> bool:
    """Whether ``obj`` is scope-profiler ``ProfilingResults`` (checked without importing scope-profiler)."""
    return type(obj).__name__ == "ProfilingResults" and hasattr(obj, "get_likwid_regions")


def _is_file(item: object) -> bool:
    return isinstance(item, (str, os.PathLike)) or is_file_like(item)


def _is_list(item: object) -> bool:
    return (isinstance(item, Iterable) and not isinstance(item, (str, bytes, bytearray, Mapping))
            and not is_file_like(item))


def run_files(path_or_paths) -> list:
    """The files of one run: ``path_or_paths`` itself, or the items of its list.

    Raises
    ------
    TypeError
        For anything but a path, an open file or a list of them.
    ValueError
        For an empty list.
    """
    if _is_file(path_or_paths):
        return [path_or_paths]
    if not _is_list(path_or_paths):
        raise TypeError(_NOT_A_FILE.format(what=type(path_or_paths).__name__,
                                           value=repr(path_or_paths)[:80]))
    items = list(path_or_paths)
    if not items:
        raise ValueError("read_likwid needs at least one file")
    for item in items:
        if not _is_file(item):
            raise TypeError(_NOT_A_FILE.format(what=type(item).__name__, value=repr(item)[:80]))
    return items


def _one_run(item: object, keep: tuple[type, ...]) -> RunInput:
    if keep and isinstance(item, keep):
        return RunInput(InputKind.GIVEN, (item,))
    if isinstance(item, LikwidRun):
        return RunInput(InputKind.RUN, (item,))
    if is_points_frame(item):  # a DataFrame of points in a list of runs: one run
        return RunInput(InputKind.RUN, (read_points_table(item),))
    if is_scope_results(item):
        return RunInput(InputKind.SCOPE_RESULTS, (item,))
    if isinstance(item, (str, os.PathLike)) and is_hdf5(item):
        return RunInput(InputKind.SCOPE_H5, (item,))
    if _is_file(item):
        return RunInput(InputKind.LIKWID_FILES, (item,))
    if _is_list(item):
        return RunInput(InputKind.LIKWID_FILES, tuple(run_files(item)))
    raise TypeError(_NOT_DATA.format(what=type(item).__name__))


def run_inputs(data: object, keep: tuple[type, ...] = ()) -> list[RunInput]:
    """The runs of what the user passed (see the module docstring for the rule).

    Parameters
    ----------
    data : run or list of runs
        A run is a LikwidRun, ProfilingResults, a path or open file, or a
        list of paths and open files (the files of one run).
    keep : tuple of type
        Objects of these types are runs given as they are (``GIVEN``), e.g.
        an aggregate the caller already has.

    Returns
    -------
    list of RunInput
        One per run, in order.

    Raises
    ------
    TypeError
        For an argument or item of another type (a mapping, bytes, ...).
    ValueError
        For an empty list.
    """
    if is_points_frame(data):  # a DataFrame of points: its runs (io.points_table)
        return [RunInput(InputKind.RUN, (run,)) for run in points_table_runs(data)]
    if not _is_list(data) or isinstance(data, (LikwidRun, *keep)) or is_scope_results(data):
        return [_one_run(data, keep)]
    items = list(data)  # type: ignore[call-overload]
    if not items:
        raise ValueError("no runs given")
    return [_one_run(item, keep) for item in items]
