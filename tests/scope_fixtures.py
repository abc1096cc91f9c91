"""Build scope-profiler results with LIKWID data, in memory or as HDF5 files.

Shared by the scope-profiler adapter tests and the benchmarks::

    from scope_fixtures import make_profiling_results, write_scope_h5

    results = make_profiling_results(n_ranks=2, n_regions=3, n_threads=4, n_metrics=20, seed=1)
    path = write_scope_h5(tmp_path / "run.h5", results)

The numbers follow LIKWID's MEM_DP group on a two-socket Intel machine:
every thread reports its own FLOP rate, while the memory (uncore) metrics
are non-zero only on the first thread of each socket (the socket-lock
thread), and ``Operational intensity`` is thread FLOPs over socket bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: Metrics of LIKWID's MEM_DP group (skylakeX/CLX), in LIKWID's order.
MEM_DP_METRICS = (
    "Runtime (RDTSC) [s]", "Runtime unhalted [s]", "Clock [MHz]", "CPI", "Energy [J]",
    "Power [W]", "Energy DRAM [J]", "Power DRAM [W]", "DP [MFLOP/s]", "AVX DP [MFLOP/s]",
    "AVX512 DP [MFLOP/s]", "Packed [MUOPS/s]", "Scalar [MUOPS/s]",
    "Memory read bandwidth [MBytes/s]", "Memory read data volume [GBytes]",
    "Memory write bandwidth [MBytes/s]", "Memory write data volume [GBytes]",
    "Memory bandwidth [MBytes/s]", "Memory data volume [GBytes]",
    "Operational intensity [FLOP/Byte]",
)
#: Always included, whatever ``n_metrics`` is.
REQUIRED_METRICS = ("Runtime (RDTSC) [s]", "DP [MFLOP/s]", "Memory read bandwidth [MBytes/s]",
                    "Memory bandwidth [MBytes/s]")
#: (event, counter) pairs of MEM_DP; CAS_COUNT_RD/WR repeat once per memory channel.
MEM_DP_EVENTS = (
    ("INSTR_RETIRED_ANY", "FIXC0"), ("CPU_CLK_UNHALTED_CORE", "FIXC1"),
    ("CPU_CLK_UNHALTED_REF", "FIXC2"), ("PWR_PKG_ENERGY", "PWR0"),
    ("FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", "PMC1"), ("CAS_COUNT_RD", "MBOX0C0"),
    ("CAS_COUNT_WR", "MBOX0C1"), ("CAS_COUNT_RD", "MBOX1C0"), ("CAS_COUNT_WR", "MBOX1C1"),
)
_UNCORE_EVENTS = ("PWR_PKG_ENERGY", "CAS_COUNT_RD", "CAS_COUNT_WR")


def metric_names(n_metrics: int) -> list[str]:
    """``n_metrics`` MEM_DP metric names (the required ones first), in LIKWID's order.

    More than the 20 MEM_DP metrics are padded with ``Extra metric <k> [MBytes]``.
    """
    if n_metrics < len(REQUIRED_METRICS):
        raise ValueError(f"n_metrics must be >= {len(REQUIRED_METRICS)}")
    others = [m for m in MEM_DP_METRICS if m not in REQUIRED_METRICS]
    chosen = set(REQUIRED_METRICS) | set(others[:n_metrics - len(REQUIRED_METRICS)])
    names = [m for m in MEM_DP_METRICS if m in chosen]
    names += [f"Extra metric {k} [MBytes]" for k in range(n_metrics - len(names))]
    return names


def socket_lock_mask(n_threads: int, n_sockets: int) -> np.ndarray:
    """True on the first thread of each socket (threads split evenly, in order)."""
    per_socket = -(-n_threads // n_sockets)
    return np.arange(n_threads) % per_socket == 0


def _metric_values(names, rng, n_blocks, n_threads, n_sockets):
    """Consistent MEM_DP values, shape (n_blocks, n_metrics, n_threads)."""
    lock = socket_lock_mask(n_threads, n_sockets)
    runtime = rng.uniform(0.01, 2.0, (n_blocks, 1)) * rng.uniform(0.98, 1.0, (n_blocks, n_threads))
    dp = rng.uniform(100.0, 5000.0, (n_blocks, n_threads))
    bandwidth = np.where(lock, rng.uniform(1000.0, 60000.0, (n_blocks, n_threads)), 0.0)
    read = np.round(bandwidth * rng.uniform(0.5, 0.8, (n_blocks, 1)), 4)
    socket_of = np.cumsum(lock) - 1
    socket_bandwidth = bandwidth[:, lock][:, socket_of]
    known = {
        "Runtime (RDTSC) [s]": runtime,
        "Runtime unhalted [s]": runtime * 0.9,
        "Clock [MHz]": rng.uniform(2000.0, 3500.0, (n_blocks, n_threads)),
        "CPI": rng.uniform(0.3, 2.0, (n_blocks, n_threads)),
        "Energy [J]": np.where(lock, 150.0 * runtime, 0.0),
        "Power [W]": np.where(lock, 150.0, 0.0),
        "Energy DRAM [J]": np.where(lock, 20.0 * runtime, 0.0),
        "Power DRAM [W]": np.where(lock, 20.0, 0.0),
        "DP [MFLOP/s]": dp,
        "AVX DP [MFLOP/s]": dp * 0.5,
        "AVX512 DP [MFLOP/s]": dp * 0.25,
        "Packed [MUOPS/s]": dp * 0.1,
        "Scalar [MUOPS/s]": dp * 0.5,
        "Memory read bandwidth [MBytes/s]": read,
        "Memory read data volume [GBytes]": read * runtime / 1000.0,
        "Memory write bandwidth [MBytes/s]": bandwidth - read,
        "Memory write data volume [GBytes]": (bandwidth - read) * runtime / 1000.0,
        "Memory bandwidth [MBytes/s]": bandwidth,
        "Memory data volume [GBytes]": bandwidth * runtime / 1000.0,
        "Operational intensity [FLOP/Byte]": dp / socket_bandwidth,
    }
    shape = (n_blocks, n_threads)
    return np.stack([np.broadcast_to(known[n], shape) if n in known else rng.uniform(0, 10, shape)
                     for n in names], axis=1)


def _event_values(events, rng, n_blocks, n_threads, n_sockets):
    lock = socket_lock_mask(n_threads, n_sockets)
    values = np.round(rng.uniform(1e5, 1e10, (n_blocks, len(events), n_threads)))
    uncore = np.array([name in _UNCORE_EVENTS for name, _ in events])
    values[:, uncore, :] *= lock
    return values


def make_profiling_results(n_ranks: int = 2, n_regions: int = 3, n_threads: int = 4,
                           n_metrics: int = 20, seed: int = 0, *, n_events: int = 9,
                           n_sockets: int | None = None, label: str | None = None,
                           file_path: str = "x.h5", group_name: str = "MEM_DP"):
    """A ``scope_profiler.ProfilingResults`` with LIKWID results only.

    Parameters
    ----------
    n_ranks, n_regions, n_threads, n_metrics : int
        Shape of the data: every rank measured ``n_regions`` regions
        (``region_000`` ...) on ``n_threads`` hardware threads.
    seed : int
        Seed of the random values.
    n_events : int
        Number of raw events per region (the MEM_DP list, cycled).
    n_sockets : int, optional
        Sockets the threads are spread over (default 2, 1 for one thread).
    label : str, optional
        Run label (``metadata["label"]``); the stem of ``file_path`` otherwise.
    file_path : str
        What ``ProfilingResults.file_path`` says.
    group_name : str
        LIKWID group name of every region.

    Returns
    -------
    scope_profiler.ProfilingResults
        Each region is its own ``LikwidRegionResult`` with its own arrays and
        lists, as after reading an HDF5 file. Rank ``r`` runs on CPUs
        ``r * n_threads ... (r + 1) * n_threads - 1``.
    """
    from scope_profiler.likwid_data import LikwidRegionResult
    from scope_profiler.results import ProfilingResults

    rng = np.random.default_rng(seed)
    n_sockets = n_sockets or (2 if n_threads > 1 else 1)
    names = metric_names(n_metrics)
    events = [MEM_DP_EVENTS[i % len(MEM_DP_EVENTS)] for i in range(n_events)]
    n_blocks = n_ranks * n_regions
    metrics = _metric_values(names, rng, n_blocks, n_threads, n_sockets)
    raw = _event_values(events, rng, n_blocks, n_threads, n_sockets)
    calls = rng.integers(1, 1000, (n_blocks, 1)).repeat(n_threads, axis=1)
    likwid = {}
    for rank in range(n_ranks):
        cpus = list(range(rank * n_threads, (rank + 1) * n_threads))
        regions = {}
        for index in range(n_regions):
            block = rank * n_regions + index
            tag = f"region_{index:03d}"
            regions[tag] = LikwidRegionResult(
                tag=tag, group_id=0, group_name=group_name, cpus=list(cpus),
                times=metrics[block, 0].copy(), call_counts=calls[block].astype(np.int64),
                event_names=[e for e, _ in events], counter_names=[c for _, c in events],
                events=raw[block].copy(), metric_names=list(names),
                metrics=metrics[block].copy(), source="full_api",
            )
        likwid[rank] = regions
    metadata = {"label": label} if label else {}
    return ProfilingResults(regions={}, likwid=likwid, num_ranks=n_ranks, file_path=file_path,
                            metadata=metadata)


def write_scope_h5(path, results_or_params=None):
    """Write LIKWID results as scope-profiler stores them; return the path.

    Parameters
    ----------
    path : str or path-like
        The HDF5 file to create.
    results_or_params : ProfilingResults or dict, optional
        Results to write, or keyword arguments for
        :func:`make_profiling_results` (default: its defaults).

    Notes
    -----
    Uses scope-profiler's own writer, ``write_likwid_results``, once per
    ``rank<r>`` group; a run label goes to the ``metadata`` group, where
    ``ProfilingResults.from_h5`` reads it. Files without the schema attribute
    are read as schema 1, which needs nothing else.
    """
    import h5py
    from scope_profiler.likwid_data import write_likwid_results

    results = results_or_params
    if results is None or isinstance(results, dict):
        results = make_profiling_results(**(results or {}))
    path = Path(path)
    with h5py.File(path, "w") as handle:
        if results.label:
            handle.create_group("metadata").attrs["label"] = results.label
        for rank, regions in results.get_likwid_regions().items():
            write_likwid_results(handle.create_group(f"rank{rank}"), regions.values(),
                                 environment={"LIKWID_EVENTS": "MEM_DP"})
    return path
