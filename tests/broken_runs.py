"""Synthetic runs with broken threads, made from real LIKWID files (for the plausibility tests).

Rendered, not measured.  Two cases of issue 31, each from a real file's numbers:

:func:`thread_sweep`
    An 18-thread sweep (runs of 1, 2, 4, 8, 12 and 18 threads, one likwid-perfctr header and
    ``Solve`` block each, appended to one log) made from sample 17's 8-thread ``Solve``
    (GMGPolar MEM_DP on a Xeon Gold 6132: DP [MFLOP/s], memory bandwidth on thread 0, clock
    1,895 MHz, the real per-thread cells cycled).  In the 18-thread run HWThread 13 reads
    10,725,000 MFLOP/s (10,725 GFLOP/s): the point sums to about 10,743 GFLOP/s, below the old
    per-point bound of 18 x 1,000 GFLOP/s.
:func:`mpirun_2304_ranks`
    A likwid-mpirun run of 2,304 ranks on 32 hosts (72 each) made from sample 23 (216 ranks on
    3 Ice Lake hosts): host ``f{h:04d}`` takes the real ranks of sample 23's host ``h % 3``
    (rank 61's wrapped counter replaced by rank 60's counts), the same counts over a runtime
    1398.1 / 963.0794 times as long (every rate scaled by 963.0794 / 1398.1: rank 0 runs
    1,398.1 s).  16 hosts get one to seven ranks whose ``FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE``
    wrapped to 2^47 - 4096 or 2^48 - 4096 (``BROKEN_HOSTS``), their FLOP metrics worked out
    again with ICX's MEM_DP formula: a 2^47 wrap reads (2^47 - 4096) x 8 / its runtime (1,349
    to 1,398 s) = 805 to 835 GFLOP/s on its rank, a 2^48 wrap 1,610 to 1,670; the host points
    read 864 to 7,430 GFLOP/s (the real run of the issue: 900 to 7,293), the other 16 about
    45 GFLOP/s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from likwid_render import HLINE, perfctr_header, perfctr_region, table
from wild_samples import WRAPPED_RANK

from roofline_widget import read_likwid, sample_path

__all__ = ["BROKEN_HOSTS", "SWEEP_THREADS", "T_2304", "mpirun_2304_ranks", "thread_sweep"]

#: The thread counts of the sweep.
SWEEP_THREADS = (1, 2, 4, 8, 12, 18)
#: The runtime of every rank of the 2,304-rank run, s.
T_2304 = 1398.1
#: Per broken host (its number), the ranks wrapped near 2^47 and near 2^48.
BROKEN_HOSTS = {1: (1, 0), 3: (1, 0), 5: (2, 0), 7: (0, 1), 9: (3, 0), 11: (1, 1), 13: (4, 0),
                15: (2, 1), 17: (5, 0), 19: (3, 1), 21: (6, 0), 23: (4, 1), 25: (7, 0),
                27: (5, 1), 29: (3, 3), 31: (1, 4)}
_GOLD_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")
_PMC3 = "FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3"


def thread_sweep(path: Path) -> Path:
    """Write the 18-thread sweep (see the module docstring) to ``path``."""
    run = read_likwid(_GOLD_8T)
    solve = run.table[run.table["region"] == "Solve"]
    names = ("Clock [MHz]", "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]")
    real = {name: solve[name].to_numpy(dtype=float) for name in names}
    blocks = []
    for threads in SWEEP_THREADS:
        cycled = {name: [float(real[name][i % 8]) for i in range(threads)] for name in names}
        cycled["Memory bandwidth [MBytes/s]"] = [real["Memory bandwidth [MBytes/s]"][0]
                                                 * threads / 8] + [0.0] * (threads - 1)
        if threads == 18:
            cycled["DP [MFLOP/s]"][13] = 10_725_000.0
        blocks.append(perfctr_header() + perfctr_region("Solve", 1, "MEM_DP",
                                                        list(range(threads)), 19.5998, cycled))
    path.write_text("\n".join(blocks))
    return path


def _rates(name: str) -> bool:
    return any(unit in name for unit in ("/s]", "[W]")) or name.startswith("Runtime")


def _dp_metrics(events: dict, seconds: float) -> dict:
    """ICX MEM_DP's FLOP metrics from the FP_ARITH counts (LIKWID's groups/ICX/MEM_DP.txt)."""
    c = {k.split(":")[0].removeprefix("FP_ARITH_INST_RETIRED_").split("_")[0]: v
         for k, v in events.items() if k.startswith("FP_ARITH_INST_RETIRED")}
    return {"DP [MFLOP/s]": 1e-6 * (c["128B"] * 2 + c["SCALAR"] + c["256B"] * 4 + c["512B"] * 8)
            / seconds,
            "AVX DP [MFLOP/s]": 1e-6 * (c["256B"] * 4 + c["512B"] * 8) / seconds,
            "Packed [MUOPS/s]": 1e-6 * (c["128B"] + c["256B"] + c["512B"]) / seconds}


def mpirun_2304_ranks(path: Path) -> Path:
    """Write the 2,304-rank likwid-mpirun run (see the module docstring) to ``path``."""
    real = read_likwid(WRAPPED_RANK)
    table_, events = real.table, real.events
    metrics = list(real.metric_names)
    scale = 963.0794 / T_2304
    hosts = sorted(table_["host"].astype(str).unique())
    columns, event_rows, metric_rows = [], {e: [] for e in events.columns}, {m: [] for m in metrics}
    for h in range(32):
        rows = np.flatnonzero(table_["host"].astype(str).to_numpy() == hosts[h % 3])
        wraps = BROKEN_HOSTS.get(h, (0, 0))
        broken = [2.0 ** 47] * wraps[0] + [2.0 ** 48] * wraps[1]
        for i, row in enumerate(rows):
            source = row if int(table_["rank"].iloc[row]) != 61 else row - 1  # the real wrap
            counts = {e: float(events[e].iloc[source]) for e in events.columns}
            values = {m: float(table_[m].iloc[source]) * (scale if _rates(m) else 1.0)
                      for m in metrics}
            values["Runtime (RDTSC) [s]"] = float(table_["Runtime (RDTSC) [s]"].iloc[source]) / scale
            if i < len(broken):  # this rank's 512-bit counter wrapped
                counts[_PMC3] = broken[i] - 4096.0
                values.update(_dp_metrics(counts, values["Runtime (RDTSC) [s]"]))
            columns.append(f"f{h:04d}:{h * 72 + i}:{i}")
            for e in events.columns:
                event_rows[e].append(f"{counts[e]:.0f}")
            for m in metrics:
                metric_rows[m].append(f"{values[m]:.4f}")
    lines = ["Synthetic: 2,304 ranks made from sample 23 (tests/broken_runs.py)", "Group: 1"]
    lines += table("Event", [(e.split(":")[0], e.split(":")[1], *event_rows[e])
                             for e in events.columns], ["Counter", *columns])
    lines += table("Metric", [(m, *metric_rows[m]) for m in metrics], columns)
    path.write_text("\n".join([HLINE, *lines, ""]))
    return path
