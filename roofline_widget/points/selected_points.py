"""The result of one selection: placed points, left-out rows, their frames and dicts.

:class:`SelectedPoints` is what :meth:`RegionSums.select` returns for a
:class:`~roofline_widget.points.selection.Selection` (the request).  It keeps
the selected row numbers and the two rates; its DataFrames are built from the
:class:`RegionSums` columns on first access (through the public column
accessors of :class:`RegionSums`), and :meth:`SelectedPoints.to_dicts` gives
scope-profiler's point dicts without building any frame.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import (
    LEFT_OUT_LIST,
    MetricChoiceWarning,
    RegionsLeftOutWarning,
    SelectionWarning,
)
from roofline_widget.io.key_codes import text_dtype, unique_integers
from roofline_widget.points.columns import RegionColumns
from roofline_widget.points.combined_ranks import CombinedRanks
from roofline_widget.points.rank_groups import rank_labels
from roofline_widget.points.selection import Selection
from roofline_widget.schema import FRAME_KEYS

__all__ = ["SelectedPoints", "SelectionNote", "metric_text", "note_warning"]

_LABEL_KEYS = ("file", "region", "device", "groups")


class SelectionNote(str):
    """A note on the ``ranks``/``include`` arguments (warned as :class:`SelectionWarning`)."""


def metric_text(role: str, metric: str | None) -> str:
    """How a message names the ``role`` ("FLOP", "bandwidth") metric: ``"FLOP metric 'DP
    [MFLOP/s]'"``, or ``"no bandwidth metric"`` when the data has none (never ``None``)."""
    return f"{role} metric {metric!r}" if metric is not None else f"no {role} metric"


def note_warning(note: str) -> type[UserWarning]:
    """The warning class a selection's note is warned with."""
    return SelectionWarning if isinstance(note, SelectionNote) else MetricChoiceWarning


def _constant_column(value: str | None, n: int) -> pd.Categorical:
    if value is None:
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=[])
    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), dtype=text_dtype((value,)))


#: Per sums: each row's index into the labels of all its ranks, and those labels as a dtype.
_RANK_LABELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _rank_labels(sums: RegionColumns, rows: np.ndarray | slice) -> pd.Categorical:
    """``"rank 3"`` per row of ``rows`` (the ``rank_group`` of points kept per rank; ``"all
    ranks"`` for rank -1, a sum read back from a points table); categories: the ranks there,
    ascending.  The labels of all the sums' ranks are made once."""
    found = _RANK_LABELS.get(sums)
    if found is None:
        values, codes = unique_integers(sums.key_numbers("rank"))
        found = _RANK_LABELS[sums] = (codes, pd.CategoricalDtype(rank_labels(values.tolist())))
    codes, labels = found
    chosen = codes[rows]
    present = np.zeros(len(labels.categories), dtype=bool)
    present[chosen] = True
    if present.all():
        return pd.Categorical.from_codes(chosen, dtype=labels)
    if not present.any():  # no row: no category (as a Categorical of no rank)
        return pd.Categorical.from_codes(chosen, categories=[])
    return pd.Categorical.from_codes((np.cumsum(present) - 1)[chosen],
                                     categories=labels.categories[present])


def _points_frame(sums: RegionColumns, rows: np.ndarray, numbers: Callable[[str], np.ndarray],
                  performance: np.ndarray, bandwidth: np.ndarray, flops_metric: str | None,
                  bandwidth_metric: str | None, unmeasured: np.ndarray,
                  rank_group: pd.Categorical, threads: dict[str, np.ndarray]) -> pd.DataFrame:
    """The points frame; ``numbers(name)`` gives the numeric key columns of the rows,
    ``threads`` the per-thread columns (:meth:`SelectedPoints.thread_columns`)."""
    n = len(rows)
    return pd.DataFrame({
        "file": sums.label_column("file", rows),
        "region": sums.label_column("region", rows),
        "rank": numbers("rank"),
        schema.PERFORMANCE: performance,
        schema.BANDWIDTH: bandwidth,
        schema.INTENSITY: performance / bandwidth,
        schema.RUNTIME: numbers("runtime_s"),
        "flops_metric": _constant_column(flops_metric, n),
        "bandwidth_metric": _constant_column(bandwidth_metric, n),
        "device": sums.label_column("device", rows),
        "device_family": sums.device_labels("device_family", rows),
        "device_name": sums.device_labels("device_name", rows),
        "n_threads": numbers("n_threads"),
        "call_count": numbers("call_count"),
        "groups": sums.label_column("groups", rows),
        "unmeasured_threads": unmeasured,
        "run": numbers("run"),
        "rank_group": rank_group,
        **threads,
    })


def _left_out_frame(sums: RegionColumns, rows: np.ndarray, numbers: Callable[[str], np.ndarray],
                    reasons: pd.Categorical, rank_group: pd.Categorical) -> pd.DataFrame:
    return pd.DataFrame({
        "file": sums.label_column("file", rows),
        "region": sums.label_column("region", rows),
        "rank": numbers("rank"),
        "reason": reasons,
        "device": sums.label_column("device", rows),
        "device_family": sums.device_labels("device_family", rows),
        "device_name": sums.device_labels("device_name", rows),
        "groups": sums.label_column("groups", rows),
        "run": numbers("run"),
        "rank_group": rank_group,
    })


def _combined_frame(sums: RegionColumns, groups: CombinedRanks) -> pd.DataFrame:
    """Like :attr:`RegionSums.frame`, one row per group of ``groups``: the ranks summed."""
    columns = {name: (sums.label_column(name, groups.first_rows) if name in _LABEL_KEYS
                      else groups.column(sums, name)) for name in FRAME_KEYS}
    columns.update((name, groups.sum(sums.sums(name)[groups.rows])) for name in sums.metrics)
    return pd.DataFrame(columns)


class SelectedPoints:
    """The points of one selection and the regions that could not be placed.

    Built by :meth:`RegionSums.select` for a :class:`Selection`. The two DataFrames are built on
    first access; :meth:`to_dicts` reads the selected rows straight from the
    :class:`RegionSums` columns and needs neither.

    Parameters
    ----------
    sums : RegionSums
        Where the rows are.
    rows, performance, bandwidth : numpy.ndarray
        The placed rows of ``sums`` (with ``combined``: the first row of each
        placed group) and their GFLOP/s and GB/s.
    left_out_rows : numpy.ndarray
        The rows (or first rows of groups) that could not be placed.
    reasons : pandas.Categorical
        Why, one per left-out row.
    selection : Selection
        The request, its metrics resolved (given or detected).
    notes : list of str, optional
        Remarks on the metric choice.
    combined : (CombinedRanks, numpy.ndarray), optional
        When ranks are summed (``group_ranks``): the groups and the placed
        mask over them.
    unmeasured_threads : numpy.ndarray, optional
        Per placed point, how many of its threads did not measure the FLOP
        or the bandwidth metric (only ``unmeasured="keep"`` places such
        points); zeros by default.

    Attributes
    ----------
    points : pandas.DataFrame
        Columns ``file, region, rank, performance_gflops, bandwidth_gbs,
        arithmetic_intensity_flops_per_byte, runtime_seconds, flops_metric,
        bandwidth_metric, device, n_threads, call_count, groups,
        unmeasured_threads`` (threads summed over although they did not
        measure a needed metric: 0 unless selected with ``unmeasured="keep"``),
        ``run`` (the run's number in a file of several runs, whose label
        ``<file>#<run> (...)`` is ``file``; 1 otherwise), ``rank_group``
        (the ranks a point sums, ``"f0472 socket 0 (ranks 0-23)"``, or
        ``"rank 3"``).
    left_out : pandas.DataFrame
        Columns ``file, region, rank, reason`` (then ``device, groups, run,
        rank_group``).
    frame : pandas.DataFrame
        The selected rows of :attr:`RegionSums.frame` (placed and left out),
        every metric's sums included; with ranks summed one row per group
        (run, region, device and place), its rank -1 (every rank of the
        run) or its lowest rank.
    combine_ranks : bool
        Whether ranks were summed (``group_ranks`` grouped some).
    rank_grouping : tuple of str
        Per run whose ranks were grouped by socket or host, what and why
        (``"24 ranks on 1 socket, memory counted on rank 0: one point per
        socket"``): the widget's status line shows it.
    selection : Selection
        What was selected, with the metrics used: pass it on (``selection=``)
        to select the same points from other data or at other levels.
    flops_metric, bandwidth_metric : str or None
        The metrics used (given or detected), as in :attr:`selection`.
    notes : list of str
        Remarks on the metric choice (ambiguous precision, fallbacks), warned
        as :class:`MetricChoiceWarning`, and on the selection (requested ranks
        absent, ``include=[]``: :class:`SelectionNote`, warned as
        :class:`SelectionWarning`); :func:`collect_roofline_points` warns them.
    """

    def __init__(self, sums: RegionColumns, rows: np.ndarray, performance: np.ndarray,
                 bandwidth: np.ndarray, left_out_rows: np.ndarray, reasons: pd.Categorical,
                 selection: Selection, notes: list[str] | None = None, *,
                 combined: tuple[CombinedRanks, np.ndarray] | None = None,
                 unmeasured_threads: np.ndarray | None = None) -> None:
        self._sums = sums
        self._rows, self._performance, self._bandwidth = rows, performance, bandwidth
        # every row of the sums placed, in order (rows ascend): their columns read as they are
        self._placed_at: np.ndarray | slice = slice(None) if len(rows) == len(sums) else rows
        self._left_out_rows, self._reasons = left_out_rows, reasons
        # (CombinedRanks, placed mask over its groups) when the ranks were summed
        self._combined = combined
        self.combine_ranks = combined is not None
        self.rank_grouping = () if combined is None else combined[0].grouping.notes
        self.selection = selection
        self.flops_metric = selection.flops_metric
        self.bandwidth_metric = selection.bandwidth_metric
        self.notes = list(notes or [])
        self._points: pd.DataFrame | None = None
        self._left_out: pd.DataFrame | None = None
        self._frame: pd.DataFrame | None = None
        self.unmeasured_threads = (np.zeros(len(rows), dtype=np.int64) if unmeasured_threads is None
                                   else np.asarray(unmeasured_threads, dtype=np.int64))

    def _numbers(self, name: str, placed: bool) -> np.ndarray:
        """A numeric key column (rank, runtime_s, n_threads, call_count) of the points
        (``placed``) or of the left-out rows."""
        if self._combined is None:
            return self._sums.key_numbers(name)[self._placed_at if placed else self._left_out_rows]
        groups, mask = self._combined
        return groups.column(self._sums, name)[mask if placed else ~mask]

    def _rank_groups(self, placed: bool) -> pd.Categorical:
        """The ``rank_group`` column of the points (``placed``) or of the left-out rows."""
        if self._combined is None:
            return _rank_labels(self._sums, self._placed_at if placed else self._left_out_rows)
        groups, mask = self._combined
        labels = groups.labels(self._sums)
        return labels[mask if placed else ~mask]

    def _placed_max(self, values: np.ndarray) -> np.ndarray:
        """Per placed point the largest of ``values`` (one per row of the sums) it covers."""
        if self._combined is None:
            return values[self._placed_at]
        groups, mask = self._combined
        return groups.max(values[groups.rows])[mask]

    def thread_columns(self) -> dict[str, np.ndarray]:
        """Per placed point the largest FLOP rate (GFLOP/s) and bandwidth (GB/s) among the
        threads it sums, and the FLOP-rate bound of one of its threads (GFLOP/s)."""
        columns = {}
        for name, metric in (("thread_max_gflops", self.flops_metric),
                             ("thread_max_gbs", self.bandwidth_metric)):
            unit = self._sums.units.get(metric) if metric is not None else None
            columns[name] = (np.full(len(self._rows), np.nan) if metric is None or unit is None
                             else self._placed_max(self._sums.thread_maxima(metric))
                             * unit.to_giga)
        columns["thread_limit_gflops"] = self._placed_max(self._sums.thread_limits())
        return columns

    @property
    def points(self) -> pd.DataFrame:
        """The placed points, one row each (built on first access)."""
        if self._points is None:
            self._points = _points_frame(
                self._sums, self._rows, lambda name: self._numbers(name, True), self._performance,
                self._bandwidth, self.flops_metric, self.bandwidth_metric,
                self.unmeasured_threads, self._rank_groups(True), self.thread_columns())
        return self._points

    @property
    def left_out(self) -> pd.DataFrame:
        """The selected rows that could not be placed, with the reason (built on first access)."""
        if self._left_out is None:
            self._left_out = _left_out_frame(
                self._sums, self._left_out_rows, lambda name: self._numbers(name, False), self._reasons,
                self._rank_groups(False))
        return self._left_out

    @property
    def frame(self) -> pd.DataFrame:
        """The selected sums, every metric (ranks summed with ``combine_ranks``); built on first access."""
        if self._frame is None:
            if self._combined is None:
                rows = np.sort(np.concatenate([self._rows, self._left_out_rows]))
                self._frame = self._sums.frame.iloc[rows].reset_index(drop=True)
            else:
                self._frame = _combined_frame(self._sums, self._combined[0])
        return self._frame

    def member_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the sums each point is made of: (rows, point), one entry per row.

        ``rows`` are rows of the :class:`RegionSums` (its :meth:`~RegionSums.sums`
        and key columns), ``point`` the row of :attr:`points` each belongs to:
        one row per point, or every rank's row of a point summing ranks
        (``group_ranks``).  For per-thread facts of a point (its threads' runtimes
        or clocks), which no sum gives.
        """
        if self._combined is None:
            return self._rows, np.arange(len(self._rows), dtype=np.intp)
        groups, placed = self._combined
        point_of_group = np.where(placed, np.cumsum(placed) - 1, -1)
        point = point_of_group[groups.codes]
        kept = point >= 0
        return groups.rows[kept], point[kept].astype(np.intp)

    def left_out_sums(self, metric: str) -> np.ndarray:
        """One metric's sums (native unit) for the rows of :attr:`left_out`, in their order."""
        values = self._sums.sums(metric)
        if self._combined is None:
            return values[self._left_out_rows]
        groups, mask = self._combined
        return groups.sum(values[groups.rows])[~mask]

    def to_dicts(self) -> list[dict]:
        """The points as scope-profiler 0.7.5 point dicts (plain Python values)."""
        sums, rows = self._sums, self._rows
        runtime = self._numbers("runtime_s", True)
        runtime_list = runtime.tolist()
        if np.isnan(runtime).any():
            runtime_list = [None if v != v else v for v in runtime_list]
        flops_metric, bandwidth_metric = self.flops_metric, self.bandwidth_metric
        columns = zip(sums.plain_labels("file", rows), sums.plain_labels("region", rows),
                      self._numbers("rank", True).tolist(), self._performance.tolist(),
                      self._bandwidth.tolist(), (self._performance / self._bandwidth).tolist(),
                      runtime_list)
        # a dict display per point: the fastest way CPython builds many small dicts
        return [{"file": f, "region": r, "rank": k, schema.PERFORMANCE: p, schema.BANDWIDTH: b,
                 schema.INTENSITY: a, schema.RUNTIME: t,
                 "flops_metric": flops_metric, "bandwidth_metric": bandwidth_metric}
                for f, r, k, p, b, a, t in columns]

    def warn(self, stacklevel: int = 3) -> None:
        """Emit the notes and, if any region was left out, one RegionsLeftOutWarning."""
        for note in self.notes:
            warnings.warn(note, note_warning(note), stacklevel=stacklevel)
        if len(self._left_out_rows):
            warnings.warn(self.left_out_summary(), RegionsLeftOutWarning, stacklevel=stacklevel)

    def left_out_summary(self, limit: int = 5) -> str:
        """One sentence: how many region/rank rows were left out and why."""
        counts = pd.Series(self._reasons).value_counts(sort=True)
        counts = counts[counts > 0]
        reasons = "; ".join(f"{count} x {reason}" for reason, count in counts.head(limit).items())
        if len(counts) > limit:
            reasons += f"; and {len(counts) - limit} other reason(s)"
        return (f"{len(self._left_out_rows)} region/rank row(s) left out of the roofline "
                f"({metric_text('FLOP', self.flops_metric)}, "
                f"{metric_text('bandwidth', self.bandwidth_metric)}): {reasons}. {LEFT_OUT_LIST}")

