"""From what the user passed to one sums engine per run: the engines by name.

:func:`~roofline_widget.io.inputs.run_inputs` sorts the argument into runs (the one rule of what
a list means); the format of each run (:mod:`roofline_widget.io.formats`) names the engine that
sums it fastest:

=================  =============================================  =========================
engine             runs                                           sources
=================  =============================================  =========================
``per-thread``     a LikwidRun, LIKWID files (one or a list)      a ``RunSource`` per run
``scope-results``  scope-profiler ProfilingResults                ``ScopeResultsSource``
``scope-h5``       a scope-profiler HDF5 path                     ``read_scope_sums(path)``
``given``          an aggregate taken as it is (``keep``)         its own sources
=================  =============================================  =========================

A file that holds several runs (a sweep appended to one log) gives one ``RunSource`` per run
(:meth:`~roofline_widget.model.LikwidRun.each_run`).  A format with another engine adds it here.
"""

from __future__ import annotations

from collections.abc import Callable

from roofline_widget.io import run_of
from roofline_widget.io.inputs import RunInput, run_inputs
from roofline_widget.points.engines.h5_read import read_scope_sums
from roofline_widget.points.engines.run import RunSource
from roofline_widget.points.engines.scope import ScopeResultsSource
from roofline_widget.points.engines.source import RegionSource

__all__ = ["ENGINES", "region_sources"]

#: The engine of a run (:attr:`RunInput.engine`) -> ``(run, engine option) -> its sources``.
ENGINES: dict[str, Callable[[RunInput, str], list[RegionSource]]] = {
    "given": lambda run_input, engine: list(run_input.items[0].sources),
    "scope-results": lambda run_input, engine: [ScopeResultsSource(run_input.items[0])],
    "scope-h5": lambda run_input, engine: [read_scope_sums(run_input.items[0], engine=engine)],
    "per-thread": lambda run_input, engine: [RunSource(run) for run in
                                             run_of(run_input, engine).each_run()],
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
            for source in ENGINES[run_input.engine](run_input, engine)]
