"""The data ``plot_roofline`` returns (and exports): points, ceilings, colours, hover texts.

The payload follows scope-profiler 0.7.5's ``plot_roofline``; this module
builds it from the selection and the ceilings, and picks the points' colours
from a matplotlib colormap (:func:`sampled_colors`) by region or run
(:func:`colour_keys`).
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.ceiling_lines import ceiling_rows
from roofline_widget.look.colors import STRONG_COLORS, strong_first
from roofline_widget.look.point_names import point_names
from roofline_widget.look.texts import device_text
from roofline_widget.points import RegionSums
from roofline_widget.points.rank_groups import summed_ranks
from roofline_widget.points.selected_points import metric_text
from roofline_widget.roofs.roofline import JUDGED_COLUMNS, Roofline
from roofline_widget.scene.parts import Coloring
from roofline_widget.static.exports import records

__all__ = [
    "DEFAULT_CMAP",
    "MAX_LEGEND_ENTRIES",
    "build_payload",
    "colour_keys",
    "hover_texts",
    "no_points_error",
    "point_devices",
    "roofline_rows",
    "sampled_colors",
]

DEFAULT_CMAP = "tab20"
#: At most this many regions get a colour (and legend entry) of their own.
MAX_LEGEND_ENTRIES = 20
_GRID_POINTS = 160


def sampled_colors(cmap: str, count: int) -> list[str]:
    """``count`` hex colours from a matplotlib colormap (tab10's without matplotlib).

    A qualitative map (tab10, tab20, Set1, ...) gives its colours in order, so
    two runs get two distinct strong colours rather than both ends; tab20's
    strong shades come first (as the widget's palette), so that neighbours
    differ in hue.  Any other map is sampled evenly.
    """
    try:
        import matplotlib
        from matplotlib.colors import to_hex
    except ImportError:
        return [STRONG_COLORS[i % len(STRONG_COLORS)] for i in range(count)]
    try:
        colormap = matplotlib.colormaps[cmap]
    except KeyError:
        raise ValueError(f"unknown colormap {cmap!r}") from None
    listed = getattr(colormap, "colors", None)
    if listed is not None and len(listed) <= 32:
        listed = strong_first(listed) if cmap == "tab20" else list(listed)
        return [to_hex(listed[i % len(listed)]) for i in range(count)]
    return [to_hex(c) for c in colormap(np.linspace(0, 1, max(count, 1)))][:count]


def roofline_rows(roofline: Roofline, x_min: float, x_max: float) -> list[dict]:
    """The roof sampled on a log grid (scope-profiler's rows), the ridge point included."""
    grid = np.logspace(math.log10(x_min), math.log10(x_max), _GRID_POINTS)
    grid = np.unique(np.append(grid, roofline.ridge_point()))
    return [{schema.INTENSITY: float(x), schema.PERFORMANCE: float(y)}
            for x, y in zip(grid, roofline.attainable(grid))]


def point_devices(points: pd.DataFrame) -> list[str]:
    """Per point the device its texts name (:func:`~roofline_widget.look.texts.device_text`:
    a GPU's, ``""`` for a CPU's or without ``device_family``)."""
    if "device_family" not in points:
        return [""] * len(points)
    names = points["device_name"] if "device_name" in points else [None] * len(points)
    return [device_text(family, name) for family, name in zip(points["device_family"], names)]


def hover_texts(points: pd.DataFrame, file_ranks: dict) -> list[str]:
    """HTML hover text per point, headed by its name (a host's point by its host,
    :func:`~roofline_widget.look.point_names.point_names`; a GPU's names its device);
    region, file and device names are escaped."""
    texts = []
    for row, device, name in zip(points.itertuples(index=False), point_devices(points),
                                 point_names(points)):
        summed = summed_ranks(row.rank, getattr(row, "rank_group", None))
        rank = (f" ({html.escape(summed)})" if summed else
                f" (rank {row.rank})" if file_ranks.get(row.file, 1) > 1 else "")
        texts.append("<br>".join((
            f"<b>{html.escape(name)}</b>{rank}",
            *([f"device: {html.escape(device)}"] if device else []),
            f"run: {html.escape(str(row.file))}",
            f"intensity: {getattr(row, schema.INTENSITY):.6g} FLOP/byte",
            f"performance: {getattr(row, schema.PERFORMANCE):.6g} GFLOP/s",
            f"bandwidth: {getattr(row, schema.BANDWIDTH):.6g} GB/s",
            (f"not judged: {row.bound}" if str(row.bound).startswith("no ") else
             f"efficiency: {row.efficiency_percent:.3g} % of attainable ({row.bound} bound)"),
        )))
    return texts


def colour_keys(points: pd.DataFrame, chain: bool = False) -> tuple[str, list]:
    """``(column, keys)``: colour by region for one run with few regions, else by run.

    Coloured by region, the keys are the points' names
    (:func:`~roofline_widget.look.point_names.point_names`: the hosts of a run
    grouped by host are its regions' points, one colour each).

    The last run of a chain (``chain``) is coloured by region however many
    there are: each region's trajectory through the runs has its colour.
    """
    files = list(dict.fromkeys(points["file"]))
    names = list(dict.fromkeys(point_names(points)))  # by region: a host's point by its host
    if len(files) == 1 and (chain or len(names) <= MAX_LEGEND_ENTRIES):
        return "region", names
    return "file", files


def no_points_error(selection, flops_metric, bandwidth_metric) -> ValueError:
    """The error when nothing can be placed: the metrics wanted and why each region was left out."""
    wanted = " and ".join(
        metric_text(role, found) + ("" if given or found is None else " (detected)")
        for role, found, given in (("FLOP", selection.flops_metric, flops_metric),
                                   ("bandwidth", selection.bandwidth_metric, bandwidth_metric)))
    if len(selection.left_out):
        detail = selection.left_out_summary()
    else:
        detail = "no region matched the ranks/include/exclude selection"
    return ValueError(f"No LIKWID roofline points found with {wanted}: {detail}")


def build_payload(sums: RegionSums, selection, roofline: Roofline, table: pd.DataFrame,
                  no_flop: pd.DataFrame, no_flop_note: str, x_range: tuple[float, float],
                  cmap: str, coloring: Coloring) -> dict:
    """The payload without the figure (see :func:`~roofline_widget.plot_roofline`).

    Parameters
    ----------
    sums : RegionSums
        The plotted data.
    selection
        ``sums.select(...)`` of the plot (points, left-out rows, metrics).
    roofline : Roofline
        The ceilings drawn.
    table : pandas.DataFrame
        The points classified against ``roofline``.
    no_flop : pandas.DataFrame
        The rows of ``table`` doing almost no FLOPs.
    no_flop_note : str
        The note naming them ("" when there are none).
    x_range : (float, float)
        The intensity range drawn (the roof is sampled over it).
    cmap : str
        The matplotlib colormap of the runs' colours (``colors``).
    coloring : Coloring
        The points' colours (:func:`colour_keys` and ``cmap``'s colours).
    """
    points = selection.points
    file_ranks = {label: len(run.ranks) for label, run in zip(sums.files, sums.runs)}
    files = list(dict.fromkeys(points["file"]))
    colors = dict(zip(files, sampled_colors(cmap, len(files))))
    return {
        "points": selection.to_dicts(),
        "rank_groups": points["rank_group"].astype(object).tolist(),
        "point_names": point_names(points).tolist(),
        "devices": point_devices(points),
        "colors": colors,
        "file_ranks": file_ranks,
        "peak_flops_gflops": roofline.peak_flops,
        "peak_bandwidth_gbs": roofline.peak_bandwidth,
        "empirical_ceilings": roofline.empirical,
        "roofline": roofline_rows(roofline, *x_range),
        "ridge_point": roofline.ridge_point(),
        "ceilings": roofline.to_dicts(),
        "ceiling_table": ceiling_rows(roofline),
        "lines": roofline.lines(*x_range),
        "analysis": records(table[list(JUDGED_COLUMNS)]),
        "left_out": records(selection.left_out[["file", "region", "rank", "reason"]]),
        "hover": hover_texts(table, file_ranks),
        "flops_metric": selection.flops_metric,
        "bandwidth_metric": selection.bandwidth_metric,
        "colour_by": coloring.column,
        "point_colors": {str(k): v for k, v in zip(coloring.categories, coloring.palette)},
        "no_flop_work": records(no_flop[["file", "region", "rank", schema.PERFORMANCE,
                                         schema.INTENSITY]]),
        "no_flop_note": no_flop_note,
    }
