"""The widget's roofs after trait changes: measured ceilings, the sliders' roofs, the roof that stays.

Data: sample 5 (``pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt``): five regions, the
largest observations <function_a>'s 2.1341472 GFLOP/s and <function_d>'s 28.5809575 GB/s.
Ceilings: sample 22 (an EPYC 7763's likwid-bench logs: DP 820.02222 GFLOP/s, L2 771.74215 GB/s,
MEM 41.265565 GB/s) -- measured on another CPU than sample 5's EPYC 7702, which the widget says.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from wild_samples import MILAN_LOGS

from roofline_widget import RooflineWidget, machine_roofline, plot_roofline, sample_path
from roofline_widget.roofs.roofline import ComputeRoof

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
EMPIRICAL_NOTE = "empirical ceilings are the largest observation"


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(*args, **kwargs)


def test_measured_ceilings_replace_the_empirical_ones(tmp_path):
    roofs = machine_roofline(MILAN_LOGS)
    widget = _quiet(PMGPU, ceilings=roofs)
    assert not widget.roofline.empirical
    assert [r.name for r in widget.roofline] == [r.name for r in roofs]
    assert EMPIRICAL_NOTE not in widget.controls.status_html.value
    assert not any("Empirical" in label for label in widget.figure.ceilings.labels)
    # the sliders show the measured main roofs: DP 820.02222, the MEM roof of the points
    assert widget.controls.flops_slider.value == pytest.approx(820.02222, rel=1e-4)
    assert widget.controls.bandwidth_slider.value == pytest.approx(41.265565, rel=1e-4)
    assert widget.controls.flops_empirical.description == "ceilings"
    assert widget.controls.flops_empirical.value
    # plot_roofline draws and judges the same roofs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(PMGPU, ceilings=roofs, filepath=tmp_path / "p.png",
                                verbose=False)
    assert payload["empirical_ceilings"] is False
    assert payload["ceilings"] == widget.roofline.to_dicts()
    assert payload["ridge_point"] == pytest.approx(widget.roofline.ridge_point())
    assert [a["efficiency_percent"] for a in payload["analysis"]] == pytest.approx(
        widget.to_dataframe()["efficiency_percent"].tolist())
    # without ceilings the empirical roofs are there, and said
    plain = RooflineWidget(PMGPU)
    assert plain.roofline.empirical
    assert EMPIRICAL_NOTE in plain.controls.status_html.value
    assert plain.controls.flops_empirical.description == "empirical"


def test_a_slider_peak_is_the_main_roof_and_the_button_resets_to_the_measured_one():
    widget = _quiet(PMGPU, ceilings=machine_roofline(MILAN_LOGS))
    widget.peak_flops = 100.0
    roofline = widget.roofline
    assert (roofline.main_compute.name, roofline.peak_flops) == ("Peak", 100.0)
    assert "DP AVX FMA peak" in [r.name for r in roofline.compute]  # still drawn, dashed
    assert not widget.controls.flops_empirical.value
    # <function_a> (0.2495 FLOP/byte) is still MEM bound: ridge 100 / 41.265565 = 2.423
    row = widget.to_dataframe().set_index("region").loc["<function_a>"]
    assert row["ridge_flops_per_byte"] == pytest.approx(100.0 / 41.265565)
    widget.controls.flops_empirical.value = True  # "ceilings": back to the measured roof
    assert widget.peak_flops is None
    assert widget.roofline.main_compute.name == "DP AVX FMA peak"


def test_dragging_the_peak_to_its_minimum_keeps_it_the_roof():
    one_core = ComputeRoof("1 core at 3.35 GHz boost", 53.6, "spec sheet")
    widget = RooflineWidget(PMGPU, ceilings=[one_core], peak_flops=2048.0, peak_bandwidth=204.8)
    slider = widget.controls.flops_slider
    lowest = 10 ** slider.min
    assert lowest < 53.6
    slider.value = lowest  # a drag in the browser to the slider's left end
    assert widget.peak_flops == pytest.approx(lowest)
    roofline = widget.roofline
    # the roof the slider moves stays THE roof (solid), below the 53.6 GFLOP/s ceiling
    assert roofline.main_compute.name == "Peak"
    assert roofline.peak_flops == pytest.approx(lowest)
    assert max(widget.figure.roof.y) == pytest.approx(lowest)
    assert "1 core at 3.35 GHz boost 53.6 GFLOP/s" in widget.figure.ceilings.labels
    # the ridge marker follows it: lowest / 204.8
    assert widget.figure.ridge.x[0] == pytest.approx(lowest / 204.8)
    assert widget.figure.ridge.y[0] == pytest.approx(lowest)
    # every point is judged against it
    table = widget.to_dataframe()
    assert set(table["compute_roof"]) == {"Peak"}
    assert (table["attainable_gflops"] <= lowest * (1 + 1e-12)).all()
    np.testing.assert_allclose(table["attainable_gflops"], np.minimum(
        lowest, 204.8 * table["arithmetic_intensity_flops_per_byte"]), rtol=1e-12)


@pytest.mark.parametrize("peaks", [(None, None), (500.0, None), (None, 100.0)])
def test_the_few_rows_the_roofs_depend_on_give_every_points_roofs(peaks):
    # pmgpu (CPU) with GENE's three V100 kernels (sample N1): two devices, each its own empirical
    # roofs; and the LULESH sizes log, whose CalcPressureForElems of run #1 reports 19,514,360
    # GFLOP/s on one thread (a wrapped counter): no empirical roof from it
    from wild_samples import LULESH_SIZES

    from roofline_widget import read_likwid
    from roofline_widget.points import RegionSums
    from roofline_widget.roofs.roofline import Roofline, roof_keys
    from roofline_widget.widget.roofs import roof_basis

    two_devices = [read_likwid(PMGPU), read_likwid(sample_path(
        "ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"))]
    for data in (two_devices, str(LULESH_SIZES)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            points = RegionSums.from_runs(data).select().points.reset_index(drop=True)
        keys = roof_keys(points)
        few, few_keys = roof_basis(points, keys)
        assert len(few) < len(points)
        every = Roofline.from_ceilings(None, *peaks, points, peaks="add", keys=keys)
        kept = Roofline.from_ceilings(None, *peaks, few, peaks="add", keys=few_keys)
        assert list(kept) == list(every)
        assert (kept.main_compute, kept.main_bandwidth) == (every.main_compute,
                                                            every.main_bandwidth)
