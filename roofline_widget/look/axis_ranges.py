"""The axis-range rule of every roofline view: the widget's figure and the static plot.

:func:`axis_ranges` is the one place that decides what the log axes show:
the points (without those doing almost no FLOPs,
:mod:`roofline_widget.look.no_flop`, and those reporting a rate beyond any
hardware, :func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`:
a broken counter would squash every real point), what else is drawn (memory-level dots,
baseline points, rank whiskers: ``extent``), every ridge point, room right of
the ridges for the compute roofs and the ridge label, each padded by
:data:`AXIS_MARGIN`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from roofline_widget import schema
from roofline_widget.look.ceiling_labels import ridge_label_end
from roofline_widget.look.log_axes import padded_range, positive
from roofline_widget.look.no_flop import below_flop_work, split_flop_work
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.roofline import Roofline

__all__ = ["AXIS_MARGIN", "COMPUTE_ROOM", "DEFAULT_X_RANGE", "DEFAULT_Y_RANGE", "axis_ranges"]

#: The axis limits when nothing positive is drawn.
DEFAULT_X_RANGE = (0.01, 100.0)
DEFAULT_Y_RANGE = (0.1, 1000.0)
#: Factor between the data and the axis limits.
AXIS_MARGIN = 3.0
#: The x axis reaches this factor right of each compute roof's ridge with its device's
#: main bandwidth roof, so that the roof shows as a line (marks are clipped to the plot).
COMPUTE_ROOM = 10.0


def _plausible_extent(points: pd.DataFrame, bulk: pd.DataFrame | None, extent_x: np.ndarray,
                      extent_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The extent pairs above the no-FLOP threshold of ``bulk`` (None: no points do no FLOP
    work) and not at the FLOP rate of a point beyond the hardware (its level dots)."""
    keep = np.ones(extent_y.shape, dtype=bool)
    if bulk is not None and len(bulk):
        keep &= ~below_flop_work(extent_y, bulk[schema.PERFORMANCE].max())
    broken = points[schema.PERFORMANCE].to_numpy(dtype=float)[
        beyond_hardware(points, schema.PERFORMANCE)]
    if broken.size:  # a region's level dots share its FLOP rate
        keep &= ~_near_any(extent_y, broken)
    return extent_x[keep], extent_y[keep]


def _near_any(values: np.ndarray, targets: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Which ``values`` lie within ``rtol`` of one of ``targets`` (sorted search: no n x m table)."""
    targets = np.sort(targets)
    right = np.clip(np.searchsorted(targets, values), 0, len(targets) - 1)
    left = np.clip(right - 1, 0, len(targets) - 1)
    near = np.zeros(values.shape, dtype=bool)
    for side in (left, right):
        with np.errstate(invalid="ignore"):
            near |= np.abs(values - targets[side]) <= rtol * np.abs(targets[side])
    return near


def axis_ranges(points: pd.DataFrame, roofline: Roofline | None,
                extent: tuple[ArrayLike, ArrayLike] | Sequence = ((), ()), *,
                bulk: pd.DataFrame | None = None
                ) -> tuple[tuple[float, float], tuple[float, float]]:
    """Log-axis limits that hold the points, every ridge point, the roofs and the ridge label.

    Parameters
    ----------
    points : pandas.DataFrame
        The points (``arithmetic_intensity_flops_per_byte``, ``performance_gflops``).
    roofline : Roofline or None
        The ceilings drawn (None: none).
    extent : (array-like, array-like)
        More (x, y) values to keep inside: memory-level dots, baseline points,
        whisker ends.  Pairs (x and y of equal length) whose GFLOP/s is below
        the no-FLOP-work threshold of ``points``, or at the GFLOP/s of a point
        beyond the hardware (the level dots of a broken point), do not
        stretch the axes either.
    bulk : pandas.DataFrame, optional
        The first part of :func:`~roofline_widget.look.no_flop.split_flop_work`
        of ``points`` when the caller has it already.

    Returns
    -------
    ((float, float), (float, float))
        The x (intensity) and y (GFLOP/s) limits.
    """
    if bulk is None:
        bulk, _ = split_flop_work(points)
    no_flop = len(bulk) < len(points)
    beyond = beyond_hardware(bulk)
    if beyond.any() and not beyond.all():  # only broken rates: the axes show them
        bulk = bulk[~beyond]
    extent_x = np.asarray(extent[0], dtype=float)
    extent_y = np.asarray(extent[1], dtype=float)
    if extent_x.shape == extent_y.shape:
        extent_x, extent_y = _plausible_extent(points, bulk if no_flop else None,
                                               extent_x, extent_y)
    x = np.concatenate([positive(bulk[schema.INTENSITY]), positive(extent_x)])
    y = np.concatenate([positive(bulk[schema.PERFORMANCE]), positive(extent_y)])
    if roofline is not None:
        ridges = [roofline.ridge_point(bandwidth=b) for b in roofline.bandwidth]
        ridges += [COMPUTE_ROOM * r.gflops / roofline.top_bandwidth(r.device).gbs
                   for r in roofline.compute]
        x = np.concatenate([x, ridges])
        y = np.concatenate([y, [r.gflops for r in roofline.compute]])
    x_range = padded_range(x, AXIS_MARGIN, DEFAULT_X_RANGE)
    if roofline is not None:
        x_range = (x_range[0], max(x_range[1], ridge_label_end(roofline.ridge_point(),
                                                               x_range[0])))
    y_range = padded_range(y, AXIS_MARGIN, DEFAULT_Y_RANGE)
    return (float(x_range[0]), float(x_range[1])), (float(y_range[0]), float(y_range[1]))
