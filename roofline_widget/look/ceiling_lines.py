"""Each ceiling's line with its roof and its label, and the ceilings table.

:meth:`Roofline.lines <roofline_widget.Roofline.lines>` gives one segment per
bandwidth roof, then one per compute roof (in the roofline's order), then the
roofline polylines (``kind == "roof"``).  :func:`ceiling_lines` pairs each
ceiling's segment with its roof, so that every view labels it with the one
label rule (:func:`~roofline_widget.look.texts.roof_label`) and can show where
its number came from (:func:`~roofline_widget.look.texts.provenance_text`):
the widget and the static plot draw them, :func:`ceiling_rows` is the table
of the ceilings (``Roofline._repr_html_``, the widget's "Ceilings" section,
the static plot's data export, the SVG titles of ``roofline-widget plot``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roofline_widget.look.texts import provenance_text, roof_label

if TYPE_CHECKING:  # annotations only: Roofline._repr_html_ imports this module
    from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

__all__ = ["CEILINGS_TABLE_COLUMNS", "CEILING_COLUMNS", "CeilingLine", "ceiling_lines",
           "ceiling_row", "ceiling_rows", "ceilings_table_html"]

#: The columns of the ceilings table (:func:`ceiling_rows`).
CEILING_COLUMNS = ("label", "kind", "value", "unit", "level", "device", "precision", "name",
                   "provenance")


@dataclass(frozen=True)
class CeilingLine:
    """One ceiling as drawn.

    Attributes
    ----------
    roof : ComputeRoof or BandwidthRoof
        The roof.
    segment : dict
        Its entry of ``Roofline.lines`` (``kind``, ``value``, ``x``, ``y``, ...).
    text : str
        Its label (:func:`~roofline_widget.look.texts.roof_label`).
    """

    roof: ComputeRoof | BandwidthRoof
    segment: dict
    text: str

    @property
    def kind(self) -> str:
        """``"compute"`` or ``"bandwidth"``."""
        return self.roof.kind

    @property
    def value(self) -> float:
        """GFLOP/s of a compute roof, GB/s of a bandwidth roof."""
        return self.roof.value


def ceiling_lines(roofline: Roofline, x_range: Sequence[float]
                  ) -> tuple[list[CeilingLine], list[dict]]:
    """The ceilings between the intensities ``x_range``, and every segment drawn.

    Returns
    -------
    (list of CeilingLine, list of dict)
        The bandwidth ceilings (highest first), then the compute ceilings
        (highest first); and every entry of ``roofline.lines(*x_range)`` (the
        roofline polylines too: what labels must not cross).

    Raises
    ------
    ValueError
        If a segment is not its roof's (``Roofline.lines`` changed its order).
    """
    segments = roofline.lines(*x_range)
    roofs: list[ComputeRoof | BandwidthRoof] = [*roofline.bandwidth, *roofline.compute]
    drawn = [segment for segment in segments if segment["kind"] != "roof"]
    if len(drawn) != len(roofs) or any(
            (segment["kind"], segment["name"]) != (roof.kind, roof.name)
            for segment, roof in zip(drawn, roofs)):
        raise ValueError("Roofline.lines no longer gives one segment per roof in the "
                         "roofline's order (bandwidth roofs, then compute roofs)")
    return [CeilingLine(roof, segment, roof_label(roof))
            for roof, segment in zip(roofs, drawn)], segments


def ceiling_row(roof: ComputeRoof | BandwidthRoof) -> dict:
    """One roof as a row of the ceilings table (:data:`CEILING_COLUMNS`).

    The label on its line, ``kind``, the value and unit, what the roof bounds
    (the memory level, None for a compute roof or any level; the device; the
    precision, None for a bandwidth roof or any precision), the roof's full
    name and where its number came from, in full.
    """
    return {"label": roof_label(roof), "kind": roof.kind, "value": roof.value,
            "unit": roof.unit, "level": getattr(roof, "level", None), "device": roof.device,
            "precision": getattr(roof, "precision", None), "name": roof.name,
            "provenance": provenance_text(roof)}


def ceiling_rows(roofline: Roofline) -> list[dict]:
    """The ceilings table: one row per roof (:func:`ceiling_row`), compute roofs first,
    each kind highest first."""
    roofs: list[ComputeRoof | BandwidthRoof] = [*roofline.compute, *roofline.bandwidth]
    return [ceiling_row(roof) for roof in roofs]



#: The ceilings table's columns as headed in HTML (from :data:`CEILING_COLUMNS`).
CEILINGS_TABLE_COLUMNS = {"label": "roof", "kind": "kind", "level": "level", "device": "device",
                          "precision": "precision", "name": "name",
                          "provenance": "where the number comes from"}


#: A cell of the ceilings table: left-aligned, a gap to the next column (headed columns that
#: are empty for every roof, as ``level`` of compute roofs, would otherwise run together).
_CELL_STYLE = "text-align:left;padding:1px 12px 1px 0"
#: The roof's label on one line; the provenance (file paths, lists: long words) wrapped
#: anywhere, inside the widget's width.
_COLUMN_STYLES = {"label": ";white-space:nowrap", "provenance": ";overflow-wrap:anywhere"}


def ceilings_table_html(rows: Sequence[dict]) -> str:
    """The ceilings as an HTML table, every text escaped: label, kind, what the roof bounds
    (level, device, precision; empty: any), name, provenance.

    ``rows`` are :func:`ceiling_rows`; ``Roofline._repr_html_`` and the widget's
    "Ceilings" section show it.
    """
    if not rows:
        return "<p>No ceilings: no points to take empirical ones from, and no peak given.</p>"
    head = "".join(f"<th style='{_CELL_STYLE}'>{html.escape(title)}</th>"
                   for title in CEILINGS_TABLE_COLUMNS.values())
    body = "".join(
        "<tr>" + "".join(f"<td style='{_CELL_STYLE}{_COLUMN_STYLES.get(key, '')}'>"
                         f"{html.escape(str(row.get(key) or ''))}</td>"
                         for key in CEILINGS_TABLE_COLUMNS) + "</tr>"
        for row in rows)
    return (f"<table class='roofline-ceilings-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")
