"""The names of the metrics a GPU kernel's run has, named like LIKWID's so that units and levels parse.

====================  ===========================================
quantity              metric of the run
====================  ===========================================
FLOPs of a precision  ``DP [MFLOP/s]``, ``SP``, ``HP``, ``Tensor``, ``MFMA F64``, ...
bytes of a level      ``Memory bandwidth [MBytes/s]``, ``L2``, ``L1``, ``LDS``
                      and ``... data volume [GBytes]``
====================  ===========================================
"""

from __future__ import annotations

__all__ = ["LEVEL_NAMES", "bandwidth_metric", "flop_metric", "volume_metric"]

#: How a level is called in metric and roof names.
LEVEL_NAMES = {"MEM": "Memory", "L2": "L2", "L1": "L1", "LDS": "LDS"}


def flop_metric(precision: str) -> str:
    """The run's FLOP-rate metric of a precision (``"DP"`` -> ``"DP [MFLOP/s]"``, ``"Tensor"``)."""
    return f"{precision} [MFLOP/s]"


def bandwidth_metric(level: str) -> str:
    """The run's bandwidth metric of a level (``"MEM"`` -> ``"Memory bandwidth [MBytes/s]"``)."""
    return f"{LEVEL_NAMES[level]} bandwidth [MBytes/s]"


def volume_metric(level: str) -> str:
    """The run's data-volume metric of a level (``"L2"`` -> ``"L2 data volume [GBytes]"``)."""
    return f"{LEVEL_NAMES[level]} data volume [GBytes]"
