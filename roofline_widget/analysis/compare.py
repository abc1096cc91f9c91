"""Compare runs: matched roofline points of two runs (or a chain of runs) in one table.

:func:`compare_points` puts the point of every (region, rank, device) of a
``before`` run and an ``after`` run in ONE row: both points' coordinates
(``performance_gflops_before`` / ``_after``, ...), the speed-up and the
relative changes.  Regions found in one run only, or measured but not
placeable (no FLOPs, no bandwidth, ...), keep their row with a ``status`` and
the reason, so nothing is dropped silently.  A chain (a thread-scaling series,
``{"1t": a, "2t": b, "8t": c}``) is the same table for every consecutive pair,
one ``step`` after the other, with the changes relative to the first run too.

The points come from :meth:`roofline_widget.points.RegionSums.select`, so they
are the same numbers as :func:`~roofline_widget.points_dataframe`: per-thread
rates summed per region.  ONE FLOP metric and ONE bandwidth metric are used
for every run, detected on the union of the runs' metrics when not given.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd

from roofline_widget.analysis.compare_rows import (
    STATUSES,
    comparison_rows,
    stack_sides,
)
from roofline_widget.errors import MetricChoiceWarning
from roofline_widget.points import (
    RegionSums,
    Selection,
    detect_bandwidth_metric,
    detect_flops_metric,
    note_warning,
    selection_parameters,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["STATUSES", "compare_points"]


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks")
def compare_points(before: object, after: object = None, *, selection: Selection | None = None,
                   match: Mapping[str, str] | Callable[[str], str | None] | None = None,
                   **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Match the roofline points of two runs (or a chain of runs) and compute the changes.

    The selection applies to every run alike (``include``/``exclude`` match
    each run's own region names); the metrics, given or detected on the
    union of all runs' metrics, are used for every run.

    Parameters
    ----------
    before, after : run data
        Anything :func:`~roofline_widget.points_dataframe` accepts (a
        :class:`~roofline_widget.LikwidRun`, a path, scope-profiler results, a
        list of them, a :class:`~roofline_widget.points.RegionSums`).
        Without ``after``, ``before`` is a CHAIN: an ordered mapping
        ``{label: run data}`` or a list of run data (labels: the runs' file
        labels), at least two; each pair of consecutive runs is compared.
    {selection_parameters}
    match : dict or callable, optional
        For renamed regions: maps a region name (of any run) to the name it
        is matched by, ``{"Solve_old": "Solve"}`` (names not in the dict are
        kept) or a function such as ``str.lower`` (returning None keeps the
        name).  Applied to the region names of every run.

    Returns
    -------
    pandas.DataFrame
        One row per (region, rank, device) found in either run, in the order
        of the ``before`` run, then the regions new in ``after``.  Columns:

        - ``region`` (the matched name, after ``match``), ``rank``
          (-1 for a sum of every rank, ``combine_ranks``; a socket's or
          host's sum is keyed by its lowest rank, so socket 0 pairs with
          socket 0), ``device``;
        - ``status``: ``"both"``, ``"only before"``, ``"only after"`` (the point
          could be placed in that run only) or ``"neither"`` (the region ran,
          but could be placed in no run);
        - ``run_before``, ``run_after``: the comparison labels (``"before"``,
          ``"after"``, or the chain's labels);
        - ``region_before``, ``region_after``, ``file_before``, ``file_after``,
          ``rank_group_before``, ``rank_group_after``: the original region
          names, the runs' file labels and the ranks each point sums
          (``"f0472 socket 0 (ranks 0-23)"``, ``"rank 3"``);
        - ``performance_gflops``, ``bandwidth_gbs``,
          ``arithmetic_intensity_flops_per_byte``, ``runtime_seconds``,
          ``n_threads`` (nullable integers), ``call_count``, each suffixed ``_before`` and
          ``_after``: the two points' coordinates side by side;
        - ``speedup`` = runtime before / runtime after (given whenever the
          region ran in both runs, even if it could not be placed);
        - ``performance_change_percent``, ``intensity_change_percent``,
          ``bandwidth_change_percent``: (after / before - 1) * 100, for
          ``status == "both"``.  Speed-up and GFLOP/s change can disagree
          (fewer FLOPs done faster): both are given;
        - ``reason_before``, ``reason_after``: why a run has no point for
          the row (``""`` when it has one): the left-out reason of
          :func:`~roofline_widget.left_out_regions`, or that the region or
          rank is not in that run;
        - ``flops_metric``, ``bandwidth_metric``: the metrics used.

        A chain has a ``step`` column first (1 compares the first and second
        run) and, last, ``speedup_vs_first`` and
        ``performance_change_vs_first_percent``,
        ``intensity_change_vs_first_percent``,
        ``bandwidth_change_vs_first_percent``: the ``after`` point against
        the first run's point of the same region (NaN where the first run
        has none; the step-1 rows say why).  A pair's rows are the chain
        ``{"before": before, "after": after}`` without those columns.

    Raises
    ------
    ValueError
        If a run lacks the chosen metric (or none could be detected), a run
        has two points for one region and rank (several files of one side:
        merge them with ``read_likwid([...])``), ``match`` maps two regions
        of a run to one name, or a chain has fewer than two runs.
    TypeError
        For a ``match`` that is neither a mapping nor callable.

    Warns
    -----
    MetricChoiceWarning
        When the metric detection is ambiguous or requested ranks are absent
        from a run.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> table = compare_points(
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"))
    >>> table[["region", "status"]].values.tolist()
    [['Setup', 'both'], ['Solve', 'both']]
    """
    chosen = Selection.of(selection, **keywords)
    chain = after is None
    items = _chain_items(before) if chain else [("before", before), ("after", after)]
    sums = [(label, RegionSums.from_runs(data)) for label, data in items]
    flops_metric = _common_metric(sums, chosen.flops_metric, "flop_metrics", detect_flops_metric,
                                  "FLOP-rate", "flops_metric")
    bandwidth_metric = _common_metric(sums, chosen.bandwidth_metric, "bandwidth_metrics",
                                      detect_bandwidth_metric, "bandwidth", "bandwidth_metric")
    chosen = replace(chosen, flops_metric=flops_metric, bandwidth_metric=bandwidth_metric)
    selected = []
    for label, run_sums in sums:
        selected.append(run_sums.select(chosen))
        for note in selected[-1].notes:
            warnings.warn(f"{label} run: {note}", note_warning(note), stacklevel=2)
    sides = stack_sides(selected, [label for label, _ in sums], _renamer(match))
    return comparison_rows(sides, chain, {"flops_metric": flops_metric,
                                          "bandwidth_metric": bandwidth_metric})


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------
def _chain_items(runs) -> list[tuple[str, object]]:
    """(label, run data) of a chain: an ordered mapping, or a list labelled by file labels."""
    if isinstance(runs, Mapping):
        items = [(str(label), data) for label, data in runs.items()]
    elif isinstance(runs, (list, tuple)):
        items = [(" + ".join(RegionSums.from_runs(data).files), data) for data in runs]
        labels = [label for label, _ in items]
        if len(set(labels)) < len(labels):
            items = [(f"run {i + 1}", data) for i, (_, data) in enumerate(items)]
    else:
        raise TypeError("compare_points(before, after) compares two runs; for a chain pass one "
                        "ordered mapping {label: run} or a list of runs and no `after` (got "
                        f"{type(runs).__name__})")
    if len(items) < 2:
        raise ValueError(f"a chain of runs needs at least two runs, got {len(items)}; "
                         "for two runs call compare_points(before, after)")
    return items


def _common_metric(sums, metric, attribute: str, detect, role: str, keyword: str) -> str:
    """One metric for all runs: the given one or detected on the union; every run must have it."""
    if metric is None:
        union = list(dict.fromkeys(m for _, s in sums for m in getattr(s, attribute)))
        metric, notes = detect(union)
        for note in notes:
            warnings.warn(note, MetricChoiceWarning, stacklevel=3)
        if metric is None:
            raise ValueError(f"no {role} metric in any of the runs "
                             f"({', '.join(label for label, _ in sums)})")
    for label, run_sums in sums:
        present = getattr(run_sums, attribute)
        if metric not in present:
            raise ValueError(
                f"the {label} run has no {role} metric {metric!r} (its {role} metrics: "
                f"{present or 'none'}); pass {keyword}= with a metric every run measured")
    return metric


def _renamer(match) -> Callable[[str], str]:
    if match is None:
        return lambda name: name
    if isinstance(match, Mapping):
        return lambda name: str(match.get(name, name))
    if callable(match):
        def rename(name: str) -> str:
            new = match(name)
            if new is None:
                return name
            if not isinstance(new, str):
                raise TypeError(f"match({name!r}) returned {new!r}; expected a region name "
                                "(str) or None")
            return new
        return rename
    raise TypeError(f"match must be a dict or a callable, got {type(match).__name__}")
