"""The widget's points beyond the hardware drawn hollow: transparent markers and their outlines.

A flagged point (the scene's ``Dots.flagged``: a rate no hardware reaches, a
broken counter) stays in the points' mark, so that its hover, click and
selection work as every point's, but fully transparent (``opacities``);
:class:`HollowPoints` draws its outline in its colour in an SVG mark of its
own, under the points' marks.  While points are selected, bqplot's selection
styles would show the transparent marker again (a style's opacity wins over a
point's): the SVG points then fade by their own opacities instead
(:data:`UNSELECTED_OPACITY`), and a selected flagged point's outline turns black.
"""

from __future__ import annotations

import bqplot as bq
import numpy as np

from roofline_widget.look.markers import FLAGGED_STROKE, POINT_SIZE

__all__ = ["UNSELECTED_OPACITY", "HollowPoints"]

#: The opacity of the points not selected while some are.
UNSELECTED_OPACITY = 0.45
#: The look of a selected flagged point's outline, and of the others while some are selected.
_OUTLINE_SELECTED = {"stroke": "black"}
_OUTLINE_UNSELECTED = {"opacity": UNSELECTED_OPACITY}


class HollowPoints:
    """The outlines of the flagged points, and the looks of the points' mark that hide their markers.

    Parameters
    ----------
    scales : dict
        The points' ``x``, ``y``, ``color`` and ``size`` scales.

    Attributes
    ----------
    mark : bqplot.Scatter
        The outlines (no fill, no hover: the transparent markers above carry the tooltip);
        made when first points are flagged (or when first read).
    flagged : numpy.ndarray or None
        Per drawn point, whether it is hollow (None: none is).
    """

    def __init__(self, scales: dict) -> None:
        self.flagged: np.ndarray | None = None
        self._scales = dict(scales)
        self._mark: bq.Scatter | None = None

    @property
    def mark(self) -> bq.Scatter:
        """The outlines' mark, made when first needed."""
        if self._mark is None:
            self._mark = bq.Scatter(
                x=np.zeros(0), y=np.zeros(0), color=np.zeros(0), scales=self._scales,
                default_size=POINT_SIZE, fill=False, stroke_width=FLAGGED_STROKE.bqplot,
                selected_style=dict(_OUTLINE_SELECTED),
                unselected_style=dict(_OUTLINE_UNSELECTED), interactions={}, visible=False)
        return self._mark

    @property
    def drawn(self) -> bool:
        """True while the mark draws outlines (it belongs in the figure)."""
        return self._mark is not None and bool(len(self._mark.x))

    def draw(self, x: np.ndarray, y: np.ndarray, colors: np.ndarray,
             sizes: np.ndarray | None, default_size: float | None = None) -> bool:
        """The outlines of the :attr:`flagged` points of these; True when the mark came or went.

        ``default_size``: the points' marker area (None: as it was).
        """
        flagged, was_drawn = self.flagged, self.drawn
        if flagged is None and not was_drawn:
            return False  # nothing drawn, nothing to draw: no mark made for it
        mark = self.mark
        with mark.hold_sync():
            if flagged is None:
                if was_drawn:
                    mark.x = mark.y = mark.color = np.zeros(0)
                    mark.size = mark.selected = None
                    mark.visible = False
                return was_drawn
            mark.x, mark.y, mark.color = x[flagged], y[flagged], np.asarray(colors)[flagged]
            if default_size is not None and mark.default_size != default_size:
                mark.default_size = default_size
            mark.size = None if sizes is None else np.asarray(sizes)[flagged]
            mark.visible = True
        return not was_drawn

    def show(self, points: bq.Scatter, selected: np.ndarray | None, styles: tuple[dict, dict],
             svg: bool, dim: np.ndarray | None = None) -> None:
        """The looks of the points' mark ``points`` and of the outlines for the rows ``selected``.

        ``styles``: the points' own (selected, unselected) styles, kept while no
        point is flagged (and on the WebGL mark, whose opacities they do not override).
        ``dim``: per point a factor of its opacity (a highlighted region's points 1, the
        others faded), outlines included; None: none dimmed.
        """
        flagged = self.flagged
        chosen, faded = styles
        opacities: np.ndarray | list = [1.0]
        if flagged is not None:
            picked = np.zeros(len(flagged), dtype=bool)
            if selected is not None:
                picked[np.asarray(selected, dtype=np.intp)] = True
            self.mark.selected = None if selected is None else np.flatnonzero(picked[flagged])
            opacities = np.where(flagged, 0.0, 1.0)
            if svg:  # fade by opacity: the styles would show the transparent markers
                chosen = {k: v for k, v in chosen.items() if k != "opacity"}
                faded = {}
                if selected is not None:
                    opacities = np.where(flagged, 0.0, np.where(picked, 1.0, UNSELECTED_OPACITY))
        if dim is not None:
            opacities = np.asarray(opacities, dtype=float) * dim
        if flagged is not None:
            outline = [1.0] if dim is None else dim[flagged]
            if not np.array_equal(np.asarray(self.mark.opacities), outline):
                self.mark.opacities = outline
        if points.selected_style != chosen:
            points.selected_style = dict(chosen)
        if points.unselected_style != faded:
            points.unselected_style = dict(faded)
        if not np.array_equal(np.asarray(points.opacities), opacities):
            points.opacities = opacities
