"""Machine ceilings from likwid-bench logs: compute roofs and one bandwidth roof per memory level.

Users measure their machine once with likwid-bench, often wrapped in
``likwid-perfctr -g L2/L3/MEM/FLOPS_DP`` (text or ``-O`` CSV output), often
inside one long job log that also holds likwid-topology output, often
repeated (a log of 20 runs of one kernel) and often as a folder of logs.
:func:`machine_roofline` reads such logs: ``peakflops*`` kernels give the
compute roofs (per precision and ISA as the kernel name says), every other
kernel a bandwidth figure whose memory level is decided, in this order, by

1. the likwid-perfctr group wrapping the benchmark (``L2``, ``L3``, ``MEM``,
   ``MEM1``...; a text ``Group 1: MEM`` header or a CSV ``TABLE,...,MEM`` line);
2. the working set per thread against the cache sizes printed by
   likwid-topology in the same log, or given as ``topology=`` (threads
   assumed pinned compactly);
3. ``level=`` given by the user;

(:mod:`~roofline_widget.analysis.bench_levels`).  Where the group decides
and the cache sizes are known too, the working set is checked against them:
a kernel run in ``-g L3`` whose working set does not fit the L3 measured
memory; a :class:`~roofline_widget.errors.CeilingWarning` names the kernel,
its working set and the cache size, and the roof keeps the text in
``provenance["level_check"]`` (``sanity_check(..., ceilings=)`` reports it).
Every roof is a CPU roof (``device="cpu"``; compute roofs carry their
precision) and its provenance names the CPU the log printed (``cpu_name``,
``cpu_type``), so that a run of another machine is told
(:func:`~roofline_widget.analysis.ceiling_checks.machine_mismatches`).

Otherwise the level is a clear error.  Runs of one kernel with the same threads, work groups
and working set are repetitions: their roof is the **median**, the smallest
and largest figure in its provenance.  Where likwid-perfctr wrapped the
benchmark both figures are kept: the benchmark's own ``MByte/s`` and the
group's measured total (the sum over threads).  They differ for a reason
the roof says: the counters also see the write-allocate reads of every stored
cache line, which likwid-bench does not count (a triad with 3 loads and 1
store per update: 5/4 = 1.25 times the benchmark's figure); an L3 load
kernel's ``L3 bandwidth`` counts loads *and* evictions.  On Zen2/Zen3 the
groups ``MEM1`` and ``MEM2`` each count half of the memory channels
(``Memory bandwidth (channels 0-3)``, ``(channels 4-7)``): runs of one
kernel under both groups give the counted total as the sum of the two, with
a note; one half alone gives no counted total.  ``figure="counted"`` uses
the counted totals for the bandwidth roofs.
"""

from __future__ import annotations

import re
import statistics
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from roofline_widget.analysis.bench_levels import (
    bench_level,
    kernel_isa,
    level_check,
    size_text,
    working_set,
)
from roofline_widget.analysis.levels import LEVELS, detect_levels
from roofline_widget.errors import CeilingWarning, LikwidFormatError, LikwidReadWarning
from roofline_widget.io import read_likwid_text
from roofline_widget.io.bench import BenchResult, kernel_precision, parse_bench
from roofline_widget.io.likwid_text import cpu_header
from roofline_widget.io.opener import open_text
from roofline_widget.io.topology import Topology, parse_topology, read_topology
from roofline_widget.model import CPU
from roofline_widget.points import RegionSums, channel_totals
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

__all__ = ["machine_roofline"]

_GROUP_LINE = re.compile(r"^(?:Region .*, )?Group \d+: (\S+)\s*$", re.ASCII)
_CSV_GROUP_LINE = re.compile(r"^TABLE,(?:Region [^,]*,)?Group \d+ (?:Raw|Metric)[^,]*,([^,]+),",
                             re.ASCII)
_BANNER = "LIKWID MICRO BENCHMARK"
#: How close the counted/benchmark ratio must be to the write-allocate ratio to be called so.
WRITE_ALLOCATE_TOLERANCE = 0.03


# ------------------------------------------------------------------ one file
@dataclass(frozen=True)
class _Measured:
    """One likwid-bench run and what the likwid-perfctr group wrapping it counted."""

    result: BenchResult
    group: str | None = None
    level: str | None = None     # bandwidth kernels: the memory level
    how: str | None = None       # how the level was decided
    metric: str | None = None    # the metric the group counted (bandwidth of the level, FLOP rate)
    counted: float | None = None  # its sum over the threads: GB/s or GFLOP/s
    check: str | None = None     # why the roof may not be its level's (bench_levels.level_check)
    cpu: dict = field(default_factory=dict)  # cpu_name, cpu_type the log printed


def _wrapping_group(lines: list[str]) -> str | None:
    for line in lines:
        match = _GROUP_LINE.match(line) or _CSV_GROUP_LINE.match(line)
        if match:
            return match[1]
    return None


def _segments(lines: list[str]):
    """(first line index, end index, wrapping group) per likwid-bench banner."""
    starts = [i for i, line in enumerate(lines) if line.strip() == _BANNER]
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        yield start, end, _wrapping_group(lines[start:end])


def _counted(lines: list[str], start: int, end: int, source: str,
             level: str | None) -> tuple[str | None, float | None]:
    """What the wrapping group counted in lines ``start:end``: the bandwidth of ``level``
    (or, for None, the FLOP rate) summed over the threads, GB/s or GFLOP/s."""
    text = "\n" * start + "\n".join(lines[start:end]) + "\n"  # line numbers kept for errors
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run = read_likwid_text(text, source)
        except LikwidFormatError:
            return None, None  # the group's tables are cut off or damaged: no counted figure
    sums = RegionSums.from_runs(run)
    if level is None:
        metric = sums.detect_flops_metric()
    else:
        metric = detect_levels(sums.bandwidth_metrics)[0].get(level)
    if metric is None:
        return None, None
    total = float(sums.frame[metric].sum(min_count=1)) * sums.units[metric].to_giga
    return metric, (total if total > 0 else None)


def _cpu_of(text: str, topology: Topology | None) -> dict:
    """The CPU a log names (``cpu_name``, ``cpu_type``), from its LIKWID header or likwid-topology."""
    cpu = cpu_header(text)
    if "cpu_name" not in cpu and topology is not None and topology.cpu_name:
        cpu["cpu_name"] = topology.cpu_name
    return {key: cpu[key] for key in ("cpu_name", "cpu_type") if key in cpu}


def _file_measurements(path, level, topology: Topology | None) -> list[_Measured]:
    opened = open_text(path, "likwid-bench output")
    source, lines = opened.name, opened.text.splitlines()
    results, skipped = parse_bench(lines, source)
    if skipped:
        warnings.warn(f"{source}: passed over {len(skipped)} likwid-bench run(s):\n"
                      + "\n".join(f"  - {s}" for s in skipped), LikwidReadWarning, stacklevel=4)
    if not results:
        raise LikwidFormatError(source, None, "likwid-bench output (a 'LIKWID MICRO BENCHMARK' "
                                "banner, 'Test: <kernel>' and 'MFlops/s:' / 'MByte/s:' lines)",
                                "no likwid-bench result")
    topology = parse_topology(opened.text, source) or topology
    cpu = _cpu_of(opened.text, topology)
    measured = []
    for start, end, group in _segments(lines):
        result = next((r for r in results if start < r.line <= end), None)
        if result is None:
            continue
        if result.kernel.startswith("peakflops"):
            metric, counted = (_counted(lines, start, end, source, None) if group is not None
                               else (None, None))
            measured.append(_Measured(result, group, metric=metric, counted=counted, cpu=cpu))
            continue
        if not result.gbs > 0:
            continue  # a compute kernel that moves no data (MByte/s 0)
        decided, how = bench_level(result, group=group, topology=topology, level=level)
        metric, counted = (_counted(lines, start, end, source, decided) if group is not None
                           else (None, None))
        check = level_check(result, decided, group, topology, counted)
        measured.append(_Measured(result, group, decided, how, metric, counted, check, cpu))
    return measured


def _files(paths) -> list[tuple[Path, bool]]:
    """(file, named by the user) for every path; a folder gives its regular files, by name."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out = []
    for path in map(Path, paths):
        if path.is_dir():
            found = [(p, False) for p in sorted(path.iterdir()) if p.is_file()]
            if not found:
                raise LikwidFormatError(path, None, "a folder of likwid-bench output files",
                                        "a folder without regular files")
            out += found
        else:
            out.append((path, True))
    return out


# ------------------------------------------------------------------ repetitions
@dataclass
class _Roof:
    """The runs of one kernel configuration (repetitions) summed up into one figure."""

    runs: list[_Measured]
    figure: float = 0.0            # median of the benchmark's own figures
    low: float = 0.0
    high: float = 0.0
    counted: float | None = None   # median counted total (channel parts summed)
    metric: str | None = None
    notes: list[str] = field(default_factory=list)  # why the figures differ, in full
    tag: str = ""                  # the same, short enough for a roof's label


def _median_counted(runs: list[_Measured], unit: str) -> tuple[str | None, float | None, list]:
    """The median counted total of repetitions, the metric, and notes (channel-split groups)."""
    by_metric: dict[str, list[float]] = {}
    for run in runs:
        if run.metric is not None and run.counted is not None:
            by_metric.setdefault(run.metric, []).append(run.counted)
    if not by_metric:
        return None, None, []
    medians = {m: statistics.median(values) for m, values in by_metric.items()}
    totals = channel_totals(medians)
    parts = {part for names in totals.values() for part in names}
    split = [m for m in medians if "(channels " in m]
    if len(totals) == 1 and parts == set(medians):
        (total, names), = totals.items()
        groups = " and ".join(dict.fromkeys(str(r.group) for r in runs if r.metric in names))
        value = sum(medians[m] for m in names)
        added = " + ".join(f"{medians[m]:.4g}" for m in names)
        ranges = " and ".join(m[m.index("(channels ") + 10:m.index(")")] for m in names)
        return total, value, [
            f"{groups} each count part of the memory channels (channels {ranges}; Zen2/Zen3 "
            f"split them over two groups): the counted total is their sum over the runs, "
            f"{added} = {value:.4g} {unit}"]
    if split:
        groups = ", ".join(dict.fromkeys(str(r.group) for r in runs if r.metric in split))
        return None, None, [
            f"{groups} counted {', '.join(split)} only, part of the memory channels: no counted "
            "total (run the groups of the other channels too, on Zen2/Zen3 MEM1 and MEM2)"]
    metric = " / ".join(medians)
    return metric, statistics.median(v for values in by_metric.values() for v in values), []


def _write_allocate_note(roof: _Roof) -> tuple[str, str] | None:
    """Why the counted total differs from the benchmark's figure, where it does: (note, tag)."""
    if roof.counted is None or not roof.figure > 0:
        return None
    ratio = roof.counted / roof.figure
    values = roof.runs[0].result.values
    try:
        loads = float(values["Loads per update"])
        stores = float(values["Stores per update"])
    except (KeyError, ValueError):
        loads = stores = 0.0
    expected = (loads + 2 * stores) / (loads + stores) if stores > 0 else 1.0
    if expected > 1 and abs(ratio - expected) <= WRITE_ALLOCATE_TOLERANCE * expected:
        return (f"the counters see {ratio:.3f} x the benchmark's figure: the write-allocate "
                f"reads of the stored cache lines, which likwid-bench does not count "
                f"({loads:g} load(s) and {stores:g} store(s) per update: "
                f"({loads:g} + 2 x {stores:g}) / ({loads:g} + {stores:g}) = {expected:.3g})",
                f"{ratio:.2f} x: write-allocate")
    if abs(ratio - 1) > 0.05:
        return f"the counters see {ratio:.3f} x the benchmark's figure", f"{ratio:.2f} x"
    return None


def _summed(runs: list[_Measured], compute: bool) -> _Roof:
    figures = sorted(r.result.gflops if compute else r.result.gbs for r in runs)
    metric, counted, notes = _median_counted(runs, "GFLOP/s" if compute else "GB/s")
    roof = _Roof(runs, statistics.median(figures), figures[0], figures[-1], counted, metric, notes)
    found = _write_allocate_note(roof) if not compute else None
    if found:
        roof.notes.append(found[0])
        roof.tag = found[1]
    return roof


def _repetitions(measured: Iterable[_Measured], compute: bool) -> list[_Roof]:
    """One :class:`_Roof` per kernel configuration (kernel, threads, work groups, working set,
    level): its runs are repetitions."""
    configurations: dict[tuple, list[_Measured]] = {}
    for m in measured:
        r = m.result
        key = (r.kernel, r.threads, r.work_groups, working_set(r), m.level)
        configurations.setdefault(key, []).append(m)
    return [_summed(runs, compute) for runs in configurations.values()]


# ------------------------------------------------------------------ roofs
def _where(roof: _Roof) -> dict:
    first = roof.runs[0].result
    return {"file": first.source, "line": first.line, "kernel": first.kernel,
            "threads": first.threads, "repetitions": len(roof.runs),
            "runs": [f"{Path(r.result.source).name}:{r.result.line}" for r in roof.runs],
            "groups": list(dict.fromkeys(r.group for r in roof.runs if r.group)),
            "notes": list(roof.notes), **roof.runs[0].cpu}


def _spread(roof: _Roof) -> str:
    """The repetitions, short (their range is in the provenance)."""
    return "" if len(roof.runs) == 1 else f"; median of {len(roof.runs)} runs"


def _files_of(roof: _Roof) -> str:
    return ", ".join(dict.fromkeys(Path(r.result.source).name for r in roof.runs))


def _compute_roof(roof: _Roof, prefix: str) -> ComputeRoof:
    result = roof.runs[0].result
    isa, precision = kernel_isa(result.kernel), kernel_precision(result.kernel)
    source = result.provenance + _spread(roof)
    if roof.counted is not None:
        source += f"; counted {roof.counted:.4g} GFLOP/s"
    provenance = {**_where(roof), "precision": precision, "isa": isa,
                  "benchmark_gflops": roof.figure, "benchmark_gflops_range": (roof.low, roof.high),
                  "counted_gflops": roof.counted, "counted_metric": roof.metric}
    return ComputeRoof(f"{prefix}{precision} {isa} peak", roof.figure,
                       f"{source} ({_files_of(roof)})", provenance=provenance,
                       device=str(CPU), precision=precision)


def _bandwidth_roof(roof: _Roof, prefix: str, figure: str) -> BandwidthRoof:
    first = roof.runs[0]
    result, per_thread = first.result, working_set(first.result)
    group_names = list(dict.fromkeys(r.group for r in roof.runs if r.group))
    groups = " and ".join(group_names) + (" groups" if len(group_names) > 1 else " group")
    source = result.provenance
    if per_thread is not None:
        source += f", {size_text(per_thread)}/thread"
    source += _spread(roof)
    if roof.counted is not None:
        source += f"; {groups} counted {roof.counted:.4g} GB/s" + (f" ({roof.tag})" if roof.tag else "")
    elif group_names:
        source += f"; {groups} counted no traffic (counters read 0 or '-')"
    counted_figure = figure == "counted" and roof.counted is not None
    value = roof.counted if figure == "counted" and roof.counted is not None else roof.figure
    label = "counted" if counted_figure else "likwid-bench"
    provenance = {**_where(roof), "working_set_per_thread_bytes": per_thread,
                  "level_decided_by": first.how, "benchmark_gbs": roof.figure,
                  "benchmark_gbs_range": (roof.low, roof.high), "counted_gbs": roof.counted,
                  "counted_metric": roof.metric, "level_check": _check(roof)}
    return BandwidthRoof(f"{prefix}{first.level} ({result.kernel}, {label})", value,
                         f"{source} ({_files_of(roof)})", level=first.level,
                         provenance=provenance, device=str(CPU))


def _check(roof: _Roof) -> str | None:
    """The first repetition's :func:`~roofline_widget.analysis.bench_levels.level_check` text, if any."""
    return next((run.check for run in roof.runs if run.check is not None), None)


def _read(paths, level, topology: Topology | None) -> list[_Measured]:
    measured = []
    for path, named in _files(paths):
        try:
            measured += _file_measurements(path, level, topology)
        except LikwidFormatError as exc:
            if named:
                raise
            warnings.warn(f"{path}: no likwid-bench result, passed over ({exc.expected}; "
                          f"found {exc.found})", LikwidReadWarning, stacklevel=3)
    return measured


def machine_roofline(paths, *, precision: str = "DP", label: str | None = None, level=None,
                     figure: str = "benchmark", topology=None) -> Roofline:
    """Compute roofs and one bandwidth roof per memory level from likwid-bench logs.

    Parameters
    ----------
    paths : path or sequence of paths
        likwid-bench output, alone or in job logs (wrapped in likwid-perfctr
        text or CSV output, with likwid-topology output, several benchmarks
        or repetitions per file), or a folder of such logs (its files that
        hold no likwid-bench result, a job script say, are passed over with a
        :class:`~roofline_widget.errors.LikwidReadWarning`).
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
        and ``provenance``, with the reason they differ.
    topology : Topology or path, optional
        likwid-topology output of the machine, for logs without it: the cache
        sizes that place unwrapped kernels and check wrapped ones.

    Returns
    -------
    Roofline
        Compute roofs (per kernel, the best thread count); per level the
        bandwidth roof of the fastest benchmark.  Repetitions of a kernel
        (same threads, work groups and working set) give the median; the
        ``provenance`` holds file, line, kernel, threads, the working set
        per thread, how the level was decided, both figures, the range and
        number of repetitions (``runs``: ``file:line`` of each), the
        wrapping groups and ``notes`` (write-allocate, MEM1/MEM2).

    Raises
    ------
    ValueError
        For an unknown precision or figure, no peakflops kernel of that
        precision, no bandwidth benchmark, or a benchmark whose level
        cannot be decided.
    LikwidFormatError
        For a named file without likwid-bench results, and for a path that
        is no regular file (a directory, a FIFO, a device, a symbolic link loop).

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
    measured = _read(paths, level, topology)
    compute = _repetitions((m for m in measured if m.level is None), compute=True)
    bandwidth = _repetitions((m for m in measured if m.level is not None), compute=False)
    prefix = f"{label} " if label else ""
    peaks: dict[str, _Roof] = {}
    for roof in compute:
        kernel = roof.runs[0].result.kernel
        if kernel_precision(kernel) == precision and roof.figure > 0:
            if kernel not in peaks or roof.figure > peaks[kernel].figure:
                peaks[kernel] = roof
    if not peaks:
        found = sorted({roof.runs[0].result.kernel for roof in compute})
        raise ValueError(f"no likwid-bench peakflops kernel of precision {precision} in {paths} "
                         f"(peakflops kernels found: {found}); run e.g. likwid-bench -t "
                         "peakflops_avx_fma for a compute roof")
    best: dict[str, tuple[float, _Roof]] = {}
    for roof in bandwidth:
        if _check(roof) is not None:
            warnings.warn(str(_check(roof)), CeilingWarning, stacklevel=2)
        value = roof.counted if figure == "counted" and roof.counted else roof.figure
        decided = str(roof.runs[0].level)
        if decided not in best or value > best[decided][0]:
            best[decided] = (value, roof)
    if not best:
        raise ValueError(f"no likwid-bench bandwidth kernel (load, copy, triad, ...) in {paths}")
    return Roofline([_compute_roof(r, prefix) for r in peaks.values()],
                    [_bandwidth_roof(best[lv][1], prefix, figure) for lv in LEVELS if lv in best])
