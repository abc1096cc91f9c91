"""The public functions: scope-profiler's ``collect_roofline_points`` and two DataFrame views.

Each call aggregates with :meth:`RegionSums.from_runs` (cached per run, so a
second call on the same runs costs one concatenation), selects, warns about
ambiguous metric choices and left-out regions, and returns one view of the
selected points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selection import Selection, selection_parameters

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords
    from roofline_widget.roofs.roofline import Roofline

__all__ = ["collect_roofline_points", "left_out_regions", "points_dataframe"]


@selection_parameters("flops_metric, bandwidth_metric", "ranks", "include, exclude")
def collect_roofline_points(profiling_data: object,
                            **keywords: Unpack[SelectionKeywords]) -> list[dict]:
    """One roofline point per selected region and rank (and run).

    Ranks are grouped by socket where memory is counted on some ranks only
    (``group_ranks="auto"``, see :func:`points_dataframe`: such a point has
    rank -1).  scope-profiler's signature, exactly; for a :class:`Selection` use
    ``RegionSums.from_runs(data).select(selection).to_dicts()`` or
    :func:`points_dataframe`.

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        LIKWID output files, runs read with :func:`~roofline_widget.read_likwid`,
        or scope-profiler results.
    {selection_parameters}

    Returns
    -------
    list of dict
        scope-profiler 0.7.5 point dicts: ``file, region, rank,
        performance_gflops`` (sum over threads, GFLOP/s), ``bandwidth_gbs``
        (GB/s), ``arithmetic_intensity_flops_per_byte``,
        ``runtime_seconds`` (max over threads), ``flops_metric``,
        ``bandwidth_metric``.

    Warns
    -----
    RegionsLeftOutWarning
        Once, with a count and the reasons, if selected regions could not be
        placed; :func:`left_out_regions` lists them.  A region with a thread
        that did not measure the FLOP or bandwidth metric (LIKWID printed
        ``-``, ``nan``, ``inf``) is left out, the thread named in the reason
        (``points_dataframe(..., unmeasured="keep")`` keeps it, marked).
    MetricChoiceWarning
        If the detected metric is ambiguous (DP and SP both measured).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> points = collect_roofline_points(
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    >>> points[0]["region"], points[0]["bandwidth_metric"]
    ('Setup', 'Memory bandwidth [MBytes/s]')
    """
    selected = RegionSums.from_runs(profiling_data).select(Selection(**keywords))
    selected.warn()
    return selected.to_dicts()


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def points_dataframe(profiling_data: object, *, selection: Selection | None = None,
                     guidance: bool | Roofline | Sequence | None = False,
                     **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """The points of :func:`collect_roofline_points` as a DataFrame.

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        As for :func:`collect_roofline_points`.
    {selection_parameters}
    guidance : bool, Roofline or sequence of roofs, default False
        Add the columns ``limiting_factor``, ``guidance`` and ``guidance_metrics``
        of :func:`~roofline_widget.guidance`: True judges the points against
        empirical roofs (no advice rests on them), ceilings (a Roofline, or
        ComputeRoof / BandwidthRoof objects) against those.

    Returns
    -------
    pandas.DataFrame
        The columns of the point dicts, then ``device, n_threads,
        call_count, groups, unmeasured_threads`` (0 unless
        ``unmeasured="keep"`` placed a row with threads not measured),
        ``run``: the run's number in a file that holds several (a sweep
        appended to one log: one point per region and run, ``file`` the
        run's label ``<file>#<run> (...)``), 1 otherwise; ``rank_group``:
        the ranks a point sums (``"f0472 socket 0 (ranks 0-23)"``; its rank
        is -1 for every rank of the run, else its lowest rank) or ``"rank 3"``.
        With ``guidance``, then its three columns.

    Warns
    -----
    RegionsLeftOutWarning, MetricChoiceWarning, SelectionWarning
        As :func:`collect_roofline_points`.
    """
    sums = RegionSums.from_runs(profiling_data)
    selected = sums.select(Selection.of(selection, **keywords))
    selected.warn()
    if guidance is False or guidance is None:
        return selected.points
    # analysis builds on points: its guidance is imported only when asked for
    from roofline_widget.analysis.guidance import guidance_of

    return guidance_of(selected.points, sums, selected,
                       None if isinstance(guidance, bool) else guidance)


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def left_out_regions(profiling_data: object, *, selection: Selection | None = None,
                     **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """The selected regions that could not be placed, with the reason.

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        As for :func:`collect_roofline_points`.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        Columns ``file, region, rank, reason, device, groups, run,
        rank_group`` (ranks grouped as in :func:`points_dataframe`; ``run`` and ``rank_group``
        as in :func:`points_dataframe`).
    """
    return RegionSums.from_runs(profiling_data).select(Selection.of(selection, **keywords)).left_out
