"""``SweepMarks``: a scene's sweep drawn with bqplot (a path per region, shaded runs, rings).

The paths, dots and rings are the scene's (:func:`~roofline_widget.scene.sweep.sweep_part`):

- ``paths``: one ``Lines`` mark per group of runs (its line style), one line
  per region through its runs, in the region's colour;
- ``runs``: every run's point, a small circle shaded through ``color_scale``
  (the part's :class:`~roofline_widget.scene.sweep.SweepKey` shade, light to
  dark), its tooltip the run and the point;
- ``ring``: a hollow ring in the region's colour over each path's point of
  the chosen step (the widget's ``sweep_step``): a step change redraws only
  the ring (``draw`` skips what is the same object as drawn).

A highlighted region (the widget's ``highlight_region``, :meth:`SweepMarks.highlight`)
keeps its paths, points and rings as drawn and fades every other region's to
:data:`FADED`; the figure's current points fade with them.
"""

from __future__ import annotations

import bqplot as bq
import numpy as np

from roofline_widget.look.colors import POINT_STROKE, SWEEP_COLORS
from roofline_widget.look.markers import OUTLINE, PATH_STROKE, RING_STROKE, SWEEP_DOT, SWEEP_RING
from roofline_widget.scene.scaling import path_regions
from roofline_widget.scene.sweep import SweepPart
from roofline_widget.widget.html import TOOLTIP_STYLE, sweep_tooltip_html
from roofline_widget.widget.layers.base import draw_mark, hover_index

__all__ = ["FADED", "SweepMarks", "faded"]

#: The opacity of the regions other than the highlighted one.
FADED = 0.15


def faded(regions, region: str, opacity: float = 1.0) -> list[float]:
    """Per element of ``regions``: ``opacity`` where it is ``region`` (or none is named), else
    :data:`FADED`."""
    return [opacity if not region or name == region else FADED for name in regions]


class SweepMarks:
    """The bqplot marks of a scene's :class:`~roofline_widget.scene.sweep.SweepPart`.

    Parameters
    ----------
    figure : RooflineFigure
        The figure whose scales the marks use.

    Attributes
    ----------
    paths : list of bqplot.Lines
        One per group of runs (a part with another number of groups makes new
        ones, and so new ``marks``).
    runs : bqplot.Scatter
        Every run's point, circles, coloured by the shade's value (DOM: ``.dot``).
    ring : bqplot.Scatter
        Hollow circles over the chosen step's points.
    color_scale : bqplot.ColorScale
        The shade: the key's first value to its last.
    tooltip : ipywidgets.HTML
        The hover text of a run's point (DOM class ``roofline-sweep-tooltip``).
    part : SweepPart or None
        What is drawn (None: nothing).
    """

    def __init__(self, figure) -> None:
        self._scales = {"x": figure.x_scale, "y": figure.y_scale}
        self.part: SweepPart | None = None
        self.paths: list[bq.Lines] = []
        self.color_scale = bq.ColorScale(colors=list(SWEEP_COLORS), min=0.0, max=1.0)
        self.tooltip = figure.looks.html(css="roofline-sweep-tooltip")
        self.runs = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
            scales={**self._scales, "color": self.color_scale}, marker="circle",
            default_size=SWEEP_DOT.bqplot, stroke=POINT_STROKE, stroke_width=OUTLINE.bqplot,
            visible=False, tooltip=self.tooltip, tooltip_style=dict(TOOLTIP_STYLE),
            interactions={"hover": "tooltip"})
        self.runs.on_hover(self._hover)
        self.ring = bq.Scatter(x=np.zeros(0), y=np.zeros(0), scales=self._scales,
                               marker="circle", fill=False, default_size=SWEEP_RING.bqplot,
                               stroke_width=RING_STROKE.bqplot, colors=["black"], visible=False,
                               interactions={})

    @property
    def marks(self) -> tuple:
        """The paths, the runs' points, then the rings."""
        return (*self.paths, self.runs, self.ring)

    def draw(self, part: SweepPart | None) -> None:
        """Draw ``part`` (None: every mark hidden)."""
        previous, self.part = self.part, part
        if part is not None and (previous is None or part.paths is not previous.paths):
            self._draw_paths(part)
        elif part is None:
            for lines in self.paths:
                draw_mark(lines, None)
        if part is not None and previous is not None and part.runs is previous.runs:
            pass  # only the step changed
        else:
            if part is not None and part.runs.shade is not None:
                shade = part.runs.shade
                with self.color_scale.hold_sync():
                    self.color_scale.colors = list(shade.colors)
                    self.color_scale.min, self.color_scale.max = shade.low, shade.high
            draw_mark(self.runs, part.runs if part is not None else None)
        ring = part.ring if part is not None else None
        draw_mark(self.ring, ring)
        if ring is not None and len(ring):
            self.ring.colors = list(ring.colors)

    def highlight(self, region: str, points=None) -> None:
        """Fade every region but ``region`` ("": each drawn as it is), in the paths, the runs'
        points, the rings and ``points`` (the figure's ``PointsMark`` of the current run, its
        ``rows`` the current points' records)."""
        part = self.part
        if part is None:
            return
        for mark, lines, regions in zip(self.paths, part.paths, path_regions(part)):
            mark.opacities = faded(regions, region, lines.opacity)
        for mark, dots in ((self.runs, part.runs), (self.ring, part.ring)):
            mark.opacities = [] if not region or dots.rows is None else \
                faded(dots.rows["region"].astype(str), region)
        if points is not None:
            mark, rows = points
            mark.dim(None if not region or rows is None else
                     np.asarray(faded(rows["region"].astype(str), region)))

    def _draw_paths(self, part: SweepPart) -> None:
        if len(part.paths) != len(self.paths):  # the figure takes the new marks
            self.paths = [bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=self._scales,
                                   line_style=lines.style, stroke_width=PATH_STROKE.bqplot,
                                   opacities=[lines.opacity], labels_visibility="none",
                                   visible=False, interactions={})
                          for lines in part.paths]
        for mark, lines in zip(self.paths, part.paths):
            mark.line_style = lines.style
            draw_mark(mark, lines)

    def _hover(self, mark, content: dict) -> None:
        part = self.part
        rows = part.runs.rows if part is not None else None
        index = hover_index(content, 0 if rows is None else len(rows))
        if part is not None and rows is not None and index is not None:
            self.tooltip.value = sweep_tooltip_html(rows.iloc[index], part.key)
