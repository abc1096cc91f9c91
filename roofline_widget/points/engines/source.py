"""The interface of a sums engine: what :class:`~roofline_widget.points.RegionSums` aggregates.

A *region source* holds the per-(rank, region, device) sums over threads of
one run, one row per such key.  :class:`RegionSums` concatenates the rows of
its sources and asks each for a metric's sums only when a selection first
needs that metric.  Three engines implement it, all summing over threads
with the one reduction of :mod:`~roofline_widget.points.engines.threads`:

* :class:`~roofline_widget.points.engines.run.RunSource`: a :class:`LikwidRun`
  (any LIKWID file), aggregated once, cached per run;
* :class:`~roofline_widget.points.engines.scope.ScopeResultsSource`:
  scope-profiler ``ProfilingResults``, summed straight from the region
  arrays without building the per-thread table;
* :class:`~roofline_widget.points.engines.h5.ScopeH5Source`: a scope-profiler
  HDF5 file, summed rank by rank while it is read.

:mod:`~roofline_widget.points.engines.dispatch` picks the engine of each run.

Any other object with these members can be a source too (structural typing:
no base class to inherit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import numpy as np

from roofline_widget.model import LikwidRun

__all__ = ["RegionSource"]


@runtime_checkable
class RegionSource(Protocol):
    """Per-(rank, region, device) sums over threads of one run, one row per key.

    Attributes
    ----------
    label : str
        The run label (the ``file`` column of the points).
    metric_names : list of str
        Every metric the source has sums of, in order of first appearance.
    keys : mapping of str to numpy.ndarray or pandas.Categorical
        The :data:`SOURCE_KEYS` columns, each one value per row: ``rank``
        (int64), ``region``, ``device`` and ``groups`` (``"MEM_DP+FLOPS_DP"``)
        as :class:`pandas.Categorical`, ``n_threads`` (int64), ``runtime_s``
        and ``call_count`` (float, the maxima over threads).  A source may
        build a column on first access (``keys[name]``); :class:`RegionSums`
        reads only the columns a selection needs.

    Notes
    -----
    A source may also have ``run_number``: its run's 1-based number in a file
    of several runs (``run`` column of the points; 1 when absent).

    A source may also offer ``unmeasured(metric) ->``
    :class:`~roofline_widget.points.unmeasured.Unmeasured`: per row the
    threads whose value is not finite (``-``, NaN, inf).  It is optional (not
    part of the Protocol); a source without it is taken as fully measured.

    A source may also offer ``thread_maxima(metric) ->`` numpy array (per
    row the largest value of the metric among the threads summed, native
    unit) and ``thread_limit`` (the FLOP-rate bound of one of its hardware
    threads or GPUs, GFLOP/s: one value, or one per row): the per-thread plausibility check of
    :mod:`roofline_widget.roofs.hardware_bounds`.  A source without them
    is checked per point only.

    A source may also offer ``rank_places() ->``
    :class:`~roofline_widget.points.engines.run.RankPlaces`: per row the
    host and socket of its rank (likwid-mpirun output), used to group the
    ranks of a socket (:mod:`roofline_widget.points.rank_groups`); a source
    without it knows neither.

    ``isinstance(obj, RegionSource)`` checks that the members exist; on
    Python < 3.12 that reads :attr:`run`, which may build a whole run: check
    in tests, not on a hot path.
    """

    label: str
    metric_names: list[str]

    @property
    def keys(self) -> Mapping[str, object]:
        """The :data:`SOURCE_KEYS` columns (see the class docstring)."""
        ...

    def __len__(self) -> int:
        """The number of rows (per-(rank, region, device) keys)."""
        ...

    def sums(self, metric: str) -> np.ndarray:
        """Per row the sum over threads of ``metric`` (a name of :attr:`metric_names`).

        Float64, the metric's native unit (as LIKWID printed it), NaN where
        the row did not measure the metric (all threads NaN stays NaN).
        """
        ...

    @property
    def run(self) -> LikwidRun:
        """The run as a per-thread :class:`LikwidRun` (may be built on first access)."""
        ...
