"""The matplotlib renderer: a :class:`~roofline_widget.scene.parts.Scene` drawn on the Agg canvas.

Everything drawn is in the scene (:func:`~roofline_widget.scene.build.build_scene`):
the roofs and their labels (placed for :data:`STATIC_CANVAS`, the axes' size
at 100 dpi: a slope's label turned along its line), the points, the layers'
dots, joins, rings and arrows, the axis limits and the notes.  This module
only turns them into artists, in the one style of the static figure, and adds
what only a file needs: the legend right of the axes (:func:`draw_legend`),
the regions' names next to their points
(:func:`~roofline_widget.static.region_labels.place_region_labels`), the
points doing almost no FLOPs pinned to the axis edge.  Every text from a
file (region and run names, metric names in the axis label, ceiling labels,
notes) is drawn as written (:func:`~roofline_widget.escaping.matplotlib_text`:
no mathtext, no control character).
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

import numpy as np

from roofline_widget.escaping import matplotlib_text
from roofline_widget.look.ceiling_labels import LabelCanvas
from roofline_widget.look.ceiling_lines import ceiling_rows
from roofline_widget.look.colors import OTHER_COLOR, POINT_STROKE
from roofline_widget.look.log_axes import labelled_ticks, log_ticks, tick_format, tick_text
from roofline_widget.look.markers import CEILING_STROKE, FLAGGED_STROKE, ROOF_STROKE
from roofline_widget.look.no_flop import pinned
from roofline_widget.look.plot_area import PlotArea
from roofline_widget.look.texts import Y_LABEL
from roofline_widget.scene.parts import Dots, Polylines, Scene, Shade
from roofline_widget.scene.sweep import SweepPart
from roofline_widget.static.exports import import_matplotlib
from roofline_widget.static.region_labels import place_region_labels

__all__ = ["CEILING_GID", "CEILING_LABEL_GID", "CEILING_LABEL_SIZE", "NOTES_GID",
           "NO_FLOP_WHERE", "STATIC_CANVAS", "SWEEP_BAR_GID", "draw", "draw_legend",
           "plain_log_ticks"]

#: The matplotlib gid (SVG id) of a ceiling's line: ``f"{CEILING_GID}-{n}"`` for the n-th row
#: of the ceilings table (``look.ceiling_lines.ceiling_rows``, ``payload["ceiling_table"]``).
CEILING_GID = "roofline-ceiling"
#: The gid of every ceiling label (an SVG id prefix: ``<gid>-<n>``, n as for the lines).
CEILING_LABEL_GID = "roofline-ceiling-label"
#: The matplotlib gid (SVG id) of the notes under the axes.
NOTES_GID = "roofline-notes"
#: Where the matplotlib figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "drawn as hollow triangles at the axis edge"
#: Font size (pt) of the ceiling labels.
CEILING_LABEL_SIZE = 8.5
#: The axes' box in pixels at :data:`_DPI`, fixed (the labels are placed for it): left of it and
#: above it, and its width and height.
_AXES_PX = (125.0, 78.0, 775.0, 500.5)
#: The canvas (inches): the axes, room right of them for the colour bar and the legend and below
#: them for the notes; the file is cut to what is drawn (``static.exports.image_writer``), on this
#: canvas as it was laid out when it holds everything; then the figure is fitted to what it draws
#: (``static.exports.fit_to_drawing``).
_CANVAS = (18.0, 11.0)
_DPI = 100.0
_AXES_BOX = (_AXES_PX[0] / (_CANVAS[0] * _DPI),
             1.0 - (_AXES_PX[1] + _AXES_PX[3]) / (_CANVAS[1] * _DPI),
             _AXES_PX[2] / (_CANVAS[0] * _DPI), _AXES_PX[3] / (_CANVAS[1] * _DPI))
_PX = _DPI / 72.0  # pixels per point
#: What the static figure's ceiling labels are placed for: its axes, 8.5 pt text, turned slopes.
STATIC_CANVAS = LabelCanvas(
    PlotArea(min_width=_AXES_PX[2], height=_AXES_PX[3]),
    font_px=CEILING_LABEL_SIZE * _PX, anchor_gap_px=2.0 * _PX, line_gap_px=2.5 * _PX,
    point_clearance_px=4.0 * _PX, turned=True, ridge_label=False)
_LINESTYLES: dict[str, Any] = {"solid": "-", "dashed": "--", "dotted": ":"}
#: Characters of a line of the notes under the axes (8 pt text across the axes' width).
_NOTE_WIDTH = 125
#: An arrow's size (its ``mutation_scale``, points); the head of ``"-|>"`` reaches 0.2 of it out
#: from the line on either side.
_ARROW_SCALE_PT = 12.0
_ARROW_HALF_WIDTH_PT = 0.2 * _ARROW_SCALE_PT
#: The colour bar's title for what a sweep's shade shows.
_SWEEP_KEYS = {"threads": "threads", "ranks": "MPI ranks", "size": "problem size",
               "case": "case", "run": "run (in file order)"}
#: At most this many labelled ticks on a sweep's colour bar (every k-th step, and the last).
_BAR_TICKS = 12
#: The matplotlib gid of a sweep's colour bar (its axes).
SWEEP_BAR_GID = "roofline-sweep-colorbar"


def _shaded(values: np.ndarray, shade: Shade) -> list:
    """Hex colours of ``values`` on a sequential shade."""
    from matplotlib.colors import LinearSegmentedColormap

    cmap = LinearSegmentedColormap.from_list("shade", list(shade.colors))
    span = max(shade.high - shade.low, 1e-12)
    return [cmap(v) for v in np.clip((np.asarray(values) - shade.low) / span, 0.0, 1.0)]


def _colors(mark: Dots | Polylines, scene: Scene) -> list:
    """One colour per element of a mark (codes, shaded values or plain colours)."""
    codes = mark.codes if isinstance(mark, Dots) else None
    if codes is not None:
        return scene.coloring.colors(codes)
    if mark.values is not None and mark.shade is not None:
        return _shaded(mark.values, mark.shade)
    colors = list(mark.colors) or [OTHER_COLOR]
    return colors if len(colors) == len(mark) else colors[:1] * len(mark)


def _draw_dots(axes, dots: Dots, scene: Scene, proxies: list) -> None:
    """A layer's dots (their legend entry a proxy marker: the dots have many colours)."""
    from matplotlib.lines import Line2D

    if not len(dots):
        return
    colors, marker = _colors(dots, scene), dots.marker.matplotlib
    fill = ({"facecolors": "none", "edgecolors": colors, "alpha": dots.opacity}
            if dots.hollow else {"c": colors, "edgecolor": "black"})
    collection = axes.scatter(dots.x, dots.y, marker=marker, s=dots.size.matplotlib,
                              linewidths=dots.stroke.matplotlib, zorder=dots.z,
                              label=f"_{dots.name}", **fill)
    collection.set_gid(dots.name)
    if dots.legend:
        proxies.append(Line2D([], [], marker=marker, linestyle="none", label=dots.legend,
                              markersize=math.sqrt(dots.size.matplotlib),
                              **({"markerfacecolor": "none", "markeredgecolor": colors[0]}
                                 if dots.hollow else {"color": "0.35",
                                                      "markeredgecolor": "black"})))


def _add_line(axes, x, y, **style) -> None:
    """A ``Line2D`` through ``x``, ``y`` on ``axes``: what ``axes.plot(x, y, **style)`` adds
    on axes whose limits are set (no format string, no colour cycle, no autoscaling to do)."""
    from matplotlib.lines import Line2D

    axes.add_line(Line2D(x, y, **style))


def _draw_lines(axes, lines: Polylines, scene: Scene) -> None:
    """Polylines; with ``heads``, one arrow per line (cut at the axes)."""
    colors = _colors(lines, scene)
    style = _LINESTYLES[lines.style]
    for x, y, color in zip(lines.x, lines.y, colors):
        if not lines.heads:
            _add_line(axes, x, y, color=color, linestyle=style, linewidth=lines.stroke.matplotlib,
                      alpha=lines.opacity, zorder=lines.z)
            continue
        arrow = axes.annotate("", xy=(x[-1], y[-1]), xytext=(x[0], y[0]), zorder=lines.z,
                              arrowprops={"arrowstyle": "-|>", "color": color, "linestyle": style,
                                          "linewidth": lines.stroke.matplotlib, "shrinkA": 3,
                                          "shrinkB": 5, "mutation_scale": _ARROW_SCALE_PT})
        arrow.set_gid(lines.name)
        arrow.arrow_patch.set_clip_box(axes.bbox)  # from a point outside the axes: cut at them
        arrow.arrow_patch.set_clip_on(True)


def _draw_roofs(axes, scene: Scene) -> None:
    """The rooflines (in the legend: solid, dashed where the compute roof is theoretical), every
    ceiling (dashed, dotted if empirical) and its label, numbered as the ceilings table's rows."""
    order = [row["label"] for row in ceiling_rows(scene.roofline)] if scene.roofline else []
    for roof in scene.roofs:
        if roof.roof is None:
            _add_line(axes, roof.x, roof.y, color=roof.color, linewidth=ROOF_STROKE.matplotlib,
                      linestyle=_LINESTYLES[roof.style], label=roof.label, zorder=3)
            continue
        _add_line(axes, roof.x, roof.y, color=roof.color, linewidth=CEILING_STROKE.matplotlib,
                  linestyle=_LINESTYLES[roof.style], zorder=2,
                  gid=f"{CEILING_GID}-{order.index(roof.label)}")
    for roof, label in zip((r for r in scene.roofs if r.roof is not None), scene.ceiling_labels):
        if label.text:
            axes.annotate(matplotlib_text(label.text), (label.x, label.y),
                          xytext=(label.offset_px[0] / _PX, label.offset_px[1] / _PX),
                          textcoords="offset points", rotation=label.angle % 360,
                          rotation_mode="anchor", ha="left" if label.align == "start" else "right",
                          va="center", fontsize=CEILING_LABEL_SIZE, color=label.color, zorder=4,
                          annotation_clip=False,
                          gid=f"{CEILING_LABEL_GID}-{order.index(roof.label)}")


def _draw_points(axes, scene: Scene) -> None:
    """The points by category (one legend entry each), those beyond the hardware hollow (an
    entry of their own); those doing almost no FLOPs pinned to the edge of the axis limits, hollow."""
    points, keep = scene.points, ~scene.no_flop
    codes = points.codes if points.codes is not None else np.zeros(len(points))
    flagged = points.flagged if points.flagged is not None else np.zeros(len(points), dtype=bool)
    categories = scene.coloring.categories
    for code in sorted(set(codes[keep].astype(int))):
        mine, key = keep & (codes == code), str(categories[code]) if code >= 0 else "other"
        color = scene.coloring.colors([code])[0]
        chosen, hollow = mine & ~flagged, mine & flagged
        if chosen.any():
            axes.scatter(points.x[chosen], points.y[chosen], color=color, label=key,
                         s=points.size.matplotlib, edgecolor="black", linewidth=0.4, zorder=4)
        if hollow.any():  # a broken counter: the point is no measurement of the hardware
            axes.scatter(points.x[hollow], points.y[hollow], s=points.size.matplotlib,
                         facecolors="none", edgecolors=[color],
                         linewidths=FLAGGED_STROKE.matplotlib, zorder=4,
                         label=f"{key} (beyond the hardware)")
    x_limits, y_limits = axes.get_xlim(), axes.get_ylim()
    x, y = points.x[scene.no_flop], points.y[scene.no_flop]
    # Pinned left (the usual case: intensity = GFLOP/s / bandwidth is tiny too), else down.
    markers = np.where(x < x_limits[0], "<", np.where(y < y_limits[0], "v", "o"))
    x, y, pinned_codes = pinned(x, x_limits), pinned(y, y_limits), codes[scene.no_flop].astype(int)
    labelled = set()  # one collection per colour and marker, in the order of their first point
    for code, marker in dict.fromkeys(zip(pinned_codes.tolist(), markers.tolist())):
        key = categories[code] if code >= 0 else "other"
        label = None if key in labelled else f"{key} (almost no FLOPs: at the axis edge)"
        labelled.add(key)
        mine = (pinned_codes == code) & (markers == marker)
        axes.scatter(x[mine], y[mine], marker=marker, s=60, facecolors="none",
                     edgecolors=scene.coloring.colors([code]), linewidths=1.4, zorder=5,
                     clip_on=False, label=label)


def _draw_sweep(axes, sweep: SweepPart, scene: Scene, proxies: list) -> None:
    """A sweep: a path per region in its colour (the legend names each region once, and each
    group's line style), every run's point filled with its run's shade, a ring over the chosen
    (last) run's; the colour bar right of the axes says what the shade shows."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LinearSegmentedColormap, Normalize
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedFormatter

    drawn, named = sweep.drawn, set()
    group_of = drawn["sweep_group"].to_numpy(dtype=object)
    path_of, region_of = drawn["sweep_path"].to_numpy(), drawn["region"].to_numpy(dtype=object)
    for group, lines in zip(sweep.groups, sweep.paths):
        style = _LINESTYLES[lines.style]
        mine = group_of == group
        # each path's region (its first row's), the paths in the order of their numbers
        _, first = np.unique(path_of[mine], return_index=True)
        regions = [str(region) for region in region_of[mine][first]]
        for x, y, color, region in zip(lines.x, lines.y, _colors(lines, scene), regions):
            _add_line(axes, x, y, color=color, linewidth=lines.stroke.matplotlib,
                      alpha=lines.opacity, linestyle=style, zorder=lines.z, gid=lines.name,
                      label=f"_{region}" if region in named else region)
            named.add(region)
        if len(sweep.groups) > 1:
            proxies.append(Line2D([], [], color="0.3", linestyle=style, label=group))
    dots, shade = sweep.runs, sweep.key.shade
    cmap = LinearSegmentedColormap.from_list("sweep", list(shade.colors))
    norm = Normalize(shade.low, shade.high)
    if len(dots):
        axes.scatter(dots.x, dots.y, c=dots.values, cmap=cmap, norm=norm, marker=dots.marker.matplotlib,
                     s=dots.size.matplotlib, edgecolors=POINT_STROKE,
                     linewidths=dots.stroke.matplotlib, zorder=dots.z, gid=dots.name)
    _draw_dots(axes, sweep.ring, scene, proxies)
    box = axes.get_position()
    width = axes.figure.get_figwidth()  # the bar 0.12 inches right of the axes, 0.14 wide
    bar_axes = axes.figure.add_axes((box.x1 + 0.12 / width, box.y0, 0.14 / width, box.height))
    step = -(-len(sweep.key) // _BAR_TICKS)
    shown = sorted({*range(0, len(sweep.key), step), len(sweep.key) - 1})
    bar = axes.figure.colorbar(  # the labels a formatter's (no tick made before the draw)
        ScalarMappable(norm=norm, cmap=cmap), cax=bar_axes,
        ticks=[sweep.key.values[i] for i in shown],
        format=FixedFormatter([matplotlib_text(sweep.key.labels[i]) for i in shown]))
    bar.ax.yaxis.set_tick_params(labelsize=8)
    bar.ax.minorticks_off()
    bar.set_label(matplotlib_text(_SWEEP_KEYS.get(sweep.key.name, sweep.key.name)), fontsize=9)
    bar.ax.set_gid(SWEEP_BAR_GID)


def draw_legend(axes, extra_handles=()) -> None:
    """The figure's one legend, right of the axes (it covers nothing; files are saved tight).

    It holds every labelled artist of ``axes`` (the roofline, the points, the
    baseline runs) and ``extra_handles`` (the layers' markers); drawing it
    again replaces it.  The labels are drawn as written (no mathtext).
    """
    handles, labels = axes.get_legend_handles_labels()
    labels += [handle.get_label() for handle in extra_handles]
    beside = 1.01
    others = [a for a in axes.figure.axes if a is not axes]  # a colour bar: the legend right of it
    if others:
        renderer = axes.figure.canvas.get_renderer()
        right = max(a.get_tightbbox(renderer).x1 for a in others) + 10.0
        beside = axes.transAxes.inverted().transform((right, 0.0))[0]
    axes.legend([*handles, *extra_handles], [matplotlib_text(label) for label in labels],
                fontsize=8, loc="upper left", bbox_to_anchor=(beside, 1.0), borderaxespad=0.0)


def _minor_steps(limits: tuple[float, float]) -> np.ndarray:
    """2, 3, ..., 9 times each power of ten inside ``limits`` (a log axis' minor steps)."""
    low, high = (math.floor(math.log10(v)) for v in limits)
    decades = 10.0 ** np.arange(low, high + 1)
    steps = (decades[:, None] * np.arange(2, 10)[None, :]).ravel()
    return steps[(steps > limits[0]) & (steps < limits[1])]


def plain_log_ticks(axes) -> None:
    """Ticks of both log axes where the widget's are, read as plain numbers (0.1, 1, 10).

    The major ticks are :func:`~roofline_widget.look.log_axes.log_ticks` of
    the limits, their text :func:`~roofline_widget.look.log_axes.tick_text` (d3's
    format of the range, :func:`~roofline_widget.look.log_axes.tick_format`, as the
    widget's axes), with the major grid, a label left out where
    it would overlap another (:func:`~roofline_widget.look.log_axes.labelled_ticks`);
    the other decades and steps get a faint grid line each, two line collections (a
    minor tick of matplotlib is an artist of its own: two hundred of them cost a
    second to lay out).  The labels are measured in the tick labels' font
    (``xtick.labelsize``, ``ytick.labelsize``), one per axis, before any tick is made.
    """
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

    measure = TextToPath().get_text_width_height_descent
    for axis, (low, high) in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
        ticks = log_ticks(low, high)
        text_format = tick_format(low, high)
        texts = [tick_text(value, text_format) for value in ticks]
        horizontal = axis is axes.xaxis
        font = FontProperties(size=matplotlib.rcParams["xtick.labelsize" if horizontal
                                                        else "ytick.labelsize"])
        # a tick label's extent along its axis (px): its width on x, its height on y
        extents = [measure(text, font, ismath=False)[0 if horizontal else 1] * axes.figure.dpi / 72
                   for text in texts]
        shown = labelled_ticks(ticks, low, high,
                               axes.bbox.width if horizontal else axes.bbox.height, extents)
        axis.set_major_locator(FixedLocator(ticks.tolist()))
        axis.set_major_formatter(FixedFormatter([text if keep else ""
                                                 for text, keep in zip(texts, shown)]))
        axis.set_minor_locator(NullLocator())
    grid = {"colors": "#b0b0b0", "linewidth": 0.8, "alpha": 0.12, "zorder": 0.5}
    axes.vlines(_minor_steps(axes.get_xlim()), 0, 1, transform=axes.get_xaxis_transform(), **grid)
    axes.hlines(_minor_steps(axes.get_ylim()), 0, 1, transform=axes.get_yaxis_transform(), **grid)
    axes.grid(True, which="major", alpha=0.35)


def _title_height(axes) -> float | None:
    """The title's height in axes coordinates: where matplotlib's automatic placement puts it
    when nothing of the axes is drawn above them (1.0, the top; ``axes.titley`` when set), None
    (automatic) when the x axis has ticks or its label at the top.

    Fixed, the title is not placed again at every measure and draw, which lays the y axis out
    once more (its tick labels measured twice) to look for an offset text this figure never has.
    """
    import matplotlib

    height = matplotlib.rcParams["axes.titley"]
    if height is not None:
        return float(height)
    top = (axes.xaxis.get_ticks_position() in ("top", "unknown")
           or axes.xaxis.get_label_position() == "top")
    return None if top else 1.0


def draw(scene: Scene):
    """The static roofline figure of ``scene`` (a matplotlib ``Figure`` on matplotlib's Agg canvas).

    The figure is a canvas larger than what is drawn: the axes at fixed pixels, room right of
    them for the colour bar and the legend and below them for the notes.  Files are cut to what
    is drawn (:func:`~roofline_widget.static.exports.image_writer`; ``savefig`` with
    ``bbox_inches="tight"`` does the same); ``plot_roofline`` then fits the figure to it
    (:func:`~roofline_widget.static.exports.fit_to_drawing`) before handing it back.
    """
    _, Figure, FigureCanvasAgg = import_matplotlib()
    figure = Figure(figsize=_CANVAS, dpi=_DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_axes(_AXES_BOX)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(*scene.x_range)
    axes.set_ylim(*scene.y_range)
    _draw_roofs(axes, scene)
    proxies: list = []
    marks = [mark for part in scene.parts if part is not scene.sweep for mark in part.marks()]
    for mark in marks:
        if isinstance(mark, Dots):
            _draw_dots(axes, mark, scene, proxies)
        elif not mark.heads:
            _draw_lines(axes, mark, scene)
    if scene.sweep is not None:  # every run's points, the last run's among them
        _draw_sweep(axes, scene.sweep, scene, proxies)
    else:
        _draw_points(axes, scene)
    plain_log_ticks(axes)
    notes = [*scene.notes, *(scene.sweep.notes if scene.sweep is not None else ())]
    text = "\n".join(textwrap.fill(note, _NOTE_WIDTH) for note in notes if note)
    if text:  # under the axes, wrapped to their width (the legend is right of them)
        axes.text(0.0, -0.12, matplotlib_text(text), transform=axes.transAxes, ha="left",
                  va="top", fontsize=8, color="0.2", gid=NOTES_GID)
    axes.set_xlabel(matplotlib_text(scene.x_label))
    axes.set_ylabel(Y_LABEL)
    axes.set_title(scene.title, y=_title_height(axes))
    # after everything they keep clear of (the legend, right of the axes, is no obstacle to a
    # label inside them: placed first, it is laid out once less); the arrows (whose boxes span
    # their lines) drawn over them, kept clear of by their lines and heads
    # the points doing almost no FLOPs are pinned and named in their own note: no label note
    flop_work = ~scene.no_flop
    names = scene.points.names
    arrows = [(x, y) for mark in marks if isinstance(mark, Polylines) and mark.heads
              for x, y in zip(mark.x, mark.y)]
    place_region_labels(axes, scene.point_rows[flop_work],
                        names=None if names is None else names[flop_work], arrows=arrows,
                        arrow_half_width_pt=_ARROW_HALF_WIDTH_PT)
    draw_legend(axes, proxies)
    for mark in marks:
        if isinstance(mark, Polylines) and mark.heads:
            _draw_lines(axes, mark, scene)
    return figure
