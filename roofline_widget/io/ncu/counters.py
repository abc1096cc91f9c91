"""The Nsight Compute counters a GPU roofline reads, and what they add up to per launch.

One home for every ``ncu`` metric name the reader knows (the counters of
NERSC's "roofline on NVIDIA GPUs" method and the peaks of Nsight Compute's
own roofline sections) and for what :func:`launch_counts` makes of them; the
columns they turn into are named by :mod:`roofline_widget.io.kernels`:

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

The FLOPs of a precision are computed only when all three counters of one
unit were exported.  The SM counters may be exported as the SM
sub-partitions' instead (``smsp__sass_thread_inst_executed_op_...``,
``smsp__inst_executed_pipe_tensor.sum``, ``smsp__cycles_elapsed.avg[.per_second]``):
a ``.sum`` over the sub-partitions is the same count, the sub-partitions run on
the SM clock.  The ``sm__`` set is used where an export has both
(:data:`FLOP_COUNTER_SETS`, :data:`CYCLE_PAIRS`).

The FLOPs of one tensor instruction depend on the architecture and the
instruction (512 for Volta's HMMA in NERSC's method): given by the user, else
the counter is left out with a note naming the kernels that used the tensor
cores.  Tensor FLOPs are their own metric (precision ``"Tensor"``), never
added to a vector precision's.

Time per launch is ``<unit>__cycles_elapsed.avg / <unit>__cycles_elapsed.avg.per_second``
(``sm``, else ``smsp``), else ``gpu__time_duration.sum``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget.io.kernels import LaunchCounts, short_name
from roofline_widget.model import GPU_PROFILER_GROUPS, DeviceFamily

__all__ = ["BYTE_METRICS", "CLOCK_SUFFIX", "CYCLE_PAIRS", "DEVICE_NAME", "DURATION",
           "FLOP_COUNTER_SETS", "GROUP", "PEAK_SUFFIX", "SM_UNITS", "TENSOR_COUNTERS",
           "USED_METRICS", "Counter", "clock_of", "launch_counts", "peak_of"]

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


def _column(launches: pd.DataFrame, metric: str) -> np.ndarray | None:
    return launches[metric].to_numpy(dtype=float) if metric in launches.columns else None


def _seconds(launches: pd.DataFrame, notes: list[str]) -> np.ndarray:
    """Cycles over their rate (the first unit of :data:`CYCLE_PAIRS` exported), else the duration."""
    seconds = np.full(len(launches), np.nan)
    for cycles_name, rate_name in CYCLE_PAIRS:
        cycles, rate = _column(launches, cycles_name), _column(launches, rate_name)
        if cycles is not None and rate is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                seconds = np.where(np.isnan(seconds), cycles / rate, seconds)
    duration = _column(launches, DURATION)
    if duration is not None:
        seconds = np.where(np.isnan(seconds), duration, seconds)
    if np.isnan(seconds).all():
        pairs = " or ".join(f"{c} with {r}" for c, r in CYCLE_PAIRS)
        notes.append(f"no kernel time: the export has neither {pairs} nor {DURATION}, so no "
                     "rate can be computed")
    return seconds


def _precision_flops(launches: pd.DataFrame, precision: str, notes: list[str]) -> np.ndarray | None:
    """add + mul + 2 fma of the first complete counter set of ``precision`` (None: none complete)."""
    partial: list[str] = []
    for counters in FLOP_COUNTER_SETS[precision]:
        columns = {c.name: col for c in counters if (col := _column(launches, c.name)) is not None}
        if len(columns) == len(counters):
            return _weighted(counters, columns, len(launches))
        if columns:
            partial.extend(c.name for c in counters if c.name not in columns)
    if partial:
        notes.append(f"{precision} FLOPs need add, mul and fma counters of one unit; "
                     f"{', '.join(partial)} not exported, so no {precision} FLOP rate")
    return None


def _weighted(counters: tuple[Counter, ...], columns: dict[str, np.ndarray], n: int) -> np.ndarray:
    return sum((counter.weight * columns[counter.name] for counter in counters), np.zeros(n))


def _tensor_notes(launches: pd.DataFrame, name: str, instructions: np.ndarray) -> list[str]:
    """The note on tensor-pipe instructions not counted: which kernels used the tensor cores."""
    used = np.nan_to_num(instructions) > 0
    kernels = list(dict.fromkeys(short_name(k) for k in launches["kernel"].to_numpy()[used]))
    shown = ", ".join(kernels[:5]) + (f" and {len(kernels) - 5} more" if len(kernels) > 5 else "")
    where = (f"{len(kernels)} kernel(s) used the tensor cores ({shown}); " if kernels
             else "no kernel used the tensor cores; ")
    return [f"{name} exported: {where}their tensor-pipe instructions are not counted as FLOPs "
            "(the FLOPs of one depend on the GPU and the instruction): pass "
            "tensor_flop_per_instruction= (512 for Volta's HMMA, NERSC's method) for a "
            "'Tensor [MFLOP/s]' rate of its own, judged against a tensor roof only"]


def launch_counts(launches: pd.DataFrame,
                  tensor_flop_per_instruction: float | None = None) -> LaunchCounts:
    """FLOPs, seconds and bytes of every launch row.

    Parameters
    ----------
    launches : pandas.DataFrame
        One row per launch with the used metrics in base units (:func:`~.join.join_passes`).
    tensor_flop_per_instruction : float, optional
        FLOPs per ``sm__inst_executed_pipe_tensor.sum`` instruction.

    Returns
    -------
    LaunchCounts
    """
    notes: list[str] = []
    flops: dict[str, np.ndarray] = {}
    for precision in FLOP_COUNTER_SETS:
        found = _precision_flops(launches, precision, notes)
        if found is not None:
            flops[precision] = found
    tensor_name = next((name for name in TENSOR_COUNTERS if name in launches.columns), None)
    if tensor_name is not None:
        tensor = launches[tensor_name].to_numpy(dtype=float)
        if tensor_flop_per_instruction is None:
            notes.extend(_tensor_notes(launches, tensor_name, tensor))
        else:
            factor = float(tensor_flop_per_instruction)
            if not math.isfinite(factor) or factor <= 0:
                raise ValueError("tensor_flop_per_instruction must be a positive number, got "
                                 f"{tensor_flop_per_instruction!r}")
            flops["Tensor"] = tensor * factor
    if not flops:
        notes.append("no FLOP counters ({sm,smsp}__sass_thread_inst_executed_op_{d,f,h}"
                     "{add,mul,fma}_pred_on.sum) exported: the kernels have bandwidths but no "
                     "FLOP rate")
    data = {level: col for level, metric in BYTE_METRICS.items()
            if (col := _column(launches, metric)) is not None}
    if not data:
        notes.append("no byte counters (dram__bytes.sum, lts__t_bytes.sum, l1tex__t_bytes.sum) "
                     "exported: the kernels have FLOP rates but no intensity")
    return LaunchCounts(flops, _seconds(launches, notes), data, notes)
