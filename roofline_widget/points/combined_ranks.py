"""Rows grouped by (run, region, device) and place: the one sum over ranks.

With likwid-mpirun only one rank per socket counts the uncore (memory)
events, so a point pairs FLOP/s and bytes only when it sums the ranks of a
socket (or host, or job; :mod:`roofline_widget.points.rank_groups` says which
ranks form a group): per group, every metric is the sum of the ranks' sums
(all-NaN stays NaN), runtime and call count the maxima, ``n_threads`` the
sum.  The rank that keys the point (with run and region) is
:data:`ALL_RANKS` for a sum of every rank of the run (and with
``group_ranks="all"``), the lowest rank summed for a sum of part of them (one
socket, one host), a rank's own number for a group of one: so the keys of a
run's points are unique, and the same for two runs of one job.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget.points.columns import RegionColumns
from roofline_widget.points.rank_groups import RankGrouping, format_ranks
from roofline_widget.schema import ALL_RANKS

__all__ = ["CombinedRanks"]


class CombinedRanks:
    """Selected rows grouped by (run, region, device) and place: what a point sums over.

    Built by :meth:`RegionSums.combined_ranks <roofline_widget.points.RegionSums.combined_ranks>`
    (``group_ranks="all"``) and :meth:`RegionSums.select` (any grouping).

    Parameters
    ----------
    grouping : RankGrouping
        The group of every row of the sums (groups numbered in order of
        first appearance, so a point keeps its place whatever ranks are
        selected), and which groups sum ranks.
    rows : numpy.ndarray
        The selected rows (ascending).

    Attributes
    ----------
    n : int
        Number of groups among the selected rows.
    rows : numpy.ndarray
        The selected rows.
    codes : numpy.ndarray
        Per selected row, its group (0 .. n-1, in order of first appearance).
    first_rows : numpy.ndarray
        Per group, its first selected row: it gives the labels (run, region,
        device, groups) of the combined row.
    """

    def __init__(self, grouping: RankGrouping, rows: np.ndarray):
        self.grouping = grouping
        codes = grouping.group_of_row[rows]
        present = np.bincount(codes, minlength=grouping.n_groups) > 0
        self.codes = (np.cumsum(present) - 1)[codes]  # renumbered 0 .. n-1, order kept
        self.n = int(present.sum())
        self.rows = rows
        first = np.full(self.n, len(rows), dtype=np.intp)
        np.minimum.at(first, self.codes, np.arange(len(rows), dtype=np.intp))
        self.first_rows = rows[first]
        self._counts = np.bincount(self.codes, minlength=self.n)
        # a sum over ranks: one selected rank of a socket or host keeps its number
        self._grouped = grouping.grouped[grouping.group_of_row[self.first_rows]] & (
            grouping.whole_job | (self._counts > 1))
        self._columns: dict[str, np.ndarray] = {}
        self._labels: pd.Categorical | None = None

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per group the sum of ``values`` (one per selected row); all-NaN stays NaN."""
        measured = ~np.isnan(values)
        total = np.bincount(self.codes, weights=np.where(measured, values, 0.0),
                            minlength=self.n).astype(float)  # int64 when empty
        count = np.bincount(self.codes[measured], minlength=self.n)
        total[count == 0] = np.nan
        return total

    def max(self, values: np.ndarray) -> np.ndarray:
        """Per group the largest of ``values``, ignoring NaN (all-NaN stays NaN)."""
        out = np.full(self.n, np.nan)
        np.fmax.at(out, self.codes, values)
        return out

    def _rank_bounds(self, sums: RegionColumns) -> tuple[np.ndarray, np.ndarray]:
        """Per group the lowest and the highest rank it sums."""
        ranks = sums.key_numbers("rank")[self.rows]
        low = np.full(self.n, np.iinfo(np.int64).max)
        np.minimum.at(low, self.codes, ranks)
        high = np.full(self.n, np.iinfo(np.int64).min)
        np.maximum.at(high, self.codes, ranks)
        return low, high

    def whole_run(self) -> np.ndarray:
        """Per group whether it is keyed "all ranks" (-1): it sums every rank of its run
        (one row per rank), or ``group_ranks="all"``."""
        run_ranks = self.grouping.run_ranks[self.grouping.group_of_row[self.first_rows]]
        return self._grouped & (self.grouping.whole_job | (self._counts == run_ranks))

    def column(self, sums: RegionColumns, name: str) -> np.ndarray:
        """A numeric key column of the combined rows: the rank (-1 for a whole run, else
        the lowest rank summed), runtime and call count the max over ranks, n_threads
        the sum (computed once per name)."""
        column = self._columns.get(name)
        if column is None:
            if name == "rank":
                column = np.where(self.whole_run(), ALL_RANKS,
                                  self._rank_bounds(sums)[0]).astype(np.int64)
            elif name == "run":  # one run per group
                column = sums.key_numbers(name)[self.first_rows]
            elif name == "n_threads":
                column = np.bincount(self.codes, weights=sums.key_numbers(name)[self.rows],
                                     minlength=self.n).astype(np.int64)
            else:
                column = self.max(sums.key_numbers(name)[self.rows])
            self._columns[name] = column
        return column

    def labels(self, sums: RegionColumns) -> pd.Categorical:
        """Per group what it sums: ``"f0472 socket 0 (ranks 0-23)"``, ``"rank 3"`` (kept)."""
        if self._labels is None:
            ranks = sums.key_numbers("rank")[self.rows]
            low, high = self._rank_bounds(sums)
            count = self._counts
            places = self.grouping.places[self.grouping.group_of_row[self.first_rows]]
            texts = []
            for group, (place, a, b, n) in enumerate(zip(places.tolist(), low.tolist(),
                                                         high.tolist(), count.tolist())):
                if b - a + 1 == n:  # a range of ranks (the usual case): no list needed
                    ranks_text = f"rank {a}" if n == 1 else f"ranks {a}-{b}"
                else:
                    ranks_text = format_ranks(ranks[self.codes == group])
                texts.append(f"{place} ({ranks_text})" if self._grouped[group] else ranks_text)
            self._labels = pd.Categorical(texts)
        return self._labels
