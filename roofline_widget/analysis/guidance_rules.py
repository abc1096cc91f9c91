"""The guidance rules: what limits a point and what to try, one small function per rule with its threshold.

Every rule reads one :class:`PointView` (a point judged against its own
roofs, and the facts of :func:`~roofline_widget.analysis.guidance_facts.point_facts`)
and returns an :class:`Advice` that cites the numbers it rests on, or None:
a rule whose metrics the data lack says nothing rather than guessing.
:data:`RULES` lists them in the order they are tried, each with its
threshold and where the rule comes from; ``docs/guidance.md`` is written
from the same list (and checked against it).

A point flagged beyond any hardware (a broken counter,
:func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`) gets the
advice "counter broken: no advice" and no other: its numbers are not a
measurement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from roofline_widget.cpu_cores import PRECISION_BITS

__all__ = ["CLOCK_FRACTION", "IMBALANCE_MIN_RUNTIME_S", "IMBALANCE_SPREAD", "NEAR_ROOF_PERCENT",
           "REUSE_HIGH", "REUSE_LOW", "RULES", "SCALAR_SHARE", "Advice",
           "PointView", "Rule", "UsedMetric", "broken_counter", "cache_reuse", "clock",
           "imbalance", "number_text", "percent_text", "roof_distance", "scalar_share",
           "used_metrics_text", "used_texts"]

#: At or above this percent of its roof a point is *at* the roof: only changing the
#: work (less traffic, fewer FLOPs) moves it.
NEAR_ROOF_PERCENT = 80.0
#: A scalar share of the FP micro-ops from which vectorising is advised.
SCALAR_SHARE = 0.5
#: L3 traffic at least this many times the memory traffic: reuse in the L3 exists.
REUSE_HIGH = 2.0
#: L3 traffic at most this many times the memory traffic: (almost) no reuse in the L3.
REUSE_LOW = 1.2
#: The slowest thread's runtime at least this much longer than the fastest's (relative).
IMBALANCE_SPREAD = 0.03
#: Regions shorter than this (s) are not judged for imbalance: LIKWID prints microseconds.
IMBALANCE_MIN_RUNTIME_S = 1e-3
#: A mean clock below this fraction of the nominal clock counts as throttled.
CLOCK_FRACTION = 0.9


class UsedMetric(NamedTuple):
    """A number an advice rests on: its name, value and unit (``""`` for none)."""

    name: str
    value: float
    unit: str


@dataclass(frozen=True)
class Advice:
    """What one rule found on one point.

    Attributes
    ----------
    rule : str
        The rule's name (:attr:`Rule.name`).
    text : str
        The advice, citing its numbers.
    factor : str
        The limiting factor it names in a few words (``"scalar code"``).
    rank : int
        Which factor limits first when several rules speak: the lowest rank.
    used : tuple of UsedMetric
        The numbers the advice rests on.
    """

    rule: str
    text: str
    factor: str
    rank: int
    used: tuple[UsedMetric, ...] = ()


class PointView(NamedTuple):
    """One judged point and its facts: what the rules read (NaN, ``""``, 0: not known)."""

    performance_gflops: float
    bandwidth_gbs: float
    n_threads: float
    bound: str
    roof_percent: float
    roof_name: str
    roof_value: float
    roof_unit: str
    roof_empirical: bool
    level: str
    precision: str
    beyond_hardware: bool
    scalar_uops: float
    packed_uops: float
    simd_bits: int
    simd_name: str
    clock_mhz: float
    nominal_mhz: float
    nominal_from: str
    timed_threads: int
    runtime_min_s: float
    runtime_max_s: float
    runtime_mean_s: float
    slowest_thread: str
    L3_gbs: float
    MEM_gbs: float
    L3_metric: str


@dataclass(frozen=True)
class Rule:
    """A guidance rule: its check, threshold and source, as the docs list them.

    Attributes
    ----------
    name : str
        Short name (the ``rule`` of its :class:`Advice`).
    needs : str
        The metrics it reads; without them it says nothing.
    threshold : str
        When it speaks.
    source : str
        Where the rule and its reading come from.
    check : callable
        ``check(PointView) -> Advice | None``.
    """

    name: str
    needs: str
    threshold: str
    source: str
    check: Callable[[PointView], Advice | None]


def number_text(value: float) -> str:
    """A number for a sentence: thousands separated, 4 significant digits below 1,000.

    Examples
    --------
    >>> number_text(2703.4415), number_text(41.265565), number_text(0.2629)
    ('2,703', '41.27', '0.2629')
    """
    if not math.isfinite(value):
        return "n/a"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def percent_text(percent: float) -> str:
    """A percentage for a sentence: ``"92 %"``, ``"4.7 %"`` (two digits below 10)."""
    return f"{percent:.2g} %" if abs(percent) < 10 else f"{percent:.0f} %"


def used_texts(used) -> list[tuple[str, str]]:
    """The numbers advice rests on as (name, "value unit") texts, each name and unit once.

    Examples
    --------
    >>> used_texts([UsedMetric("Clock", 1895.47, "MHz"), UsedMetric("Clock", 1895.47, "MHz")])
    [('Clock', '1,895 MHz')]
    """
    seen, texts = set(), []
    for name, value, unit in used or ():
        if (name, unit) not in seen:
            seen.add((name, unit))
            texts.append((str(name), f"{number_text(float(value))}{' ' + unit if unit else ''}"))
    return texts


def used_metrics_text(used) -> str:
    """:func:`used_texts` as one line: ``"Scalar 2,703 MUOPS/s; Clock 1,895 MHz"`` (not escaped)."""
    return "; ".join(f"{name} {value}" for name, value in used_texts(used))


def _finite(*values: float) -> bool:
    """Whether every value is a finite number (the facts are floats, NaN where unknown)."""
    return all(map(math.isfinite, values))


# ---------------------------------------------------------------- the rules
def broken_counter(point: PointView) -> Advice | None:
    """A rate beyond any hardware: the counter is broken and nothing else is said."""
    if not point.beyond_hardware:
        return None
    return Advice("broken counter", "counter broken: no advice", "counter broken", 0, (
        UsedMetric("performance", point.performance_gflops, "GFLOP/s"),
        UsedMetric("bandwidth", point.bandwidth_gbs, "GB/s"),
        UsedMetric("threads", point.n_threads, "")))


def roof_distance(point: PointView) -> Advice | None:
    """How close the point is to the roof that bounds it, and what moves it there.

    Only against a machine roof (a ceiling or a user's peak): an empirical
    roof is the largest observation, and a percent of it says nothing.
    """
    if point.roof_empirical or point.bound not in ("memory", "compute") or not _finite(
            point.roof_percent, point.roof_value):
        return None
    percent, roof = point.roof_percent, f"{point.roof_name} roof"
    used = (UsedMetric(point.roof_name, point.roof_value, point.roof_unit),
            UsedMetric("percent of the roof", percent, "%"))
    at = f"at {percent_text(percent)} of the {roof} ({number_text(point.roof_value)} {point.roof_unit})"
    if point.bound == "memory":
        level = point.level or "memory"
        if percent >= NEAR_ROOF_PERCENT:
            return Advice("roof", f"{at}: only less traffic helps (blocking, fusion, smaller types)",
                          f"{level} bandwidth", 1, used)
        return Advice("roof", f"memory bound {at}: the bandwidth is not used up: more loads in "
                              "flight (threads on every memory domain, unit stride, prefetching, "
                              "NUMA first touch), then less traffic",
                      f"{level} access below its roof", 3, used)
    if percent >= NEAR_ROOF_PERCENT:
        return Advice("roof", f"{at}: only fewer or cheaper FLOPs help (a better algorithm)",
                      "compute peak", 1, used)
    return Advice("roof", f"compute bound {at}: in-core limits: vector width, FMA, independent "
                          "operations (ILP)", "in-core execution", 3, used)


def scalar_share(point: PointView) -> Advice | None:
    """Mostly scalar FP instructions: vectorising raises the compute ceiling up to the lane count."""
    lanes = point.simd_bits // PRECISION_BITS.get(point.precision, 0) if (
        point.precision in PRECISION_BITS) else 0
    total = point.scalar_uops + point.packed_uops
    if lanes < 2 or not _finite(point.scalar_uops, point.packed_uops) or total <= 0:
        return None
    share = point.scalar_uops / total
    if share < SCALAR_SHARE:
        return None
    mflops = point.performance_gflops * 1000.0
    gain = min(float(lanes), max(1.0, lanes * total / mflops)) if mflops > 0 else float(lanes)
    shown = math.floor(share * 1000.0) / 10.0  # never "100.0 %" for 99.97 %
    text = (f"{shown:.1f} % scalar ({number_text(point.scalar_uops)} of {number_text(total)} "
            f"MUOPS/s): vectorising could raise the compute ceiling {gain:.2g}x "
            f"({point.simd_name} {point.precision}, {lanes} lanes)")
    memory = point.bound == "memory" and not point.roof_empirical  # a machine roof says so
    if memory:
        text += ", once the traffic is cut (memory bound)"
    return Advice("scalar share", text, "scalar code", 6 if memory else 2, (
        UsedMetric("Scalar", point.scalar_uops, "MUOPS/s"),
        UsedMetric("Packed", point.packed_uops, "MUOPS/s"),
        UsedMetric("FLOP rate", mflops, "MFLOP/s")))


def cache_reuse(point: PointView) -> Advice | None:
    """L3 against memory traffic of a memory-bound point: is there reuse the working set loses?"""
    if point.bound != "memory" or not _finite(point.L3_gbs, point.MEM_gbs) or point.MEM_gbs <= 0 \
            or point.L3_gbs <= 0 or "access" in point.L3_metric.lower():
        return None
    ratio = point.L3_gbs / point.MEM_gbs
    used = (UsedMetric("L3 traffic", point.L3_gbs, "GB/s"),
            UsedMetric("MEM traffic", point.MEM_gbs, "GB/s"))
    if ratio >= REUSE_HIGH:
        return Advice("cache reuse", f"L3 traffic {ratio:.2g}x the MEM traffic: reuse is there but "
                                     "the working set spills (block for the L3)", "", 7, used)
    if ratio <= REUSE_LOW:
        return Advice("cache reuse", f"L3 traffic {ratio:.2g}x the MEM traffic: almost no reuse "
                                     "in the caches (fuse loops, block to reuse data)", "", 7, used)
    return None


def imbalance(point: PointView) -> Advice | None:
    """Threads (or ranks) whose runtimes differ: the others wait for the slowest."""
    low, high, mean = point.runtime_min_s, point.runtime_max_s, point.runtime_mean_s
    if point.timed_threads < 2 or not _finite(low, high, mean) or low <= 0 \
            or high < IMBALANCE_MIN_RUNTIME_S:
        return None
    spread = high / low - 1.0
    if spread < IMBALANCE_SPREAD:
        return None
    slowest = f", slowest {point.slowest_thread}" if point.slowest_thread else ""
    return Advice("imbalance", (
        f"{point.timed_threads} threads run {number_text(low)}–{number_text(high)} s "
        f"({percent_text(100.0 * spread)} imbalance{slowest}): load balance "
        f"{percent_text(100.0 * mean / high)}: share the work more evenly"), "load imbalance", 4, (
        UsedMetric("fastest thread", low, "s"), UsedMetric("slowest thread", high, "s"),
        UsedMetric("mean thread", mean, "s")))


def clock(point: PointView) -> Advice | None:
    """A mean clock well below the nominal one: the cores ran slower than rated."""
    if not _finite(point.clock_mhz, point.nominal_mhz) or point.nominal_mhz <= 0 \
            or point.clock_mhz <= 0 or point.clock_mhz >= CLOCK_FRACTION * point.nominal_mhz:
        return None
    return Advice("clock", (
        f"clock {number_text(point.clock_mhz)} MHz against {number_text(point.nominal_mhz)} "
        f"nominal ({point.nominal_from}): frequency throttled (AVX-512 licence, power or thermal "
        "cap, or a fixed lower frequency)"), "low clock", 5, (
        UsedMetric("Clock", point.clock_mhz, "MHz"), UsedMetric("nominal", point.nominal_mhz, "MHz")))


_WILLIAMS = ("S. Williams, A. Waterman, D. Patterson, \"Roofline: an insightful visual performance "
             "model for multicore architectures\", CACM 52(4), 2009")
#: Every rule, in the order tried (the broken counter first: it silences the others).
RULES: tuple[Rule, ...] = (
    Rule("broken counter", "the point's GFLOP/s, GB/s and thread count",
         "a rate beyond what its hardware threads can do "
         "(roofs.hardware_bounds: 1,000 GFLOP/s, 20,000 GB/s per CPU hardware thread)",
         "the package's hardware bounds (widest core: 2 x 512-bit FMA per cycle); Intel SDM "
         "vol. 3B, 48-bit performance counters", broken_counter),
    Rule("roof", "the point's roof of its level, device and precision (not empirical)",
         f"at or above {NEAR_ROOF_PERCENT:g} % of the roof: change the work; below: use the "
         "roof", f"{_WILLIAMS}: bandwidth ceilings (unit stride, memory affinity, prefetching) and "
         "in-core ceilings (ILP, SIMD, FMA balance)", roof_distance),
    Rule("scalar share", "Scalar and Packed [MUOPS/s] (Intel FLOPS_*/MEM_* groups), the SIMD width",
         f"scalar share of the FP micro-ops at least {SCALAR_SHARE:.0%}",
         "LIKWID groups (skylakeX/FLOPS_DP.txt, MEM_DP.txt: Packed, Scalar, Vectorization ratio); "
         f"Intel SDM, FP_ARITH_INST_RETIRED counts instructions per width; {_WILLIAMS}: SIMD "
         "ceiling", scalar_share),
    Rule("cache reuse", "the L3 and the MEM traffic of the point (an L3 and a MEM group)",
         f"memory bound and L3 traffic at least {REUSE_HIGH:g}x (reuse spills) or at most "
         f"{REUSE_LOW:g}x (no reuse) the MEM traffic; not for Zen's victim L3 ('L3 access')",
         "C. Yang, T. Kurth, S. Williams, \"Hierarchical Roofline analysis for GPUs\", CCPE 2020 "
         "(the gap between levels' intensities is the reuse in a cache); A. Ilic, F. Pratas, "
         "L. Sousa, \"Cache-aware Roofline model\", IEEE CAL 2014", cache_reuse),
    Rule("imbalance", "each thread's region runtime (LIKWID's RDTSC time)",
         f"slowest thread at least {IMBALANCE_SPREAD:.0%} longer than the fastest, regions of "
         f"at least {IMBALANCE_MIN_RUNTIME_S * 1e3:g} ms",
         "POP Centre of Excellence, load balance efficiency = mean / max of the processes' "
         "useful time (reported beside the spread)", imbalance),
    Rule("clock", "Clock [MHz] per thread, the nominal clock (CPU name '@ x GHz', else LIKWID's "
         "CPU clock line)", f"mean clock below {CLOCK_FRACTION:.0%} of the nominal clock",
         "LIKWID groups: Clock [MHz] = 1e-6 * (CPU_CLK_UNHALTED_CORE / CPU_CLK_UNHALTED_REF) / "
         "inverseClock; Intel Xeon Scalable specification update (AVX-512 frequencies below the "
         "base clock)", clock),
)
