"""The spread of the ranks in a scene: per region the rank median and min-max whiskers.

With many MPI ranks one point per rank is unreadable.  In the spread view
(:func:`effective_view`) a region is drawn as its rank median (median
intensity, median GFLOP/s, each over the region's ranks) with two whiskers
from the minimum to the maximum over the ranks, one in intensity and one in
GFLOP/s, coloured by :func:`~roofline_widget.rank_spread`'s imbalance (max /
mean runtime) on :data:`~roofline_widget.look.colors.IMBALANCE_COLORS`
(:func:`spread_part` of :func:`region_spread`: the spread is over ranks,
each rank's bandwidth its share of what the selection's points sum, the
grouping in effect).  Regions the user expanded show their ranks as points
instead (:func:`expanded_points`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.spread import rank_spread
from roofline_widget.look.colors import IMBALANCE_COLORS
from roofline_widget.look.markers import MEDIAN_DOT, SQUARE, WHISKER_STROKE
from roofline_widget.points import RegionSums, Selection
from roofline_widget.scene.parts import Dots, Polylines, Shade, SpreadPart
from roofline_widget.settings import RANK_VIEW_CHOICES

__all__ = ["RANK_VIEWS", "effective_view", "expanded_points", "region_spread", "spread_part",
           "whisker_arrays"]

#: Values of the widget's ``rank_view``: one point per rank, the spread per region, or
#: the spread only when the rank points exceed ``max_points``.
RANK_VIEWS = RANK_VIEW_CHOICES
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


def effective_view(rank_view: str, n_points: int, max_points: int, n_ranks: int,
                   combine_ranks: bool) -> str:
    """"points" or "spread": what ``rank_view`` means for this selection.

    ``"auto"`` is "spread" when more points than ``max_points`` are selected
    from more than one rank; summed ranks (``combine_ranks``) are one point
    per region already, so they are always drawn as points.
    """
    if combine_ranks or n_ranks < 2:
        return "points"
    if rank_view == "auto":
        return "spread" if n_points > max_points else "points"
    return rank_view


def region_spread(sums: RegionSums, selection: Selection) -> pd.DataFrame:
    """:func:`~roofline_widget.rank_spread` of the selection's regions, over their ranks.

    The selection's grouping (``group_ranks``, ``combine_ranks``) stays: it
    says whose memory traffic a rank shares where memory is counted on one
    rank per socket (the rows' ``bandwidth_share``); ``ranks`` holds each
    region's ranks (what a click on its square expands).
    """
    return rank_spread(sums, selection=selection)


def _positive_or(values: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """``values`` where positive and finite (drawable on a log axis), else ``fallback``."""
    return np.where(np.isfinite(values) & (values > 0), values, fallback)


def whisker_arrays(spread: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """x and y of the whiskers, shape (2 * regions, 2): per region intensity then GFLOP/s.

    A whisker end that is not positive (a rank with zero FLOPs) starts at the median.
    """
    xm, ym = spread[f"{_X}_median"].to_numpy(float), spread[f"{_Y}_median"].to_numpy(float)
    x0 = _positive_or(spread[f"{_X}_min"].to_numpy(float), xm)
    x1 = _positive_or(spread[f"{_X}_max"].to_numpy(float), xm)
    y0 = _positive_or(spread[f"{_Y}_min"].to_numpy(float), ym)
    y1 = _positive_or(spread[f"{_Y}_max"].to_numpy(float), ym)
    n = len(spread)
    xs, ys = np.empty((2 * n, 2)), np.empty((2 * n, 2))
    xs[0::2], ys[0::2] = np.column_stack([x0, x1]), np.column_stack([ym, ym])
    xs[1::2], ys[1::2] = np.column_stack([xm, xm]), np.column_stack([y0, y1])
    return xs, ys


def spread_part(spread: pd.DataFrame, max_points: int, notes=()) -> SpreadPart:
    """The medians and whiskers of the regions of ``spread`` a log axis can show, within ``max_points``.

    ``notes`` come first in the part's notes; what was left out is added.
    """
    notes = list(notes)
    x, y = spread[f"{_X}_median"], spread[f"{_Y}_median"]
    drawable = spread[np.isfinite(x) & (x > 0) & np.isfinite(y) & (y > 0)].reset_index(drop=True)
    if len(drawable) < len(spread):
        notes.append(f"{len(spread) - len(drawable):,} region(s) without a positive "
                     "median FLOP rate and intensity not drawn")
    if len(drawable) > max_points:
        notes.append(f"drawing the {max_points:,} of {len(drawable):,} regions with the "
                     f"longest rank runtime (max_points={max_points:,})")
        drawable = drawable.sort_values("runtime_seconds_max", ascending=False,
                                        kind="stable").head(max_points).reset_index(drop=True)
    imbalance = drawable["imbalance"].to_numpy(float)
    imbalance = np.where(np.isfinite(imbalance), imbalance, 1.0)
    shade = Shade(IMBALANCE_COLORS, 1.0, max(float(imbalance.max(initial=1.0)), 1.0 + 1e-3))
    xs, ys = whisker_arrays(drawable)
    whiskers = Polylines("roofline-spread-whiskers", xs, ys, values=np.repeat(imbalance, 2),
                         shade=shade, stroke=WHISKER_STROKE)
    medians = Dots("roofline-spread-medians", drawable[f"{_X}_median"].to_numpy(float),
                   drawable[f"{_Y}_median"].to_numpy(float), SQUARE, MEDIAN_DOT,
                   values=imbalance, shade=shade, rows=drawable)
    return SpreadPart(whiskers, medians, drawable, tuple(notes))


def expanded_points(points: pd.DataFrame, expanded, max_points: int,
                    n_medians: int) -> tuple[pd.DataFrame, str]:
    """The rank points of the ``expanded`` regions drawn beside the medians, and a note.

    At most ``max_points`` minus the medians drawn, the longest-running; the
    note says how many were drawn when not all ("" when all are).
    """
    rows = points[points["region"].astype(object).isin(list(expanded))].reset_index(drop=True)
    budget = max(max_points - n_medians, 0)
    if len(rows) <= budget:
        return rows, ""
    note = (f"expanded: drawing {budget:,} of {len(rows):,} rank points "
            f"(max_points={max_points:,} includes the medians)")
    kept = rows.sort_values(schema.RUNTIME, ascending=False, na_position="last", kind="stable")
    return kept.head(budget).reset_index(drop=True), note
