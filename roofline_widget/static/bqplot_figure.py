"""``plot_roofline(backend="bqplot")``: the widget's own figure, drawn once.

The points, roofs, ceiling labels, tooltip and interactions are those of
:class:`~roofline_widget.widget.figure.RooflineFigure` (the same look, the
same axis ranges); the colours are the plot's colormap, the legend the
widget's (escaped) HTML legend.  The widget's modules (ipywidgets, bqplot)
are imported by :func:`draw`, so a matplotlib plot never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from roofline_widget.look.texts import figure_title
from roofline_widget.roofs.roofline import Roofline

if TYPE_CHECKING:  # the widget's modules load ipywidgets and bqplot: imported when drawing
    import ipywidgets as widgets

    from roofline_widget.widget.figure import RooflineFigure

__all__ = ["NO_FLOP_WHERE", "draw"]

#: Where the bqplot figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "outside the axes (pan out to see them)"
#: The legend's title key by the column the points are coloured by.
_LEGEND_KIND = {"region": "region", "file": "run"}


def draw(points: pd.DataFrame, roofline: Roofline, ranges: tuple, colour_column: str,
         colour_map: dict, note: str = "") -> tuple[RooflineFigure, widgets.HTML]:
    """A :class:`RooflineFigure` drawing ``points`` and ``roofline``, and its legend.

    Parameters
    ----------
    points, roofline, ranges, colour_column, colour_map
        As for :func:`roofline_widget.static.matplotlib_figure.draw`; every point
        is in the scatter (those doing almost no FLOPs lie outside ``ranges``) and
        ``colour_map``'s order is the legend's.
    note : str
        Plain text after the legend's entries (the notes on points beyond any
        hardware and doing no FLOPs), "" for none.

    Returns
    -------
    (RooflineFigure, ipywidgets.HTML)
        The figure (``figure.plot`` is the bqplot Figure) and the legend.
    """
    import ipywidgets as widgets

    from roofline_widget.widget.figure import RooflineFigure
    from roofline_widget.widget.figure_state import FigureState
    from roofline_widget.widget.html import legend_html
    from roofline_widget.widget.state import UpdateGuard

    figure = RooflineFigure(UpdateGuard())
    keys = list(colour_map)
    figure.set_palette([colour_map[key] for key in keys])
    points = points.reset_index(drop=True)
    codes = pd.Categorical(points[colour_column].astype(object), categories=keys).codes
    figure.assign(FigureState(points=points, colors=codes.astype(float), sizes=None,
                              selected=None, roofline=roofline, x_range=ranges[0],
                              y_range=ranges[1], title=figure_title(roofline.empirical)))
    legend = widgets.HTML(legend_html(keys, [colour_map[key] for key in keys],
                                      _LEGEND_KIND[colour_column], note=note))
    legend.add_class("roofline-legend")
    return figure, legend
