"""Which memory level a likwid-bench kernel measured, and whether its working set agrees.

A bandwidth benchmark's level is decided, in this order, by the likwid-perfctr
group wrapping it (:func:`group_level`), its working set per thread against
the cache sizes likwid-topology printed (:func:`topology_level`, threads
assumed pinned compactly), or the user's ``level=`` (:func:`bench_level`).
Where the group decided and the cache sizes are known too,
:func:`level_check` says when the working set does not fit the group's level
(a kernel run in ``-g L3`` whose data sat in memory).
"""

from __future__ import annotations

from roofline_widget.analysis.levels import LEVELS
from roofline_widget.errors import MachineError
from roofline_widget.io.bench import BenchResult
from roofline_widget.io.topology import Topology

__all__ = ["bench_level", "group_level", "kernel_isa", "level_check", "size_text", "topology_level",
           "working_set"]

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


def group_level(group: str) -> str | None:
    """The memory level a likwid-perfctr group measures (``L2``, ``L3``, ``MEM``), or None."""
    upper = group.upper()
    if upper in ("L2", "L3", "L2CACHE", "L3CACHE"):
        return upper[:2]
    if upper.startswith(("MEM", "HBM")):
        return "MEM"
    return None


def working_set(result: BenchResult) -> float | None:
    """The working set per thread in bytes that likwid-bench printed, or None."""
    for key in ("Size per thread", "Size (Byte)"):
        if key in result.values:
            size = float(result.values[key].split()[0])
            return size if key == "Size per thread" else size / max(result.threads, 1)
    return None


def size_text(size: float) -> str:
    """A size in bytes as KiB, MiB or GiB (3 significant digits)."""
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size / 2**10:.3g} KiB"


def topology_level(per_thread: float, threads: int, topology: Topology) -> tuple[str, str]:
    """The level whose cache holds ``per_thread`` bytes per thread (threads pinned compactly), and why."""
    compared = []
    for cache in topology.caches:
        capacity = cache.bytes_per_thread(threads)
        compared.append(f"L{cache.level} {size_text(capacity)}/thread")
        if per_thread <= capacity:
            return f"L{cache.level}", (f"working set {size_text(per_thread)}/thread fits in "
                                       f"{', '.join(compared)} (likwid-topology)")
    return "MEM", (f"working set {size_text(per_thread)}/thread exceeds {', '.join(compared)} "
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
    MachineError
        (a ``ValueError``) If nothing decides the level.
    ValueError
        If ``level`` names no known level.
    """
    decided = None if group is None else group_level(group)
    if decided is not None:
        return decided, f"likwid-perfctr group {group} wrapping the benchmark"
    per_thread = working_set(result)
    if topology is not None and topology.caches and per_thread is not None:
        return topology_level(per_thread, result.threads, topology)
    user = level.get(result.kernel) if isinstance(level, dict) else level
    if user is not None:
        if user not in LEVELS:
            raise ValueError(f"unknown level {user!r} for {result.kernel}; valid: {list(LEVELS)}")
        return user, "level= given by the user"
    raise MachineError(
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
    per_thread = working_set(result)
    if (group is None or group_level(group) != level or topology is None
            or not topology.caches or per_thread is None):
        return None
    measured, _how = topology_level(per_thread, result.threads, topology)
    if measured == level:
        return None
    cache = topology.caches[-1] if measured == "MEM" else topology.cache(int(measured[1]))
    if cache is None:  # topology_level names a level of the topology's caches
        return None
    fit = "does not fit in" if measured == "MEM" else "fits in"
    text = (f"likwid-bench {result.kernel} ({result.source}, line {result.line}) ran in "
            f"likwid-perfctr -g {group} and gives the {level} roof, but its working set of "
            f"{size_text(per_thread)} per thread ({size_text(per_thread * result.threads)} in all on "
            f"{result.threads} threads) {fit} the {size_text(cache.size_bytes)} L{cache.level} "
            f"({size_text(cache.bytes_per_thread(result.threads))} per thread, likwid-topology): it "
            f"measured {measured} traffic, not {level}")
    if counted and result.gbs > 0 and not 2 / 3 <= counted / result.gbs <= 1.5:
        text += (f"; its {group} group counted {counted:.4g} GB/s, {counted / result.gbs:.2g}x "
                 f"the benchmark's {result.gbs:.4g} GB/s")
    return text
