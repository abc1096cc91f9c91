"""The widget's ceilings: the extra roofs checked, the rooflines from the peaks, the points judged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from roofline_widget.ceilings import BandwidthRoof, ComputeRoof, Roofline

__all__ = ["check_ceilings", "classify", "rooflines"]


def check_ceilings(ceilings: Sequence | None) -> tuple:
    """The extra ceilings as a tuple; anything but ComputeRoof/BandwidthRoof raises TypeError."""
    ceilings = tuple(ceilings or ())
    bad = [c for c in ceilings if not isinstance(c, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError(f"ceilings must be ComputeRoof or BandwidthRoof objects, got {bad[0]!r}")
    return ceilings


def rooflines(peak_flops: float | None, peak_bandwidth: float | None, points: pd.DataFrame,
              extra: Sequence = ()) -> tuple[Roofline | None, Roofline | None]:
    """(main roofline from the peaks, main plus extra ceilings), or (None, None)."""
    try:
        main = Roofline.from_peaks(peak_flops, peak_bandwidth, points)
    except ValueError:
        return None, None
    if not extra:
        return main, main
    compute = [c for c in extra if isinstance(c, ComputeRoof)]
    bandwidth = [c for c in extra if isinstance(c, BandwidthRoof)]
    return main, Roofline([*main.compute, *compute], [*main.bandwidth, *bandwidth])


def classify(points: pd.DataFrame, roofline: Roofline | None) -> pd.DataFrame:
    """Points with attainable performance, efficiency, bound and above_roof."""
    if roofline is not None:
        return roofline.classify(points).reset_index(drop=True)
    out = points.copy()
    out["attainable_gflops"] = np.nan
    out["efficiency_percent"] = np.nan
    out["bound"] = np.full(len(out), "n/a", dtype=object)
    out["above_roof"] = np.zeros(len(out), dtype=bool)
    return out.reset_index(drop=True)
