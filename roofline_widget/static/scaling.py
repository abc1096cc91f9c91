"""The scaling figure: speed-up against threads with the ideal line, one line per region (matplotlib).

:func:`scaling_figure` draws a :func:`~roofline_widget.scaling_table` as a
static figure, one panel per group of runs (``case=sedov``, ...):

* runs that vary in threads or ranks: speed-up against the hardware threads
  (threads x ranks), both on log2 axes, the ideal (speed-up = threads
  ratio) dashed, one line per region;
* runs that vary in problem size: GFLOP/s against the size (their speed-ups
  compare different work), with a note saying so;
* runs that vary in a case: speed-up against the case (no ideal).

:func:`save_scaling_figure` writes it to a file, the path checked first and
the file written atomically (:mod:`roofline_widget.static.output_files`).
Region names are the user's: drawn as plain text, never as mathtext.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.colors import PALETTE, palette_color
from roofline_widget.static import output_files
from roofline_widget.static.exports import image_writer, import_matplotlib

__all__ = ["MAX_PANELS", "PANEL_COLUMNS", "PANEL_INCHES", "REGIONS_LABELLED",
           "save_scaling_figure", "scaling_figure"]

#: Width and height of one panel, inches.
PANEL_INCHES = (5.0, 4.2)
#: Panels per row of the figure, and the most panels (groups) drawn.
PANEL_COLUMNS = 4
MAX_PANELS = 12
#: The most regions named in the legend (the longest-running first); the others are drawn grey.
REGIONS_LABELLED = 24
_OTHER = "#b0b0b0"
#: The palette's colours before a colour comes again, each time with the next marker.
_COLOURS = len(PALETTE)
_MARKERS = ("o", "s", "^", "D", "v")
_AXIS_LABELS = {"threads": "hardware threads (threads x ranks)",
                "ranks": "hardware threads (threads x ranks)",
                "size": "problem size", "case": "case"}


def _number(value: float, _position: object = None) -> str:
    return f"{value:g}"


def _plain(text: object) -> str:
    """A user's text for matplotlib: ``$`` escaped so that nothing is read as mathtext."""
    return str(text).replace("$", r"\$")


def _labelled(table: pd.DataFrame) -> list[str]:
    """The regions named in the legend: the longest-running (summed over runs) first."""
    totals = table.groupby("region", sort=False)[schema.RUNTIME].sum()
    return totals.sort_values(ascending=False, kind="stable").index[:REGIONS_LABELLED].tolist()


def _positions(table: pd.DataFrame, varies: str) -> dict:
    """Where each value of ``varies`` (a size, a case) sits on the x axis: in order of first appearance."""
    if varies in ("threads", "ranks") or not varies:
        return {}
    return {value: float(n) for n, value in enumerate(pd.unique(table[varies]))}


def _x_values(rows: pd.DataFrame, varies: str, positions: dict) -> np.ndarray:
    if varies in ("threads", "ranks"):
        return (rows["threads"] * rows["ranks"]).to_numpy(dtype=float)
    if not varies:
        return rows["run"].to_numpy(dtype=float)
    return rows[varies].map(positions).to_numpy(dtype=float)


def _draw_panel(axes, rows: pd.DataFrame, varies: str, labelled: list[str],
                positions: dict) -> None:
    """One group's lines on ``axes``."""
    size = varies == "size"
    column = schema.PERFORMANCE if size else "speedup"
    regions = list(pd.unique(rows["region"]))
    rows = rows[~rows["beyond_hardware"].to_numpy(dtype=bool)] if size else rows
    for region in regions:
        line = rows[rows["region"] == region]
        x, y = _x_values(line, varies, positions), line[column].to_numpy(dtype=float)
        keep = np.isfinite(y) & (y > 0)
        if not keep.any():
            continue
        named = region in labelled
        code = labelled.index(region) if named else 0
        axes.plot(x[keep], y[keep], marker=_MARKERS[code // _COLOURS % len(_MARKERS)],
                  markersize=3.5, linewidth=1.4,
                  color=palette_color(code) if named else _OTHER,
                  label=_plain(region) if named else None, zorder=3 if named else 2)
    if varies in ("threads", "ranks"):
        workers = np.unique(_x_values(rows, varies, positions))
        base = workers.min()
        axes.plot(workers, workers / base, linestyle="--", color="black", linewidth=1.0,
                  label="ideal (speed-up = threads ratio)", zorder=1)
        axes.set_xscale("log", base=2)
        axes.set_yscale("log", base=2)
        ticks = [w for w in workers if np.log2(w).is_integer() or w in (base, workers.max())]
        axes.set_xticks(ticks, [f"{w:g}" for w in ticks])
        axes.set_xticks([], minor=True)
        from matplotlib.ticker import FuncFormatter  # matplotlib is there: the figure is drawn

        axes.yaxis.set_major_formatter(FuncFormatter(_number))
    elif positions:
        axes.set_xticks(list(positions.values()), [_plain(v) for v in positions],
                        rotation=30 if varies == "case" else 0)
        if size:
            axes.set_yscale("log")
    axes.set_xlabel(_AXIS_LABELS.get(varies, "run"))
    axes.grid(True, which="major", color="#e6e6e6", linewidth=0.8)


def _note(varies: str) -> str:
    if varies == "size":
        return ("The runs differ in problem size: their speed-ups compare different work, "
                "so GFLOP/s is drawn.")
    if varies in ("threads", "ranks"):
        return "Speed-up = runtime of the group's first run / runtime; dashed: ideal scaling."
    if varies == "case":
        return "Speed-up against the first case, on the same hardware threads."
    return "The runs do not differ in threads, ranks, size or case: nothing scales."


def scaling_figure(table: pd.DataFrame):
    """A matplotlib Figure of a scaling table (see the module docstring).

    Parameters
    ----------
    table : pandas.DataFrame
        What :func:`~roofline_widget.scaling_table` returns.

    Returns
    -------
    matplotlib.figure.Figure
        With an Agg canvas (no GUI); one panel per group (at most
        :data:`MAX_PANELS`, :data:`PANEL_COLUMNS` to a row, a note naming
        those left out), the legend right of the panels naming at most
        :data:`REGIONS_LABELLED` regions.
    """
    _, Figure, FigureCanvasAgg = import_matplotlib()
    groups = list(pd.unique(table["group"])) or [""]
    shown = groups[:MAX_PANELS]
    varies = str(table["varies"].iloc[0]) if len(table) else ""
    columns = min(len(shown), PANEL_COLUMNS)
    rows = -(-len(shown) // columns)
    figure = Figure(figsize=(PANEL_INCHES[0] * columns + 2.5, PANEL_INCHES[1] * rows + 0.6))
    FigureCanvasAgg(figure)
    grid = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    panels = list(grid.ravel())
    for spare in panels[len(shown):]:
        spare.set_visible(False)
    labelled = _labelled(table)
    positions = _positions(table, varies)
    for axes in grid[:, 0]:
        axes.set_ylabel("GFLOP/s" if varies == "size" else "speed-up against the group's first run")
    for axes, group in zip(panels, shown):
        _draw_panel(axes, table[table["group"] == group], varies, labelled, positions)
        axes.set_title(_plain(group) if group else f"varies in {varies or 'nothing'}",
                       fontsize=10)
    notes = [] if len(shown) == len(groups) else [
        f"the first {len(shown)} of {len(groups)} groups drawn (group_by fewer keys, or select runs)"]
    legend: dict[str, object] = {}
    for axes in panels:  # a region of some groups only is named once
        for handle, label in zip(*axes.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    handles, labels = list(legend.values()), list(legend)
    if handles:
        figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=8,
                      title=f"regions ({len(labelled)} of {table['region'].nunique()} named)"
                      if table["region"].nunique() > len(labelled) else "regions")
    beyond = table[table["beyond_hardware"].to_numpy(dtype=bool)] if varies == "size" else table[:0]
    if len(beyond):
        notes.append(f"{len(beyond)} point(s) of {beyond['region'].nunique()} region(s) report "
                     "more GFLOP/s than any core does (a broken counter?): not drawn")
    if notes:
        figure.text(0.01, 0.005, "; ".join(notes), fontsize=8, color="#9b3d2a")
    figure.suptitle("Scaling: " + _note(varies), fontsize=10)
    figure.tight_layout()
    return figure


def save_scaling_figure(table: pd.DataFrame, filepath) -> None:
    """Write :func:`scaling_figure` of ``table`` to ``filepath`` (its suffix names the format).

    Raises
    ------
    OutputPathError
        For a path that cannot be written (nothing is written).
    ImportError
        Without matplotlib (the ``static`` extra).
    """
    target = output_files.image_target(filepath)
    output_files.check_targets([target])
    figure = scaling_figure(table)
    output_files.write_atomically([(target, image_writer(figure, target.format))])
