"""What a profiler's reader computes per kernel launch: FLOPs per precision, seconds, bytes per level.

A profiler counts every precision it can, whether the program used it or not
(an SGEMM export has double-precision counters that read 0).
:meth:`LaunchCounts.used` keeps the precisions some launch used, so that the
run's metrics, and the plot's default FLOP metric, are the precisions of the
work done; when no launch did any floating-point work (copies), every
precision is kept, each zero, and the points leave the kernels out for that.
"""

from __future__ import annotations

import dataclasses
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

    def used(self) -> LaunchCounts:
        """A copy without the precisions whose FLOPs are zero in every launch (see the module).

        Examples
        --------
        >>> counts = LaunchCounts({"DP": np.zeros(2), "SP": np.ones(2)}, np.ones(2), {})
        >>> list(counts.used().flops), counts.used().notes
        (['SP'], ['no launch did DP work (its counters read 0): no DP FLOP rate in the run'])
        """
        done = {p: v for p, v in self.flops.items() if np.nan_to_num(v).any()}
        unused = [p for p in self.flops if p not in done]
        if not done or not unused:
            return self
        note = (f"no launch did {', '.join(unused)} work (its counters read 0): no "
                f"{', '.join(unused)} FLOP rate in the run")
        return dataclasses.replace(self, flops=done, notes=[*self.notes, note])
