"""Metric detection: which FLOP rate and which bandwidth a roofline plots by default.

:func:`detect_flops_metric` and :func:`detect_bandwidth_metric` rank metric
names by tiers (double-precision totals first, the total memory bandwidth
first); :func:`channel_totals` finds bandwidths LIKWID splits over
memory-channel groups, whose sum is offered as a metric of its own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from roofline_widget.metric_names import flops_precision
from roofline_widget.units import UnitKind, parse_unit, split_metric_name

__all__ = ["channel_totals", "detect_bandwidth_metric", "detect_flops_metric"]

_SUB_RATE = re.compile(
    r"avx|sse|packed|scalar|neon|sve|fma|vector|\b(?:128|256|512)b?\b|\(fp\)", re.IGNORECASE)
_DIRECTIONAL = re.compile(
    r"\b(?:read|write|load|store|evict|victim|dropped|prefetch|fill|writeback)\b"
    r"|(?<!<)->|<-(?!>)|\bto\b(?!/)", re.IGNORECASE)
_OUTGOING = re.compile(r"\b(?:write|store|evict|victim|writeback)\b", re.IGNORECASE)
_MEMORY = re.compile(r"\b(?:memory|mem|dram|hbm|mcdram|nvm|pmm)\b", re.IGNORECASE)
_CACHE_LEVEL = re.compile(r"\bl([123])", re.IGNORECASE)
_BARE_BYTE_UNIT = re.compile(r"\s*\[?\s*[kKMGTPE]?i?bytes?/s\s*\]?\s*$", re.IGNORECASE)


def _precision(name: str) -> str:
    return flops_precision(name) or "generic"


def _flops_tier(name: str) -> int:
    """Rank a FLOP-rate metric name: DP total first, sub-rates after totals."""
    kind = parse_unit(name).kind
    if kind == UnitKind.UOP_RATE:
        return 100
    # matrix-unit work (Tensor, MFMA ...) after the vector precisions
    precision = {"DP": 0, "SP": 1, "generic": 2, "HP": 3}.get(_precision(name), 4)
    return 2 * precision + (1 if _SUB_RATE.search(name) else 0)


def _bandwidth_stem(name: str) -> str:
    stem = split_metric_name(name)[0]
    return _BARE_BYTE_UNIT.sub("", stem).strip().lower()


def _bandwidth_tier(name: str) -> int:
    """Rank a bandwidth metric: total memory bandwidth first, directional last."""
    stem = _bandwidth_stem(name)
    memory = bool(_MEMORY.search(stem))
    if _DIRECTIONAL.search(stem):
        outgoing = 1 if _OUTGOING.search(stem) else 0
        return (7 if memory else 9) + outgoing
    if stem == "memory bandwidth":
        return 0
    if memory:
        return 1
    if "system" in stem:
        return 2
    levels = [int(level) for level in _CACHE_LEVEL.findall(stem)]
    if levels:
        return {3: 3, 2: 4, 1: 5}[max(levels)]
    return 6


def detect_flops_metric(names: Iterable[str]) -> tuple[str | None, list[str]]:
    """Pick the FLOP-rate metric to plot from the metric names of the data.

    A double-precision total (``DP [MFLOP/s]``) comes before its sub-rates
    (``AVX DP``, ``AVX512 DP``, ``Packed DP``), DP before SP, SP before
    precision-less rates (``MFLOP/s``) and half precision, then GPU matrix-unit
    rates (``Tensor``, ``MFMA F64 [MFLOP/s]``, ...); uop rates
    (``Packed [MUOPS/s]``) only when no FLOP rate exists at all.

    Parameters
    ----------
    names : iterable of str
        Metric names, in the order LIKWID printed them.

    Returns
    -------
    name : str or None
        The chosen metric, None when the data has no FLOP or uop rate.
    notes : list of str
        Why the choice may not be the one meant (both DP and SP measured, a
        uop rate used as FLOP rate); empty when it is unambiguous.

    Examples
    --------
    >>> detect_flops_metric(["AVX DP [MFLOP/s]", "DP [MFLOP/s]", "Packed [MUOPS/s]"])
    ('DP [MFLOP/s]', [])
    """
    candidates = [n for n in names if parse_unit(n).kind in (UnitKind.FLOP_RATE, UnitKind.UOP_RATE)]
    if not candidates:
        return None, []
    chosen = min(candidates, key=lambda n: (_flops_tier(n), candidates.index(n)))
    notes = []
    flop_rates = [n for n in candidates if parse_unit(n).kind == UnitKind.FLOP_RATE]
    if parse_unit(chosen).kind == UnitKind.UOP_RATE:
        notes.append(f"no FLOP-rate metric measured; using the uop rate {chosen!r} "
                     "(uops are not FLOPs: pass flops_metric explicitly)")
    elif _precision(chosen) == "DP" and any(_precision(n) == "SP" for n in flop_rates):
        notes.append(f"both double- and single-precision FLOP rates measured; using {chosen!r}. "
                     "Pass flops_metric with the exact name to choose another")
    return chosen, notes


def detect_bandwidth_metric(names: Iterable[str]) -> tuple[str | None, list[str]]:
    """Pick the bandwidth metric to plot: the TOTAL memory bandwidth.

    ``Memory bandwidth [MBytes/s]`` comes first, then other memory totals
    (``HBM bandwidth``, per-channel totals), L3-to/from-system totals, then
    cache totals (L3, L2, L1, in that order).  Read, write, load, evict or
    other one-directional bandwidths come last (reads before writes): using the read bandwidth
    alone (as scope-profiler's detection does in MEM_DP) overstates the
    arithmetic intensity.

    Parameters
    ----------
    names : iterable of str
        Metric names.

    Returns
    -------
    name : str or None
        The chosen metric, None when the data has no byte rate.
    notes : list of str
        Set when the choice is not a total memory bandwidth.

    Examples
    --------
    >>> detect_bandwidth_metric(["Memory read bandwidth [MBytes/s]",
    ...                          "Memory bandwidth [MBytes/s]"])
    ('Memory bandwidth [MBytes/s]', [])
    """
    candidates = [n for n in names if parse_unit(n).kind == UnitKind.BYTE_RATE]
    if not candidates:
        return None, []
    chosen = min(candidates, key=lambda n: (_bandwidth_tier(n), candidates.index(n)))
    notes = []
    if _bandwidth_tier(chosen) > 1:
        notes.append(f"no total memory bandwidth measured; using {chosen!r} "
                     "(pass bandwidth_metric to choose another)")
    elif _is_channel_part(chosen, candidates):
        notes.append(f"{chosen!r} covers only some memory channels; measure the group(s) of "
                     "the other channels too (Zen 3: MEM1 and MEM2) for the total bandwidth")
    return chosen, notes


_CHANNELS = re.compile(
    r"^(?P<stem>.+?) \(channels (?P<first>\d+)-(?P<last>\d+)\) \[(?P<unit>[^\]]+)\]$")


def channel_totals(names: Iterable[str]) -> dict[str, list[str]]:
    """Totals of bandwidths that LIKWID splits over memory-channel groups.

    Zen 3 (and Zen 4 before 5.4) measure memory bandwidth in two groups,
    ``MEM1`` with ``Memory bandwidth (channels 0-3) [MBytes/s]`` and ``MEM2``
    with ``... (channels 4-7) ...``: each is half of the socket's traffic.
    When a region has every part, their sum is the total bandwidth, offered
    as a metric of its own (``Memory bandwidth (channels 0-7) [MBytes/s]``).

    Parameters
    ----------
    names : iterable of str
        Metric names; the byte rates among them named ``... (channels a-b) [unit]`` are paired.

    Returns
    -------
    dict
        Total name -> the part names it sums, for every set of two or more
        parts with the same stem and unit whose channel ranges follow each
        other without gap or overlap.

    Examples
    --------
    >>> channel_totals(["Memory bandwidth (channels 0-3) [MBytes/s]",
    ...                 "Memory bandwidth (channels 4-7) [MBytes/s]"])
    {'Memory bandwidth (channels 0-7) [MBytes/s]': ['Memory bandwidth (channels 0-3) [MBytes/s]', \
'Memory bandwidth (channels 4-7) [MBytes/s]']}
    """
    parts: dict[tuple, list] = {}
    for name in names:
        match = _CHANNELS.match(name)
        if match and parse_unit(name).kind == UnitKind.BYTE_RATE:
            key = (match["stem"], match["unit"])
            parts.setdefault(key, []).append((int(match["first"]), int(match["last"]), name))
    totals = {}
    for (stem, unit), ranges in parts.items():
        ranges.sort()
        contiguous = all(b[0] == a[1] + 1 for a, b in itertools.pairwise(ranges))
        if len(ranges) > 1 and contiguous:
            total = f"{stem} (channels {ranges[0][0]}-{ranges[-1][1]}) [{unit}]"
            if total not in names:
                totals[total] = [name for _, _, name in ranges]
    return totals


def _is_channel_part(name: str, names) -> bool:
    """Whether ``name`` is a bandwidth of some channels that no other name subdivides."""
    match = _CHANNELS.match(name)
    if match is None:
        return False
    first, last = int(match["first"]), int(match["last"])
    for other in names:
        part = _CHANNELS.match(other)
        if (other != name and part and (part["stem"], part["unit"]) == (match["stem"], match["unit"])
                and first <= int(part["first"]) and int(part["last"]) <= last):
            return False  # ``name`` is a total of parts
    return True


