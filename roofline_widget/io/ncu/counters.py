"""Per launch FLOPs, seconds and bytes from the counters (:func:`launch_counts`).

* FLOPs of a precision = add + mul + 2 fma thread instructions
  (``sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum``),
  computed only when all three counters were exported;
* tensor-core FLOPs = ``sm__inst_executed_pipe_tensor.sum`` x the FLOPs one
  tensor instruction does, which depends on the architecture and the
  instruction (512 for Volta's HMMA in NERSC's method): given by the user,
  else the counter is left out with a note;
* seconds = ``sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second``,
  for launches without them ``gpu__time_duration.sum``;
* bytes per level: ``dram__bytes.sum`` (memory), ``lts__t_bytes.sum`` (L2),
  ``l1tex__t_bytes.sum`` (L1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from roofline_widget.io.ncu.names import (
    BYTE_METRICS,
    CYCLES,
    CYCLES_PER_SECOND,
    DURATION,
    FLOP_COUNTERS,
    TENSOR,
)

__all__ = ["LaunchCounts", "launch_counts"]


@dataclass
class LaunchCounts:
    """FLOPs per precision, seconds and bytes per level, one value per launch row.

    Attributes
    ----------
    flops : dict of str to numpy.ndarray
        ``"DP"``, ``"SP"``, ``"HP"``, ``"Tensor"``: only those whose counters were exported.
    seconds : numpy.ndarray
        NaN where neither the cycles nor the duration were exported.
    bytes : dict of str to numpy.ndarray
        ``"MEM"``, ``"L2"``, ``"L1"``: only those exported.
    notes : list of str
        Counters that could not be used, and why.
    """

    flops: dict[str, np.ndarray]
    seconds: np.ndarray
    bytes: dict[str, np.ndarray]
    notes: list[str] = field(default_factory=list)


def _column(launches: pd.DataFrame, metric: str) -> np.ndarray | None:
    return launches[metric].to_numpy(dtype=float) if metric in launches.columns else None


def _seconds(launches: pd.DataFrame, notes: list[str]) -> np.ndarray:
    cycles, rate = _column(launches, CYCLES), _column(launches, CYCLES_PER_SECOND)
    seconds = np.full(len(launches), np.nan)
    if cycles is not None and rate is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            seconds = cycles / rate
    duration = _column(launches, DURATION)
    if duration is not None:
        seconds = np.where(np.isnan(seconds), duration, seconds)
    if np.isnan(seconds).all():
        notes.append(f"no kernel time: the export has neither {CYCLES} with {CYCLES_PER_SECOND} "
                     f"nor {DURATION}, so no rate can be computed")
    return seconds


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
    for precision, counters in FLOP_COUNTERS.items():
        columns = {c.name: col for c in counters if (col := _column(launches, c.name)) is not None}
        present = list(columns)
        if len(present) == len(counters):
            total = np.zeros(len(launches))
            for counter in counters:
                total = total + counter.weight * columns[counter.name]
            flops[precision] = total
        elif present:
            missing = [c.name for c in counters if c.name not in present]
            notes.append(f"{precision} FLOPs need add, mul and fma counters; {', '.join(missing)} "
                         f"not exported, so no {precision} FLOP rate")
    tensor = _column(launches, TENSOR)
    if tensor is not None:
        if tensor_flop_per_instruction is None:
            notes.append(f"{TENSOR} exported but not counted as FLOPs: pass "
                         "tensor_flop_per_instruction= (512 for Volta's HMMA, NERSC's method)")
        else:
            factor = float(tensor_flop_per_instruction)
            if not math.isfinite(factor) or factor <= 0:
                raise ValueError("tensor_flop_per_instruction must be a positive number, got "
                                 f"{tensor_flop_per_instruction!r}")
            flops["Tensor"] = tensor * factor
    if not flops:
        notes.append("no FLOP counters (sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}"
                     "_pred_on.sum) exported: the kernels have bandwidths but no FLOP rate")
    data = {level: col for level, metric in BYTE_METRICS.items()
            if (col := _column(launches, metric)) is not None}
    if not data:
        notes.append("no byte counters (dram__bytes.sum, lts__t_bytes.sum, l1tex__t_bytes.sum) "
                     "exported: the kernels have FLOP rates but no intensity")
    return LaunchCounts(flops, _seconds(launches, notes), data, notes)
