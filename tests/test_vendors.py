"""CPU regions, NVIDIA kernels and AMD kernels on one plot, each judged against its own device's roofs.

Points: sample 5 (five LIKWID CPU regions, AMD EPYC 7702), sample N1 (three Nsight Compute kernels
on a V100) and an AMD kernel: sample R2's dispatch with 16,384 FP64 FMA wavefront instructions
(``render_rocprof.py``; R2 itself is a copy, which no roofline places), beside sample R3.  Roofs:
the EPYC 7702 spec sheet (2048 GFLOP/s, 204.8 GB/s), the V100-SXM2 datasheet (7800, 900) and the
MI210 datasheet entry of R3's GPU (gfx90a, 104 CUs: 22,600, 1638.4).

By hand: the AMD kernel does 2,097,152 FLOP in 20,160 ns on 16,777,728 HBM bytes: 104.0254
GFLOP/s, 832.2286 GB/s, 0.1249962 FLOP/byte; against the MI210's roofs (ridge 22,600 / 1638.4 =
13.79) memory bound at 832.2286 / 1638.4 = 50.795 %.  Judged against the V100's it would read
832.2286 / 900 = 92.47 %: the family keeps it from that.  ``kernel_assign_6 #1``: 739.3126 / 900 =
82.146 % of the V100's HBM.
"""

from __future__ import annotations

import warnings

import pytest
from render_rocprof import workload

from roofline_widget import (
    gpu_ceilings,
    plot_roofline,
    points_dataframe,
    read_likwid,
    read_rocprof,
    sample_path,
)
from roofline_widget.errors import LikwidReadWarning
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

CPU_ROOFS = [ComputeRoof("EPYC 7702 DP peak", 2048.0, "spec sheet", device="cpu", precision="DP"),
             BandwidthRoof("EPYC 7702 DRAM", 204.8, "spec sheet", level="MEM", device="cpu")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = workload(tmp_path_factory.mktemp("amd") / "MI200", {"SQ_INSTS_VALU_FMA_F64": "16384"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LikwidReadWarning)
        return [read_likwid(sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")),
                read_likwid(sample_path("ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv")),
                read_rocprof(folder)]


@pytest.fixture(scope="module")
def roofs(runs):
    return [*CPU_ROOFS, *gpu_ceilings(gpu="V100-SXM2"), *gpu_ceilings(runs[2])]


def test_each_point_against_its_own_family_roofs(runs, roofs):
    points = points_dataframe(runs)
    judged = Roofline.from_ceilings(roofs, points=points).classify(points).set_index("region")
    amd = judged.loc["vecCopy"]
    assert (amd["device_family"], amd["device_name"]) == ("amd", "AMD MI200 (gfx90a, 104 CUs)")
    assert (amd["compute_roof"], amd["bandwidth_roof"]) == ("MI210 DP peak", "MI210 HBM")
    assert amd["ridge_flops_per_byte"] == pytest.approx(22_600 / 1_638.4)
    assert round(amd["efficiency_percent"], 3) == 50.795
    nvidia = judged.loc["kernel_assign_6 #1"]
    assert nvidia["device_family"] == "nvidia"
    assert (nvidia["compute_roof"], nvidia["bandwidth_roof"]) == ("V100-SXM2 DP peak",
                                                                  "V100-SXM2 HBM")
    assert round(nvidia["efficiency_percent"], 3) == 82.146
    by_family = judged.groupby("device_family", observed=True)["compute_roof"].unique()
    assert {family: sorted(names) for family, names in by_family.items()} == {
        "amd": ["MI210 DP peak"], "cpu": ["EPYC 7702 DP peak"], "nvidia": ["V100-SXM2 DP peak"]}


def test_a_family_roof_serves_only_its_family():
    amd = ComputeRoof("MI210 DP", 22_600.0, family="amd")
    assert amd.device == "gpu"  # the family gives the device
    assert amd.serves("gpu", "amd")
    assert not amd.serves("gpu", "nvidia")
    assert not amd.serves("cpu", "cpu")
    assert amd.serves("gpu", "gpu")  # a GPU of unknown vendor (a LIKWID GPU group): any GPU's
    with pytest.raises(ValueError, match="roof 'x' of family 'amd' bounds gpu points, not cpu"):
        ComputeRoof("x", 1.0, device="cpu", family="amd")
    with pytest.raises(ValueError, match="family of roof 'x' must be one of"):
        BandwidthRoof("x", 1.0, family="intel")


def test_a_family_without_roofs_is_not_judged_by_another_familys(runs):
    points = points_dataframe(runs)
    judged = Roofline.from_ceilings([*CPU_ROOFS, *gpu_ceilings(gpu="V100-SXM2")],
                                    points=points).classify(points).set_index("region")
    # the AMD kernel gets its own empirical roofs, never the V100's
    assert judged.loc["vecCopy", "compute_roof"] == "GPU empirical peak"
    assert judged.loc["kernel_assign_6 #1", "compute_roof"] == "V100-SXM2 DP peak"


def test_one_roofline_per_family_each_slope_to_its_own_peak(runs, roofs, tmp_path):
    payload = plot_roofline(runs, ceilings=roofs, filepath=tmp_path / "three.png", verbose=False)
    lines = {line["label"]: line for line in payload["lines"]}
    assert [label for label, line in lines.items() if line["kind"] == "roof"] == [
        "AMD GPU roofline (MEM, ridge at 13.79 FLOP/byte)",
        "NVIDIA GPU roofline (MEM, ridge at 8.667 FLOP/byte)",
        "CPU roofline (MEM, ridge at 10 FLOP/byte)"]
    slopes = {line["name"]: line for line in payload["lines"] if line["kind"] == "bandwidth"}
    # each HBM slope ends at its own family's ridge: 22,600 / 1638.4 and 7800 / 900
    assert slopes["MI210 HBM"]["x"][-1] == pytest.approx(22_600 / 1_638.4)
    assert slopes["MI210 HBM"]["family"] == "amd"
    assert slopes["V100-SXM2 HBM"]["x"][-1] == pytest.approx(7_800 / 900)
    assert (tmp_path / "three.png").stat().st_size > 0


def test_empirical_roofs_per_family_without_ceilings(runs):
    points = points_dataframe(runs)
    roofline = Roofline.from_ceilings(None, points=points)
    names = {(r.name, r.family) for r in roofline.compute}
    # the largest plausible GFLOP/s of each: kernel_assign_6 #3's 494.13, the AMD kernel's 104.03
    assert names == {("CPU empirical peak", None), ("NVIDIA GPU empirical peak", "nvidia"),
                     ("AMD GPU empirical peak", "amd")}
    amd = next(r for r in roofline.compute if r.family == "amd")
    assert amd.gflops == pytest.approx(2_097_152 / 20_160e-9 / 1e9, rel=1e-12)
