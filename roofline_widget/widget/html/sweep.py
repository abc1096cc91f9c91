"""The HTML of a sweep (a chain of runs drawn as paths): its colour bar, status line and tooltips.

A sweep's status is at most two lines (:data:`STATUS_LINE_CHARS` each): the
runs, what the paths and the shade show, the step ringed, what is left out;
the full status of the points (metrics, ceilings, notes) goes to the
collapsed details.  Run labels and region names are escaped.
"""

from __future__ import annotations

import html

import pandas as pd

from roofline_widget import schema
from roofline_widget.look.texts import X_LABEL, Y_LABEL
from roofline_widget.scene.sweep import PATH_STYLES, SweepKey, SweepPart
from roofline_widget.widget.html.values import number_text, rows_table

__all__ = [
    "STATUS_LINE_CHARS",
    "sweep_details_html",
    "sweep_key_html",
    "sweep_status_html",
    "sweep_step_html",
    "sweep_step_text",
    "sweep_tooltip_html",
]

#: The characters of one status line the widget's width holds (the status of a sweep
#: keeps to two of them).
STATUS_LINE_CHARS = 110
#: How each line style looks in a key.
_STYLE_SIGNS = {"solid": "───", "dashed": "- - -", "dotted": "·····"}
_BAR = ("display:inline-block;width:120px;height:10px;vertical-align:middle;margin:0 4px;"
        "border:1px solid #888;background:linear-gradient(to right, {})")


def sweep_step_text(key: SweepKey, step: int) -> str:
    """The step's value in words: ``"threads = 4"`` (plain text)."""
    return f"{key.name} = {key.labels[step]}" if 0 <= step < len(key) else ""


def sweep_step_html(key: SweepKey, step: int) -> str:
    """The step's value in bold beside the run slider (escaped)."""
    return f"<b>{html.escape(sweep_step_text(key, step))}</b>"


def sweep_key_html(part: SweepPart) -> str:
    """The colour bar of the shade (its first and last values), and the groups' line styles."""
    key = part.key
    bar = f"<span style='{_BAR.format(', '.join(key.colors()))}'></span>"
    first, last = html.escape(key.labels[0]), html.escape(key.labels[-1])
    text = (f"<span class='roofline-sweep-key'>shade: {html.escape(key.name)} {first}{bar}{last}"
            "</span>")
    if len(part.groups) > 1:
        styles = " ".join(f"{html.escape(group)} {_STYLE_SIGNS[PATH_STYLES[n % len(PATH_STYLES)]]}"
                          for n, group in enumerate(part.groups[:len(PATH_STYLES)]))
        more = f" (styles repeat over {len(part.groups)} groups)" if len(part.groups) > len(
            PATH_STYLES) else ""
        text += f" &middot; <span class='roofline-sweep-groups'>paths: {styles}{more}</span>"
    return text


def sweep_status_html(part: SweepPart, *, file: str, runs: int, empirical: str,
                      beyond: int = 0) -> str:
    """The status of a sweep in at most two lines (the details are in the collapsed section).

    Parameters
    ----------
    part : SweepPart
    file : str
        Where the runs come from (a file name).
    runs : int
        How many runs.
    empirical : str
        Which ceilings are the largest observations, not machine limits
        (:func:`~roofline_widget.roofs.lines.empirical_words`; ``""``: none).
    beyond : int
        The points beyond what their hardware can do (left out of the roofs).
    """
    groups = (f" in {len(part.groups)} groups by {', '.join(part.group_by)}"
              if len(part.groups) > 1 else "")
    key = part.key
    parts = [f"<b>{runs} runs</b> of {html.escape(_short(file))} as a sweep: "
             f"{part.path_count()} paths{html.escape(groups)}, shade {html.escape(key.text())}, "
             f"ring at {html.escape(sweep_step_text(key, part.chosen))}"]
    if empirical:
        parts.append(html.escape(empirical))
    if beyond:  # a broken counter is named in the status, not only in the details
        parts.append(f"<b>{beyond:,} beyond the hardware</b>")
    off = len(part.left_out) - beyond
    if off > 0:
        parts.append(f"{off:,} points off the paths")
    return (f"<span class='roofline-sweep-status'>{' &middot; '.join(parts)} "
            "&middot; <i>details below</i></span>")


def sweep_details_html(part: SweepPart, status: str) -> str:
    """The collapsed details of a sweep: the full ``status`` (HTML) and the sweep's notes."""
    notes = "".join(f"<br>{html.escape(note)}" for note in part.notes)
    return f"{status}{notes}"


def _short(name: str, most: int = 32) -> str:
    return name if len(name) <= most else f"{name[:most - 11]}…{name[-10:]}"


def sweep_tooltip_html(row: pd.Series, key: SweepKey) -> str:
    """Hover text of a run's point on a sweep: the region, the run, its step, the point."""
    return rows_table([
        ("Region", str(row["region"])), ("Run", str(row["file"])),
        (key.name.capitalize(), key.labels[int(row["sweep_step"])]),
        *((("Group", str(row["sweep_group"])),) if row["sweep_group"] else ()),
        (Y_LABEL, number_text(row[schema.PERFORMANCE])),
        (X_LABEL, number_text(row[schema.INTENSITY])),
        ("Runtime [s]", number_text(row[schema.RUNTIME]))])

