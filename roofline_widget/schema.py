"""Column names and keys of every table the package builds, written once.

The per-thread table of a run (:data:`KEY_COLUMNS`, then one column per
metric), the per-(run, rank, region, device) sums (:data:`FRAME_KEYS`), the
points (:data:`POINT_COLUMNS`, whose first columns are scope-profiler 0.7.5's
point dict keys :data:`POINT_KEYS`) and the regions left out
(:data:`LEFT_OUT_COLUMNS`).  Code that reads or writes one of these columns
uses the names here (``points[schema.INTENSITY]``), so a rename is one edit.
"""

from __future__ import annotations

__all__ = [
    "ALL_RANKS",
    "BANDWIDTH",
    "FRAME_KEYS",
    "GROUP_RANKS_CHOICES",
    "INTENSITY",
    "KEY_COLUMNS",
    "LEFT_OUT_COLUMNS",
    "PERFORMANCE",
    "POINT_COLUMNS",
    "POINT_KEYS",
    "RUNTIME",
    "SOURCE_KEYS",
    "STUDY_KEYS",
]

#: Attained performance of a point, GFLOP/s (the sum over its threads).
PERFORMANCE = "performance_gflops"
#: Memory traffic of a point, GB/s (the sum over its threads).
BANDWIDTH = "bandwidth_gbs"
#: Arithmetic intensity of a point, FLOP/byte: :data:`PERFORMANCE` / :data:`BANDWIDTH`.
INTENSITY = "arithmetic_intensity_flops_per_byte"
#: Runtime of a point, seconds (the largest over its threads).
RUNTIME = "runtime_seconds"

#: The key columns of :attr:`LikwidRun.table`, in order.  Metric columns follow.
KEY_COLUMNS = (
    "source",       # file the row was read from (category)
    "line",         # 1-based line of the region block's header in that file
    "rank",         # MPI rank (0 when the output has no ranks)
    "region",       # marker region tag, exactly as printed (category)
    "group_index",  # LIKWID group id ("Group 2")
    "group",        # group name (MEM_DP, FLOPS_DP, Custom, ...) (category)
    "thread",       # column header as printed: "HWThread 3", "Core 0", "GPU 1", "host:2:8"
    "host",         # host name from likwid-mpirun headers, "" otherwise (category)
    "cpu",          # OS id of the hardware thread (or GPU id), -1 if unknown
    "device",       # "cpu" or "gpu" (category)
    "call_count",   # region call count (float, NaN if not printed)
    "runtime_s",    # region runtime of this thread in seconds (NaN if unknown)
)

#: The key columns every sums engine gives, in order, one value per (rank, region, device).
SOURCE_KEYS = ("rank", "region", "device", "n_threads", "runtime_s", "call_count", "groups")
#: The key columns of ``RegionSums.frame``: the run label ``file``, then :data:`SOURCE_KEYS`,
#: then ``run``: the run's 1-based number in its file (1 unless the file holds several runs).
FRAME_KEYS = ("file", *SOURCE_KEYS, "run")
#: The ``rank`` of a point that sums every rank of its run (``group_ranks``; always with
#: ``"all"``); a point summing part of them (one socket or host of several) has its lowest
#: rank.  Its ``rank_group`` column names the ranks either way.
ALL_RANKS = -1

#: What sets a study's runs apart, in this order (``analysis.study_keys``): a sweep's runs are
#: grouped by these (``group_runs_by``).
STUDY_KEYS = ("threads", "ranks", "size", "case")

#: The values of the ``group_ranks=`` option: which ranks a point sums
#: (:mod:`roofline_widget.points.rank_groups` has the rule).
GROUP_RANKS_CHOICES = ("auto", "rank", "socket", "host", "all")

#: Keys of one point dict, exactly as scope-profiler 0.7.5 returns them.
POINT_KEYS = (
    "file", "region", "rank", PERFORMANCE, BANDWIDTH, INTENSITY, RUNTIME, "flops_metric",
    "bandwidth_metric",
)
#: Columns of a points DataFrame (``points_dataframe``): :data:`POINT_KEYS`, then what a dict lacks.
#: ``device_family`` is ``"cpu"``, ``"nvidia"``, ``"amd"`` or ``"gpu"`` (vendor unknown),
#: ``device_name`` the CPU's or GPU's name as the data gives it (``""``: not given).
POINT_COLUMNS = (*POINT_KEYS, "device", "device_family", "device_name", "n_threads", "call_count",
                 "groups", "unmeasured_threads", "run", "rank_group", "thread_max_gflops",
                 "thread_max_gbs", "thread_limit_gflops")
#: Columns of the left-out table (``left_out_regions``).
LEFT_OUT_COLUMNS = ("file", "region", "rank", "reason", "device", "device_family", "device_name",
                    "groups", "run", "rank_group")
