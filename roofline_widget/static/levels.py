"""Memory levels in the static plot: ``plot_roofline(..., levels=[...])``.

:func:`level_points` checks the ``levels`` argument and selects the rows of
:func:`~roofline_widget.analysis.levels.select_levels` for those levels (warning about
what was left out); :func:`draw_levels` draws them on a matplotlib Axes: one
marker per level (``look.markers.LEVEL_MARKERS``, the widget's shapes), the dots of one region/rank joined by a
thin line in the region's colour, and the levels in the legend.
:func:`level_findings` runs :func:`~roofline_widget.sanity_check` on the same
selection against the plot's measured (not empirical) roofs; ``draw_levels``
rings every dot with a finding (gid :data:`FINDING_GID`).
"""

from __future__ import annotations

import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.levels import LEVELS, select_levels
from roofline_widget.analysis.sanity import checkable_roofs, flagged_points, sanity_check
from roofline_widget.errors import SettingError
from roofline_widget.look.colors import FINDING_COLOR, OTHER_COLOR
from roofline_widget.look.markers import CIRCLE, LEVEL_MARKERS
from roofline_widget.points import Selection
from roofline_widget.settings import check
from roofline_widget.settings.rules import levels_in_data
from roofline_widget.static.matplotlib_figure import draw_legend

__all__ = ["FINDING_GID", "LEVEL_GID", "draw_levels", "level_findings", "level_points"]

#: ``gid`` of a level's scatter collection, formatted with the level.
LEVEL_GID = "roofline-level-{}"
#: ``gid`` of the rings over the level dots with a sanity finding.
FINDING_GID = "roofline-level-findings"
_KEY = ["file", "rank", "region"]
_X = schema.INTENSITY
_Y = schema.PERFORMANCE


def level_points(sums, levels, *, backend: str, selection: Selection) -> pd.DataFrame | None:
    """The hierarchical points of ``levels`` (None when ``levels`` is empty or None).

    Parameters
    ----------
    sums : RegionSums
        The data of the plot.
    levels : sequence of str or None
        Levels to draw (``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``), each measured in the data.
    backend : str
        The plot's backend; only ``"matplotlib"`` draws levels.
    selection : Selection
        The plot's selection (its bandwidth metric is not used: each level has its own).

    Raises
    ------
    SettingError
        (a ``ValueError``) For a level that is none of L1, L2, L3, MEM, or one
        not measured in the data.
    ValueError
        For the bqplot backend, or levels without any placed point.
    """
    if not levels:
        return None
    levels = check("levels", levels)
    if backend != "matplotlib":
        raise ValueError(f"levels= is drawn by the matplotlib backend only, not {backend!r}; "
                         "use backend='matplotlib' or RooflineWidget(data, levels=...)")
    chosen = select_levels(sums, selection=selection)
    problem = levels_in_data(levels, [level for level in LEVELS if level in chosen.levels])
    if problem:
        raise SettingError(problem)
    chosen.left_out = chosen.left_out[chosen.left_out["level"].astype(str).isin(levels)]
    chosen.warn(stacklevel=4)
    frame = chosen.points[chosen.points["level"].astype(str).isin(levels)]
    if frame.empty:
        raise ValueError(f"no point of the levels {list(levels)} could be placed; see "
                         "hierarchical_left_out() for the reasons")
    return frame.reset_index(drop=True)


def level_findings(sums, frame: pd.DataFrame | None, roofline, *,
                   selection: Selection) -> pd.DataFrame | None:
    """:func:`~roofline_widget.sanity_check` of the drawn levels (None without levels).

    Parameters
    ----------
    sums : RegionSums
        The data of the plot.
    frame : pandas.DataFrame or None
        The rows of :func:`level_points`.
    roofline : Roofline
        The plot's ceilings; only the measured ones are checked against
        (:func:`~roofline_widget.analysis.sanity.checkable_roofs`).
    selection : Selection
        The plot's selection.

    Returns
    -------
    pandas.DataFrame or None
        The findings of the levels in ``frame`` and of whole regions (no level).
    """
    if frame is None:
        return None
    findings = sanity_check(sums, ceilings=checkable_roofs(roofline), selection=selection)
    drawn = set(frame["level"].astype(str))
    keep = findings["level"].isna() | findings["level"].astype(str).isin(drawn)
    return findings[keep.to_numpy()].reset_index(drop=True)


def _colours(frame: pd.DataFrame, colour_column: str, colour_map: dict) -> list:
    return [colour_map.get(key, OTHER_COLOR) for key in frame[colour_column].astype(object)]


def draw_levels(axes, frame: pd.DataFrame, colour_column: str = "region",
                colour_map: dict | None = None, findings: pd.DataFrame | None = None) -> dict:
    """Draw the level dots of ``frame`` (rows of :func:`level_points`) on ``axes``.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
    frame : pandas.DataFrame
        Hierarchical points; the rows of one (file, rank, region) consecutive.
    colour_column : str
        The column whose value picks a row's colour in ``colour_map``.
    colour_map : dict, optional
        Value -> colour; rows with another value are grey.
    findings : pandas.DataFrame, optional
        Rows of :func:`~roofline_widget.sanity_check`: every dot they mark
        (:func:`~roofline_widget.analysis.sanity.flagged_points`) gets a hollow ring.

    Returns
    -------
    dict
        Level -> its ``PathCollection`` (``gid`` :data:`LEVEL_GID`), and
        :data:`FINDING_GID` -> the rings when a dot has a finding.  The one
        legend is drawn again with an entry per level (and one for the rings).
    """
    from matplotlib.lines import Line2D

    colour_map = colour_map or {}
    for _key, group in frame.groupby(_KEY, sort=False, observed=True):
        if len(group) > 1:
            axes.plot(group[_X], group[_Y], color=_colours(group.iloc[:1], colour_column,
                                                           colour_map)[0],
                      linewidth=0.8, alpha=0.7, zorder=4)
    drawn = {}
    level_of = frame["level"].astype(str)
    for level in [lv for lv in LEVELS if (level_of == lv).any()]:
        rows = frame[level_of == level]
        collection = axes.scatter(rows[_X], rows[_Y], marker=LEVEL_MARKERS[level].matplotlib, s=30,
                                  c=_colours(rows, colour_column, colour_map),
                                  edgecolor="black", linewidth=0.4, zorder=5,
                                  label=f"_{level}")
        collection.set_gid(LEVEL_GID.format(level))
        drawn[level] = collection
    metrics = frame.groupby(level_of, sort=False)["bandwidth_metric"].first()
    proxies = [Line2D([], [], marker=LEVEL_MARKERS[level].matplotlib, linestyle="none", color="0.35",
                      markeredgecolor="black", label=f"{level}: {metrics[level]}")
               for level in drawn]
    flagged = flagged_points(frame, findings) if findings is not None else frame.iloc[:0]
    if len(flagged):
        rings = axes.scatter(flagged[_X], flagged[_Y], marker=CIRCLE.matplotlib, s=150,
                             facecolors="none", edgecolors=FINDING_COLOR, linewidths=1.6, zorder=6,
                             label="_findings")
        rings.set_gid(FINDING_GID)
        drawn[FINDING_GID] = rings
        proxies.append(Line2D([], [], marker=CIRCLE.matplotlib, linestyle="none", markersize=9,
                              markerfacecolor="none", markeredgecolor=FINDING_COLOR,
                              label=f"sanity finding ({len(flagged)})"))
    draw_legend(axes, proxies)
    return drawn
