"""The public functions: scope-profiler's ``collect_roofline_points`` and two DataFrame views.

Each call aggregates with :meth:`RegionSums.from_runs` (cached per run, so a
second call on the same runs costs one concatenation), selects, warns about
ambiguous metric choices and left-out regions, and returns one view of the
selection.
"""

from __future__ import annotations

import pandas as pd

from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selection import PointSelection

__all__ = ["collect_roofline_points", "left_out_regions", "points_dataframe"]


def _select(profiling_data, flops_metric, bandwidth_metric, ranks, include, exclude,
            combine_ranks=False, unmeasured="leave_out") -> PointSelection:
    sums = RegionSums.from_runs(profiling_data)
    return sums.select(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                       ranks=ranks, include=include, exclude=exclude,
                       combine_ranks=combine_ranks, unmeasured=unmeasured)


def collect_roofline_points(profiling_data, *, flops_metric: str | None = None,
                            bandwidth_metric: str | None = None, ranks=None, include=None,
                            exclude=None) -> list[dict]:
    """One roofline point per selected region and rank (and run).

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        LIKWID output files, runs read with :func:`~roofline_widget.read_likwid`,
        or scope-profiler results.
    flops_metric, bandwidth_metric : str, optional
        Exact LIKWID derived-metric names.  When omitted, ONE FLOP metric
        (double precision total preferred) and the TOTAL memory bandwidth
        are detected for the whole call.
    ranks : int, iterable of int, or None
        Ranks to keep; None keeps all.
    include, exclude : str or list of str, optional
        Regular expressions matched with :func:`re.match` on region names.

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
    selection = _select(profiling_data, flops_metric, bandwidth_metric, ranks, include, exclude)
    selection.warn()
    return selection.to_dicts()


def points_dataframe(profiling_data, **keywords) -> pd.DataFrame:
    """The points of :func:`collect_roofline_points` as a DataFrame.

    Takes the same keywords, and ``combine_ranks=False``: True sums the
    selected ranks into one point per (run, region, device), rank -1 (see
    :meth:`RegionSums.select`).  Adds the columns ``device, n_threads,
    call_count, groups, unmeasured_threads, run``: ``run`` numbers the runs
    of a file that holds several (a sweep appended to one log: one point per
    region and run, ``file`` the run's label ``<file>#<run> (...)``), 1
    otherwise.  ``unmeasured="leave_out"``
    (default) leaves out a region with a thread that did not measure the
    FLOP or bandwidth metric; ``"keep"`` places it with the sums over the
    measured threads and counts those threads in ``unmeasured_threads``
    (0 otherwise), see :meth:`RegionSums.select`.  Warns like :func:`collect_roofline_points`.
    """
    selection = _select(profiling_data, **_keywords(keywords))
    selection.warn()
    return selection.points


def left_out_regions(profiling_data, **keywords) -> pd.DataFrame:
    """The selected regions that could not be placed, with the reason.

    Takes the same keywords as :func:`points_dataframe` (``combine_ranks``
    included: the left-out rows then have rank -1).

    Returns
    -------
    pandas.DataFrame
        Columns ``file, region, rank, reason, device, groups, run``.
    """
    return _select(profiling_data, **_keywords(keywords)).left_out


_DEFAULTS = {"flops_metric": None, "bandwidth_metric": None, "ranks": None, "include": None,
             "exclude": None, "combine_ranks": False, "unmeasured": "leave_out"}


def _keywords(keywords: dict) -> dict:
    """The keywords of :func:`points_dataframe` with the defaults filled in; TypeError for others."""
    unknown = set(keywords) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {sorted(unknown)}; "
                        f"allowed: {list(_DEFAULTS)}")
    return {**_DEFAULTS, **keywords}
