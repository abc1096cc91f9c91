"""The widget's ceiling marks (lines, labels, the roofline, the ridge point) and their arrays."""

from __future__ import annotations

import bqplot as bq
import ipywidgets as widgets
import numpy as np

from roofline_widget.look.ceiling_labels import (
    LABEL_GAP_PX,
    RIDGE_LABEL_DROP_PX,
    LabelSpot,
    place_labels,
)
from roofline_widget.look.ceiling_lines import ceiling_lines, ceiling_row
from roofline_widget.look.colors import RIDGE_COLOR, ROOF_COLOR, line_color
from roofline_widget.look.plot_area import DEFAULT_AREA, PlotArea
from roofline_widget.look.texts import LABEL_SIZE
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.widget.html import TOOLTIP_STYLE, roof_tooltip_html

__all__ = ["LINE_VERTICES", "CeilingMarks", "roof_marks_data"]

#: Every ceiling line is padded to this many vertices (one Lines mark holds them all).
LINE_VERTICES = 3


def _pad(values) -> list:
    return list(values) + [values[-1]] * (LINE_VERTICES - len(values))


def roof_marks_data(roofline: Roofline | None, x_range: tuple[float, float],
                    y_range: tuple[float, float], area: PlotArea = DEFAULT_AREA,
                    points=((), ())) -> dict:
    """Arrays for the ceiling Lines and labels, the main roof and the ridge marks ({} for None).

    The labels are placed by :func:`~roofline_widget.look.ceiling_labels.place_labels`
    for a plot ``area`` (its height and smallest width), clear of ``points``
    (intensities, GFLOP/s); ``ceiling_rows`` are the ceilings' table rows
    (:func:`~roofline_widget.look.ceiling_lines.ceiling_row`), for their tooltips.
    """
    if roofline is None:
        return {}
    lines, segments = ceiling_lines(roofline, x_range)
    ceilings = [line.segment for line in lines]
    roof = segments[-1]
    # each device's roofline (another device's before the main one), in its device's colour
    roofs = [s for s in segments if s["kind"] == "roof"]
    ridge_x = roofline.ridge_point()
    layout = place_labels(lines, segments, (ridge_x, roofline.peak_flops), x_range, y_range,
                          area, points)
    # a ridge point was given: the layout has its spot
    ridge = layout.ridge or LabelSpot("", ridge_x, roofline.peak_flops, "start", True, True)
    return {
        "ceiling_x": np.array([_pad(s["x"]) for s in ceilings]),
        "ceiling_y": np.array([_pad(s["y"]) for s in ceilings]),
        "ceiling_labels": [line.text for line in lines],
        "ceiling_rows": [ceiling_row(line.roof) for line in lines],
        "ceiling_colors": [line_color(line.kind, line.roof.device) for line in lines],
        # one Label mark per alignment (bqplot's ``align`` is the mark's): each holds every
        # ceiling, its text "" where the other mark draws it
        "label_texts": [spot.text if spot.align == "end" else "" for spot in layout.ceilings],
        "start_texts": [spot.text if spot.align == "start" else "" for spot in layout.ceilings],
        "label_x": np.array([spot.x for spot in layout.ceilings]),
        "label_y": np.array([spot.y for spot in layout.ceilings]),
        "roof_x": np.array(roof["x"]) if len(roofs) == 1 else np.array([_pad(s["x"]) for s in roofs]),
        "roof_y": np.array(roof["y"]) if len(roofs) == 1 else np.array([_pad(s["y"]) for s in roofs]),
        "roof_labels": [s["label"] for s in roofs],
        "roof_colors": [line_color("roof", s["device"]) for s in roofs],
        "ridge_x": np.array([ridge_x]),
        "ridge_y": np.array([roofline.peak_flops]),
        "ridge_text": [ridge.text],
        "ridge_align": ridge.align,
        "ridge_offset": (LABEL_GAP_PX * (1 if ridge.align == "start" else -1),
                         ridge.y_offset_px),
    }


class CeilingMarks:
    """The marks drawn from the ceilings: lines, their labels, the roofline and the ridge.

    Parameters
    ----------
    scales : dict
        The figure's ``{"x": LogScale, "y": LogScale}``.
    ridge_tooltip : ipywidgets.HTML
        The ridge label's tooltip (never shown: it carries the figure's tooltip CSS).

    Attributes
    ----------
    ceilings : bqplot.Lines
        Every ceiling but the main roof, one line each; hovering one fills
        ``roof_tooltip`` with where its number came from.
    labels, labels_start : bqplot.Label
        The ceilings' texts on their lines: those ending at their anchor, and
        those starting there (each mark holds every ceiling, the other's texts empty).
    roof : bqplot.Lines
        The main roofline (one line per device with roofs of its own).
    ridge : bqplot.Label
        The ridge point's label.
    roof_tooltip : ipywidgets.HTML
        The hover text of a ceiling (DOM class ``roofline-roof-tooltip``).
    """

    def __init__(self, scales: dict, ridge_tooltip: widgets.HTML) -> None:
        # The Lines' own labels sit at the line ends, clipped at the right edge: ``labels``
        # draws them on the lines instead.  bqplot 0.13 sends a Label's hover to no one: the
        # lines carry the ceilings' tooltip (the hovered line's ``name`` is its label).
        self.roof_tooltip = widgets.HTML()
        self.roof_tooltip.add_class("roofline-roof-tooltip")
        self._rows: dict[str, dict] = {}
        self.ceilings = bq.Lines(
            x=np.ones((1, LINE_VERTICES)), y=np.ones((1, LINE_VERTICES)), scales=scales,
            line_style="dashed", stroke_width=1.5, labels_visibility="none", visible=False,
            tooltip=self.roof_tooltip, tooltip_style=dict(TOOLTIP_STYLE),
            interactions={"hover": "tooltip"})
        self.ceilings.on_hover(self._on_hover)
        self.roof = bq.Lines(x=np.ones(2), y=np.ones(2), scales=scales, colors=[ROOF_COLOR],
                             stroke_width=3, visible=False)
        # Labels, not Scatters: the browser tests count the points' ``.dot`` elements.
        self.labels, self.labels_start = (bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=scales, default_size=LABEL_SIZE,
            font_weight="normal", align=align, x_offset=offset, y_offset=0, visible=False)
            for align, offset in (("end", -LABEL_GAP_PX), ("start", LABEL_GAP_PX)))
        self.ridge = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=scales, colors=[RIDGE_COLOR],
            default_size=LABEL_SIZE, font_weight="normal", align="start",
            x_offset=LABEL_GAP_PX, y_offset=RIDGE_LABEL_DROP_PX, visible=False,
            tooltip=ridge_tooltip, enable_hover=False)

    @property
    def marks(self) -> tuple:
        """The marks, in drawing order."""
        return self.ceilings, self.roof, self.labels, self.labels_start, self.ridge

    def assign(self, data: dict) -> None:
        """Draw :func:`roof_marks_data`'s ``data`` ({}: hide every mark)."""
        visible = bool(data)
        for mark in self.marks:
            mark.visible = visible
        if not visible:
            return
        self.ceilings.x, self.ceilings.y = data["ceiling_x"], data["ceiling_y"]
        self.ceilings.labels = data["ceiling_labels"]
        self.ceilings.colors = data["ceiling_colors"]
        for mark, texts in ((self.labels, data["label_texts"]),
                            (self.labels_start, data["start_texts"])):
            mark.x, mark.y = data["label_x"], data["label_y"]
            mark.text = texts
            mark.colors = data["ceiling_colors"]
        self._rows = dict(zip(data["ceiling_labels"], data["ceiling_rows"]))
        self.roof.x, self.roof.y = data["roof_x"], data["roof_y"]
        self.roof.labels = data["roof_labels"]
        self.roof.colors = data["roof_colors"]
        self.ridge.x, self.ridge.y = data["ridge_x"], data["ridge_y"]
        self.ridge.text = data["ridge_text"]
        self.ridge.align = data["ridge_align"]
        self.ridge.x_offset, self.ridge.y_offset = data["ridge_offset"]

    def _on_hover(self, mark, content: dict) -> None:
        """A ceiling's line was hovered: its tooltip says where the number came from.

        bqplot sends the hovered line's data, whose ``name`` is the line's label.
        """
        line = content.get("data") or content.get("point") or {}
        row = self._rows.get(str(line.get("name")))
        if row is not None:
            self.roof_tooltip.value = roof_tooltip_html(row)
