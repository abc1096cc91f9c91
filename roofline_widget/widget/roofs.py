"""The widget's ceilings: the extra roofs checked, the roofline of the peaks and ceilings (of the few
points it depends on), the points judged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from roofline_widget.analysis.theoretical import with_theoretical_ceilings
from roofline_widget.roofs.hardware_bounds import (
    RATE_COLUMNS,
    THREAD_COLUMNS,
    THREAD_LIMIT_COLUMN,
    beyond_hardware,
    keep_flags,
)
from roofline_widget.roofs.roofline import JUDGED_COLUMNS, BandwidthRoof, ComputeRoof, RoofKeys, Roofline

__all__ = ["check_ceilings", "classify", "roof_basis", "rooflines", "with_theoretical"]


def check_ceilings(ceilings: Sequence | None) -> tuple:
    """The extra ceilings as a tuple; anything but ComputeRoof/BandwidthRoof raises TypeError."""
    ceilings = tuple(ceilings or ())
    bad = [c for c in ceilings if not isinstance(c, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError(f"ceilings must be ComputeRoof or BandwidthRoof objects, got {bad[0]!r}")
    return ceilings


def with_theoretical(sums, ceilings: Sequence | None, options: dict) -> list:
    """``ceilings`` and, where none is a compute roof of the CPU and the CPU is in the table of
    cores, its theoretical SIMD FMA roof (:func:`~roofline_widget.analysis.theoretical.theoretical_ceilings`)
    for the points of the widget's first selection (``options``' FLOP metric)."""
    points = sums.select(flops_metric=options.get("flops_metric")).points
    return with_theoretical_ceilings(sums, points, ceilings)[0]


def rooflines(peak_flops: float | None, peak_bandwidth: float | None, points: pd.DataFrame,
              extra: Sequence = (), keys: RoofKeys | None = None) -> Roofline | None:
    """The widget's roofline: the extra ceilings, the peaks' roofs, empirical roofs for the rest.

    :meth:`Roofline.from_ceilings` with ``peaks="add"``: a peak is a roof of
    its own (the slider's, the main one), drawn beside the ceilings; measured
    ceilings replace the empirical roofs of their kind and device.  None when
    a roof is missing and there are no points to take it from.  ``keys``: the points'
    :func:`~roofline_widget.roofs.roofline.roof_keys`, if known.
    """
    try:
        return Roofline.from_ceilings(extra or None, peak_flops, peak_bandwidth, points,
                                      peaks="add", keys=keys)
    except ValueError:
        return None


def roof_basis(points: pd.DataFrame, keys: RoofKeys) -> tuple[pd.DataFrame, RoofKeys]:
    """The few rows of ``points`` the widget's roofs depend on, and their keys.

    The first point of each (level, device, precision, family) (which decides the
    main roofs) and, per device (and per device and family) and rate, the point
    with the largest plausible value and the one with the largest of all (the
    empirical roofs, :func:`~roofline_widget.roofs.hardware_bounds.largest_plausible`:
    a point beyond the hardware in either rate is passed over as a whole), with the
    columns that judge a point beyond the hardware:
    :meth:`Roofline.from_ceilings` gives the same roofs for them as for every
    point, and a peak drag works out the roofs of a few rows, not of 32,000 (their
    beyond-hardware flags those of ``points`` where it is kept:
    :func:`~roofline_widget.roofs.hardware_bounds.keep_flags`).
    """
    order, group_of = keys.groups
    first = np.full(len(order), len(points), dtype=np.intp)
    np.minimum.at(first, group_of, np.arange(len(points)))
    rows = set(first.tolist())
    every = np.ones(len(points), dtype=bool)
    owners = [every if device is None else _rows(keys.rows_of(device), every)
              for device in keys.devices]
    if keys.knows_family:
        owners += [_rows(keys.rows_of(device, family, of_family=True), every)
                   for device, family in {(key[1], key[3]) for key in order}]
    broken = beyond_hardware(points)
    for column in RATE_COLUMNS:
        values = points[column].to_numpy(dtype=float, na_value=np.nan)
        usable = np.isfinite(values) & (values > 0)
        for mine in owners:
            for chosen in (usable & ~broken & mine, usable & mine):
                if chosen.any():
                    rows.add(int(np.flatnonzero(chosen)[np.argmax(values[chosen])]))
    kept = np.array(sorted(rows), dtype=np.intp)
    columns = [points.columns.get_loc(c) for c in (
        *RATE_COLUMNS, *THREAD_COLUMNS.values(), THREAD_LIMIT_COLUMN, "n_threads", "device",
        "device_family") if c in points.columns]
    return (keep_flags(points.iloc[kept, columns], within=points),  # judged: the points' flags
            keys.take(kept))


def _rows(rows: np.ndarray | None, every: np.ndarray) -> np.ndarray:
    """``rows`` (of :meth:`RoofKeys.rows_of`), ``every`` for None (all points)."""
    return every if rows is None else rows


def classify(points: pd.DataFrame, roofline: Roofline | None) -> pd.DataFrame:
    """Points with :data:`~roofline_widget.roofs.roofline.JUDGED_COLUMNS` (not judged without a roofline)."""
    if roofline is not None:
        return roofline.classify(points).reset_index(drop=True)
    out = points.copy()
    empty = {"attainable_gflops": np.nan, "efficiency_percent": np.nan,
             "bound": np.full(len(out), "n/a", dtype=object),
             "above_roof": np.zeros(len(out), dtype=bool), "ridge_flops_per_byte": np.nan,
             "compute_roof": "", "bandwidth_roof": ""}
    for name in JUDGED_COLUMNS:
        out[name] = empty[name]
    return out.reset_index(drop=True)
