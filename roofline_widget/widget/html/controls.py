"""The HTML of two controls: the Ranks field's hint and the scaling panel's note and tooltip (escaped)."""

from __future__ import annotations

import html

__all__ = ["ranks_hint_html", "scaling_failed_html", "scaling_note_html", "scaling_tooltip_html"]

#: The colour of an invalid ranks text's message.
_ERROR_STYLE = "color:#b00020"


def ranks_hint_html(hint: str, error: str = "") -> str:
    """The Ranks field's hint (what the data has), after ``error`` when the text was refused."""
    shown = f"<small>{html.escape(hint)}</small>"
    if not error:
        return shown
    return f"<small style='{_ERROR_STYLE}'>&#9888; {html.escape(error)}</small><br>{shown}"


def scaling_failed_html(reason: str) -> str:
    """The scaling panel's note when no scaling view can be made of the runs."""
    return f"<i>No scaling view: {html.escape(reason)}</i>"


def scaling_note_html(parts: list[str]) -> str:
    """The scaling panel's note under its figure: ``parts`` joined."""
    return "<small>" + html.escape("; ".join(parts)) + "</small>"


def scaling_tooltip_html(region: str, group: str, x_name: str, x: float, y_name: str,
                         y: float) -> str:
    """A scaling panel point's hover text: region (group), then the two values."""
    shown_group = f" ({html.escape(group)})" if group else ""
    return (f"<b>{html.escape(region)}</b>{shown_group}<br>{html.escape(x_name)} "
            f"{x:g}: {html.escape(y_name)} {y:.3g}")
