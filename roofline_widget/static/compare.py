"""Baseline arrows of ``plot_roofline(..., baseline=before)``: a matplotlib drawing of the comparison.

:func:`comparison_frame` compares the baseline run(s) with the plotted data
by :func:`~roofline_widget.compare_points`, with the plot's own selection (its
metrics, ranks, include/exclude and ``combine_ranks``).
:func:`draw_comparison` draws the frame on a matplotlib ``Axes``: each
baseline point hollow, one marker shape per baseline run
(``look.markers.RUN_MARKERS``, the widget's shapes), and a dashed arrow from it to the point it became (a
chain: one arrow per step), coloured as the point's region (or run).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.compare import compare_points
from roofline_widget.analysis.compare_summary import baseline_beyond_hardware
from roofline_widget.look.colors import OTHER_COLOR
from roofline_widget.look.markers import run_marker
from roofline_widget.look.texts import BASELINE_RUN_LABEL, CURRENT_RUN_LABEL
from roofline_widget.points import Selection

__all__ = [
    "ARROW_GID",
    "BASELINE_GID",
    "comparison_frame",
    "draw_comparison",
    "row_colours",
    "with_baseline",
]

#: ``gid`` of every arrow annotation (to find them: ``[t for t in axes.texts if t.get_gid() == ARROW_GID]``).
ARROW_GID = "roofline-compare-arrow"
#: ``gid`` of the hollow baseline points' collections (one per baseline run).
BASELINE_GID = "roofline-compare-baseline"
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


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
        if CURRENT_RUN_LABEL in baseline:
            raise ValueError(f"baseline label {CURRENT_RUN_LABEL!r} is reserved for the plotted "
                             "data; rename that run")
        return compare_points({**baseline, CURRENT_RUN_LABEL: current}, selection=selection,
                              match=match)
    frame = compare_points(baseline, current, selection=selection, match=match)
    frame["run_before"], frame["run_after"] = BASELINE_RUN_LABEL, CURRENT_RUN_LABEL
    return frame


def with_baseline(points: pd.DataFrame, frame: pd.DataFrame | None) -> pd.DataFrame:
    """The points' intensity and performance, plus the baseline points of ``frame`` (if any).

    For the plot's ranges: the roofs are drawn across the baseline points too,
    but not across those beyond what their hardware can do (a broken counter,
    :func:`~roofline_widget.analysis.compare_summary.baseline_beyond_hardware`).
    """
    columns = [_X, _Y]
    if frame is None or frame.empty:
        return points[columns]
    frame = frame[~baseline_beyond_hardware(frame)]
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
                     OTHER_COLOR)
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
        :data:`BASELINE_GID`, marker ``look.markers.run_marker``) and ``baseline``
        (the first of them, or None).
    """
    colour_of = np.asarray(colours, dtype=object)
    before = frame[_Y + "_before"].notna().to_numpy()
    runs = []
    labels = list(dict.fromkeys(frame.loc[before, "run_before"])) if before.any() else []
    for index, label in enumerate(labels):
        rows = before & (frame["run_before"] == label).to_numpy()
        marker = run_marker(index).matplotlib
        collection = axes.scatter(
            frame.loc[rows, _X + "_before"], frame.loc[rows, _Y + "_before"], marker=marker,
            facecolors="none", edgecolors=list(colour_of[rows]), s=40, linewidths=1.4,
            alpha=0.8, zorder=4, label=f"{label} (hollow)")
        collection.set_gid(BASELINE_GID)
        runs.append(collection)
    arrows = []
    both = (frame["status"] == "both").to_numpy()
    for row, colour in zip(frame[both].itertuples(index=False), colour_of[both]):
        start = (getattr(row, _X + "_before"), getattr(row, _Y + "_before"))
        end = (getattr(row, _X + "_after"), getattr(row, _Y + "_after"))
        arrow = axes.annotate("", xy=end, xytext=start, zorder=3, arrowprops={
            "arrowstyle": "-|>", "color": colour, "linestyle": "--", "linewidth": 1.4,
            "shrinkA": 3, "shrinkB": 5, "mutation_scale": 12})
        arrow.set_gid(ARROW_GID)
        arrow.arrow_patch.set_clip_box(axes.bbox)  # from a point outside the axes: cut at them
        arrow.arrow_patch.set_clip_on(True)
        arrows.append(arrow)
    return {"arrows": arrows, "runs": runs, "baseline": runs[0] if runs else None}
