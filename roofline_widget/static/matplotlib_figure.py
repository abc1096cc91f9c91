"""The matplotlib drawing of ``plot_roofline``: roofs, ceilings, points, labels, no-FLOP points.

The axis limits, colours, axis labels, tick texts and title come from
:mod:`roofline_widget.look` (the widget's rules); the figure is drawn on the
Agg canvas (no GUI).  Each ceiling is named and valued on its line
(:mod:`roofline_widget.static.ceiling_labels`); the one legend, right of the
axes, holds the roofline and the points.  Memory levels
(:mod:`roofline_widget.static.levels`) and baseline arrows
(:mod:`roofline_widget.static.compare`) are drawn on its axes afterwards (their
points are passed in, so that no label covers them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.escaping import matplotlib_text
from roofline_widget.look.ceiling_lines import CeilingLine, ceiling_lines
from roofline_widget.look.colors import line_color
from roofline_widget.look.log_axes import log_ticks, tick_text
from roofline_widget.look.no_flop import pinned, split_flop_work
from roofline_widget.look.texts import X_LABEL, Y_LABEL, figure_title
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.static.ceiling_labels import label_ceilings
from roofline_widget.static.exports import import_matplotlib
from roofline_widget.static.region_labels import place_region_labels

__all__ = ["CEILING_GID", "NOTES_GID", "NO_FLOP_WHERE", "draw", "draw_legend", "plain_log_ticks"]

#: The matplotlib gid (SVG id) of a ceiling's line: ``f"{CEILING_GID}-{n}"`` for the n-th row
#: of the ceilings table (``look.ceiling_lines.ceiling_rows``, ``payload["ceiling_table"]``).
CEILING_GID = "roofline-ceiling"

#: The matplotlib gid (SVG id) of the notes under the axes.
NOTES_GID = "roofline-notes"

#: Where the matplotlib figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "drawn as hollow triangles at the axis edge"


def _pin_no_flop(axes, no_flop: pd.DataFrame, colour_column: str, colour_map: dict) -> None:
    """Draw the no-FLOP points at the edge of the axis limits."""
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


def _draw_notes(axes, notes: list[str]) -> None:
    """The notes under the axes, in one text, one line each (none: nothing drawn)."""
    text = "\n".join(filter(None, notes))
    if text:
        axes.text(0.0, -0.12, matplotlib_text(text), transform=axes.transAxes, ha="left",
                  va="top", fontsize=8, color="0.2", wrap=True, gid=NOTES_GID)


def _draw_lines(axes, roofline: Roofline, ceilings: list[CeilingLine],
                segments: list[dict]) -> None:
    """The rooflines (solid, in the legend) and every ceiling (dashed, dotted if empirical),
    in their device's colours."""
    table_order = [id(roof) for roof in (*roofline.compute, *roofline.bandwidth)]
    for line in ceilings:
        segment = line.segment
        number = table_order.index(id(line.roof))
        axes.plot(segment["x"], segment["y"], color=line_color(line.kind, line.roof.device),
                  linewidth=1.0, linestyle=":" if line.roof.empirical else "--", zorder=2,
                  gid=f"{CEILING_GID}-{number}")
    for segment in segments:  # a theoretical compute roof: dashed
        if segment["kind"] == "roof":
            axes.plot(segment["x"], segment["y"], color=line_color("roof", segment["device"]),
                      linewidth=2.0, label=segment["label"], zorder=3,
                      linestyle="--" if segment.get("theoretical") else "-")


def draw_legend(axes, extra_handles=()) -> None:
    """The figure's one legend, right of the axes (it covers nothing; files are saved tight).

    It holds every labelled artist of ``axes`` (the roofline, the points, the
    baseline runs) and ``extra_handles`` (the memory levels' markers); drawing
    it again replaces it.  The labels are drawn as written (no mathtext).
    """
    handles, labels = axes.get_legend_handles_labels()
    labels += [handle.get_label() for handle in extra_handles]
    axes.legend([*handles, *extra_handles], [matplotlib_text(label) for label in labels],
                fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def plain_log_ticks(axes) -> None:
    """Ticks of both log axes where the widget's are, read as plain numbers (0.1, 1, 10).

    The labelled ticks are :func:`~roofline_widget.look.log_axes.log_ticks` of
    the limits, their text :func:`~roofline_widget.look.log_axes.tick_text` (d3's
    ``"~g"``, as the widget's axes); the other decades and steps get unlabelled ticks.
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    for axis, limits in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
        axis.set_major_locator(FixedLocator(log_ticks(*limits).tolist()))
        axis.set_major_formatter(FuncFormatter(lambda value, _position: tick_text(value)))
        axis.set_minor_locator(LogLocator(subs=tuple(range(1, 10)), numticks=100))
        axis.set_minor_formatter(NullFormatter())


def draw(points: pd.DataFrame, roofline: Roofline, ranges: tuple, colour_column: str,
         colour_map: dict, flops_metric: str | None, bandwidth_metric: str | None,
         note: str = "", more_points=((), ()), hardware_note: str = ""):
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
    more_points : (array-like, array-like)
        Intensities and GFLOP/s of what is drawn later (memory-level dots,
        baseline points): no ceiling label covers them either.
    hardware_note : str
        The note on points beyond any hardware
        (:func:`~roofline_widget.look.beyond_hardware.beyond_hardware_text`),
        under the axes above the no-FLOP note.
    """
    bulk, no_flop = split_flop_work(points)
    _, Figure, FigureCanvasAgg = import_matplotlib()
    figure = Figure(figsize=(10, 6.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    ceilings, segments = ceiling_lines(roofline, ranges[0])
    _draw_lines(axes, roofline, ceilings, segments)
    broken = beyond_hardware(bulk)  # a thread beyond its core: drawn hollow
    for key, colour in colour_map.items():
        mine = (bulk[colour_column] == key).to_numpy(dtype=bool)
        chosen, hollow = bulk[mine & ~broken], bulk[mine & broken]
        if len(chosen):  # none: only points at the axis edge (_pin_no_flop labels them)
            axes.scatter(chosen[schema.INTENSITY], chosen[schema.PERFORMANCE], color=colour,
                         label=str(key), s=36, edgecolor="black", linewidth=0.4, zorder=4)
        if len(hollow):
            axes.scatter(hollow[schema.INTENSITY], hollow[schema.PERFORMANCE], s=36,
                         facecolors="none", edgecolors=[colour], linewidths=1.4, zorder=4,
                         label=f"{key} (beyond the hardware)")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(*ranges[0])
    axes.set_ylim(*ranges[1])
    plain_log_ticks(axes)
    _pin_no_flop(axes, no_flop, colour_column, colour_map)
    _draw_notes(axes, [hardware_note, note if len(no_flop) else ""])
    drawn = (np.concatenate([bulk[schema.INTENSITY].to_numpy(dtype=float),
                             np.asarray(more_points[0], dtype=float)]),
             np.concatenate([bulk[schema.PERFORMANCE].to_numpy(dtype=float),
                             np.asarray(more_points[1], dtype=float)]))
    label_ceilings(axes, ceilings, segments, drawn)
    axes.set_xlabel(matplotlib_text(f"{X_LABEL}  ({flops_metric} / {bandwidth_metric})"))
    axes.set_ylabel(Y_LABEL)
    axes.set_title(figure_title(roofline.empirical))
    axes.grid(True, which="major", alpha=0.35)
    axes.grid(True, which="minor", alpha=0.12)
    draw_legend(axes)
    place_region_labels(axes, points)  # last: everything drawn so far is an obstacle
    return figure
