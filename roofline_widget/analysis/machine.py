"""Machine ceilings from every source: likwid-bench logs, ERT roofline.json, rocprof-compute roofline.csv.

:func:`machine_roofline` takes any mix of

* likwid-bench logs (:mod:`~roofline_widget.analysis.bench_logs`: alone or
  wrapped in ``likwid-perfctr -g L2/L3/MEM/FLOPS_DP`` text or ``-O`` CSV
  output, in job logs with likwid-topology output, repeated, or a folder of
  them) and :func:`~roofline_widget.read_likwid_bench` results: ``peakflops*``
  kernels give the compute roofs (per precision and ISA as the kernel name
  says), every other kernel a bandwidth roof of the memory level decided,
  in this order, by

  1. the likwid-perfctr group wrapping the benchmark (``L2``, ``L3``, ``MEM``,
     ``MEM1``...; a text ``Group 1: MEM`` header or a CSV ``TABLE,...,MEM`` line);
  2. the working set per thread against the cache sizes printed by
     likwid-topology in the same log, or given as ``topology=`` (threads
     spread over the cores, :mod:`~roofline_widget.analysis.bench_levels`);
  3. ``level=`` given by the user;

  repetitions give the median (:mod:`~roofline_widget.analysis.bench_roofs`:
  both figures, write-allocate, MEM1/MEM2);
* the Empirical Roofline Toolkit's ``roofline.json`` and rocprof-compute's
  ``roofline.csv`` (:mod:`roofline_widget.io.ceiling_files`), told apart by
  their first bytes; of a ``roofline.csv`` the roofs of one GPU (``device``
  0, as rocprof-compute's own roofline, or ``rocprof_device=``), AMD roofs
  (family ``"amd"``) with the matrix cores' precisions (``MFMA F64``, ...),
  which judge the kernels of the workload's ``pmc_perf.csv``
  (:func:`~roofline_widget.read_rocprof`).

Every roof keeps its provenance; a CPU roof from a log names the CPU the
log printed (``cpu_name``, ``cpu_type``), so that a run of another machine
is told (:func:`~roofline_widget.analysis.ceiling_checks.machine_mismatches`).
Where the group decided the level and the cache sizes are known (likwid-topology,
else the table of cores' L1 and L2 per core), the working set is checked
against the cache of the level: a :class:`~roofline_widget.errors.CeilingWarning`
names the kernel, its working set and the cache, and the roof keeps the
text in ``provenance["level_check"]``.

A set without a compute roof (a triad alone) gives the bandwidth roofs it
measured; its compute roof is then the user's ``peak_flops=``, else the
theoretical SIMD FMA peak of the CPU the logs name
(:func:`~roofline_widget.theoretical_roofline`, for the benchmark's
threads), its provenance's ``notes`` saying so; a CPU the table does not
know, with no ``peak_flops``, is a :class:`~roofline_widget.errors.MachineError`.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

from roofline_widget.analysis.bench_logs import (
    BenchRun,
    bench_paths,
    log_measurements,
    result_measurements,
)
from roofline_widget.analysis.bench_roofs import BenchCeilings, bench_ceilings
from roofline_widget.analysis.levels import LEVELS
from roofline_widget.analysis.theoretical import MachineFacts, theoretical_roofline
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning, MachineError
from roofline_widget.io.bench import BenchResult
from roofline_widget.io.ceiling_files import (
    ceiling_file_kind,
    read_ert_roofline,
    read_rocprof_roofline,
)
from roofline_widget.io.topology import Topology, read_topology
from roofline_widget.model import CPU
from roofline_widget.roofs.roof import USER
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.settings import check

__all__ = ["ROCPROF_DEVICE", "level_ridges", "machine_roofline"]

#: The GPU whose roofs a rocprof-compute roofline.csv gives by default: rocprof-compute's own
#: roofline plots the row of device 0.
ROCPROF_DEVICE = 0


def _ceiling_file(path, kind: str, rocprof_device) -> list:
    """The roofs of an ERT or rocprof-compute ceiling file (of one GPU of a rocprof file)."""
    if kind == "ert":
        return read_ert_roofline(path)
    return read_rocprof_roofline(path, device=rocprof_device)


def _read(paths, level, topology: Topology | None,
          rocprof_device=ROCPROF_DEVICE) -> tuple[list[BenchRun], list]:
    """(likwid-bench measurements, roofs of ERT / rocprof files) of everything given."""
    items = [paths] if isinstance(paths, (str, os.PathLike, BenchResult)) else list(paths)
    results = [item for item in items if isinstance(item, BenchResult)]
    measured = result_measurements(results, level, topology)
    others: list = []
    for path, named in bench_paths([item for item in items
                                    if not isinstance(item, BenchResult)]):
        kind = ceiling_file_kind(path)
        try:
            if kind is not None:
                others += _ceiling_file(path, kind, rocprof_device)
            else:
                measured += log_measurements(path, level, topology)
        except LikwidFormatError as exc:
            if named:
                raise
            warnings.warn(f"{path}: no likwid-bench result or ceiling file, passed over "
                          f"({exc.expected}; found {exc.found})",
                          LikwidReadWarning, stacklevel=3)
    return measured, others


def _labelled(roofs: list, label: str | None) -> list:
    return [dataclasses.replace(roof, name=f"{label} {roof.name}") for roof in roofs] \
        if label else list(roofs)


def _missing_compute(bench: BenchCeilings, precision: str, peak_flops, label) -> ComputeRoof:
    """The compute roof of a set without one: the user's peak, else the CPU's theoretical peak."""
    kernels = ", ".join(bench.kernels) or "none"
    why = (f"no likwid-bench peakflops kernel of precision {precision} among the ceilings "
           f"(kernels: {kernels})")
    if peak_flops is not None:
        value = check("peak_flops", peak_flops)
        return ComputeRoof(f"{label + ' ' if label else ''}Peak", value, USER, device=str(CPU),
                           precision=precision, provenance={"notes": [
                               f"{why}: the compute roof is the peak_flops given"]})
    cpu = bench.cpu
    facts = MachineFacts("the likwid-bench logs", cpu.get("cpu_name"), cpu.get("cpu_type"),
                         cpu.get("cpu_clock"), bench.threads, bench.threads,
                         f"{bench.threads} benchmark thread(s), one core each")
    try:
        roof = theoretical_roofline(facts, precision).simd_fma
    except MachineError as exc:
        raise MachineError(f"{why}, so no compute roof: the CPU's theoretical peak is not known "
                           f"({exc}); give peak_flops= (--peak-flops), or run likwid-bench -t "
                           "peakflops_avx_fma") from None
    notes = [f"{why}: the compute roof is the theoretical peak of the CPU the logs name (the "
             "table of cores), not a measurement; run likwid-bench -t peakflops_avx_fma for a "
             "measured one, or give peak_flops="]
    return dataclasses.replace(roof, name=f"{label + ' ' if label else ''}{roof.name}",
                               provenance={**(roof.provenance or {}), "notes": notes})


def machine_roofline(paths, *, precision: str = "DP", label: str | None = None, level=None,
                     figure: str = "benchmark", topology=None, peak_flops=None,
                     rocprof_device: int | str | None = ROCPROF_DEVICE) -> Roofline:
    """Compute roofs and one bandwidth roof per memory level from every ceiling source given.

    Parameters
    ----------
    paths : path, BenchResult, or a sequence of them
        In any mix: likwid-bench output, alone or in job logs (wrapped in
        likwid-perfctr text or CSV output, with likwid-topology output,
        several benchmarks or repetitions per file), :func:`~roofline_widget.read_likwid_bench`
        results, an ERT ``roofline.json``, a rocprof-compute ``roofline.csv``,
        or a folder of such files (its files that hold no ceiling, a job
        script say, are passed over with a
        :class:`~roofline_widget.errors.LikwidReadWarning`).
    precision : {"DP", "SP"}
        Which peakflops kernels give the compute roofs (``*_sp*`` kernels are
        SP); ERT and rocprof roofs keep their own precisions.
    label : str, optional
        Prefix of every roof name (a machine name).
    level : str or dict, optional
        The memory level of benchmarks that neither a likwid-perfctr group
        nor likwid-topology cache sizes place: one level for all, or
        ``{kernel: level}``.
    figure : {"benchmark", "counted"}
        The bandwidth of a roof: likwid-bench's ``MByte/s`` (default) or the
        wrapping group's measured total.  Both are in every roof's ``source``
        and ``provenance``, with the reason they differ.
    topology : Topology or path, optional
        likwid-topology output of the machine, for logs without it: the cache
        sizes that place unwrapped kernels and check wrapped ones.
    peak_flops : float, optional
        The compute roof (GFLOP/s) of a set without a compute benchmark.
    rocprof_device : int, str or None
        The GPU (the ``device`` cell) whose row of a rocprof-compute
        ``roofline.csv`` gives the roofs: default 0, the GPU rocprof-compute's
        own roofline plots (the rows of one node's GPUs differ by a fraction
        of a percent); None: every GPU's roofs (judging takes the highest of
        each kind then, whichever GPU measured it).

    Returns
    -------
    Roofline
        Compute roofs (per kernel, the best thread count; a set without one:
        ``peak_flops`` or the theoretical peak, see the module docstring);
        per level the bandwidth roof of the fastest benchmark.  Repetitions of
        a kernel (same threads, work groups and working set) give the median;
        the ``provenance`` holds file, line, kernel, threads, the working set
        per thread, how the level was decided, both figures, the range and
        number of repetitions (``runs``: ``file:line`` of each), the wrapping
        groups and ``notes`` (write-allocate, MEM1/MEM2, where the compute
        roof came from).

    Raises
    ------
    ValueError
        For an unknown precision or figure.
    MachineError
        (a ``ValueError``) For no bandwidth ceiling, a benchmark whose level
        cannot be decided, no compute roof and none to put in its place.
    LikwidFormatError
        For a named file without ceilings (:class:`~roofline_widget.errors.CeilingFileError`
        for a damaged ERT or rocprof file), and for a path that is no regular
        file (a directory, a FIFO, a device, a symbolic link loop).

    Warns
    -----
    CeilingWarning
        For a kernel whose working set does not fit the cache of the level its
        likwid-perfctr group names
        (:func:`~roofline_widget.analysis.bench_levels.level_check`).
    """
    if precision not in ("DP", "SP"):
        raise ValueError(f"precision must be 'DP' or 'SP', got {precision!r}")
    if figure not in ("benchmark", "counted"):
        raise ValueError(f"figure must be 'benchmark' or 'counted', got {figure!r}")
    if topology is not None and not isinstance(topology, Topology):
        topology = read_topology(topology)
    measured, others = _read(paths, level, topology, rocprof_device)
    bench = bench_ceilings(measured, precision, label, figure)
    others = _labelled(others, label)
    compute = bench.compute + [roof for roof in others if isinstance(roof, ComputeRoof)]
    bandwidth = bench.bandwidth + [roof for roof in others if isinstance(roof, BandwidthRoof)]
    if not bandwidth:
        raise MachineError(f"no bandwidth ceiling (a likwid-bench load, copy, triad ... kernel, "
                           f"an ERT or rocprof-compute file) in {paths}")
    if not compute:
        compute = [_missing_compute(bench, precision, peak_flops, label)]
    return Roofline(compute, bandwidth)


def level_ridges(roofline: Roofline) -> dict[str, float]:
    """Each memory level's ridge point (FLOP/byte), per device: the rule ``plot`` judges by.

    A point of a level is judged against that level's bandwidth roof and its
    device's compute roof (:meth:`Roofline.roofs_for
    <roofline_widget.roofs.roofline.Roofline.roofs_for>`), so each level has its own
    ridge: ``{"L2": 1.06, "MEM": 19.9}`` (keys ``"GPU L2"`` for another device's
    roofs when the roofline has several devices).
    """
    devices = roofline.devices or [None]
    ridges = {}
    for device in devices:
        prefix = f"{device.upper()} " if device is not None and len(devices) > 1 else ""
        for level in LEVELS:
            if any(roof.level == level and roof.serves(device) for roof in roofline.bandwidth):
                ridges[f"{prefix}{level}"] = roofline.ridge_point(level=level, device=device)
    return ridges
