"""sanity_check: intensity order across levels, points above roofs, uncore on one socket."""

from likwid_render import perfctr_header, perfctr_region, topology

from roofline_widget import read_likwid, sample_path, sanity_check
from roofline_widget.io.topology import parse_topology
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

B = "[MBytes/s]"
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_zen2_l3_victim_cache_is_explained(tmp_path):
    # zen2 L3 group: 'L3 access bandwidth' 2000 MBytes/s; MEM_DP: 1000 MFLOP/s, memory 5000
    l3 = _write(tmp_path, "l3.txt", perfctr_header("AMD K17 (Zen2) architecture") + perfctr_region(
        "kernel", 1, "L3", [0], 1.0, {f"L3 access bandwidth {B}": [2000]}))
    mem = _write(tmp_path, "mem.txt", perfctr_header("AMD K17 (Zen2) architecture") + perfctr_region(
        "kernel", 1, "MEM_DP", [0], 1.0, {"DP [MFLOP/s]": [1000], f"Memory bandwidth {B}": [5000]}))
    findings = sanity_check(read_likwid([l3, mem]))
    assert findings[["region", "level", "check"]].astype(str).values.tolist() == [
        ["kernel", "MEM", "intensity order"]]
    detail = findings["detail"].iloc[0]
    # 1 GFLOP/s / 2 GB/s = 0.5 at L3, 1 / 5 = 0.2 at MEM (1 - 0.2 / 0.5 = 60 % lower): memory
    # traffic is 2.5x the L3 traffic
    assert detail.startswith("intensity falls from 0.5 FLOP/byte at L3 to 0.2 at MEM (60 % lower): "
                             "MEM traffic "
                             f"(5 GB/s, Memory bandwidth {B}) is 2.5x the L3 traffic (2 GB/s, "
                             f"L3 access bandwidth {B})")
    assert "the L3 is a victim cache" in detail


def test_intel_traffic_growing_outward_and_tolerance(tmp_path):
    # region a: L2 1000, L3 1500 MBytes/s -> L3 traffic 1.5x L2; region b: L3 1020 (2 % more,
    # inside the 5 % tolerance) -> no finding
    l2 = _write(tmp_path, "l2.txt", perfctr_header() + perfctr_region(
        "a", 1, "L2", [0], 1.0, {f"L2 bandwidth {B}": [1000]}) + perfctr_region(
        "b", 1, "L2", [0], 1.0, {f"L2 bandwidth {B}": [1000]}))
    l3 = _write(tmp_path, "l3.txt", perfctr_header() + perfctr_region(
        "a", 1, "L3", [0], 1.0, {"DP [MFLOP/s]": [300], f"L3 bandwidth {B}": [1500]})
        + perfctr_region("b", 1, "L3", [0], 1.0, {"DP [MFLOP/s]": [300],
                                                  f"L3 bandwidth {B}": [1020]}))
    findings = sanity_check(read_likwid([l2, l3]))
    assert findings[["region", "level"]].astype(str).values.tolist() == [["a", "L3"]]
    assert "at L2 to 0.2 at L3" in findings["detail"].iloc[0]
    assert "1.5x the L2 traffic" in findings["detail"].iloc[0]
    assert "victim" not in findings["detail"].iloc[0]


def test_points_above_their_level_roof_or_the_peak():
    ceilings = Roofline([ComputeRoof("peak", 2.0)],
                        [BandwidthRoof("DRAM", 9.0, level="MEM"), BandwidthRoof("L2", 50.0, level="L2")])
    findings = sanity_check(PMGPU, ceilings=ceilings)
    above = findings[findings["check"] == "above roof"]
    # Memory bandwidth: <init_datastructures> 14.9057, <function_d> 28.5810, <function_b> 9.2703
    # GB/s exceed 9 GB/s; <function_a>'s DP 2.1341 GFLOP/s exceeds the 2 GFLOP/s peak
    assert sorted(zip(above["region"], above["detail"].str.split(" ").str[0:3].str.join(" "))) == [
        ("<function_a>", "2.134 GFLOP/s (DP"),
        ("<function_b>", "MEM bandwidth 9.27"),
        ("<function_d>", "MEM bandwidth 28.58"),
        ("<init_datastructures>", "MEM bandwidth 14.91"),
    ]
    assert len(sanity_check(PMGPU)) == 0  # one level, no ceilings: nothing to report


def _two_socket_log(tmp_path, memory):
    """MEM_DP over hardware threads 0, 1 (socket 0) and 4, 5 (socket 1); likwid-topology after."""
    text = perfctr_header() + perfctr_region("solve", 1, "MEM_DP", [0, 1, 4, 5], 1.0, {
        "DP [MFLOP/s]": [500] * 4, f"Memory bandwidth {B}": memory}) + topology(sockets=2, cores=4)
    return _write(tmp_path, "job.txt", text)


def test_uncore_read_on_one_socket_only(tmp_path):
    findings = sanity_check(_two_socket_log(tmp_path, [3000, 0, 0, 0]))
    assert findings[["region", "level", "check"]].astype(str).values.tolist() == [
        ["solve", "MEM", "uncore on one socket"]]
    assert "sockets [0, 1], but only socket 0 reports" in findings["detail"].iloc[0]
    assert len(sanity_check(_two_socket_log(tmp_path, [3000, 0, 2500, 0]))) == 0


def test_uncore_check_with_a_given_topology(tmp_path):
    path = _write(tmp_path, "run.txt", perfctr_header() + perfctr_region(
        "solve", 1, "MEM_DP", [0, 4], 1.0, {"DP [MFLOP/s]": [500] * 2,
                                           f"Memory bandwidth {B}": [0, 3000]}))
    assert len(sanity_check(path)) == 0  # no topology: the check cannot run
    findings = sanity_check(path, topology=parse_topology(topology(sockets=2, cores=4)))
    assert "only socket 1 reports" in findings["detail"].iloc[0]
