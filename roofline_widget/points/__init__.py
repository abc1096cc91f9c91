"""Roofline points: per-region sums over threads, metric detection, selection.

LIKWID prints derived metrics per hardware thread.  A region's roofline point
is the **sum** of the per-thread rates of one FLOP metric and one bandwidth
metric, converted to GFLOP/s and GB/s from the unit in the metric's name.

:class:`RegionSums` does the expensive part once, vectorised: per (run, rank,
region, device, group) the sum over threads of every metric, then per (run,
rank, region, device) the first group that has a value for each metric.  That
joins a FLOPS_DP run and a MEM_DP run of the same regions into one row and
never counts a metric twice when both groups print it (``DP [MFLOP/s]``).
:meth:`RegionSums.select` then picks metrics, ranks and regions with column
look-ups and boolean masks, cheap enough to run on every widget change.
With ``combine_ranks=True`` it also sums the selected ranks' rows per (run,
region, device): one point per region for the whole job, rank ``-1``.

Regions that cannot be placed (metric missing, zero, NaN or infinite sums, a
unit that is no rate, a GPU region under CPU metrics) are never dropped
silently: :attr:`SelectedPoints.left_out` lists them with the reason, and
:func:`collect_roofline_points` warns with :class:`RegionsLeftOutWarning`.

Modules, in the direction of the imports:

* :mod:`.detection`: which metrics to plot by default, channel totals;
* :mod:`.selection`: :class:`Selection`, the request (each field checked by
  :mod:`roofline_widget.settings`), and the keywords and parameter texts of
  every function that takes one;
* :mod:`.engines`: :class:`RegionSource` (the interface of a sums engine),
  the one thread reduction (:mod:`.engines.threads`), the engines
  (:class:`RunSource` for a LikwidRun, :class:`ScopeResultsSource` for
  ``ProfilingResults``, :class:`ScopeH5Source` for HDF5 files) and the
  dispatcher from the user's data to them (:mod:`.engines.dispatch`);
* :mod:`.columns`: :class:`RegionColumns`, the keys and sums of all runs;
* :mod:`.combined_ranks`, :mod:`.placement`, :mod:`.selected_points`: combining ranks,
  reasons for leaving rows out, :class:`SelectedPoints` (the result);
* :mod:`.region_sums`: :class:`RegionSums`;
* :mod:`.api`: :func:`collect_roofline_points`, :func:`points_dataframe`,
  :func:`left_out_regions`.
"""

from __future__ import annotations

from roofline_widget.points.api import collect_roofline_points, left_out_regions, points_dataframe
from roofline_widget.points.detection import channel_totals, detect_bandwidth_metric, detect_flops_metric
from roofline_widget.points.engines.h5 import ScopeH5Source
from roofline_widget.points.engines.h5_read import read_scope_sums
from roofline_widget.points.engines.run import RunSource
from roofline_widget.points.engines.scope import ScopeResultsSource
from roofline_widget.points.engines.source import RegionSource
from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selected_points import SelectedPoints, note_warning
from roofline_widget.points.selection import Selection, selection_parameters

__all__ = [
    "RegionSource",
    "RegionSums",
    "RunSource",
    "ScopeH5Source",
    "ScopeResultsSource",
    "SelectedPoints",
    "Selection",
    "channel_totals",
    "collect_roofline_points",
    "detect_bandwidth_metric",
    "detect_flops_metric",
    "left_out_regions",
    "note_warning",
    "points_dataframe",
    "read_scope_sums",
    "selection_parameters",
]
