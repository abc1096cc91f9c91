"""Legends of the widget: the point colours, the baseline runs' shapes, the imbalance scale."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

from roofline_widget.look.colors import IMBALANCE_COLORS
from roofline_widget.look.markers import CURRENT_MARKER, RUN_MARKERS, run_marker
from roofline_widget.look.point_names import NAME_SEPARATOR, names_kind
from roofline_widget.look.texts import CURRENT_RUN_LABEL, DEVICE_FAMILY_NAMES
from roofline_widget.widget.html.values import rank_text

__all__ = [
    "LEGEND_ENTRIES_SHOWN",
    "LEGEND_NAME_WIDTH",
    "LEGEND_TITLES",
    "heading_html",
    "imbalance_legend_html",
    "legend_html",
    "legend_title",
    "runs_legend_html",
]

LEGEND_ENTRIES_SHOWN = 20
#: The legend's title by what the points are coloured by, or coloured by region, by what
#: names them (:func:`~roofline_widget.look.point_names.names_kind`: a run's hosts, sockets).
LEGEND_TITLES = {"region": "Regions", "run": "Runs", "rank": "Ranks", "device": "Devices",
                 "host": "Hosts", "socket": "Sockets",
                 f"region{NAME_SEPARATOR}host": f"Regions{NAME_SEPARATOR}hosts",
                 f"region{NAME_SEPARATOR}socket": f"Regions{NAME_SEPARATOR}sockets"}
#: The widest a legend entry's name is drawn (longer ones end in an ellipsis; the entry's
#: ``title`` holds the full name).
LEGEND_NAME_WIDTH = "32em"
_LEGEND_STYLE = ("display:flex;flex-wrap:wrap;align-items:center;column-gap:18px;"
                 "row-gap:2px;line-height:1.5;min-width:0;max-width:100%")
_ENTRY_STYLE = "display:inline-flex;align-items:center;min-width:0;max-width:100%"
_NAME_STYLE = (f"overflow:hidden;text-overflow:ellipsis;white-space:nowrap;"
               f"max-width:{LEGEND_NAME_WIDTH}")


def _legend_entry(color: str, name: str) -> str:
    """One legend entry: a dot in the points' style and the escaped name (a long one cut
    with an ellipsis; the full name is the entry's ``title``, its tooltip)."""
    dot = (f"<span style='flex:none;display:inline-block;width:10px;height:10px;"
           f"border-radius:50%;background:{html.escape(color)};border:1px solid #222;"
           f"margin-right:6px'></span>")
    return (f"<span class='roofline-legend-entry' title='{html.escape(name, quote=True)}' "
            f"style='{_ENTRY_STYLE}'>{dot}<span style='{_NAME_STYLE}'>{html.escape(name)}"
            f"</span></span>")


def legend_title(color_by: str, points: pd.DataFrame | None = None) -> str:
    """The legend's title: what the points' colours tell apart.

    Coloured by region, what names the ``points`` drawn (``"Hosts"`` for a run's
    hosts, ``"Sockets"``, ``"Regions"``); else ``"Runs"``, ``"Ranks"``, ``"Devices"``.

    Examples
    --------
    >>> points = pd.DataFrame({"region": ["(whole run)"] * 2,
    ...                        "rank_group": ["f0702 (ranks 0-71)", "f0703 (ranks 72-143)"]})
    >>> legend_title("region", points), legend_title("region"), legend_title("rank", points)
    ('Hosts', 'Regions', 'Ranks')
    """
    kind = names_kind(points) if color_by == "region" and points is not None else color_by
    return LEGEND_TITLES[kind]


def legend_html(values: Sequence, colors: Sequence[str], color_by: str, note: str = "",
                names: Sequence[str] | None = None, points: pd.DataFrame | None = None) -> str:
    """The legend of the drawn categories.

    Parameters
    ----------
    values : sequence
        The distinct categories drawn, in order.
    colors : sequence of str
        Their colours (at least the first ``LEGEND_ENTRIES_SHOWN``).
    color_by : {"region", "run", "rank", "device"}
        What the categories are (the title; ranks are shown by :func:`~.values.rank_text`,
        device families by their names, ``"NVIDIA GPU"``).
    note : str
        Plain text after the entries (escaped here), "" for none.
    names : sequence of str, optional
        The entries' texts, one per value (escaped here); by default the
        values as text (ranks by :func:`~.values.rank_text`).
    points : pandas.DataFrame, optional
        The points drawn: coloured by region, what names them gives the title
        (:func:`legend_title`: ``"Hosts"`` for a run's hosts); None: ``"Regions"``.
    """
    if names is None:
        name = rank_text if color_by == "rank" else (
            (lambda family: DEVICE_FAMILY_NAMES.get(str(family), str(family)))
            if color_by == "device" else str)
        names = [name(value) for value in values[:LEGEND_ENTRIES_SHOWN]]
    entries = [_legend_entry(color, text) for color, text in
               zip(colors[:LEGEND_ENTRIES_SHOWN], names[:LEGEND_ENTRIES_SHOWN])]
    if len(values) > LEGEND_ENTRIES_SHOWN:
        entries.append(f"<span>... and {len(values) - LEGEND_ENTRIES_SHOWN:,} more</span>")
    if note:
        entries.append(f"<span class='roofline-legend-note'>{html.escape(note)}</span>")
    if not entries:
        return ""
    return (f"<div style='{_LEGEND_STYLE}'><b>{legend_title(color_by, points)}</b>"
            f"{''.join(entries)}</div>")


def runs_legend_html(labels: list[str]) -> str:
    """The status line's run -> shape legend, labels escaped.

    ``runs: 1t □ square → 2t ◇ diamond → current ● circle``, and past
    ``look.markers.RUN_MARKERS`` a note naming the runs that share a shape.
    """
    markers = [run_marker(i) for i in range(len(labels))] + [CURRENT_MARKER]
    names = [*labels, CURRENT_RUN_LABEL]
    parts = [f"{html.escape(str(name))} {marker.symbol} {marker.bqplot}"
             for name, marker in zip(names, markers)]
    text = "runs: " + " → ".join(parts)
    if len(labels) > len(RUN_MARKERS):
        shared = [f"{html.escape(str(labels[i]))} as {html.escape(str(labels[i % len(RUN_MARKERS)]))}"
                  for i in range(len(RUN_MARKERS), len(labels))]
        text += (f" (only {len(RUN_MARKERS)} shapes: " + ", ".join(shared) + " share a shape)")
    return f"<span class='roofline-compare-runs'>{text}</span>"


def imbalance_legend_html(low: float, high: float) -> str:
    """The imbalance colour scale as a small gradient bar with its end values."""
    gradient = ", ".join(IMBALANCE_COLORS)
    bar = (f"<span style='display:inline-block;width:80px;height:10px;vertical-align:middle;"
           f"background:linear-gradient(to right, {gradient});border:1px solid #888'></span>")
    return f"imbalance {low:.3g} {bar} {high:.3g}"


def heading_html(text: str) -> str:
    """A bold heading of a row of controls (escaped)."""
    return f"<b>{html.escape(text)}</b>"
