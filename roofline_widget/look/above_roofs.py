"""Points above their roofs: named in one note, shared by the widget's status and the static plot.

A peak or bandwidth the user gives is a ceiling.  A point above its roofs
(:meth:`Judgement.above <roofline_widget.roofs.judging.Judgement.above>`, the
``above_roof`` column of ``to_dataframe()``) says that a ceiling is set too
low (a base clock's peak, a benchmark run on fewer cores) or that the FLOP
metric is not of the roof's precision; the efficiency of such a point is
above 100 %.  :func:`above_roofs_text` says so in one sentence, naming the
point furthest above and the roof it passes.  Points beyond any hardware
have a note of their own
(:func:`~roofline_widget.look.beyond_hardware.beyond_hardware_text`) and are
not counted here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.beyond_hardware import point_name, rate_text
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.judging import RoofKeys, judge_keys, roof_keys
from roofline_widget.roofs.roofline import Roofline

__all__ = ["above_roofs_text"]


def above_roofs_text(points: pd.DataFrame, roofline: Roofline | None,
                     keys: RoofKeys | None = None) -> str:
    """The note on the points above their roofs ("" when there are none).

    Parameters
    ----------
    points : pandas.DataFrame
        The points (rates, intensity, ``region``; the columns
        :func:`~roofline_widget.roofs.judging.roof_keys` reads).
    roofline : Roofline or None
        The roofs drawn; None: no note.
    keys : RoofKeys, optional
        The points' keys, when already known (the widget's, on every peak change).

    Returns
    -------
    str
        Plain text (not escaped), e.g. ``"2 points are above their roofs, the
        furthest <function_d>: 28.58 GB/s against the roof Peak bandwidth 16 GB/s
        (1.79x what they allow): a ceiling set too low ..."``.
    """
    if roofline is None or not len(points):
        return ""
    judged = judge_keys(roofline, keys if keys is not None else roof_keys(points))
    intensity = pd.to_numeric(points[schema.INTENSITY], errors="coerce").to_numpy(float)
    performance = pd.to_numeric(points[schema.PERFORMANCE], errors="coerce").to_numpy(float)
    above = judged.above(intensity, performance) & ~beyond_hardware(points)
    count = int(above.sum())
    if not count:
        return ""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(above, performance / judged.attainable(intensity), -np.inf)
    worst = int(np.argmax(ratios))
    row = next(points.iloc[[worst]].itertuples(index=False))
    if judged.compute[worst] <= judged.bandwidth[worst] * intensity[worst]:  # right of the ridge
        passed = (f"{rate_text(performance[worst], 'GFLOP/s')} against the roof "
                  f"{judged.compute_names[worst]} {rate_text(judged.compute[worst], 'GFLOP/s')}")
    else:
        bandwidth = float(getattr(row, schema.BANDWIDTH))
        passed = (f"{rate_text(bandwidth, 'GB/s')} against the roof "
                  f"{judged.bandwidth_names[worst]} {rate_text(judged.bandwidth[worst], 'GB/s')}")
    name = point_name(row, points)
    head = (f"{name} is above its roofs: {passed}" if count == 1 else
            f"{count:,} points are above their roofs, the furthest {name}: {passed}")
    return (f"{head} ({ratios[worst]:.3g}x what they allow): a ceiling set too low (a base "
            "clock's peak, a benchmark on fewer cores), or a FLOP metric of another precision "
            "(efficiency_percent above 100; see sanity_check)")
