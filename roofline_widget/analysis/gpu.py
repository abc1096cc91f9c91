"""GPU ceilings (:func:`gpu_ceilings`) and CPU and GPU ceilings side by side (:func:`machine_rooflines`).

Where a GPU's roofs come from, in this order for each kind of roof:

1. ``ceilings=`` given by the user: its compute roofs, or its bandwidth roofs,
   replace those of that kind (the user's numbers win);
2. the Nsight Compute export's theoretical peaks, as Nsight Compute's own
   roofline computes them: per cycle ``<counter>.peak_sustained`` times the
   cycles per second of the unit counting it (``<unit>__cycles_elapsed.avg.per_second``):
   FLOP/s = ``sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained`` (or
   ``smsp__``) x 2 x the SM clock; bytes/s = ``dram__bytes.sum.peak_sustained`` x the
   DRAM clock (``lts__t_bytes`` / ``lts__`` for L2, ``l1tex__t_bytes`` / ``l1tex__`` for L1),
   at the highest clock exported;
3. the ceilings rocprof-compute measured for a workload read with
   :func:`~roofline_widget.read_rocprof` (or ``read_likwid``): its
   ``roofline.csv`` beside the counters (``workloads/<name>/<GPU>/``), the row
   of GPU 0 as rocprof-compute's own roofline takes it
   (:func:`~roofline_widget.machine_roofline` reads the same file, any GPU's
   row with ``rocprof_device=``): the compute roof of each precision asked
   for (``DP``, ``SP``, ``MFMA F64``, ...) and the HBM, L2, vL1D and LDS
   bandwidths, where 2. gave none;
4. the datasheet table (:mod:`roofline_widget.gpu_specs`) for the GPU named by ``gpu=`` or
   by the data (``device__attribute_display_name`` of an export; a rocprof-compute
   workload's architecture and compute units): the compute roof of each
   precision asked for and the memory bandwidth, where 2. and 3. gave none.

Every roof is a GPU roof (``device="gpu"``; a user's roof without a device
becomes one) of the GPU's family (``"nvidia"`` for an Nsight Compute export
or an NVIDIA table entry, ``"amd"`` for a rocprof-compute workload or an AMD
entry), so that NVIDIA kernels and AMD kernels on one plot are each judged
against their own GPU's roofs; it names its source and carries ``provenance``
(the metrics, values and clock, or the datasheet and how sure its number is);
compute roofs carry their precision (a vector precision, or a matrix unit's:
``"MFMA F64"``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence

import numpy as np

from roofline_widget.analysis.machine import ROCPROF_DEVICE, machine_roofline
from roofline_widget.gpu_specs import GpuSpec, find_gpu
from roofline_widget.io.ceiling_files import read_rocprof_roofline
from roofline_widget.io.ncu.counters import BYTE_METRICS, FLOP_COUNTER_SETS, clock_of, peak_of
from roofline_widget.io.rocprof import workload_roofline
from roofline_widget.metric_names import PRECISIONS as ALL_PRECISIONS
from roofline_widget.model import CPU, GPU, DeviceFamily, LikwidRun, device_family
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

__all__ = ["PRECISIONS", "gpu_ceilings", "machine_rooflines"]

#: The precisions a GPU compute roof can be of: vector DP, SP, HP and the matrix units'
#: (``"Tensor"``, ``"MFMA F64"``, ...); ``precision="all"`` asks for every one the sources have.
PRECISIONS = ALL_PRECISIONS
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


def _export_compute(runs, precision: str, prefix: str) -> list[ComputeRoof]:
    """The FMA peak of ``precision`` an export gives (the SM's counter, else its sub-partitions')."""
    for counters in FLOP_COUNTER_SETS.get(precision, ()):
        found = _exported_peak(runs, counters[2].name, 2.0)  # the fma: 2 FLOPs
        if found is not None:
            value, provenance = found
            return [ComputeRoof(f"{prefix}{precision} FMA peak", value / 1e9, _source(provenance),
                                provenance={**provenance, "precision": precision},
                                device=str(GPU), precision=precision)]
    return []


def _export_bandwidth(runs, prefix: str) -> list[BandwidthRoof]:
    bandwidth = []
    for level, counter in BYTE_METRICS.items():
        found = _exported_peak(runs, counter, 1.0)
        if found is not None:
            value, provenance = found
            bandwidth.append(BandwidthRoof(f"{prefix}{_LEVEL_LABELS[level]}", value / 1e9,
                                           _source(provenance), level=level,
                                           provenance=provenance, device=str(GPU)))
    return bandwidth


def _workload_roofs(runs: list[LikwidRun], prefix: str) -> list:
    """The roofs rocprof-compute measured beside the runs' counters (GPU 0's row of each
    ``roofline.csv``), named with ``prefix``."""
    paths = dict.fromkeys(path for run in runs for path in workload_roofline(run))
    return [dataclasses.replace(roof, name=f"{prefix}{roof.name}") for path in paths
            for roof in read_rocprof_roofline(path, device=ROCPROF_DEVICE)]


def _table_compute(spec: GpuSpec, precision: str, prefix: str) -> list[ComputeRoof]:
    gflops = spec.gflops(precision)
    if gflops is None:
        return []
    provenance = {"gpu": spec.name, "datasheet": spec.datasheet, "confidence": spec.confidence,
                  "precision": precision}
    return [ComputeRoof(f"{prefix}{spec.name} {precision} peak", gflops,
                        f"spec sheet: {spec.datasheet} ({spec.confidence})",
                        provenance=provenance, device=str(GPU), precision=precision)]


def _table_memory(spec: GpuSpec, prefix: str) -> BandwidthRoof:
    provenance = {"gpu": spec.name, "datasheet": spec.datasheet, "confidence": spec.confidence}
    return BandwidthRoof(f"{prefix}{spec.name} HBM", spec.memory_gbs,
                         f"spec sheet: {spec.datasheet} ({spec.confidence})", level="MEM",
                         provenance=provenance, device=str(GPU))


def _user_roofs(ceilings) -> tuple[list, list]:
    roofs = list(ceilings)
    bad = [r for r in roofs if not isinstance(r, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError("ceilings must be a Roofline or a sequence of ComputeRoof and "
                        f"BandwidthRoof, got {type(bad[0]).__name__}")
    roofs = [r if r.device is not None else dataclasses.replace(r, device=str(GPU)) for r in roofs]
    return ([r for r in roofs if isinstance(r, ComputeRoof)],
            [r for r in roofs if isinstance(r, BandwidthRoof)])


def _precisions(precision: str | Sequence[str]) -> tuple[list[str], bool]:
    """(the precisions asked for, whether "all": each only where a source has it)."""
    if isinstance(precision, str) and precision == "all":
        return list(ALL_PRECISIONS), True
    wanted = [precision] if isinstance(precision, str) else list(precision)
    bad = [p for p in wanted if p not in ALL_PRECISIONS]
    if bad or not wanted:
        raise ValueError(f"precision must be one of {ALL_PRECISIONS}, a sequence of them or "
                         f"'all', got {precision!r}")
    return wanted, False


def _family(runs: list[LikwidRun], spec: GpuSpec | None) -> str | None:
    """The GPU's family: of the data's layout (an export is NVIDIA's), else of the table entry."""
    found = {str(device_family(run.layout, str(GPU))) for run in runs} - {str(DeviceFamily.GPU)}
    if len(found) == 1:
        return found.pop()
    return spec.vendor if spec is not None else None


def _with_family(roofs: list, family: str | None) -> list:
    if family is None:
        return roofs
    return [r if r.family is not None else dataclasses.replace(r, family=family) for r in roofs]


def gpu_ceilings(data=None, *, gpu: str | None = None,
                 ceilings: Roofline | Iterable[ComputeRoof | BandwidthRoof] | None = None,
                 precision: str | Sequence[str] = "DP", label: str | None = None) -> Roofline:
    """The roofs of a GPU: from an Nsight Compute export's peaks, a datasheet table, or the user.

    Parameters
    ----------
    data : LikwidRun, path or sequence of them, optional
        Nsight Compute exports or rocprof-compute runs (read with
        :func:`~roofline_widget.read_likwid` / :func:`~roofline_widget.read_rocprof`), or
        paths to them: an export's ``.peak_sustained`` metrics and clocks, a workload's
        ``roofline.csv``, their GPU's name.
    gpu : str, optional
        The GPU's model for the datasheet table (``"V100-SXM2"``, ``"H100-SXM5"``,
        ``"MI250X GCD"``, or a device name such as ``"Tesla V100-SXM2-16GB"`` or
        ``"AMD MI200 (gfx90a, 104 CUs)"``); default the device name the data gives, if any.
    ceilings : Roofline or sequence of roofs, optional
        The user's roofs; their compute roofs, or bandwidth roofs, replace
        those of that kind (see the module docstring for the order).
    precision : str, sequence of str or "all"
        The precision(s) of the compute roofs: ``"DP"``, ``"SP"``, ``"HP"`` or a
        matrix unit's (``"MFMA F64"``, ...; the table has DP, SP and AMD's MFMA
        peaks); ``"all"``: every precision a source has, one roof each.
    label : str, optional
        Prefix of the roof names (a machine name).

    Returns
    -------
    Roofline
        Each roof's ``device`` is ``"gpu"``, its ``family`` the GPU's vendor where the
        data or the table says (``"nvidia"``, ``"amd"``).

    Raises
    ------
    ValueError
        For an unknown precision, a GPU the table does not hold or holds
        several of (``"V100"``), or when no source gives a compute or a
        bandwidth roof (the message says what would).
    CeilingFileError
        For a workload's ``roofline.csv`` that cannot be read, or has no row of GPU 0.

    Examples
    --------
    >>> roofs = gpu_ceilings(gpu="V100-SXM2")
    >>> [roof.label for roof in roofs]  # doctest: +NORMALIZE_WHITESPACE
    ['V100-SXM2 DP peak: 7800 GFLOP/s (spec sheet: NVIDIA Tesla V100 GPU datasheet (sure))',
     'V100-SXM2 HBM: 900 GB/s (spec sheet: NVIDIA Tesla V100 GPU datasheet (sure))']
    >>> [(r.name, r.family) for r in gpu_ceilings(gpu="MI210", precision=["DP", "MFMA F64"])]
    [('MI210 MFMA F64 peak', 'amd'), ('MI210 DP peak', 'amd'), ('MI210 HBM', 'amd')]
    """
    precisions, every = _precisions(precision)
    prefix = f"{label} " if label else ""
    runs = _runs(data)
    compute = [roof for p in precisions for roof in _export_compute(runs, p, prefix)]
    bandwidth = _export_bandwidth(runs, prefix)
    measured = _workload_roofs(runs, prefix)
    have = {r.precision for r in compute}
    compute += [r for r in measured if isinstance(r, ComputeRoof) and r.precision in precisions
                and r.precision not in have]
    if not bandwidth:
        bandwidth = [r for r in measured if isinstance(r, BandwidthRoof)]
    user_compute, user_bandwidth = _user_roofs(ceilings) if ceilings is not None else ([], [])
    compute = user_compute or compute
    bandwidth = user_bandwidth or bandwidth
    name = gpu or next((run.cpu_name for run in runs if run.cpu_name), None)
    spec = find_gpu(name) if name is not None else None
    if spec is not None and not user_compute:
        have = {r.precision for r in compute}
        compute += [roof for p in precisions if p not in have
                    for roof in _table_compute(spec, p, prefix)]
    if spec is not None and not user_bandwidth and not any(r.level == "MEM" for r in bandwidth):
        bandwidth = [*bandwidth, _table_memory(spec, prefix)]
    missing = [kind for kind, roofs in (("compute", compute), ("bandwidth", bandwidth)) if not roofs]
    lacking = [] if every or user_compute else sorted(set(precisions) - {r.precision
                                                                         for r in compute})
    if missing or lacking:
        what = " or ".join(missing) if missing else f"{', '.join(lacking)} compute"
        fma = FLOP_COUNTER_SETS.get(precisions[0], FLOP_COUNTER_SETS["DP"])[0][2].name
        raise ValueError(
            f"no GPU {what} ceiling: the export has no {peak_of(fma)} / "
            f"{peak_of(BYTE_METRICS['MEM'])} with their clocks ({clock_of(fma)}, "
            f"{clock_of(BYTE_METRICS['MEM'])}), "
            + ("no GPU is named (gpu=)" if name is None else f"the table has no "
               f"{', '.join(lacking or precisions)} peak for {name!r}") + ", and ceilings= gives none")
    family = _family(runs, spec)
    return Roofline(_with_family(compute, family), _with_family(bandwidth, family))


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

