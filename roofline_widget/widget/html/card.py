"""The detail panel's card of one clicked point: where it stands, what limits it, what to try.

:func:`point_card_html` reads one row of ``RooflineWidget.selection_dataframe()``
(a point judged against its roofs, with the guidance columns of
:func:`~roofline_widget.guidance`) and writes readable text, not column
names: the region and its ranks, GFLOP/s, GB/s, FLOP/byte and runtime, the
roof that bounds it and the percent of it, the limiting factor, the advice
and the numbers the advice rests on with their units.  Every text from a
file (region, run and roof names, advice citing them) is escaped here.
"""

from __future__ import annotations

import html

import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.guidance import ADVICE_SEPARATOR, NOTHING_FOUND
from roofline_widget.analysis.guidance_rules import number_text, percent_text, used_texts
from roofline_widget.widget.html.values import CELL_STYLE, rank_phrase, rows_table

__all__ = ["CARD_CLASS", "CARD_NUMBERS", "CARD_STYLE", "point_card_html"]

#: DOM class of the card.
CARD_CLASS = "roofline-card"
#: The card's box: a readable width, a quiet border.
CARD_STYLE = ("border:1px solid #ccc;border-radius:4px;padding:6px 10px;margin:2px 0;"
              "max-width:640px;font-size:12px;line-height:1.4")
#: The numbers of the point itself: (column, label), in the card's order.
CARD_NUMBERS = ((schema.PERFORMANCE, "GFLOP/s"), (schema.BANDWIDTH, "GB/s"),
                (schema.INTENSITY, "FLOP/byte"), (schema.RUNTIME, "runtime [s]"))
_MUTED = "color:#555"


def _text(value) -> str:
    return html.escape(str(value))


def _number(value) -> str:
    try:
        return number_text(float(value))
    except (TypeError, ValueError):
        return "n/a"


def _heading(row: pd.Series) -> str:
    where = [rank_phrase(row.get("rank"), row.get("rank_group"))]
    threads = row.get("n_threads")
    if threads is not None and pd.notna(threads):
        where.append(f"{int(threads):,} thread{'s' if int(threads) != 1 else ''}")
    if "level" in row and pd.notna(row["level"]):
        where.append(f"{row['level']} traffic")
    where.append(f"run {row.get('file', '')}")
    return (f"<div style='font-weight:bold;font-size:13px'>{_text(row.get('region', ''))}</div>"
            f"<div style='{_MUTED}'>{_text(' · '.join(where))}</div>")


def _numbers(row: pd.Series) -> str:
    cells = "".join(f"<td style='{CELL_STYLE};padding-right:14px'><b>{_number(row.get(column))}"
                    f"</b> {_text(label)}</td>" for column, label in CARD_NUMBERS if column in row)
    return f"<table class='roofline-card-numbers'><tr>{cells}</tr></table>"


def _bound(row: pd.Series) -> str:
    bound = str(row.get("bound", "n/a"))
    roof = row.get("bandwidth_roof") if bound == "memory" else row.get("compute_roof")
    percent = row.get("efficiency_percent")
    if bound in ("memory", "compute") and roof and pd.notna(percent):
        text = f"{bound} bound: {percent_text(float(percent))} of the {roof} roof"
    else:
        text = f"bound: {bound}"
    return f"<div><b>Roof</b> {_text(text)}</div>"


def _guidance(row: pd.Series) -> str:
    factor = str(row.get("limiting_factor") or "")
    advice = str(row.get("guidance") or "")
    if not factor and not advice:
        return ""
    head = f"<div><b>Limiting factor</b> {_text(factor or 'none named')}</div>"
    items = [] if advice in ("", NOTHING_FOUND) else advice.split(ADVICE_SEPARATOR)
    if not items:
        return head + f"<div style='{_MUTED}'>{_text(NOTHING_FOUND)}</div>"
    listed = "".join(f"<li>{_text(item)}</li>" for item in items)
    return head + f"<ul class='roofline-card-advice' style='margin:2px 0 2px 18px;padding:0'>{listed}</ul>"


def _metrics(row: pd.Series) -> str:
    used = row.get("guidance_metrics")
    rows = used_texts(used) if isinstance(used, tuple | list) else []
    if not rows:
        return ""
    table = rows_table(rows, cell_style=CELL_STYLE, table_class="roofline-card-metrics",
                       table_style="font-size:11px")
    return f"<div style='{_MUTED};margin-top:4px'>Numbers used</div>{table}"


def point_card_html(row: pd.Series) -> str:
    """The card of one point (a row of ``selection_dataframe()``); every text escaped.

    Examples
    --------
    >>> row = pd.Series({"region": "<b>x</b>", "rank": 0, "performance_gflops": 2.708,
    ...                  "bound": "n/a", "limiting_factor": "", "guidance": ""})
    >>> "&lt;b&gt;x&lt;/b&gt;" in point_card_html(row) and "<b>x</b>" not in point_card_html(row)
    True
    """
    return (f"<div class='{CARD_CLASS}' style='{CARD_STYLE}'>{_heading(row)}{_numbers(row)}"
            f"{_bound(row)}{_guidance(row)}{_metrics(row)}</div>")
