"""Generated LIKWID outputs of real studies (for tests only): a 54-run sweep, a 2,304-rank job.

Both are written with the renderers of ``likwid_render.py`` (likwid-perfctr >= 5.1 marker-mode
text, likwid-mpirun ``host:rank:cpu`` tables, likwid-topology), **rendered, not measured**; the
numbers are chosen so that every expected value is worked out by hand from the constants here.

* :func:`write_sweep`: one job log of 18 thread counts x 3 cases (54 runs appended, as a job
  script that loops ``for case in sedov noh sod; for t in 1..18`` prints them): before each run
  the command line the script echoes (``$ likwid-perfctr -C 0-3 -g MEM_DP -m ./lulesh2.0 -c sedov``;
  a ``set -x`` line, ``+ likwid-perfctr ...``, is read as a table border today) and the CPU
  header, then three regions on ``t`` hardware threads.  The region ``CalcKinematics`` of case
  ``sedov`` takes :data:`KINEMATICS_SEDOV` seconds (42.04 s on 1 thread, 12.37 s on 18); every
  region does the same FLOPs and bytes on every thread count of its case (a strong-scaling sweep).
* :func:`write_ranks`: one likwid-mpirun MEM_DP log of 32 hosts x 72 ranks (2,304 ranks, one
  core each; two sockets of 36 cores per host, the likwid-topology block first when
  ``topology=True``), region ``step``: rank ``r`` does ``1000 + 10 * (r % 72)`` MFLOP/s; memory is
  counted on each socket's first rank only: :data:`SOCKET_BANDWIDTH` MB/s (socket 0, socket 1).
"""

from __future__ import annotations

from pathlib import Path

from likwid_render import HLINE, mpirun_region, perfctr_header, perfctr_region, topology

from roofline_widget import sample_path

#: Sample 17: gmgpolar's Solve and Setup on 1, 2 and 8 threads (compact pinning), three files.
GMGPOLAR_THREADS = tuple(sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{t}t_1537x2048_give.txt")
                         for t in (1, 2, 8))

#: The thread counts and cases of the sweep, in the order the job ran them.
THREADS = tuple(range(1, 19))
CASES = ("sedov", "noh", "sod")
#: Per case, the region's runtime on 1 thread (s) and its serial fraction (Amdahl), so that on
#: ``t`` threads it takes ``T1 * (f + (1 - f) / t)``; printed to 4 decimals.
REGIONS = {
    "CalcKinematics": {"sedov": (42.04, None), "noh": (30.0, 0.10), "sod": (21.0, 0.20)},
    "CalcHourglass": {"sedov": (10.0, 0.05), "noh": (8.0, 0.05), "sod": (6.0, 0.05)},
    "UpdateVolumes": {"sedov": (1.0, 0.50), "noh": (0.8, 0.50), "sod": (0.6, 0.50)},
}
#: CalcKinematics of case sedov, seconds per thread count: 42.04 s on 1 thread and 12.37 s on
#: 18 (the example of the real-studies issue), linear in between.
KINEMATICS_SEDOV = {t: round(42.04 + (12.37 - 42.04) * (t - 1) / 17, 4) for t in THREADS}
#: The work of every region, the same on every thread count and case: GFLOP and GB moved.
GFLOP = {"CalcKinematics": 40.0, "CalcHourglass": 12.0, "UpdateVolumes": 0.5}
GBYTE = {"CalcKinematics": 20.0, "CalcHourglass": 24.0, "UpdateVolumes": 2.0}

#: The job of :func:`write_ranks`.
HOSTS = tuple(f"n{h:03d}" for h in range(32))
RANKS_PER_HOST = 72
CORES_PER_SOCKET = 36
SOCKET_BANDWIDTH = (30_000.0, 50_000.0)
RANK_SECONDS = 10.0


def runtime(region: str, case: str, threads: int) -> float:
    """The seconds a region of a case takes on ``threads`` threads, as printed (4 decimals)."""
    if region == "CalcKinematics" and case == "sedov":
        return KINEMATICS_SEDOV[threads]
    single, serial = REGIONS[region][case]
    return round(single * (serial + (1 - serial) / threads), 4)


def command(case: str, threads: int) -> str:
    """The command line the job script echoed before a run."""
    cpus = "0" if threads == 1 else f"0-{threads - 1}"
    return f"$ likwid-perfctr -C {cpus} -g MEM_DP -m ./lulesh2.0 -c {case}"


def _sweep_run(case: str, threads: int) -> list[str]:
    blocks = [command(case, threads), perfctr_header()]
    for region in REGIONS:
        seconds = runtime(region, case, threads)
        mflops = GFLOP[region] * 1e3 / seconds / threads  # each thread a share of the FLOPs
        mbytes = GBYTE[region] * 1e3 / seconds  # counted on the socket's first thread only
        metrics = {"DP [MFLOP/s]": [round(mflops, 4)] * threads,
                   "Memory bandwidth [MBytes/s]": [round(mbytes, 4)] + [0] * (threads - 1)}
        blocks.append(perfctr_region(region, 1, "MEM_DP", list(range(threads)), seconds, metrics))
    return blocks


def write_sweep(directory: Path) -> Path:
    """Write the 54-run sweep (see the module docstring) into ``directory`` as ``lulesh_sweep.txt``."""
    path = Path(directory) / "lulesh_sweep.txt"
    blocks = [block for case in CASES for threads in THREADS for block in _sweep_run(case, threads)]
    path.write_text("\n".join(blocks) + "\n")
    return path


def rank_mflops(rank: int) -> float:
    """MFLOP/s of a rank of :func:`write_ranks`."""
    return 1000.0 + 10.0 * (rank % RANKS_PER_HOST)


def write_ranks(path: Path, *, topology_block: bool = True) -> Path:
    """Write the 2,304-rank likwid-mpirun log (see the module docstring) to ``path``."""
    columns, flops, bandwidth = [], [], []
    for number, host in enumerate(HOSTS):
        for cpu in range(RANKS_PER_HOST):
            rank = number * RANKS_PER_HOST + cpu
            columns.append(f"{host}:{rank}:{cpu}")
            flops.append(rank_mflops(rank))
            leader = cpu % CORES_PER_SOCKET == 0
            bandwidth.append(SOCKET_BANDWIDTH[cpu // CORES_PER_SOCKET] if leader else 0)
    parts = [topology(sockets=2, cores=CORES_PER_SOCKET)] if topology_block else []
    parts += ["job: 2304 ranks on 32 hosts", HLINE,
              mpirun_region("step", 1, columns, {"DP [MFLOP/s]": flops,
                                                 "Memory bandwidth [MBytes/s]": bandwidth},
                            RANK_SECONDS)]
    path.write_text("\n".join(parts) + "\n")
    return path


__all__ = ["CASES", "GBYTE", "GFLOP", "GMGPOLAR_THREADS", "HOSTS", "KINEMATICS_SEDOV", "REGIONS", "THREADS",
           "command", "rank_mflops", "runtime", "write_ranks", "write_sweep"]
