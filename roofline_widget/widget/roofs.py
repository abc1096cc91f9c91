"""The widget's ceilings: the extra roofs checked, the roofline of the peaks and ceilings, the points judged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from roofline_widget.analysis.theoretical import theoretical_ceilings
from roofline_widget.roofs.roofline import JUDGED_COLUMNS, BandwidthRoof, ComputeRoof, RoofKeys, Roofline

__all__ = ["check_ceilings", "classify", "rooflines", "with_theoretical"]


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
    return [*(ceilings or ()), *theoretical_ceilings(sums, points, ceilings)[0]]


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
