"""GPU ceilings and what runs downstream of an Nsight Compute export: levels, compare, views, spread.

The small export of :func:`stencil_export` is written by tests/render_ncu.py in the details-page
layout, with made-up numbers of the shape ncu prints (not a measurement):

kernel ``stencil``, launches 0 and 1, each: 1e6 dadd + 2e6 dmul + 3e6 dfma = 9e6 FLOP,
1e6 cycles at 1 GHz = 1 ms, 36 MB DRAM, 72 MB L2 (lts__t_bytes), 144 MB L1 (l1tex__t_bytes).
Summed: 18e6 FLOP / 2 ms = 9 GFLOP/s; DRAM 72e6 B / 2 ms = 36 GB/s (intensity 0.25),
L2 72 GB/s (0.125), L1 144 GB/s (0.0625).

Peaks (theoretical, as Nsight Compute's roofline sections export them), per launch:
``sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained`` 2,560 inst/cycle (80 SMs
x 32 FP64 lanes), SM clock 1.53 GHz on launch 0 and 1.5 GHz on launch 1 -> DP peak at the
highest clock 2560 x 2 x 1.53e9 = 7833.6 GFLOP/s; ``dram__bytes.sum.peak_sustained`` 1,024
byte/cycle x ``dram__cycles_elapsed.avg.per_second`` 877 MHz = 898.048 GB/s;
``lts__t_bytes.sum.peak_sustained`` 2,048 byte/cycle x 1.53 GHz = 3133.44 GB/s.  No L1 clock
exported: no L1 roof.
"""

import warnings

import pytest
from likwid_render import bench
from render_ncu import N1, details, n1_rows, render_raw

from roofline_widget import (
    BandwidthRoof,
    ComputeRoof,
    Roofline,
    View,
    compare_points,
    gpu_ceilings,
    hierarchical_points,
    machine_roofline,
    machine_rooflines,
    points_dataframe,
    rank_spread,
    read_likwid,
    read_ncu,
    sample_path,
)
from roofline_widget.gpu_specs import GPU_SPECS, find_gpu

KERNEL = "void stencil<double, 3>(const double*, double*, int)"


def _stencil_rows(launch, clock_ghz):
    """One launch of ``stencil``: 1e6 cycles at ``clock_ghz`` (the SM clock, cycle/nsecond)."""
    values = [("sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", "1,000,000"),
              ("sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", "2,000,000"),
              ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", "3,000,000"),
              ("sm__cycles_elapsed.avg", "cycle", "1,000,000"),
              ("sm__cycles_elapsed.avg.per_second", "cycle/nsecond", clock_ghz),
              ("dram__bytes.sum", "Mbyte", "36.00"),
              ("lts__t_bytes.sum", "Mbyte", "72.00"),
              ("l1tex__t_bytes.sum", "byte", "144,000,000"),
              ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", "inst/cycle",
               "2,560"),
              ("dram__bytes.sum.peak_sustained", "byte/cycle", "1,024"),
              ("dram__cycles_elapsed.avg.per_second", "cycle/second", "877,000,000"),
              ("lts__t_bytes.sum.peak_sustained", "byte/cycle", "2,048"),
              ("lts__cycles_elapsed.avg.per_second", "Ghz", "1.53"),
              ("l1tex__t_bytes.sum.peak_sustained", "byte/cycle", "10,240")]
    return [(launch, KERNEL, metric, unit, value) for metric, unit, value in values]


@pytest.fixture(scope="module")
def stencil_export(tmp_path_factory):
    path = tmp_path_factory.mktemp("ncu") / "stencil.csv"
    path.write_text(details(_stencil_rows(0, "1.00") + _stencil_rows(1, "1.00")))
    return path


def test_hierarchical_points_of_a_gpu_kernel(stencil_export):
    run = read_ncu(stencil_export)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        points = hierarchical_points(run).set_index("level")
    assert list(points.index) == ["L1", "L2", "MEM"]
    assert points["performance_gflops"].tolist() == pytest.approx([9.0, 9.0, 9.0])
    assert points["bandwidth_gbs"].tolist() == pytest.approx([144.0, 72.0, 36.0])
    assert points["arithmetic_intensity_flops_per_byte"].tolist() == pytest.approx(
        [0.0625, 0.125, 0.25])
    assert points["bandwidth_metric"].tolist() == [
        "L1 bandwidth [MBytes/s]", "L2 bandwidth [MBytes/s]", "Memory bandwidth [MBytes/s]"]


def test_peaks_from_the_export(tmp_path):
    # launch 0 at 1.53 GHz, launch 1 at 1.5 GHz (1e6 cycles each: 0.6536 + 0.6667 ms)
    path = tmp_path / "peaks.csv"
    path.write_text(details(_stencil_rows(0, "1.53") + _stencil_rows(1, "1.50")))
    roofs = gpu_ceilings(read_ncu(path))
    assert [r.name for r in roofs.compute] == ["DP FMA peak"]
    assert roofs.peak_flops == pytest.approx(2560 * 2 * 1.53e9 / 1e9)  # 7833.6 GFLOP/s
    assert {r.level: r.gbs for r in roofs.bandwidth} == pytest.approx(
        {"L2": 2048 * 1.53e9 / 1e9, "MEM": 1024 * 877e6 / 1e9})  # 3133.44, 898.048 GB/s
    dram = next(r for r in roofs.bandwidth if r.level == "MEM")
    assert dram.source == ("Nsight Compute dram__bytes.sum.peak_sustained x "
                           "dram__cycles_elapsed.avg.per_second (0.877 GHz)")
    assert dram.device == "gpu"
    assert dram.provenance["per_cycle"] == 1024
    assert roofs.compute[0].provenance["clock_metric"] == "sm__cycles_elapsed.avg.per_second"
    # user roofs of one kind replace that kind only; the export gives the other
    mixed = gpu_ceilings(path, ceilings=[ComputeRoof("measured DGEMM", 7000.0, "user")])
    assert mixed.peak_flops == 7000.0
    assert mixed.peak_bandwidth == pytest.approx(3133.44)


def test_datasheet_table_for_sample_n1():
    run = read_likwid(sample_path(N1))  # no peaks, no device name in the export
    with pytest.raises(ValueError, match="no GPU is named"):
        gpu_ceilings(run)
    roofs = gpu_ceilings(run, gpu="Tesla V100-SXM2-16GB", label="Summit")
    assert roofs.peak_flops == 7800.0
    assert roofs.peak_bandwidth == 900.0
    assert [r.name for r in roofs] == ["Summit V100-SXM2 DP peak", "Summit V100-SXM2 HBM"]
    assert roofs.compute[0].source == "spec sheet: NVIDIA Tesla V100 GPU datasheet (sure)"
    assert (roofs.bandwidth[0].device, roofs.compute[0].device) == ("gpu", "gpu")
    assert roofs.compute[0].precision == "DP"
    assert roofs.bandwidth[0].provenance == {"gpu": "V100-SXM2",
                                             "datasheet": "NVIDIA Tesla V100 GPU datasheet",
                                             "confidence": "sure"}
    # SP from the table; HP is not in it
    assert gpu_ceilings(gpu="H200-SXM", precision="SP").peak_flops == 67_000
    with pytest.raises(ValueError, match="the table has no HP peak"):
        gpu_ceilings(gpu="H200-SXM", precision="HP")
    # N1 against the datasheet roofs: every kernel memory bound, below the 900 GB/s slope
    classified = roofs.classify(points_dataframe(run))
    assert set(classified["bound"]) == {"memory"}
    assert not classified["above_roof"].any()


def test_table_lookup_names_and_ambiguity():
    assert find_gpu("NVIDIA A100-SXM4-80GB").memory_gbs == 2039
    assert find_gpu("AMD Instinct MI250X").name == "MI250X"
    assert find_gpu("mi300a").dp_gflops == 61_300
    with pytest.raises(ValueError, match=r"ambiguous.*'A100-SXM4-40GB'"):
        find_gpu("A100")
    with pytest.raises(ValueError, match="not in the table"):
        find_gpu("GeForce GTX 1080")
    assert {s.name for s in GPU_SPECS} >= {"V100-SXM2", "A100-SXM4-40GB", "H100-SXM5",
                                          "H200-SXM", "MI250X", "MI300A"}


def test_machine_rooflines_keeps_cpu_and_gpu_roofs_apart(tmp_path):
    log = tmp_path / "bench.out"  # likwid-bench on the host: 400 GFLOP/s, triad 90 GB/s
    log.write_text("\n".join([bench("peakflops_avx_fma", 8, mflops=400000, mbytes=1000,
                                    size_per_thread=16384),
                              bench("triad_avx", 8, mflops=5000, mbytes=90000,
                                    size_per_thread=2**27)]))
    both = machine_rooflines(log, gpu="V100-SXM2", level="MEM")
    assert set(both) == {"cpu", "gpu"}
    cpu = machine_roofline(log, level="MEM")
    assert (cpu.peak_flops, cpu.peak_bandwidth) == (400.0, 90.0)
    assert [r.label for r in both["cpu"]] == [r.label for r in cpu]
    assert both["gpu"].peak_bandwidth == 900.0
    with pytest.raises(ValueError, match="needs likwid-bench logs"):
        machine_rooflines()


def _n1_after(tmp_path):
    """N1's raw page with half the DRAM bytes in every launch (a made-up 'after')."""
    rows = n1_rows()
    for row in rows:
        if row["Metric Name"] == "dram__bytes.sum":
            row["Metric Value"] = f"{int(row['Metric Value'].replace(',', '')) // 2:,}"
    path = tmp_path / "after.csv"
    path.write_text("".join(render_raw(rows, pid) for pid in ("126788", "15236")))
    return path


def test_compare_a_kernel_before_and_after(tmp_path):
    before = read_likwid(sample_path(N1))
    after = read_likwid(_n1_after(tmp_path))
    changes = compare_points(before, after).set_index("region")
    assert list(changes.index) == ["kernel_assign_6 #1", "kernel_assign_6 #2", "kernel_assign_6 #3"]
    assert (changes["status"] == "both").all()
    assert (changes["device"] == "gpu").all()
    # same FLOPs and time, half the bytes (the byte counts are even): -50 % bandwidth, 2x intensity
    assert changes["bandwidth_change_percent"].tolist() == pytest.approx([-50.0] * 3)
    assert changes["intensity_change_percent"].tolist() == pytest.approx([100.0] * 3)
    assert changes["speedup"].tolist() == pytest.approx([1.0] * 3)


def test_view_with_gpu_roofs_round_trips_and_selects_a_kernel():
    roofs = gpu_ceilings(gpu="V100-SXM2")
    view = View(include=r"kernel_assign_6 #[13]", ceilings=list(roofs))
    again = View.from_json(view.to_json())
    assert again == view
    assert (again.ceilings[1].device, again.ceilings[0].precision) == ("gpu", "DP")
    points = points_dataframe(read_likwid(sample_path(N1)), include=again.include)
    assert points["region"].tolist() == ["kernel_assign_6 #1", "kernel_assign_6 #3"]


def test_spread_over_ranks_of_gpu_processes(tmp_path):
    # rank 0: the stencil export (9 GFLOP/s, 2 ms); rank 1: the same kernel at half the clock:
    # 1e6 cycles at 0.5 GHz = 2 ms per launch -> 18e6 FLOP / 4 ms = 4.5 GFLOP/s
    rank0, rank1 = tmp_path / "job_rank0.csv", tmp_path / "job_rank1.csv"
    rank0.write_text(details(_stencil_rows(0, "1.00") + _stencil_rows(1, "1.00")))
    rank1.write_text(details(_stencil_rows(0, "0.50") + _stencil_rows(1, "0.50"), pid="999"))
    run = read_likwid([rank0, rank1])
    assert run.ranks == [0, 1]
    spread = rank_spread(run).iloc[0]
    assert spread["region"] == "stencil"
    assert spread["n_ranks"] == 2
    assert spread["performance_gflops_min"] == pytest.approx(4.5)
    assert spread["performance_gflops_max"] == pytest.approx(9.0)
    assert spread["imbalance"] == pytest.approx(4 / 3)  # 4 ms / mean(2, 4) ms
    assert spread["slowest_rank"] == 1


def test_widget_shows_gpu_kernels_under_gpu_roofs():
    from roofline_widget.widget import RooflineWidget

    roofs = gpu_ceilings(gpu="V100-SXM2")
    widget = RooflineWidget(read_likwid(sample_path(N1)), ceilings=roofs)
    frame = widget.to_dataframe()
    assert frame["region"].tolist() == ["kernel_assign_6 #1", "kernel_assign_6 #2",
                                        "kernel_assign_6 #3"]
    # the datasheet roofs are the top ones; the widget adds the empirical ones below them
    assert widget.roofline.peak_flops == 7800.0
    assert widget.roofline.peak_bandwidth == 900.0
    assert widget.roofline.compute[0] == roofs.compute[0]
    assert widget.roofline.bandwidth[0] == roofs.bandwidth[0]
    assert isinstance(roofs, Roofline)
    assert isinstance(roofs.bandwidth[0], BandwidthRoof)


def test_the_exported_device_name_picks_the_table_entry(tmp_path):
    rows = [r for r in _stencil_rows(0, "1.00") if "peak_sustained" not in r[2]]
    rows.append((0, KERNEL, "device__attribute_display_name", "", "Tesla V100-SXM2-16GB"))
    path = tmp_path / "named.csv"
    path.write_text(details(rows))
    roofs = gpu_ceilings(path)
    assert [r.name for r in roofs] == ["V100-SXM2 DP peak", "V100-SXM2 HBM"]
