"""Baseline arrows of ``plot_roofline(..., baseline=before)``: a matplotlib drawing of the comparison.

:func:`comparison_frame` compares the baseline run(s) with the plotted data
by :func:`~roofline_widget.compare_points`, with the plot's own selection (its
metrics, ranks, include/exclude and ``combine_ranks``).
:func:`draw_comparison` draws the frame on a matplotlib ``Axes``: each
baseline point hollow, one marker shape per baseline run (:data:`RUN_MARKERS`,
the widget's shapes), and a dashed arrow from it to the point it became (a
chain: one arrow per step), coloured as the point's region (or run).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.compare import compare_points
from roofline_widget.points import Selection

__all__ = [
    "ARROW_GID",
    "BASELINE_GID",
    "BASELINE_LABEL",
    "CURRENT_LABEL",
    "RUN_MARKERS",
    "comparison_frame",
    "draw_comparison",
    "row_colours",
    "with_baseline",
]

#: ``gid`` of every arrow annotation (to find them: ``[t for t in axes.texts if t.get_gid() == ARROW_GID]``).
ARROW_GID = "roofline-compare-arrow"
#: ``gid`` of the hollow baseline points' collections (one per baseline run).
BASELINE_GID = "roofline-compare-baseline"
#: matplotlib markers of the baseline runs in chain order, cycled: the widget's square,
#: diamond, cross and triangle-down (``widget.compare_layer.RUN_MARKERS``).
RUN_MARKERS = ("s", "D", "P", "v")
#: Labels of the two sides of a pair (a chain keeps its own labels, the plotted data last).
BASELINE_LABEL = "baseline"
CURRENT_LABEL = "current"
_X = schema.INTENSITY
_Y = schema.PERFORMANCE
_FALLBACK_COLOUR = "0.45"


def comparison_frame(baseline, current, *, selection: Selection, match=None) -> pd.DataFrame:
    """The :func:`~roofline_widget.compare_points` rows from ``baseline`` to ``current``.

    Parameters
    ----------
    baseline : run data or mapping
        One run (anything ``compare_points`` accepts), or an ordered mapping
        ``{label: run}``: a chain whose last step ends at ``current``.
    current : run data
        The plotted data (a ``RegionSums`` is used as it is).
    selection : Selection
        The plot's selection, its metrics resolved (used for every run).
    match
        As for :func:`~roofline_widget.compare_points`.

    Returns
    -------
    pandas.DataFrame
        The pair frame (``run_before`` ``"baseline"``, ``run_after``
        ``"current"``) or the chain frame (``step`` first).

    Raises
    ------
    ValueError
        When a baseline run lacks the metrics, or a mapping label is
        ``"current"``.
    """
    if isinstance(baseline, Mapping):
        if CURRENT_LABEL in baseline:
            raise ValueError(f"baseline label {CURRENT_LABEL!r} is reserved for the plotted "
                             "data; rename that run")
        return compare_points({**baseline, CURRENT_LABEL: current}, selection=selection,
                              match=match)
    frame = compare_points(baseline, current, selection=selection, match=match)
    frame["run_before"], frame["run_after"] = BASELINE_LABEL, CURRENT_LABEL
    return frame


def with_baseline(points: pd.DataFrame, frame: pd.DataFrame | None) -> pd.DataFrame:
    """The points' intensity and performance, plus the baseline points of ``frame`` (if any).

    For the plot's ranges: the roofs are drawn across the baseline points too.
    """
    columns = [_X, _Y]
    if frame is None or frame.empty:
        return points[columns]
    before = frame[[_X + "_before", _Y + "_before"]].dropna()
    before.columns = columns
    return pd.concat([points[columns], before], ignore_index=True)


def row_colours(frame: pd.DataFrame, colour_column: str, colour_map: Mapping) -> list:
    """The colour of each row: its region's (``colour_column="region"``) or run's colour.

    The current run's name of a region or run is looked up first, the
    baseline's next; names without a colour get grey.
    """
    colours = []
    for row in frame.itertuples(index=False):
        names = (getattr(row, f"{colour_column}_after"), getattr(row, f"{colour_column}_before"))
        found = next((colour_map[n] for n in names if isinstance(n, str) and n in colour_map),
                     _FALLBACK_COLOUR)
        colours.append(found)
    return colours


def draw_comparison(axes, frame: pd.DataFrame, colours: list) -> dict:
    """Draw the baseline points (hollow) and one dashed arrow per row placed in both runs.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
        Log-log roofline axes.
    frame : pandas.DataFrame
        :func:`comparison_frame` rows.
    colours : list
        One matplotlib colour per row of ``frame`` (:func:`row_colours`).

    Returns
    -------
    dict
        ``arrows`` (the annotations, gid :data:`ARROW_GID`), ``runs`` (one
        hollow PathCollection per baseline run in chain order, gid
        :data:`BASELINE_GID`, marker from :data:`RUN_MARKERS`) and ``baseline``
        (the first of them, or None).
    """
    colours = np.asarray(colours, dtype=object)
    before = frame[_Y + "_before"].notna().to_numpy()
    runs = []
    labels = list(dict.fromkeys(frame.loc[before, "run_before"])) if before.any() else []
    for index, label in enumerate(labels):
        rows = before & (frame["run_before"] == label).to_numpy()
        marker = RUN_MARKERS[index % len(RUN_MARKERS)]
        collection = axes.scatter(
            frame.loc[rows, _X + "_before"], frame.loc[rows, _Y + "_before"], marker=marker,
            facecolors="none", edgecolors=list(colours[rows]), s=40, linewidths=1.4,
            alpha=0.8, zorder=4, label=f"{label} (hollow)")
        collection.set_gid(BASELINE_GID)
        runs.append(collection)
    if before.any():
        _hold_in_view(axes, frame.loc[before, _X + "_before"].to_numpy(dtype=float),
                      frame.loc[before, _Y + "_before"].to_numpy(dtype=float))
    arrows = []
    both = (frame["status"] == "both").to_numpy()
    for row, colour in zip(frame[both].itertuples(index=False), colours[both]):
        start = (getattr(row, _X + "_before"), getattr(row, _Y + "_before"))
        end = (getattr(row, _X + "_after"), getattr(row, _Y + "_after"))
        arrow = axes.annotate("", xy=end, xytext=start, zorder=3, arrowprops={
            "arrowstyle": "-|>", "color": colour, "linestyle": "--", "linewidth": 1.4,
            "shrinkA": 3, "shrinkB": 5, "mutation_scale": 12})
        arrow.set_gid(ARROW_GID)
        arrows.append(arrow)
    return {"arrows": arrows, "runs": runs, "baseline": runs[0] if runs else None}


def _hold_in_view(axes, x: np.ndarray, y: np.ndarray, margin: float = 1.3) -> None:
    """Widen frozen axis limits (set by the no-FLOP pinning) so the baseline points show.

    Autoscaled axes follow the new points by themselves; limits set before
    (``set_xlim``) are widened by ``margin`` around any point outside.
    """
    for values, get, set_, auto in ((x, axes.get_xlim, axes.set_xlim, axes.get_autoscalex_on),
                                    (y, axes.get_ylim, axes.set_ylim, axes.get_autoscaley_on)):
        values = values[np.isfinite(values) & (values > 0)]
        if auto() or not values.size:
            continue
        low, high = get()
        if values.min() < low or values.max() > high:
            set_(min(low, values.min() / margin), max(high, values.max() * margin))
