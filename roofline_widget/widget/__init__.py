"""``RooflineWidget``: an interactive roofline of LIKWID measurements (ipywidgets + bqplot).

The widget aggregates the runs ONCE (:class:`~roofline_widget.points.RegionSums`)
and keeps one bqplot figure whose marks are updated in place:

* a change of metric, ranks, rank grouping, include/exclude pattern or point
  budget selects new points from the pre-aggregated sums and replaces the
  points' data in one ``hold_sync`` (an SVG Scatter up to ``SVG_MAX_POINTS``,
  a WebGL ScatterGL above it: ``points_mark``);
* a change of a peak only moves the ceiling lines, their labels and the ridge
  marker; the point arrays are not sent again.

What is drawn is a :class:`~roofline_widget.scene.parts.Scene` (``scene/``),
composed by the pipeline and drawn by the figure, the bqplot renderer; the
static plot's matplotlib renderer draws the same scene.

Everything new is computed before anything is assigned, so an exception never
leaves the widget half-updated.  Region names come from users' code and are
HTML-escaped wherever they reach HTML (all of it built in :mod:`.html`).

Modules: ``roofline_widget`` (the widget: where each change goes), ``traits``
(the traits, each a setting of :mod:`roofline_widget.settings`), ``pipeline`` (the refresh
pipeline: select, compose the scene, draw) and ``scene_parts`` (the scene's
layers, kept while their inputs stay), ``figure`` (:class:`RooflineFigure`:
the scene's scales, marks, tooltip), ``points_mark`` (:class:`PointsMark`: SVG or WebGL
points, the fallback without WebGL), ``pointer`` (:class:`PointerTool`: brush,
lasso, hover and click on WebGL points, in the kernel), ``controls`` (:class:`RooflineControls`: child
widgets, layout, links), ``roof_marks`` and ``layers/`` (the marks of the
scene's roofs, levels, baseline arrows, rank whiskers), ``saved_views`` (the widget's choices to a View and
back), ``opening`` (the widgets of a build opened at its end, one message each with its
first draw), ``state`` (:class:`PointState`, :class:`UpdateGuard`), ``point_keys``,
``point_style`` and ``roofs`` (what is computed before anything is assigned)
and ``html`` (every HTML snippet, escaped).
"""

from __future__ import annotations

from roofline_widget.widget.controls import RooflineControls
from roofline_widget.widget.figure import RooflineFigure
from roofline_widget.widget.point_keys import POINT_KEY
from roofline_widget.widget.pointer import PointerTool
from roofline_widget.widget.points_mark import SVG_MAX_POINTS, PointsMark
from roofline_widget.widget.roofline_widget import DEFAULT_MAX_POINTS, RooflineWidget
from roofline_widget.widget.state import PointState, UpdateGuard

__all__ = [
    "DEFAULT_MAX_POINTS",
    "POINT_KEY",
    "SVG_MAX_POINTS",
    "PointState",
    "PointerTool",
    "PointsMark",
    "RooflineControls",
    "RooflineFigure",
    "RooflineWidget",
    "UpdateGuard",
]
