"""The widget's status line and message: points, metrics, ceilings, and each layer's note."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from roofline_widget.analysis.compare_summary import speedup_summary
from roofline_widget.look.above_roofs import above_roofs_text
from roofline_widget.look.beyond_hardware import beyond_hardware_text
from roofline_widget.look.no_flop import no_flop_work_text, split_flop_work
from roofline_widget.look.texts import CURRENT_RUN_LABEL, roof_label
from roofline_widget.roofs.judging import RoofKeys
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.scene.parts import ComparePart, LevelsPart, SpreadPart
from roofline_widget.widget.html.legends import imbalance_legend_html, runs_legend_html
from roofline_widget.widget.html.panels import findings_list_html
from roofline_widget.widget.html.tooltips import SPREAD_WHISKERS
from roofline_widget.widget.html.values import names_text
from roofline_widget.widget.state import PointState

__all__ = [
    "NAMES_SHOWN",
    "NO_FLOP_WHERE",
    "above_roofs_html",
    "beyond_hardware_html",
    "ceiling_notes_html",
    "chain_status_html",
    "compare_status_html",
    "empty_title",
    "layer_notes_html",
    "levels_status_html",
    "message_html",
    "message_text",
    "no_flop_work_html",
    "point_notes_html",
    "points_budget_hint_html",
    "points_mark_html",
    "spread_status_html",
    "status_html",
]

#: Where the widget shows points that do almost no FLOPs.
NO_FLOP_WHERE = ("not in view: the axes follow the other points (pan out to see them; "
                 "to_dataframe() lists them)")
#: At most this many region names are listed per sentence of the comparison's note.
NAMES_SHOWN = 8


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
                    f"left out (most often: {reason}). Open \"Left out\" below for the list.")
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
        roofs: list[ComputeRoof | BandwidthRoof] = [*roofline.compute, *roofline.bandwidth]
        ceilings = "ceilings: " + ", ".join(html.escape(roof_label(r)) for r in roofs)
        words = roofline.empirical_words
        if words == "empirical ceilings":
            ceilings += (" <b>&mdash; empirical ceilings are the largest observation, "
                         "not machine limits</b>")
        elif words:  # one kind only: the other roof is a machine limit, never called empirical
            ceilings += f" <b>&mdash; the {words} is the largest observation, not a machine limit</b>"
    parts = [count, metrics, ceilings, f"{len(state.left_out):,} left out"]
    if combine_ranks:
        parts.insert(1, "ranks summed")
    elif state.rank_grouping:  # run labels come from files: escaped
        parts.insert(1, "; ".join(html.escape(note) for note in state.rank_grouping))
    return " &middot; ".join(parts)


def ceiling_notes_html(notes: list[str]) -> str:
    """What the ceilings cannot say about some points, or may say wrongly (escaped; "" for none).

    Points without a roof of their level or device, a roof whose benchmark
    measured another level, ceilings of another machine.
    """
    if not notes:
        return ""
    items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
    return (f"<div class='roofline-ceiling-notes' style='color:#8a4b00'>"
            f"<ul style='margin:2px 0 2px 1.2em;padding:0'>{items}</ul></div>")


def beyond_hardware_html(points: pd.DataFrame, roofline: Roofline | None) -> str:
    """The status note on points whose rates no hardware reaches, escaped ("" when there are none).

    :func:`~roofline_widget.look.beyond_hardware.beyond_hardware_text` of the
    current points: the worst named, left out of the empirical roofs and the axes.
    """
    note = beyond_hardware_text(points, roofline)
    return f"<div class='roofline-beyond-hardware'><b>{html.escape(note)}</b></div>" if note else ""


def above_roofs_html(points: pd.DataFrame, roofline: Roofline | None,
                     keys: RoofKeys | None = None) -> str:
    """The status note on points above their roofs, escaped ("" when there are none).

    :func:`~roofline_widget.look.above_roofs.above_roofs_text` of the current
    points (``keys``: theirs, when known).
    """
    note = above_roofs_text(points, roofline, keys)
    return (f"<div class='roofline-above-roofs' style='color:#8a4b00'>{html.escape(note)}</div>"
            if note else "")


def point_notes_html(points: PointState, basis: pd.DataFrame | None,
                     roofline: Roofline | None, keys: RoofKeys | None = None) -> str:
    """The status notes on the points: beyond any hardware, above their roofs, doing no FLOPs
    (escaped).

    Parameters
    ----------
    points : PointState
        The current selection (its points and their no-FLOP split).
    basis : pandas.DataFrame or None
        The points the empirical roofs come from (with a baseline's); None: the current points.
    roofline : Roofline or None
        The roofs drawn (:func:`beyond_hardware_html`, :func:`above_roofs_html`).
    keys : RoofKeys, optional
        The current points' roof keys, when known.
    """
    beyond = beyond_hardware_html(points.points if basis is None else basis, roofline)
    above = above_roofs_html(points.points, roofline, keys)
    no_flop = no_flop_work_html(points.points, no_flop=points.flop_split[1])
    return " ".join(filter(None, [beyond, above, no_flop]))


def no_flop_work_html(points: pd.DataFrame, *, no_flop: pd.DataFrame | None = None) -> str:
    """The status note on points doing almost no FLOPs, escaped ("" when there are none).

    Parameters
    ----------
    points : pandas.DataFrame
        All current points (the axis ranges follow the others,
        :func:`~roofline_widget.look.no_flop.split_flop_work`).
    no_flop : pandas.DataFrame, optional
        The second part of that split, when the caller has it already.
    """
    if no_flop is None:
        _, no_flop = split_flop_work(points)
    note = no_flop_work_text(no_flop, NO_FLOP_WHERE)
    return f"<div class='roofline-no-flop'>{html.escape(note)}</div>" if note else ""


# ------------------------------------------------------------ the layers' notes
def levels_status_html(levels: list, left_out: pd.DataFrame, findings: pd.DataFrame) -> str:
    """The levels layer's note: levels shown, rows left out per level, sanity findings (escaped)."""
    if not levels:
        return ""
    parts = [f"levels: {html.escape(', '.join(levels))}"]
    counts = left_out.groupby("level", observed=True).size() if len(left_out) else {}
    left = [f"{html.escape(str(level))} {count:,}" for level, count in dict(counts).items()
            if str(level) in levels]
    if left:
        parts.append(f"left out per level: {', '.join(left)}")
    parts.append(f"{len(findings):,} sanity finding(s)" if len(findings) else "no sanity findings")
    # after the widget's own status, in its separator style
    return (f"&middot; <span class='roofline-levels-status'>{'; '.join(parts)}</span>"
            + findings_list_html(findings))


def _times(speedup: float) -> str:
    """``"2.01×"``, or ``"0.571× (1.75× slower)"`` for a slowdown."""
    return f"{speedup:.3g}×" + (f" ({1 / speedup:.3g}× slower)" if speedup < 1 else "")


def compare_status_html(*, error: str = "", median: float = float("nan"), count: int = 0,
                        worst: tuple[str, float] | None = None,
                        slowdowns: list[tuple[str, float]] | None = None,
                        labels: list[str] | None = None,
                        only_in: list[tuple[str, list[str]]] | None = None,
                        notes: list[str] | None = None) -> str:
    """The baseline layer's note: median and worst speed-up, slowdowns, the runs' shapes, one-run regions.

    Starts with the status line's separator (``&middot;``) like every layer's note.

    Parameters
    ----------
    error : str
        Why nothing was compared ("" when it was): the note says only that.
    median : float
        Median speed-up of the current run over the first baseline run (NaN: none).
    count : int
        The points it is the median of.
    worst : (str, float), optional
        The region of the smallest speed-up and that speed-up.
    slowdowns : list of (str, float)
        Every region that got slower (speed-up below 1), slowest first.
    labels : list of str
        The baseline runs' labels in chain order (empty: nothing compared, no note).
    only_in : list of (str, list of str)
        Per run, the regions found in that run only.
    notes : list of str
        Warnings of the comparison (plain text).
    """
    if error:
        return (f"&middot; <span class='roofline-compare-status'>Baseline not compared: "
                f"{html.escape(error)}</span>")
    if not labels:
        return ""
    first = html.escape(labels[0])
    if not np.isfinite(median):
        parts = [f"no region placed in both {first} and {CURRENT_RUN_LABEL}"]
    else:
        parts = [f"median speed-up vs {first}: {median:.3g}× over {count} "
                 f"point{'s' if count != 1 else ''}"]
        if worst is not None and count > 1:
            parts.append(f"worst: {html.escape(worst[0])} {_times(worst[1])}")
    if slowdowns:
        noun = "region" if len(slowdowns) == 1 else "regions"
        named = names_text([f"{name} ({1 / value:.3g}× slower)" for name, value in slowdowns],
                           NAMES_SHOWN)
        parts.append(f"<b>{len(slowdowns)} {noun} slower</b>: {named}")
    parts.append(runs_legend_html(labels))
    for run, names in only_in or []:
        noun = "region" if len(names) == 1 else "regions"
        parts.append(f"{len(names)} {noun} only in {html.escape(str(run))}: "
                     f"{names_text(names, NAMES_SHOWN)}")
    parts += [html.escape(note) for note in notes or []]
    return f"&middot; <span class='roofline-compare-status'>{'; '.join(parts)}</span>"


def chain_status_html(summary: str) -> str:
    """The note of runs of one file drawn as a chain: ``summary``
    (:meth:`FileChain.summary <roofline_widget.io.chain.FileChain.summary>`, escaped) and
    how to see every run as points.

    Starts with the status line's separator (``&middot;``) like every layer's note.
    """
    return (f"&middot; <span class='roofline-chain-status'><b>{html.escape(summary)}</b> "
            "(the points are the last run's; <code>RooflineWidget(data, chain=False)</code> "
            "draws every run as points; the speed-ups below compare runtimes, which between "
            "runs of other sizes or inputs is a change of work, not only of speed)</span>")


def spread_status_html(n_regions: int, high: float, notes: list[str]) -> str:
    """The spread view's note: what it draws, its colour scale (1 to ``high``), ``notes``."""
    parts = [f"<b>ranks view: {n_regions:,} region(s)</b> as the rank median "
             f"(square) with whiskers {html.escape(SPREAD_WHISKERS)} in intensity and GFLOP/s, "
             f"coloured by {imbalance_legend_html(1.0, high)} (max / mean runtime); "
             "click a square to show its ranks",
             *(html.escape(t, quote=False) for t in notes)]
    return "&middot; " + "; ".join(p for p in parts if p)


def layer_notes_html(levels: LevelsPart | None, comparison: ComparePart | None,
                     spread: SpreadPart | None) -> list[str]:
    """The notes of a scene's layers for the status line, in drawing order ("" for none)."""
    notes = [spread_status_html(len(spread.spread), spread.medians.shade.high if
                                spread.medians.shade else 1.0, list(spread.notes))
             if spread is not None else "",
             levels_status_html(list(levels.levels), levels.left_out, levels.findings)
             if levels is not None else ""]
    if comparison is None or comparison.error or comparison.frame.empty:
        return [*notes, compare_status_html(error=comparison.error) if comparison else ""]
    frame, only_in = comparison.frame, []
    for status, side in (("only before", "run_before"), ("only after", "run_after")):
        rows = frame[frame["status"] == status]
        for run in dict.fromkeys(rows[side]):
            only_in.append((run, list(dict.fromkeys(rows.loc[rows[side] == run, "region"]))))
    summary = speedup_summary(frame)
    return [*notes, compare_status_html(
        median=summary.median, count=summary.count, worst=summary.worst,
        slowdowns=summary.slowdowns, labels=list(comparison.labels), only_in=only_in,
        notes=list(comparison.notes))]


def points_budget_hint_html(shown: int, total: int, max_points: int) -> str:
    """The points view past the budget: how many are drawn, and the spread view suggested."""
    return (f"&middot; <b>{shown:,} of {total:,} points drawn</b> "
            f"(max_points={max_points:,}): <code>rank_view='spread'</code> draws one point "
            "per region with whiskers over its ranks")


def points_mark_html(webgl: str, uses_webgl: bool, max_points: int, svg_budget: int | None,
                     levels_shown: bool) -> str:
    """The note on how the points are drawn: WebGL, or SVG and the budget that applies ("" for none).

    Parameters
    ----------
    webgl : str
        What the kernel knows of the browser's WebGL ("unknown", "available", "unavailable").
    uses_webgl : bool
        True when the WebGL mark draws the points.
    max_points : int
        The widget's ``max_points``.
    svg_budget : int or None
        The SVG budget in force (None: none).
    levels_shown : bool
        Memory levels are shown (else a baseline is what limits the budget).
    """
    if webgl == "unavailable":
        text = (f"WebGL is not available in this browser: the points are drawn as SVG, at most "
                f"{svg_budget or max_points:,} (max_points={max_points:,} applies with WebGL)")
    elif svg_budget is not None and svg_budget < max_points:
        shown = "memory levels are" if levels_shown else "a baseline is"
        text = (f"at most {svg_budget:,} points are drawn while {shown} shown "
                "(their marks are SVG, one per point)")
    elif uses_webgl:
        text = "WebGL draws the points"
    else:
        return ""
    return f"<div class='roofline-points-mark'>{html.escape(text)}</div>"
