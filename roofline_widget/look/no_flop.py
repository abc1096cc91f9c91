"""Regions without floating-point work: kept out of the axis ranges, named in a note.

A point whose GFLOP/s is a tiny fraction of the largest (an MPI wait, an
initialisation) would stretch a log axis over many decades.  The largest is
that of the plausible points
(:func:`~roofline_widget.roofs.hardware_bounds.largest_plausible`): a broken
counter's rate beyond any hardware would make every real point "no FLOP work".  The widget and
the static plot both split such points off (:func:`split_flop_work`), fit the
axes to the rest, name them (:func:`no_flop_work_text`) and, where they are
drawn, pin them to the axis edge (:func:`pinned`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from roofline_widget import schema
from roofline_widget.roofs.hardware_bounds import largest_plausible

__all__ = [
    "NO_FLOP_NAMES_SHOWN",
    "NO_FLOP_WORK_FRACTION",
    "below_flop_work",
    "no_flop_work_text",
    "pinned",
    "split_flop_work",
]

#: A point whose GFLOP/s is below this fraction of the largest does no FLOP work to
#: speak of (an MPI wait, an initialisation): the axis ranges follow the other points.
NO_FLOP_WORK_FRACTION = 1e-6
#: At most this many region names in the note; the rest are counted.
NO_FLOP_NAMES_SHOWN = 5


def below_flop_work(performance: ArrayLike, largest: float,
                    fraction: float | None = None) -> np.ndarray:
    """Which GFLOP/s values are below ``fraction`` of ``largest`` (the no-FLOP-work rule).

    Parameters
    ----------
    performance : array-like
        GFLOP/s values.
    largest : float
        The largest GFLOP/s of the points they are compared with.
    fraction : float, optional
        Default ``NO_FLOP_WORK_FRACTION``, read at each call (0 turns the rule off).

    Returns
    -------
    numpy.ndarray
        Booleans; NaN is never below.
    """
    fraction = NO_FLOP_WORK_FRACTION if fraction is None else fraction
    return np.asarray(performance, dtype=float) < fraction * largest


def split_flop_work(frame: pd.DataFrame, fraction: float | None = None
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split points into the bulk and those doing almost no floating-point work.

    Parameters
    ----------
    frame : pandas.DataFrame
        Points with a ``performance_gflops`` column.
    fraction : float, optional
        A point is "no FLOP work" when its GFLOP/s is below ``fraction`` times
        the largest plausible GFLOP/s of ``frame`` (:func:`below_flop_work`,
        :func:`~roofline_widget.roofs.hardware_bounds.largest_plausible`).

    Returns
    -------
    bulk, no_flop : pandas.DataFrame
        The rows of ``frame`` (index kept) in two parts; every row is in
        exactly one.  Rows with a NaN rate stay in the bulk.
    """
    largest = largest_plausible(frame, schema.PERFORMANCE)
    if largest is None:
        return frame, frame.iloc[:0]
    below = below_flop_work(frame[schema.PERFORMANCE].to_numpy(dtype=float), largest, fraction)
    return frame[~below], frame[below]


def no_flop_work_text(no_flop: pd.DataFrame, where: str, fraction: float | None = None) -> str:
    """The note naming the points that do almost no FLOPs ("" when there are none).

    Parameters
    ----------
    no_flop : pandas.DataFrame
        The second part of :func:`split_flop_work` (``region`` column).
    where : str
        Where they are shown, e.g. ``"shown at the axis edge"``.
    fraction : float, optional
        The threshold used, named in the note (default ``NO_FLOP_WORK_FRACTION``).

    Returns
    -------
    str
        Plain text (not escaped), e.g. ``"1 region does almost no FLOPs (below
        1e-06 of the largest GFLOP/s): <init_datastructures> - shown at the
        axis edge"``.
    """
    if not len(no_flop):
        return ""
    fraction = NO_FLOP_WORK_FRACTION if fraction is None else fraction
    regions = [str(r) for r in pd.unique(no_flop["region"].astype(object))]
    names = ", ".join(regions[:NO_FLOP_NAMES_SHOWN])
    if len(regions) > NO_FLOP_NAMES_SHOWN:
        names += f" and {len(regions) - NO_FLOP_NAMES_SHOWN:,} more"
    count = f"{len(regions):,} region{'s' if len(regions) != 1 else ''}"
    if len(no_flop) != len(regions):
        count = f"{len(no_flop):,} points ({count})"
    verb = "does" if len(no_flop) == 1 else "do"
    return (f"{count} {verb} almost no FLOPs (below {fraction:g} of the largest GFLOP/s): "
            f"{names} \N{EM DASH} {where}")


def pinned(values: ArrayLike, limits: tuple[float, float]) -> np.ndarray:
    """``values`` moved inside the axis ``limits`` (where the outliers are drawn)."""
    return np.clip(np.asarray(values, dtype=float), limits[0], limits[1])
