"""FLOPs, seconds and bytes of each kernel dispatch from rocprof-compute's counters (:func:`dispatch_counts`).

The formulas are those of rocprof-compute's own roofline (its ``calc_ai``,
the "Empirical hierarchical roofline" of its documentation), written here
from that description:

* **vector FLOPs** of a precision (F16 ``HP``, F32 ``SP``, F64 ``DP``):
  64 lanes x (``SQ_INSTS_VALU_ADD_Fxx`` + ``MUL`` + ``TRANS`` + 2 ``FMA``): the
  counters count wavefront instructions, a wavefront of an Instinct GPU has
  64 lanes, an FMA is two FLOPs;
* **matrix FLOPs** (MFMA) of a precision: ``SQ_INSTS_VALU_MFMA_MOPS_Fxx`` x 512
  (the counter counts in units of 512 operations), each its own precision
  (``MFMA F64``, ``MFMA F32``, ``MFMA F16``, ``MFMA BF16``), never added to a
  vector precision; the integer ``MFMA_MOPS_I8`` are operations, not FLOPs
  (noted, not counted);
* **HBM bytes**: 32-byte and 64-byte requests from the L2 to memory: on
  MI200 (``TCC_EA_*``) ``RDREQ_32B`` x 32 + (``RDREQ`` - ``RDREQ_32B``) x 64 +
  ``WRREQ_64B`` x 64 + (``WRREQ`` - ``WRREQ_64B``) x 32; on MI300 (``TCC_EA0_*``)
  the read requests also of 128 bytes (``TCC_BUBBLE``);
* **L2 bytes**: 64 x the L1-to-L2 requests (``TCP_TCC_READ_REQ``, ``WRITE``,
  the two ``ATOMIC`` kinds); **L1 bytes**: 64 x ``TCP_TOTAL_CACHE_ACCESSES``;
  **LDS bytes**: 4 x the LDS banks of a CU (``sysinfo.csv``) x
  (``SQ_LDS_IDX_ACTIVE`` - ``SQ_LDS_BANK_CONFLICT``);
* **seconds**: ``End_Timestamp`` - ``Start_Timestamp`` (nanoseconds).

A level or precision is counted only when all its counters are in the file;
the notes say what is missing.  (A precision no dispatch used is then left
out of the run, :meth:`~roofline_widget.io.kernels.LaunchCounts.used`.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from roofline_widget.io.kernels import LaunchCounts, short_name
from roofline_widget.io.rocprof.table import CsvTable, SysInfo, numbers

__all__ = ["LANES", "MFMA_FLOPS_PER_COUNT", "MFMA_PRECISIONS", "VALU_PRECISIONS",
           "dispatch_counts", "no_flop_notes", "used_counters"]

#: Lanes of a wavefront on an Instinct GPU: the FLOPs of one VALU wavefront instruction per lane op.
LANES = 64
#: Operations per count of ``SQ_INSTS_VALU_MFMA_MOPS_*``.
MFMA_FLOPS_PER_COUNT = 512
#: Vector precision -> the counters' type suffix.
VALU_PRECISIONS = {"DP": "F64", "SP": "F32", "HP": "F16"}
#: Matrix precision -> its MOPS counter.
MFMA_PRECISIONS = {f"MFMA {kind}": f"SQ_INSTS_VALU_MFMA_MOPS_{kind}"
                   for kind in ("F64", "F32", "F16", "BF16")}
_MFMA_INT8 = "SQ_INSTS_VALU_MFMA_MOPS_I8"
#: The level -> (the counters a formula needs, in order) of every byte count, MI200's HBM first.
_HBM_MI200 = ("TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum", "TCC_EA_WRREQ_sum",
              "TCC_EA_WRREQ_64B_sum")
_HBM_MI300 = ("TCC_BUBBLE_sum", "TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum",
              "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum")
_L2 = ("TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum", "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
       "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum")
_L1 = ("TCP_TOTAL_CACHE_ACCESSES_sum",)
_LDS = ("SQ_LDS_IDX_ACTIVE", "SQ_LDS_BANK_CONFLICT")
_START, _END = "Start_Timestamp", "End_Timestamp"


def _valu(kind: str) -> tuple[str, ...]:
    return tuple(f"SQ_INSTS_VALU_{op}_{kind}" for op in ("ADD", "MUL", "TRANS", "FMA"))


def used_counters() -> tuple[str, ...]:
    """Every counter the formulas read (they become the run's events)."""
    names = [name for kind in VALU_PRECISIONS.values() for name in _valu(kind)]
    names += [*MFMA_PRECISIONS.values(), _MFMA_INT8, *_HBM_MI200, *_HBM_MI300, *_L2, *_L1, *_LDS]
    return tuple(names)


def _hbm_mi200(c: dict[str, np.ndarray]) -> np.ndarray:
    read, read32, write, write64 = (c[name] for name in _HBM_MI200)
    return read32 * 32 + (read - read32) * 64 + write64 * 64 + (write - write64) * 32


def _hbm_mi300(c: dict[str, np.ndarray]) -> np.ndarray:
    bubble, read, read32, write, write64 = (c[name] for name in _HBM_MI300)
    return (bubble * 128 + read32 * 32 + (read - bubble - read32) * 64
            + (write - write64) * 32 + write64 * 64)


def _columns(table: CsvTable, names: tuple[str, ...]) -> dict[str, np.ndarray] | None:
    if not table.has(*names):
        return None
    return {name: numbers(table, name) for name in names}


def _flops(table: CsvTable, notes: list[str]) -> dict[str, np.ndarray]:
    flops: dict[str, np.ndarray] = {}
    for precision, kind in VALU_PRECISIONS.items():
        found = _columns(table, _valu(kind))
        if found is not None:
            add, mul, trans, fma = found.values()
            flops[precision] = LANES * (add + mul + trans + 2 * fma)
    for precision, name in MFMA_PRECISIONS.items():
        if table.has(name):
            flops[precision] = MFMA_FLOPS_PER_COUNT * numbers(table, name)
    if table.has(_MFMA_INT8) and np.nan_to_num(numbers(table, _MFMA_INT8)).any():
        notes.append(f"{_MFMA_INT8}: integer matrix operations, not FLOPs; not counted")
    if not flops:
        notes.append("no FLOP counters (SQ_INSTS_VALU_{ADD,MUL,TRANS,FMA}_F{16,32,64}, "
                     "SQ_INSTS_VALU_MFMA_MOPS_*) in the file: the kernels have bandwidths but no "
                     "FLOP rate (GPUs before MI200 have no such counters)")
    return flops


def _level_bytes(table: CsvTable, sysinfo: SysInfo | None, notes: list[str]) -> dict:
    levels: dict[str, tuple[tuple[str, ...], Callable[[dict], np.ndarray]]] = {
        "MEM": (_HBM_MI300, _hbm_mi300) if table.has(*_HBM_MI300) else (_HBM_MI200, _hbm_mi200),
        "L2": (_L2, lambda c: 64 * sum(c.values())),
        "L1": (_L1, lambda c: 64 * c[_L1[0]]),
    }
    banks = sysinfo.lds_banks_per_cu if sysinfo is not None else None
    if banks is not None:
        levels["LDS"] = (_LDS, lambda c: 4 * banks * (c[_LDS[0]] - c[_LDS[1]]))
    elif table.has(*_LDS):
        notes.append("LDS bytes need the LDS banks per CU of sysinfo.csv: no LDS bandwidth")
    data = {}
    for level, (names, formula) in levels.items():
        found = _columns(table, names)
        if found is not None:
            data[level] = formula(found)
        elif level == "MEM":
            notes.append(f"no HBM bytes: the file lacks {', '.join(n for n in names if not table.has(n))}")
    return data


def _seconds(table: CsvTable, notes: list[str]) -> np.ndarray:
    start, end = numbers(table, _START), numbers(table, _END)
    seconds = (end - start) * 1e-9
    bad = ~(seconds > 0)
    if bad.any():
        lines = [table.lines[i] for i in np.flatnonzero(bad)[:5]]
        notes.append(f"{int(bad.sum())} dispatch(es) without a positive time ({_END} - {_START}; "
                     f"lines {', '.join(map(str, lines))}): their rates are NaN")
        seconds[bad] = np.nan
    return seconds


def dispatch_counts(table: CsvTable, sysinfo: SysInfo | None) -> LaunchCounts:
    """FLOPs per precision, seconds and bytes per level of every dispatch row of ``pmc_perf.csv``.

    Parameters
    ----------
    table : CsvTable
        ``pmc_perf.csv``, with ``Start_Timestamp`` and ``End_Timestamp``.
    sysinfo : SysInfo, optional
        The machine (LDS banks per CU, for the LDS bytes).

    Returns
    -------
    LaunchCounts

    Raises
    ------
    LikwidFormatError
        For a counter cell that is no number.
    """
    notes: list[str] = []
    flops = _flops(table, notes)
    data = _level_bytes(table, sysinfo, notes)
    return LaunchCounts(flops, _seconds(table, notes), data, notes)


def no_flop_notes(kernels: np.ndarray, counts: LaunchCounts) -> list[str]:
    """Notes naming the kernels without any FLOP in any precision (copies, integer kernels)."""
    if not counts.flops:
        return []
    total = np.sum([np.nan_to_num(v) for v in counts.flops.values()], axis=0)
    names = list(dict.fromkeys(short_name(k) for k in kernels[total == 0]))
    if not names:
        return []
    shown = ", ".join(repr(n) for n in names[:5]) + (f" and {len(names) - 5} more"
                                                     if len(names) > 5 else "")
    return [f"kernel(s) {shown}: no floating-point instruction in any precision (a copy, or "
            "integer work): bandwidths but no FLOP rate, so the points leave them out"]
