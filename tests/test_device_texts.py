"""A GPU's point names its device wherever a point is described by hovering it, and
``color_by="device"`` colours the points by device family, one colour per family (issue 34).

Points: sample 5 (LIKWID on an AMD EPYC 7702: CPU points, whose texts name no device), sample
N1 (three GENE kernels on a V100; the export names no device: "NVIDIA GPU") and a
rocprof-compute workload of sample R2's dispatch with 16,384 FP64 FMAs beside sample R3's
``sysinfo.csv`` (gpu_model MI200, gfx90a, 104 CUs: "AMD MI200 (gfx90a, 104 CUs)").  By hand
(tests/test_read_rocprof.py): 64 x 2 x 16,384 = 2,097,152 FLOP in 20,160 ns = 104.0254
GFLOP/s at 16,777,728 bytes = 0.1249962 FLOP/byte.  Colour codes by family follow
``DEVICE_FAMILY_ORDER`` (cpu, gpu, nvidia, amd): tab10's blue, orange, green, red.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from render_rocprof import workload
from test_widget import hover

from roofline_widget import RooflineWidget, plot_roofline, read_likwid, read_rocprof, sample_path
from roofline_widget.cli.svg_titles import point_texts as svg_point_texts
from roofline_widget.look.colors import PALETTE
from roofline_widget.look.texts import device_text
from roofline_widget.settings import COLOR_CHOICES
from roofline_widget.static.html_page import STATE_TYPE
from roofline_widget.widget.html.tooltips import tooltip_html
from roofline_widget.widget.point_style import DEVICE_FAMILY_ORDER

CPU_RUN = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
N1 = "ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"
MI200 = "AMD MI200 (gfx90a, 104 CUs)"


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = workload(tmp_path_factory.mktemp("rocprof") / "MI200",
                      {"SQ_INSTS_VALU_FMA_F64": "16384"})
    return [_quiet(read_likwid, sample_path(CPU_RUN)), _quiet(read_likwid, sample_path(N1)),
            _quiet(read_rocprof, folder)]


def test_the_device_text_of_each_family():
    assert device_text("amd", MI200) == MI200  # the name says "AMD"
    assert device_text("nvidia", "Tesla V100-SXM2-16GB") == "NVIDIA GPU: Tesla V100-SXM2-16GB"
    assert device_text("nvidia", None) == device_text("nvidia", float("nan")) == "NVIDIA GPU"
    assert device_text("gpu", "") == "GPU"
    assert device_text("cpu", "AMD EPYC 7702 64-Core Processor") == ""
    assert device_text(None, None) == ""


def test_the_widgets_tooltip_names_a_gpus_device(runs):
    widget = _quiet(RooflineWidget, runs)
    points = widget.figure.scene.point_rows
    rows = {region: index for index, region in enumerate(points["region"])}
    hover(widget, {"event": "hover", "point": {"index": rows["vecCopy"]}})
    amd = widget.figure.tooltip.value
    cells = re.findall(r"<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", amd)
    assert [label for label, _ in cells][:3] == ["region", "rank", "device"]
    assert dict(cells)["device"] == MI200
    assert dict(cells)["GFLOP/s"] == "104"  # 104.0254 at 4 digits
    hover(widget, {"event": "hover", "point": {"index": rows["kernel_assign_6 #1"]}})
    assert dict(re.findall(r"<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>",
                           widget.figure.tooltip.value))["device"] == "NVIDIA GPU"
    hover(widget, {"event": "hover", "point": {"index": rows["<function_a>"]}})
    assert ">device<" not in widget.figure.tooltip.value  # a CPU point: as before


def test_a_hostile_device_name_is_escaped():
    row = {"region": "r", "rank": 0, "performance_gflops": 1.0,
           "arithmetic_intensity_flops_per_byte": 1.0, "bound": "memory",
           "device_family": "amd", "device_name": "<img src=x onerror=alert(1)>"}
    text = tooltip_html(pd.Series(row))
    assert "<img" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_the_static_plots_texts_name_the_device(runs, tmp_path):
    payload = _quiet(plot_roofline, runs, verbose=False)
    hover_texts = dict(zip((p["region"] for p in payload["points"]), payload["hover"]))
    assert f"<br>device: {MI200}<br>" in hover_texts["vecCopy"]
    assert "<br>device: NVIDIA GPU<br>" in hover_texts["kernel_assign_6 #2"]
    assert "device" not in hover_texts["<function_a>"]  # a CPU point: as before
    assert payload["devices"] == [""] * 5 + ["NVIDIA GPU"] * 3 + [MI200]
    titles = [text for _x, _y, text in svg_point_texts(payload)[0]]
    amd = next(text for text in titles if text.startswith("vecCopy"))
    assert amd.split("\n")[0] == f"vecCopy, run pmc_perf, on {MI200}"
    assert amd.split("\n")[1].startswith("0.125 FLOP/byte, 104 GFLOP/s")
    cpu = next(text for text in titles if text.startswith("<function_a>"))
    assert ", on " not in cpu.split("\n")[0]


def test_the_shared_pages_hover_texts_name_the_device(runs, tmp_path):
    widget = _quiet(RooflineWidget, runs)
    text = widget.save_html(tmp_path / "devices.html").read_text(encoding="utf-8")
    state = json.loads(re.search(rf'<script type="{re.escape(STATE_TYPE)}">(.*?)</script>', text,
                                 re.S).group(1))["state"]
    names = [name for entry in state.values() if entry["model_name"] == "ScatterModel"
             for name in entry["state"].get("names") or [] if name]
    amd = next(name for name in names if name.startswith("vecCopy"))
    # region, device, run (three files), efficiency: the lines of html_marks.point_texts
    assert amd.split("\n")[:3] == ["vecCopy", MI200, "run pmc_perf"]
    nvidia = next(name for name in names if name.startswith("kernel_assign_6 #1"))
    assert nvidia.split("\n")[1] == "NVIDIA GPU"
    cpu = next(name for name in names if name.startswith("<function_a>"))
    assert cpu.split("\n")[1] == f"run {CPU_RUN.removesuffix('.txt')}"  # no device line


# ------------------------------------------------------------------ colour by device
def test_points_coloured_by_device_family(runs):
    assert "device" in COLOR_CHOICES
    widget = _quiet(RooflineWidget, runs, color_by="device")
    points = widget.figure.scene.point_rows
    codes = dict(zip(points["region"], np.asarray(widget.figure.scene.points.codes, dtype=int)))
    assert {region: codes[region] for region in ("<function_a>", "kernel_assign_6 #1", "vecCopy")} \
        == {"<function_a>": 0, "kernel_assign_6 #1": 2, "vecCopy": 3}
    assert sorted(set(codes.values())) == [0, 2, 3]  # five CPU, three NVIDIA, one AMD point
    assert [PALETTE[code] for code in (0, 2, 3)] == ["#1f77b4", "#2ca02c", "#d62728"]
    legend = widget.controls.legend_html.value
    assert legend.index("<b>Devices</b>") < legend.index(">CPU<") < legend.index(">NVIDIA GPU<") \
        < legend.index(">AMD GPU<")
    assert "#d62728" in legend
    assert "#2ca02c" in legend
    assert widget.controls.color_choice.value == "device"
    # by region the nine points have nine colours; back to devices, the same three again
    widget.color_by = "region"
    assert len(set(np.asarray(widget.figure.scene.points.codes, dtype=int))) == 9
    assert "<b>Regions</b>" in widget.controls.legend_html.value
    widget.controls.color_choice.value = "device"
    assert sorted(set(np.asarray(widget.figure.scene.points.codes, dtype=int))) == [0, 2, 3]


def test_a_cpu_plot_by_device_is_one_colour_and_a_family_keeps_its_code():
    widget = _quiet(RooflineWidget, sample_path(CPU_RUN), color_by="device")
    assert set(np.asarray(widget.figure.scene.points.codes, dtype=int)) == {0}
    assert DEVICE_FAMILY_ORDER.index("amd") == 3  # AMD is red wherever it is drawn


def test_a_comparison_coloured_by_device_draws_grey_arrows():
    # sample 16 ("take") against sample 2 ("give", its baseline): both CPU; a comparison's rows
    # name no device family, so its two arrows (Setup, Solve) are OTHER_COLOR, never a crash
    from roofline_widget.look.colors import OTHER_COLOR

    widget = _quiet(RooflineWidget, sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"),
                    baseline=sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"),
                    color_by="device")
    assert list(np.asarray(widget.figure.scene.points.codes, dtype=int)) == [0, 0]
    assert widget.figure.scene.comparison.arrows.colors == (OTHER_COLOR, OTHER_COLOR)
