"""``shared_view``: what a RooflineWidget shows, as widgets a browser draws without a kernel.

A page has no Python behind it, so the view keeps what works in the browser
alone and leaves out the rest (docs/guide/sharing.md says which and why):

- the figure: every mark of the widget's figure (ceilings and their labels,
  the roofline, the ridge point, memory-level dots, baseline arrows and
  chains, rank medians), copied with tooltips the browser fills
  (:mod:`~roofline_widget.static.html_marks`), and the points in one mark per
  region: SVG with a hover text each up to :data:`HTML_SVG_MAX_POINTS`
  points (with the point's guidance, :func:`page_guidance`, as the widget's
  tooltip has it), WebGL (bqplot-gl, no hover) above;
- bqplot's toolbar: pan and zoom (its arrows button; the wheel zooms), and
  the figure saved as PNG; its reset button is hidden (it cannot make a new
  pan-zoom without a kernel): reload the page to reset the axes;
- a checkbox per region (up to :data:`MAX_REGION_TOGGLES` regions) and a list
  of the ranks (up to :data:`MAX_RANK_TOGGLES`), linked to the marks in the
  browser (``jsdlink``);
- the legend, the notes, the status line, the ceilings and the left-out tables.

Left out: whatever needs the kernel to sum, read or judge again: metric and
rank-grouping choices, include/exclude patterns, peak sliders (a new peak moves
the ceilings, their labels and every point's efficiency), colour and size
choices, memory-level and rank-view switches, selection and its detail panel.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import bqplot as bq
import ipywidgets as widgets
import numpy as np
import pandas as pd
from bqplot.interacts import PanZoom

from roofline_widget import __version__, schema
from roofline_widget.analysis.guidance import NOTHING_FOUND
from roofline_widget.static.html_marks import (
    ceiling_tooltip_texts,
    copy_mark,
    group_mark,
    hollow_mark,
    point_groups,
    point_texts,
    point_tooltip,
)

__all__ = ["HTML_SVG_MAX_POINTS", "MAX_RANK_TOGGLES", "MAX_REGION_TOGGLES", "SHARED_CSS",
           "WidgetPicture", "page_guidance", "shared_view"]

#: Most points drawn as SVG (each with its hover text); more are drawn with WebGL, without
#: hover. docs/performance.md: 5,000 SVG points draw in about 3 s, 50,000 in about 25 s.
HTML_SVG_MAX_POINTS = 10_000
#: Most regions with a checkbox each; with more, one mark holds every point.
MAX_REGION_TOGGLES = 60
#: Most ranks listed to be switched on and off.
MAX_RANK_TOGGLES = 64
#: DOM classes of the view's parts, and the style the page adds for them.
VIEW_CLASS, TOOLBAR_CLASS = "roofline-shared", "roofline-shared-toolbar"
SHARED_CSS = (f".{TOOLBAR_CLASS} button:nth-child(2){{display:none}}"  # reset: see docstring
              f".{VIEW_CLASS} .roofline-shared-note{{color:#555;font-size:90%}}")


@dataclass(frozen=True)
class WidgetPicture:
    """What a widget shows, read from its figure's scene and its public attributes (the one place
    that reads them).

    Attributes
    ----------
    plot : bqplot.Figure
        The widget's figure.
    points_mark : bqplot.Mark
        The mark drawing the points (its look is copied).
    skipped : tuple
        The figure's marks not copied: the points' marks (the flagged points'
        outlines too) and the pointer's helpers.
    points : pandas.DataFrame
        The points drawn, one row per point.
    colors : numpy.ndarray
        Colour code per point (index into ``palette``).
    sizes : numpy.ndarray or None
        Marker size per point in [0, 1], None for the default size.
    flagged : numpy.ndarray or None
        Per point, beyond what its hardware can do (drawn hollow); None: none is.
    palette : list of str
        The colours the codes stand for.
    roofline : Roofline or None
        The ceilings.
    texts : dict
        Escaped HTML shown with the figure: ``message``, ``legend``, ``status``,
        ``ceilings`` and ``left_out`` (tables), the two tables' titles, and ``sweep_key``
        (a drawn sweep's colour bar and line styles, ``""`` without one).
    guidance : list of str or None
        Per point its guidance (:func:`page_guidance`); None where the page
        draws no hover texts (more than :data:`HTML_SVG_MAX_POINTS` points).
    """

    plot: bq.Figure
    points_mark: Any
    skipped: tuple
    points: pd.DataFrame
    colors: np.ndarray
    sizes: np.ndarray | None
    flagged: np.ndarray | None
    palette: list
    roofline: Any
    texts: dict
    guidance: list | None = None

    @classmethod
    def of(cls, widget) -> WidgetPicture:
        """Read a :class:`~roofline_widget.RooflineWidget`'s figure, the scene it draws, and texts."""
        figure, controls = widget.figure, widget.controls
        scene = figure.scene
        dots = scene.points if scene is not None else None
        points = scene.point_rows if scene is not None else pd.DataFrame()
        colors = (np.zeros(0) if dots is None else np.asarray(dots.codes) if dots.codes is not None
                  else np.zeros(len(dots)))
        sizes = None if dots is None or dots.sizes is None else np.asarray(dots.sizes)
        flagged = None if dots is None else dots.flagged
        skipped = (*figure.points.marks, *figure.points.hollow_marks, *figure.pointer.marks)
        texts = {"message": controls.message_text, "legend": controls.legend_html.value,
                 "status": controls.status_html.value,
                 "ceilings": controls.ceilings_panel.html(), "left_out": controls.left_out_panel.html(),
                 "ceilings_title": controls.ceilings_section.get_title(0),
                 "left_out_title": controls.left_out.get_title(0),
                 "sweep_key": _sweep_key(widget.sweep_controls)}
        guidance = (page_guidance(widget.to_dataframe(), points)
                    if 0 < len(points) <= HTML_SVG_MAX_POINTS else None)
        return cls(figure.plot, figure.points.active, skipped, points, colors, sizes, flagged,
                   list(figure.color_scale.colors), widget.roofline, texts, guidance)


def page_guidance(advised: pd.DataFrame, points: pd.DataFrame) -> list[str]:
    """Per point of ``points`` its guidance in a page's hover text: ``"limiting factor: advice"``.

    Parameters
    ----------
    advised : pandas.DataFrame
        ``RooflineWidget.to_dataframe()``: every current point with ``limiting_factor`` and
        ``guidance`` (the advice, joined), judged against the widget's roofs.
    points : pandas.DataFrame
        The points drawn (file, rank, region).

    Returns
    -------
    list of str
        ``""`` for a point no rule speaks of, or not in ``advised``.
    """
    # not at import: the widget package imports this module's page writer (a cycle)
    from roofline_widget.widget.point_keys import key_index

    if not len(points) or not {"limiting_factor", "guidance"} <= set(advised.columns):
        return [""] * len(points)
    frame = advised.set_index(key_index(advised))
    frame = frame[~frame.index.duplicated()].reindex(key_index(points))
    texts = []
    for factor, advice in zip(frame["limiting_factor"], frame["guidance"]):
        factor = factor if isinstance(factor, str) else ""
        advice = advice if isinstance(advice, str) and advice != NOTHING_FOUND else ""
        texts.append(f"{factor}: {advice}" if factor and advice else factor)
    return texts


def shared_view(widget) -> widgets.VBox:
    """The view of ``widget`` that a page shows without a kernel (module docstring).

    Parameters
    ----------
    widget : RooflineWidget

    Returns
    -------
    ipywidgets.VBox
        DOM class ``roofline-shared``: the toolbar, the figure, the region and
        rank toggles, the legend, notes and tables.
    """
    picture = WidgetPicture.of(widget)
    points = picture.points
    webgl = len(points) > HTML_SVG_MAX_POINTS
    regions = points["region"].astype(str).unique().tolist() if len(points) else []
    by_region = 1 < len(regions) <= MAX_REGION_TOGGLES
    rank_choice = _rank_choice(points)
    slots = None if rank_choice is None else [value for _label, value in rank_choice.options]
    groups = point_groups(points, by_region, slots) if len(points) else []
    marks, hollows = _point_marks(picture, groups, webgl)
    figure = _figure(picture, [*filter(None, hollows), *marks])
    toolbar = bq.Toolbar(figure=figure)
    x_scale, y_scale = picture.points_mark.scales["x"], picture.points_mark.scales["y"]
    toolbar.set_trait("_panzoom", PanZoom(scales={"x": [x_scale], "y": [y_scale]}))
    toolbar.add_class(TOOLBAR_CLASS)
    toolbar.layout.flex = "0 0 auto"  # its buttons side by side beside the hint, never stacked
    toggles = []
    if by_region:
        toggles.append(_region_boxes(picture, groups, marks, hollows))
    if rank_choice is not None:
        for mark in [*marks, *filter(None, hollows)]:
            widgets.jsdlink((rank_choice, "index"), (mark, "selected"))
        toggles.append(rank_choice)
    parts = [
        widgets.HBox([toolbar, _html(_toolbar_hint(webgl))], layout=widgets.Layout(
            align_items="center")),
        _html(picture.texts["message"]), figure, _html(picture.texts["sweep_key"]),
        _html(picture.texts["legend"]),
        widgets.HBox(toggles, layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start")),
        _html(picture.texts["status"]),
        _html(_heading(picture.texts["ceilings_title"]) + picture.texts["ceilings"]),
        _html(_heading(picture.texts["left_out_title"]) + picture.texts["left_out"]),
        _html(_footer(webgl)),
    ]
    view = widgets.VBox([part for part in parts if part is not None])
    view.add_class(VIEW_CLASS)
    return view


def _point_marks(picture: WidgetPicture, groups, webgl: bool) -> tuple[list, list]:
    """Per group its points' mark, and the outlines of its flagged points (None: it has none)."""
    points = picture.points
    if not len(points):
        return [], []
    codes = picture.colors
    code_type = np.uint8 if len(picture.palette) <= 256 else np.float32
    arrays = {"x": points[schema.INTENSITY].to_numpy(dtype=np.float32),
              "y": points[schema.PERFORMANCE].to_numpy(dtype=np.float32),
              "color": np.asarray(codes).astype(code_type),
              "size": picture.sizes, "flagged": picture.flagged}
    texts = tooltip = None
    if not webgl:
        judged = picture.roofline.classify(points) if picture.roofline is not None else None
        texts, tooltip = point_texts(points, judged, picture.guidance), point_tooltip()
    marks = [group_mark(picture.points_mark, group, arrays, texts, tooltip, webgl)
             for group in groups]
    return marks, [hollow_mark(picture.points_mark, group, arrays) for group in groups]


def _figure(picture: WidgetPicture, point_marks: list) -> bq.Figure:
    """A new figure: the widget's axes, its marks copied (but the points'), the point marks on top."""
    plot = picture.plot
    skipped = {id(mark) for mark in picture.skipped}
    copies = []
    for mark in plot.marks:
        if id(mark) in skipped:
            continue
        labels = getattr(mark, "labels", None) if isinstance(mark, bq.Lines) else None
        copies.append(copy_mark(mark, ceiling_tooltip_texts(picture.roofline, labels) if labels else None))
    traits = {name: getattr(plot, name) for name in plot.trait_names(sync=True)
              if not name.startswith("_") and name not in ("marks", "interaction", "layout")}
    layout = {name: getattr(plot.layout, name) for name in ("width", "min_width", "height", "max_width")
              if getattr(plot.layout, name) is not None}
    # the figure's own hover toolbar makes its pan-zoom in the front end, which a page without a
    # kernel cannot: the page's toolbar (shared_view) holds one made here instead
    traits["display_toolbar"] = False
    figure = bq.Figure(marks=[*copies, *point_marks], layout=widgets.Layout(**layout), **traits)
    figure.add_class("roofline-figure")  # as the widget's (the browser tests find it by it)
    return figure


def _rank_choice(points: pd.DataFrame) -> widgets.SelectMultiple | None:
    """The list of ranks to switch on and off, or None (one rank, too many, or ranks repeated)."""
    if not len(points):
        return None
    ranks = points.drop_duplicates("rank")
    if not 1 < len(ranks) <= MAX_RANK_TOGGLES:
        return None
    if points.duplicated(["file", "region", "rank"]).any():
        return None  # a group must hold one point per rank
    ranks = ranks.sort_values("rank")
    labels = (ranks["rank_group"].astype(str) if "rank_group" in ranks
              else "rank " + ranks["rank"].astype(str))
    options = list(zip(labels.tolist(), ranks["rank"].tolist()))
    choice = widgets.SelectMultiple(options=options, index=tuple(range(len(options))),
                                    rows=min(len(options), 8), description="Ranks",
                                    layout=widgets.Layout(width="320px"))
    choice.add_class("roofline-shared-ranks")
    return choice


def _region_boxes(picture: WidgetPicture, groups, marks, hollows) -> widgets.Box:
    """One checkbox per region, in its colour, linked to the region's marks."""
    boxes: dict[str | None, widgets.Checkbox] = {}
    for group, mark, hollow in zip(groups, marks, hollows):
        box = boxes.get(group.region)
        if box is None:
            rows = group.rows[group.rows >= 0]
            codes = np.unique(picture.colors[rows])
            color = picture.palette[int(codes[0]) % len(picture.palette)] if len(codes) == 1 else None
            swatch = f'<span style="color:{html.escape(color)}">&#9679;</span> ' if color else ""
            box = widgets.Checkbox(value=True, indent=False, description_allow_html=True,
                                   description=swatch + html.escape(str(group.region)),
                                   layout=widgets.Layout(width="auto", margin="0 12px 0 0"))
            box.add_class("roofline-shared-region")
            boxes[group.region] = box
        for linked in filter(None, (mark, hollow)):
            widgets.jsdlink((box, "value"), (linked, "visible"))
    label = widgets.HTML("<b>Show</b>", layout=widgets.Layout(margin="0 10px 0 0"))
    container = widgets.HBox([label, *boxes.values()], layout=widgets.Layout(
        flex_flow="row wrap", align_items="center", max_width="900px"))
    container.add_class("roofline-shared-regions")
    return container


def _sweep_key(sweep_controls) -> str:
    """The colour bar of the sweep the widget draws (its HTML, escaped where it was made), or ""."""
    if not sweep_controls.built or sweep_controls.row.layout.display == "none":
        return ""
    return sweep_controls.key_html.value


def _html(value: str) -> widgets.HTML | None:
    return widgets.HTML(value) if value else None


def _heading(title: str) -> str:
    return f"<h4 style='margin:10px 0 4px 0'>{html.escape(title)}</h4>"


def _toolbar_hint(webgl: bool) -> str:
    hover = ("" if webgl else "hover a point for its numbers; ")
    return (f"<span class='roofline-shared-note'>{hover}the arrows button pans and zooms (the "
            "wheel zooms), the disk saves a PNG; reload the page to reset the axes</span>")


def _footer(webgl: bool) -> str:
    points = ("The points are drawn with WebGL: no hover text for so many points. " if webgl else "")
    return (f"<p class='roofline-shared-note'>{points}Written by roofline-widget {__version__}: "
            "a page without Python behind it. Other metrics, ranks summed otherwise, new peaks, "
            "filters and selections need the widget in Jupyter (RooflineWidget).</p>")
