"""Ceilings checked against what they are used for: the level they claim, the machine of the run.

Two ways a roof can mislead without any number being wrong:

``ceiling level``
    A likwid-bench kernel run in ``likwid-perfctr -g L3`` whose working set
    does not fit the L3 measured memory: the "L3" roof is a memory roof.
    :func:`~roofline_widget.analysis.machine.machine_roofline` checks this
    where the cache sizes are known and keeps the text in the roof's
    ``provenance["level_check"]`` (:func:`level_checks` reads it back).
``other machine``
    Ceilings measured on one CPU, a run on another (a Xeon Gold 6132 run
    against Xeon 6430 ceilings): the roofs are no limit of the run.
    :func:`machine_mismatches` compares the CPU name (and type) LIKWID printed
    in each run with the one in the roofs' provenance.

Both are warned about (:class:`~roofline_widget.errors.CeilingWarning`),
reported by ``sanity_check(..., ceilings=)`` (:func:`ceiling_findings`), and
named on every output (:func:`ceiling_notes`): the widget's status line, the
static plot's note under the axes (PNG, SVG), ``roofline-widget plot`` and
``check``.  The notes also say, for a theoretical roof
(:func:`~roofline_widget.analysis.theoretical.theoretical_roofline`), at
which clock it is (:func:`theoretical_notes`: a base clock turbo can exceed).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from roofline_widget.errors import CeilingWarning
from roofline_widget.look.texts import roof_tag
from roofline_widget.model import WHOLE_RUN_REGION
from roofline_widget.points import RegionSums
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.schema import ALL_RANKS

__all__ = ["CHECK_LEVEL", "CHECK_MACHINE", "ceiling_findings", "ceiling_notes", "level_checks",
           "machine_mismatches", "theoretical_notes", "warn_ceilings"]

#: Ceilings as the checks take them: a Roofline, any iterable of roofs, or None.
Roofs = Roofline | Iterable[ComputeRoof | BandwidthRoof] | None
#: The ``check`` of a finding on a roof whose working set does not fit its level.
CHECK_LEVEL = "ceiling level"
#: The ``check`` of a finding on a run measured on another machine than its ceilings.
CHECK_MACHINE = "other machine"


def _plain(text: str | None) -> str:
    """A CPU name compared without case and runs of blanks (LIKWID pads it)."""
    return " ".join(str(text or "").split()).casefold()


def level_checks(roofline: Roofs) -> list[tuple]:
    """``(roof, text)`` of every roof whose provenance says it may not bound its level."""
    return [(roof, roof.provenance["level_check"]) for roof in roofline or ()
            if isinstance(roof, BandwidthRoof) and roof.provenance
            and roof.provenance.get("level_check")]


def _ceiling_cpus(roofline: Roofs) -> dict[str, tuple[str, str | None, list[str]]]:
    """Plain CPU name -> (name, type, roofs' tags) of the CPU roofs that name their CPU.

    A roof is named as on its line (:func:`~roofline_widget.look.texts.roof_tag`:
    what it is, without the benchmark's details, which a status line leaves out).
    """
    found: dict = {}
    for roof in roofline or ():
        provenance = roof.provenance or {}
        if roof.device == "gpu" or not provenance.get("cpu_name"):
            continue
        name = " ".join(str(provenance["cpu_name"]).split())
        entry = found.setdefault(_plain(name), (name, provenance.get("cpu_type"), []))
        entry[2].append(roof_tag(roof))
    return found


def machine_mismatches(data, roofline: Roofs) -> list[tuple[str, str]]:
    """``(run label, text)`` per run measured on another CPU than the ceilings.

    A run that does not print its CPU, or ceilings that do not name one
    (a user's or a datasheet's roofs), are not compared.

    Parameters
    ----------
    data : RegionSums or anything it aggregates
        The runs.
    roofline : Roofline, sequence of roofs, or None
        The ceilings (their ``provenance["cpu_name"]``, ``["cpu_type"]``).
    """
    ceilings = _ceiling_cpus(roofline)
    if not ceilings:
        return []
    mismatches = []
    for label, (cpu_name, cpu_type) in RegionSums.from_runs(data).machines().items():
        if not cpu_name or _plain(cpu_name) in ceilings:
            continue
        run = " ".join(cpu_name.split()) + (f" ({cpu_type})" if cpu_type else "")
        theirs = "; ".join(f"{name}" + (f" ({kind})" if kind else "")
                           + f": {', '.join(roofs[:3])}" + (" ..." if len(roofs) > 3 else "")
                           for name, kind, roofs in ceilings.values())
        mismatches.append((label, f"run {label!r} was measured on {run}, the ceilings on "
                                  f"{theirs}: roofs of another machine are no limit of this run"))
    return mismatches


def theoretical_notes(roofline: Roofs) -> list[str]:
    """At which clock the theoretical roofs are, once per clock (``"Theoretical DP AVX-512 FMA
    (8 cores at 2.6 GHz): theoretical peak at 2.6 GHz, the base clock ...; turbo can exceed it"``)."""
    by_clock: dict[str, list[str]] = {}
    for roof in roofline or ():
        if roof.theoretical and roof.provenance and roof.provenance.get("clock_note"):
            by_clock.setdefault(roof.provenance["clock_note"], []).append(roof.name)
    return [f"{', '.join(names)}: theoretical peak{'s' if len(names) > 1 else ''} at {note}"
            for note, names in by_clock.items()]


def ceiling_notes(data, roofline: Roofs) -> list[str]:
    """Every ``ceiling level`` and ``other machine`` text and the theoretical roofs' clocks, for a
    status line, a plot's note or a report."""
    return ([text for _roof, text in level_checks(roofline)]
            + [text for _label, text in machine_mismatches(data, roofline)]
            + theoretical_notes(roofline))


def warn_ceilings(data, roofline: Roofs, stacklevel: int = 3) -> list[str]:
    """Warn (:class:`~roofline_widget.errors.CeilingWarning`) each run of another machine; the notes.

    The level checks were warned about when the roofs were made
    (:func:`~roofline_widget.analysis.machine.machine_roofline`).
    """
    for _label, text in machine_mismatches(data, roofline):
        warnings.warn(text, CeilingWarning, stacklevel=stacklevel)
    return ceiling_notes(data, roofline)


def ceiling_findings(data, roofline: Roofs) -> list[dict]:
    """The findings of :func:`level_checks` and :func:`machine_mismatches` as sanity-check rows.

    A level finding names the benchmark's file, ``rank`` -1 and ``region``
    ``"likwid-bench <kernel>"`` with the roof's level; a machine finding the
    run label and its whole run (``"(whole run)"``), no level.
    """
    rows = []
    for roof, text in level_checks(roofline):
        provenance = roof.provenance
        rows.append({"file": str(provenance.get("file", "")), "rank": ALL_RANKS,
                     "region": f"likwid-bench {provenance.get('kernel', roof.name)}",
                     "level": roof.level, "check": CHECK_LEVEL, "detail": text})
    for label, text in machine_mismatches(data, roofline):
        rows.append({"file": label, "rank": ALL_RANKS, "region": WHOLE_RUN_REGION, "level": None,
                     "check": CHECK_MACHINE, "detail": text})
    return rows
