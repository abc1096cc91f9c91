"""machine_roofline: compute and per-level bandwidth roofs from likwid-bench job logs."""

import pytest
from likwid_render import bench, perfctr_header, perfctr_region, topology

from roofline_widget import CeilingWarning, machine_roofline, plot_roofline, sample_path
from roofline_widget.analysis.machine import kernel_isa, kernel_precision
from roofline_widget.ceilings import Roofline

B = "[MBytes/s]"
ZEN2_WRAPPED = sample_path("bench_in_perfctr_zen2_epyc7702_MEM_dash_values_wrapper.txt")


def _job_log(tmp_path):
    """One job: likwid-topology (2 sockets x 4 cores; L1 32 kB, L2 1 MB per core, L3 16 MB per
    socket), peakflops DP and SP, copy_avx unwrapped (16 KiB/thread), load_avx in
    likwid-perfctr -g L3, two memory kernels in -g MEM."""
    parts = [
        "module load likwid/5.3", topology(sockets=2, cores=4),
        bench("peakflops_avx_fma", 8, mflops=400000, mbytes=1000, size_per_thread=16384),
        bench("peakflops_sp_avx_fma", 8, mflops=800000, mbytes=1000, size_per_thread=16384),
        bench("copy_avx", 4, mflops=0, mbytes=600000, size_per_thread=16384),
        perfctr_header(),
        bench("load_avx", 4, mflops=0, mbytes=200000, size_per_thread=2 * 2**20),
        perfctr_region("(whole run)", 1, "L3", [0, 1, 2, 3], 1.0, {
            f"L3 load bandwidth {B}": [50000] * 4, f"L3 evict bandwidth {B}": [10000] * 4,
            f"L3 bandwidth {B}": [60000] * 4}, marker=False),
        perfctr_header(),
        bench("triad_avx", 8, mflops=5000, mbytes=90000, size_per_thread=100 * 2**20),
        # uncore: one thread per socket (0 and 4) reads the memory controllers
        perfctr_region("(whole run)", 1, "MEM", list(range(8)), 1.0, {
            f"Memory bandwidth {B}": [45000, 0, 0, 0, 40000, 0, 0, 0]}, marker=False),
        perfctr_header(),
        bench("stream_avx", 8, mflops=3000, mbytes=80000, size_per_thread=100 * 2**20),
        perfctr_region("(whole run)", 1, "MEM", list(range(8)), 1.0, {
            f"Memory bandwidth {B}": [41000, 0, 0, 0, 40000, 0, 0, 0]}, marker=False),
        "job done",
    ]
    path = tmp_path / "slurm-42.out"
    path.write_text("\n".join(parts))
    return path


def test_kernel_names():
    assert kernel_isa("peakflops_avx512_fma") == "AVX-512 FMA"
    assert kernel_isa("peakflops_sp_avx_fma") == "AVX FMA"
    assert kernel_isa("peakflops") == "SSE"
    assert kernel_precision("peakflops_sp_avx") == "SP"
    assert kernel_precision("peakflops_avx_fma") == "DP"


def test_job_log_gives_compute_roofs_and_one_roof_per_level(tmp_path):
    roof = machine_roofline(_job_log(tmp_path), label="node")
    assert [(r.name, r.gflops) for r in roof.compute] == [("node DP AVX FMA peak", 400.0)]
    levels = {r.level: r for r in roof.bandwidth}
    assert sorted(levels) == ["L1", "L3", "MEM"]
    # copy_avx: 16 KiB/thread fits in the 32 KiB L1 (one thread per L1)
    assert levels["L1"].gbs == 600.0
    assert levels["L1"].provenance["level_decided_by"] == (
        "working set 16 KiB/thread fits in L1 32 KiB/thread (likwid-topology)")
    # load_avx in -g L3: likwid-bench says 200000 MByte/s; the group counted 4 x 60000 MBytes/s
    # L3 bandwidth (loads and evictions) = 240 GB/s
    l3 = levels["L3"]
    assert l3.gbs == 200.0
    assert l3.name == "node L3 (load_avx, likwid-bench)"
    assert l3.provenance == {
        "file": str(tmp_path / "slurm-42.out"), "line": l3.provenance["line"],
        "kernel": "load_avx", "threads": 4, "working_set_per_thread_bytes": 2 * 2**20,
        "level_decided_by": "likwid-perfctr group L3 wrapping the benchmark",
        "benchmark_gbs": 200.0, "counted_gbs": 240.0, "counted_metric": f"L3 bandwidth {B}",
        # 2 MiB/thread fits the 16 MB L3 shared by 4 threads (4 MiB each), not the 1 MB L2
        "level_check": None,
        "cpu_name": "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz",
        "cpu_type": "Intel Skylake SP processor"}
    assert (l3.device, roof.compute[0].device, roof.compute[0].precision) == ("cpu", "cpu", "DP")
    assert "L3 group counted 240 GB/s" in l3.source
    # MEM: the faster of triad_avx (90 GB/s) and stream_avx (80 GB/s); counted 45 + 40 GB/s
    assert levels["MEM"].provenance["kernel"] == "triad_avx"
    assert levels["MEM"].provenance["counted_gbs"] == pytest.approx(85.0)


def test_counted_figure_and_precision(tmp_path):
    path = _job_log(tmp_path)
    roof = machine_roofline(path, figure="counted", precision="SP")
    assert [r.gflops for r in roof.compute] == [800.0]
    levels = {r.level: r for r in roof.bandwidth}
    assert levels["L3"].gbs == 240.0
    assert levels["L3"].name == "L3 (load_avx, counted)"
    # the counted MEM figures are 85 (triad) and 81 (stream) GB/s: triad again
    assert levels["MEM"].gbs == pytest.approx(85.0)
    assert levels["L1"].name == "L1 (copy_avx, likwid-bench)"  # unwrapped: no counted figure


def test_real_wrapped_triad_with_dash_counters(tmp_path):
    peak = tmp_path / "peak.txt"
    peak.write_text(bench("peakflops_avx", 1, mflops=16000, mbytes=0, size_per_thread=4096))
    roof = machine_roofline([ZEN2_WRAPPED, peak])
    (mem,) = roof.bandwidth
    # triad, 1 thread, MByte/s 7076.23; DFC0/DFC1 read '-', so every memory metric printed 0
    assert (mem.level, mem.gbs) == ("MEM", pytest.approx(7.07623))
    assert mem.provenance["level_decided_by"] == "likwid-perfctr group MEM wrapping the benchmark"
    assert mem.provenance["counted_gbs"] is None
    assert "MEM group counted no traffic" in mem.source
    assert mem.provenance["working_set_per_thread_bytes"] == 1e9  # Size per thread: 1000000000


def test_undecidable_level_is_a_clear_error_unless_given(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text(bench("peakflops", 1, mflops=8000, mbytes=0, size_per_thread=4096)
                    + bench("load", 2, mflops=0, mbytes=30000, size_per_thread=2**20))
    with pytest.raises(ValueError, match=r"bench.txt, line \d+: cannot tell which memory level "
                                         r"likwid-bench load measured.*level=\{'load': 'L3'\}"):
        machine_roofline(path)
    roof = machine_roofline(path, level={"load": "L2"})
    assert roof.bandwidth[0].level == "L2"
    assert roof.bandwidth[0].provenance["level_decided_by"] == "level= given by the user"
    with pytest.raises(ValueError, match=r"unknown level 'L4'"):
        machine_roofline(path, level="L4")
    with pytest.raises(ValueError, match="no likwid-bench peakflops kernel of precision SP"):
        machine_roofline(path, level="L2", precision="SP")
    with pytest.raises(ValueError, match="precision must be 'DP' or 'SP'"):
        machine_roofline(path, precision="HP")


def test_level_roofs_work_as_ceilings(tmp_path):
    roof = machine_roofline(_job_log(tmp_path))
    assert isinstance(roof, Roofline)
    assert list(roof) == [*roof.compute, *roof.bandwidth]
    data = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
    with pytest.warns(CeilingWarning, match="measured on AMD EPYC 7702 .* the ceilings on "
                                            "Intel.R. Xeon.R. Gold 6132"):
        result = plot_roofline(data, ceilings=roof, filepath=tmp_path / "r.png", verbose=False)
    assert (tmp_path / "r.png").stat().st_size > 0
    names = [c["name"] for c in result["ceilings"]]
    assert "L3 (load_avx, likwid-bench)" in names
    assert "DP AVX FMA peak" in names
    # a slider/user peak still replaces the top roof and keeps its level
    moved = roof.with_peaks(peak_bandwidth=700.0)
    assert moved.bandwidth[0].gbs == 700.0
    assert moved.bandwidth[0].level == "L1"


def test_widget_accepts_a_machine_roofline(tmp_path):
    pytest.importorskip("bqplot")
    from roofline_widget import RooflineWidget

    roof = machine_roofline(_job_log(tmp_path))
    with pytest.warns(CeilingWarning, match="another machine"):
        widget = RooflineWidget(
            sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"), ceilings=roof)
    assert "roofs of another machine are no limit of this run" in \
        widget.controls.status_html.value
    shown = widget.roofline
    assert [r.level for r in shown.bandwidth if r.level] == ["L1", "L3", "MEM"]
    widget.peak_flops = 500.0  # a slider peak still moves the roofs
    assert widget.roofline.peak_flops == 500.0
    assert "L3 (load_avx, likwid-bench)" in [r.name for r in widget.roofline.bandwidth]
