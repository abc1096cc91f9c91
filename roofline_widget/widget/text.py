"""The widget's HTML and text: tooltip, legend, left-out table, status line, message.

Region and run names come from users' code: every one is HTML-escaped here,
the only place the widget builds HTML from data.
"""

from __future__ import annotations

import html

import pandas as pd

from .. import style
from ..ceilings import Roofline
from ..points import ALL_RANKS
from .state import PointState

__all__ = ["LEFT_OUT_ROWS_SHOWN", "LEGEND_ENTRIES_SHOWN", "rank_text", "tooltip_html",
           "legend_html", "left_out_html", "message_text", "message_html", "status_html",
           "empty_title", "NO_FLOP_WHERE", "no_flop_work_html"]

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


def tooltip_html(row: pd.Series) -> str:
    """Hover text of one classified point (``style.TOOLTIP_FIELDS``); every value escaped."""
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(item.label)}</th>"
                    f"<td>{html.escape(_field_text(row, item))}</td></tr>"
                    for item in style.TOOLTIP_FIELDS)
    return f"<table>{cells}</table>"


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
    table = table.assign(rank=table["rank"].map(rank_text))
    text = table.to_html(index=False, escape=True, border=0, classes="roofline-left-out")
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


def no_flop_work_html(points: pd.DataFrame) -> str:
    """The status note on points doing almost no FLOPs, escaped ("" when there are none).

    Parameters
    ----------
    points : pandas.DataFrame
        All current points (the axis ranges follow the others,
        :func:`~roofline_widget.style.split_flop_work`).
    """
    _, no_flop = style.split_flop_work(points)
    note = style.no_flop_work_text(no_flop, NO_FLOP_WHERE)
    return f"<div class='roofline-no-flop'>{html.escape(note)}</div>" if note else ""
