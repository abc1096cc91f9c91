"""Machine ceilings from likwid-bench logs: compute roofs and one bandwidth roof per memory level.

Users measure their machine once with likwid-bench, often wrapped in
``likwid-perfctr -g L2/L3/MEM/FLOPS_DP`` and often inside one long job log
that also holds likwid-topology output.  :func:`machine_roofline` reads such
logs: ``peakflops*`` kernels give the compute roofs (per precision and ISA as
the kernel name says), every other kernel a bandwidth figure whose memory
level is decided, in this order, by

1. the likwid-perfctr group wrapping the benchmark (``L2``, ``L3``, ``MEM``...);
2. the working set per thread against the cache sizes printed by
   likwid-topology in the same log (threads assumed pinned compactly);
3. ``level=`` given by the user;

else a clear error.  Where likwid-perfctr wrapped the benchmark both figures
are kept: the benchmark's own ``MByte/s`` and the group's measured total
(they differ: an L3 load kernel's ``L3 bandwidth`` counts loads *and*
evictions); ``figure="counted"`` uses the latter for the roofs.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from roofline_widget.analysis.levels import LEVELS, detect_levels
from roofline_widget.ceilings import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.io import read_likwid_text
from roofline_widget.io.bench import BenchResult, read_likwid_bench
from roofline_widget.io.opener import open_text
from roofline_widget.io.topology import Topology, parse_topology
from roofline_widget.points import RegionSums

__all__ = ["bench_level", "kernel_isa", "kernel_precision", "machine_roofline"]

_GROUP_LINE = re.compile(r"^(?:Region .*, )?Group \d+: (\S+)\s*$")
_BANNER = "LIKWID MICRO BENCHMARK"
_ISAS = (("avx512_fma", "AVX-512 FMA"), ("avx512", "AVX-512"), ("avx_fma", "AVX FMA"),
         ("avx", "AVX"), ("sve", "SVE"), ("neon", "NEON"), ("sse", "SSE"))


def kernel_precision(kernel: str) -> str:
    """``"SP"`` for likwid-bench kernels ending in / containing ``_sp``, else ``"DP"``."""
    return "SP" if re.search(r"(?:^|_)sp(?:_|$)", kernel) else "DP"


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
    return f"{size / 2**20:.3g} MiB" if size >= 2**20 else f"{size / 2**10:.3g} KiB"


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
    if group is not None and _group_level(group) is not None:
        return _group_level(group), f"likwid-perfctr group {group} wrapping the benchmark"
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


def _segments(lines: list[str]):
    """(first line index, text padded to keep line numbers, wrapping group) per banner."""
    starts = [i for i, line in enumerate(lines) if line.strip() == _BANNER]
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        group = next((m[1] for m in map(_GROUP_LINE.match, lines[start:end]) if m), None)
        yield start, "\n" * start + "\n".join(lines[start:end]), group


def _file_roofs(path, level):
    source = str(path)
    text = open_text(path, "likwid-bench output").text  # a regular file only, capped
    topology = parse_topology(text, source)
    results = {r.line: r for r in read_likwid_bench(path)}
    compute, bandwidth = [], []
    for start, segment, group in _segments(text.splitlines()):
        result = next((r for line, r in results.items() if start < line <= start + 3), None)
        if result is None:
            continue
        if result.kernel.startswith("peakflops"):
            compute.append(result)
            continue
        if not result.gbs > 0:
            continue
        decided, how = bench_level(result, group=group, topology=topology, level=level)
        metric, counted = (_counted(segment, source, decided) if group is not None
                           else (None, None))
        bandwidth.append((result, decided, how, group, metric, counted))
    return compute, bandwidth


def _compute_roof(result: BenchResult, prefix: str) -> ComputeRoof:
    isa, precision = kernel_isa(result.kernel), kernel_precision(result.kernel)
    return ComputeRoof(f"{prefix}{precision} {isa} peak", result.gflops,
                       f"{result.provenance} ({Path(result.source).name})",
                       provenance={"file": result.source, "line": result.line,
                                   "kernel": result.kernel, "threads": result.threads,
                                   "precision": precision, "isa": isa})


def _bandwidth_roof(entry, prefix: str, figure: str) -> BandwidthRoof:
    result, level, how, group, metric, counted = entry
    working_set = _working_set(result)
    source = result.provenance
    if working_set is not None:
        source += f", {_mb(working_set)}/thread"
    usable = counted is not None and counted > 0
    if group is not None:
        source += (f"; {group} group counted {counted:.4g} GB/s ({metric})" if usable else
                   f"; {group} group counted no traffic (counters read 0 or '-')")
    counted_figure = figure == "counted" and usable
    value = counted if counted_figure else result.gbs
    label = "counted" if counted_figure else "likwid-bench"
    return BandwidthRoof(f"{prefix}{level} ({result.kernel}, {label})", value,
                         f"{source} ({Path(result.source).name})", level=level,
                         provenance={"file": result.source, "line": result.line,
                                     "kernel": result.kernel, "threads": result.threads,
                                     "working_set_per_thread_bytes": working_set,
                                     "level_decided_by": how, "benchmark_gbs": result.gbs,
                                     "counted_gbs": counted if usable else None,
                                     "counted_metric": metric if usable else None})


def machine_roofline(paths, *, precision: str = "DP", label: str | None = None, level=None,
                     figure: str = "benchmark") -> Roofline:
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
        For a file without likwid-bench results, and for a path that is no
        regular file (a directory, a FIFO, a device, a symbolic link loop).
    """
    if precision not in ("DP", "SP"):
        raise ValueError(f"precision must be 'DP' or 'SP', got {precision!r}")
    if figure not in ("benchmark", "counted"):
        raise ValueError(f"figure must be 'benchmark' or 'counted', got {figure!r}")
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    compute, bandwidth = [], []
    for path in paths:
        more_compute, more_bandwidth = _file_roofs(path, level)
        compute += more_compute
        bandwidth += more_bandwidth
    prefix = f"{label} " if label else ""
    peaks = {}
    for result in compute:
        if kernel_precision(result.kernel) == precision and result.gflops > 0:
            if result.kernel not in peaks or result.gflops > peaks[result.kernel].gflops:
                peaks[result.kernel] = result
    if not peaks:
        found = sorted({r.kernel for r in compute})
        raise ValueError(f"no likwid-bench peakflops kernel of precision {precision} in {paths} "
                         f"(peakflops kernels found: {found}); run e.g. likwid-bench -t "
                         "peakflops_avx_fma for a compute roof")
    best = {}
    for entry in bandwidth:
        value = entry[5] if figure == "counted" and entry[5] else entry[0].gbs
        if entry[1] not in best or value > best[entry[1]][0]:
            best[entry[1]] = (value, entry)
    if not best:
        raise ValueError(f"no likwid-bench bandwidth kernel (load, copy, triad, ...) in {paths}")
    return Roofline([_compute_roof(r, prefix) for r in peaks.values()],
                    [_bandwidth_roof(best[lv][1], prefix, figure) for lv in LEVELS if lv in best])
