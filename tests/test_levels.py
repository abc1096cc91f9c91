"""Memory levels: metric detection per architecture and hierarchical points (hand-worked numbers)."""

import warnings
from pathlib import Path

import pandas as pd
import pytest
from likwid_render import mpirun_region, perfctr_header, perfctr_region

from roofline_widget import hierarchical_points, read_likwid, sample_path
from roofline_widget.analysis.levels import (
    LEVELS,
    detect_levels,
    hierarchical_left_out,
    metric_level,
    select_levels,
)
from roofline_widget.errors import MetricChoiceWarning, RegionsLeftOutWarning

CACHES = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
B = "[MBytes/s]"

# Bandwidth metrics of each architecture's L2/L3/MEM/CACHES groups
# (LIKWID's groups/<arch>/*.txt) and the total the detection must pick.
ARCHITECTURES = {
    "skylakeX/CLX/ICX/GNR L2+L3+MEM": (
        ["L2D load bandwidth", "L2D evict bandwidth", "L2 bandwidth", "L3 load bandwidth",
         "L3 evict bandwidth", "L3|MEM evict bandwidth", "Dropped CLs bandwidth", "L3 bandwidth",
         "Memory read bandwidth", "Memory write bandwidth", "Memory bandwidth"],
        {"L2": "L2 bandwidth", "L3": "L3 bandwidth", "MEM": "Memory bandwidth"}),
    "Intel CACHES": (
        ["L2 to L1 load bandwidth", "L1 to L2 evict bandwidth", "L1 to/from L2 bandwidth",
         "L3 to L2 load bandwidth", "L2 to L3 evict bandwidth", "L2 to/from L3 bandwidth",
         "System to L3 bandwidth", "L3 to system bandwidth", "L3 to/from system bandwidth",
         "Memory read bandwidth", "Memory write bandwidth", "Memory bandwidth"],
        {"L2": "L1 to/from L2 bandwidth", "L3": "L2 to/from L3 bandwidth",
         "MEM": "Memory bandwidth"}),
    "SPR L2+L3+HBM_DP": (
        ["L2 load bandwidth", "L2 evict bandwidth", "L2 bandwidth", "L3 load bandwidth",
         "L3 evict bandwidth", "L3 bandwidth", "HBM read bandwidth", "HBM write bandwidth",
         "HBM bandwidth"],
        {"L2": "L2 bandwidth", "L3": "L3 bandwidth", "MEM": "HBM bandwidth"}),
    "zen/zen2 L2+L3+MEM": (
        ["L2D load bandwidth", "L2 bandwidth", "L3 access bandwidth", "Memory bandwidth"],
        {"L2": "L2 bandwidth", "L3": "L3 access bandwidth", "MEM": "Memory bandwidth"}),
    "zen3 L2+L3+MEM1+MEM2": (
        ["L2 bandwidth", "Prefetch bandwidth", "L3 bandwidth",
         "Memory bandwidth (channels 0-7)", "Memory bandwidth (channels 0-3)",
         "Memory bandwidth (channels 4-7)"],
        {"L2": "L2 bandwidth", "L3": "L3 bandwidth", "MEM": "Memory bandwidth (channels 0-7)"}),
    "ICL MEM": (["Memory load bandwidth", "Memory evict bandwidth", "Memory bandwidth"],
                {"MEM": "Memory bandwidth"}),
    "nvidia_grace/arm64fx L2+L3": (
        ["L1D<-L2 load bandwidth", "L1D->L2 evict bandwidth", "L1I<-L2 load bandwidth",
         "L1<->L2 bandwidth", "L2D<-L3 load bandwidth", "L2D->L3 evict bandwidth",
         "L2<->L3 bandwidth"],
        {"L2": "L1<->L2 bandwidth", "L3": "L2<->L3 bandwidth"}),
    "arm8_n1 L2+L3": (
        ["L2D load bandwidth", "L2D evict bandwidth", "L2I load bandwidth", "L2 bandwidth",
         "L3 read bandwidth", "L3 write bandwidth", "L3 bandwidth"],
        {"L2": "L2 bandwidth", "L3": "L3 bandwidth"}),
}


def _by_level(points):
    return points.assign(level=points["level"].astype(str)).set_index("level")


def _named(names):
    return [f"{n} {B}" for n in names]


@pytest.mark.parametrize("architecture", sorted(ARCHITECTURES))
def test_detect_levels_picks_the_total_of_every_level(architecture):
    names, expected = ARCHITECTURES[architecture]
    chosen, notes = detect_levels(_named(names))
    assert chosen == {level: f"{name} {B}" for level, name in expected.items()}
    assert notes == []


def test_traffic_between_two_levels_belongs_to_the_outer_one():
    assert metric_level(f"L1 to/from L2 bandwidth {B}").level == "L2"
    assert metric_level(f"L2 to/from L3 bandwidth {B}").level == "L3"
    assert metric_level(f"L3 to/from system bandwidth {B}").level == "MEM"
    assert metric_level(f"Prefetch bandwidth {B}") is None
    assert metric_level("L2 data volume [GBytes]") is None


def test_load_only_part_is_used_only_without_total_and_announced():
    # EMR's L2 group measures only the load part
    chosen, notes = detect_levels(_named(["L2D load bandwidth", "Memory bandwidth"]))
    assert chosen["L2"] == f"L2D load bandwidth {B}"
    assert len(notes) == 1
    assert "only the load/read part" in notes[0]


def test_two_totals_of_one_level_are_announced_and_overridable():
    names = _named(["L2 bandwidth", "L1 to/from L2 bandwidth", "Memory bandwidth"])
    chosen, notes = detect_levels(names)
    assert chosen["L2"] == f"L2 bandwidth {B}"
    assert "several total-traffic metrics" in notes[0]
    assert "levels={'L2'" in notes[0]
    chosen, notes = detect_levels(names, {"L2": f"L1 to/from L2 bandwidth {B}"})
    assert chosen["L2"] == f"L1 to/from L2 bandwidth {B}"
    assert notes == []


def test_unknown_level_or_metric_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"levels must be among L1, L2, L3, MEM, got 'L4'"):
        detect_levels(_named(["L2 bandwidth"]), {"L4": f"L2 bandwidth {B}"})
    with pytest.raises(ValueError, match=r"no bandwidth metric 'L2 traffic' .*\['L2 bandwidth"):
        detect_levels(_named(["L2 bandwidth"]), {"L2": "L2 traffic"})


# ---------------------------------------------------------------- real samples
def test_pmgpu_sample_has_one_memory_dot_per_region():
    points = hierarchical_points(PMGPU)
    assert list(points["level"].astype(str)) == ["MEM"] * 5
    assert points["level"].dtype == pd.CategoricalDtype(list(LEVELS), ordered=True)
    row = points[points["region"] == "<function_a>"].iloc[0]
    # MEM_DP block of <function_a>, HWThread 64: DP 2134.1472 MFLOP/s (MEM_DP comes first, so
    # its DP is used, not FLOPS_DP's), Memory bandwidth 8554.1612 MBytes/s
    assert row["performance_gflops"] == pytest.approx(2.1341472)
    assert row["bandwidth_gbs"] == pytest.approx(8.5541612)
    assert row["arithmetic_intensity_flops_per_byte"] == pytest.approx(2134.1472 / 8554.1612)
    assert row["runtime_seconds"] == pytest.approx(1.499428)
    assert row["groups"] == "MEM_DP+FLOPS_DP"


def _caches_with_flops(tmp_path):
    """The real CACHES sample joined with a rendered FLOPS_DP group of the same 48 ranks.

    likwid-mpirun prints no group names, so the rendered run is group 2 (as from
    ``likwid-mpirun -g CACHES -g FLOPS_DP``); rank r gets 100 + r MFLOP/s.
    """
    header = next(line for line in Path(CACHES).read_text().splitlines()
                  if line.startswith("|") and "Metric" in line)
    columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
    flops = [100.0 + int(c.split(":")[1]) for c in columns]
    path = tmp_path / "flops_dp.txt"
    path.write_text(mpirun_region("wr-only", 2, columns, {"DP [MFLOP/s]": flops}, 28.0))
    return read_likwid([CACHES, path])


def test_caches_sample_gives_l2_l3_and_memory_per_rank(tmp_path):
    run = _caches_with_flops(tmp_path)
    with pytest.warns(RegionsLeftOutWarning, match=r"46 \(region, rank, level\) row\(s\).*MEM: 46"):
        points = hierarchical_points(run, group_ranks="rank")
    rank0 = points[points["rank"] == 0].pipe(_by_level)
    assert list(rank0.index.astype(str)) == ["L2", "L3", "MEM"]
    # sonata:0:0 column: L1 to/from L2 33.5467, L2 to/from L3 31.1493, Memory 27.2278 MBytes/s
    assert rank0.loc["L2", "bandwidth_gbs"] == pytest.approx(0.0335467)
    assert rank0.loc["L3", "bandwidth_gbs"] == pytest.approx(0.0311493)
    assert rank0.loc["MEM", "bandwidth_gbs"] == pytest.approx(0.0272278)
    assert set(rank0["performance_gflops"]) == {0.1}  # 100 MFLOP/s at every level
    assert rank0.loc["MEM", "arithmetic_intensity_flops_per_byte"] == pytest.approx(0.1 / 0.0272278)
    left = hierarchical_left_out(run, group_ranks="rank")
    # uncore memory counters are read on one rank per socket: 46 of 48 ranks read 0
    assert len(left) == 46
    assert set(left["level"].astype(str)) == {"MEM"}
    assert set(left["reason"]) == {"'Memory bandwidth [MBytes/s]' is zero on every thread"}
    assert (left["bandwidth_gbs"] == 0).all()


def test_caches_sample_ranks_combined_match_the_stat_sums(tmp_path):
    run = _caches_with_flops(tmp_path)
    points = hierarchical_points(run, combine_ranks=True).pipe(_by_level)
    # Metric STAT Sum column: 1617.9811, 1495.2533, 54.4560 MBytes/s;
    # FLOPs: sum over ranks 0..47 of (100 + r) = 4800 + 1128 = 5928 MFLOP/s
    assert points["bandwidth_gbs"].tolist() == pytest.approx([1.6179811, 1.4952533, 0.054456],
                                                             rel=1e-6)
    assert points["performance_gflops"].tolist() == pytest.approx([5.928] * 3)
    assert (points["rank"] == -1).all()


def test_caches_sample_without_flops_lists_every_row_with_the_reason():
    left = hierarchical_left_out(CACHES, group_ranks="rank")
    assert len(left) == 48 * 3
    assert left["reason"].str.startswith("no FLOP-rate metric in the data").all()
    # the traffic is still shown: rank 0, L2 = 33.5467 MBytes/s
    row = left[(left["rank"] == 0) & (left["level"] == "L2")].iloc[0]
    assert row["bandwidth_gbs"] == pytest.approx(0.0335467)


# ---------------------------------------------------------------- rendered runs
def _three_groups(tmp_path):
    """One program measured in three runs (L2, L3, MEM_DP), 2 threads, regions dot and stencil.

    L3 misses region ``stencil`` (it was not reached in that run).
    """
    l2 = perfctr_header() + perfctr_region("dot", 1, "L2", [0, 1], 2.0, {
        f"L2D load bandwidth {B}": [3000, 2000], f"L2D evict bandwidth {B}": [1000, 1000],
        f"L2 bandwidth {B}": [4000, 3000]}) + perfctr_region("stencil", 1, "L2", [0, 1], 1.0, {
            f"L2D load bandwidth {B}": [500, 500], f"L2D evict bandwidth {B}": [100, 100],
            f"L2 bandwidth {B}": [600, 600]})
    l3 = perfctr_header() + perfctr_region("dot", 1, "L3", [0, 1], 2.0, {
        f"L3 load bandwidth {B}": [1500, 1500], f"L3 evict bandwidth {B}": [500, 500],
        f"L3 bandwidth {B}": [2000, 2000]})
    mem = perfctr_header() + perfctr_region("dot", 1, "MEM_DP", [0, 1], 2.0, {
        "DP [MFLOP/s]": [700, 300], f"Memory bandwidth {B}": [1000, 0]}) + perfctr_region(
        "stencil", 1, "MEM_DP", [0, 1], 1.0, {"DP [MFLOP/s]": [900, 900],
                                              f"Memory bandwidth {B}": [300, 0]})
    paths = []
    for name, text in (("l2", l2), ("l3", l3), ("mem_dp", mem)):
        paths.append(tmp_path / f"{name}.txt")
        paths[-1].write_text(text)
    return read_likwid(paths, label="prog")


def test_three_groups_of_one_program(tmp_path):
    run = _three_groups(tmp_path)
    with pytest.warns(RegionsLeftOutWarning, match="L3: 1"):
        points = hierarchical_points(run)
    assert list(zip(points["region"], points["level"].astype(str))) == [
        ("dot", "L2"), ("dot", "L3"), ("dot", "MEM"), ("stencil", "L2"), ("stencil", "MEM")]
    dot = points[points["region"] == "dot"].pipe(_by_level)
    # dot: FLOPs 700 + 300 = 1000 MFLOP/s = 1 GFLOP/s at every level;
    # L2 4000 + 3000 = 7 GB/s -> 1/7; L3 2000 + 2000 = 4 GB/s -> 0.25; MEM 1000 + 0 = 1 GB/s -> 1
    assert dot["performance_gflops"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert dot["bandwidth_gbs"].tolist() == pytest.approx([7.0, 4.0, 1.0])
    assert dot["arithmetic_intensity_flops_per_byte"].tolist() == pytest.approx([1 / 7, 0.25, 1.0])
    assert dot.loc["L2", "bandwidth_metric"] == f"L2 bandwidth {B}"
    left = hierarchical_left_out(run)
    assert left[["region", "level", "reason"]].astype(str).values.tolist() == [
        ["stencil", "L3", f"'L3 bandwidth {B}' not measured in this region"]]
    assert left["bandwidth_gbs"].isna().all()


def test_level_override_and_region_filter(tmp_path):
    run = _three_groups(tmp_path)
    selection = select_levels(run, levels={"L2": f"L2D load bandwidth {B}"}, include="dot")
    assert selection.levels["L2"] == f"L2D load bandwidth {B}"
    l2 = selection.points[selection.points["level"] == "L2"].iloc[0]
    assert l2["bandwidth_gbs"] == pytest.approx(5.0)  # 3000 + 2000 MBytes/s
    assert set(selection.points["region"]) == {"dot"}
    assert len(selection.left_out) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hierarchical_points(run, include="dot")  # nothing left out, nothing ambiguous


def test_ambiguous_level_warns_metric_choice(tmp_path):
    text = perfctr_header() + perfctr_region("r", 1, "Custom", [0], 1.0, {
        "DP [MFLOP/s]": [100], f"L2 bandwidth {B}": [400], f"L1 to/from L2 bandwidth {B}": [500]})
    path = tmp_path / "custom.txt"
    path.write_text(text)
    with pytest.warns(MetricChoiceWarning, match="L2: several total-traffic metrics"):
        points = hierarchical_points(path)
    assert points["bandwidth_gbs"].tolist() == [0.4]


def test_data_without_any_level_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no bandwidth metric of a memory level"):
        hierarchical_points(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"))
