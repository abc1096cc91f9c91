"""The aggregation front: :class:`RegionSums`, the sums of every run, and its selections.

:meth:`RegionSums.from_runs` turns what the user passed into one
:class:`~roofline_widget.points.engines.source.RegionSource` per run
(:func:`~roofline_widget.points.engines.dispatch.region_sources`, after the
one rule of :mod:`roofline_widget.io.inputs`); the columns are those of
:class:`~roofline_widget.points.columns.RegionColumns`.
:meth:`RegionSums.select` then picks metrics, ranks and regions with column
look-ups and boolean masks, cheap enough to run on every widget change;
it sums the selected ranks of a socket, a host or the whole job where
``group_ranks`` says so (:mod:`roofline_widget.points.rank_groups`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from roofline_widget.model import LikwidRun
from roofline_widget.points.columns import RegionColumns
from roofline_widget.points.combined_ranks import CombinedRanks
from roofline_widget.points.detection import detect_bandwidth_metric, detect_flops_metric
from roofline_widget.points.engines.dispatch import region_sources
from roofline_widget.points.engines.run import RunSource
from roofline_widget.points.engines.source import RegionSource
from roofline_widget.points.placement import giga_rates, joined_reasons, unmeasured_union
from roofline_widget.points.rank_groups import RankGrouping, rank_grouping
from roofline_widget.points.rank_places import resolve_ranks
from roofline_widget.points.selected_points import SelectedPoints, SelectionNote
from roofline_widget.points.selection import Selection, selection_parameters
from roofline_widget.settings import names_selected
from roofline_widget.settings.rules import ranks_in_data
from roofline_widget.units import UnitKind

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["RegionSums"]


def _unique_labels(sources: list[RegionSource]) -> list[str]:
    """The run labels, a repeated one numbered: ``run``, ``run (2)``, ..."""
    labels: list[str] = []
    seen: dict[str, int] = {}
    for source in sources:
        label = str(source.label)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return labels


class RegionSums(RegionColumns):
    """Per-(run, rank, region, device) sums over threads of every metric, and their selections.

    Build it with :meth:`from_runs`; pick metrics, ranks and regions with
    :meth:`select`.  A metric's sums are computed when a selection first
    uses it (for scope-profiler results straight from the region arrays,
    see :class:`~roofline_widget.points.engines.scope.ScopeResultsSource`) and
    kept.  The columns (:attr:`frame`, :meth:`key`, :meth:`sums`, ...) are
    those of :class:`~roofline_widget.points.columns.RegionColumns`.

    Parameters
    ----------
    parts : list of RegionSource
        One source per run (:meth:`from_runs` builds them).
    labels : list of str
        The run labels, one per source, all different.

    Attributes
    ----------
    runs : list of LikwidRun
        Built on first access for scope-profiler results.
    metric_names : list of str
        As :attr:`metrics`.
    """

    def __init__(self, parts: list[RegionSource], labels: list[str]):
        super().__init__(parts, labels)
        self._region_masks: dict[tuple, np.ndarray] = {}
        self._groupings: dict[tuple, RankGrouping | None] = {}

    @classmethod
    def from_runs(cls, data, *, engine: str = "auto") -> RegionSums:
        """Aggregate one run or a list of runs.

        Parameters
        ----------
        data : run or list of runs
            A run is a :class:`LikwidRun`, scope-profiler ``ProfilingResults``,
            a path (LIKWID text/CSV output or a scope-profiler HDF5 file), an
            open file, a ``RegionSums``, or a list of paths and open files
            (the files of one run, merged as :func:`~roofline_widget.read_likwid`
            merges them).  The items of an outer list are the runs
            (:mod:`roofline_widget.io.inputs` states the rule).
        engine : {"auto", "h5py", "raw"}
            Who reads scope-profiler HDF5 files (see
            :func:`~roofline_widget.points.engines.h5_read.read_scope_sums`).

        Notes
        -----
        Per-run sums of a :class:`LikwidRun` are cached on the run object, so
        building a ``RegionSums`` of runs seen before costs one concatenation.
        scope-profiler results and HDF5 files are not converted to a
        per-thread table at all.  A ``RegionSums`` is returned as it is.
        """
        if isinstance(data, RegionSums):
            return data
        parts = region_sources(data, engine=engine, keep=(RegionSums,))
        return cls(parts, _unique_labels(parts))

    @property
    def runs(self) -> list[LikwidRun]:
        """The runs as :class:`LikwidRun` (scope-profiler results converted on first use)."""
        return [part.run for part in self.sources]

    def machines(self) -> dict[str, tuple[str | None, str | None]]:
        """Run label -> (CPU name, CPU type) as LIKWID printed them.

        ``(None, None)`` where the run does not say, or would have to be built
        first to say it (scope-profiler results).
        """
        return {label: (part.run.cpu_name, part.run.cpu_type) if isinstance(part, RunSource)
                else (None, None) for label, part in zip(self.files, self.sources)}

    @property
    def metric_names(self) -> list[str]:
        """Every metric name, as :attr:`metrics`: channel totals first, then the measured ones."""
        return list(self.metrics)

    def __repr__(self) -> str:
        return (f"<RegionSums: {len(self)} (run, rank, region, device) row(s), "
                f"{len(self.files)} run(s), FLOP metrics {self.flop_metrics}, "
                f"bandwidth metrics {self.bandwidth_metrics}>")

    def rank_grouping(self, group_ranks: str,
                      metrics: tuple[str | None, ...] = ()) -> RankGrouping | None:
        """The groups of ranks of ``group_ranks`` over all rows (kept), or None: per rank.

        ``metrics`` are the bandwidth metrics whose counting on some ranks
        only makes ``"auto"`` group (see :func:`~roofline_widget.points.rank_groups.rank_grouping`).
        The groups are numbered over all rows once, so a point keeps its
        place whatever ranks are selected.
        """
        key = (group_ranks, tuple(metrics) if group_ranks == "auto" else ())
        if key not in self._groupings:
            self._groupings[key] = rank_grouping(self, group_ranks, key[1])
        return self._groupings[key]

    def combined_ranks(self, rows: np.ndarray, group_ranks: str = "all",
                       metrics: tuple[str | None, ...] = ()) -> CombinedRanks | None:
        """The selected ``rows`` grouped as ``group_ranks`` says (default: all ranks per
        (run, region, device)), to sum their ranks; None for one point per rank."""
        grouping = self.rank_grouping(group_ranks, metrics)
        return None if grouping is None else CombinedRanks(grouping, rows)

    # ------------------------------------------------------------ detection
    def detect_flops_metric(self) -> str | None:
        """The FLOP-rate metric :meth:`select` uses by default (see :func:`detect_flops_metric`)."""
        return detect_flops_metric(self.flop_metrics)[0]

    def detect_bandwidth_metric(self) -> str | None:
        """The bandwidth metric :meth:`select` uses by default (the total memory bandwidth)."""
        return detect_bandwidth_metric(self.bandwidth_metrics)[0]

    # ------------------------------------------------------------ selection
    def _region_mask(self, include: tuple[re.Pattern[str], ...] | None,
                     exclude: tuple[re.Pattern[str], ...] | None) -> np.ndarray:
        """Per row whether its region is selected (kept per pair of pattern tuples)."""
        key = (include, exclude)
        mask = self._region_masks.get(key)
        if mask is None:
            keep = names_selected(self.regions, include, exclude)
            mask = keep[self.region_codes]
            self._region_masks[key] = mask
        return mask

    @selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks",
                          "include, exclude", "group_ranks", "combine_ranks", "unmeasured")
    def select(self, selection: Selection | None = None, *,
               uncore_metrics: tuple[str, ...] | None = None,
               **keywords: Unpack[SelectionKeywords]) -> SelectedPoints:
        """Pick metrics, ranks and regions; return the points and the left-out rows.

        Parameters
        ----------
        {selection_parameters}
        uncore_metrics : tuple of str, optional
            The bandwidth metrics whose counting on some ranks only makes
            ``group_ranks="auto"`` group the ranks (default: the bandwidth
            metric of the points); the memory levels pass all of theirs, so
            every level of a region sums the same ranks.

        Returns
        -------
        SelectedPoints
            Its ``selection`` is the request with the metrics used.

        Raises
        ------
        SelectionError
            (a ``ValueError``) For invalid ranks or patterns, or a
            ``combine_ranks`` that is no bool.
        """
        chosen = Selection.of(selection, **keywords)
        keep = chosen.unmeasured == "keep"
        flops_metric, bandwidth_metric = chosen.flops_metric, chosen.bandwidth_metric
        include, exclude = chosen.include, chosen.exclude
        rank_list = resolve_ranks(self, chosen.ranks)  # a text such as "f0702 socket 1" too
        notes = []
        if flops_metric is None:
            flops_metric, more = detect_flops_metric(self.flop_metrics)
            notes += more
        if bandwidth_metric is None:
            bandwidth_metric, more = detect_bandwidth_metric(self.bandwidth_metrics)
            notes += more
        mask = self._region_mask(include, exclude)
        if rank_list is not None:
            mask = mask & np.isin(self.key_numbers("rank"), rank_list)
            absent = ranks_in_data(rank_list, self.ranks)
            if absent:
                notes.append(SelectionNote(absent))
        if include == ():
            notes.append(SelectionNote("include=[] selects no region "
                                       "(include=None selects every region)"))
        rows = np.flatnonzero(mask)
        groups = self.combined_ranks(rows, chosen.group_ranks, (bandwidth_metric,)
                                     if uncore_metrics is None else tuple(uncore_metrics))
        performance, flops_codes, flops_texts, flops_missing = giga_rates(
            self, flops_metric, "FLOP-rate", UnitKind.FLOP_RATE, rows, groups, keep=keep)
        bandwidth, bw_codes, bw_texts, bw_missing = giga_rates(
            self, bandwidth_metric, "bandwidth", UnitKind.BYTE_RATE, rows, groups, keep=keep)
        placed = (flops_codes == 0) & (bw_codes == 0)
        reasons = joined_reasons(flops_texts, bw_texts, flops_codes[~placed], bw_codes[~placed])
        shown = rows if groups is None else groups.first_rows
        missing = unmeasured_union(flops_missing, bw_missing, np.flatnonzero(placed))
        used = replace(chosen, flops_metric=flops_metric, bandwidth_metric=bandwidth_metric)
        left_out_rows = shown[~placed]
        if not placed.all():  # (every one placed: the arrays as they are)
            shown, performance, bandwidth = shown[placed], performance[placed], bandwidth[placed]
        return SelectedPoints(self, shown, performance, bandwidth, left_out_rows, reasons, used,
                              notes,
                              combined=None if groups is None else (groups, placed),
                              unmeasured_threads=missing)
