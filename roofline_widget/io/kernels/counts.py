"""What a profiler's reader computes per kernel launch: FLOPs per precision, seconds, bytes per level."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["LaunchCounts"]


@dataclass
class LaunchCounts:
    """FLOPs per precision, seconds and bytes per level, one value per launch row.

    Attributes
    ----------
    flops : dict of str to numpy.ndarray
        Precision (``"DP"``, ``"SP"``, ``"HP"``, ``"Tensor"``, ``"MFMA F64"``, ...; see
        :data:`~roofline_widget.metric_names.PRECISIONS`) -> FLOPs: only those the
        profiler counted.
    seconds : numpy.ndarray
        NaN where the launch has no time.
    bytes : dict of str to numpy.ndarray
        Level (``"MEM"``, ``"L2"``, ``"L1"``, ``"LDS"``) -> bytes: only those counted.
    notes : list of str
        Counters that could not be used, and why.
    """

    flops: dict[str, np.ndarray]
    seconds: np.ndarray
    bytes: dict[str, np.ndarray]
    notes: list[str] = field(default_factory=list)
