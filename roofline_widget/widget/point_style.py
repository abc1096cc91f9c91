"""The categories of the widget's colours and the points' marker sizes, fixed over the whole data.

A region (run, rank; a host's point its host, :mod:`roofline_widget.look.point_names`) keeps
its colour whatever is selected: its code is its
position among every value ``color_by`` can take in the data
(:func:`color_categories`, a :class:`~roofline_widget.scene.parts.Coloring`'s
categories), an index into ``look.colors.PALETTE`` (repeating past its end).
A device family keeps one colour on every plot (:data:`DEVICE_FAMILY_ORDER`:
the CPU blue, a GPU of no known vendor orange, NVIDIA's green, AMD's red).
Sizes follow log runtime over the whole data.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.log_axes import positive
from roofline_widget.look.point_names import name_categories
from roofline_widget.points import RegionSums
from roofline_widget.points.rank_places import rank_places_of
from roofline_widget.schema import ALL_RANKS

__all__ = ["COLOR_COLUMN", "DEVICE_FAMILY_ORDER", "color_categories", "drawable_ranks",
           "marker_sizes", "runtime_log_range"]

#: Which points-frame column each ``color_by`` value colours by.
COLOR_COLUMN = {"region": "region", "run": "file", "rank": "rank", "device": "device_family"}
#: The device families in palette order: their colour codes, the same on every plot.
DEVICE_FAMILY_ORDER = ("cpu", "gpu", "nvidia", "amd")


def color_categories(sums: RegionSums, color_by: str, combine_ranks: bool) -> list:
    """Every value ``color_by`` can take in the data (fixes each one's colour).

    Coloured by region, the names of the points
    (:func:`~roofline_widget.look.point_names.name_categories`: the regions, then the hosts
    and sockets of the data, then each region at each).
    """
    if color_by == "region":
        return name_categories(sums.regions, list(rank_places_of(sums)))
    if color_by == "run":
        return sums.files
    if color_by == "device":
        return list(DEVICE_FAMILY_ORDER)
    # a sum of a run's every rank is -1: last, so a rank keeps its colour (a socket's or
    # host's point has its lowest rank's number and colour); a points table may hold such
    # sums itself (rank -1): one category still
    # the ranks that can have a point come first: their colours differ up to the palette's size
    # (the other ranks' would take the first colours again past its end)
    ranks = [] if combine_ranks else [rank for rank in sums.ranks if rank != ALL_RANKS]
    drawable = set(drawable_ranks(sums))
    return [*sorted(ranks, key=lambda rank: rank not in drawable), ALL_RANKS]


def drawable_ranks(sums: RegionSums) -> list[int]:
    """The ranks with a row that a FLOP metric and a bandwidth metric measured (each above 0).

    A rank whose every bandwidth is 0 or missing (LIKWID counts the memory of a socket
    on one of its ranks) never has a point, whatever metrics are chosen.
    """
    def measured(metrics: list[str]) -> np.ndarray:
        found = np.zeros(len(sums), dtype=bool)
        for metric in metrics:
            values = np.asarray(sums.sums(metric), dtype=float)
            with np.errstate(invalid="ignore"):
                found |= np.isfinite(values) & (values > 0)
        return found

    rows = measured(sums.flop_metrics) & measured(sums.bandwidth_metrics)
    return np.unique(np.asarray(sums.key_numbers("rank"))[rows]).tolist()


def runtime_log_range(sums: RegionSums) -> tuple[float, float]:
    """log10 of the smallest and largest runtime in the data (the size scale)."""
    runtime = positive(sums.frame["runtime_s"])
    if runtime.size == 0:
        return 0.0, 1.0
    low, high = math.log10(runtime.min()), math.log10(runtime.max())
    return float(low), float(max(high, low + 1e-12))


def marker_sizes(shown: pd.DataFrame, size_by: str,
                 log_range: tuple[float, float]) -> np.ndarray | None:
    """Marker sizes in [0.15, 1] from log runtime (fixed over all data), or None."""
    if size_by == "none":
        return None
    low, high = log_range
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log10(shown[schema.RUNTIME].to_numpy(dtype=float))
    scaled = 0.15 + 0.85 * np.clip((logs - low) / (high - low), 0.0, 1.0)
    return np.where(np.isfinite(scaled), scaled, 0.15)
