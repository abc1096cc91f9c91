"""Which memory level a likwid-bench kernel measured, and whether its working set agrees.

A bandwidth benchmark's level is decided, in this order, by the likwid-perfctr
group wrapping it (:func:`group_level`), its working set per thread against
the cache sizes likwid-topology printed (:func:`topology_level`), or the
user's ``level=`` (:func:`bench_level`).  Where the group decided and the
cache sizes are known too (likwid-topology, else the table of cores' L1 and
L2 per core), :func:`level_check` says when the working set does not fit
the group's level (a kernel run in ``-g L3`` whose data sat in memory).

Each cache counts with its scope (:func:`cache_scopes`): likwid-bench
spreads its threads over the cores first, so a per-core L2 holds its whole
size for each thread (a Sapphire Rapids L2 kernel of 1.95 MiB a thread fits
its 2 MB L2, two hardware threads a core or not), while an L3 shared by the
cores of a socket is shared by the threads on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline_widget.analysis.levels import LEVELS
from roofline_widget.cpu_cores import CoreCapabilities
from roofline_widget.errors import MachineError
from roofline_widget.io.bench import BenchResult
from roofline_widget.io.topology import Topology

__all__ = ["CacheScope", "bench_level", "cache_scopes", "group_level", "kernel_isa", "level_check",
           "size_text", "topology_level", "working_set"]

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


@dataclass(frozen=True)
class CacheScope:
    """What one cache level holds for each thread of a benchmark.

    Attributes
    ----------
    level : int
        1, 2, 3.
    size_bytes : float
        One cache.
    per_thread : float
        The bytes one thread gets from it: the threads are spread over the
        cores first (one a core, as likwid-bench pins them), so a per-core L2
        holds the whole L2 for each thread up to one thread a core, and an
        L3 shared by 32 cores is shared by the threads on those cores.
    source : str
        ``"likwid-topology"`` or ``"the table of cores"``.
    """

    level: int
    size_bytes: float
    per_thread: float
    source: str


def _topology_scope(cache, threads: int, topology: Topology) -> float:
    """Bytes per thread of one likwid-topology cache level, threads spread over the cores."""
    per_core = max(1, topology.threads_per_core)
    cores_per_cache = max(1, cache.shared_by // per_core)
    cores = max(1, topology.cores)
    used = min(max(1, threads), cores)
    caches = min(max(1, cores // cores_per_cache), -(-used // cores_per_cache))
    return cache.size_bytes * caches / max(1, threads)


def cache_scopes(threads: int, topology: Topology | None,
                 core: CoreCapabilities | None = None) -> list[CacheScope]:
    """The caches a benchmark's threads use, inner first: likwid-topology's, else the table's.

    likwid-topology names every level, its size and which hardware threads
    share it (per-core L2, per-socket or per-CCX L3); the table of cores
    (:mod:`roofline_widget.cpu_cores`) only L1 and L2 per core, taken as one
    a thread (a benchmark runs at most one thread a core).
    """
    if topology is not None and topology.caches:
        return [CacheScope(cache.level, cache.size_bytes,
                           _topology_scope(cache, threads, topology), "likwid-topology")
                for cache in topology.caches]
    if core is None:
        return []
    sizes = ((1, core.row.l1d_kib), (2, core.row.l2_kib))
    return [CacheScope(level, kib * 1024, kib * 1024, "the table of cores")
            for level, kib in sizes if kib]


def _fits(per_thread: float, scopes: list[CacheScope]) -> CacheScope | None:
    return next((scope for scope in scopes if per_thread <= scope.per_thread), None)


def topology_level(per_thread: float, threads: int, topology: Topology) -> tuple[str, str]:
    """The level whose cache holds ``per_thread`` bytes per thread, and why (:func:`cache_scopes`)."""
    scopes = cache_scopes(threads, topology)
    compared = [f"L{scope.level} {size_text(scope.per_thread)}/thread" for scope in scopes]
    found = _fits(per_thread, scopes)
    if found is not None:
        shown = compared[:scopes.index(found) + 1]
        return f"L{found.level}", (f"working set {size_text(per_thread)}/thread fits in "
                                   f"{', '.join(shown)} (likwid-topology)")
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


def _measured(per_thread: float, level: str, scopes: list[CacheScope]) -> tuple[str, CacheScope] | None:
    """(the level the working set measured, the cache that says so) when it is not ``level``."""
    number = {"L1": 1, "L2": 2, "L3": 3, "MEM": 4}[level]
    inner = [scope for scope in scopes if scope.level < number]
    fits = _fits(per_thread, inner)
    if fits is not None:  # it fits a cache inside the level: that cache's traffic
        return f"L{fits.level}", fits
    own = next((scope for scope in scopes if scope.level == number), None)
    if own is None or per_thread <= own.per_thread:
        return None
    outer = [scope for scope in scopes if scope.level > number]
    beyond = _fits(per_thread, outer)
    if beyond is not None:
        return f"L{beyond.level}", own
    last = scopes[-1].source == "likwid-topology" or own.level >= 3
    return ("MEM" if last else f"L{own.level + 1} or MEM"), own


def level_check(result: BenchResult, level: str, group: str | None,
                topology: Topology | None, counted: float | None = None,
                core: CoreCapabilities | None = None) -> str | None:
    """Why a bandwidth roof may not be ``level``'s (None: nothing known against it).

    When the likwid-perfctr ``group`` decided the level, the working set per
    thread must fit the level's cache and no inner one, each cache taken with
    its scope (:func:`cache_scopes`: the threads spread over the cores, a
    per-core L2 whole for each thread, a per-socket L3 shared): from
    likwid-topology, else from the table of cores (``core``: L1 and L2).  The
    text names the kernel, its working set and the cache size, and the
    ``counted`` figure of the group when it is far from the benchmark's.
    """
    per_thread = working_set(result)
    if group is None or group_level(group) != level or per_thread is None:
        return None
    found = _measured(per_thread, level, cache_scopes(result.threads, topology, core))
    if found is None:
        return None
    measured, cache = found
    fit = "fits in" if measured.startswith("L") and " or " not in measured else "does not fit in"
    text = (f"likwid-bench {result.kernel} ({result.source}, line {result.line}) ran in "
            f"likwid-perfctr -g {group} and gives the {level} roof, but its working set of "
            f"{size_text(per_thread)} per thread ({size_text(per_thread * result.threads)} in all on "
            f"{result.threads} threads) {fit} the {size_text(cache.size_bytes)} L{cache.level} "
            f"({size_text(cache.per_thread)} per thread, {cache.source}): it measured {measured} "
            f"traffic, not {level}")
    if counted and result.gbs > 0 and not 2 / 3 <= counted / result.gbs <= 1.5:
        text += (f"; its {group} group counted {counted:.4g} GB/s, {counted / result.gbs:.2g}x "
                 f"the benchmark's {result.gbs:.4g} GB/s")
    return text
