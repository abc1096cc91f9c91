"""rocprof-compute workloads read into runs: samples R1-R3 (an MI200) worked by hand.

Sample R2 (``pmc_perf.csv``): one dispatch (ID 0) of ``vecCopy(double*, double*, double*, int,
int) [clone .kd]`` on GPU 2, from Start_Timestamp 1,411,987,252,061,945 to End_Timestamp
1,411,987,252,082,105 ns: 20,160 ns.  Every FLOP counter (SQ_INSTS_VALU_{ADD,MUL,TRANS,FMA}_F{16,
32,64}, SQ_INSTS_VALU_MFMA_MOPS_*) reads 0: a copy.  By rocprof-compute's formulas:

    HBM  TCC_EA_RDREQ_32B 0 x 32 + (TCC_EA_RDREQ 131,080 - 0) x 64
         + TCC_EA_WRREQ_64B 131,072 x 64 + (TCC_EA_WRREQ 131,072 - 131,072) x 32
         = 8,389,120 + 8,388,608 = 16,777,728 B -> 16,777,728 / 20,160 ns = 832.2286 GB/s
    L2   64 x (TCP_TCC_READ_REQ 131,072 + WRITE_REQ 131,072 + 0 + 0) = 16,777,216 B -> 832.2032 GB/s
    L1   64 x TCP_TOTAL_CACHE_ACCESSES 524,288 = 33,554,432 B -> 1664.406 GB/s
    LDS  4 x lds_banks_per_cu 32 (R3) x (SQ_LDS_IDX_ACTIVE 0 - SQ_LDS_BANK_CONFLICT 0) = 0 B
    FLOP 0 in every precision -> 0 GFLOP/s, 0 FLOP/byte: left out of the points, with the reason

Sample R3 (``sysinfo.csv``): gpu_model MI200, gpu_arch gfx90a, 104 CUs, host t007-002.hpcfund;
the datasheet entry of gfx90a with 104 CUs is the MI210 (one MI250 GCD has the same peaks):
22,600 GFLOP/s FP64 vector, 45,300 MFMA FP64, 1,638.4 GB/s.

Sample R1 (``roofline.csv``), device 0's measured ceilings: HBM 1,388.7638 GB/s, L2 5,016.8418,
L1 9,224.1777, LDS 17,710.416 GB/s; FP64 20,269.176, FP32 20,937.773, MFMA F64 41,485.637 GFLOP/s.

A kernel that does FP64 work (R2's dispatch with SQ_INSTS_VALU_FMA_F64 = 16,384, rendered by
``render_rocprof.py``; everything else R2's): 64 lanes x 2 x 16,384 = 2,097,152 FLOP in 20,160 ns
= 104.0254 GFLOP/s at 16,777,728 B: 0.1249962 FLOP/byte.  Against device 0's roofs: ridge
20,269.176 / 1,388.7638 = 14.595 FLOP/byte, memory bound, attainable 1,388.7638 x 0.1249962 =
173.5901 GFLOP/s, efficiency 104.0254 / 173.5901 = 59.926 % (= 832.2286 / 1,388.7638).
"""

from __future__ import annotations

import gzip
import shutil
import warnings

import numpy as np
import pytest
from render_rocprof import R2, R3, pmc_perf, roofline_row, workload

from roofline_widget import (
    gpu_ceilings,
    left_out_regions,
    points_dataframe,
    read_likwid,
    read_rocprof,
    sample_path,
    sanity_check,
)
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

SECONDS = 20_160e-9
HBM, L2, L1 = 16_777_728, 16_777_216, 33_554_432
FMA_F64 = {"SQ_INSTS_VALU_FMA_F64": "16384"}
DAXPY_FLOP = 64 * 2 * 16_384


def _quiet(read, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LikwidReadWarning)
        return read(*args, **kwargs)


@pytest.fixture(scope="module")
def r2():
    return _quiet(read_rocprof, sample_path(R2))


def _mi200_device0_roofs() -> list:
    """Sample R1's device-0 ceilings as roofs, read with the csv module (independent of the
    package's reader of R1, ``test_roofline_csv.py``)."""
    row = roofline_row("0")
    bandwidth = [BandwidthRoof(f"MI200 {level}", row[f"{column}Bw"], "rocprof-compute roofline.csv",
                               level=level, family="amd")
                 for level, column in (("MEM", "HBM"), ("L2", "L2"), ("L1", "L1"))]
    compute = [ComputeRoof(f"MI200 {name}", row[f"{column}Flops"], "rocprof-compute roofline.csv",
                           precision=precision, family="amd")
               for name, column, precision in (("FP64", "FP64", "DP"), ("FP32", "FP32", "SP"),
                                               ("MFMA F64", "MFMAF64", "MFMA F64"))]
    return compute + bandwidth


def test_r2_copy_kernel_read_by_hand(r2):
    row = r2.table.set_index("region").loc["vecCopy"]
    assert (row["thread"], row["cpu"], row["device"], row["group"]) == ("GPU 2", 2, "gpu", "ROCPROF")
    assert row["host"] == "t007-002.hpcfund"
    assert row["call_count"] == 1
    assert row["runtime_s"] == pytest.approx(SECONDS, rel=1e-12)
    assert row["Memory data volume [GBytes]"] == pytest.approx(HBM * 1e-9, rel=1e-12)
    assert row["L2 data volume [GBytes]"] == pytest.approx(L2 * 1e-9, rel=1e-12)
    assert row["L1 data volume [GBytes]"] == pytest.approx(L1 * 1e-9, rel=1e-12)
    assert row["LDS data volume [GBytes]"] == 0.0
    assert round(row["Memory bandwidth [MBytes/s]"] / 1e3, 4) == 832.2286
    assert round(row["L2 bandwidth [MBytes/s]"] / 1e3, 4) == 832.2032
    assert round(row["L1 bandwidth [MBytes/s]"] / 1e3, 3) == 1664.406
    flops = [m for m in r2.metric_names if m.endswith("[MFLOP/s]")]
    assert flops == ["DP [MFLOP/s]", "SP [MFLOP/s]", "HP [MFLOP/s]", "MFMA F64 [MFLOP/s]",
                     "MFMA F32 [MFLOP/s]", "MFMA F16 [MFLOP/s]", "MFMA BF16 [MFLOP/s]"]
    assert (row[flops] == 0).all()
    assert r2.cpu_name == "AMD MI200 (gfx90a, 104 CUs)"  # R3, found beside R2
    assert r2.layout == "rocprof-compute"
    assert r2.full_names == {
        "vecCopy": "vecCopy(double*, double*, double*, int, int) [clone .kd]"}
    assert r2.events.loc[0, "TCC_EA_RDREQ_sum"] == 131_080


def test_r2_copy_left_out_with_its_reason_never_dropped(r2):
    assert any("'vecCopy': no floating-point instruction in any precision" in note
               for note in r2.warnings)
    with pytest.warns(UserWarning, match="left out"):
        assert points_dataframe(r2).empty
    left = left_out_regions(r2)
    assert left[["region", "reason", "device_family", "device_name"]].values.tolist() == [
        ["vecCopy", "'DP [MFLOP/s]' is zero on every thread", "amd",
         "AMD MI200 (gfx90a, 104 CUs)"]]


def test_r3_names_the_datasheet_entry_and_its_family(tmp_path):
    # a workload without roofline.csv (R2 and R3 only): the datasheet entry of R3's GPU
    run = _quiet(read_rocprof, workload(tmp_path / "MI200"))
    roofs = gpu_ceilings(run, precision=["DP", "MFMA F64"])
    assert [(r.name, r.value, r.family, r.precision) for r in roofs.compute] == [
        ("MI210 MFMA F64 peak", 45_300, "amd", "MFMA F64"), ("MI210 DP peak", 22_600, "amd", "DP")]
    assert [(r.name, r.value, r.level) for r in roofs.bandwidth] == [("MI210 HBM", 1_638.4, "MEM")]


def test_an_fp64_kernel_against_the_mi200_device0_roofs(tmp_path):
    run = _quiet(read_rocprof, workload(tmp_path / "daxpy", FMA_F64))
    assert run.metric_names[0] == "DP [MFLOP/s]"
    assert not [m for m in run.metric_names if m.startswith(("SP", "HP", "MFMA"))]  # unused
    point = points_dataframe(run).iloc[0]
    assert point["performance_gflops"] == pytest.approx(DAXPY_FLOP / SECONDS / 1e9, rel=1e-12)
    assert round(point["performance_gflops"], 4) == 104.0254
    assert point["arithmetic_intensity_flops_per_byte"] == pytest.approx(DAXPY_FLOP / HBM, rel=1e-12)
    assert round(point["arithmetic_intensity_flops_per_byte"], 7) == 0.1249962
    assert (point["device_family"], point["device_name"]) == ("amd", "AMD MI200 (gfx90a, 104 CUs)")
    judged = Roofline.from_ceilings(_mi200_device0_roofs(), points=points_dataframe(run)).classify(
        points_dataframe(run)).iloc[0]
    assert (judged["compute_roof"], judged["bandwidth_roof"]) == ("MI200 FP64", "MI200 MEM")
    assert judged["ridge_flops_per_byte"] == pytest.approx(20_269.176 / 1_388.7638)
    assert judged["bound"] == "memory"
    assert judged["attainable_gflops"] == pytest.approx(1_388.7638 * DAXPY_FLOP / HBM)
    assert round(judged["efficiency_percent"], 3) == 59.926


def test_matrix_work_is_its_own_precision(tmp_path):
    # 100 MFMA F64 MOPS counts: 100 x 512 = 51,200 FLOP, never added to the vector FP64
    run = _quiet(read_rocprof, workload(tmp_path / "mfma", {**FMA_F64,
                                                            "SQ_INSTS_VALU_MFMA_MOPS_F64": "100"}))
    row = run.table.iloc[0]
    assert row["DP [MFLOP/s]"] == pytest.approx(DAXPY_FLOP / SECONDS / 1e6, rel=1e-12)
    assert row["MFMA F64 [MFLOP/s]"] == pytest.approx(51_200 / SECONDS / 1e6, rel=1e-12)
    points = points_dataframe(run, flops_metric="MFMA F64 [MFLOP/s]")
    judged = Roofline.from_ceilings(_mi200_device0_roofs(), points=points).classify(points)
    assert judged["compute_roof"].tolist() == ["MI200 MFMA F64"]
    assert judged["ridge_flops_per_byte"].tolist() == pytest.approx([41_485.637 / 1_388.7638])


def test_the_workloads_own_roofline_csv_comes_before_the_datasheet(tmp_path):
    # R1 beside the counters: gpu_ceilings takes device 0's measured roofs (module docstring),
    # not the MI210's datasheet peaks; the matrix roof is of the kernels' precision "MFMA F64"
    run = _quiet(read_rocprof, workload(tmp_path / "MI200", FMA_F64, {
        **FMA_F64, "Kernel_Name": "dgemm_mfma", "SQ_INSTS_VALU_MFMA_MOPS_F64": "100"},
        roofline=True))
    roofs = gpu_ceilings(run, precision=["DP", "MFMA F64"])
    assert sorted((r.name, r.value, r.precision, r.family) for r in roofs.compute) == [
        ("GPU 0 FP64", 20_269.176, "DP", "amd"), ("GPU 0 MFMA FP64", 41_485.637, "MFMA F64", "amd")]
    assert {r.level: r.value for r in roofs.bandwidth} == {
        "MEM": 1_388.7638, "L2": 5_016.8418, "L1": 9_224.1777, None: 17_710.416}
    assert {r.provenance["gpu"] for r in roofs} == {"0"}
    vector = points_dataframe(run)
    judged = roofs.classify(vector).set_index("region")
    assert judged.loc["vecCopy", "compute_roof"] == "GPU 0 FP64"
    assert judged.loc["vecCopy", "bandwidth_roof"] == "GPU 0 HBM"
    assert round(judged.loc["vecCopy", "efficiency_percent"], 3) == 59.926  # 832.2286 / 1,388.7638
    matrix = _quiet(points_dataframe, run, flops_metric="MFMA F64 [MFLOP/s]")  # vecCopy: none
    assert roofs.classify(matrix)["compute_roof"].tolist() == ["GPU 0 MFMA FP64"]


def test_a_rate_beyond_the_named_gpus_datasheet_is_flagged(tmp_path):
    # R3 names gfx90a with 104 CUs: the MI210 entry, whose largest peak is MFMA F16, 181,000
    # GFLOP/s; the bound is 1.5 x 181,000 = 271,500 GFLOP/s (50,000,000 GFLOP/s for a GPU the
    # table does not hold).  SQ_INSTS_VALU_FMA_F64 = 50,000,000: 64 lanes x 2 x 5e7 = 6.4e9 FLOP
    # in 20,160 ns = 317,460.3 GFLOP/s, beyond the MI210 but far below 50 PFLOP/s.
    broken = _quiet(read_rocprof, workload(tmp_path / "broken", {"SQ_INSTS_VALU_FMA_F64": "50000000"}))
    points = points_dataframe(broken)
    assert points["performance_gflops"].iloc[0] == pytest.approx(6.4e9 / SECONDS / 1e9)
    assert points["thread_limit_gflops"].tolist() == [271_500.0]
    findings = sanity_check(broken)
    beyond = findings[findings["check"] == "beyond hardware"]
    assert len(beyond) == 1
    assert ("beyond what one GPU can do (at most 271,500 GFLOP/s: 1.5 x 181,000 GFLOP/s, the "
            "MI210's MFMA F16 peak") in beyond["detail"].iloc[0]
    # the FP64 kernel of the module docstring (104.0254 GFLOP/s) is well within it
    fine = _quiet(read_rocprof, workload(tmp_path / "fine", FMA_F64))
    assert (sanity_check(fine)["check"] != "beyond hardware").all()


def test_launches_combine_dispatches_of_one_kernel(tmp_path):
    later = {**FMA_F64, "Dispatch_ID": "1", "Start_Timestamp": "1411987252100000",
             "End_Timestamp": "1411987252140320"}  # 40,320 ns
    run = _quiet(read_rocprof, workload(tmp_path / "two", FMA_F64, later))
    row = run.table.iloc[0]
    assert row["call_count"] == 2
    assert row["runtime_s"] == pytest.approx(60_480e-9, rel=1e-12)
    assert row["DP [MFLOP/s]"] == pytest.approx(2 * DAXPY_FLOP / 60_480e-9 / 1e6, rel=1e-12)
    mean = _quiet(read_rocprof, tmp_path / "two", launches="mean").table.iloc[0]
    assert mean["DP [MFLOP/s]"] == pytest.approx(
        (DAXPY_FLOP / 20_160e-9 + DAXPY_FLOP / 40_320e-9) / 2 / 1e6, rel=1e-12)
    each = _quiet(read_rocprof, tmp_path / "two", launches="each")
    assert each.regions == ["vecCopy, launch 0", "vecCopy, launch 1"]


def test_read_likwid_takes_a_folder_a_file_and_cpu_output_together(tmp_path):
    folder = workload(tmp_path / "MI200", FMA_F64)
    with pytest.warns(LikwidReadWarning):
        run = read_likwid([sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"),
                           folder])
    assert run.layout == "perfctr-text / rocprof-compute"
    points = points_dataframe(run).set_index("region")
    assert points.loc["vecCopy", "device"] == "gpu"
    assert points.loc["<function_a>", "device"] == "cpu"
    # one run merged from three layouts: each row's family from its group (ROCPROF, NCU)
    with pytest.warns(LikwidReadWarning):
        merged = read_likwid([sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"),
                              sample_path("ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"),
                              folder])
    families = points_dataframe(merged).groupby("device_family", observed=True)["region"].count()
    assert families.to_dict() == {"amd": 1, "cpu": 5, "nvidia": 3}
    alone = _quiet(read_likwid, folder / "pmc_perf.csv")
    assert alone.cpu_name == "AMD MI200 (gfx90a, 104 CUs)"


def test_sysinfo_given_or_missing(tmp_path):
    path = tmp_path / "pmc_perf.csv"
    path.write_text(pmc_perf(FMA_F64))
    with pytest.warns(LikwidReadWarning, match="no sysinfo.csv beside pmc_perf.csv"):
        run = read_rocprof(path)
    assert run.cpu_name is None
    assert "LDS bandwidth [MBytes/s]" not in run.metric_names
    run = _quiet(read_rocprof, path, sysinfo=sample_path(R3))
    assert run.cpu_name == "AMD MI200 (gfx90a, 104 CUs)"
    packed = tmp_path / "pmc_perf.csv.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert np.array_equal(_quiet(read_rocprof, packed, sysinfo=sample_path(R3)).table[
        run.metric_names].to_numpy(), run.table[run.metric_names].to_numpy())


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("Dispatch_ID,Kernel_Name,GPU_ID\n0,k,0\n", 1, "Start_Timestamp"),
    ("Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n", 2, "at least one kernel dispatch"),
    ("Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n0,k,1\n", 2, "a row of 4 cells"),
    ("Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp,TCC_EA_RDREQ_sum\n0,k,1,2,12a\n", 2,
     "a number in column 'TCC_EA_RDREQ_sum'"),
    ("Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp\n0.5,k,1,2\n", 2, "an integer"),
])
def test_bad_pmc_perf_names_file_line_and_expectation(tmp_path, text, line, expected):
    path = tmp_path / "pmc_perf.csv"
    path.write_text(text)
    shutil.copyfile(sample_path(R3), tmp_path / "sysinfo.csv")
    with pytest.raises(LikwidFormatError, match=rf"pmc_perf.csv, line {line}: .*{expected}"):
        read_rocprof(path)


def test_an_empty_file_is_refused(tmp_path):
    (tmp_path / "pmc_perf.csv").write_text("")
    with pytest.raises(LikwidFormatError, match=r"pmc_perf\.csv: expected rocprof-compute "
                       r"pmc_perf\.csv, found 'an empty file'"):
        read_rocprof(tmp_path)


def test_a_folder_without_counters_is_refused(tmp_path):
    with pytest.raises(LikwidFormatError, match=r"a rocprof-compute workload folder with "
                       r"pmc_perf\.csv"):
        read_rocprof(tmp_path)
