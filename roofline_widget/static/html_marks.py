"""The marks of a shared page: the widget's marks copied with browser-only tooltips, the points in groups.

In the widget, a hover asks the kernel for the text of the point under the
mouse.  A page has no kernel, so each mark here carries its own
``bqplot.Tooltip`` over its own data: a point's ``name`` (region, rank, run,
efficiency, guidance: :func:`point_texts`, as plain text that bqplot writes with
``textContent``, so a region name is never read as HTML) and its intensity
and GFLOP/s; a ceiling's line its label and where its number came from.

The points are split into groups (:func:`point_groups`), one mark each, so
that a checkbox per region can show or hide its mark in the browser alone
(``jsdlink`` to the mark's ``visible``).  Where ranks can be toggled too,
each group holds one slot per rank, in the order of the ranks' list (a
slot without a point is parked far outside the axes), so that the list's
selected indices are the mark's selected points (``jsdlink`` from
``SelectMultiple.index`` to the mark's ``selected``) and the others are
hidden by its ``unselected_style``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import bqplot as bq
import numpy as np
import pandas as pd
from bqplot_gl import ScatterGL

from roofline_widget.look.markers import FLAGGED_STROKE
from roofline_widget.look.point_names import point_names
from roofline_widget.look.texts import provenance_text, roof_label
from roofline_widget.static.payload import point_devices

__all__ = [
    "GUIDANCE_CHARS",
    "GUIDANCE_WIDTH",
    "HIDDEN_STYLE",
    "HOLLOW_STROKE",
    "PARKED",
    "PointGroup",
    "ceiling_tooltip_texts",
    "copy_mark",
    "group_mark",
    "hollow_mark",
    "point_groups",
    "point_texts",
    "point_tooltip",
]

#: Where a slot without a point sits: 30 decades below any axis (clipped, never seen).
PARKED = np.float32(1e-30)
#: The look of the points of a rank switched off (bqplot applies it to unselected points).
HIDDEN_STYLE = {"opacity": 0.0}
#: The outline's width of a point beyond the hardware (px), as the widget's.
HOLLOW_STROKE = FLAGGED_STROKE.bqplot
#: Traits never copied from a widget's mark: its kernel-side tooltip and selection.
_NOT_COPIED = frozenset({"tooltip", "interactions", "selected", "scales", "names", "labels"})
#: A point's guidance in its hover text: wrapped at this many characters a line ...
GUIDANCE_WIDTH = 80
#: ... and cut after this many (a page has no detail panel: more than the widget's tooltip line).
GUIDANCE_CHARS = 480
_POINT_FIELDS = ["name", "x", "y"]
_POINT_LABELS = ["", "FLOP/byte", "GFLOP/s"]
_NUMBER_FORMAT = ".4~g"


@dataclass(frozen=True)
class PointGroup:
    """The points of one mark.

    Attributes
    ----------
    region : str or None
        The region whose checkbox shows it (None: no region toggles).
    rows : numpy.ndarray
        Row positions in the points frame, one per slot (-1: an empty slot).
    """

    region: str | None
    rows: np.ndarray


def point_groups(points: pd.DataFrame, by_region: bool, rank_slots: Sequence | None) -> list[PointGroup]:
    """The points split into marks: one per region (and run, with rank slots), or one.

    Parameters
    ----------
    points : pandas.DataFrame
        The points drawn (``file``, ``region``, ``rank``).
    by_region : bool
        One group per region (else one group for all).
    rank_slots : sequence or None
        The ranks in the order of the ranks' list: each group then holds one
        slot per rank (-1 where the group has no point of that rank); the
        points of a group must then differ in rank.  None: no slots.
    """
    keys = ["region"] if by_region else []
    if rank_slots is not None:
        keys = [*keys, "file"]
    position = np.arange(len(points))
    if not keys:
        return [PointGroup(None, position)]
    groups = []
    for key, index in points.groupby(keys, sort=False, observed=True).indices.items():
        region = (key[0] if isinstance(key, tuple) else key) if by_region else None
        rows = position[index]
        if rank_slots is not None:
            slot_of = {rank: slot for slot, rank in enumerate(rank_slots)}
            slots = np.full(len(rank_slots), -1, dtype=np.intp)
            slots[[slot_of[rank] for rank in points["rank"].to_numpy()[rows]]] = rows
            rows = slots
        groups.append(PointGroup(None if region is None else str(region), rows))
    return groups


def point_texts(points: pd.DataFrame, judged: pd.DataFrame | None,
                guidance: Sequence[str] | None = None) -> list[str]:
    """Each point's hover text, plain (not HTML): name (its region, a host's point its host:
    :func:`~roofline_widget.look.point_names.point_names`), rank or ranks, device, run, efficiency,
    guidance.

    The rank line is there when the points are of several ranks, the device
    line on a GPU's point (:func:`~roofline_widget.look.texts.device_text`), the
    run line when of several files; the efficiency when the points were judged
    (``judged``: :meth:`Roofline.classify <roofline_widget.Roofline.classify>` of ``points``);
    last the point's ``guidance`` (its limiting factor and advice, ``""`` for none), wrapped at
    :data:`GUIDANCE_WIDTH` and cut after :data:`GUIDANCE_CHARS` characters.

    Examples
    --------
    >>> frame = pd.DataFrame({"file": ["a", "b"], "region": ["<b>&", "solve"], "rank": [0, 1],
    ...                       "rank_group": ["rank 0", "rank 1"]})
    >>> point_texts(frame, None)
    ['<b>&\\nrank 0\\nrun a', 'solve\\nrank 1\\nrun b']
    """
    lines = [point_names(points).tolist()]  # a host's point named by its host
    if points["rank"].nunique() > 1 or ("rank_group" in points and (points["rank"] < 0).any()):
        groups = points["rank_group"] if "rank_group" in points else "rank " + points["rank"].astype(str)
        lines.append(groups.astype(str).tolist())
    lines.append(point_devices(points))
    if points["file"].nunique() > 1:
        lines.append(("run " + points["file"].astype(str)).tolist())
    if judged is not None and "efficiency_percent" in judged:
        lines.append([_efficiency(row) for row in judged.to_dict("records")])
    if guidance is not None:
        lines.append([_wrapped(text) for text in guidance])
    return ["\n".join(part for part in parts if part) for parts in zip(*lines)]


def _wrapped(text: str) -> str:
    """A guidance text cut to :data:`GUIDANCE_CHARS` and wrapped at :data:`GUIDANCE_WIDTH`."""
    text = str(text or "")
    if len(text) > GUIDANCE_CHARS:
        text = text[:GUIDANCE_CHARS - 1] + "…"
    return "\n".join(textwrap.wrap(text, GUIDANCE_WIDTH))


def _efficiency(row: dict) -> str:
    efficiency = row.get("efficiency_percent")
    if efficiency is None or not np.isfinite(efficiency):
        return "no roof of its kind"
    roof = row.get("bandwidth_roof") if row.get("bound") == "memory" else row.get("compute_roof")
    return f"{efficiency:.3g} % of {roof} ({row.get('bound')} bound)"


def ceiling_tooltip_texts(roofline, labels: Sequence[str]) -> list[str]:
    """Each ceiling line's hover text: its label, then where its number came from.

    ``labels`` are the labels of the widget's ceiling lines
    (:func:`~roofline_widget.look.texts.roof_label`); a label that is no roof's
    of ``roofline`` (the roofline's own) is kept as it is.
    """
    roofs = {} if roofline is None else {roof_label(r): r for r in [*roofline.bandwidth,
                                                                     *roofline.compute]}
    return [f"{label}\n{provenance_text(roofs[label])}" if label in roofs else str(label)
            for label in labels]


def copy_mark(mark: bq.Mark, labels: Sequence[str] | None = None) -> bq.Mark:
    """A copy of the widget's ``mark`` with a tooltip the browser fills alone.

    Same class, data, look and scales; its kernel-side tooltip is replaced:
    a line mark with ``labels`` shows the hovered line's label (``labels``,
    default its own), a scatter its point's intensity and GFLOP/s, a label none.
    """
    traits = {name: getattr(mark, name) for name in mark.trait_names(sync=True)
              if not name.startswith("_") and name not in _NOT_COPIED}
    own_labels = list(getattr(mark, "labels", []) or [])
    tooltip: bq.Tooltip | None = None
    if isinstance(mark, bq.Lines) and own_labels:
        traits["labels"] = list(labels) if labels is not None else own_labels
        tooltip = bq.Tooltip(fields=["name"], show_labels=False)
    elif isinstance(mark, bq.Lines):
        traits["labels"] = own_labels
    elif isinstance(mark, bq.Scatter) and mark.visible:
        tooltip = bq.Tooltip(fields=["x", "y"], labels=_POINT_LABELS[1:],
                             formats=[_NUMBER_FORMAT] * 2)
    if isinstance(mark, bq.Scatter) and mark.names is not None:
        traits["names"] = mark.names
    interactions = {"hover": "tooltip"} if tooltip is not None else {}
    return type(mark)(scales=dict(mark.scales), tooltip=tooltip, interactions=interactions, **traits)


def group_mark(template: bq.Mark, group: PointGroup, arrays: dict, texts: list[str] | None,
               tooltip: bq.Tooltip | None, webgl: bool) -> bq.Mark:
    """The mark of one group of points, with the look of the widget's points mark ``template``.

    Parameters
    ----------
    template : bqplot.Scatter or ScatterGL
        The widget's mark drawing the points (its look and scales are copied).
    group : PointGroup
    arrays : dict
        ``x``, ``y`` (float32), ``color`` (colour codes), ``size`` and
        ``flagged`` (or None) of every point, by row: a flagged point is
        drawn transparent here (its outline is :func:`hollow_mark`'s), its hover kept.
    texts : list of str or None
        Each point's hover text (None: no tooltip, the WebGL mark has no hover).
    tooltip : bqplot.Tooltip or None
        The tooltip the SVG marks share.
    webgl : bool
        Draw with bqplot-gl's ``ScatterGL`` (no per-point hover) instead of SVG.
    """
    rows = group.rows
    filled = rows >= 0
    take = np.where(filled, rows, 0)
    x = np.where(filled, arrays["x"][take], PARKED).astype(np.float32)
    y = np.where(filled, arrays["y"][take], PARKED).astype(np.float32)
    color = arrays["color"][take]
    look = {name: getattr(template, name) for name in
            ("default_size", "stroke", "stroke_width", "marker", "default_opacities")
            if template.has_trait(name)}
    scales = {name: scale for name, scale in template.scales.items()
              if name != "size" or arrays["size"] is not None}
    options: dict = dict(x=x, y=y, color=color, scales=scales, unselected_style=dict(HIDDEN_STYLE),
                         **look)
    if arrays["size"] is not None:
        options["size"] = arrays["size"][take].astype(np.float32)
    flagged = arrays.get("flagged")
    if flagged is not None and (flagged[take] & filled).any():
        options["opacities"] = np.where(flagged[take] & filled, 0.0, 1.0)
    if webgl:
        return ScatterGL(interactions={}, **options)
    if texts is not None:
        options["names"] = [texts[row] if row >= 0 else "" for row in rows]
    return bq.Scatter(names_unique=False, display_names=False, tooltip=tooltip,
                      interactions={"hover": "tooltip"} if tooltip is not None else {}, **options)


def hollow_mark(template: bq.Mark, group: PointGroup, arrays: dict) -> bq.Scatter | None:
    """The outlines of the flagged points of one group (those beyond what their hardware can
    do), in their colours, slot for slot as :func:`group_mark`'s (the others parked); None when
    the group has none.  SVG, no hover (the group's transparent point carries it)."""
    flagged = arrays.get("flagged")
    rows = group.rows
    take = np.where(rows >= 0, rows, 0)
    drawn = (rows >= 0) & (flagged[take] if flagged is not None else False)
    if not np.any(drawn):
        return None
    scales = {name: scale for name, scale in template.scales.items()
              if name != "size" or arrays["size"] is not None}
    options: dict = {}
    if arrays["size"] is not None:
        options["size"] = arrays["size"][take].astype(np.float32)
    return bq.Scatter(x=np.where(drawn, arrays["x"][take], PARKED).astype(np.float32),
                      y=np.where(drawn, arrays["y"][take], PARKED).astype(np.float32),
                      color=arrays["color"][take], scales=scales, fill=False,
                      default_size=template.default_size, stroke_width=HOLLOW_STROKE,
                      unselected_style=dict(HIDDEN_STYLE), interactions={}, **options)


def point_tooltip() -> bq.Tooltip:
    """The points' tooltip: the point's text, its intensity and its GFLOP/s."""
    return bq.Tooltip(fields=list(_POINT_FIELDS), labels=list(_POINT_LABELS),
                      formats=["", _NUMBER_FORMAT, _NUMBER_FORMAT])

