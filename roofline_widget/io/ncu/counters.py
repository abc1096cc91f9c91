"""Per launch FLOPs, seconds and bytes from the counters (:func:`launch_counts`).

* FLOPs of a precision = add + mul + 2 fma thread instructions
  (``sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum``, or the
  ``smsp__`` counters of the SM sub-partitions), computed only when all three
  counters of one unit were exported;
* tensor-core FLOPs = ``sm__inst_executed_pipe_tensor.sum`` (or ``smsp__``) x the
  FLOPs one tensor instruction does, which depends on the architecture and the
  instruction (512 for Volta's HMMA in NERSC's method): given by the user, else
  the counter is left out with a note naming the kernels that used the tensor
  cores.  Tensor FLOPs are their own metric (``Tensor [MFLOP/s]``, precision
  ``"Tensor"``), never added to a vector precision's;
* seconds = ``<unit>__cycles_elapsed.avg / <unit>__cycles_elapsed.avg.per_second``
  (``sm``, else ``smsp``), for launches without them ``gpu__time_duration.sum``;
* bytes per level: ``dram__bytes.sum`` (memory), ``lts__t_bytes.sum`` (L2),
  ``l1tex__t_bytes.sum`` (L1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from roofline_widget.io.kernels import LaunchCounts, short_name
from roofline_widget.io.ncu.names import (
    BYTE_METRICS,
    CYCLE_PAIRS,
    DURATION,
    FLOP_COUNTER_SETS,
    TENSOR_COUNTERS,
    Counter,
)

__all__ = ["launch_counts"]




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
    total = np.zeros(n)
    for counter in counters:
        total = total + counter.weight * columns[counter.name]
    return total


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
