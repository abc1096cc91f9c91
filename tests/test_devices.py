"""CPU and GPU points on one plot, each judged against its own device's roofs.

Points: sample 5 (``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt``, LIKWID MEM_DP +
FLOPS_DP on the CPU) and sample N1 (``ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv``, three
GENE kernels on a V100, Nsight Compute).  Roofs: sample 22's CPU roofs (an EPYC 7763: DP 820.02222
GFLOP/s, MEM 41.265565 GB/s, L2 771.74215 GB/s; another CPU than sample 5's, which the checks
say) and the V100-SXM2 datasheet roofs (7800 GFLOP/s DP, 900 GB/s HBM).

By hand (the N1 numbers are worked out in docs/gpu.md and tests/test_read_ncu.py):
``kernel_assign_6 #1`` 406.834 GFLOP/s at 739.3126 GB/s (intensity 0.55029): against the V100,
ridge 7800 / 900 = 8.667, memory bound, 739.3126 / 900 = 82.15 %.  ``<function_a>`` 2.1341472
GFLOP/s at 8.5541612 GB/s: against the EPYC's MEM roof, ridge 820.02222 / 41.265565 = 19.87,
memory bound, 8.5541612 / 41.265565 = 20.73 %.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from likwid_render import HLINE, SKYLAKE_GOLD, table
from render_ncu import details
from wild_samples import MILAN_LOGS

from roofline_widget import (
    CeilingWarning,
    LikwidReadWarning,
    RooflineWidget,
    gpu_ceilings,
    machine_roofline,
    plot_roofline,
    points_dataframe,
    read_likwid,
    sample_path,
)
from roofline_widget.look.colors import line_color
from roofline_widget.roofs.roofline import Roofline

CPU_RUN = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
N1 = "ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"


@pytest.fixture(scope="module")
def runs():
    return [read_likwid(sample_path(CPU_RUN)), read_likwid(sample_path(N1))]


@pytest.fixture(scope="module")
def roofs():
    return [*machine_roofline(MILAN_LOGS), *gpu_ceilings(gpu="V100-SXM2")]


def test_each_device_against_its_roofs(runs, roofs):
    table = Roofline.from_ceilings(roofs, points=points_dataframe(runs)).classify(
        points_dataframe(runs)).set_index("region")
    gpu = table.loc["kernel_assign_6 #1"]
    assert gpu["device"] == "gpu"
    assert (gpu["compute_roof"], gpu["bandwidth_roof"]) == ("V100-SXM2 DP peak", "V100-SXM2 HBM")
    assert gpu["ridge_flops_per_byte"] == pytest.approx(7800 / 900)
    assert gpu["bound"] == "memory"
    assert gpu["efficiency_percent"] == pytest.approx(100 * gpu["bandwidth_gbs"] / 900)
    assert round(gpu["efficiency_percent"], 2) == 82.15
    cpu = table.loc["<function_a>"]
    assert (cpu["compute_roof"], cpu["bandwidth_roof"]) == (
        "DP AVX FMA peak", "MEM (stream_mem_avx_fma, likwid-bench)")
    assert cpu["ridge_flops_per_byte"] == pytest.approx(820.02222 / 41.265565)
    assert cpu["efficiency_percent"] == pytest.approx(100 * 8.5541612 / 41.265565)
    # no GPU point is judged against a CPU roof, nor the other way round
    assert set(table.loc[table["device"] == "gpu", "compute_roof"]) == {"V100-SXM2 DP peak"}
    assert set(table.loc[table["device"] == "cpu", "compute_roof"]) == {"DP AVX FMA peak"}


def test_a_device_without_roofs_gets_its_own_empirical_ones(runs):
    points = points_dataframe(runs)
    roofline = Roofline.from_ceilings(machine_roofline(MILAN_LOGS), points=points)
    gpu_roofs = [r for r in roofline if r.device == "gpu"]
    # the largest GPU observations: kernel_assign_6 #3's 494.13 GFLOP/s, #2's 805.57 GB/s
    assert [(r.name, r.empirical) for r in gpu_roofs] == [("GPU empirical peak", True),
                                                         ("GPU empirical bandwidth", True)]
    gpu_points = points[points["device"] == "gpu"]
    assert gpu_roofs[0].gflops == pytest.approx(gpu_points["performance_gflops"].max())
    assert gpu_roofs[1].gbs == pytest.approx(gpu_points["bandwidth_gbs"].max())
    assert not any(r.empirical for r in roofline if r.device != "gpu")  # the CPU's are measured


def test_widget_and_static_plot_draw_both_devices_roofs(runs, roofs, tmp_path):
    with pytest.warns(CeilingWarning, match="another machine"):
        widget = RooflineWidget(runs, ceilings=roofs)
    # one roofline per device, the GPU's in the GPU colour family, the main (CPU) one last
    assert list(widget.figure.roof.colors) == [line_color("roof", "gpu"), line_color("roof", "cpu")]
    assert np.asarray(widget.figure.roof.y).shape == (2, 3)
    assert list(widget.figure.roof.labels) == [
        "GPU roofline (MEM, ridge at 8.667 FLOP/byte)", "CPU roofline (MEM, ridge at 19.87 FLOP/byte)"]
    ceilings = dict(zip(widget.figure.ceilings.labels, widget.figure.ceilings.colors))
    hbm = next(label for label in ceilings if label.startswith("V100-SXM2 HBM"))
    assert ceilings[hbm] == line_color("bandwidth", "gpu")
    # the slider moves the CPU roof; the GPU points keep theirs
    before = widget.to_dataframe().set_index("region")
    widget.peak_flops = 10.0
    after = widget.to_dataframe().set_index("region")
    assert widget.roofline.main_compute.device == "cpu"
    gpu_rows = before["device"] == "gpu"
    assert (after.loc[gpu_rows, "efficiency_percent"]
            == before.loc[gpu_rows, "efficiency_percent"]).all()
    assert (after.loc[~gpu_rows, "compute_roof"] == "Peak").all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CeilingWarning)
        payload = plot_roofline(runs, ceilings=roofs, filepath=tmp_path / "devices.png",
                                verbose=False)
    roofs_drawn = [line for line in payload["lines"] if line["kind"] == "roof"]
    assert [(line["name"], line["device"]) for line in roofs_drawn] == [
        ("GPU roofline", "gpu"), ("CPU roofline", "cpu")]
    axes = payload["figure"].axes[0]
    colours = {line.get_label(): line.get_color() for line in axes.get_lines()}
    assert colours["GPU roofline (MEM, ridge at 8.667 FLOP/byte)"] == line_color("roof", "gpu")
    assert [a["compute_roof"] for a in payload["analysis"]][-3:] == ["V100-SXM2 DP peak"] * 3



def test_ceilings_table_and_roof_tooltip_say_what_each_roof_bounds(runs, roofs):
    # sample 22's CPU roofs (machine_roofline: device "cpu", the DP kernel's precision) and
    # the V100's datasheet roofs (device "gpu"): the table and the tooltip name both
    with pytest.warns(CeilingWarning, match="another machine"):
        widget = RooflineWidget(runs, ceilings=roofs)
    widget.controls.ceilings_section.selected_index = 0  # opened: made now
    table = widget.controls.ceilings_html.value
    rows = {row.split("</td>")[0].rsplit(">", 1)[1]: row for row in table.split("<tr>")[2:]}
    cells = {label: [cell.rsplit(">", 1)[1] for cell in row.split("</td>")[1:5]]
             for label, row in rows.items()}
    assert cells["V100-SXM2 HBM 900 GB/s"] == ["bandwidth", "MEM", "gpu", ""]
    assert cells["V100-SXM2 DP 7800 GFLOP/s"] == ["compute", "", "gpu", "DP"]
    assert cells["MEM 41.27 GB/s"] == ["bandwidth", "MEM", "cpu", ""]
    assert cells["DP AVX FMA 820 GFLOP/s"] == ["compute", "", "cpu", "DP"]
    figure = widget.figure
    figure.ceilings._handle_custom_msgs(  # what bqplot sends for a hovered line
        figure.ceilings, {"event": "hover", "data": {"name": "V100-SXM2 DP 7800 GFLOP/s"}})
    tooltip = figure.roof_tooltip.value
    heads = [cell.split("</th>")[0].rsplit(">", 1)[1] for cell in tooltip.split("<tr>")[1:]]
    values = [cell.split("</td>")[0].rsplit(">", 1)[1] for cell in tooltip.split("<tr>")[1:]]
    # a compute roof bounds no memory level: no level row
    assert heads == ["roof", "name", "device", "precision", "from"]
    assert values[:4] == ["V100-SXM2 DP 7800 GFLOP/s", "V100-SXM2 DP peak", "gpu", "DP"]


KERNEL = "void stencil<double, 3>(const double*, double*, int)"


def _likwid_gpu_flops() -> str:
    """likwid-perfctr -W 0 -g FLOPS_DP -m output of region ``stencil`` (marker named after the
    kernel): 9e6 DFMA instructions (18e6 FLOP) in 2 ms on GPU 0 -> DP 9000 MFLOP/s."""
    lines = [HLINE, f"CPU name:\t{SKYLAKE_GOLD}", "CPU type:\tIntel Skylake SP processor",
             "CPU clock:\t2.59 GHz", HLINE, "Region stencil, Group 1: FLOPS_DP"]
    lines += table("Region Info", [("RDTSC Runtime [s]", "0.002000"), ("call count", "2")],
                   ["GPU 0"])
    lines += table("Event", [("SMSP_SASS_THREAD_INST_EXECUTED_OP_DFMA_PRED_ON_SUM", "GPU0",
                              "9000000")], ["Counter", "GPU 0"])
    lines.append("")
    lines += table("Metric", [("Runtime (RDTSC) [s]", "0.002000"), ("DP [MFLOP/s]", "9000")],
                   ["GPU 0"])
    return "\n".join(lines) + "\n"


def test_a_likwid_gpu_region_joins_an_ncu_export_of_the_same_kernel(tmp_path):
    # the ncu export holds the bytes and the time only: per launch 1e6 cycles at 1 GHz (1 ms)
    # and 36 MB of DRAM traffic; two launches -> 72e6 B / 2 ms = 36 GB/s
    rows = [(launch, KERNEL, metric, unit, value) for launch in (0, 1)
            for metric, unit, value in (("sm__cycles_elapsed.avg", "cycle", "1,000,000"),
                                        ("sm__cycles_elapsed.avg.per_second", "cycle/nsecond",
                                         "1.00"),
                                        ("dram__bytes.sum", "Mbyte", "36.00"))]
    (tmp_path / "ncu-bytes.csv").write_text(details(rows))
    (tmp_path / "likwid-gpu-flops.txt").write_text(_likwid_gpu_flops())
    with pytest.warns(LikwidReadWarning, match="no FLOP counters"):
        run = read_likwid([tmp_path / "likwid-gpu-flops.txt", tmp_path / "ncu-bytes.csv"])
    (point,) = points_dataframe(run).to_dict("records")
    # one point: 9 GFLOP/s (LIKWID) at 36 GB/s (ncu): 0.25 FLOP/byte, on the GPU
    assert (point["region"], point["device"], point["groups"]) == ("stencil", "gpu",
                                                                   "FLOPS_DP+NCU")
    assert point["performance_gflops"] == pytest.approx(9.0)
    assert point["bandwidth_gbs"] == pytest.approx(36.0)
    assert point["arithmetic_intensity_flops_per_byte"] == pytest.approx(0.25)
    # under the V100's roofs: 900 x 0.25 = 225 GFLOP/s attainable, 9 / 225 = 4 %
    judged = gpu_ceilings(gpu="V100-SXM2").classify(points_dataframe(run)).iloc[0]
    assert judged["attainable_gflops"] == pytest.approx(225.0)
    assert judged["efficiency_percent"] == pytest.approx(4.0)


def test_labels_of_two_devices_roofs_stay_apart_in_the_narrowest_plot(runs):
    from roofline_widget import BandwidthRoof, ComputeRoof
    from roofline_widget.look.ceiling_labels import label_boxes_px, place_labels
    from roofline_widget.look.ceiling_lines import ceiling_lines

    # the devices notebook's roofs: the GPU's slope passes just left of the CPU's ridge, where
    # the ridge label would go after the ceilings' labels: it goes first, and they make way
    roofs = [ComputeRoof("EPYC 7702 DP peak", 2048.0, "spec sheet", device="cpu",
                         precision="DP"),
             BandwidthRoof("EPYC 7702 DRAM", 204.8, "spec sheet", level="MEM", device="cpu"),
             *gpu_ceilings(gpu="V100-SXM2")]
    widget = RooflineWidget(runs, ceilings=roofs)  # spec-sheet roofs name no CPU: no warning
    state, area = widget.figure.scene, widget.figure.plot_area()
    lines, segments = ceiling_lines(state.roofline, state.x_range)
    layout = place_labels(lines, segments,
                          (state.roofline.ridge_point(), state.roofline.peak_flops),
                          state.x_range, state.y_range, area, state.obstacles)
    boxes = [box for box in label_boxes_px(layout, state.x_range, state.y_range, area) if box[0]]
    assert len(boxes) == 5  # 4 ceilings and the ridge
    for i, (text, left, right, bottom, top) in enumerate(boxes):
        for other, o_left, o_right, o_bottom, o_top in boxes[i + 1:]:
            apart = right <= o_left or o_right <= left or top <= o_bottom or o_top <= bottom
            assert apart, (text, other)
