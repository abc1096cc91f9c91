"""What an executed notebook cell printed or showed, as text (for the notebook tests)."""

from __future__ import annotations

#: The MIME type of a displayed ipywidget.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def cell_text(cell) -> str:
    """The streams and the ``text/plain`` outputs of an executed cell, joined."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output["text"])
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)
