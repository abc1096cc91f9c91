"""Nsight Compute exports of other ncu versions and counters: samples N2 and N3 worked by hand.

Sample N2 (``tests/data/gpt2_ampere_ncu_old_header_thousands.csv``, GPT-2 attention on an Ampere
GPU): a details page with ``"Kernel Time"`` and trailing ``"Rule Name","Rule Type","Rule
Description"`` columns that its 1,560 metric rows leave out (13 cells under a header of 15; the
52 rule rows have all 15), thousands separators, no ``gpu__time_duration.sum``, no device name.
Kernel ``ampere_sgemm_128x32_tn``, launches 6, 10 and 14, from their rows:

    FLOP (SP) per launch  fadd 0 + fmul 589,824 + 2 x ffma 37,748,736 = 76,087,296; x 3 = 228,261,888
    (dadd/dmul/dfma and hadd/hmul/hfma read 0)
    time   18,133.20 / 1,022,856,707.11 + 18,279.81 / 1,027,417,649.21
           + 18,166.22 / 1,034,051,811.37 = 5.30879895e-5 s
    DRAM   2,556,672 + 2,556,544 + 2,556,160 = 7,669,376 B
    L2     15,016,160 + 15,005,920 + 15,119,776 = 45,141,856 B
    -> 4299.690 GFLOP/s, 144.4654 GB/s, intensity 228,261,888 / 7,669,376 = 29.76277 FLOP/byte

No kernel of N2 did DP work (every d* counter reads 0), so the run has no DP metric and the
default plot is single precision.

Sample N3 (``roofline_widget/data/ncu/gemm_cc80_ncu_smsp_counters.csv``, hand-written GEMMs on a
compute capability 8.0 GPU): the SM sub-partitions' counters (``smsp__...``), ``"Block Size",
"Grid Size","Device","CC"`` columns, no ``"Kernel Time"``.  Kernel ``gemm_v0`` (launch 2):

    FLOP (SP)  2 x ffma 34,359,738,368,000 = 68,719,476,736,000 (fadd, fmul 0)
    FLOP (HP)  2 x hfma 3,355,443,200 = 6,710,886,400 (hadd, hmul 0)
    time       28,293,058,736.76 / 764,999,997.55 = 36.98439062 s
    DRAM       4,394,965,922,944 B; L2 13,077,104,026,080 B; L1 171,805,402,726,400 B
    -> SP 1858.067 GFLOP/s, HP 0.1814519 GFLOP/s, 118.8330 GB/s,
       SP intensity 15.63595, HP intensity 0.001526948 FLOP/byte
    tensor pipe 104,857,600 instructions: x 512 FLOP = 53,687,091,200 -> 1.451615 GFLOP/s
    as Tensor [MFLOP/s] (a hand-written GEMM: hardly any tensor work)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from wild_samples import DATA

from roofline_widget import gpu_ceilings, points_dataframe, read_likwid, read_ncu, sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.roofs.roofline import ComputeRoof, Roofline

N2 = DATA / "gpt2_ampere_ncu_old_header_thousands.csv"
N3 = "ncu/gemm_cc80_ncu_smsp_counters.csv"

N2_SECONDS = (18_133.20 / 1_022_856_707.11 + 18_279.81 / 1_027_417_649.21
              + 18_166.22 / 1_034_051_811.37)
N2_FLOP = 3 * (589_824 + 2 * 37_748_736)
N3_SECONDS = 28_293_058_736.76 / 764_999_997.55
N3_SP, N3_HP = 2 * 34_359_738_368_000, 2 * 3_355_443_200
N3_DRAM = 4_394_965_922_944


def _quiet(read, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LikwidReadWarning)
        return read(*args, **kwargs)


@pytest.fixture(scope="module")
def n2():
    return _quiet(read_ncu, N2)


@pytest.fixture(scope="module")
def n3():
    return _quiet(read_ncu, sample_path(N3))


def test_n2_rule_columns_left_out_by_metric_rows_read_by_hand(n2):
    row = n2.table.set_index("region").loc["ampere_sgemm_128x32_tn"]
    assert row["call_count"] == 3
    assert row["runtime_s"] == pytest.approx(N2_SECONDS, rel=1e-12)
    assert row["SP [MFLOP/s]"] == pytest.approx(N2_FLOP / N2_SECONDS / 1e6, rel=1e-12)
    assert row["HP [MFLOP/s]"] == 0.0
    assert row["Memory data volume [GBytes]"] == pytest.approx(7_669_376e-9, rel=1e-12)
    assert row["L2 data volume [GBytes]"] == pytest.approx(45_141_856e-9, rel=1e-12)
    assert round(row["SP [MFLOP/s]"] / 1e3, 3) == 4299.690
    assert round(row["Memory bandwidth [MBytes/s]"] / 1e3, 4) == 144.4654
    # no kernel did DP work: no DP metric, and the reader says why
    assert "DP [MFLOP/s]" not in n2.metric_names
    assert any("no launch did DP work" in note for note in n2.warnings)
    assert n2.cpu_name is None  # N2 names no device
    assert len(n2.regions) == 13
    assert n2.layout == "ncu-details"


def test_n2_points_default_to_single_precision(n2):
    points = points_dataframe(n2).set_index("region")
    sgemm = points.loc["ampere_sgemm_128x32_tn"]
    assert sgemm["flops_metric"] == "SP [MFLOP/s]"
    assert sgemm["performance_gflops"] == pytest.approx(4299.690, abs=5e-4)
    assert sgemm["bandwidth_gbs"] == pytest.approx(144.4654, abs=5e-5)
    assert sgemm["arithmetic_intensity_flops_per_byte"] == pytest.approx(
        N2_FLOP / 7_669_376, rel=1e-12)
    assert (sgemm["device"], sgemm["device_family"], sgemm["device_name"]) == ("gpu", "nvidia", "")


def test_n2_tensor_pipe_named_never_counted(n2):
    note = next(n for n in n2.warnings if "sm__inst_executed_pipe_tensor.sum" in n)
    assert "5 kernel(s) used the tensor cores" in note
    assert "softmax_warp_forward" in note
    assert "Tensor [MFLOP/s]" in note
    assert not [m for m in n2.metric_names if m.startswith("Tensor")]


def test_n3_smsp_counters_read_by_hand(n3):
    row = n3.table.set_index("region").loc["gemm_v0"]
    assert row["call_count"] == 1
    assert row["thread"] == "GPU 0"
    assert row["runtime_s"] == pytest.approx(N3_SECONDS, rel=1e-12)
    assert row["SP [MFLOP/s]"] == pytest.approx(N3_SP / N3_SECONDS / 1e6, rel=1e-12)
    assert row["HP [MFLOP/s]"] == pytest.approx(N3_HP / N3_SECONDS / 1e6, rel=1e-12)
    assert round(row["SP [MFLOP/s]"] / 1e3, 3) == 1858.067
    assert round(row["HP [MFLOP/s]"] / 1e3, 7) == 0.1814519
    assert round(row["Memory bandwidth [MBytes/s]"] / 1e3, 4) == 118.8330
    assert row["L2 data volume [GBytes]"] == pytest.approx(13_077_104_026_080e-9, rel=1e-12)
    assert row["L1 data volume [GBytes]"] == pytest.approx(171_805_402_726_400e-9, rel=1e-12)
    assert "DP [MFLOP/s]" not in n3.metric_names  # every d* counter reads 0
    assert n3.cpu_name == "NVIDIA GPU (compute capability 8.0)"
    # randomInit: two launches of 2 x 838,860,800 SP FLOP each
    init = n3.table.set_index("region").loc["randomInit"]
    seconds = 5_143_174_222.52 / 764_999_989.86 + 5_130_416_098.28 / 764_999_992.73
    assert init["call_count"] == 2
    assert init["SP [MFLOP/s]"] == pytest.approx(2 * 2 * 838_860_800 / seconds / 1e6, rel=1e-12)


def test_n3_tensor_work_is_its_own_precision_and_roof():
    run = _quiet(read_ncu, sample_path(N3), tensor_flop_per_instruction=512)
    row = run.table.set_index("region").loc["gemm_v0"]
    assert row["Tensor [MFLOP/s]"] == pytest.approx(104_857_600 * 512 / N3_SECONDS / 1e6,
                                                    rel=1e-12)
    assert round(row["Tensor [MFLOP/s]"] / 1e3, 6) == 1.451615
    tensor = points_dataframe(run, flops_metric="Tensor [MFLOP/s]").set_index("region")
    # judged against no vector roof: without a tensor roof the point says which it lacks
    roofs = gpu_ceilings(gpu="A100-SXM4-40GB", precision=["DP", "SP"])
    judged = Roofline.from_ceilings(roofs, points=tensor).classify(tensor)
    assert set(judged["bound"]) == {"no Tensor compute roof"}
    assert judged["compute_roof"].eq("").all()


def test_n3_each_precision_its_own_point_and_roof(n3):
    sp = points_dataframe(n3, flops_metric="SP [MFLOP/s]")
    hp = points_dataframe(n3, flops_metric="HP [MFLOP/s]")
    points = pd.concat([sp, hp], ignore_index=True)
    gemm = points[points["region"] == "gemm_v0"].set_index("flops_metric")
    assert gemm.loc["SP [MFLOP/s]", "arithmetic_intensity_flops_per_byte"] == pytest.approx(
        N3_SP / N3_DRAM, rel=1e-12)
    assert gemm.loc["HP [MFLOP/s]", "arithmetic_intensity_flops_per_byte"] == pytest.approx(
        N3_HP / N3_DRAM, rel=1e-12)
    # the A100's SP datasheet peak and a user's HP peak: each point against its own precision
    roofs = [*gpu_ceilings(gpu="A100-SXM4-40GB", precision="SP"),
             ComputeRoof("A100 HP peak (user)", 78_000.0, device="gpu", precision="HP",
                         family="nvidia")]
    judged = Roofline.from_ceilings(roofs, points=points).classify(points)
    gemm = judged[judged["region"] == "gemm_v0"].set_index("flops_metric")
    assert gemm.loc["SP [MFLOP/s]", "compute_roof"] == "A100-SXM4-40GB SP peak"
    assert gemm.loc["HP [MFLOP/s]", "compute_roof"] == "A100 HP peak (user)"
    assert gemm.loc["SP [MFLOP/s]", "ridge_flops_per_byte"] == pytest.approx(19_500 / 1_555)
    assert gemm.loc["HP [MFLOP/s]", "ridge_flops_per_byte"] == pytest.approx(78_000 / 1_555)
    # SP intensity 15.636 is past its ridge 12.54: compute bound, at 1858.067 / 19500 = 9.53 %
    assert gemm.loc["SP [MFLOP/s]", "bound"] == "compute"
    assert gemm.loc["SP [MFLOP/s]", "efficiency_percent"] == pytest.approx(
        100 * N3_SP / N3_SECONDS / 1e9 / 19_500, rel=1e-9)
    assert gemm.loc["HP [MFLOP/s]", "bound"] == "memory"


PREAMBLE = ('==PROF== Connected to process 1984564 (/home/u/gemm/profile)\n'
            '==PROF== Profiling "randomInit" - 0: 0%....50%....100% - 9 passes\n'
            '==WARNING== Backing up device memory in system memory. Kernel replay might be slow.\n'
            '==ERROR== Failed to profile "gemm_v1" in process 1984564\n'
            '==PROF== Trying to shutdown target application\n')


def test_prof_error_warning_lines_kept_as_notes_failed_kernel_left_out(tmp_path):
    path = tmp_path / "gemm_failed.csv"
    path.write_text(PREAMBLE + open(sample_path(N3), encoding="utf-8").read())
    with pytest.warns(LikwidReadWarning, match="'gemm_v1' .process 1984564. failed to profile"):
        run = read_likwid(path)
    notes = "\n".join(run.warnings)
    assert "line 4: kernel 'gemm_v1' (process 1984564) failed to profile: left out" in notes
    assert "Backing up device memory" in notes
    assert "Trying to shutdown" in notes
    assert "Connected to process" not in notes
    assert "Profiling \"randomInit\"" not in notes
    # the kernels of the export read as without the preamble
    intact = _quiet(read_ncu, sample_path(N3)).table
    # (their lines 5 further down)
    assert (run.table["line"] - intact["line"]).eq(5).all()
    pd.testing.assert_frame_equal(run.table.drop(columns=["source", "line"]),
                                  intact.drop(columns=["source", "line"]))


def test_a_row_may_leave_out_only_the_rule_columns(tmp_path):
    lines = N2.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0]
    # a metric row without its "Metric Value" (12 cells) is no rule row left short
    cut = lines[1].rstrip("\n").rsplit(",", 2)[0] + "\n"
    path = tmp_path / "short.csv"
    path.write_text(header + cut + "".join(lines[2:40]))
    with pytest.raises(LikwidFormatError, match=r"line 2: expected a row of 12 to 15 cells \(the "
                       r"rule columns may be left out\) like the header of line 1, found '11 cells'"):
        read_ncu(path)
    wider = lines[1].rstrip("\n") + ',"x","y","z"\n'
    path.write_text(header + wider)
    with pytest.raises(LikwidFormatError, match="found '16 cells'"):
        read_ncu(path)


def test_n3_device_family_reaches_points_and_roofs(n3):
    points = points_dataframe(n3)
    assert set(points["device_family"]) == {"nvidia"}
    assert set(points["device_name"]) == {"NVIDIA GPU (compute capability 8.0)"}
    roofs = gpu_ceilings(gpu="A100-SXM4-40GB", precision="SP")
    assert {r.family for r in roofs} == {"nvidia"}
    assert np.isfinite(Roofline.from_ceilings(roofs, points=points).classify(points)[
        "efficiency_percent"]).all()
