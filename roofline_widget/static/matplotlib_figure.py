"""The matplotlib drawing of ``plot_roofline``: roofs, ceilings, points, labels, no-FLOP points.

The axis limits, colours, axis labels and title come from
:mod:`roofline_widget.look` (the widget's rules); the figure is drawn on the
Agg canvas (no GUI).  Memory levels (:mod:`roofline_widget.static.levels`) and
baseline arrows (:mod:`roofline_widget.static.compare`) are drawn on its axes
afterwards.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.ceilings import Roofline
from roofline_widget.look.colors import line_color
from roofline_widget.look.log_axes import visible_part
from roofline_widget.look.no_flop import pinned, split_flop_work
from roofline_widget.look.texts import X_LABEL, Y_LABEL, figure_title
from roofline_widget.static.exports import import_matplotlib
from roofline_widget.static.region_labels import place_region_labels

__all__ = ["NO_FLOP_WHERE", "draw"]

#: Where the matplotlib figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "drawn as hollow triangles at the axis edge"


def _pin_no_flop(axes, no_flop: pd.DataFrame, colour_column: str, colour_map: dict,
                 note: str) -> None:
    """Draw the no-FLOP points at the edge of the axis limits, and the note."""
    if not len(no_flop):
        return
    x_limits, y_limits = axes.get_xlim(), axes.get_ylim()
    x = no_flop[schema.INTENSITY].to_numpy(dtype=float)
    y = no_flop[schema.PERFORMANCE].to_numpy(dtype=float)
    # Pinned left (the usual case: intensity = GFLOP/s / bandwidth is tiny too), else down.
    markers = np.where(x < x_limits[0], "<", np.where(y < y_limits[0], "v", "o"))
    labelled = set()
    for key, marker, px, py in zip(no_flop[colour_column], markers, pinned(x, x_limits),
                                   pinned(y, y_limits)):
        label = None if key in labelled else f"{key} (almost no FLOPs: at the axis edge)"
        labelled.add(key)
        axes.scatter([px], [py], marker=marker, s=60, facecolors="none",
                     edgecolors=[colour_map.get(key, "0.3")], linewidths=1.4, zorder=5,
                     clip_on=False, label=label)
    axes.text(0.0, -0.12, note, transform=axes.transAxes, ha="left", va="top", fontsize=8,
              color="0.2", wrap=True)


def _label_slopes(axes, lines: list[dict]) -> None:
    """Write each bandwidth ceiling's label along its slope, just above it, ending where it leaves.

    Called once the axis limits are final: the angle on screen depends on them.
    A horizontal label at the foot of a rising line is crossed by that line; the
    part of the plot above a slope's upper end holds no point under the roofs.  A
    label longer than the visible slope is cut at the axes.
    """
    for line in lines:
        part = visible_part(line["x"], line["y"], axes.get_xlim(), axes.get_ylim())
        if part is None:
            continue
        (x0, y0), (x1, y1) = axes.transData.transform(part)
        angle = float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))
        axes.annotate(line["label"], part[1], textcoords="offset points", xytext=(-6, 4),
                      rotation=angle, rotation_mode="anchor", ha="right", va="bottom",
                      fontsize=8, color=line_color("bandwidth", line.get("device")), clip_on=True)


def _draw_lines(axes, lines: list[dict]) -> None:
    """The rooflines (solid, in the legend) and every ceiling (dashed, dotted if empirical),
    in their device's colours."""
    for line in lines:
        if line["kind"] == "roof":
            axes.plot(line["x"], line["y"], color=line_color("roof", line.get("device")),
                      linewidth=2.0, label=line["label"],
                      zorder=3)
            continue
        colour = line_color(line["kind"], line.get("device"))
        dashes = ":" if line["empirical"] else "--"
        axes.plot(line["x"], line["y"], color=colour, linewidth=1.0, linestyle=dashes, zorder=2)
        if line["kind"] == "compute":
            axes.annotate(line["label"], (line["x"][-1], line["y"][-1]), textcoords="offset points",
                          xytext=(0, 4), ha="right", fontsize=8, color=colour)


def draw(points: pd.DataFrame, roofline: Roofline, ranges: tuple, colour_column: str,
         colour_map: dict, flops_metric: str | None, bandwidth_metric: str | None,
         note: str = ""):
    """The static roofline figure (a matplotlib ``Figure`` on the Agg canvas).

    Parameters
    ----------
    points : pandas.DataFrame
        The classified points.
    roofline : Roofline
        The ceilings.
    ranges : ((float, float), (float, float))
        The axis limits (:func:`~roofline_widget.look.axis_ranges.axis_ranges`).
    colour_column : str
        ``"region"`` or ``"file"``: what picks a point's colour in ``colour_map``.
    colour_map : dict
        Value -> colour.
    flops_metric, bandwidth_metric : str
        The metrics, named in the x label.
    note : str
        The note naming the points that do almost no FLOPs, under the axes.
    """
    bulk, no_flop = split_flop_work(points)
    _, Figure, FigureCanvasAgg = import_matplotlib()
    figure = Figure(figsize=(10, 6.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    lines = roofline.lines(*ranges[0])
    _draw_lines(axes, lines)
    for key, colour in colour_map.items():
        chosen = bulk[bulk[colour_column] == key]
        if chosen.empty:
            continue  # only points at the axis edge (_pin_no_flop labels them)
        axes.scatter(chosen[schema.INTENSITY], chosen[schema.PERFORMANCE],
                     color=colour, label=str(key), s=36, edgecolor="black", linewidth=0.4, zorder=4)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(*ranges[0])
    axes.set_ylim(*ranges[1])
    _pin_no_flop(axes, no_flop, colour_column, colour_map, note)
    _label_slopes(axes, [line for line in lines if line["kind"] == "bandwidth"])
    axes.set_xlabel(f"{X_LABEL}  ({flops_metric} / {bandwidth_metric})")
    axes.set_ylabel(Y_LABEL)
    axes.set_title(figure_title(roofline.empirical))
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    place_region_labels(axes, points)  # last: everything drawn so far is an obstacle
    return figure
