"""The widget's guidance: the limiting factor and advice of its points, the facts kept per selection.

:class:`WidgetGuidance` gathers the facts of the current selection's points
once (:func:`~roofline_widget.analysis.guidance_facts.point_facts`: uop
rates, clocks, thread runtimes) and runs the rules
(:func:`~roofline_widget.analysis.guidance.advise`) whenever a table or a
tooltip asks, against the widget's current roofs: a peak drag changes the
advice on the roofs, not the facts.
"""

from __future__ import annotations

import pandas as pd

from roofline_widget.analysis.guidance import ADDED_COLUMNS, advise
from roofline_widget.analysis.guidance_facts import FACT_COLUMNS, point_facts
from roofline_widget.points import RegionSums
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.widget.point_keys import key_index
from roofline_widget.widget.state import PointState

__all__ = ["TOOLTIP_ADVICE_CHARS", "WidgetGuidance"]

#: The tooltip's guidance line is cut to this many characters (the panel has it all).
TOOLTIP_ADVICE_CHARS = 160


class WidgetGuidance:
    """Guidance of the widget's points: facts kept per selection, rules run on request.

    Parameters
    ----------
    sums : RegionSums
        The sums the widget selects its points from.
    """

    def __init__(self, sums: RegionSums) -> None:
        self._sums = sums
        self._kept: tuple[pd.DataFrame | None, pd.DataFrame | None] = (None, None)

    def facts(self, state: PointState) -> pd.DataFrame | None:
        """The facts of ``state``'s points, indexed by their (file, rank, region) keys (kept while
        the selection stays); None for an invalid selection."""
        if self._kept[0] is state.points:
            return self._kept[1]
        found = None
        if state.selection is not None:
            found = point_facts(self._sums, self._sums.select(state.selection))
            found.index = key_index(state.points)
            found = found[~found.index.duplicated()]
        self._kept = (state.points, found)
        return found

    def _advised(self, judged: pd.DataFrame, state: PointState,
                 roofline: Roofline | None) -> pd.DataFrame | None:
        """:func:`advise` of ``judged`` (rows of ``state``'s points), None without facts."""
        facts = self.facts(state)
        if facts is None or not len(judged):
            return None
        aligned = facts.reindex(key_index(judged)).reset_index(drop=True)
        aligned.index = judged.index
        return advise(judged, aligned[list(FACT_COLUMNS)], roofline)

    def add_columns(self, judged: pd.DataFrame, state: PointState,
                    roofline: Roofline | None) -> pd.DataFrame:
        """``judged`` (classified points of ``state``, or their level rows) with the guidance
        columns ``limiting_factor``, ``guidance`` and ``guidance_metrics``."""
        out = judged.copy()
        found = self._advised(judged, state, roofline)
        for name in ADDED_COLUMNS:
            empty = () if name == "guidance_metrics" else ""
            out[name] = (found[name] if found is not None
                         else pd.Series([empty] * len(out), index=out.index, dtype=object))
        return out

    def line(self, row: pd.Series, state: PointState | None, roofline: Roofline | None) -> str:
        """The tooltip's guidance line of one classified point: its limiting factor and the
        advice naming it, cut to :data:`TOOLTIP_ADVICE_CHARS` ("" when no rule names one)."""
        found = None if state is None else self._advised(row.to_frame().T.infer_objects(), state,
                                                          roofline)
        if found is None or not found["limiting_factor"].iloc[0]:
            return ""
        factor, advice = found["limiting_factor"].iloc[0], found["advice"].iloc[0]
        text = advice[0] if advice else factor
        if not text.startswith(factor):  # "counter broken: no advice" names its factor itself
            text = f"{factor}: {text}"
        return text if len(text) <= TOOLTIP_ADVICE_CHARS else text[:TOOLTIP_ADVICE_CHARS - 1] + "…"
