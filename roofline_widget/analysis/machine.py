"""Machine ceilings from likwid-bench logs: compute roofs and one bandwidth roof per memory level.

Users measure their machine once with likwid-bench, often wrapped in
``likwid-perfctr -g L2/L3/MEM/FLOPS_DP`` and often inside one long job log
that also holds likwid-topology output.  :func:`machine_roofline` reads such
logs: ``peakflops*`` kernels give the compute roofs (per precision and ISA as
the kernel name says), every other kernel a bandwidth figure whose memory
level is decided, in this order, by

1. the likwid-perfctr group wrapping the benchmark (``L2``, ``L3``, ``MEM``...);
2. the working set per thread against the cache sizes printed by
   likwid-topology in the same log, or given as ``topology=`` (threads
   assumed pinned compactly);
3. ``level=`` given by the user;

else a clear error.  Where the group decides and the cache sizes are known
too, the working set is checked against them: a kernel run in ``-g L3``
whose working set does not fit the L3 measured memory, so the roof is not
the L3's; a :class:`~roofline_widget.errors.CeilingWarning` names the
kernel, its working set and the cache size, and the roof keeps the text in
``provenance["level_check"]`` (``sanity_check(..., ceilings=)`` reports it).
Every roof is a CPU roof (``device="cpu"``; compute roofs carry their
precision) and its provenance names the CPU the log printed
(``cpu_name``, ``cpu_type``), so that a run of another machine is told
(:func:`~roofline_widget.analysis.ceiling_checks.machine_mismatches`).

Where likwid-perfctr wrapped the benchmark both figures are kept: the
benchmark's own ``MByte/s`` and the group's measured total (they differ: an
L3 load kernel's ``L3 bandwidth`` counts loads *and* evictions);
``figure="counted"`` uses the latter for the roofs.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from roofline_widget.analysis.levels import LEVELS, detect_levels
from roofline_widget.ceilings import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.errors import CeilingWarning
from roofline_widget.io import read_likwid_text
from roofline_widget.io.bench import BenchResult, kernel_precision, read_likwid_bench
from roofline_widget.io.likwid_text import cpu_header
from roofline_widget.io.topology import Topology, parse_topology, read_topology
from roofline_widget.model import CPU
from roofline_widget.points import RegionSums

__all__ = ["bench_level", "kernel_isa", "kernel_precision", "level_check", "machine_roofline"]

_GROUP_LINE = re.compile(r"^(?:Region .*, )?Group \d+: (\S+)\s*$")
_BANNER = "LIKWID MICRO BENCHMARK"
_ISAS = (("avx512_fma", "AVX-512 FMA"), ("avx512", "AVX-512"), ("avx_fma", "AVX FMA"),
         ("avx", "AVX"), ("sve", "SVE"), ("neon", "NEON"), ("sse", "SSE"))


def kernel_isa(kernel: str) -> str:
    """The instruction set a likwid-bench kernel name says (``peakflops_avx_fma`` -> ``AVX FMA``).

    Plain ``peakflops`` is the SSE kernel.
    """
    padded = f"_{kernel}_"
    for token, isa in _ISAS:
        if f"_{token}_" in padded:
            return isa
    return "SSE" if kernel.startswith("peakflops") else "scalar"


def _group_level(group: str) -> str | None:
    upper = group.upper()
    if upper in ("L2", "L3", "L2CACHE", "L3CACHE"):
        return upper[:2]
    if upper.startswith(("MEM", "HBM")):
        return "MEM"
    return None


def _counted(segment_text: str, source: str, level: str) -> tuple[str | None, float | None]:
    """The wrapping group's measured total of ``level`` (GB/s, summed over threads)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = read_likwid_text(segment_text, source)
    sums = RegionSums.from_runs(run)
    metric = detect_levels(sums.bandwidth_metrics)[0].get(level)
    if metric is None:
        return None, None
    total = float(sums.frame[metric].sum(min_count=1)) * sums.units[metric].to_giga
    return metric, total


def _working_set(result: BenchResult) -> float | None:
    for key in ("Size per thread", "Size (Byte)"):
        if key in result.values:
            size = float(result.values[key].split()[0])
            return size if key == "Size per thread" else size / max(result.threads, 1)
    return None


def _mb(size: float) -> str:
    """A size in bytes as KiB, MiB or GiB (3 significant digits)."""
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size / 2**10:.3g} KiB"


def _topology_level(working_set: float, threads: int, topology: Topology) -> tuple[str, str]:
    compared = []
    for cache in topology.caches:
        capacity = cache.bytes_per_thread(threads)
        compared.append(f"L{cache.level} {_mb(capacity)}/thread")
        if working_set <= capacity:
            return f"L{cache.level}", (f"working set {_mb(working_set)}/thread fits in "
                                       f"{', '.join(compared)} (likwid-topology)")
    return "MEM", (f"working set {_mb(working_set)}/thread exceeds {', '.join(compared)} "
                   "(likwid-topology)")


def bench_level(result: BenchResult, *, group: str | None, topology: Topology | None,
                level=None) -> tuple[str, str]:
    """The memory level of one bandwidth benchmark and how it was decided.

    Parameters
    ----------
    result : BenchResult
    group : str or None
        The likwid-perfctr group wrapping it.
    topology : Topology or None
        likwid-topology output of the same log.
    level : str or dict, optional
        The user's level for every kernel, or ``{kernel: level}``.

    Raises
    ------
    ValueError
        If nothing decides the level, or ``level`` names no known level.
    """
    decided = None if group is None else _group_level(group)
    if decided is not None:
        return decided, f"likwid-perfctr group {group} wrapping the benchmark"
    working_set = _working_set(result)
    if topology is not None and topology.caches and working_set is not None:
        return _topology_level(working_set, result.threads, topology)
    user = level.get(result.kernel) if isinstance(level, dict) else level
    if user is not None:
        if user not in LEVELS:
            raise ValueError(f"unknown level {user!r} for {result.kernel}; valid: {list(LEVELS)}")
        return user, "level= given by the user"
    raise ValueError(
        f"{result.source}, line {result.line}: cannot tell which memory level likwid-bench "
        f"{result.kernel} measured: it is not wrapped in likwid-perfctr -g L2/L3/MEM, the log "
        "has no likwid-topology output to compare its working set with, and no level= was "
        f"given (e.g. level={{{result.kernel!r}: 'L3'}}); valid levels: {list(LEVELS)}")


def level_check(result: BenchResult, level: str, group: str | None,
                topology: Topology | None, counted: float | None = None) -> str | None:
    """Why a bandwidth roof may not be ``level``'s (None: nothing known against it).

    When the likwid-perfctr ``group`` decided the level and the cache sizes of
    ``topology`` are known, the working set per thread must fit the level's
    cache and not an inner one (threads pinned compactly).  The text names
    the kernel, its working set and the cache size, and the ``counted``
    figure of the group when it is far from the benchmark's.
    """
    working_set = _working_set(result)
    if (group is None or _group_level(group) != level or topology is None
            or not topology.caches or working_set is None):
        return None
    measured, _how = _topology_level(working_set, result.threads, topology)
    if measured == level:
        return None
    cache = topology.caches[-1] if measured == "MEM" else topology.cache(int(measured[1]))
    if cache is None:  # _topology_level names a level of the topology's caches
        return None
    fit = "does not fit in" if measured == "MEM" else "fits in"
    text = (f"likwid-bench {result.kernel} ({result.source}, line {result.line}) ran in "
            f"likwid-perfctr -g {group} and gives the {level} roof, but its working set of "
            f"{_mb(working_set)} per thread ({_mb(working_set * result.threads)} in all on "
            f"{result.threads} threads) {fit} the {_mb(cache.size_bytes)} L{cache.level} "
            f"({_mb(cache.bytes_per_thread(result.threads))} per thread, likwid-topology): it "
            f"measured {measured} traffic, not {level}")
    if counted and result.gbs > 0 and not 2 / 3 <= counted / result.gbs <= 1.5:
        text += (f"; its {group} group counted {counted:.4g} GB/s, {counted / result.gbs:.2g}x "
                 f"the benchmark's {result.gbs:.4g} GB/s")
    return text


def _segments(lines: list[str]):
    """(first line index, text padded to keep line numbers, wrapping group) per banner."""
    starts = [i for i, line in enumerate(lines) if line.strip() == _BANNER]
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        group = next((m[1] for m in map(_GROUP_LINE.match, lines[start:end]) if m), None)
        yield start, "\n" * start + "\n".join(lines[start:end]), group


@dataclass(frozen=True)
class _Bandwidth:
    """One bandwidth benchmark of a log: its level, how it was decided, what was counted."""

    result: BenchResult
    level: str
    how: str
    group: str | None
    metric: str | None
    counted: float | None
    check: str | None
    cpu: dict


def _file_roofs(path, level, topology: Topology | None):
    source = str(path)
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    topology = parse_topology(text, source) or topology
    cpu = cpu_header(text)
    if "cpu_name" not in cpu and topology is not None and topology.cpu_name:
        cpu["cpu_name"] = topology.cpu_name
    cpu = {key: cpu[key] for key in ("cpu_name", "cpu_type") if key in cpu}
    results = {r.line: r for r in read_likwid_bench(path)}
    compute, bandwidth = [], []
    for start, segment, group in _segments(text.splitlines()):
        result = next((r for line, r in results.items() if start < line <= start + 3), None)
        if result is None:
            continue
        if result.kernel.startswith("peakflops"):
            compute.append((result, cpu))
            continue
        if not result.gbs > 0:
            continue
        decided, how = bench_level(result, group=group, topology=topology, level=level)
        metric, counted = (_counted(segment, source, decided) if group is not None
                           else (None, None))
        check = level_check(result, decided, group, topology, counted)
        bandwidth.append(_Bandwidth(result, decided, how, group, metric, counted, check, cpu))
    return compute, bandwidth


def _compute_roof(result: BenchResult, cpu: dict, prefix: str) -> ComputeRoof:
    isa, precision = kernel_isa(result.kernel), kernel_precision(result.kernel)
    return ComputeRoof(f"{prefix}{precision} {isa} peak", result.gflops,
                       f"{result.provenance} ({Path(result.source).name})",
                       provenance={"file": result.source, "line": result.line,
                                   "kernel": result.kernel, "threads": result.threads,
                                   "precision": precision, "isa": isa, **cpu},
                       device=str(CPU), precision=precision)


def _bandwidth_roof(entry: _Bandwidth, prefix: str, figure: str) -> BandwidthRoof:
    result, counted = entry.result, entry.counted
    working_set = _working_set(result)
    source = result.provenance
    if working_set is not None:
        source += f", {_mb(working_set)}/thread"
    usable = counted is not None and counted > 0
    if entry.group is not None:
        source += (f"; {entry.group} group counted {counted:.4g} GB/s ({entry.metric})" if usable
                   else f"; {entry.group} group counted no traffic (counters read 0 or '-')")
    counted_figure = figure == "counted" and counted is not None and usable
    value = counted if counted is not None and counted_figure else result.gbs
    label = "counted" if counted_figure else "likwid-bench"
    return BandwidthRoof(f"{prefix}{entry.level} ({result.kernel}, {label})", value,
                         f"{source} ({Path(result.source).name})", level=entry.level,
                         provenance={"file": result.source, "line": result.line,
                                     "kernel": result.kernel, "threads": result.threads,
                                     "working_set_per_thread_bytes": working_set,
                                     "level_decided_by": entry.how, "benchmark_gbs": result.gbs,
                                     "counted_gbs": counted if usable else None,
                                     "counted_metric": entry.metric if usable else None,
                                     "level_check": entry.check, **entry.cpu},
                         device=str(CPU))


def machine_roofline(paths, *, precision: str = "DP", label: str | None = None, level=None,
                     figure: str = "benchmark", topology=None) -> Roofline:
    """Compute roofs and one bandwidth roof per memory level from likwid-bench logs.

    Parameters
    ----------
    paths : path or sequence of paths
        likwid-bench output, alone or in job logs (wrapped in likwid-perfctr,
        with likwid-topology output, several benchmarks per file).
    precision : {"DP", "SP"}
        Which peakflops kernels give the compute roofs (``*_sp*`` kernels are SP).
    label : str, optional
        Prefix of every roof name (a machine name).
    level : str or dict, optional
        The memory level of benchmarks that neither a likwid-perfctr group
        nor likwid-topology cache sizes place: one level for all, or
        ``{kernel: level}``.
    figure : {"benchmark", "counted"}
        The bandwidth of a roof: likwid-bench's ``MByte/s`` (default) or the
        wrapping group's measured total.  Both are in every roof's ``source``
        and ``provenance``.
    topology : Topology or path, optional
        likwid-topology output of the machine, for logs without it: the cache
        sizes that place unwrapped kernels and check wrapped ones.

    Returns
    -------
    Roofline
        Compute roofs (best result per kernel); per level the bandwidth roof
        of the fastest benchmark, with ``level`` and ``provenance`` (file,
        line, kernel, threads, working set per thread, how the level was
        decided, both figures).

    Raises
    ------
    ValueError
        For an unknown precision or figure, no peakflops kernel of that
        precision, no bandwidth benchmark, or a benchmark whose level
        cannot be decided.
    LikwidFormatError
        For a file without likwid-bench results.

    Warns
    -----
    CeilingWarning
        For a kernel whose working set does not fit the cache of the level its
        likwid-perfctr group names (:func:`level_check`).
    """
    if precision not in ("DP", "SP"):
        raise ValueError(f"precision must be 'DP' or 'SP', got {precision!r}")
    if figure not in ("benchmark", "counted"):
        raise ValueError(f"figure must be 'benchmark' or 'counted', got {figure!r}")
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if topology is not None and not isinstance(topology, Topology):
        topology = read_topology(topology)
    compute, bandwidth = [], []
    for path in paths:
        more_compute, more_bandwidth = _file_roofs(path, level, topology)
        compute += more_compute
        bandwidth += more_bandwidth
    prefix = f"{label} " if label else ""
    peaks: dict[str, tuple[BenchResult, dict]] = {}
    for result, cpu in compute:
        if kernel_precision(result.kernel) == precision and result.gflops > 0:
            if result.kernel not in peaks or result.gflops > peaks[result.kernel][0].gflops:
                peaks[result.kernel] = (result, cpu)
    if not peaks:
        found = sorted({r.kernel for r, _cpu in compute})
        raise ValueError(f"no likwid-bench peakflops kernel of precision {precision} in {paths} "
                         f"(peakflops kernels found: {found}); run e.g. likwid-bench -t "
                         "peakflops_avx_fma for a compute roof")
    best: dict[str, tuple[float, _Bandwidth]] = {}
    for entry in bandwidth:
        if entry.check is not None:
            warnings.warn(entry.check, CeilingWarning, stacklevel=2)
        value = entry.counted if figure == "counted" and entry.counted else entry.result.gbs
        if entry.level not in best or value > best[entry.level][0]:
            best[entry.level] = (value, entry)
    if not best:
        raise ValueError(f"no likwid-bench bandwidth kernel (load, copy, triad, ...) in {paths}")
    return Roofline([_compute_roof(r, cpu, prefix) for r, cpu in peaks.values()],
                    [_bandwidth_roof(best[lv][1], prefix, figure) for lv in LEVELS if lv in best])
