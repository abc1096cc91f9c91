"""The Nsight Compute metrics a GPU roofline reads, their units and the metrics they become.

One home for every ``ncu`` metric name the reader knows (the counters of
NERSC's "roofline on NVIDIA GPUs" method and the peaks of Nsight Compute's
own roofline sections); the columns they turn into are named by
:mod:`roofline_widget.io.kernels`:

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

The SM counters may be exported as the SM sub-partitions' instead
(``smsp__sass_thread_inst_executed_op_...``, ``smsp__inst_executed_pipe_tensor.sum``,
``smsp__cycles_elapsed.avg[.per_second]``): a ``.sum`` over the sub-partitions
is the same count, the sub-partitions run on the SM clock.  The ``sm__`` set
is used where an export has both (:data:`FLOP_COUNTER_SETS`, :data:`CYCLE_PAIRS`).

Time per launch is ``<unit>__cycles_elapsed.avg / <unit>__cycles_elapsed.avg.per_second``
(``sm``, else ``smsp``), else ``gpu__time_duration.sum``.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline_widget.model import GPU_PROFILER_GROUPS, DeviceFamily

__all__ = [
    "BYTE_METRICS",
    "CLOCK_SUFFIX",
    "CYCLE_PAIRS",
    "DEVICE_NAME",
    "DURATION",
    "FLOP_COUNTER_SETS",
    "GROUP",
    "PEAK_SUFFIX",
    "SM_UNITS",
    "TENSOR_COUNTERS",
    "USED_METRICS",
    "Counter",
    "clock_of",
    "peak_of",
]

#: The group name of every row an Nsight Compute export gives (``run.groups``).
GROUP = GPU_PROFILER_GROUPS[DeviceFamily.NVIDIA]

#: Suffix of a metric's theoretical per-cycle peak.
PEAK_SUFFIX = ".peak_sustained"
#: The clock of a unit: ``<unit>__cycles_elapsed.avg.per_second``.
CLOCK_SUFFIX = "__cycles_elapsed.avg.per_second"

#: The units SM counters are exported under, in order of preference: the SM's, its sub-partitions'.
SM_UNITS = ("sm", "smsp")

#: (elapsed cycles, cycles per second) of each SM unit, in order of preference.
CYCLE_PAIRS = tuple((f"{unit}__cycles_elapsed.avg", f"{unit}__cycles_elapsed.avg.per_second")
                    for unit in SM_UNITS)
DURATION = "gpu__time_duration.sum"
#: The tensor-pipe instruction counter of each SM unit, in order of preference.
TENSOR_COUNTERS = tuple(f"{unit}__inst_executed_pipe_tensor.sum" for unit in SM_UNITS)
#: A string metric: the GPU's marketing name (``Tesla V100-SXM2-16GB``).
DEVICE_NAME = "device__attribute_display_name"


@dataclass(frozen=True)
class Counter:
    """One counter of a FLOP sum: ``weight`` FLOPs per counted instruction."""

    name: str
    weight: int


def _sass(unit: str, letter: str, op: str) -> str:
    return f"{unit}__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum"


def _flop_set(unit: str, letter: str) -> tuple[Counter, ...]:
    return (Counter(_sass(unit, letter, "add"), 1), Counter(_sass(unit, letter, "mul"), 1),
            Counter(_sass(unit, letter, "fma"), 2))


_LETTERS = (("DP", "d"), ("SP", "f"), ("HP", "h"))
#: Per precision the counter sets whose weighted sum is the FLOP count (add + mul + 2 fma),
#: one set per SM unit (:data:`SM_UNITS`), in order of preference.
FLOP_COUNTER_SETS: dict[str, tuple[tuple[Counter, ...], ...]] = {
    precision: tuple(_flop_set(unit, letter) for unit in SM_UNITS)
    for precision, letter in _LETTERS
}

#: Per memory level the byte counter.
BYTE_METRICS = {"MEM": "dram__bytes.sum", "L2": "lts__t_bytes.sum", "L1": "l1tex__t_bytes.sum"}


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


def _all_used() -> frozenset[str]:
    sets = [group for groups in FLOP_COUNTER_SETS.values() for group in groups]
    counters = [c.name for group in sets for c in group]
    bytes_ = list(BYTE_METRICS.values())
    fmas = [group[2].name for group in sets]
    peaks = [peak_of(m) for m in fmas + bytes_]
    clocks = {clock_of(m) for m in peaks}
    cycles = [name for pair in CYCLE_PAIRS for name in pair]
    return frozenset([*counters, *TENSOR_COUNTERS, *cycles, DURATION, *bytes_, *peaks, *clocks])


#: Every numeric metric the reader takes from an export; others are not read.
USED_METRICS = _all_used()
