"""The Nsight Compute metrics a GPU roofline reads, their units and the metrics they become.

One home for every ``ncu`` metric name the reader knows (the counters of
NERSC's "roofline on NVIDIA GPUs" method and the peaks of Nsight Compute's
own roofline sections) and for the names of the columns they turn into
(named like LIKWID's, so that :mod:`roofline_widget.units` parses their
units and :mod:`roofline_widget.analysis.levels` finds the levels):

===================================================  ===============================
counters (per launch)                                 metric of the run
===================================================  ===============================
``sm__sass_thread_inst_executed_op_d{add,mul,fma}``   ``DP [MFLOP/s]`` (add + mul + 2 fma)
``..._op_f{add,mul,fma}_pred_on.sum``                 ``SP [MFLOP/s]``
``..._op_h{add,mul,fma}_pred_on.sum``                 ``HP [MFLOP/s]``
``sm__inst_executed_pipe_tensor.sum``                 ``Tensor [MFLOP/s]`` (x FLOP per instruction)
``dram__bytes.sum``                                   ``Memory bandwidth [MBytes/s]``
``lts__t_bytes.sum``                                  ``L2 bandwidth [MBytes/s]``
``l1tex__t_bytes.sum``                                ``L1 bandwidth [MBytes/s]``
===================================================  ===============================

Time per launch is ``sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second``,
else ``gpu__time_duration.sum``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BYTE_METRICS",
    "CLOCK_SUFFIX",
    "CYCLES",
    "CYCLES_PER_SECOND",
    "DEVICE_NAME",
    "DURATION",
    "FLOP_COUNTERS",
    "GROUP",
    "LEVEL_NAMES",
    "PEAK_SUFFIX",
    "TENSOR",
    "USED_METRICS",
    "Counter",
    "bandwidth_metric",
    "clock_of",
    "flop_metric",
    "peak_of",
    "volume_metric",
]

#: The group name of every row an Nsight Compute export gives (``run.groups``).
GROUP = "NCU"

#: Suffix of a metric's theoretical per-cycle peak.
PEAK_SUFFIX = ".peak_sustained"
#: The clock of a unit: ``<unit>__cycles_elapsed.avg.per_second``.
CLOCK_SUFFIX = "__cycles_elapsed.avg.per_second"

CYCLES = "sm__cycles_elapsed.avg"
CYCLES_PER_SECOND = "sm__cycles_elapsed.avg.per_second"
DURATION = "gpu__time_duration.sum"
TENSOR = "sm__inst_executed_pipe_tensor.sum"
#: A string metric: the GPU's marketing name (``Tesla V100-SXM2-16GB``).
DEVICE_NAME = "device__attribute_display_name"


@dataclass(frozen=True)
class Counter:
    """One counter of a FLOP sum: ``weight`` FLOPs per counted instruction."""

    name: str
    weight: int


def _sass(letter: str, op: str) -> str:
    return f"sm__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum"


#: Per precision the counters whose weighted sum is the FLOP count: add + mul + 2 fma.
FLOP_COUNTERS: dict[str, tuple[Counter, ...]] = {
    precision: (Counter(_sass(letter, "add"), 1), Counter(_sass(letter, "mul"), 1),
                Counter(_sass(letter, "fma"), 2))
    for precision, letter in (("DP", "d"), ("SP", "f"), ("HP", "h"))
}

#: Per memory level the byte counter.
BYTE_METRICS = {"MEM": "dram__bytes.sum", "L2": "lts__t_bytes.sum", "L1": "l1tex__t_bytes.sum"}
#: How a level is called in metric and roof names.
LEVEL_NAMES = {"MEM": "Memory", "L2": "L2", "L1": "L1"}


def peak_of(metric: str) -> str:
    """The per-cycle peak of a counter: ``dram__bytes.sum`` -> ``dram__bytes.sum.peak_sustained``."""
    return metric + PEAK_SUFFIX


def clock_of(metric: str) -> str:
    """The cycles per second of the unit that counts ``metric`` (the part before ``__``).

    Examples
    --------
    >>> clock_of("dram__bytes.sum.peak_sustained")
    'dram__cycles_elapsed.avg.per_second'
    """
    return metric.split("__", 1)[0] + CLOCK_SUFFIX


def flop_metric(precision: str) -> str:
    """The run's FLOP-rate metric of a precision (``"DP"`` -> ``"DP [MFLOP/s]"``, ``"Tensor"``)."""
    return f"{precision} [MFLOP/s]"


def bandwidth_metric(level: str) -> str:
    """The run's bandwidth metric of a level (``"MEM"`` -> ``"Memory bandwidth [MBytes/s]"``)."""
    return f"{LEVEL_NAMES[level]} bandwidth [MBytes/s]"


def volume_metric(level: str) -> str:
    """The run's data-volume metric of a level (``"L2"`` -> ``"L2 data volume [GBytes]"``)."""
    return f"{LEVEL_NAMES[level]} data volume [GBytes]"


def _all_used() -> frozenset[str]:
    counters = [c.name for group in FLOP_COUNTERS.values() for c in group]
    bytes_ = list(BYTE_METRICS.values())
    fmas = [group[2].name for group in FLOP_COUNTERS.values()]
    peaks = [peak_of(m) for m in fmas + bytes_]
    clocks = {clock_of(m) for m in peaks}
    return frozenset([*counters, TENSOR, CYCLES, CYCLES_PER_SECOND, DURATION, *bytes_,
                      *peaks, *clocks])


#: Every numeric metric the reader takes from an export; others are not read.
USED_METRICS = _all_used()
