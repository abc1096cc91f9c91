"""Real batch-job logs: other tools' output before the measurement is passed over."""

from __future__ import annotations

import warnings

import pytest
from likwid_render import HLINE, bench, topology

from roofline_widget import points_dataframe, read_likwid, sample_path
from roofline_widget.io.bench import read_likwid_bench
from roofline_widget.io.topology import CacheLevel

GIVE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")

LSCPU = """\
Architecture:            x86_64
CPU(s):                  8
Model name:              Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz
"""


def _log(tmp_path, before: str) -> str:
    path = tmp_path / "slurm-123.out"
    with open(GIVE, encoding="utf-8") as sample:
        path.write_text(before + sample.read(), encoding="utf-8")
    return str(path)


def test_topology_lscpu_bench_and_app_output_before_the_tables(tmp_path):
    before = ("+ module load likwid/5.2\n" + LSCPU + topology()
              + bench("triad_avx", 4, mflops=1200.0, mbytes=14400.0, size_per_thread=250_000_000)
              + "# Cores: 16\n" + "application line\n" * 50_000)
    run = read_likwid(_log(tmp_path, before))
    alone = points_dataframe(GIVE)
    in_log = points_dataframe(run)
    # the same two regions and the same sums as the measurement alone (1950.0623 MFLOP/s in Setup)
    assert list(in_log["region"]) == ["Setup", "Solve"]
    assert in_log["performance_gflops"].tolist() == alone["performance_gflops"].tolist()
    assert in_log["bandwidth_gbs"].tolist() == alone["bandwidth_gbs"].tolist()
    assert in_log["performance_gflops"].iloc[0] * 1000 == pytest.approx(1950.0623)


def test_measurement_after_more_than_two_megabytes_of_output(tmp_path):
    run = read_likwid(_log(tmp_path, "x" * 80 + "\n" * 1 + ("y" * 99 + "\n") * 30_000))
    assert run.regions == ["Setup", "Solve"]


@pytest.mark.parametrize("argument", [None, b"/path", 12, [GIVE, None]])
def test_read_likwid_names_what_it_takes(argument):
    """one clear TypeError, not 'NoneType is not iterable'."""
    with pytest.raises(TypeError, match=r"read_likwid takes a path .* got (NoneType|bytes|int)"):
        read_likwid(argument)


def test_a_list_as_metric_name_is_refused_by_name():
    with pytest.raises(TypeError, match=r"flops_metric must be one metric name \(str\) or None, got list"):
        points_dataframe(GIVE, flops_metric=["DP [MFLOP/s]"])
    with pytest.raises(TypeError, match="bandwidth_metric must be one metric name"):
        points_dataframe(GIVE, bandwidth_metric=3)


# likwid-perfctr -a (the group list: name right-aligned, a tab, the description) and
# likwid-bench -a (one "kernel - description" line per benchmark), as LIKWID 5 prints them.
PERFCTR_A = "\n".join([
    "    Group name\tDescription", HLINE,
    "        BRANCH\tBranch prediction miss rate/ratio",
    "        CACHES\tCache bandwidth in MBytes/s",
    "      FLOPS_DP\tDouble Precision MFLOP/s",
    "           MEM\tMain memory bandwidth in MBytes/s",
    "        MEM_DP\tOverview of arithmetic and main memory performance", ""])
BENCH_A = "\n".join([
    "clcopy - Double-precision cache line copy, only touches first element of each cache line.",
    "copy - Double-precision vector copy, only scalar operations",
    "stream_mem_avx_fma - Double-precision stream triad A(i) = B(i)*c + C(i), optimized for "
    "AVX FMAs, uses non-temporal stores",
    "triad_avx - Double-precision triad A(i) = B(i) * C(i) + D(i), optimized for AVX", ""])


def test_job_log_with_lscpu_topology_group_and_kernel_lists_around_the_measurement(tmp_path):
    """a whole batch job's log; the measurement, the topology and the bench result read."""
    with open(GIVE, encoding="utf-8") as sample:
        measurement = sample.read()
    log = tmp_path / "slurm-4711.out"
    log.write_text(
        "+ module load likwid/5.2\n+ lscpu\n" + LSCPU + "+ likwid-topology\n" + topology()
        + "+ likwid-perfctr -a\n" + PERFCTR_A
        + "+ likwid-perfctr -C S0:0-3 -g MEM_DP -m ./gmgpolar\n" + "GMGPolar: setup done\n"
        + measurement
        + "+ likwid-bench -a\n" + BENCH_A
        + "+ likwid-bench -t triad_avx -W S0:1GB:4\n"
        + bench("triad_avx", 4, mflops=1200.0, mbytes=14400.0, size_per_thread=250_000_000)
        + "+ exit 0\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing of this log is worth a warning
        run = read_likwid(log)
    # the measurement: the same rows and sums as the sample alone
    alone = read_likwid(GIVE)
    assert run.regions == ["Setup", "Solve"]
    assert len(run) == len(alone) == 8
    assert run.table.drop(columns=["source", "line"]).equals(alone.table.drop(columns=["source", "line"]))
    in_log = points_dataframe(run)
    assert in_log["performance_gflops"].tolist() == points_dataframe(GIVE)["performance_gflops"].tolist()
    assert in_log["performance_gflops"].iloc[0] * 1000 == pytest.approx(1950.0623)
    # what likwid-topology printed: 2 sockets x 4 cores, 1 thread per core, L1 32 kB, L2 1 MB
    # per core, L3 16 MB shared by 4 hardware threads (binary units)
    topo = run.topology
    assert (topo.sockets, topo.cores_per_socket, topo.threads_per_core) == (2, 4, 1)
    assert topo.caches[2] == CacheLevel(3, 16 * 2**20, 4, ((0, 1, 2, 3), (4, 5, 6, 7)))
    assert [c.size_bytes for c in topo.caches] == [32 * 1024, 2**20, 16 * 2**20]
    assert topo.socket_of(5) == 1
    assert topo.cpu_name == "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz"
    assert topo.source == str(log)
    # the likwid-bench result after the measurement is read by read_likwid_bench from the same log
    (result,) = read_likwid_bench(log)
    assert (result.kernel, result.threads, result.gbs, result.gflops) == ("triad_avx", 4, 14.4, 1.2)


def test_a_file_without_likwid_topology_has_no_topology():
    assert read_likwid(GIVE).topology is None


def test_topology_survives_merging_two_files(tmp_path):
    mem = _log(tmp_path, topology(sockets=1, cores=4))
    flops = sample_path("gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt")
    run = read_likwid([flops, mem])
    assert run.topology is not None
    assert run.topology.sockets == 1


def test_damaged_topology_block_is_a_warning_not_an_error(tmp_path):
    broken = topology().replace("Sockets:\t\t2", "Sockets:\t\ttwo")
    with pytest.warns(UserWarning, match=r"likwid-topology output not read .*an integer after 'Sockets:'"):
        run = read_likwid(_log(tmp_path, broken))
    assert run.topology is None
    assert run.regions == ["Setup", "Solve"]
