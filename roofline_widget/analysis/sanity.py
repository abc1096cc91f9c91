"""Sanity checks of hierarchical roofline points: findings a user should read before trusting a plot.

:func:`sanity_check` returns one row per finding (``file, rank, region,
level, check, detail``):

``beyond hardware``
    A GFLOP/s or GB/s that no hardware reaches on the point's thread count
    (per CPU hardware thread, per GPU: the documented bounds of
    :mod:`roofline_widget.roofs.hardware_bounds`): a counter that overflowed
    or counted a broken event.  The finding names the rate, the threads, the
    bound and, where the raw counts are read, the counter that reads near
    2^47 or 2^48 (:mod:`roofline_widget.analysis.hardware_checks`).  Such a
    point supplies no empirical ceiling and does not stretch the axes.  A
    FLOP rate finding concerns the whole region (no level), a bandwidth one
    its level.
``intensity order``
    Traffic must not grow outward (every byte from memory passed L3, L2 and
    L1), so the arithmetic intensity must not fall from L1 to L2 to L3 to
    MEM by more than :data:`INTENSITY_TOLERANCE`.  The finding names both
    levels, how much lower the outer intensity is (percent) and the factor
    between the two levels' traffic.  On AMD Zen/Zen2 the L3 is a victim cache:
    ``L3 access`` counts only the L2 misses that look up L3, while memory
    traffic also holds prefetches and write-backs that bypass it, so MEM
    traffic above L3 traffic is expected there and the finding says so.
``above roof``
    A level's bandwidth above the highest bandwidth roof of that level, or a
    FLOP rate above the highest compute roof of the point's device and
    precision: a measurement or ceiling problem.
``uncore on one socket``
    Memory traffic (uncore counters, read on one hardware thread per socket)
    reported by one socket only while the region's threads ran on several:
    the other sockets' traffic is missing.  Needs the sockets of the hardware
    threads: likwid-topology output in the same file, or ``topology=``.
``ceiling level``, ``other machine``
    With ``ceilings=``: a roof whose benchmark's working set does not fit its
    level's cache, or a run measured on another CPU than the ceilings
    (:mod:`roofline_widget.analysis.ceiling_checks`).

A finding names one level, or none (NaN) when it concerns the whole region;
:func:`flagged_points` maps findings onto the points they mark (a finding
without a level marks every level of its region), for the rings the widget
and the static plot draw.  Only ``above roof`` depends on the ceilings:
:func:`above_roof_findings` recomputes it alone on the points, and
:func:`merge_findings` puts it back among the others in
:func:`sanity_check`'s order.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.analysis.ceiling_checks import CHECK_LEVEL, CHECK_MACHINE, ceiling_findings
from roofline_widget.analysis.hardware_checks import CHECK_BEYOND, beyond_hardware_findings
from roofline_widget.analysis.levels import LEVELS, select_levels
from roofline_widget.io.topology import Topology, find_topology
from roofline_widget.points import RegionSums, Selection, selection_parameters
from roofline_widget.roofs.roofline import ROOF_TOLERANCE, Roofline, roof_keys

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = [
    "CHECKS",
    "FINDING_COLUMNS",
    "INTENSITY_TOLERANCE",
    "above_roof_findings",
    "checkable_roofs",
    "flagged_points",
    "merge_findings",
    "sanity_check",
]

#: Relative fall of the intensity from one level to the next that is tolerated (counter noise).
INTENSITY_TOLERANCE = 0.05
#: The names in the ``check`` column.
CHECKS = (CHECK_BEYOND, "intensity order", "above roof", "uncore on one socket", CHECK_LEVEL,
          CHECK_MACHINE)
#: The columns of :func:`sanity_check`'s frame.
FINDING_COLUMNS = ("file", "rank", "region", "level", "check", "detail")
_COLUMNS = list(FINDING_COLUMNS)
_VICTIM_L3 = ("on AMD Zen/Zen2 the L3 is a victim cache: 'L3 access' counts only L2 misses that "
              "look up L3, while memory traffic also includes prefetches and write-backs that "
              "bypass it, so more memory than L3 traffic is expected; read the L3 dot as a lower "
              "bound of the L3 traffic, not as a measurement error")


def _finding(row, level, check: str, detail: str) -> dict:
    return {"file": row.file, "rank": int(row.rank), "region": row.region, "level": level,
            "check": check, "detail": detail}


def _intensity_order(points: pd.DataFrame) -> list[dict]:
    findings = []
    for _, region in points.groupby(["file", "rank", "region"], observed=True, sort=False):
        region = region.sort_values("level")
        rows = list(region.itertuples(index=False))
        for inner, outer in itertools.pairwise(rows):
            a_in = inner.arithmetic_intensity_flops_per_byte
            a_out = outer.arithmetic_intensity_flops_per_byte
            if not a_out < a_in * (1.0 - INTENSITY_TOLERANCE):
                continue
            factor = inner.arithmetic_intensity_flops_per_byte / a_out
            fall = 100.0 * (1.0 - a_out / a_in)
            detail = (f"intensity falls from {a_in:.4g} FLOP/byte at {inner.level} to "
                      f"{a_out:.4g} at {outer.level} ({fall:.3g} % lower): {outer.level} traffic "
                      f"({outer.bandwidth_gbs:.4g} GB/s, {outer.bandwidth_metric}) is "
                      f"{factor:.3g}x the {inner.level} traffic ({inner.bandwidth_gbs:.4g} GB/s, "
                      f"{inner.bandwidth_metric}), but traffic cannot grow outward")
            if inner.level == "L3" and "access" in str(inner.bandwidth_metric).lower():
                detail += f"; {_VICTIM_L3}"
            else:
                detail += ("; check that both levels were measured in runs of the same input "
                           "and that the metrics are totals")
            findings.append(_finding(outer, outer.level, "intensity order", detail))
    return findings


def _level_roof(ceilings: Roofline, level: str, device):
    """The highest roof of ``level`` (by its ``level``, or its name) serving ``device``."""
    return next((r for r in ceilings.bandwidth if r.serves(device)
                 and (r.level == level or (r.level is None and r.name == level))), None)


def _above_roof(points: pd.DataFrame, ceilings: Roofline) -> list[dict]:
    findings = []
    limit = 1.0 + ROOF_TOLERANCE
    keys = roof_keys(points)
    for i, row in enumerate(points.itertuples(index=False)):
        device = keys.device[i]
        roof = _level_roof(ceilings, row.level, device)
        if roof is not None and row.bandwidth_gbs > roof.gbs * limit:
            findings.append(_finding(row, row.level, "above roof", (
                f"{row.level} bandwidth {row.bandwidth_gbs:.4g} GB/s ({row.bandwidth_metric}) is "
                f"above the {row.level} roof {roof.label}: a measurement or ceiling problem")))
        peak = ceilings.roofs_for(device=device, precision=keys.precision[i], highest=True)[0]
        if peak is not None and row.performance_gflops > peak.gflops * limit:
            findings.append(_finding(row, row.level, "above roof", (
                f"{row.performance_gflops:.4g} GFLOP/s ({row.flops_metric}) is above the peak "
                f"{peak.label}: a FLOP metric of another precision, or a peak set too low")))
    return findings


def above_roof_findings(points: pd.DataFrame, ceilings: Roofline | None) -> pd.DataFrame:
    """The ``above roof`` findings of hierarchical points against ``ceilings`` (none without).

    Parameters
    ----------
    points : pandas.DataFrame
        Rows of :func:`~roofline_widget.hierarchical_points` (or
        :attr:`LevelSelection.points`).
    ceilings : Roofline or None
        The roofs; a bandwidth roof applies to the level in its ``level``
        attribute (or its name), the highest compute roof of a point's device
        and precision to the point.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`FINDING_COLUMNS`, as in :func:`sanity_check`.
    """
    findings = [] if ceilings is None else _above_roof(points, ceilings)
    return _frame(findings)


def merge_findings(*frames: pd.DataFrame) -> pd.DataFrame:
    """Findings frames joined in :func:`sanity_check`'s order (by check, then as given)."""
    found = [f for f in frames if len(f)]
    if not found:
        return _frame([])
    frame = pd.concat(found, ignore_index=True)
    order = frame["check"].map({check: i for i, check in enumerate(CHECKS)}).fillna(len(CHECKS))
    frame = frame.iloc[np.argsort(order.to_numpy(), kind="stable")].reset_index(drop=True)
    frame["level"] = pd.Categorical(frame["level"].astype(object), categories=list(LEVELS),
                                    ordered=True)
    return frame


def checkable_roofs(roofline: Roofline | None) -> Roofline | None:
    """The roofs of ``roofline`` that are machine limits (None without a compute and a bandwidth one).

    An empirical roof is the largest observation of the main points, not a
    limit: checking level dots against it would report every dot above the
    main points as a problem.  A theoretical compute roof is at the base
    clock, which turbo exceeds: a dot above it is no problem either.
    """
    if roofline is None:
        return None
    compute = [roof for roof in roofline.compute if not roof.empirical and not roof.theoretical]
    bandwidth = [roof for roof in roofline.bandwidth if not roof.empirical]
    return Roofline(compute, bandwidth) if compute and bandwidth else None


def flagged_points(points: pd.DataFrame, findings: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``points`` that a finding marks, with the findings' checks and details.

    A finding marks the point of its (file, rank, region, level); one without a
    level (NaN) marks every level of its (file, rank, region).

    Parameters
    ----------
    points : pandas.DataFrame
        Hierarchical points (``file, rank, region, level`` and the coordinates).
    findings : pandas.DataFrame
        Rows of :func:`sanity_check`.

    Returns
    -------
    pandas.DataFrame
        The marked rows of ``points`` in their order (index reset), plus
        ``checks`` (the checks' names, joined by ``", "``, in :data:`CHECKS`
        order) and ``details`` (a tuple of ``"check: detail"`` texts, one per
        finding).
    """
    empty = points.iloc[:0].assign(checks=pd.Series(dtype=object),
                                   details=pd.Series(dtype=object))
    if not len(points) or not len(findings):
        return empty.reset_index(drop=True)
    by_key: dict = {}
    for row in findings.itertuples(index=False):
        level = None if pd.isna(row.level) else str(row.level)
        by_key.setdefault((str(row.file), int(row.rank), str(row.region)), []).append(
            (level, row.check, row.detail))
    keys = zip(points["file"].astype(str), points["rank"].astype(int),
               points["region"].astype(str), points["level"].astype(str))
    kept, checks, details = [], [], []
    for i, (file, rank, region, level) in enumerate(keys):
        found = [(c, d) for lv, c, d in by_key.get((file, rank, region), ())
                 if lv is None or lv == level]
        if found:
            kept.append(i)
            names = {c for c, _ in found}
            checks.append(", ".join([c for c in CHECKS if c in names]
                                    + sorted(names - set(CHECKS))))
            details.append(tuple(f"{c}: {d}" for c, d in found))
    if not kept:
        return empty.reset_index(drop=True)
    return points.iloc[kept].reset_index(drop=True).assign(checks=checks, details=details)


def _frame(findings: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(findings, columns=_COLUMNS)
    frame["level"] = pd.Categorical(frame["level"], categories=list(LEVELS), ordered=True)
    return frame


def _topologies(sums: RegionSums, topology: Topology | None) -> dict:
    """Run label -> Topology (given, or found in the run's source files)."""
    out = {}
    for label, run in zip(sums.files, sums.runs):
        found = topology
        for source in getattr(run, "sources", ()):
            if found is not None:
                break
            try:
                found = find_topology(source)
            except OSError:
                found = None
        if found is not None and found.socket_threads:
            out[label] = found
    return out


def _uncore_sockets(sums: RegionSums, chosen: dict, points: pd.DataFrame,
                    topology: Topology | None) -> list[dict]:
    metric = chosen.get("MEM")
    topologies = _topologies(sums, topology) if metric else {}
    findings = []
    for label, run in zip(sums.files, sums.runs):
        if label not in topologies or metric not in run.table.columns:
            continue
        table = run.table[["rank", "region", "cpu", metric]]
        mem_points = points[(points["level"] == "MEM") & (points["file"] == label)]
        for row in mem_points.itertuples(index=False):
            rows = table[(table["rank"] == row.rank) & (table["region"] == row.region)]
            all_sockets = {topologies[label].socket_of(int(c)) for c in rows["cpu"]} - {None}
            measured = rows[rows[metric].fillna(0) > 0]
            reporting = {topologies[label].socket_of(int(c)) for c in measured["cpu"]} - {None}
            if len(all_sockets) > 1 and len(reporting) == 1:
                findings.append(_finding(row, "MEM", "uncore on one socket", (
                    f"the region's threads ran on sockets {sorted(all_sockets)}, but only socket "
                    f"{reporting.pop()} reports {metric}: memory traffic is counted on one "
                    "thread per socket, so the other sockets' traffic is missing (measure "
                    "with a thread on every socket in the likwid-perfctr -C list)")))
    return findings


@selection_parameters("selection", "flops_metric", "levels", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def sanity_check(data: object, *, ceilings: Roofline | None = None,
                 topology: Topology | None = None, selection: Selection | None = None,
                 **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """Findings that make hierarchical roofline points suspicious.

    Parameters
    ----------
    data
        What :func:`~roofline_widget.hierarchical_points` accepts.
    ceilings : Roofline, optional
        Roofs to check the points against (for example from
        :func:`~roofline_widget.machine_roofline`); a bandwidth roof applies to
        the level in its ``level`` attribute (or its name).  Without
        ceilings the roof check is skipped; with them the ceilings are
        checked too (``ceiling level``, ``other machine``).
    topology : Topology, optional
        Sockets of the hardware threads; by default looked up in every run's
        source files (likwid-topology output in the same log).  Without it
        the socket check is skipped.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        ``file, rank, region, level, check, detail``, one row per finding
        (empty when nothing is suspicious); ``check`` is one of :data:`CHECKS`.
    """
    request = Selection.of(selection, **keywords)
    sums = RegionSums.from_runs(data)
    chosen = select_levels(sums, selection=request)
    points = chosen.points
    findings = beyond_hardware_findings(sums, points)
    findings += _intensity_order(points)
    if ceilings is not None:
        findings += _above_roof(points, ceilings)
    if not request.combine_ranks:
        findings += _uncore_sockets(sums, chosen.levels, points, topology)
    findings += ceiling_findings(sums, ceilings)
    return _frame(findings)
