"""From what the user passed to one sums engine per run: the engine table.

:func:`~roofline_widget.io.inputs.run_inputs` sorts the argument into runs
(the one rule of what a list means); each run then gets the engine that
reads it fastest:

============================  ==========================================================
run                           engine (a :class:`~roofline_widget.points.engines.source.RegionSource`)
============================  ==========================================================
LikwidRun                     :class:`~roofline_widget.points.engines.run.RunSource`
ProfilingResults              :class:`~roofline_widget.points.engines.scope.ScopeResultsSource`
scope-profiler HDF5 path      :func:`~roofline_widget.points.engines.h5_read.read_scope_sums`
LIKWID files (one or a list)  ``RunSource`` of each run of ``read_likwid(files)``
an aggregate (``keep``)       its own sources
============================  ==========================================================

A file that holds several runs (a sweep appended to one log) gives one
``RunSource`` per run (:meth:`~roofline_widget.model.LikwidRun.each_run`).
"""

from __future__ import annotations

from collections.abc import Callable

from roofline_widget.io import run_of
from roofline_widget.io.inputs import InputKind, RunInput, run_inputs
from roofline_widget.points.engines.h5_read import read_scope_sums
from roofline_widget.points.engines.run import RunSource
from roofline_widget.points.engines.scope import ScopeResultsSource
from roofline_widget.points.engines.source import RegionSource

__all__ = ["ENGINE_TABLE", "region_sources"]


def _given(run_input: RunInput, engine: str) -> list[RegionSource]:
    return list(run_input.items[0].sources)


def _scope_results(run_input: RunInput, engine: str) -> list[RegionSource]:
    return [ScopeResultsSource(run_input.items[0])]


def _scope_h5(run_input: RunInput, engine: str) -> list[RegionSource]:
    return [read_scope_sums(run_input.items[0], engine=engine)]


def _per_thread(run_input: RunInput, engine: str) -> list[RegionSource]:
    return [RunSource(run) for run in run_of(run_input, engine).each_run()]


#: The kind of a run -> ``(run, engine) -> its sources``.
ENGINE_TABLE: dict[InputKind, Callable[[RunInput, str], list[RegionSource]]] = {
    InputKind.GIVEN: _given,
    InputKind.SCOPE_RESULTS: _scope_results,
    InputKind.SCOPE_H5: _scope_h5,
    InputKind.RUN: _per_thread,
    InputKind.LIKWID_FILES: _per_thread,
}


def region_sources(data: object, *, engine: str = "auto",
                   keep: tuple[type, ...] = ()) -> list[RegionSource]:
    """One sums engine per run of ``data`` (see the module docstring).

    Parameters
    ----------
    data : run or list of runs
        As :func:`~roofline_widget.io.inputs.run_inputs` takes it.
    engine : {"auto", "h5py", "raw"}
        Who reads scope-profiler HDF5 files.
    keep : tuple of type
        Aggregates taken as they are: their ``sources`` are used.

    Raises
    ------
    TypeError, ValueError
        For an argument that is no run (or an empty list).
    """
    return [source for run_input in run_inputs(data, keep)
            for source in ENGINE_TABLE[run_input.kind](run_input, engine)]
