"""``plot_roofline(backend="bqplot")``: the widget's figure drawing the plot's scene, once.

The points, roofs, ceiling labels, tooltip and interactions are those of
:class:`~roofline_widget.widget.figure.RooflineFigure` (the same look, the
same axis ranges); the colours are the plot's colormap, the legend the
widget's (escaped) HTML legend.
"""

from __future__ import annotations

import ipywidgets as widgets

from roofline_widget.scene.parts import Scene
from roofline_widget.widget.figure import RooflineFigure
from roofline_widget.widget.html import legend_html
from roofline_widget.widget.state import UpdateGuard

__all__ = ["NO_FLOP_WHERE", "draw"]

#: Where the bqplot figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "outside the axes (pan out to see them)"
#: The legend's title key by the column the points are coloured by.
_LEGEND_KIND = {"region": "region", "file": "run"}


def draw(scene: Scene) -> tuple[RooflineFigure, widgets.HTML]:
    """A :class:`RooflineFigure` drawing ``scene``, and its legend.

    Every point is in the scatter (those doing almost no FLOPs lie outside the
    axis ranges); the legend lists the scene's colours in order, then its notes.

    Returns
    -------
    (RooflineFigure, ipywidgets.HTML)
        The figure (``figure.plot`` is the bqplot Figure) and the legend.
    """
    figure = RooflineFigure(UpdateGuard())
    figure.draw(scene)
    coloring = scene.coloring
    legend = widgets.HTML(legend_html(list(coloring.categories), list(coloring.palette),
                                      _LEGEND_KIND[coloring.column],
                                      note=" ".join(filter(None, scene.notes))))
    legend.add_class("roofline-legend")
    return figure, legend
