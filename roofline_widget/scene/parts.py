"""What a roofline figure draws, as plain frozen dataclasses: the :class:`Scene` and its parts.

A scene holds data, never a plotting library's object: the roofs as lines
with their labels placed, the points and every layer's marks as
:class:`Dots` and :class:`Polylines` (positions, colours, markers, sizes, the
rows their tooltips show), the axis ranges, the title and the notes.  The
widget's bqplot figure and the static matplotlib figure each draw one
(``widget.figure``, ``static.matplotlib_figure``); :mod:`roofline_widget.scene.build`
makes it.

Colours are one of three kinds, so that a renderer reads them the same way:
``codes`` into a :class:`Coloring`'s palette (categories: regions, runs,
ranks), ``values`` on a :class:`Shade` (a sequential scale: rank imbalance),
or plain ``colors`` (hex, one per element or one for all).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.look.colors import OTHER_COLOR
from roofline_widget.look.label_boxes import LogPoints
from roofline_widget.look.markers import CIRCLE, JOIN_STROKE, OUTLINE, POINT, Marker, Size
from roofline_widget.look.point_names import PointNaming, point_names
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

if TYPE_CHECKING:
    from roofline_widget.scene.sweep import SweepPart

__all__ = [
    "Coloring",
    "ComparePart",
    "Dots",
    "Label",
    "LevelsPart",
    "Polylines",
    "RoofLine",
    "Scene",
    "Shade",
    "SpreadPart",
]

_EMPTY = np.zeros(0)


@dataclass(frozen=True)
class Coloring:
    """Categorical colours: the value of ``column`` picks a colour of ``palette``.

    Attributes
    ----------
    column : str
        The points-frame column (``"region"``, ``"file"``, ``"rank"``).
    categories : tuple
        Every value that has a colour, in code order (code ``i`` is
        ``palette[i % len(palette)]``: the widget's colours repeat past the palette).
    palette : tuple of str
        Hex colours.
    """

    column: str
    categories: tuple
    palette: tuple[str, ...]

    def keys(self, frame: pd.DataFrame):
        """What each row of ``frame`` is coloured by: its ``column``; coloured by region, its
        name (:func:`~roofline_widget.look.point_names.point_names`: a host's point its host's)."""
        return point_names(frame) if self.column == "region" else frame[self.column]

    def codes(self, values) -> np.ndarray:
        """The colour code of each value (float; -1: no colour of its own)."""
        if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):  # a frame's column
            found = self._index.get_indexer(values.cat.categories.astype(object))
            codes = np.append(found, -1)[values.cat.codes.to_numpy()].astype(float)
        else:
            values = np.asarray(values, dtype=object if self.column != "rank" else None)
            if self.column == "region":  # point names (str each): each name looked up once
                kinds, names = pd.factorize(values)
                codes = np.append(self._index.get_indexer(names), -1)[kinds].astype(float)
            else:
                codes = self._index.get_indexer(values).astype(float)
        return np.where(codes >= 0, codes % len(self.palette), -1.0)

    @cached_property
    def _index(self) -> pd.Index:
        return pd.Index(list(self.categories), dtype=object if self.column != "rank" else None)

    def colors(self, codes) -> list[str]:
        """Hex colour of each code (-1: :data:`~roofline_widget.look.colors.OTHER_COLOR`)."""
        return [self.palette[int(code)] if code >= 0 else OTHER_COLOR for code in codes]


@dataclass(frozen=True)
class Shade:
    """A sequential colour scale: ``colors`` spread from ``low`` to ``high``."""

    colors: tuple[str, ...]
    low: float
    high: float


@dataclass(frozen=True)
class RoofLine:
    """One line drawn from the ceilings: a ceiling (one roof) or a device's roofline.

    Attributes
    ----------
    kind : str
        ``"compute"``, ``"bandwidth"`` (a ceiling) or ``"roof"`` (a roofline polyline).
    x, y : tuple of float
        Its vertices (data).
    label : str
        What names it: a ceiling's label (:func:`~roofline_widget.look.texts.roof_label`),
        a roofline's legend text.
    color : str
    style : str
        ``"solid"`` (a roofline), ``"dashed"`` (a ceiling, or a roofline whose
        compute roof is theoretical: no measurement reached it) or ``"dotted"``
        (an empirical ceiling).
    roof : ComputeRoof, BandwidthRoof or None
        The ceiling's roof (where its number came from); None for a roofline.
    """

    kind: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    label: str
    color: str
    style: str
    roof: ComputeRoof | BandwidthRoof | None = None


@dataclass(frozen=True)
class Label:
    """A text placed on the plot (a ceiling's name and value, the ridge point).

    Attributes
    ----------
    text : str
        ``""`` where nothing is written (the line is out of view).
    x, y : float
        The anchor (data).
    align : str
        ``"end"`` or ``"start"``: the text ends (begins) at its reference point.
    color : str
    offset_px : (float, float)
        From the anchor to the reference point: pixels right and up (the
        reference point is where the text ends or begins, at its vertical centre).
    angle : float
        Degrees counter-clockwise on screen (a static slope label along its line).
    kind : str
        ``"ceiling"`` or ``"ridge"``.
    """

    text: str
    x: float
    y: float
    align: str
    color: str
    offset_px: tuple[float, float] = (0.0, 0.0)
    angle: float = 0.0
    kind: str = "ceiling"


@dataclass(frozen=True, eq=False)
class Dots:
    """Markers at points: the points, a level's dots, a baseline run, rank medians, rings.

    Attributes
    ----------
    name : str
        What they are (also the matplotlib ``gid`` of their collection).
    x, y : numpy.ndarray
        Positions (data).
    marker : Marker
    size : Size
    codes : numpy.ndarray or None
        Colour codes (:class:`Coloring`; -1: no colour of its own).
    colors : tuple of str
        Hex colours, one per dot or one for all (where ``codes`` and ``values`` are None).
    values, shade : numpy.ndarray and Shade, or None
        Colours on a sequential scale.
    sizes : numpy.ndarray or None
        A size in [0, 1] per dot (scaling ``size``), None: all ``size``.
    hollow : bool
        Drawn as outlines in their colours.
    flagged : numpy.ndarray or None
        Per dot, whether its rates are beyond what its hardware can do (a
        broken counter, :func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`):
        such a dot is drawn hollow in its colour; None: no dot is.
    stroke : Size
        The outline's width.
    opacity : float
    z : float
        Stacking order: higher is drawn over lower.
    rows : pandas.DataFrame or None
        One row per dot: what its tooltip shows.
    legend : str
        Its legend entry ("" for none).
    naming : PointNaming or None
        What names each dot in legends, labels and titles
        (:func:`~roofline_widget.look.point_names.point_naming`), None: its row's region.
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    marker: Marker = CIRCLE
    size: Size = POINT
    codes: np.ndarray | None = None
    colors: tuple[str, ...] = ()
    values: np.ndarray | None = None
    shade: Shade | None = None
    sizes: np.ndarray | None = None
    hollow: bool = False
    flagged: np.ndarray | None = None
    stroke: Size = OUTLINE
    opacity: float = 1.0
    z: float = 5.0
    rows: pd.DataFrame | None = None
    legend: str = ""
    naming: PointNaming | None = None

    def __len__(self) -> int:
        return len(self.x)

    @property
    def names(self) -> np.ndarray | None:
        """Per dot its name (:attr:`PointNaming.names`), None without a ``naming``."""
        return None if self.naming is None else self.naming.names

    def name_of(self, index: int) -> str:
        """Dot ``index``'s name: its ``naming``'s, else its row's region, else ``""``."""
        if self.naming is not None:
            return self.naming.name_of(index)
        if self.rows is not None and "region" in self.rows:
            return str(self.rows["region"].iloc[index])
        return ""


@dataclass(frozen=True, eq=False)
class Polylines:
    """Lines through vertices: the level joins, baseline arrows, rank whiskers.

    Attributes
    ----------
    name : str
    x, y : numpy.ndarray
        Shape ``(lines, vertices)`` (a shorter line repeats its last vertex).
    colors : tuple of str
        One per line (or one for all), where ``values`` is None.
    values, shade : numpy.ndarray and Shade, or None
        One value per line on a sequential scale.
    style : str
        ``"solid"`` or ``"dashed"``.
    stroke : Size
    opacity : float
    heads : bool
        An arrow head at each line's last vertex.
    z : float
        Stacking order: higher is drawn over lower.
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    colors: tuple[str, ...] = ()
    values: np.ndarray | None = None
    shade: Shade | None = None
    style: str = "solid"
    stroke: Size = JOIN_STROKE
    opacity: float = 1.0
    heads: bool = False
    z: float = 4.0

    def __len__(self) -> int:
        return len(self.x)


@dataclass(frozen=True, eq=False)
class LevelsPart:
    """The memory levels (a hierarchical roofline): a marker per level, joins, finding rings.

    Attributes
    ----------
    levels : tuple of str
        The levels shown.
    dots : dict
        Level -> :class:`Dots` (every level of ``analysis.levels.LEVELS``; empty where not shown).
    joins : Polylines
        One line per (file, rank, region) through its dots, inner level first.
    rings : Dots
        A hollow ring over every dot with a sanity finding.
    frame : pandas.DataFrame
        The rows drawn (``hierarchical_points`` of the shown levels).
    findings, left_out : pandas.DataFrame
        :func:`~roofline_widget.sanity_check` of the shown levels; the rows left out.
    """

    levels: tuple[str, ...]
    dots: dict
    joins: Polylines
    rings: Dots
    frame: pd.DataFrame
    findings: pd.DataFrame
    left_out: pd.DataFrame

    def marks(self) -> Iterator[Dots | Polylines]:
        yield self.joins
        yield from self.dots.values()
        yield self.rings


@dataclass(frozen=True, eq=False)
class ComparePart:
    """A baseline comparison (or a chain of runs): an arrow per region, each run's hollow points.

    Attributes
    ----------
    arrows : Polylines
        From each baseline point to the point it became (one segment per step of a chain).
    runs : tuple of Dots
        Per baseline run (chain order) its points, hollow, its own marker.
    labels : tuple of str
        The baseline runs' labels.
    frame : pandas.DataFrame
        The :func:`~roofline_widget.compare_points` rows of what is shown.
    error : str
        Why nothing is compared ("" when it is).
    notes : tuple of str
        What the comparison warned about.
    """

    arrows: Polylines
    runs: tuple[Dots, ...]
    labels: tuple[str, ...]
    frame: pd.DataFrame
    error: str = ""
    notes: tuple[str, ...] = ()

    def marks(self) -> Iterator[Dots | Polylines]:
        yield self.arrows
        yield from self.runs


@dataclass(frozen=True, eq=False)
class SpreadPart:
    """The spread of the ranks per region: the rank median, min-max whiskers, coloured by imbalance.

    Attributes
    ----------
    whiskers : Polylines
        Two per region (intensity, then GFLOP/s).
    medians : Dots
        One per region.
    spread : pandas.DataFrame
        :func:`~roofline_widget.rank_spread` of the regions drawn.
    notes : tuple of str
        What was left out or why the spread is drawn.
    """

    whiskers: Polylines
    medians: Dots
    spread: pd.DataFrame
    notes: tuple[str, ...] = ()

    def marks(self) -> Iterator[Dots | Polylines]:
        yield self.whiskers
        yield self.medians


@dataclass(frozen=True, eq=False)
class Scene:
    """Everything a roofline figure draws.

    Attributes
    ----------
    points : Dots
        The points (``codes`` of ``coloring``, ``rows`` the points' records).
    no_flop : numpy.ndarray
        Which points do almost no FLOPs (the axes leave them out; the static
        plot pins them to the axis edge).
    coloring : Coloring
        The points' categories and palette (the legend).
    roofline : Roofline or None
        The ceilings (None: none drawn).
    roofs : tuple of RoofLine
        Every ceiling (bandwidth then compute, each highest first), then each
        device's roofline, the main one last.
    labels : tuple of Label
        One per ceiling (in ``roofs``' order), then the ridge's (if labelled).
    ridge : (float, float) or None
        The main ridge point.
    x_range, y_range : (float, float)
        The axis limits.
    levels, comparison, spread : LevelsPart, ComparePart, SpreadPart or None
        The layers drawn between the ceilings and the points.
    sweep : SweepPart or None
        A chain of runs drawn as a sweep (:mod:`roofline_widget.scene.sweep`).
    title, x_label : str
    notes : tuple of str
        Plain-text notes under the axes: the points beyond the hardware first,
        then the points above their roofs, the points doing almost no FLOPs
        last, between them the notes on the
        ceilings (a theoretical roof's clock, why there is none, a run of
        another machine); "" where there is nothing to say.
    obstacles : LogPoints
        The points and layer dots the labels keep clear of.
    """

    points: Dots
    no_flop: np.ndarray
    coloring: Coloring
    roofline: Roofline | None
    roofs: tuple[RoofLine, ...]
    labels: tuple[Label, ...]
    ridge: tuple[float, float] | None
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    levels: LevelsPart | None = None
    comparison: ComparePart | None = None
    spread: SpreadPart | None = None
    sweep: SweepPart | None = None
    title: str = ""
    x_label: str = ""
    notes: tuple[str, ...] = ()
    obstacles: LogPoints = field(default_factory=lambda: LogPoints(_EMPTY, _EMPTY))

    @property
    def point_rows(self) -> pd.DataFrame:
        """The points' rows (one per point, in the points' order)."""
        if self.points.rows is None:
            raise ValueError("the scene's points carry no rows")
        return self.points.rows

    @property
    def parts(self) -> tuple:
        """The layers present, in drawing order (spread, levels, comparison, sweep)."""
        return tuple(p for p in (self.spread, self.levels, self.comparison, self.sweep)
                     if p is not None)

    @property
    def ceiling_labels(self) -> tuple[Label, ...]:
        """The ceilings' labels (in the order of the ceilings in ``roofs``)."""
        return tuple(label for label in self.labels if label.kind == "ceiling")

    @property
    def ridge_label(self) -> Label | None:
        """The ridge point's label (None: not labelled)."""
        return next((label for label in self.labels if label.kind == "ridge"), None)
