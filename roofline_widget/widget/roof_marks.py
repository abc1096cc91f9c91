"""The widget's ceiling marks: a scene's roofs and their labels drawn with bqplot marks."""

from __future__ import annotations

import bqplot as bq
import ipywidgets as widgets
import numpy as np

from roofline_widget.look.ceiling_labels import LABEL_GAP_PX, RIDGE_LABEL_DROP_PX
from roofline_widget.look.ceiling_lines import ceiling_row
from roofline_widget.look.colors import RIDGE_COLOR, ROOF_COLOR
from roofline_widget.look.markers import CEILING_STROKE, ROOF_STROKE
from roofline_widget.look.texts import LABEL_SIZE
from roofline_widget.scene.parts import Label, RoofLine
from roofline_widget.widget.html import TOOLTIP_STYLE, roof_tooltip_html
from roofline_widget.widget.lazy_section import LazyWidget
from roofline_widget.widget.opening import opened_at_exit
from roofline_widget.widget.shared_looks import SharedLooks

__all__ = ["LINE_VERTICES", "CeilingMarks"]

#: Every ceiling line is padded to this many vertices (one Lines mark holds them all).
LINE_VERTICES = 3


def _padded(lines: list[RoofLine], axis: str) -> np.ndarray:
    """The lines' ``x`` or ``y`` vertices, each padded to ``LINE_VERTICES`` with its last one."""
    return np.array([list(getattr(line, axis)) + [getattr(line, axis)[-1]] * (
        LINE_VERTICES - len(getattr(line, axis))) for line in lines])


def _draw_rooflines(mark: bq.Lines, rooflines: list[RoofLine]) -> None:
    """One line per roofline on ``mark`` (none: hidden)."""
    mark.visible = bool(rooflines)
    if not rooflines:
        return
    if len(rooflines) == 1:
        mark.x, mark.y = np.array(rooflines[0].x), np.array(rooflines[0].y)
    else:
        mark.x, mark.y = _padded(rooflines, "x"), _padded(rooflines, "y")
    mark.labels = [roof.label for roof in rooflines]
    mark.colors = [roof.color for roof in rooflines]


def _ceiling_labels(scales: dict, align: str, offset: float) -> bq.Label:
    """A hidden mark of the ceilings' labels aligned at ``align`` ("end", "start") of their
    anchor, ``offset`` px from it."""
    return bq.Label(x=np.ones(1), y=np.ones(1), text=[""], scales=scales, default_size=LABEL_SIZE,
                    font_weight="normal", align=align, x_offset=offset, y_offset=0, visible=False)


def _draw_texts(mark: bq.Label, texts: list[Label], ceilings: list[RoofLine]) -> None:
    """Every ceiling's label on ``mark``, its text "" where it has the other alignment."""
    mark.x = np.array([label.x for label in texts])
    mark.y = np.array([label.y for label in texts])
    mark.text = [label.text if label.align == mark.align else "" for label in texts]
    mark.colors = [roof.color for roof in ceilings]


def _roof_lines(scales: dict, style: str) -> bq.Lines:
    """A hidden roofline mark (``style``: "solid" or "dashed")."""
    return bq.Lines(x=np.ones(2), y=np.ones(2), scales=scales, colors=[ROOF_COLOR],
                    stroke_width=ROOF_STROKE.bqplot, line_style=style, visible=False)


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
        Both are made with the figure: a mark added to a figure later makes the browser
        draw every mark of it again (the WebGL points twice in a frame).
    roof : bqplot.Lines
        The main roofline (one line per device with roofs of its own).
    theoretical_roof : bqplot.Lines
        The rooflines whose compute roof is theoretical, dashed (bqplot's
        ``line_style`` is a mark's): no measurement reached them.  Made for the first
        such roofline (in :attr:`marks` from then on).
    ridge : bqplot.Label
        The ridge point's label.
    roof_tooltip : ipywidgets.HTML
        The hover text of a ceiling (DOM class ``roofline-roof-tooltip``).
    """

    def __init__(self, scales: dict, ridge_tooltip: widgets.HTML, *,
                 looks: SharedLooks | None = None) -> None:
        # The Lines' own labels sit at the line ends, clipped at the right edge: ``labels``
        # draws them on the lines instead.  bqplot 0.13 sends a Label's hover to no one: the
        # lines carry the ceilings' tooltip (the hovered line's ``name`` is its label).
        self.roof_tooltip = (looks or SharedLooks()).html(css="roofline-roof-tooltip")
        self._rows: dict[str, dict] = {}
        self.ceilings = bq.Lines(
            x=np.ones((1, LINE_VERTICES)), y=np.ones((1, LINE_VERTICES)), scales=scales,
            line_style="dashed", stroke_width=CEILING_STROKE.bqplot, labels_visibility="none",
            visible=False,
            tooltip=self.roof_tooltip, tooltip_style=dict(TOOLTIP_STYLE),
            interactions={"hover": "tooltip"})
        self.ceilings.on_hover(self._on_hover)
        self.roof = _roof_lines(scales, "solid")
        # dashed: made for the first theoretical roofline drawn (or when read)
        self._theoretical = LazyWidget(lambda: _roof_lines(scales, "dashed"))
        # Labels, not Scatters: the browser tests count the points' ``.dot`` elements.
        self.labels = _ceiling_labels(scales, "end", -LABEL_GAP_PX)
        self.labels_start = _ceiling_labels(scales, "start", LABEL_GAP_PX)
        self.ridge = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=scales, colors=[RIDGE_COLOR],
            default_size=LABEL_SIZE, font_weight="normal", align="start",
            x_offset=LABEL_GAP_PX, y_offset=RIDGE_LABEL_DROP_PX, visible=False,
            tooltip=ridge_tooltip, enable_hover=False)

    @property
    def theoretical_roof(self) -> bq.Lines:
        """The theoretical rooflines' dashed mark (made now if none was drawn before)."""
        return self._theoretical.widget

    @property
    def marks(self) -> tuple:
        """The marks, in drawing order (the dashed roof's once made)."""
        dashed = (self.theoretical_roof,) if self._theoretical.made else ()
        return (self.ceilings, self.roof, *dashed, self.labels, self.labels_start, self.ridge)

    def draw(self, roofs: tuple[RoofLine, ...], labels: tuple[Label, ...]) -> None:
        """Draw a scene's ``roofs`` and ``labels`` (none: hide every mark)."""
        visible = bool(roofs)
        # the rooflines' marks: shown by _draw_rooflines (set twice in one hold_sync, a mark
        # would send ``visible`` unchanged)
        for mark in (self.ceilings, self.labels, self.labels_start, self.ridge):
            mark.visible = visible
        if not visible:
            for mark in (self.roof, *((self.theoretical_roof,) if self._theoretical.made else ())):
                mark.visible = False
            return
        ceilings = [roof for roof in roofs if roof.roof is not None]
        self.ceilings.x, self.ceilings.y = _padded(ceilings, "x"), _padded(ceilings, "y")
        self.ceilings.labels = [roof.label for roof in ceilings]
        self.ceilings.colors = [roof.color for roof in ceilings]
        texts = [label for label in labels if label.kind == "ceiling"]
        # one Label mark per alignment (bqplot's ``align`` is the mark's): each holds every
        # ceiling, its text "" where the other mark draws it
        for mark in (self.labels, self.labels_start):
            _draw_texts(mark, texts, ceilings)
        self._rows = {roof.label: ceiling_row(roof.roof) for roof in ceilings
                      if roof.roof is not None}
        rooflines = [roof for roof in roofs if roof.roof is None]
        _draw_rooflines(self.roof, [roof for roof in rooflines if roof.style != "dashed"])
        theoretical = [roof for roof in rooflines if roof.style == "dashed"]
        if theoretical or self._theoretical.made:
            # made now: opened with its first lines, in one message
            with opened_at_exit(), self.theoretical_roof.hold_sync():
                _draw_rooflines(self.theoretical_roof, theoretical)
        ridge = next((label for label in labels if label.kind == "ridge"), None)
        if ridge is not None:
            self.ridge.x, self.ridge.y = np.array([ridge.x]), np.array([ridge.y])
            self.ridge.text = [ridge.text]
            self.ridge.align = ridge.align
            self.ridge.x_offset, self.ridge.y_offset = (round(ridge.offset_px[0]),
                                                        round(-ridge.offset_px[1]))

    def _on_hover(self, mark, content: dict) -> None:
        """A ceiling's line was hovered: its tooltip says where the number came from.

        bqplot sends the hovered line's data, whose ``name`` is the line's label.
        """
        line = content.get("data") or content.get("point") or {}
        row = self._rows.get(str(line.get("name")))
        if row is not None:
            self.roof_tooltip.value = roof_tooltip_html(row)
