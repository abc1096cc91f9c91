"""GPU ceilings (:func:`gpu_ceilings`) and CPU and GPU ceilings side by side (:func:`machine_rooflines`).

Where a GPU's roofs come from, in this order for each kind of roof:

1. ``ceilings=`` given by the user: its compute roofs, or its bandwidth roofs,
   replace those of that kind (the user's numbers win);
2. the Nsight Compute export's theoretical peaks, as Nsight Compute's own
   roofline computes them: per cycle ``<counter>.peak_sustained`` times the
   cycles per second of the unit counting it (``<unit>__cycles_elapsed.avg.per_second``):
   FLOP/s = ``sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained`` x 2 x the
   SM clock; bytes/s = ``dram__bytes.sum.peak_sustained`` x the DRAM clock
   (``lts__t_bytes`` / ``lts__`` for L2, ``l1tex__t_bytes`` / ``l1tex__`` for L1),
   at the highest clock exported;
3. the datasheet table (:mod:`.gpu_specs`) for the GPU named by ``gpu=`` or
   by the export (``device__attribute_display_name``): the compute roof of
   the precision and the memory bandwidth, where 2. gave none.

Every roof is a GPU roof (``device="gpu"``; a user's roof without a device
becomes one), names its source and carries ``provenance`` (the metrics,
values and clock, or the datasheet and how sure its number is); compute
roofs carry their precision.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable

import numpy as np

from roofline_widget.analysis.gpu_specs import find_gpu
from roofline_widget.analysis.machine import machine_roofline
from roofline_widget.io.ncu.names import BYTE_METRICS, FLOP_COUNTERS, clock_of, peak_of
from roofline_widget.model import CPU, GPU, LikwidRun
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

__all__ = ["PRECISIONS", "gpu_ceilings", "machine_rooflines"]

#: The precisions a GPU compute roof can be of.
PRECISIONS = ("DP", "SP", "HP")
_LEVEL_LABELS = {"MEM": "DRAM", "L2": "L2", "L1": "L1"}


def _runs(data) -> list[LikwidRun]:
    if data is None:
        return []
    if isinstance(data, LikwidRun):
        return [data]
    from roofline_widget.io import read_likwid

    if isinstance(data, (str, os.PathLike)):
        return [read_likwid(data)]
    items = list(data)
    if all(isinstance(item, LikwidRun) for item in items):
        return items
    return [read_likwid(items)]


def _largest(runs: list[LikwidRun], column: str) -> float | None:
    values = [run.events[column].to_numpy(dtype=float) for run in runs if column in run.events]
    if not values:
        return None
    joined = np.concatenate(values)
    joined = joined[np.isfinite(joined) & (joined > 0)]
    return float(joined.max()) if joined.size else None


def _exported_peak(runs, counter: str, weight: float):
    """(per second, provenance) of ``counter``'s peak x its unit's clock, or None."""
    peak_metric, clock_metric = peak_of(counter), clock_of(counter)
    per_cycle, clock = _largest(runs, peak_metric), _largest(runs, clock_metric)
    if per_cycle is None or clock is None:
        return None
    provenance = {"metric": peak_metric, "per_cycle": per_cycle,
                  "weight": weight, "clock_metric": clock_metric, "clock_hz": clock,
                  "files": [s for run in runs for s in run.sources]}
    return per_cycle * weight * clock, provenance


def _source(provenance: dict) -> str:
    weight = f" x {provenance['weight']:g}" if provenance["weight"] != 1 else ""
    return (f"Nsight Compute {provenance['metric']}{weight} x {provenance['clock_metric']} "
            f"({provenance['clock_hz'] / 1e9:.4g} GHz)")


def _export_roofs(runs, precision: str, prefix: str):
    compute, bandwidth = [], []
    found = _exported_peak(runs, FLOP_COUNTERS[precision][2].name, 2.0)  # the fma: 2 FLOPs
    if found is not None:
        value, provenance = found
        compute.append(ComputeRoof(f"{prefix}{precision} FMA peak", value / 1e9,
                                   _source(provenance), provenance={**provenance,
                                                                    "precision": precision},
                                   device=str(GPU), precision=precision))
    for level, counter in BYTE_METRICS.items():
        found = _exported_peak(runs, counter, 1.0)
        if found is not None:
            value, provenance = found
            bandwidth.append(BandwidthRoof(f"{prefix}{_LEVEL_LABELS[level]}", value / 1e9,
                                           _source(provenance), level=level,
                                           provenance=provenance, device=str(GPU)))
    return compute, bandwidth


def _table_roofs(name: str, precision: str, prefix: str, compute, bandwidth):
    spec = find_gpu(name)
    provenance = {"gpu": spec.name, "datasheet": spec.datasheet,
                  "confidence": spec.confidence}
    source = f"spec sheet: {spec.datasheet} ({spec.confidence})"
    gflops = spec.gflops(precision)
    if not compute and gflops is not None:
        compute = [ComputeRoof(f"{prefix}{spec.name} {precision} peak", gflops, source,
                               provenance={**provenance, "precision": precision},
                               device=str(GPU), precision=precision)]
    if not any(roof.level == "MEM" for roof in bandwidth):
        bandwidth = [*bandwidth, BandwidthRoof(f"{prefix}{spec.name} HBM", spec.memory_gbs,
                                               source, level="MEM", provenance=provenance,
                                               device=str(GPU))]
    return compute, bandwidth


def _user_roofs(ceilings) -> tuple[list, list]:
    roofs = list(ceilings)
    bad = [r for r in roofs if not isinstance(r, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError("ceilings must be a Roofline or a sequence of ComputeRoof and "
                        f"BandwidthRoof, got {type(bad[0]).__name__}")
    roofs = [r if r.device is not None else dataclasses.replace(r, device=str(GPU)) for r in roofs]
    return ([r for r in roofs if isinstance(r, ComputeRoof)],
            [r for r in roofs if isinstance(r, BandwidthRoof)])


def gpu_ceilings(data=None, *, gpu: str | None = None,
                 ceilings: Roofline | Iterable[ComputeRoof | BandwidthRoof] | None = None,
                 precision: str = "DP", label: str | None = None) -> Roofline:
    """The roofs of a GPU: from an Nsight Compute export's peaks, a datasheet table, or the user.

    Parameters
    ----------
    data : LikwidRun, path or sequence of them, optional
        Nsight Compute exports (read with :func:`~roofline_widget.read_likwid`)
        or runs read from them: their ``.peak_sustained`` metrics and clocks.
    gpu : str, optional
        The GPU's model for the datasheet table (``"V100-SXM2"``, ``"H100-SXM5"``,
        or a device name such as ``"Tesla V100-SXM2-16GB"``); default the
        device name the export gives, if any.
    ceilings : Roofline or sequence of roofs, optional
        The user's roofs; their compute roofs, or bandwidth roofs, replace
        those of that kind (see the module docstring for the order).
    precision : {"DP", "SP", "HP"}
        Which FMA peak gives the compute roof (the table has DP and SP).
    label : str, optional
        Prefix of the roof names (a machine name).

    Returns
    -------
    Roofline
        Each roof's ``device`` is ``"gpu"``.

    Raises
    ------
    ValueError
        For an unknown precision, a GPU the table does not hold or holds
        several of (``"V100"``), or when no source gives a compute or a
        bandwidth roof (the message says what would).

    Examples
    --------
    >>> roofs = gpu_ceilings(gpu="V100-SXM2")
    >>> [roof.label for roof in roofs]  # doctest: +NORMALIZE_WHITESPACE
    ['V100-SXM2 DP peak: 7800 GFLOP/s (spec sheet: NVIDIA Tesla V100 GPU datasheet (sure))',
     'V100-SXM2 HBM: 900 GB/s (spec sheet: NVIDIA Tesla V100 GPU datasheet (sure))']
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    prefix = f"{label} " if label else ""
    runs = _runs(data)
    compute, bandwidth = _export_roofs(runs, precision, prefix)
    user_compute, user_bandwidth = _user_roofs(ceilings) if ceilings is not None else ([], [])
    compute = user_compute or compute
    bandwidth = user_bandwidth or bandwidth
    name = gpu or next((run.cpu_name for run in runs if run.cpu_name), None)
    table_needed = not compute or not (user_bandwidth or any(r.level == "MEM" for r in bandwidth))
    if name is not None and table_needed:
        compute, table_bandwidth = _table_roofs(name, precision, prefix, compute, bandwidth)
        bandwidth = bandwidth if user_bandwidth else table_bandwidth
    missing = [kind for kind, roofs in (("compute", compute), ("bandwidth", bandwidth)) if not roofs]
    if missing:
        fma = FLOP_COUNTERS[precision][2].name
        raise ValueError(
            f"no GPU {' or '.join(missing)} ceiling: the export has no {peak_of(fma)} / "
            f"{peak_of(BYTE_METRICS['MEM'])} with their clocks ({clock_of(fma)}, "
            f"{clock_of(BYTE_METRICS['MEM'])}), "
            + ("no GPU is named (gpu=)" if name is None else f"the table has no {precision} "
               f"peak for {name!r}") + ", and ceilings= gives none")
    return Roofline(compute, bandwidth)


def machine_rooflines(cpu_bench=None, *, gpu_data=None, gpu: str | None = None,
                      gpu_roofs: Roofline | Iterable | None = None, precision: str = "DP",
                      label: str | None = None, **bench_options) -> dict[str, Roofline]:
    """CPU and GPU ceilings side by side: ``{"cpu": Roofline, "gpu": Roofline}``.

    The CPU roofs are :func:`~roofline_widget.analysis.machine.machine_roofline`
    of likwid-bench logs, the GPU roofs :func:`gpu_ceilings`; each device
    keeps its own roofs (a GPU point is never classified against a CPU
    roof).

    Parameters
    ----------
    cpu_bench : path or sequence of paths, optional
        likwid-bench logs of the host (see ``machine_roofline``).
    gpu_data, gpu, gpu_roofs
        ``data``, ``gpu`` and ``ceilings`` of :func:`gpu_ceilings`; GPU roofs
        are built when any of them is given.
    precision : {"DP", "SP"}
        Of both devices' compute roofs.
    label : str, optional
        Prefix of every roof name.
    **bench_options
        ``level`` and ``figure`` of ``machine_roofline``.

    Returns
    -------
    dict
        ``"cpu"`` and/or ``"gpu"`` (:class:`~roofline_widget.model.Device` values) to :class:`Roofline`.

    Raises
    ------
    ValueError
        When neither device is given, or as the two functions raise.
    """
    rooflines: dict[str, Roofline] = {}
    if cpu_bench is not None:
        rooflines[str(CPU)] = machine_roofline(cpu_bench, precision=precision, label=label,
                                               **bench_options)
    if gpu_data is not None or gpu is not None or gpu_roofs is not None:
        rooflines[str(GPU)] = gpu_ceilings(gpu_data, gpu=gpu, ceilings=gpu_roofs,
                                           precision=precision, label=label)
    if not rooflines:
        raise ValueError("machine_rooflines needs likwid-bench logs (cpu_bench=) or a GPU "
                         "(gpu_data=, gpu= or gpu_roofs=)")
    return rooflines

