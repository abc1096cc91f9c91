"""Real batch-job logs: other tools' output before the measurement is passed over (issue 9, item 1)."""

from __future__ import annotations

import pytest
from likwid_render import bench, topology

from roofline_widget import points_dataframe, read_likwid, sample_path

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
    """Issue 9, item 5: one clear TypeError, not 'NoneType is not iterable'."""
    with pytest.raises(TypeError, match="read_likwid takes a path .* got (NoneType|bytes|int)"):
        read_likwid(argument)


def test_a_list_as_metric_name_is_refused_by_name():
    with pytest.raises(TypeError, match=r"flops_metric must be one metric name \(str\) or None, got list"):
        points_dataframe(GIVE, flops_metric=["DP [MFLOP/s]"])
    with pytest.raises(TypeError, match="bandwidth_metric must be one metric name"):
        points_dataframe(GIVE, bandwidth_metric=3)
