"""Hover texts of the widget's marks, and the CSS that lets clicks through them.

Every tooltip is a small table built by :func:`~.values.rows_table` (labels
and values escaped there): a point (compact; the full record goes to the
detail panel on click), a memory-level dot, a sanity finding's ring, a region's
rank spread, a baseline comparison.
"""

from __future__ import annotations

import html

import pandas as pd

from roofline_widget import schema
from roofline_widget.look.texts import TOOLTIP_FIELDS, X_LABEL, Y_LABEL, TooltipField, device_text
from roofline_widget.widget.html.values import (
    CELL_STYLE,
    number_text,
    percent_text,
    rank_phrase,
    rank_text,
    rows_table,
)

__all__ = [
    "GUIDANCE_LINE_STYLE",
    "SPREAD_WHISKERS",
    "TOOLTIP_CLASS",
    "TOOLTIP_COLUMNS",
    "TOOLTIP_CSS",
    "TOOLTIP_STYLE",
    "comparison_tooltip_html",
    "level_tooltip_html",
    "ring_tooltip_html",
    "roof_tooltip_html",
    "spread_tooltip_html",
    "tooltip_css_html",
    "tooltip_html",
]

#: CSS of every hover tooltip of the widget's marks (bqplot's ``tooltip_style``, applied to
#: the mark's tooltip div each time it is shown, after bqplot's own ``pointer-events``):
#: clicks go through a tooltip that opens under the pointer to the mark beneath it.
TOOLTIP_STYLE = {"opacity": 0.95, "pointer-events": "none"}
#: DOM class of the main tooltip's content (``RooflineFigure.tooltip``).
TOOLTIP_CLASS = "roofline-tooltip"
#: A stylesheet for the one container bqplot puts every tooltip of a figure in (a div
#: ``.bqplot_tooltip_div`` in the page's body, which ``tooltip_style`` does not reach and
#: which takes the pointer's clicks wherever it covers a mark): the figure's containers,
#: those holding a ``TOOLTIP_CLASS`` element, let clicks through too.
TOOLTIP_CSS = (f".bqplot_tooltip_div:has(.{TOOLTIP_CLASS}), .bqplot_tooltip_div:has(.{TOOLTIP_CLASS}) "
               "* { pointer-events: none !important; }")
#: The hover tooltip's fields (compact: the full record goes to the detail panel on click).
TOOLTIP_COLUMNS = ("region", "rank", schema.PERFORMANCE, schema.INTENSITY, "bound")
#: What the spread view's whiskers span (rank_spread's columns ``<quantity>_min`` / ``_max``).
SPREAD_WHISKERS = "min–max over ranks"
_TOOLTIP_TABLE_STYLE = "font-size:11px;line-height:1.25;border-collapse:collapse"


#: A roof's tooltip wraps its provenance at this width.
_ROOF_TOOLTIP_STYLE = f"{_TOOLTIP_TABLE_STYLE};max-width:420px"


def roof_tooltip_html(row: dict) -> str:
    """The hover text of a ceiling: its label, full name, what it bounds (level, device,
    precision, where set) and where its number came from.

    ``row`` is a row of :func:`~roofline_widget.look.ceiling_lines.ceiling_rows`;
    every value is escaped.
    """
    rows = [("roof", row["label"]), ("name", row["name"])]
    rows += [(key, row[key]) for key in ("level", "device", "precision") if row.get(key)]
    rows.append(("from", row["provenance"]))
    return rows_table(rows, table_style=_ROOF_TOOLTIP_STYLE, cell_style=CELL_STYLE,
                      table_class=TOOLTIP_CLASS)


def tooltip_css_html() -> str:
    """``TOOLTIP_CSS`` as a ``<style>`` element (it applies wherever it is in the page)."""
    return f"<style>{TOOLTIP_CSS}</style>"


def _field_text(row: pd.Series, item: TooltipField) -> str:
    value = row[item.column]
    if item.column == "rank":  # a sum over ranks: its group, "f0472 socket 0 (ranks 0-23)"
        return rank_text(value, row.get("rank_group"))
    if not item.spec:
        return str(value)
    return "n/a" if value is None or value != value else format(value, item.spec)


#: The style of the tooltip's guidance line: wrapped within the tooltip's width.
GUIDANCE_LINE_STYLE = f"{CELL_STYLE};max-width:340px;white-space:normal;color:#333"


def tooltip_html(row: pd.Series, guidance: str = "", name: str | None = None) -> str:
    """Compact hover text of one classified point (``TOOLTIP_COLUMNS``); every value escaped.

    A point summed over fewer threads than it ran on (``unmeasured_threads``
    > 0, selected with ``unmeasured="keep"``) says "N threads not measured".
    ``guidance`` (the point's limiting factor and advice, ``""`` for none) is
    the last line.  A GPU's point names its device after its rank
    (:func:`~roofline_widget.look.texts.device_text`).  ``name`` (the point's
    name, :func:`~roofline_widget.look.point_names.point_names`: a host's
    point its host's) replaces its region, when given.
    """
    by_column = {item.column: item for item in TOOLTIP_FIELDS}
    rows = [(item.label, name if name is not None and item.column == "region"
             else _field_text(row, item)) for item in (by_column[c] for c in TOOLTIP_COLUMNS)]
    device = device_text(row.get("device_family"), row.get("device_name"))
    if device:
        rows.insert(TOOLTIP_COLUMNS.index("rank") + 1, ("device", device))
    missing = int(row.get("unmeasured_threads", 0) or 0)
    note = ""
    if missing > 0:
        text = f"{missing} thread{'s' if missing > 1 else ''} not measured"
        note = f"<tr><td colspan='2' style='{CELL_STYLE}'><b>{html.escape(text)}</b></td></tr>"
    if guidance:
        note += (f"<tr class='roofline-tooltip-guidance'><td colspan='2' "
                 f"style='{GUIDANCE_LINE_STYLE}'>{html.escape(guidance)}</td></tr>")
    return rows_table(rows, table_style=_TOOLTIP_TABLE_STYLE, cell_style=CELL_STYLE, tail=note)


def level_tooltip_html(row: pd.Series) -> str:
    """Hover text of one level dot: level, metric, region, run, rank, intensity, rates (escaped)."""
    return rows_table([
        ("level", str(row["level"])), ("metric", str(row["bandwidth_metric"])),
        ("region", str(row["region"])), ("run", str(row["file"])),
        ("rank", rank_text(row["rank"], row.get("rank_group"))),
        ("FLOP/byte", format(float(row[schema.INTENSITY]), ".4g")),
        ("GFLOP/s", format(float(row[schema.PERFORMANCE]), ".4g")),
        ("GB/s", format(float(row[schema.BANDWIDTH]), ".4g"))])


def ring_tooltip_html(row: pd.Series) -> str:
    """Hover text of a finding's ring: where, then each finding's check and detail (escaped)."""
    where = (f"{row['region']} (run {row['file']}, {rank_phrase(row['rank'], row.get('rank_group'))}, "
             f"{row['level']}: {row['bandwidth_metric']})")
    items = "".join(f"<li>{html.escape(str(text))}</li>" for text in row["details"])
    return (f"<div><b>{html.escape(str(row['checks']))}</b></div>"
            f"<div>{html.escape(where)}</div><ul>{items}</ul>")


def spread_tooltip_html(row: pd.Series) -> str:
    """Hover text of one region's median point in the spread view; every name escaped."""
    def triple(stem, spec):
        values = [row[f"{stem}_{part}"] for part in ("min", "median", "max")]
        return " / ".join("n/a" if v != v else format(v, spec) for v in values)

    return rows_table([
        ("Region", str(row["region"])), ("Run", str(row["file"])),
        ("Ranks", f"{int(row['n_ranks']):,}"),
        ("GFLOP/s min / median / max", triple(schema.PERFORMANCE, ".4g")),
        ("Intensity min / median / max", triple(schema.INTENSITY, ".4g")),
        ("GB/s min / median / max", triple(schema.BANDWIDTH, ".4g")),
        ("Runtime s min / median / max", triple(schema.RUNTIME, ".4g")),
        ("Imbalance (max / mean runtime)", format(row["imbalance"], ".3f")),
        ("Slowest rank", str(int(row["slowest_rank"]))),
        ("Whiskers", SPREAD_WHISKERS), ("Click", "show this region's ranks as points")])


def comparison_tooltip_html(row: pd.Series) -> str:
    """Hover text of one comparison row: both points, speed-up and changes, escaped."""
    x, y = schema.INTENSITY, schema.PERFORMANCE
    runs = f"({row['run_before']} → {row['run_after']})"
    return rows_table([
        ("Region", str(row["region"])),
        (f"{X_LABEL} {runs}", f"{number_text(row[x + '_before'])} → {number_text(row[x + '_after'])}"),
        (f"{Y_LABEL} {runs}", f"{number_text(row[y + '_before'])} → {number_text(row[y + '_after'])}"),
        ("Runtime [s]", f"{number_text(row['runtime_seconds_before'])} → "
                        f"{number_text(row['runtime_seconds_after'])}"),
        ("Speed-up", number_text(row["speedup"], ".3g") + "×"),
        ("GFLOP/s change", percent_text(row["performance_change_percent"])),
        ("Intensity change", percent_text(row["intensity_change_percent"]))])
