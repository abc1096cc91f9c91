"""machine_roofline: compute and per-level bandwidth roofs from likwid-bench job logs."""

import pytest
from likwid_render import bench, perfctr_header, perfctr_region, topology
from wild_samples import BENCH_REPS, MILAN, MILAN_LOGS

from roofline_widget import CeilingWarning, machine_roofline, plot_roofline, read_likwid_bench, sample_path
from roofline_widget.analysis.bench_levels import kernel_isa
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io.bench import kernel_precision
from roofline_widget.roofs.roofline import Roofline

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
        "repetitions": 1, "runs": [f"slurm-42.out:{l3.provenance['line']}"],
        "benchmark_gbs_range": (200.0, 200.0), "groups": ["L3"],
        "notes": ["the counters see 1.200 x the benchmark's figure"],  # 240 / 200
        # 2 MiB/thread fits the 16 MB L3 shared by 4 threads (4 MiB each), not the 1 MB L2
        "level_check": None,
        "cpu_name": "Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz",
        "cpu_type": "Intel Skylake SP processor", "cpu_clock": "2.59 GHz"}
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


# ------------------------------------------------------------------ real logs (tests/data)
def test_zen3_folder_gives_the_roofs_written_by_hand():
    # Sample 22: one Milan node's ceiling set, a folder of five logs and the script that made them.
    with pytest.warns(LikwidReadWarning, match="likwid-milan-peaks.sh: no likwid-bench result"):
        roof = machine_roofline(MILAN)
    # DP: MFlops/s 820022.22 (peakflops_avx_fma, 16 threads); L2: MByte/s 771742.15 (load);
    # memory: stream_mem_avx_fma run twice (under MEM1 and MEM2): MByte/s 41272.67 and
    # 41258.46, median 41265.565 -- the 41.27 GB/s one writes by hand
    assert [(r.name, r.value) for r in roof] == [
        ("DP AVX FMA peak", 820.02222), ("L2 (load, likwid-bench)", 771.74215),
        ("MEM (stream_mem_avx_fma, likwid-bench)", pytest.approx(41.265565))]
    compute, (l2, mem) = roof.compute[0], roof.bandwidth
    assert (l2.level, mem.level) == ("L2", "MEM")
    assert mem.provenance["repetitions"] == 2
    assert mem.provenance["benchmark_gbs_range"] == (41.25846, 41.27267)
    assert mem.provenance["groups"] == ["MEM1", "MEM2"]
    # MEM1 counted channels 0-3: STAT Sum 41394.2638 MBytes/s; MEM2 channels 4-7: 111.2762
    assert mem.provenance["counted_gbs"] == pytest.approx(41.394264 + 0.1112762)
    assert mem.provenance["counted_metric"] == "Memory bandwidth (channels 0-7) [MBytes/s]"
    note, = mem.provenance["notes"]
    assert note.startswith("MEM1 and MEM2 each count part of the memory channels "
                           "(channels 0-3 and 4-7")
    assert "41.39 + 0.1113 = 41.51 GB/s" in note
    assert "MEM1 and MEM2 groups counted 41.51 GB/s" in mem.source  # the label's short form
    # the counters' figures are offered too: L2 STAT Sum 772646.0403, DP STAT Sum 820068.6128
    assert l2.provenance["counted_gbs"] == pytest.approx(772.6460403)
    assert compute.provenance["counted_gflops"] == pytest.approx(820.0686128)


def test_zen3_folder_sp_and_counted_figures():
    with pytest.warns(LikwidReadWarning):
        roof = machine_roofline(MILAN, precision="SP", figure="counted", label="milan")
    # SP: MFlops/s 1639166.87; counted: the L2 group's 772.6 GB/s, MEM1 + MEM2 41.51 GB/s
    assert [(r.name, r.value) for r in roof] == [
        ("milan SP AVX FMA peak", 1639.16687),
        ("milan L2 (load, counted)", pytest.approx(772.6460403)),
        ("milan MEM (stream_mem_avx_fma, counted)", pytest.approx(41.5055400))]


def test_one_half_of_the_memory_channels_gives_no_counted_total():
    files = [MILAN / "milan_flops_dp_avx_fma_16c.log", MILAN / "milan_mem1_16c.log"]
    mem, = machine_roofline(files).bandwidth
    assert mem.gbs == 41.27267  # the benchmark's figure stands
    assert mem.provenance["counted_gbs"] is None
    note, = mem.provenance["notes"]
    assert note.startswith("MEM1 counted Memory bandwidth (channels 0-3) [MBytes/s] only, part of "
                           "the memory channels: no counted total")
    with pytest.raises(LikwidFormatError, match="no likwid-bench result"):
        machine_roofline([*files, MILAN / "likwid-milan-peaks.sh"])  # a file named by the user


def test_twenty_repetitions_wrapped_in_likwid_perfctr_csv(tmp_path):
    # Sample 20: triad_avx, 24 threads, under likwid-perfctr -O -g MEM: the group is told by the
    # CSV line 'TABLE,Region bench,Group 1 Metric,MEM,10'.
    peak = tmp_path / "peak.txt"
    peak.write_text(bench("peakflops_avx", 24, mflops=16000, mbytes=0, size_per_thread=4096))
    mem, = machine_roofline([BENCH_REPS, peak]).bandwidth
    assert mem.level == "MEM"
    assert mem.provenance["level_decided_by"] == "likwid-perfctr group MEM wrapping the benchmark"
    # MByte/s of the 20 runs, sorted: 100405.19 ... 100486.17, 100486.39 ... 100600.22:
    # median (100486.17 + 100486.39) / 2 = 100486.28
    assert mem.gbs == pytest.approx(100.48628)
    assert mem.provenance["repetitions"] == 20
    assert mem.provenance["benchmark_gbs_range"] == pytest.approx((100.40519, 100.60022))
    # the counters: Memory bandwidth STAT Sums 125692.2037 ... 125933.7735, median
    # (125792.2337 + 125793.9075) / 2 = 125793.0706 MBytes/s: 1.252 x the benchmark's figure,
    # the write-allocate of the triad's 1 store per 3 loads ((3 + 2) / (3 + 1) = 1.25)
    assert mem.provenance["counted_gbs"] == pytest.approx(125.7930706, abs=1e-4)
    note, = mem.provenance["notes"]
    assert note.startswith("the counters see 1.252 x the benchmark's figure: the write-allocate")
    assert "(3 + 2 x 1) / (3 + 1) = 1.25" in note
    assert "median of 20 runs; MEM group counted 125.8 GB/s (1.25 x: write-allocate)" in mem.source
    counted, = machine_roofline([BENCH_REPS, peak], figure="counted").bandwidth
    assert counted.gbs == pytest.approx(125.7930706, abs=1e-4)


def test_bench_reader_reads_every_repetition_inside_the_csv():
    results = read_likwid_bench(BENCH_REPS)
    assert len(results) == 20
    assert {(r.kernel, r.threads, r.work_groups) for r in results} == {("triad_avx", 24, 4)}
    assert results[0].gbs == 100.4447  # line 69: MByte/s: 100444.70


def test_a_median_ceiling_reads_as_the_logs_numbers_not_a_float_s_last_bit():
    # milan_mem1_16c.log 41272.67 and milan_mem2_16c.log 41258.46 MByte/s: the median
    # 41265.565 MB/s is 41.265565 GB/s exactly as a decimal; a float sum, halving and
    # division by 1000 may land a bit off (41.265564999999995): the roof keeps 15 digits
    from roofline_widget.roofs.roof import BandwidthRoof, ComputeRoof, decimal_value

    roofs = machine_roofline(MILAN_LOGS, label="EPYC 7763")
    memory = next(roof for roof in roofs.bandwidth if roof.level == "MEM")
    assert repr(memory.gbs) == "41.265565"
    assert repr(roofs.peak_flops) == "820.02222"  # 820022.22 MFlops/s
    assert repr(decimal_value(931.3109 / 1000)) == "0.9313109"  # 0.9313108999999999 unrounded
    assert BandwidthRoof("b", 41.265564999999995, source="s").gbs == 41.265565
    assert ComputeRoof("p", 0.1 + 0.2, source="s").gflops == 0.3
    assert ComputeRoof("p", 0.1 + 0.2, source="user").gflops == 0.1 + 0.2  # kept as given
