"""``CompareMarks``: a scene's baseline comparison drawn with bqplot (arrows, heads, hollow runs).

The arrows and each baseline run's points are the scene's
(:func:`~roofline_widget.scene.compare.compare_part`); bqplot has no arrow
mark, so here

- ``lines``: a dashed line per arrow, coloured as the region's points;
- ``heads``: one filled ``triangle-up`` per line, turned along the line as
  the line runs *on screen*, its tip at the edge of the end point;
- ``run_points``: one hollow Scatter per baseline run, its own marker;
- ``run_hits``: over each, the same markers filled but fully transparent, which
  carry the tooltip (both points, the speed-up and the changes): a hollow SVG
  marker is hit on its outline only, a filled one anywhere inside.

The heads are turned and placed by :mod:`roofline_widget.look.arrows` for the
size the scales are drawn over (:func:`~roofline_widget.look.plot_area.scale_size`
of the figure), again when the axis ranges change (a refresh, a pan or zoom)
or the figure's layout does; a peak drag that leaves the axes alone sends
nothing (``set_if_changed``).
"""

from __future__ import annotations

from dataclasses import replace

import bqplot as bq
import numpy as np
import pandas as pd

from roofline_widget.analysis.compare_summary import speedup_summary
from roofline_widget.look.arrows import ROTATION_SCALE_RANGE, head_positions, head_rotation
from roofline_widget.look.log_axes import log_ranges
from roofline_widget.look.markers import HEAD_MARKER, HEAD_SIZE, RUN_POINT, RUN_STROKE, run_marker
from roofline_widget.look.plot_area import scale_size
from roofline_widget.scene.compare import comparison_extent
from roofline_widget.scene.parts import ComparePart
from roofline_widget.widget.html import TOOLTIP_STYLE, comparison_tooltip_html
from roofline_widget.widget.layers.base import draw_mark, hover_index, set_if_changed

__all__ = ["CompareMarks"]


class CompareMarks:
    """The bqplot marks of a scene's :class:`~roofline_widget.scene.parts.ComparePart`.

    Parameters
    ----------
    figure : RooflineFigure
        Its scales (their ``min``/``max`` are observed: the heads turn when the
        axes move) and its figure, whose layout, margins and padding give the
        plot size the heads are turned for (its ``layout.width``/``height`` are observed).

    Attributes
    ----------
    lines : bqplot.Lines
        One dashed line per row with both points.
    heads : bqplot.Scatter
        One ``triangle-up`` per line, at its end, turned along it on screen
        (``rotation``, degrees clockwise from up, through a rotation scale
        that bqplot maps onto ``[0, 180]``: identity).
    run_points : list of bqplot.Scatter
        Per baseline run (chain order) its points of the shown rows, hollow,
        marker ``look.markers.run_marker`` of its position.  A scene with
        another number of runs makes new ones (and so new ``marks``).
    run_hits : list of bqplot.Scatter
        The transparent hover targets over ``run_points``.
    tooltip : ipywidgets.HTML
        Hover text of a baseline point (DOM class ``roofline-compare-tooltip``).
    part : ComparePart or None
        What is drawn (None: nothing).
    """

    def __init__(self, figure) -> None:
        self.x_scale, self.y_scale, self.plot = figure.x_scale, figure.y_scale, figure.plot
        self._scales = {"x": self.x_scale, "y": self.y_scale}
        self.part: ComparePart | None = None
        self.tooltip = figure.looks.html(css="roofline-compare-tooltip")
        self.lines = bq.Lines(x=np.ones((1, 2)), y=np.ones((1, 2)), scales=self._scales,
                              line_style="dashed", stroke_width=2, opacities=[0.85],
                              labels_visibility="none", visible=False)
        rotation = bq.LinearScale(min=ROTATION_SCALE_RANGE[0], max=ROTATION_SCALE_RANGE[1])
        self.heads = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), rotation=np.zeros(0),
            scales={**self._scales, "rotation": rotation}, marker=HEAD_MARKER.bqplot,
            default_size=HEAD_SIZE, colors=["gray"], opacities=[0.9], visible=False)
        self.run_points: list[bq.Scatter] = []
        self.run_hits: list[bq.Scatter] = []
        for scale in (self.x_scale, self.y_scale):
            scale.observe(self._on_axes, names=["min", "max"])
        self.plot.layout.observe(self._on_axes, names=["width", "height"])

    def _scatter(self, index: int, hit: bool) -> bq.Scatter:
        """Run ``index``'s hollow markers (seen), or transparent filled ones (hovered anywhere)."""
        scatter = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), scales=self._scales, marker=run_marker(index).bqplot,
            fill=hit, stroke_width=RUN_STROKE.bqplot, default_size=RUN_POINT.bqplot,
            opacities=[0.0 if hit else 0.7], colors=["white" if hit else "gray"], visible=False,
            **({"tooltip": self.tooltip, "tooltip_style": dict(TOOLTIP_STYLE),
                "interactions": {"hover": "tooltip"}} if hit else {"interactions": {}}))
        if hit:
            scatter.on_hover(self._on_hover)
        return scatter

    @property
    def baseline_points(self) -> bq.Scatter:
        """The first baseline run's points (the only run of a pair)."""
        return self.run_points[0]

    @property
    def labels(self) -> list[str]:
        """The baseline runs' labels, in chain order."""
        return list(self.part.labels) if self.part is not None else []

    @property
    def error(self) -> str:
        """Why the comparison drew nothing ("" when it drew)."""
        return self.part.error if self.part is not None else ""

    @property
    def marks(self) -> tuple:
        """The lines, the heads, each run's hollow points, then their hover targets."""
        return (self.lines, self.heads, *self.run_points, *self.run_hits)

    def frame(self) -> pd.DataFrame:
        """The comparison rows of what the widget shows (:func:`compare_points` columns)."""
        return (self.part.frame if self.part is not None else pd.DataFrame()).reset_index(
            drop=True)

    def median_speedup(self) -> float:
        """Median speed-up of the current run over the first baseline run (NaN if none)."""
        return speedup_summary(self.frame()).median

    def drawn_points(self, label: str) -> pd.DataFrame:
        """The rows whose baseline point of run ``label`` is drawn (in its Scatter's order)."""
        runs = self.part.runs if self.part is not None else ()
        index = self.labels.index(label)
        rows = runs[index].rows if index < len(runs) else None
        return rows if rows is not None else pd.DataFrame()

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """The baseline points drawn the axes hold (not those beyond what their hardware can do)."""
        return comparison_extent(self.frame())

    def draw(self, part: ComparePart | None) -> None:
        """Draw ``part`` (None: every mark hidden)."""
        self.part = part
        runs = part.runs if part is not None else ()
        if runs and len(runs) != len(self.run_points):  # the figure takes the new marks
            self.run_points = [self._scatter(i, hit=False) for i in range(len(runs))]
            self.run_hits = [self._scatter(i, hit=True) for i in range(len(runs))]
        arrows = part.arrows if part is not None else None
        draw_mark(self.lines, arrows)
        with self.heads.hold_sync():
            if arrows is not None and len(arrows):
                self.heads.colors = list(arrows.colors)
                self._place_heads()
            self.heads.visible = self.lines.visible
        for index, (scatter, hit) in enumerate(zip(self.run_points, self.run_hits)):
            dots = runs[index] if index < len(runs) else None
            draw_mark(scatter, dots)
            draw_mark(hit, dots and replace(dots, colors=("white",)))

    def _place_heads(self) -> None:
        """Heads at the lines' ends, turned for the scales' current ranges and the plot size."""
        ranges = log_ranges(self.x_scale, self.y_scale)
        if ranges is None or self.part is None:
            return
        arrows = self.part.arrows
        if not len(arrows):
            values = {"x": np.zeros(0), "y": np.zeros(0), "rotation": np.zeros(0)}
        else:
            size = scale_size(self.plot)
            x0, y0, x1, y1 = arrows.x[:, 0], arrows.y[:, 0], arrows.x[:, -1], arrows.y[:, -1]
            (x_range, y_range) = ranges
            x, y = head_positions(x0, y0, x1, y1, x_range, y_range, size)
            values = {"x": x, "y": y,
                      "rotation": head_rotation(x0, y0, x1, y1, x_range, y_range, size)}
        with self.heads.hold_sync():
            for name, value in values.items():
                set_if_changed(self.heads, name, value)

    def _on_axes(self, change) -> None:
        """An axis range or the figure's size changed: turn and place the heads again."""
        self._place_heads()

    def _on_hover(self, mark, content: dict) -> None:
        runs = [i for i, (scatter, hit) in enumerate(zip(self.run_points, self.run_hits))
                if mark is scatter or mark is hit] or [0]
        drawn = self.drawn_points(self.labels[runs[0]]) if self.labels else pd.DataFrame()
        index = hover_index(content, len(drawn))
        if index is not None:
            self.tooltip.value = comparison_tooltip_html(drawn.iloc[index])
