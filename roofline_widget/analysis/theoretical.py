"""Theoretical compute roofs: FLOP per cycle of the CPU's cores x clock x cores, from what LIKWID printed.

Every LIKWID header names the CPU (``CPU name``, ``CPU type``) and its clock
(``CPU clock``); likwid-topology adds which hardware threads share a core.
:func:`theoretical_roofline` looks the type up in the table of cores
(:mod:`roofline_widget.cpu_cores`) and gives three compute roofs for the
cores the run used:

* scalar: a balanced mix of scalar adds and multiplies;
* the widest SIMD width, without FMA;
* the widest SIMD width with FMA: the peak vendors quote.

Each is ``FLOP per cycle per core x clock x cores``, source ``"theoretical"``
(drawn dashed), its provenance the table row (microarchitecture, source,
part rule) and how the clock and the cores were decided.

The clock
    LIKWID's ``CPU clock`` is the nominal clock it measures from the
    time-stamp counter, on x86 the base clock.  Where the CPU name states a
    clock (``@ 2.60GHz``) within 2 % of it, that stated base clock is used
    (LIKWID printed 2.59 GHz for a Xeon Gold 6132 @ 2.60GHz).  Turbo can
    exceed a base clock, so a measurement above the roof is possible: the
    roof's note says so (not for a constant clock such as A64FX's).
The cores
    The distinct cores of the run's hardware threads (likwid-topology's
    thread table says which threads share a core); without it one core per
    hardware thread, as LIKWID runs are usually pinned, and the note says so.

A type not in the table, or no clock, is a :class:`~roofline_widget.errors.MachineError`
naming what to give (``cpu_type=``, ``clock_ghz=``): nothing is guessed.
Memory bandwidth stays measured or given: the table knows no DIMMs.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pandas as pd

from roofline_widget.cpu_cores import (
    CORE_TABLE,
    CoreCapabilities,
    base_clock_ghz,
    find_core,
    printed_clock_ghz,
)
from roofline_widget.errors import LikwidFormatError, MachineError
from roofline_widget.io.topology import Topology, read_topology
from roofline_widget.model import CPU, LikwidRun
from roofline_widget.points import RegionSums
from roofline_widget.roofs.roof import THEORETICAL
from roofline_widget.roofs.roofline import ComputeRoof

__all__ = ["BASE_CLOCK_TOLERANCE", "MachineFacts", "TheoreticalRoofs", "machine_facts",
           "theoretical_roofline", "with_theoretical_ceilings"]

#: How close LIKWID's printed clock must be to the clock the CPU name states to be that clock.
BASE_CLOCK_TOLERANCE = 0.02


@dataclass(frozen=True)
class MachineFacts:
    """What the data says about its CPU.

    Attributes
    ----------
    label : str
        The run (or topology file) it comes from.
    cpu_name, cpu_type, cpu_clock : str or None
        As LIKWID printed them (``cpu_clock`` the text, ``"2.59 GHz"``).
    threads : int
        The hardware threads measured (a topology: all of the machine).
    cores : int
        The cores they are on.
    cores_note : str
        How the cores were counted.
    """

    label: str
    cpu_name: str | None
    cpu_type: str | None
    cpu_clock: str | None
    threads: int
    cores: int
    cores_note: str


def _run_facts(run: LikwidRun) -> MachineFacts:
    table = run.table
    cpu_rows = table[table["device"].astype(str) == str(CPU)] if len(table) else table
    pairs = cpu_rows[["host", "cpu"]].astype({"host": object}).drop_duplicates()
    threads = len(pairs)
    topology = run.topology if isinstance(run.topology, Topology) else None
    cores, note = threads, (f"{threads} hardware thread(s), one core each (no likwid-topology "
                            "output says which threads share a core)")
    hosts = set(pairs["host"].astype(str))
    if topology is not None and topology.thread_cores and len(hosts) <= 1:
        counted = topology.cores_of(pairs["cpu"].tolist())
        if counted is not None:
            cores, note = counted, (f"{threads} hardware thread(s) on {counted} core(s) "
                                    "(likwid-topology's thread table)")
    return MachineFacts(str(run.label), run.cpu_name, run.cpu_type, run.cpu_clock, threads,
                        cores, note)


def _topology_facts(topology: Topology) -> MachineFacts:
    threads = topology.cores * topology.threads_per_core
    return MachineFacts(topology.source, topology.cpu_name, topology.cpu_type, None, threads,
                        topology.cores, f"all {topology.cores} cores of the machine "
                        f"({topology.sockets} socket(s) x {topology.cores_per_socket}, "
                        "likwid-topology)")


def machine_facts(data) -> list[MachineFacts]:
    """What each run of ``data`` (or a topology) says about its CPU.

    Parameters
    ----------
    data
        :class:`MachineFacts` (returned as they are), a
        :class:`~roofline_widget.io.topology.Topology`, a likwid-topology
        file, or what :meth:`RegionSums.from_runs
        <roofline_widget.points.RegionSums.from_runs>` accepts (runs, files).
    """
    if isinstance(data, MachineFacts):
        return [data]
    if isinstance(data, Topology):
        return [_topology_facts(data)]
    if isinstance(data, (str, os.PathLike)):
        try:
            runs = RegionSums.from_runs(data).runs
        except LikwidFormatError:
            return [_topology_facts(read_topology(data))]  # a likwid-topology file
        return [_run_facts(run) for run in runs]
    return [_run_facts(run) for run in RegionSums.from_runs(data).runs]


@dataclass(frozen=True)
class TheoreticalRoofs:
    """The theoretical compute roofs of one CPU: iterate it for the roofs.

    Attributes
    ----------
    scalar, simd, simd_fma : ComputeRoof
        Scalar, the widest SIMD width without and with FMA.
    core : CoreCapabilities
        The table row, resolved for the part.
    precision : str
    clock_ghz : float
    clock_note : str
        Which clock and why (base clock, turbo).
    cores : int
    cores_note : str
    notes : list of str
        The clock note, how the cores were counted, widths the table does not
        know for the part: what a status line or report says.
    """

    scalar: ComputeRoof
    simd: ComputeRoof
    simd_fma: ComputeRoof
    core: CoreCapabilities
    precision: str
    clock_ghz: float
    clock_note: str
    cores: int
    cores_note: str
    notes: list = field(default_factory=list)

    def __iter__(self) -> Iterator[ComputeRoof]:
        """The three roofs, scalar first."""
        return iter((self.scalar, self.simd, self.simd_fma))

    @property
    def per_core_gflops(self) -> float:
        """The SIMD FMA peak of one core at the clock, GFLOP/s."""
        return self.simd_fma.gflops / self.cores


def _clock(facts: MachineFacts, core: CoreCapabilities, clock_ghz) -> tuple[float, str]:
    """(GHz, why) of the run's clock; MachineError without one."""
    turbo = ("; turbo can exceed it" if core.row.turbo
             else f"; {core.row.name} runs at a constant clock (no turbo)")
    if clock_ghz is not None:
        value = float(clock_ghz)
        if not 0 < value < 100:
            raise ValueError(f"clock_ghz must be a clock in GHz (0 to 100), got {clock_ghz!r}")
        return value, f"{value:g} GHz as given (clock_ghz=)"
    printed, stated = printed_clock_ghz(facts.cpu_clock), base_clock_ghz(facts.cpu_name)
    if stated is not None and (printed is None
                               or abs(printed / stated - 1.0) <= BASE_CLOCK_TOLERANCE):
        measured = f" (LIKWID printed {facts.cpu_clock.strip()}, its measurement of it)" \
            if facts.cpu_clock and printed is not None else ""
        return stated, f"{stated:g} GHz, the base clock the CPU name states{measured}{turbo}"
    if printed is not None:
        return printed, (f"{printed:.4g} GHz, the clock LIKWID printed (the nominal clock it "
                         f"measures from the time-stamp counter, the base clock){turbo}")
    raise MachineError(f"{facts.label}: no clock to work out the theoretical peak of "
                       f"{core.row.name} (LIKWID printed no 'CPU clock' and the CPU name "
                       f"{facts.cpu_name!r} states none); give clock_ghz=")


def _one_machine(facts: list[MachineFacts]) -> MachineFacts:
    if not facts:
        raise MachineError("no run to take the CPU from")
    cpus = {(" ".join(str(f.cpu_name or "").split()), " ".join(str(f.cpu_type or "").split()))
            for f in facts}
    if len(cpus) > 1:
        raise MachineError("the runs were measured on different CPUs "
                           f"({sorted(' / '.join(filter(None, c)) or '?' for c in cpus)}): one "
                           "theoretical roof cannot bound them all; pass one run at a time")
    return max(facts, key=lambda f: f.cores)


def _core_of(facts: MachineFacts) -> CoreCapabilities:
    kind, name = facts.cpu_type, facts.cpu_name
    if not kind:
        raise MachineError(f"{facts.label}: the run names no CPU type (no LIKWID CPU header: "
                           "likwid-mpirun prints none); give cpu_type= as LIKWID names it (e.g. "
                           "'Intel Icelake SP processor') and cpu_name= for parts that differ")
    core = find_core(kind, name)
    if core is None:
        known = sorted(t for row in CORE_TABLE for t in row.cpu_types)
        raise MachineError(f"{facts.label}: CPU type {kind!r} is not in the table of cores "
                           f"(roofline_widget.cpu_cores.CORE_TABLE), so its theoretical peak is "
                           f"not known: give the peak yourself (peak_flops=) or a cpu_type= of "
                           f"the table: {', '.join(known)}")
    return core


def _roof(core: CoreCapabilities, precision: str, fma: bool, simd: bool, clock: float,
          cores: int, provenance: dict) -> ComputeRoof:
    width = core.widest if simd else core.scalar
    per_cycle = width.flops_per_cycle(precision, fma)
    kind = width.isa + (" FMA" if fma else "")
    name = (f"Theoretical {precision} {kind} ({cores:,} core{'s' if cores != 1 else ''} at "
            f"{clock:.4g} GHz)")
    return ComputeRoof(name, per_cycle * clock * cores, THEORETICAL, device=str(CPU),
                       precision=precision, provenance={
                           **provenance, "width": width.name, "fma": fma,
                           "flops_per_cycle_per_core": per_cycle,
                           "formula": f"{per_cycle:g} FLOP/cycle x {clock:.4g} GHz x {cores} "
                                      "cores"})


def theoretical_roofline(data, precision: str = "DP", *, cpu_type: str | None = None,
                         cpu_name: str | None = None, clock_ghz: float | None = None,
                         cores: int | None = None) -> TheoreticalRoofs:
    """The theoretical compute roofs of the CPU a run (or topology) names, for the cores it used.

    Parameters
    ----------
    data : LikwidRun, path, Topology, or what ``collect_roofline_points`` accepts
        A run (its CPU header and threads), a likwid-topology file or
        :class:`~roofline_widget.io.topology.Topology` (every core of the machine).
    precision : {"DP", "SP"}
    cpu_type, cpu_name : str, optional
        The CPU, where the data does not say (likwid-mpirun prints no header)
        or says wrong; ``cpu_type`` as LIKWID names it.
    clock_ghz : float, optional
        The clock, in place of the one LIKWID printed (an all-core turbo clock).
    cores : int, optional
        The cores, in place of those the run used.

    Returns
    -------
    TheoreticalRoofs
        Three :class:`~roofline_widget.ComputeRoof` (scalar, widest SIMD, SIMD
        FMA), source ``"theoretical"``, each with the table row, the clock and
        the cores in its provenance; iterate it to pass them as ``ceilings=``.

    Raises
    ------
    MachineError
        For a CPU type not in the table, none at all, no clock, runs of
        different CPUs.
    ValueError
        For an unknown precision, a clock or core count that is no positive number.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> roofs = theoretical_roofline(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact1t_1537x2048_give.txt"))
    >>> roofs.simd_fma.label
    'Theoretical DP AVX-512 FMA (1 core at 2.6 GHz): 83.2 GFLOP/s (theoretical)'
    """
    if precision not in ("DP", "SP"):
        raise ValueError(f"precision must be 'DP' or 'SP', got {precision!r}")
    facts = _one_machine(machine_facts(data))
    facts = dataclasses.replace(facts, cpu_type=cpu_type or facts.cpu_type,
                                cpu_name=cpu_name or facts.cpu_name)
    core = _core_of(facts)
    clock, clock_note = _clock(facts, core, clock_ghz)
    count, cores_note = facts.cores, facts.cores_note
    if cores is not None:
        if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
            raise ValueError(f"cores must be a positive integer, got {cores!r}")
        count, cores_note = cores, f"{cores} core(s) as given (cores=)"
    provenance = {**core.provenance, "clock_ghz": clock, "clock_note": clock_note,
                  "cores": count, "cores_note": cores_note, "run": facts.label}
    notes = [f"theoretical peak at {clock_note}", cores_note]
    if core.unknown:
        notes.append(f"not in the table for this part: {core.unknown}")
    scalar, simd, simd_fma = (_roof(core, precision, fma, wide, clock, count, provenance)
                              for fma, wide in ((False, False), (False, True), (True, True)))
    return TheoreticalRoofs(scalar, simd, simd_fma, core=core, precision=precision, clock_ghz=clock,
                            clock_note=clock_note, cores=count, cores_note=cores_note,
                            notes=notes)


def _precisions(points: pd.DataFrame | None) -> list[str]:
    """The precisions of the plotted CPU points' FLOP metrics (DP when none says)."""
    from roofline_widget.roofs.roofline import roof_keys

    if points is None or not len(points):
        return ["DP"]
    keys = roof_keys(points)
    found = {str(p) for p, d in zip(keys.precision, keys.device) if d in (None, str(CPU))
             and p in ("DP", "SP")}
    return sorted(found) or ["DP"]


def theoretical_ceilings(data, points: pd.DataFrame | None,
                         ceilings=None) -> tuple[list[ComputeRoof], str]:
    """The SIMD FMA roof a plot draws where no measured compute roof bounds its CPU points.

    Parameters
    ----------
    data
        The plotted runs (what :func:`theoretical_roofline` accepts).
    points : pandas.DataFrame or None
        The plotted points: their precisions, their largest ``n_threads``
        (the roof is that point's cores: per thread of the run, its cores).
    ceilings : Roofline or sequence of roofs, optional
        The roofs given: a compute roof serving the CPU makes the theoretical one unneeded.

    Returns
    -------
    (list of ComputeRoof, str)
        The roofs (one per precision plotted; empty when a given roof serves
        the CPU or the CPU is not known) and a note: why none, or the clock
        and cores of the roof.
    """
    given = [r for r in (ceilings or ()) if isinstance(r, ComputeRoof) and r.serves(str(CPU))]
    if given:
        return [], ""
    try:
        facts = _one_machine(machine_facts(data))
        cores = None
        if points is not None and len(points) and "n_threads" in points.columns:
            threads = pd.to_numeric(points["n_threads"], errors="coerce").max()
            if threads == threads and threads >= 1:  # a point's threads, on its share of cores
                cores = max(1, round(int(threads) * facts.cores / max(facts.threads, 1)))
        found = [theoretical_roofline(data, precision, cores=cores)
                 for precision in _precisions(points)]
    except MachineError as exc:
        return [], f"no theoretical roof: {exc}"
    return [roofs.simd_fma for roofs in found], found[0].notes[0]


def with_theoretical_ceilings(data, points: pd.DataFrame | None,
                              ceilings=None) -> tuple[list, list[str]]:
    """``ceilings`` and the theoretical roof (``theoretical=True``, ``--theoretical``) where
    none of them is a compute roof of the CPU: what a plot draws and the advice rests on.

    Parameters
    ----------
    data, points, ceilings
        As for :func:`theoretical_ceilings`.

    Returns
    -------
    (list of roofs, list of str)
        The roofs given, then :func:`theoretical_ceilings`' roofs; and why there is no
        theoretical roof (``[]`` when there is one, or a given roof serves the CPU).
    """
    extra, why = theoretical_ceilings(data, points, ceilings)
    return [*(ceilings or ()), *extra], [why] if why and not extra else []
