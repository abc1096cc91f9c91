"""Building a :class:`~roofline_widget.scene.parts.Scene`: the layers, the ranges, the roofs, the labels.

:func:`build_scene` is the whole rule, a pure function of ``plot_roofline``'s
arguments (the widget's traits give the same ones): the comparison with a
baseline (its points join the empirical roofs), the roofline, the memory
levels and their findings, the axis ranges
(:func:`~roofline_widget.look.axis_ranges.axis_ranges`: the points, every
layer's dots, every ridge), then :func:`compose_scene`: the roof lines (a
ceiling dashed, dotted if empirical; each device's roofline solid, the main
one last) and their labels (:func:`roof_part`), placed for a canvas by
:func:`~roofline_widget.look.ceiling_labels.place_labels` clear of everything
drawn: horizontal for the widget, along their slopes for a static figure.

The widget builds the same scene in steps, keeping what a change leaves
alone (a peak drag recomputes the roofline, the level findings against it,
the ranges and the labels, nothing of the points): its pipeline calls the
parts (:mod:`.levels`, :mod:`.compare`, :mod:`.spread`) and :func:`compose_scene`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.ceiling_checks import ceiling_notes, warn_ceilings
from roofline_widget.analysis.compare_summary import before_points
from roofline_widget.io.chain import FileChain
from roofline_widget.look.above_roofs import above_roofs_text
from roofline_widget.look.axis_ranges import axis_ranges
from roofline_widget.look.beyond_hardware import beyond_hardware_text
from roofline_widget.look.ceiling_labels import (
    WIDGET_CANVAS,
    LabelCanvas,
    LabelSpot,
    LogPoints,
    place_labels,
)
from roofline_widget.look.ceiling_lines import ceiling_lines
from roofline_widget.look.colors import RIDGE_COLOR, line_color
from roofline_widget.look.no_flop import no_flop_work_text, split_flop_work
from roofline_widget.look.point_names import PointNaming, point_naming
from roofline_widget.look.texts import X_LABEL, figure_title
from roofline_widget.points import RegionSums, Selection
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.scene.compare import (
    baseline_runs,
    compare_part,
    comparison_extent,
    comparison_frame,
)
from roofline_widget.scene.levels import level_findings, level_rows, levels_part
from roofline_widget.scene.parts import (
    Coloring,
    ComparePart,
    Dots,
    Label,
    LevelsPart,
    RoofLine,
    Scene,
    SpreadPart,
)
from roofline_widget.scene.spread import whisker_arrays
from roofline_widget.scene.sweep import SweepPart, runs_sweep, sweep_extent

__all__ = ["build_scene", "compose_scene", "point_dots", "roof_part", "scene_extent"]


def _label(spot: LabelSpot, color: str, canvas: LabelCanvas, kind: str = "ceiling") -> Label:
    """A placed spot as a scene label: its offset reaches the text's reference point."""
    sign = 1.0 if spot.align == "start" else -1.0
    radians = math.radians(spot.angle)
    gap = sign * canvas.anchor_gap_px
    offset = (spot.offset_px[0] + gap * math.cos(radians),
              spot.offset_px[1] + gap * math.sin(radians) - spot.y_offset_px)
    return Label(spot.text, spot.x, spot.y, spot.align, color, offset, spot.angle, kind)


def roof_part(roofline: Roofline | None, x_range: tuple[float, float],
              y_range: tuple[float, float], canvas: LabelCanvas, obstacles: LogPoints
              ) -> tuple[tuple[RoofLine, ...], tuple[Label, ...], tuple[float, float] | None]:
    """The roof lines, their labels and the main ridge point (nothing for no roofline).

    Parameters
    ----------
    roofline : Roofline or None
    x_range, y_range : (float, float)
        The axis limits.
    canvas : LabelCanvas
        What the labels are placed for.
    obstacles : LogPoints
        The points the labels keep clear of.
    """
    if roofline is None:
        return (), (), None
    lines, segments = ceiling_lines(roofline, x_range)
    roofs = [RoofLine(line.kind, tuple(line.segment["x"]), tuple(line.segment["y"]), line.text,
                      line_color(line.kind, line.roof.device),
                      "dotted" if line.roof.empirical else "dashed", line.roof)
             for line in lines]
    roofs += [RoofLine("roof", tuple(s["x"]), tuple(s["y"]), s["label"],
                       line_color("roof", s["device"]),
                       "dashed" if s.get("theoretical") else "solid")
              for s in segments if s["kind"] == "roof"]
    ridge = (roofline.ridge_point(), roofline.peak_flops)
    layout = place_labels(lines, segments, ridge, x_range, y_range, canvas, obstacles)
    labels = [_label(spot, roof.color, canvas) for spot, roof in zip(layout.ceilings, roofs)]
    if layout.ridge is not None:
        labels.append(_label(layout.ridge, RIDGE_COLOR, canvas, "ridge"))
    return tuple(roofs), tuple(labels), ridge


def point_dots(points: pd.DataFrame, coloring: Coloring, sizes: np.ndarray | None = None,
               naming: PointNaming | None = None) -> Dots:
    """The points as dots coloured by ``coloring`` (``sizes``: a size in [0, 1] each, or None),
    each named (:func:`~roofline_widget.look.point_names.point_names`: a host's point by its
    host; ``naming``: the points' :func:`~roofline_widget.look.point_names.point_naming`, if
    known); those beyond what their hardware can do ``flagged`` (drawn hollow)."""
    flagged = beyond_hardware(points)
    naming = point_naming(points) if naming is None else naming
    if coloring.column == "region":  # each distinct name looked up once
        distinct, inverse = naming.distinct
        codes = coloring.codes(distinct)[inverse]
    else:
        codes = coloring.codes(points[coloring.column])
    return Dots("roofline-points", points[schema.INTENSITY].to_numpy(dtype=float),
                points[schema.PERFORMANCE].to_numpy(dtype=float), codes=codes,
                sizes=sizes, flagged=flagged if flagged.any() else None, rows=points,
                naming=naming)


def scene_extent(levels: LevelsPart | None = None, comparison: ComparePart | None = None,
                 spread: SpreadPart | None = None,
                 sweep: SweepPart | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What the axes must hold besides the points: level dots, baseline points, whisker
    ends, a sweep's runs."""
    xs, ys = [np.zeros(0)], [np.zeros(0)]
    if spread is not None and len(spread.spread):
        x, y = whisker_arrays(spread.spread)
        xs.append(x.ravel())
        ys.append(y.ravel())
    if levels is not None:
        xs.append(levels.frame[schema.INTENSITY].to_numpy(dtype=float))
        ys.append(levels.frame[schema.PERFORMANCE].to_numpy(dtype=float))
    if comparison is not None:
        x, y = comparison_extent(comparison.frame)
        xs.append(x)
        ys.append(y)
    x, y = sweep_extent(sweep)
    return np.concatenate([*xs, x]), np.concatenate([*ys, y])


def compose_scene(points: Dots, roofline: Roofline | None, ranges: tuple, *, coloring: Coloring,
                  no_flop: np.ndarray | None = None, canvas: LabelCanvas = WIDGET_CANVAS,
                  levels: LevelsPart | None = None, comparison: ComparePart | None = None,
                  spread: SpreadPart | None = None, sweep: SweepPart | None = None,
                  title: str = "", x_label: str = X_LABEL,
                  notes: Sequence[str] = (), obstacles: LogPoints | None = None) -> Scene:
    """The scene of these parts: the roof lines and labels for ``ranges`` added.

    Parameters
    ----------
    points : Dots
    roofline : Roofline or None
    ranges : ((float, float), (float, float))
        The axis limits.
    coloring : Coloring
    no_flop : numpy.ndarray, optional
        Which points do almost no FLOPs (default: none).
    canvas : LabelCanvas
        What the labels are placed for.
    levels, comparison, spread, sweep
        The layers.
    title, x_label, notes
    obstacles : LogPoints, optional
        The points and layer dots the labels keep clear of, when the caller kept
        them (a peak change); else worked out from the parts.
    """
    if obstacles is None:
        extent = scene_extent(levels, comparison, spread, sweep)
        obstacles = LogPoints.of((np.concatenate([points.x, extent[0]]),
                                  np.concatenate([points.y, extent[1]])))
    x_range, y_range = ranges
    roofs, labels, ridge = roof_part(roofline, x_range, y_range, canvas, obstacles)
    return Scene(points=points,
                 no_flop=np.zeros(len(points), dtype=bool) if no_flop is None else no_flop,
                 coloring=coloring, roofline=roofline, roofs=roofs, labels=labels, ridge=ridge,
                 x_range=x_range, y_range=y_range, levels=levels, comparison=comparison,
                 spread=spread, sweep=sweep, title=title, x_label=x_label, notes=tuple(notes),
                 obstacles=obstacles)


def _earlier_runs(sweep: SweepPart, labels: Sequence[str]) -> pd.DataFrame:
    """The points of a sweep's runs before the last (the last run's are the plot's points),
    ``run_label`` each run's short label (what the notes call it)."""
    runs = sweep.frame["sweep_run"].to_numpy()
    earlier = sweep.frame[runs < runs.max(initial=0)].drop(columns="run", errors="ignore")
    return earlier.assign(run_label=np.asarray(labels, dtype=object)[
        earlier["sweep_run"].to_numpy(dtype=int)])


def build_scene(sums: RegionSums, points: pd.DataFrame, *, selection: Selection,
                coloring: Coloring, ceilings=None, peak_flops: float | None = None,
                peak_bandwidth: float | None = None, peaks: str = "replace", levels=(),
                baseline=None, match=None, canvas: LabelCanvas = WIDGET_CANVAS,
                title: str | None = None, x_label: str = X_LABEL, no_flop_where: str = "",
                ceiling_checks: bool = True, notes: Sequence[str] = (), strict: int = 0,
                sweep: FileChain | None = None) -> Scene:
    """The scene of a roofline plot, from ``plot_roofline``'s arguments.

    Parameters
    ----------
    sums : RegionSums
        The plotted data.
    points : pandas.DataFrame
        The selected points (``sums.select(selection).points``), all drawn.
    selection : Selection
        Their selection, metrics resolved (the layers select with it).
    coloring : Coloring
        The points' colours.
    ceilings, peak_flops, peak_bandwidth, peaks
        As for :meth:`Roofline.from_ceilings <roofline_widget.Roofline.from_ceilings>`
        (``peaks="add"``: the widget's).
    levels : sequence of str
        Memory levels drawn (:func:`~roofline_widget.scene.levels.level_rows`).
    baseline, match
        A run (or ``{label: run}`` chain) compared with, as for :func:`~roofline_widget.compare_points`.
    canvas : LabelCanvas
        What the labels are placed for.
    title : str, optional
        Default: :func:`~roofline_widget.look.texts.figure_title` (says which roofs are empirical).
    x_label : str
    no_flop_where : str
        Where the renderer shows the points doing almost no FLOPs (for the note).
    ceiling_checks : bool
        The level findings include the checks of the roofs themselves.
    notes : sequence of str
        Notes on the ceilings the caller has (why there is no theoretical
        roof), drawn before those found here
        (:func:`~roofline_widget.analysis.ceiling_checks.ceiling_notes`: a
        theoretical roof's clock, a level roof that may not bound its level,
        ceilings of another machine).
    strict : int
        As for :func:`~roofline_widget.scene.levels.level_rows` (the caller's depth for
        warnings); also warns about the ceilings' notes (a ``CeilingWarning`` each).
    sweep : FileChain, optional
        A chain of runs (the points' run last), drawn as a sweep
        (:func:`~roofline_widget.scene.sweep.runs_sweep`: a path per region, the runs
        on a shade; their points join the empirical roofs, under the chain's short
        labels) instead of a ``baseline`` comparison (no comparison is built).

    Raises
    ------
    ValueError
        For invalid peaks, a baseline that cannot be compared, unknown levels (``strict``).
    """
    runs = baseline_runs(baseline) if baseline is not None else []
    frame = comparison_frame(runs, sums, selection=selection, match=match) if runs else None
    swept = runs_sweep(sweep.runs, selection, coloring) if sweep is not None else None
    basis = pd.concat([points, *([before_points(frame)] if frame is not None else []),
                       *([_earlier_runs(swept, sweep.labels)] if swept and sweep else [])],
                      ignore_index=True)
    roofline = Roofline.from_ceilings(ceilings, peak_flops, peak_bandwidth, basis, peaks=peaks)
    levels_drawn = None
    if levels:
        rows = level_rows(sums, levels, selection=selection, strict=strict and strict + 1)
        levels_drawn = levels_part(rows, level_findings(rows, roofline,
                                                        ceiling_checks=ceiling_checks), coloring)
    comparison = (None if frame is None
                  else compare_part(frame, [label for label, _ in runs], coloring))
    table = roofline.classify(points)
    bulk, no_flop = split_flop_work(table)
    ranges = axis_ranges(table, roofline, scene_extent(levels_drawn, comparison, sweep=swept),
                         bulk=bulk)
    machine = (warn_ceilings(sums, roofline, stacklevel=strict + 1) if strict
               else ceiling_notes(sums, roofline))
    notes = (beyond_hardware_text(basis, roofline), above_roofs_text(points, roofline),
             *notes, *machine,
             no_flop_work_text(no_flop, no_flop_where))
    return compose_scene(point_dots(table, coloring), roofline, ranges, coloring=coloring,
                         no_flop=table.index.isin(no_flop.index), canvas=canvas,
                         levels=levels_drawn, comparison=comparison, sweep=swept,
                         title=figure_title(roofline.empirical_words) if title is None else title,
                         x_label=x_label, notes=notes)
