"""likwid-bench logs read as measurements: each benchmark run, its level and what its group counted.

Users measure their machine once with likwid-bench, often wrapped in
``likwid-perfctr -g L2/L3/MEM/FLOPS_DP`` (text or ``-O`` CSV output), often
inside one long job log that also holds likwid-topology output, often
repeated (a log of 20 runs of one kernel) and often as a folder of logs.
:func:`log_measurements` reads one such log into :class:`BenchRun` objects: the
result, the wrapping group, for a bandwidth kernel its memory level
(:func:`~roofline_widget.analysis.bench_levels.bench_level`: the group, the
working set against the caches, ``level=``) and the check of its working set
(:func:`~roofline_widget.analysis.bench_levels.level_check`), what the group
counted (the sum over the threads), and the CPU the log names.
:func:`result_measurements` does the same for
:func:`~roofline_widget.read_likwid_bench` results given as they are.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from roofline_widget.analysis.bench_levels import bench_level, level_check
from roofline_widget.analysis.levels import detect_levels
from roofline_widget.cpu_cores import find_core
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io import read_likwid_text
from roofline_widget.io.bench import BenchResult, found_results, parse_bench
from roofline_widget.io.likwid_text import cpu_header
from roofline_widget.io.opener import open_text
from roofline_widget.io.topology import Topology, parse_topology
from roofline_widget.points import RegionSums

__all__ = ["BenchRun", "bench_paths", "log_measurements", "result_measurements"]

_GROUP_LINE = re.compile(r"^(?:Region .*, )?Group \d+: (\S+)\s*$", re.ASCII)
_CSV_GROUP_LINE = re.compile(r"^TABLE,(?:Region [^,]*,)?Group \d+ (?:Raw|Metric)[^,]*,([^,]+),",
                             re.ASCII)
_BANNER = "LIKWID MICRO BENCHMARK"


# ------------------------------------------------------------------ one file
@dataclass(frozen=True)
class BenchRun:
    """One likwid-bench run and what the likwid-perfctr group wrapping it counted.

    Attributes
    ----------
    result : BenchResult
    group : str or None
        The likwid-perfctr group wrapping it.
    level, how : str or None
        A bandwidth kernel's memory level and how it was decided (None: a compute kernel).
    metric : str or None
        The metric the group counted (the level's bandwidth, the FLOP rate).
    counted : float or None
        Its sum over the threads, GB/s or GFLOP/s.
    check : str or None
        Why the roof may not be its level's (:func:`~roofline_widget.analysis.bench_levels.level_check`).
    cpu : dict
        ``cpu_name``, ``cpu_type``, ``cpu_clock`` the log printed.
    """

    result: BenchResult
    group: str | None = None
    level: str | None = None     # bandwidth kernels: the memory level
    how: str | None = None       # how the level was decided
    metric: str | None = None    # the metric the group counted (bandwidth of the level, FLOP rate)
    counted: float | None = None  # its sum over the threads: GB/s or GFLOP/s
    check: str | None = None     # why the roof may not be its level's (bench_levels.level_check)
    cpu: dict = field(default_factory=dict)  # cpu_name, cpu_type, cpu_clock the log printed


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
    return {key: cpu[key] for key in ("cpu_name", "cpu_type", "cpu_clock") if key in cpu}


def log_measurements(path, level, topology: Topology | None) -> list[BenchRun]:
    opened = open_text(path, "likwid-bench output")
    source, lines = opened.name, opened.text.splitlines()
    results, skipped = parse_bench(lines, source)
    if skipped:
        warnings.warn(f"{source}: passed over {len(skipped)} likwid-bench run(s):\n"
                      + "\n".join(f"  - {s}" for s in skipped), LikwidReadWarning, stacklevel=4)
    found_results(results, source)
    topology = parse_topology(opened.text, source) or topology
    cpu = _cpu_of(opened.text, topology)
    core = find_core(cpu.get("cpu_type"), cpu.get("cpu_name"))  # its caches, without likwid-topology
    measured = []
    for start, end, group in _segments(lines):
        result = next((r for r in results if start < r.line <= end), None)
        if result is None:
            continue
        if result.kernel.startswith("peakflops"):
            metric, counted = (_counted(lines, start, end, source, None) if group is not None
                               else (None, None))
            measured.append(BenchRun(result, group, metric=metric, counted=counted, cpu=cpu))
            continue
        if not result.gbs > 0:
            continue  # a compute kernel that moves no data (MByte/s 0)
        decided, how = bench_level(result, group=group, topology=topology, level=level)
        metric, counted = (_counted(lines, start, end, source, decided) if group is not None
                           else (None, None))
        check = level_check(result, decided, group, topology, counted, core)
        measured.append(BenchRun(result, group, decided, how, metric, counted, check, cpu))
    return measured


def bench_paths(paths) -> list[tuple[Path, bool]]:
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


def result_measurements(results, level, topology: Topology | None) -> list[BenchRun]:
    """:func:`~roofline_widget.read_likwid_bench` results as measurements: no group counted,
    each bandwidth kernel's level decided by the working set (``topology``) or ``level=``."""
    measured = []
    for result in results:
        if result.kernel.startswith("peakflops"):
            measured.append(BenchRun(result, cpu=dict(result.cpu)))
        elif result.gbs > 0:
            decided, how = bench_level(result, group=None, topology=topology, level=level)
            measured.append(BenchRun(result, level=decided, how=how, cpu=dict(result.cpu)))
    return measured
