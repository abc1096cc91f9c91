"""likwid-bench measurements summed up into roofs: repetitions, both figures and their provenance.

Runs of one kernel with the same threads, work groups and working set are
repetitions: their roof is the **median**, the smallest and largest figure
in its provenance.  Where likwid-perfctr wrapped the benchmark both figures
are kept: the benchmark's own ``MByte/s`` and the group's measured total
(the sum over threads).  They differ for a reason the roof says: the
counters also see the write-allocate reads of every stored cache line,
which likwid-bench does not count (a triad with 3 loads and 1 store per
update: 5/4 = 1.25 times the benchmark's figure); an L3 load kernel's ``L3
bandwidth`` counts loads *and* evictions.  On Zen2/Zen3 the groups ``MEM1``
and ``MEM2`` each count half of the memory channels (``Memory bandwidth
(channels 0-3)``, ``(channels 4-7)``): runs of one kernel under both groups
give the counted total as the sum of the two, with a note; one half alone
gives no counted total.  :func:`bench_ceilings` gives per kernel the compute
roof of the best thread count and per level the fastest bandwidth roof.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from roofline_widget.analysis.bench_levels import kernel_isa, size_text, working_set
from roofline_widget.analysis.bench_logs import BenchRun
from roofline_widget.analysis.levels import LEVELS
from roofline_widget.errors import CeilingWarning
from roofline_widget.io.bench import kernel_precision
from roofline_widget.model import CPU
from roofline_widget.points import channel_totals
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

__all__ = ["WRITE_ALLOCATE_TOLERANCE", "BenchCeilings", "bench_ceilings"]

#: How close the counted/benchmark ratio must be to the write-allocate ratio to be called so.
WRITE_ALLOCATE_TOLERANCE = 0.03

# ------------------------------------------------------------------ repetitions
@dataclass
class _Roof:
    """The runs of one kernel configuration (repetitions) summed up into one figure."""

    runs: list[BenchRun]
    figure: float = 0.0            # median of the benchmark's own figures
    low: float = 0.0
    high: float = 0.0
    counted: float | None = None   # median counted total (channel parts summed)
    metric: str | None = None
    notes: list[str] = field(default_factory=list)  # why the figures differ, in full
    tag: str = ""                  # the same, short enough for a roof's label


def _median_counted(runs: list[BenchRun], unit: str) -> tuple[str | None, float | None, list]:
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


def _summed(runs: list[BenchRun], compute: bool) -> _Roof:
    figures = sorted(r.result.gflops if compute else r.result.gbs for r in runs)
    metric, counted, notes = _median_counted(runs, "GFLOP/s" if compute else "GB/s")
    roof = _Roof(runs, statistics.median(figures), figures[0], figures[-1], counted, metric, notes)
    found = _write_allocate_note(roof) if not compute else None
    if found:
        roof.notes.append(found[0])
        roof.tag = found[1]
    return roof


def _repetitions(measured: Iterable[BenchRun], compute: bool) -> list[_Roof]:
    """One :class:`_Roof` per kernel configuration (kernel, threads, work groups, working set,
    level): its runs are repetitions."""
    configurations: dict[tuple, list[BenchRun]] = {}
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


@dataclass(frozen=True)
class BenchCeilings:
    """The roofs of a set of likwid-bench runs.

    Attributes
    ----------
    compute : list of ComputeRoof
        Per peakflops kernel of the precision, the roof of its best thread count.
    bandwidth : list of BandwidthRoof
        Per memory level, the fastest benchmark's roof (inner levels first).
    cpu : dict
        ``cpu_name``, ``cpu_type``, ``cpu_clock`` the logs printed (the first that does).
    threads : int
        The most threads a benchmark ran on (0: none).
    kernels : list of str
        Every kernel measured.
    """

    compute: list
    bandwidth: list
    cpu: dict
    threads: int
    kernels: list


def bench_ceilings(measured: list[BenchRun], precision: str = "DP", label: str | None = None,
                   figure: str = "benchmark") -> BenchCeilings:
    """The roofs of likwid-bench runs (see the module docstring); warns each level check.

    Parameters
    ----------
    measured : list of BenchRun
    precision : {"DP", "SP"}
        Which peakflops kernels give the compute roofs.
    label : str, optional
        Prefix of every roof name.
    figure : {"benchmark", "counted"}
        A bandwidth roof's value: the benchmark's figure or the group's counted total.
    """
    compute = _repetitions((m for m in measured if m.level is None), compute=True)
    bandwidth = _repetitions((m for m in measured if m.level is not None), compute=False)
    prefix = f"{label} " if label else ""
    peaks: dict[str, _Roof] = {}
    for roof in compute:
        kernel = roof.runs[0].result.kernel
        if kernel_precision(kernel) == precision and roof.figure > 0:
            if kernel not in peaks or roof.figure > peaks[kernel].figure:
                peaks[kernel] = roof
    best: dict[str, tuple[float, _Roof]] = {}
    for roof in bandwidth:
        if _check(roof) is not None:
            warnings.warn(str(_check(roof)), CeilingWarning, stacklevel=3)
        value = roof.counted if figure == "counted" and roof.counted else roof.figure
        decided = str(roof.runs[0].level)
        if decided not in best or value > best[decided][0]:
            best[decided] = (value, roof)
    cpu = next((m.cpu for m in measured if m.cpu), {})
    return BenchCeilings([_compute_roof(r, prefix) for r in peaks.values()],
                         [_bandwidth_roof(best[lv][1], prefix, figure) for lv in LEVELS
                          if lv in best], dict(cpu),
                         max((m.result.threads for m in measured), default=0),
                         list(dict.fromkeys(m.result.kernel for m in measured)))
