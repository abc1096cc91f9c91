"""Hover titles in an SVG roofline: each drawn point carries its numbers as an SVG ``<title>``,
each ceiling its label and where its number came from.

A browser or an SVG viewer shows an element's ``<title>`` as a tooltip, so the
file written by ``roofline-widget plot -o roofline.svg`` answers "which
region is this, how fast, how far from its roof" and "what is this roof,
measured how" on its own.  A ceiling's line is the SVG group
``roofline-ceiling-<n>`` of the n-th row of ``payload["ceiling_table"]``; its
title is that row's label (the one on the line) and provenance.

How: every scatter collection of the figure :func:`~roofline_widget.plot_roofline`
returned gets an SVG id (matplotlib's ``gid``) unless it has one; the figure is saved again,
and in that SVG each collection's group holds one element per point (markers of
one colour inside one clipped group), in the order of the collection's offsets.
Each offset is matched to the rows of the payload drawn at that spot (points,
memory-level dots, baseline points, findings); a point drawn at the axis edge (a region doing almost no FLOPs)
keeps one of its two coordinates, which matches it, or, pinned in both, is
matched to the payload's ``no_flop_work`` rows in their drawing order.  The text goes into the
SVG through :mod:`xml.etree.ElementTree`, which escapes it (a region named
``<script>`` stays text), after :func:`~roofline_widget.escaping.xml_text` (a control character,
which XML cannot hold, is written as its escape).
"""

from __future__ import annotations

import io
import os
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from roofline_widget.escaping import xml_text
from roofline_widget.points.rank_groups import summed_ranks
from roofline_widget.static.matplotlib_figure import NOTES_GID

__all__ = ["CEILING_GID", "GID_PREFIX", "NO_FLOP_DRAWN", "SVG_NAMESPACE", "add_hover_titles",
           "ceiling_titles", "note_titles", "point_texts"]

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
_XLINK_NAMESPACE = "http://www.w3.org/1999/xlink"
#: The SVG id of the n-th scatter collection that has none is ``f"{GID_PREFIX}{n}"``.
GID_PREFIX = "roofline-points-"
#: The SVG id of the n-th ceiling's line is ``f"{CEILING_GID}-{n}"`` (plot_roofline's gid).
CEILING_GID = "roofline-ceiling"
#: Where plot_roofline draws the regions doing almost no FLOPs (said in their titles).
NO_FLOP_DRAWN = "drawn at the axis edge"


def _where(row: dict, ranks: bool, group: object = None, name: object = None) -> str:
    """The point's ``name`` (by default its region; a host's point its host), and its rank
    when the runs have several, or the ranks it sums (its ``group``, by default its
    ``rank_group``: ``"f0472 socket 0 (ranks 0-23)"``)."""
    rank = row.get("rank")
    name = row["region"] if name is None else name
    group = row.get("rank_group") if group is None else group
    summed = None if rank is None else summed_ranks(rank, group)
    if summed and name != row["region"] and " (" in summed:  # named by its place: its ranks
        return f"{name}{summed[summed.rfind(' ('):]}"
    if summed:
        return f"{name} ({summed})"
    return f"{name} (rank {rank})" if ranks else str(name)


def _numbers(row: dict, suffix: str = "") -> str:
    return (f"{row['arithmetic_intensity_flops_per_byte' + suffix]:.4g} FLOP/byte, "
            f"{row['performance_gflops' + suffix]:.4g} GFLOP/s, "
            f"{row['bandwidth_gbs' + suffix]:.4g} GB/s")


def _key(row: dict) -> tuple:
    return row["file"], row["region"], row["rank"]


def point_texts(payload: dict) -> tuple[list[tuple[float, float, str]], list[str]]:
    """``(intensity, performance, text)`` of everything ``plot_roofline`` drew as a point.

    Parameters
    ----------
    payload : dict
        What :func:`~roofline_widget.plot_roofline` returned.

    Returns
    -------
    texts : list of tuple
        The regions' points (with efficiency and bound), the memory-level
        dots, the baseline points (with the speed-up), a sweep's runs and the findings.
    pinned : list of str
        The texts of the points drawn at the axis edge (almost no FLOPs), in
        the payload's order.
    """
    ranks = any(count > 1 for count in payload["file_ranks"].values())
    no_flop = {_key(row) for row in payload["no_flop_work"]}
    texts, pinned = [], []
    groups = payload.get("rank_groups") or [None] * len(payload["points"])
    flags = payload.get("beyond_hardware") or [""] * len(payload["points"])
    devices = payload.get("devices") or [""] * len(payload["points"])
    names = payload.get("point_names") or [None] * len(payload["points"])
    for point, analysis, group, flag, device, name in zip(
            payload["points"], payload["analysis"], groups, flags, devices, names):
        text = (f"{_where(point, ranks, group, name)}, run {point['file']}"
                f"{f', on {device}' if device else ''}\n{_numbers(point)}\n"
                f"{analysis['efficiency_percent']:.3g} % of attainable ({analysis['bound']} bound)")
        if flag:
            text += f"\n{flag}"
        if _key(point) in no_flop:
            text += f"\nalmost no FLOPs: {NO_FLOP_DRAWN}"
            pinned.append(text)
        texts.append((point["arithmetic_intensity_flops_per_byte"], point["performance_gflops"],
                      text))
    for dot in payload.get("levels", []):
        texts.append((dot["arithmetic_intensity_flops_per_byte"], dot["performance_gflops"],
                      f"{_where(dot, ranks)}, {dot['level']} level ({dot['bandwidth_metric']})\n"
                      f"{_numbers(dot)}"))
    for finding in payload.get("level_findings", []):
        for dot in payload.get("levels", []):
            if (dot["region"], dot["rank"], dot["file"]) == (
                    finding["region"], finding["rank"], finding["file"]) and (
                    finding["level"] in (None, dot["level"])):
                texts.append((dot["arithmetic_intensity_flops_per_byte"],
                              dot["performance_gflops"],
                              f"finding ({finding['check']}): {finding['detail']}"))
    sweep = payload.get("sweep")
    if sweep is not None:  # a chain drawn as a sweep: every run's point drawn
        for row in sweep[sweep["drawn"]].to_dict("records"):
            texts.append((row["arithmetic_intensity_flops_per_byte"], row["performance_gflops"],
                          f"{_where(row, ranks)}, run {row['file']}\n{_numbers(row)}"))
    comparison = payload.get("comparison")
    if comparison is not None:
        for row in comparison.to_dict("records"):
            if row["status"] in ("both", "only before"):
                texts.append((row["arithmetic_intensity_flops_per_byte_before"],
                              row["performance_gflops_before"],
                              f"{_where(row, ranks, row.get('rank_group_before'))}, "
                              f"baseline {row['file_before']}\n"
                              f"{_numbers(row, '_before')}\nspeed-up {row['speedup']:.3g}x"))
    return texts, pinned


def ceiling_titles(payload: dict) -> dict[str, str]:
    """The title of each ceiling's line by its SVG id: its label, then where its number came from."""
    return {f"{CEILING_GID}-{number}": f"{row['label']}\n{row['provenance']}"
            for number, row in enumerate(payload.get("ceiling_table", []))}


def note_titles(payload: dict) -> dict[str, str]:
    """The title of the notes under the axes (their text, which the SVG draws as glyphs): the
    points beyond the hardware, those above their roofs, the ceilings' notes (another machine,
    a theoretical roof's clock), the points doing almost no FLOPs."""
    notes = [payload.get("beyond_hardware_note"), payload.get("above_roofs_note"),
             *payload.get("ceiling_notes", []),
             payload.get("no_flop_note")]
    text = "\n".join(note for note in notes if note)
    return {NOTES_GID: text} if text else {}


def _title(element, text: str) -> None:
    title = ET.Element(f"{{{SVG_NAMESPACE}}}title")
    title.text = xml_text(text)
    element.insert(0, title)


class _Lookup:
    """Texts by (x, y), by y alone and by x alone (a point pinned to one axis edge), and the
    texts of the no-FLOP points in drawing order (pinned to both edges)."""

    def __init__(self, texts: list[tuple[float, float, str]], pinned: list[str]):
        self.tables: tuple[dict, dict, dict] = (defaultdict(list), defaultdict(list),
                                                defaultdict(list))
        for x, y, text in texts:
            for table, key in zip(self.tables, ((x, y), y, x)):
                if text not in table[key]:
                    table[key].append(text)
        self.pinned = list(pinned)

    def text_at(self, x: float, y: float) -> str | None:
        """The title of a point drawn at (x, y), None if nothing was drawn there."""
        both, by_y, by_x = self.tables
        for found in (both.get((x, y)), by_y.get(y), by_x.get(x)):
            if found:
                return "\n\n".join(found)
        return self.pinned.pop(0) if self.pinned else None


def _svg_with_titles(figure, lookup: _Lookup,
                     ceilings: dict[str, str]) -> tuple[bytes, int, int]:
    """The figure as SVG bytes with titles; how many points got one, how many were drawn."""
    from matplotlib.collections import PathCollection  # markers (not the grid's line collections)

    collections: list = [c for axes in figure.axes for c in axes.collections
                         if isinstance(c, PathCollection) and len(c.get_offsets()) > 0]  # type: ignore[arg-type]
    for number, collection in enumerate(collections):
        if not collection.get_gid():  # ids plot_roofline gave (the level findings' rings) stay
            collection.set_gid(f"{GID_PREFIX}{number}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")  # as plot_roofline saves it
    ET.register_namespace("", SVG_NAMESPACE)
    ET.register_namespace("xlink", _XLINK_NAMESPACE)
    root = ET.fromstring(buffer.getvalue())
    groups = {g.get("id"): g for g in root.iter(f"{{{SVG_NAMESPACE}}}g")}
    titled = drawn = 0
    for collection in collections:
        group = groups.get(collection.get_gid())
        offsets = collection.get_offsets()
        drawn += len(offsets)
        if group is None:
            continue
        elements = [e for e in group if e.tag != f"{{{SVG_NAMESPACE}}}defs"]
        if len(elements) == 1 and elements[0].tag == f"{{{SVG_NAMESPACE}}}g" \
                and len(elements[0]) == len(offsets):
            elements = list(elements[0])  # markers of one colour: clipped together in one group
        if len(elements) != len(offsets):
            continue  # not one element per point: leave this collection untitled
        for element, (x, y) in zip(elements, offsets):
            text = lookup.text_at(float(x), float(y))
            if text is not None:
                _title(element, text)
                element.set("pointer-events", "visible")  # hollow markers hover inside too
                titled += 1
    for gid, text in ceilings.items():
        if gid in groups:
            _title(groups[gid], text)
    return ET.tostring(root, xml_declaration=True, encoding="utf-8"), titled, drawn


def add_hover_titles(payload: dict, path: str | os.PathLike) -> tuple[int, int]:
    """Rewrite the SVG at ``path`` with a ``<title>`` on each point and ceiling (atomically).

    Parameters
    ----------
    payload : dict
        What :func:`~roofline_widget.plot_roofline` returned for the figure
        it wrote to ``path`` (its ``figure`` is saved again).
    path : str or path-like
        The SVG file.

    Returns
    -------
    titled, drawn : int
        How many drawn points got a title, and how many were drawn.
    """
    svg, titled, drawn = _svg_with_titles(payload["figure"], _Lookup(*point_texts(payload)),
                                          {**ceiling_titles(payload), **note_titles(payload)})
    target = Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".part")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(svg)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return titled, drawn
