"""The widget's state objects: one selection of points (:class:`PointState`), the update guard.

:func:`select_points` builds a :class:`PointState` from the trait values (the
points to export, the points to draw within the budget, what was left out);
nothing here touches a widget.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import SelectionError
from roofline_widget.look.no_flop import split_flop_work
from roofline_widget.points import RegionSums, Selection
from roofline_widget.roofs.hardware_bounds import keep_flags
from roofline_widget.widget.point_keys import key_index

__all__ = ["PointState", "UpdateGuard", "apply_budget", "select_points"]


@dataclass
class PointState:
    """One selection of points: computed first, then assigned.

    Attributes
    ----------
    points : pandas.DataFrame
        Every selected point (what the exports hold).
    shown : pandas.DataFrame
        The points drawn (at most ``max_points``).
    left_out : pandas.DataFrame
        Regions that could not be placed, with the reason.
    flops_metric, bandwidth_metric : str or None
        The metrics used.
    notes : list of str
        Remarks of the selection (shown as the message).
    error : str
        An invalid pattern's error ("" when the selection is valid).
    selection : Selection or None
        The selection that gave these points, its metrics resolved (None
        while the selection is invalid); layers select with it too.
    rank_grouping : tuple of str
        Per run whose ranks were summed by socket or host, what and why
        (:attr:`SelectedPoints.rank_grouping`; the status line shows it).
    """

    points: pd.DataFrame
    shown: pd.DataFrame
    left_out: pd.DataFrame
    flops_metric: str | None
    bandwidth_metric: str | None
    notes: list = field(default_factory=list)
    error: str = ""
    selection: Selection | None = None
    rank_grouping: tuple = ()

    def __post_init__(self) -> None:
        keep_flags(self.points)  # a selection's points are never changed in place

    @cached_property
    def flop_split(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``points`` split into the bulk and those doing almost no FLOPs, computed once.

        :func:`~roofline_widget.look.no_flop.split_flop_work` of ``points``; the axis
        ranges and the status note of every peak change reuse it.
        """
        bulk, no_flop = split_flop_work(self.points)
        return keep_flags(bulk, within=self.points), no_flop  # its flags: the points'

    @cached_property
    def keys(self) -> pd.MultiIndex:
        """The (file, rank, region) keys of ``points``, built once (a brush checks 10,000 keys)."""
        return key_index(self.points)

    @cached_property
    def shown_keys(self) -> pd.MultiIndex:
        """The keys of ``shown``, built once."""
        return key_index(self.shown)

    @property
    def over_budget(self) -> bool:
        """True when fewer points are drawn than selected."""
        return len(self.shown) < len(self.points)


class UpdateGuard:
    """The widget's one re-entrancy guard.

    While :meth:`hold` is active (construction, a refresh, a revert, the
    kernel writing to a control or a mark), observers of controls, marks and
    traits do not start another refresh or write traits back.
    """

    def __init__(self) -> None:
        self._depth = 0

    @property
    def active(self) -> bool:
        """True inside :meth:`hold`."""
        return self._depth > 0

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Mark an update as running (re-entrant)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1


def apply_budget(points: pd.DataFrame, max_points: int) -> pd.DataFrame:
    """The points to draw: all, or the ``max_points`` longest-running ones."""
    if len(points) <= max_points:
        return points
    order = points.sort_values(schema.RUNTIME, ascending=False, na_position="last",
                               kind="stable")
    return order.head(max_points).reset_index(drop=True)


def select_points(sums: RegionSums, *, flops_metric: str | None, bandwidth_metric: str | None,
                  ranks: list | None, include: str, exclude: str, combine_ranks: bool,
                  max_points: int, group_ranks: str = "auto") -> PointState:
    """Select the points for the given trait values from the sums.

    An invalid include/exclude pattern (or one that takes too long on the
    region names) gives an empty state with ``error`` set instead of raising.
    """
    try:
        request = Selection(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                            ranks=ranks, include=include or None, exclude=exclude or None,
                            group_ranks=group_ranks, combine_ranks=combine_ranks)
        selected = sums.select(request)
    except SelectionError as exc:
        empty = sums.select(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                            ranks=[])
        return PointState(empty.points, empty.points, empty.left_out, flops_metric,
                          bandwidth_metric, error=str(exc))
    points = selected.points.reset_index(drop=True)
    return PointState(points, apply_budget(points, max_points), selected.left_out,
                      selected.flops_metric, selected.bandwidth_metric,
                      list(selected.notes), selection=selected.selection,
                      rank_grouping=selected.rank_grouping)
