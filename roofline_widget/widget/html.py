"""The widget's HTML and text: tooltip, legend, left-out table, status line, message.

Region and run names come from users' code: every one is HTML-escaped here,
the only place the widget builds HTML from data.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.ceilings import Roofline
from roofline_widget.look import style
from roofline_widget.schema import ALL_RANKS
from roofline_widget.widget.state import PointState

__all__ = [
    "DISPLAY_DIGITS",
    "LEFT_OUT_ROWS_SHOWN",
    "LEGEND_ENTRIES_SHOWN",
    "NO_FLOP_WHERE",
    "SELECTION_COLUMNS",
    "SELECTION_ROWS_SHOWN",
    "TOOLTIP_COLUMNS",
    "detail_html",
    "details_html",
    "display_frame",
    "display_value",
    "empty_title",
    "left_out_html",
    "legend_html",
    "message_html",
    "message_text",
    "no_flop_work_html",
    "rank_text",
    "selection_html",
    "status_html",
    "tooltip_html",
]

LEFT_OUT_ROWS_SHOWN = 500
LEGEND_ENTRIES_SHOWN = 20
_LEGEND_STYLE = ("display:flex;flex-wrap:wrap;align-items:center;column-gap:18px;"
                 "row-gap:2px;line-height:1.5")
_LEGEND_TITLES = {"region": "Regions", "run": "Runs", "rank": "Ranks"}
#: Where the widget shows points that do almost no FLOPs.
NO_FLOP_WHERE = ("not in view: the axes follow the other points (pan out to see them; "
                 "to_dataframe() lists them)")


def rank_text(rank) -> str:
    """A rank as shown to users: ``"all ranks"`` for the combined rank -1."""
    return "all ranks" if rank == ALL_RANKS else str(rank)


def _field_text(row: pd.Series, item: style.TooltipField) -> str:
    value = row[item.column]
    if item.column == "rank":
        return rank_text(value)
    if not item.spec:
        return str(value)
    return "n/a" if value is None or value != value else format(value, item.spec)


#: The hover tooltip's fields (compact: the full record goes to the detail panel on click).
TOOLTIP_COLUMNS = ("region", "rank", schema.PERFORMANCE, schema.INTENSITY,
                   "bound")
_TOOLTIP_STYLE = "font-size:11px;line-height:1.25;border-collapse:collapse"
_CELL_STYLE = "padding:0 4px"


def tooltip_html(row: pd.Series) -> str:
    """Compact hover text of one classified point (``TOOLTIP_COLUMNS``); every value escaped.

    A point summed over fewer threads than it ran on (``unmeasured_threads``
    > 0, selected with ``unmeasured="keep"``) says "N threads not measured".
    """
    by_column = {item.column: item for item in style.TOOLTIP_FIELDS}
    cells = "".join(f"<tr><th style='text-align:left;{_CELL_STYLE}'>{html.escape(item.label)}</th>"
                    f"<td style='{_CELL_STYLE}'>{html.escape(_field_text(row, item))}</td></tr>"
                    for item in (by_column[c] for c in TOOLTIP_COLUMNS))
    missing = int(row.get("unmeasured_threads", 0) or 0)
    if missing > 0:
        note = f"{missing} thread{'s' if missing > 1 else ''} not measured"
        cells += f"<tr><td colspan='2' style='{_CELL_STYLE}'><b>{html.escape(note)}</b></td></tr>"
    return f"<table style='{_TOOLTIP_STYLE}'>{cells}</table>"


# ------------------------------------------------------------ rounded display
#: Significant digits of the numbers in the widget's HTML tables (the data keeps all).
DISPLAY_DIGITS = 3
SELECTION_ROWS_SHOWN = 50
#: The selection table's columns, key columns first (the long run name last).
SELECTION_COLUMNS = ("region", "rank", schema.PERFORMANCE, schema.BANDWIDTH,
                     schema.INTENSITY, "efficiency_percent", "bound", "file")


def display_value(value, column: str = "") -> str:
    """A value as shown in a table: floats to ``DISPLAY_DIGITS`` significant digits.

    Integers keep every digit (with thousands separators), NaN and None are
    ``"n/a"``, the rank -1 is ``"all ranks"``; anything else is ``str(value)``.
    Not escaped.
    """
    if column == "rank":
        return rank_text(value)
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return format(float(value), f".{DISPLAY_DIGITS}g")
    return str(value)


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every cell as its display text (:func:`display_value`)."""
    return pd.DataFrame({column: [display_value(v, column) for v in frame[column]]
                         for column in frame.columns}, index=frame.index)


def detail_html(row: pd.Series) -> str:
    """The full record of one point: every field, escaped, numbers rounded for display."""
    cells = "".join(f"<tr><th style='text-align:left;{_CELL_STYLE}'>{html.escape(str(name))}</th>"
                    f"<td style='{_CELL_STYLE}'>{html.escape(display_value(value, str(name)))}"
                    "</td></tr>" for name, value in row.items())
    return f"<table class='roofline-detail-record'>{cells}</table>"


def selection_html(frame: pd.DataFrame) -> str:
    """The selected points as an escaped table of the key columns, numbers rounded."""
    columns = [c for c in SELECTION_COLUMNS if c in frame.columns]
    labels = {item.column: item.label for item in style.TOOLTIP_FIELDS}
    table = display_frame(frame.head(SELECTION_ROWS_SHOWN)[columns]).rename(columns=labels)
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


def _legend_entry(color: str, name: str) -> str:
    """One legend entry: a dot in the points' style and the escaped full name."""
    dot = (f"<span style='display:inline-block;width:10px;height:10px;border-radius:50%;"
           f"background:{color};border:1px solid #222;margin-right:6px'></span>")
    return (f"<span title='{html.escape(name, quote=True)}' style='white-space:nowrap'>"
            f"{dot}{html.escape(name)}</span>")


def legend_html(values, codes, color_by: str) -> str:
    """The legend of the drawn categories.

    Parameters
    ----------
    values : sequence
        The distinct categories drawn, in order.
    codes : sequence of int
        Their colour codes (index into ``style.PALETTE``, repeating).
    color_by : {"region", "run", "rank"}
    """
    name = rank_text if color_by == "rank" else str
    palette = style.PALETTE
    entries = [_legend_entry(palette[c % len(palette)], name(v))
               for c, v in zip(codes[:LEGEND_ENTRIES_SHOWN], values[:LEGEND_ENTRIES_SHOWN])]
    if len(values) > LEGEND_ENTRIES_SHOWN:
        entries.append(f"<span>... and {len(values) - LEGEND_ENTRIES_SHOWN:,} more</span>")
    if not entries:
        return ""
    return (f"<div style='{_LEGEND_STYLE}'><b>{_LEGEND_TITLES[color_by]}</b>"
            f"{''.join(entries)}</div>")


def left_out_html(left_out: pd.DataFrame) -> str:
    """The left-out rows as an escaped HTML table (at most LEFT_OUT_ROWS_SHOWN rows)."""
    if len(left_out) == 0:
        return "<p>No region left out.</p>"
    table = left_out.head(LEFT_OUT_ROWS_SHOWN)[["file", "region", "rank", "reason"]]
    text = display_frame(table).to_html(index=False, escape=True, border=0, classes="roofline-left-out")
    if len(left_out) > LEFT_OUT_ROWS_SHOWN:
        text += (f"<p>... and {len(left_out) - LEFT_OUT_ROWS_SHOWN:,} more row(s): "
                 "see <code>left_out_dataframe()</code>.</p>")
    return text


def empty_title(state: PointState, no_ranks: bool) -> str:
    """The figure title when there is nothing to draw ("" when there is)."""
    if len(state.points):
        return ""
    if state.error:
        return "No points: invalid pattern"
    if no_ranks:
        return "No points: no rank selected"
    return "No plottable region"


def message_text(state: PointState, no_ranks: bool) -> str:
    """The error or remark shown above the figure (plain text)."""
    if state.error:
        return f"{state.error}. No points are drawn until it is fixed."
    if not len(state.points):
        if no_ranks:
            return "No rank selected."
        if len(state.left_out):
            reason = state.left_out["reason"].value_counts().index[0]
            return (f"No plottable region: {len(state.left_out):,} region/rank row(s) "
                    f"left out (most often: {reason}). See the list below.")
        return "No region matches the include/exclude patterns."
    return " ".join(state.notes)


def message_html(message: str, is_error: bool) -> str:
    """The message as escaped HTML, red for an error."""
    if not message:
        return ""
    color = "color:#b00020" if is_error else "color:#555"
    return f"<div style='{color}'>{html.escape(message)}</div>"


def _metric_text(name: str | None) -> str:
    """A metric name as code, or a plain word when the data has none of that kind."""
    return "<i>none in the data</i>" if name is None else f"<code>{html.escape(str(name))}</code>"


def status_html(state: PointState, roofline: Roofline | None, *, max_points: int,
                combine_ranks: bool, n_selected: int = 0) -> str:
    """The status line: points, selected count, metrics, ceilings, left-out count."""
    n = len(state.points)
    count = f"<b>{n:,} point{'s' if n != 1 else ''}</b>"
    if state.over_budget:
        count += (f" (drawing the {len(state.shown):,} longest-running; the budget is "
                  f"max_points={max_points:,}; exports hold all)")
    if n_selected:
        count += f", {n_selected:,} selected"
    metrics = f"FLOP rate {_metric_text(state.flops_metric)}, bandwidth {_metric_text(state.bandwidth_metric)}"
    if roofline is None:
        ceilings = "ceilings: none (no points to take empirical ones from)"
    else:
        ceilings = "ceilings: " + ", ".join(html.escape(r.label) for r in
                                            (*roofline.compute, *roofline.bandwidth))
        if roofline.empirical:
            ceilings += (" <b>&mdash; empirical ceilings are the largest observation, "
                         "not machine limits</b>")
    parts = [count, metrics, ceilings, f"{len(state.left_out):,} left out"]
    if combine_ranks:
        parts.insert(1, "ranks summed")
    return " &middot; ".join(parts)


def no_flop_work_html(points: pd.DataFrame, *, no_flop: pd.DataFrame | None = None) -> str:
    """The status note on points doing almost no FLOPs, escaped ("" when there are none).

    Parameters
    ----------
    points : pandas.DataFrame
        All current points (the axis ranges follow the others,
        :func:`~roofline_widget.look.style.split_flop_work`).
    no_flop : pandas.DataFrame, optional
        The second part of that split, when the caller has it already.
    """
    if no_flop is None:
        _, no_flop = style.split_flop_work(points)
    note = style.no_flop_work_text(no_flop, NO_FLOP_WHERE)
    return f"<div class='roofline-no-flop'>{html.escape(note)}</div>" if note else ""
