"""The widget's HTML tables: the detail panel (card and record), the selection, the left-out list, findings."""

from __future__ import annotations

import html

import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.guidance_rules import used_metrics_text
from roofline_widget.look.texts import TOOLTIP_FIELDS
from roofline_widget.points.rank_groups import summed_ranks
from roofline_widget.widget.html.card import point_card_html
from roofline_widget.widget.html.values import (
    CELL_STYLE,
    display_frame,
    display_value,
    rank_phrase,
    rank_text,
    ranks_text,
    rows_table,
)

__all__ = [
    "LEFT_OUT_COLUMNS",
    "LEFT_OUT_ROWS_SHOWN",
    "MAX_LISTED_FINDINGS",
    "SELECTION_COLUMNS",
    "SELECTION_ROWS_SHOWN",
    "detail_html",
    "details_html",
    "findings_list_html",
    "left_out_groups",
    "left_out_html",
    "record_html",
    "selection_html",
]

LEFT_OUT_ROWS_SHOWN = 500
SELECTION_ROWS_SHOWN = 50
#: The selection table's columns, key columns first (the long run name last).
SELECTION_COLUMNS = ("region", "rank", schema.PERFORMANCE, schema.BANDWIDTH,
                     schema.INTENSITY, "efficiency_percent", "bound", "file")
#: Most sanity findings listed in the status (the rest counted; all in ``layer.findings``).
MAX_LISTED_FINDINGS = 5


def _record_value(name: str, value, group) -> str:
    if name == "rank":
        return rank_text(value, group)
    if name == "guidance_metrics":
        return used_metrics_text(value)
    return display_value(value, name)


def record_html(row: pd.Series) -> str:
    """The full record of one point: every field, escaped, numbers rounded for display
    (the rank of a sum over ranks as its group)."""
    group = row.get("rank_group")
    return rows_table(((str(name), _record_value(str(name), value, group))
                       for name, value in row.items()),
                      cell_style=CELL_STYLE, table_class="roofline-detail-record")


def detail_html(row: pd.Series) -> str:
    """The card of one clicked point (:func:`point_card_html`), its full record below it,
    collapsed (:func:`record_html`)."""
    return (point_card_html(row) + "<details class='roofline-detail-fields'><summary>"
            f"all fields</summary>{record_html(row)}</details>")


def selection_html(frame: pd.DataFrame) -> str:
    """The selected points as an escaped table of the key columns, numbers rounded."""
    columns = [c for c in SELECTION_COLUMNS if c in frame.columns]
    labels = {item.column: item.label for item in TOOLTIP_FIELDS}
    table = display_frame(frame.head(SELECTION_ROWS_SHOWN))[columns].rename(columns=labels)
    text = table.to_html(index=False, escape=True, border=0, classes="roofline-selection")
    if len(frame) > SELECTION_ROWS_SHOWN:
        text += (f"<p>... and {len(frame) - SELECTION_ROWS_SHOWN:,} more: see "
                 "<code>selection_dataframe()</code> (full precision).</p>")
    return text


def details_html(selected: pd.DataFrame) -> str:
    """The detail panel: the record of the one selected point, or the selection's table."""
    if len(selected) == 0:
        return "<span style='color:#777'>Click a point to see its full record here.</span>"
    if len(selected) == 1:
        return detail_html(selected.iloc[0])
    return f"<b>{len(selected):,} points selected</b>" + selection_html(selected)


#: The left-out table's columns (``ranks`` joins the rows that differ in rank only).
LEFT_OUT_COLUMNS = ("region", "device", "ranks", "reason", "file")


def left_out_groups(left_out: pd.DataFrame) -> pd.DataFrame:
    """The left-out rows with the same file, region, device and reason joined, ranks listed.

    One row per (file, region, device, reason) in the order first seen, its
    ranks as :func:`ranks_text`, and the rows that sum several ranks named
    by their groups (``"sonata socket 0 (ranks 0-23)"``); ``device`` says
    ``cpu`` or ``gpu`` (a GPU region of LIKWID.jl or Nsight Compute may share
    its name with a CPU region).
    """
    keys = ["file", "region", "device", "reason"]
    frame = left_out.assign(**{k: left_out[k].astype(str) for k in keys if k in left_out})
    if "device" not in frame:
        frame = frame.assign(device="cpu")
    groups = frame["rank_group"] if "rank_group" in frame else [None] * len(frame)
    frame = frame.assign(summed=[summed_ranks(rank, group) for rank, group
                                 in zip(frame["rank"], groups)])
    grouped = frame.groupby(keys, sort=False, observed=True)[["rank", "summed"]].apply(_ranks_cell)
    return grouped.rename("ranks").reset_index()[list(LEFT_OUT_COLUMNS)]


def _ranks_cell(rows: pd.DataFrame) -> str:
    """The ranks of left-out rows: the groups of sums over ranks, then the single ranks."""
    summed = rows["summed"].notna().to_numpy()
    parts = list(dict.fromkeys(rows["summed"][summed]))
    if not summed.all():
        parts.append(ranks_text(rows["rank"][~summed]))
    return ", ".join(parts)


def left_out_html(left_out: pd.DataFrame) -> str:
    """The left-out rows as an escaped HTML table, rows that differ in rank only joined.

    At most LEFT_OUT_ROWS_SHOWN rows (:func:`left_out_groups`); the widget
    shows it in a collapsed "Left out (N)" section.
    """
    if len(left_out) == 0:
        return "<p>No region left out.</p>"
    groups = left_out_groups(left_out)
    text = groups.head(LEFT_OUT_ROWS_SHOWN).to_html(index=False, escape=True, border=0,
                                                     classes="roofline-left-out")
    if len(groups) > LEFT_OUT_ROWS_SHOWN:
        text += (f"<p>... and {len(groups) - LEFT_OUT_ROWS_SHOWN:,} more row(s): "
                 "see <code>left_out_dataframe()</code>.</p>")
    return text


def findings_list_html(findings: pd.DataFrame, limit: int = MAX_LISTED_FINDINGS) -> str:
    """The first ``limit`` sanity findings as an HTML list (escaped), "" for none."""
    if not len(findings):
        return ""
    items = []
    for _, row in findings.head(limit).iterrows():
        level = "all levels" if pd.isna(row["level"]) else row["level"]
        ranks = rank_phrase(row["rank"], row.get("rank_group"))
        where = f"{row['region']} ({ranks}, {level}, {row['check']})"
        items.append(f"<li>{html.escape(where)}: {html.escape(str(row['detail']))}</li>")
    if len(findings) > limit:
        items.append(f"<li>and {len(findings) - limit:,} more (<code>sanity_check</code>)</li>")
    return f"<ul class='roofline-level-findings'>{''.join(items)}</ul>"
