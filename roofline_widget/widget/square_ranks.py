"""A click on a spread square shows the ranks it summarises; the mode buttons bring the spread back.

The spread view (``rank_view="spread"``) draws one square per region at the
median of its ranks.  Where the points are one per rank, a click expands the
region in place (``expanded_regions``: its rank points beside the squares).
Where the points sum ranks (one per host or socket, ``group_ranks``), the
region's points are its hosts, not its ranks: the click then shows the
square's ranks as points, one per rank (``ranks`` = the square's ``ranks``,
``group_ranks="rank"``, ``rank_view="points"``, in one refresh) and keeps
what it changed.  Choosing "spread" or "auto" again (the mode buttons) or
:meth:`SquareRanks.back` puts ``ranks`` and ``group_ranks`` back; changing
them by hand in between keeps the hand's choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from roofline_widget.points import RegionSums
from roofline_widget.points.rank_groups import check_group_ranks

if TYPE_CHECKING:
    from roofline_widget.widget.pipeline import RefreshPipeline
    from roofline_widget.widget.roofline_widget import RooflineWidget
    from roofline_widget.widget.state import UpdateGuard

__all__ = ["RanksBefore", "SquareRanks", "sums_ranks"]


@dataclass(frozen=True)
class RanksBefore:
    """The traits a square's click changed, as they were before it."""

    ranks: list | None
    group_ranks: str
    rank_view: str


def sums_ranks(square: pd.Series, sums: RegionSums, group_ranks: str) -> bool:
    """Whether the points of ``square``'s region sum ranks (hosts, sockets) under ``group_ranks``.

    Parameters
    ----------
    square : pandas.Series
        A row of :func:`~roofline_widget.rank_spread` (``bandwidth_metric``).
    sums : RegionSums
        The widget's data.
    group_ranks : str
        The grouping in effect (``"all"`` where ``combine_ranks``).
    """
    if group_ranks == "rank":
        return False
    metric = square.get("bandwidth_metric")
    grouping = sums.rank_grouping(group_ranks, (metric if isinstance(metric, str) else None,))
    return grouping is not None and bool(grouping.grouped.any())


class SquareRanks:
    """What a click on a spread square does (see the module), and the way back.

    Parameters
    ----------
    widget : RooflineWidget
    guard : UpdateGuard
        The widget's guard: the traits change without a refresh each.
    pipeline : RefreshPipeline
        The widget's refresh pipeline: one refresh after the traits are set.

    Attributes
    ----------
    before : RanksBefore or None
        What the last click changed, while its ranks are shown (None otherwise).
    """

    def __init__(self, widget: RooflineWidget, *, guard: UpdateGuard,
                 pipeline: RefreshPipeline) -> None:
        self.widget = widget
        self.before: RanksBefore | None = None
        self._guard, self._pipeline = guard, pipeline
        self._applying = False
        widget.observe(self._on_view, names="rank_view")
        widget.observe(self._on_choice, names=["ranks", "group_ranks"])

    def click(self, square: pd.Series) -> None:
        """A click on ``square`` (a row of the drawn spread): its ranks shown, or its region
        expanded where its points are its ranks already."""
        widget = self.widget
        grouping = check_group_ranks(widget.group_ranks, widget.combine_ranks)
        if not sums_ranks(square, widget.sums, grouping):
            self.toggle_region(str(square["region"]))
            return
        before = RanksBefore(None if widget.ranks is None else list(widget.ranks),
                             str(widget.group_ranks), str(widget.rank_view))
        self._set({"ranks": sorted(int(rank) for rank in square["ranks"]),
                   "group_ranks": "rank", "rank_view": "points"})
        self.before = before

    def toggle_region(self, region: str) -> None:
        """Show or hide the rank points of ``region`` beside the spread's squares."""
        expanded = [r for r in self.widget.expanded_regions if r != region]
        self.widget.expanded_regions = expanded + (
            [] if region in self.widget.expanded_regions else [region])

    def back(self) -> None:
        """The ranks, grouping and view as before the last click (nothing if none is shown)."""
        before, self.before = self.before, None
        if before is not None:
            self._set({"ranks": before.ranks, "group_ranks": before.group_ranks,
                       "rank_view": before.rank_view})

    def _set(self, values: dict) -> None:
        """Set the widget's traits ``values`` ({name: value}) at once, then refresh once."""
        self._applying = True
        try:
            with self._guard.hold(), self.widget.hold_trait_notifications():
                for name, value in values.items():
                    setattr(self.widget, name, value)
        finally:
            self._applying = False
        self._pipeline.refresh_points()

    def _on_view(self, change) -> None:
        """The spread chosen again (a mode button): the ranks and grouping of before the click."""
        if self._applying or self.before is None or change.new == "points":
            return
        before, self.before = self.before, None
        self._set({"ranks": before.ranks, "group_ranks": before.group_ranks})

    def _on_choice(self, change) -> None:
        """Ranks or grouping changed by hand: that choice stays (no way back to overwrite it)."""
        if not self._applying:
            self.before = None
