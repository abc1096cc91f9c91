"""Rows grouped by (run, region, device): what ``combine_ranks=True`` sums over.

With likwid-mpirun only one rank per socket counts the uncore (memory)
events, so only the sum over ranks is a job-level point: per group, every
metric is the sum of the ranks' sums (all-NaN stays NaN), runtime and call
count the maxima, ``n_threads`` the sum, and the rank :data:`ALL_RANKS`.
"""

from __future__ import annotations

import numpy as np

from roofline_widget.points.columns import RegionColumns
from roofline_widget.schema import ALL_RANKS

__all__ = ["CombinedRanks"]


class CombinedRanks:
    """Selected rows grouped by (run, region, device): what ``combine_ranks`` sums over.

    Built by :meth:`RegionSums.combined_ranks <roofline_widget.points.RegionSums.combined_ranks>`.

    Parameters
    ----------
    group_of_row : numpy.ndarray
        The group number of every row of the sums (groups numbered
        in order of first appearance, so a combined point keeps its place
        whatever ranks are selected).
    n_groups : int
        How many groups the whole data has.
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

    def __init__(self, group_of_row: np.ndarray, n_groups: int, rows: np.ndarray):
        codes = group_of_row[rows]
        present = np.bincount(codes, minlength=n_groups) > 0
        self.codes = (np.cumsum(present) - 1)[codes]  # renumbered 0 .. n-1, order kept
        self.n = int(present.sum())
        self.rows = rows
        first = np.full(self.n, len(rows), dtype=np.intp)
        np.minimum.at(first, self.codes, np.arange(len(rows), dtype=np.intp))
        self.first_rows = rows[first]
        self._columns: dict[str, np.ndarray] = {}

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

    def column(self, sums: RegionColumns, name: str) -> np.ndarray:
        """A numeric key column of the combined rows: rank -1, runtime and call count
        the max over ranks, n_threads the sum (computed once per name)."""
        column = self._columns.get(name)
        if column is None:
            if name == "rank":
                column = np.full(self.n, ALL_RANKS, dtype=np.int64)
            elif name == "run":  # one run per group
                column = sums.key_numbers(name)[self.first_rows]
            elif name == "n_threads":
                column = np.bincount(self.codes, weights=sums.key_numbers(name)[self.rows],
                                     minlength=self.n).astype(np.int64)
            else:
                column = self.max(sums.key_numbers(name)[self.rows])
            self._columns[name] = column
        return column
