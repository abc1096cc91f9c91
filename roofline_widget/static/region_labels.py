"""Region labels in static (matplotlib) roofline plots, placed so that none overlap.

Each label names its point (:func:`~roofline_widget.look.point_names.point_names`:
its region, a host's point its host), one per name and run.  Greedy placement in
display (pixel) space: regions in order of importance (longest runtime first)
try a few positions around their point; the first position whose text extent
stays inside the axes and overlaps no label already placed, no other text of
the axes (ceiling labels, the legend), no point marker and no line (roofs,
ceilings, a comparison's arrows) is taken.  A region with no free position is
listed in a note under the axes instead (with its run where the same name has
points in several), so every point is either labelled or named.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.escaping import matplotlib_text
from roofline_widget.look.beyond_hardware import run_text
from roofline_widget.look.point_names import point_names

__all__ = [
    "CANDIDATE_OFFSETS",
    "LABEL_FONT_SIZE",
    "MAX_LABELS",
    "LabelPlacement",
    "label_text",
    "place_region_labels",
]

#: (dx, dy) offsets in points and the text alignment they go with, tried in order,
#: each at 1x, 2x, 3.5x and 5x the distance.
CANDIDATE_OFFSETS = (
    ((5, 4), "left", "bottom"), ((-5, 4), "right", "bottom"),
    ((5, -4), "left", "top"), ((-5, -4), "right", "top"),
    ((0, 7), "center", "bottom"), ((0, -7), "center", "top"),
    ((7, 0), "left", "center"), ((-7, 0), "right", "center"),
)
_DISTANCES = (1.0, 2.0, 3.5, 5.0)
#: At most this many regions get a label; the rest are named in the note.
MAX_LABELS = 40
LABEL_FONT_SIZE = 7
_LONGEST_LABEL = 32           # characters of a region name on the plot (the note has all)
_NOTE_NAMES = 30              # region names the note spells out
_MARKER_RADIUS_PT = 4.0       # a point marker's radius (scatter s=36: 6 pt across)
_PAD_PX = 1.0
_LINE_STEP_PX = 2.0           # lines are obstacles sampled this densely
_NOTE_GAP_PT = 5.0            # between the notes under the axes and the note of the unlabelled


@dataclass
class LabelPlacement:
    """The result of :func:`place_region_labels`.

    Attributes
    ----------
    labels : dict
        ``{region: matplotlib.text.Annotation}`` of the regions labelled (a region with
        points in several runs once per run, its run named: ``"Setup (run #2)"``).
    unlabelled : list of str
        Regions that found no free position (or were past ``MAX_LABELS``), in order (named
        as in ``labels``).
    off_axes : list of str
        Regions whose point lies outside the axes' range (a rate beyond the hardware
        the axes do not follow; a point without FLOP work, drawn pinned at the axis
        edge): not labelled, named in the note as outside the axes.
    note : matplotlib.text.Text or None
        The note naming ``unlabelled`` and ``off_axes`` (None when every region is labelled).
    """

    labels: dict = field(default_factory=dict)
    unlabelled: list = field(default_factory=list)
    off_axes: list = field(default_factory=list)
    note: object = None


def label_text(region: str) -> str:
    """A region name as drawn next to its point (long names shortened with an ellipsis)."""
    region = str(region)
    if len(region) <= _LONGEST_LABEL:
        return region
    return region[:_LONGEST_LABEL - 1] + "\N{HORIZONTAL ELLIPSIS}"


def _anchors(points: pd.DataFrame, names: np.ndarray) -> pd.DataFrame:
    """One anchor point per name and run (column ``name``; ``file`` names the run): its
    best-performing point, longest-running first.

    Column ``key`` names the anchor in the note and :attr:`LabelPlacement.labels`: its name,
    with its run (:func:`~roofline_widget.look.beyond_hardware.run_text`) where the same name
    has points in several runs (``"Setup (..._compact1t_1537x2048_give)"``).
    """
    order = points.assign(name=names).sort_values(schema.PERFORMANCE, ascending=False,
                                                  kind="stable")
    anchors = order.drop_duplicates(["name", "file"] if "file" in order.columns else "name")
    if schema.RUNTIME in anchors.columns:
        anchors = anchors.sort_values(schema.RUNTIME, ascending=False, kind="stable")
    anchor_names = anchors["name"].astype(str)
    shared = anchor_names.duplicated(keep=False).to_numpy()
    keys = anchor_names.to_numpy(dtype=object)
    for position in np.flatnonzero(shared):
        row = next(anchors.iloc[[position]].itertuples(index=False))
        keys[position] = f"{keys[position]} ({run_text(row, anchors)})"
    return anchors.assign(key=keys)


def _free(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Per row of ``boxes`` (m x 4, ``x0, y0, x1, y1``) whether it overlaps no row of ``others``
    (n x 4): one m x n comparison."""
    if not len(others):
        return np.ones(len(boxes), dtype=bool)
    overlap = ((others[None, :, 0] < boxes[:, None, 2]) & (boxes[:, None, 0] < others[None, :, 2])
               & (others[None, :, 1] < boxes[:, None, 3]) & (boxes[:, None, 1] < others[None, :, 3]))
    return np.logical_not(overlap.any(axis=1))


def _extent(artist, renderer) -> tuple:
    box = artist.get_window_extent(renderer)
    return (box.x0 - _PAD_PX, box.y0 - _PAD_PX, box.x1 + _PAD_PX, box.y1 + _PAD_PX)


def _line_samples(axes, step_px: float = _LINE_STEP_PX) -> np.ndarray:
    """Points every ``step_px`` along every drawn line of ``axes`` (display space, n x 2)."""
    segments = [np.zeros((0, 2, 2))]
    for line in axes.get_lines():
        if not line.get_visible():
            continue
        xy = axes.transData.transform(np.column_stack(line.get_data()).astype(float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        segments.append(np.stack([xy[:-1], xy[1:]], axis=1))
    return _segment_samples(np.concatenate(segments), step_px)


def _segment_samples(segments: np.ndarray, step_px: float = _LINE_STEP_PX) -> np.ndarray:
    """Points every ``step_px`` along each segment (``segments``: n x 2 ends x 2), both ends
    included (display space, m x 2)."""
    starts, ends = segments[:, 0], segments[:, 1]
    counts = np.maximum(np.hypot(*(ends - starts).T) // step_px, 1).astype(np.intp) + 1
    segment = np.repeat(np.arange(len(segments)), counts)
    # each sample's fraction along its segment as numpy.linspace(0, 1, k) has it: i * (1 / (k - 1)),
    # the last exactly 1
    last = np.cumsum(counts) - 1
    fraction = (np.arange(len(segment)) - (last - counts + 1)[segment]) * (1.0 / (counts - 1))[segment]
    fraction[last] = 1.0
    return starts[segment] + fraction[:, None] * (ends - starts)[segment]


def _squares(centres: np.ndarray, radius: float) -> np.ndarray:
    return np.column_stack([centres[:, 0] - radius, centres[:, 1] - radius,
                            centres[:, 0] + radius, centres[:, 1] + radius])


def _text_boxes(text, renderer) -> np.ndarray:
    """Boxes covering a text: its extent, or squares along a rotated line of text.

    A rotated label (a slope's) lies along a diagonal of its extent, which
    is mostly empty: the squares (the text's height across) cover the text only.
    """
    box = _extent(text, renderer)
    angle = text.get_rotation() % 180
    if min(angle, 180 - angle) < 5 or text.get_text().count("\n"):
        return np.asarray([box], dtype=float)
    x0, y0, x1, y1 = box
    start, end = ((x0, y0), (x1, y1)) if angle < 90 else ((x0, y1), (x1, y0))
    height = 1.3 * text.get_fontsize() * text.figure.dpi / 72
    return _squares(_segment_samples(np.array([[start, end]], dtype=float)), height / 2)


def _arrow_boxes(axes, arrows: Sequence, half_width_pt: float) -> np.ndarray:
    """Squares along each arrow (``(x, y)`` in data units, straight on screen from its first
    to its last point), ``half_width_pt`` out from its line (at least a line's)."""
    if not len(arrows):
        return np.zeros((0, 4))
    ends = np.array([[(x[0], y[0]), (x[-1], y[-1])] for x, y in arrows], dtype=float)
    ends = axes.transData.transform(ends.reshape(-1, 2)).reshape(-1, 2, 2)
    ends = ends[np.isfinite(ends).all(axis=(1, 2))]
    half = max(half_width_pt * axes.figure.dpi / 72, _LINE_STEP_PX / 2)
    return _squares(_segment_samples(ends), half)


def _obstacles(axes, renderer, xy_px: np.ndarray, arrows: np.ndarray) -> np.ndarray:
    """Boxes labels must avoid: the axes' texts, the legend, every point marker and line, and
    ``arrows`` (:func:`_arrow_boxes`)."""
    boxes = [_text_boxes(text, renderer) for text in axes.texts if text.get_visible()]
    legend = axes.get_legend()
    if legend is not None:
        boxes.append(np.asarray([_extent(legend, renderer)], dtype=float))
    radius = _MARKER_RADIUS_PT * axes.figure.dpi / 72
    return np.vstack([*boxes, np.zeros((0, 4)), _squares(xy_px, radius),
                      _squares(_line_samples(axes), _LINE_STEP_PX / 2), arrows])


def _candidate_boxes(anchor, size, dpi: float) -> list[tuple]:
    """The box of each candidate position of a text of ``size`` (w, h px) at ``anchor`` (px),
    in :data:`CANDIDATE_OFFSETS` x :data:`_DISTANCES` order, with the offset and alignment."""
    width, height = size
    boxes = []
    for distance in _DISTANCES:
        for (dx, dy), ha, va in CANDIDATE_OFFSETS:
            x = anchor[0] + dx * distance * dpi / 72
            y = anchor[1] + dy * distance * dpi / 72
            x0 = {"left": x, "right": x - width, "center": x - width / 2}[ha]
            y0 = {"bottom": y, "top": y - height, "center": y - height / 2}[va]
            boxes.append(((x0 - _PAD_PX, y0 - _PAD_PX, x0 + width + _PAD_PX,
                           y0 + height + _PAD_PX), (dx * distance, dy * distance), ha, va))
    return boxes


def _try_place(annotation, renderer, frame, blocked: np.ndarray) -> tuple | None:
    """Move ``annotation`` to the first candidate position whose box is free; that box, or None.

    The text is laid out once (its size); each candidate's box follows from it.
    """
    extent = annotation.get_window_extent(renderer)
    anchor = annotation.axes.transData.transform(annotation.xy)
    candidates = _candidate_boxes(anchor, (extent.width, extent.height), annotation.figure.dpi)
    boxes = np.asarray([box for box, *_ in candidates])
    inside = ((boxes[:, 0] >= frame.x0) & (boxes[:, 2] <= frame.x1)
              & (boxes[:, 1] >= frame.y0) & (boxes[:, 3] <= frame.y1))
    # the first candidate inside the axes that overlaps nothing: the obstacles within reach of
    # any candidate found once, then the candidates of one distance at once (most labels find
    # room at the first)
    reach = (boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max())
    near = blocked[(blocked[:, 0] < reach[2]) & (reach[0] < blocked[:, 2])
                   & (blocked[:, 1] < reach[3]) & (reach[1] < blocked[:, 3])]
    step = len(CANDIDATE_OFFSETS)
    for first in range(0, len(candidates), step):
        free = np.flatnonzero(inside[first:first + step]
                              & _free(boxes[first:first + step], near))
        if len(free):
            box, offset, ha, va = candidates[first + free[0]]
            annotation.xyann = offset
            annotation.set_ha(ha)
            annotation.set_va(va)
            return box
    return None


def _under_notes(axes, renderer) -> float:
    """Where (figure fraction) the text under the x axis and the notes drawn below the axes ends,
    less a gap of :data:`_NOTE_GAP_PT`."""
    frame = axes.get_window_extent(renderer)
    boxes = [text.get_window_extent(renderer) for text in axes.texts if text.get_visible()]
    bottoms = [box.y0 for box in boxes if box.y1 <= frame.y0]
    lowest = min([axes.xaxis.get_tightbbox(renderer).y0, *bottoms])
    return (lowest - _NOTE_GAP_PT * axes.figure.dpi / 72) / axes.figure.bbox.height


def _named(regions: list) -> str:
    names = ", ".join(str(r) for r in regions[:_NOTE_NAMES])
    if len(regions) > _NOTE_NAMES:
        names += f" and {len(regions) - _NOTE_NAMES:,} more (see the data export)"
    return names


def _note(axes, placement: LabelPlacement, renderer):
    """A note under the axes (and the notes there) naming the regions without a label."""
    parts = [f"{what}: {_named(regions)}" for what, regions in (
        ("Not labelled (no room)", placement.unlabelled),
        ("Not labelled (outside the axes)", placement.off_axes)) if regions]
    text = textwrap.fill("; ".join(parts), width=150)
    # under the axes, from their left edge (as the other notes above it)
    return axes.figure.text(axes.get_position().x0, _under_notes(axes, renderer),
                            matplotlib_text(text),
                            fontsize=LABEL_FONT_SIZE, color="0.3", ha="left", va="top")


def place_region_labels(axes, points: pd.DataFrame, *, names: np.ndarray | None = None,
                        max_labels: int = MAX_LABELS, arrows: Sequence = (),
                        arrow_half_width_pt: float = 0.0) -> LabelPlacement:
    """Label each region's point on ``axes`` with no two labels overlapping.

    Call it after everything else is drawn on ``axes`` (points, ceiling labels,
    legend, limits): those are obstacles.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
        Log-log roofline axes (x: ``arithmetic_intensity_flops_per_byte``,
        y: ``performance_gflops``) on a figure with a canvas.
    points : pandas.DataFrame
        The plotted points (``region``, the two coordinates, optionally
        ``runtime_seconds`` for the order).
    names : numpy.ndarray, optional
        Per point its name (default
        :func:`~roofline_widget.look.point_names.point_names`: a region, a host's
        point its host): one label per name and run (``file``).
    max_labels : int
        Most regions labelled; the others are named in the note.
    arrows : sequence of (x, y)
        Arrows drawn after the labels (a comparison's: annotations, whose boxes span their
        lines, so no obstacle in ``axes``), each straight on screen from its first point to
        its last (data units): the labels keep clear of them as of a line.
    arrow_half_width_pt : float
        How far out from its line an arrow reaches (its head's half width, points).

    Returns
    -------
    LabelPlacement
    """
    placement = LabelPlacement()
    if points.empty:
        return placement
    figure = axes.figure
    axes.get_xlim(), axes.get_ylim()  # the autoscaled limits, final before the transforms
    renderer = figure.canvas.get_renderer()
    frame = axes.get_window_extent(renderer)
    xy = points[[schema.INTENSITY, schema.PERFORMANCE]].to_numpy(float)
    blocked = _obstacles(axes, renderer, axes.transData.transform(xy),
                         _arrow_boxes(axes, arrows, arrow_half_width_pt))
    names = point_names(points) if names is None else names
    (x_low, x_high), (y_low, y_high) = sorted(axes.get_xlim()), sorted(axes.get_ylim())
    anchors = _anchors(points, names)
    for index, (region, name, x, y) in enumerate(zip(
            anchors["key"], anchors["name"].astype(str), anchors[schema.INTENSITY].to_numpy(float),
            anchors[schema.PERFORMANCE].to_numpy(float))):
        if not (x_low <= x <= x_high and y_low <= y <= y_high):
            placement.off_axes.append(region)
            continue
        if index >= max_labels:
            placement.unlabelled.append(region)
            continue
        annotation = axes.annotate(
            matplotlib_text(label_text(name)), (x, y),
            textcoords="offset points", xytext=(0, 0), fontsize=LABEL_FONT_SIZE,
            color="0.15", zorder=5, annotation_clip=False)
        box = _try_place(annotation, renderer, frame, blocked)
        if box is None:
            annotation.remove()
            placement.unlabelled.append(region)
            continue
        placement.labels[region] = annotation
        blocked = np.vstack([blocked, np.asarray(box, dtype=float)[None, :]])
    if placement.unlabelled or placement.off_axes:
        placement.note = _note(axes, placement, renderer)
    return placement
