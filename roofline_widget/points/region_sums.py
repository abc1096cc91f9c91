"""The aggregation front: :class:`RegionSums`, the sums of every run, and its selections.

:class:`RegionSums` concatenates the rows of its sources (one
:class:`~roofline_widget.points.engines.source.RegionSource` per run: a
:class:`~roofline_widget.points.engines.run.RunSums` for a :class:`LikwidRun`, a
:class:`~roofline_widget.points.engines.scope.ScopeSums` for scope-profiler
results) and asks a source for a metric's sums only when a selection first
needs it.  :meth:`RegionSums.select` then picks metrics, ranks and regions
with column look-ups and boolean masks, cheap enough to run on every widget
change; with ``combine_ranks=True`` it sums the selected ranks per (run,
region, device).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from roofline_widget.model import GPU, LikwidRun
from roofline_widget.points.arguments import PatternsArgument, RanksArgument, names_selected
from roofline_widget.points.detection import channel_totals, detect_bandwidth_metric, detect_flops_metric
from roofline_widget.points.engines.run import RunSums
from roofline_widget.points.engines.scope import ScopeSums
from roofline_widget.points.engines.source import RegionSource
from roofline_widget.points.placement import giga_rates, joined_reasons, unmeasured_union
from roofline_widget.points.rank_groups import RankGroups
from roofline_widget.points.selected_points import SelectedPoints, SelectionNote
from roofline_widget.points.selection import Selection, selection_parameters
from roofline_widget.points.unmeasured import (
    Unmeasured,
    joined_unmeasured,
    no_unmeasured,
    union_unmeasured,
)
from roofline_widget.schema import FRAME_KEYS
from roofline_widget.units import BYTE_RATE, FLOP_RATE, UOP_RATE, Unit, parse_unit

__all__ = ["RegionSums"]


def _unique_labels(sources: list[RegionSource]) -> list[str]:
    """The run labels, a repeated one numbered: ``run``, ``run (2)``, ..."""
    labels, seen = [], {}
    for source in sources:
        label = str(source.label)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return labels


def _sources(data) -> list[RegionSource]:
    """Per-run sums of anything :func:`roofline_widget.io.as_runs` accepts.

    scope-profiler results are read directly (:class:`ScopeSums`, one metric
    at a time); everything else becomes a :class:`LikwidRun` first.
    """
    from roofline_widget.io import as_runs, is_scope_results

    if is_scope_results(data):
        return [ScopeSums(data)]
    if isinstance(data, (str, os.PathLike)):
        from roofline_widget.io.scope.h5 import is_hdf5, read_scope_sums

        if is_hdf5(data):
            return [read_scope_sums(data)]
    if isinstance(data, (LikwidRun, str, os.PathLike)) or not isinstance(data, Iterable):
        return [RunSums(run) for run in as_runs(data)]
    parts = [part for item in data for part in _sources(item)]
    if not parts:
        raise ValueError("no runs given")
    return parts


def _combined(columns: list):
    """One key column of several runs (categoricals keep first-appearance order)."""
    if len(columns) == 1:
        return columns[0]
    if isinstance(columns[0], pd.Categorical):
        return union_categoricals(columns, ignore_order=True)
    return np.concatenate(columns)


class RegionSums:
    """Per-(run, rank, region, device) sums over threads of every metric.

    Build it with :meth:`from_runs`; pick metrics, ranks and regions with
    :meth:`select`.  A metric's sums are computed when a selection first
    uses it (for scope-profiler results straight from the region arrays,
    see :class:`~roofline_widget.points.engines.scope.ScopeSums`) and kept.

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
    frame : pandas.DataFrame
        One row per (run, rank, region, device): ``file`` (run label),
        ``rank``, ``region``, ``device``, ``n_threads``, ``runtime_s`` (max
        over threads), ``call_count`` (max), ``groups`` (``"MEM_DP+FLOPS_DP"``),
        then one column per metric (sum over threads, native unit); built on
        first access.
    metrics : list of str
        Every metric (also :attr:`metric_names`): channel totals first (see
        :func:`~roofline_widget.points.channel_totals`), then the measured ones.
    units : dict of str to Unit
        The unit of every metric, parsed from its name.
    flop_metrics : list of str
        FLOP-rate metrics present, then uop rates.
    bandwidth_metrics : list of str
        Byte-rate metrics present.
    ranks, regions, files : list
        Ranks (ascending), region names and run labels (order of appearance).
    gpu_rows : numpy.ndarray
        Per row, whether its device is a GPU.
    """

    def __init__(self, parts: list[RegionSource], labels: list[str]):
        self._parts = list(parts)
        self.files = list(labels)
        measured = list(dict.fromkeys(n for part in self._parts for n in part.metric_names))
        # Sums of channel-split bandwidths come first, so detection prefers them to a half.
        self._channel_totals = channel_totals(measured)
        self.metrics = list(self._channel_totals) + measured
        self.units: dict[str, Unit] = {name: parse_unit(name) for name in self.metrics}
        self.flop_metrics = ([m for m in self.metrics if self.units[m].kind == FLOP_RATE]
                             + [m for m in self.metrics if self.units[m].kind == UOP_RATE])
        self.bandwidth_metrics = [m for m in self.metrics if self.units[m].kind == BYTE_RATE]
        lengths = [len(part) for part in self._parts]
        file_codes = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        self._keys = {"file": pd.Categorical.from_codes(file_codes, categories=self.files)}
        self._frame = None
        self.ranks = np.unique(self.key("rank")).astype(int).tolist()
        self.regions = list(self.key("region").categories)
        self._region_codes = self.label_codes("region")[0]
        device_codes, devices = self.label_codes("device")
        self.gpu_rows = np.asarray(devices == GPU)[device_codes] if len(devices) else \
            np.zeros(len(file_codes), dtype=bool)
        self._metric_values: dict[str, np.ndarray] = {}
        self._unmeasured: dict[str, Unmeasured] = {}
        self._region_masks: dict[tuple, np.ndarray] = {}
        self._group_of_row: tuple | None = None

    @classmethod
    def from_runs(cls, data) -> RegionSums:
        """Aggregate runs (anything :func:`roofline_widget.io.as_runs` accepts).

        Per-run sums of a :class:`LikwidRun` are cached on the run object, so
        building a ``RegionSums`` of runs seen before costs one concatenation.
        scope-profiler results are not converted to a per-thread table at all.
        A ``RegionSums`` is returned as it is.
        """
        if isinstance(data, RegionSums):
            return data
        parts = _sources(data)
        return cls(parts, _unique_labels(parts))

    @property
    def runs(self) -> list[LikwidRun]:
        """The runs as :class:`LikwidRun` (scope-profiler results converted on first use)."""
        return [part.run for part in self._parts]

    def machines(self) -> dict[str, tuple[str | None, str | None]]:
        """Run label -> (CPU name, CPU type) as LIKWID printed them.

        ``(None, None)`` where the run does not say, or would have to be built
        first to say it (scope-profiler results).
        """
        return {label: (part.run.cpu_name, part.run.cpu_type) if isinstance(part, RunSums)
                else (None, None) for label, part in zip(self.files, self._parts)}

    @property
    def metric_names(self) -> list[str]:
        """Every metric name, as :attr:`metrics`: channel totals first, then the measured ones."""
        return list(self.metrics)

    @property
    def frame(self) -> pd.DataFrame:
        """Keys and every metric's sums as one DataFrame (built on first access)."""
        if self._frame is None:
            columns = {name: self.key(name) for name in FRAME_KEYS}
            columns.update((name, self.sums(name)) for name in self.metrics)
            self._frame = pd.DataFrame(columns)
        return self._frame

    def __len__(self) -> int:
        """The number of (run, rank, region, device) rows."""
        return len(self._region_codes)

    def __repr__(self) -> str:
        return (f"<RegionSums: {len(self)} (run, rank, region, device) row(s), "
                f"{len(self.files)} run(s), FLOP metrics {self.flop_metrics}, "
                f"bandwidth metrics {self.bandwidth_metrics}>")

    # ------------------------------------------------------------ columns
    def key(self, name: str) -> np.ndarray | pd.Categorical:
        """One key column of all runs (a name of ``FRAME_KEYS``), combined on first use and kept.

        Columns a selection does not need (``call_count``, ``groups`` for point
        dicts) are then never read from scope-profiler results.
        """
        column = self._keys.get(name)
        if column is None:
            column = self._keys[name] = _combined([part.keys[name] for part in self._parts])
        return column

    def key_numbers(self, name: str) -> np.ndarray:
        """A numeric key column as a plain array (rank and n_threads int64, else float)."""
        dtype = np.int64 if name in ("rank", "n_threads") else float
        return np.asarray(self.key(name), dtype=dtype)

    def label_codes(self, name: str) -> tuple[np.ndarray, pd.Index]:
        """(codes, categories) of a categorical key column (``file, region, device, groups``)."""
        column = self.key(name)
        return np.asarray(column.codes), column.categories

    def label_column(self, name: str, rows: np.ndarray) -> pd.Categorical:
        """A categorical key column at ``rows`` (the categories of all rows kept)."""
        codes, categories = self.label_codes(name)
        return pd.Categorical.from_codes(codes[rows], categories=categories)

    def plain_labels(self, name: str, rows: np.ndarray) -> list[str]:
        """A categorical key column at ``rows`` as plain ``str`` (converted once per category)."""
        codes, categories = self.label_codes(name)
        plain = np.array([str(c) for c in categories] + [""], dtype=object)
        return plain[codes[rows]].tolist()

    def sums(self, metric: str) -> np.ndarray:
        """The sums of one metric (a name of :attr:`metrics`) over all rows, kept.

        Native unit; NaN for the rows of runs without the metric.  A channel
        total is the sum of its parts (NaN where a region lacks a part).
        """
        values = self._metric_values.get(metric)
        if values is None:
            if metric in self._channel_totals:
                # NaN where a region lacks a part: half a socket's traffic is no total.
                values = np.sum([self.sums(part) for part in self._channel_totals[metric]],
                                axis=0)
            else:
                pieces = [part.sums(metric) if metric in part.metric_names
                          else np.full(len(part), np.nan) for part in self._parts]
                values = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
            self._metric_values[metric] = values
        return values

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite (kept per metric).

        A source without an ``unmeasured`` method, or without the metric,
        counts as fully measured; a channel total's threads are those of
        any of its parts.
        """
        found = self._unmeasured.get(metric)
        if found is None:
            if metric in self._channel_totals:
                found = union_unmeasured([self.unmeasured(part)
                                          for part in self._channel_totals[metric]])
            else:
                found = joined_unmeasured([
                    Unmeasured(*part.unmeasured(metric)) if metric in part.metric_names
                    and hasattr(part, "unmeasured") else no_unmeasured(len(part))
                    for part in self._parts])
            self._unmeasured[metric] = found
        return found

    def rank_groups(self, rows: np.ndarray) -> RankGroups:
        """The selected ``rows`` grouped by (run, region, device) (the numbering is kept)."""
        if self._group_of_row is None:
            file_codes = self.label_codes("file")[0].astype(np.int64)
            device_codes, devices = self.label_codes("device")
            key = ((file_codes * max(len(self.regions), 1) + self._region_codes)
                   * (len(devices) + 1) + device_codes + 1)
            codes, uniques = pd.factorize(key)
            self._group_of_row = (codes.astype(np.intp), len(uniques))
        return RankGroups(*self._group_of_row, rows)

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
            mask = keep[self._region_codes]
            self._region_masks[key] = mask
        return mask

    @selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks",
                          "include, exclude", "combine_ranks", "unmeasured")
    def select(self, selection: Selection | None = None, *, flops_metric: str | None = None,
               bandwidth_metric: str | None = None, ranks: RanksArgument = None,
               include: PatternsArgument = None, exclude: PatternsArgument = None,
               combine_ranks: bool = False, unmeasured: str = "leave_out") -> SelectedPoints:
        """Pick metrics, ranks and regions; return the points and the left-out rows.

        Parameters
        ----------
        {selection_parameters}

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
        chosen = Selection.of(selection, flops_metric=flops_metric,
                              bandwidth_metric=bandwidth_metric, ranks=ranks, include=include,
                              exclude=exclude, combine_ranks=combine_ranks, unmeasured=unmeasured)
        keep = chosen.unmeasured == "keep"
        flops_metric, bandwidth_metric = chosen.flops_metric, chosen.bandwidth_metric
        rank_list, include, exclude = chosen.ranks, chosen.include, chosen.exclude
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
            absent = sorted(set(rank_list) - set(self.ranks))
            if absent:
                notes.append(SelectionNote(f"rank(s) {absent} not in the data "
                                           f"(ranks present: {self.ranks})"))
        if include == ():
            notes.append(SelectionNote("include=[] selects no region "
                                       "(include=None selects every region)"))
        rows = np.flatnonzero(mask)
        groups = self.rank_groups(rows) if chosen.combine_ranks else None
        performance, flops_codes, flops_texts, flops_missing = giga_rates(
            self, flops_metric, "FLOP-rate", FLOP_RATE, rows, groups, keep=keep)
        bandwidth, bw_codes, bw_texts, bw_missing = giga_rates(
            self, bandwidth_metric, "bandwidth", BYTE_RATE, rows, groups, keep=keep)
        placed = (flops_codes == 0) & (bw_codes == 0)
        reasons = joined_reasons(flops_texts, bw_texts, flops_codes[~placed], bw_codes[~placed])
        shown = rows if groups is None else groups.first_rows
        missing = unmeasured_union(flops_missing, bw_missing, np.flatnonzero(placed))
        used = replace(chosen, flops_metric=flops_metric, bandwidth_metric=bandwidth_metric)
        return SelectedPoints(self, shown[placed], performance[placed], bandwidth[placed],
                              shown[~placed], reasons, used, notes,
                              combined=None if groups is None else (groups, placed),
                              unmeasured_threads=missing)
