"""Tests of roofline_widget.roofs.roofline: roofs, ridge points, attainable performance, efficiency."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline_widget import sample_path
from roofline_widget.points import points_dataframe
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

MEM_DP_4T = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"


def skylake_roofs() -> Roofline:
    """Several roofs drawn together (numbers of a made-up socket, for the arithmetic)."""
    compute = [ComputeRoof("Scalar", 100.0, "spec sheet"),
               ComputeRoof("AVX-512 FMA", 1600.0, "spec sheet"),
               ComputeRoof("AVX2 FMA", 800.0, "spec sheet")]
    bandwidth = [BandwidthRoof("DRAM", 100.0, "likwid-bench triad, 14 threads"),
                 BandwidthRoof("L1", 3200.0, "likwid-bench load, 14 threads"),
                 BandwidthRoof("L3", 400.0, "likwid-bench triad, 14 threads"),
                 BandwidthRoof("L2", 1600.0, "likwid-bench triad, 14 threads")]
    return Roofline(compute, bandwidth)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), -float("inf"), "fast", None,
                                 True, [1.0]])
def test_non_positive_or_non_finite_roofs_raise(bad):
    # the rule of a number setting (roofline_widget.settings.rules.number), naming the roof
    with pytest.raises(ValueError, match=r"^compute roof 'peak' must be (a|a finite|positive)"):
        ComputeRoof("peak", bad)
    with pytest.raises(ValueError, match=r"^bandwidth roof 'DRAM' must be (a|a finite|positive)"):
        BandwidthRoof("DRAM", bad)


def test_roofs_are_frozen_and_need_names():
    roof = ComputeRoof("peak", np.float32(2.5))
    assert roof.gflops == 2.5
    assert type(roof.gflops) is float
    assert roof.source == "user"
    with pytest.raises(dataclasses.FrozenInstanceError):
        roof.gflops = 3.0
    with pytest.raises(ValueError, match="name"):
        BandwidthRoof("", 1.0)
    with pytest.raises(ValueError, match="source"):
        BandwidthRoof("DRAM", 1.0, source="")
    with pytest.raises(ValueError, match="ComputeRoof"):
        Roofline([], [BandwidthRoof("DRAM", 1.0)])
    with pytest.raises(ValueError, match="BandwidthRoof"):
        Roofline([ComputeRoof("peak", 1.0)], [ComputeRoof("peak", 1.0)])


def test_labels_carry_value_and_provenance():
    assert ComputeRoof("AVX2 FMA", 800.0, "spec sheet").label == "AVX2 FMA: 800 GFLOP/s (spec sheet)"
    dram = BandwidthRoof("DRAM", 140.25, "likwid-bench triad, 64 threads")
    assert dram.label == "DRAM: 140.2 GB/s (likwid-bench triad, 64 threads)"


# ---------------------------------------------------------------------------
# model
# ---------------------------------------------------------------------------
def test_several_roofs_top_ones_and_exact_ridge_points():
    roof = skylake_roofs()
    assert [r.name for r in roof.compute] == ["AVX-512 FMA", "AVX2 FMA", "Scalar"]
    assert [r.name for r in roof.bandwidth] == ["L1", "L2", "L3", "DRAM"]
    assert roof.peak_flops == 1600.0
    assert roof.peak_bandwidth == 3200.0
    assert roof.ridge_point() == 0.5                        # 1600 / 3200
    assert roof.ridge_point("DRAM") == 16.0                 # 1600 / 100
    assert roof.ridge_point("DRAM", "Scalar") == 1.0        # 100 / 100
    assert roof.ridge_point(roof.bandwidth[2], roof.compute[1]) == 2.0   # 800 / 400
    with pytest.raises(ValueError, match="no bandwidth roof named 'HBM'"):
        roof.ridge_point("HBM")
    assert not roof.empirical
    assert not roof.empirical_flops
    assert not roof.empirical_bandwidth


def test_attainable_efficiency_and_bound_vectorised():
    roof = Roofline([ComputeRoof("peak", 1000.0)], [BandwidthRoof("DRAM", 200.0)])
    intensity = np.array([0.5, 5.0, 50.0])
    # min(1000, 200 * 0.5) = 100; at the ridge 5 FLOP/byte both are 1000; then 1000
    np.testing.assert_array_equal(roof.attainable(intensity), [100.0, 1000.0, 1000.0])
    np.testing.assert_allclose(roof.efficiency(intensity, [50.0, 500.0, 1000.0]), [50.0, 50.0, 100.0])
    assert roof.bound([0.5, 4.999, 5.0, 50.0, np.nan]).tolist() == \
        ["memory", "memory", "compute", "compute", "n/a"]
    assert roof.attainable(2.0) == 400.0


def test_from_peaks_measured_and_empirical():
    points = pd.DataFrame({"performance_gflops": [10.0, 40.0, np.nan],
                           "bandwidth_gbs": [8.0, 2.0, 1.0],
                           "arithmetic_intensity_flops_per_byte": [1.25, 20.0, np.nan]})
    measured = Roofline.from_peaks(100.0, 50.0)
    assert (measured.peak_flops, measured.peak_bandwidth, measured.empirical) == (100.0, 50.0, False)
    empirical = Roofline.from_peaks(None, 50.0, points)
    assert empirical.peak_flops == 40.0
    assert empirical.empirical_flops
    assert not empirical.empirical_bandwidth
    assert empirical.empirical
    both = Roofline.from_peaks(None, None, points)
    assert (both.peak_flops, both.peak_bandwidth) == (40.0, 8.0)
    assert all(r.source == "empirical" for r in both.compute + both.bandwidth)
    assert "empirical" in both.compute[0].label
    with pytest.raises(ValueError, match="no peak given"):
        Roofline.from_peaks(None, 1.0)
    for bad in (0, -2.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="peak_flops"):
            Roofline.from_peaks(bad, 1.0)
        with pytest.raises(ValueError, match="peak_bandwidth"):
            Roofline.from_peaks(1.0, bad)


def test_empirical_roofline_on_gmgpolar_sample_by_hand():
    points = points_dataframe(sample_path(MEM_DP_4T))
    roof = Roofline.from_peaks(None, None, points)
    # peak: Solve's 4383.3768 MFLOP/s; bandwidth: Setup's 541.7965 MB/s
    assert roof.peak_flops == pytest.approx(4.3833768)
    assert roof.peak_bandwidth == pytest.approx(0.5417965)
    # ridge 4.3833768 / 0.5417965 = 8.0904...
    assert roof.ridge_point() == pytest.approx(4.3833768 / 0.5417965)
    table = roof.classify(points).set_index("region")
    # Setup: intensity 1.9500623 / 0.5417965 = 3.599 < ridge -> memory bound, on the slope (100 %)
    assert table.loc["Setup", "bound"] == "memory"
    assert table.loc["Setup", "efficiency_percent"] == pytest.approx(100.0)
    # Solve: intensity 4.3833768 / 0.5132946 = 8.540 > ridge -> compute bound, on the roof
    assert table.loc["Solve", "bound"] == "compute"
    assert table.loc["Solve", "efficiency_percent"] == pytest.approx(100.0)
    assert not table["above_roof"].any()
    # measured roofs of a Xeon Gold 6132 socket (14 cores x 2.6 GHz x 32 DP FLOP/cycle = 1164.8
    # GFLOP/s; 6 channels DDR4-2666 = 128 GB/s): Setup reaches 0.5417965 * 3.5993 / (128 * 3.5993)
    measured = Roofline.from_peaks(1164.8, 128.0).classify(points).set_index("region")
    assert measured.loc["Setup", "efficiency_percent"] == pytest.approx(100 * 0.5417965 / 128)
    assert measured.loc["Setup", "bound"] == "memory"


# ---------------------------------------------------------------------------
# drawing
# ---------------------------------------------------------------------------
def test_lines_run_to_the_ridges():
    roof = skylake_roofs()
    lines = roof.lines(0.01, 100.0)
    by_name = {(line["kind"], line["name"]): line for line in lines}
    assert len(lines) == 3 + 4 + 1
    dram = by_name[("bandwidth", "DRAM")]
    # DRAM slope from x_min up to its ridge with the top compute roof: 1600 / 100 = 16
    assert dram["x"] == [0.01, 16.0]
    assert dram["y"] == [1.0, 1600.0]
    assert dram["value"] == 100.0
    assert dram["source"] == "likwid-bench triad, 14 threads"
    l1 = by_name[("bandwidth", "L1")]
    assert l1["x"] == [0.01, 0.5]
    assert l1["y"] == [32.0, 1600.0]
    # each compute roof from its ridge with the top (L1) slope: 800 / 3200 = 0.25, 100 / 3200
    assert by_name[("compute", "AVX2 FMA")]["x"] == [0.25, 100.0]
    assert by_name[("compute", "Scalar")]["x"] == [0.03125, 100.0]
    assert by_name[("compute", "Scalar")]["y"] == [100.0, 100.0]
    main = lines[-1]
    assert main["kind"] == "roof"
    assert main["value"] == 0.5
    # the polyline passes exactly through the ridge point (0.5, 1600)
    assert main["x"] == [0.01, 0.5, 100.0]
    assert main["y"] == [32.0, 1600.0, 1600.0]


def test_lines_clip_to_the_range_and_validate_it():
    roof = Roofline([ComputeRoof("peak", 1000.0)], [BandwidthRoof("DRAM", 200.0)])
    # ridge at 5, right of x_max: the slope stops at x_max and no knee appears in the roof
    lines = roof.lines(0.1, 2.0)
    assert lines[0]["x"] == [0.1, 2.0]
    assert lines[0]["y"] == [20.0, 400.0]
    assert lines[1]["x"] == [2.0, 2.0]
    assert lines[-1]["x"] == [0.1, 2.0]
    assert lines[-1]["y"] == [20.0, 400.0]
    with pytest.raises(ValueError, match="larger than x_min"):
        roof.lines(1.0, 1.0)
    with pytest.raises(ValueError, match="x_min"):
        roof.lines(0.0, 1.0)


def test_empirical_is_labelled_in_lines():
    points = pd.DataFrame({"performance_gflops": [5.0], "bandwidth_gbs": [2.0],
                           "arithmetic_intensity_flops_per_byte": [2.5]})
    lines = Roofline.from_peaks(None, 10.0, points).lines(0.1, 10.0)
    # the peak (5 GFLOP/s, the point's) is empirical, the 10 GB/s given is not
    assert lines[-1]["name"] == "Roofline with empirical peak"
    assert Roofline.from_peaks(None, None, points).lines(0.1, 10.0)[-1]["name"] == (
        "Empirical roofline")
    assert lines[-1]["empirical"]
    assert "empirical" in lines[-1]["source"]
    compute = next(line for line in lines if line["kind"] == "compute")
    assert compute["empirical"]
    assert "(empirical)" in compute["label"]


def test_with_peaks_replaces_the_top_roofs():
    roof = skylake_roofs().with_peaks(peak_flops=2000.0)
    assert roof.peak_flops == 2000.0
    assert roof.compute[0].name == "AVX-512 FMA"
    assert roof.compute[0].source == "user"
    assert len(roof.compute) == 3
    assert roof.peak_bandwidth == 3200.0
    points = pd.DataFrame({"performance_gflops": [5.0], "bandwidth_gbs": [2.0]})
    fixed = Roofline.from_peaks(None, None, points).with_peaks(50.0, 20.0)
    assert not fixed.empirical
    assert (fixed.peak_flops, fixed.peak_bandwidth) == (50.0, 20.0)
    assert fixed.compute[0].name == "Peak"
    with pytest.raises(ValueError, match="peak_bandwidth"):
        fixed.with_peaks(peak_bandwidth=-1)


def test_to_dicts_lists_every_roof():
    rows = skylake_roofs().to_dicts()
    assert [(r["kind"], r["name"]) for r in rows][:3] == [
        ("compute", "AVX-512 FMA"), ("compute", "AVX2 FMA"), ("compute", "Scalar")]
    assert rows[3] == {"name": "L1", "kind": "bandwidth", "value": 3200.0, "unit": "GB/s",
                       "source": "likwid-bench load, 14 threads", "empirical": False,
                       "level": None, "device": None, "precision": None, "family": None}


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------
_rates = st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False)


def _points(pairs) -> pd.DataFrame:
    performance = np.array([p for p, _ in pairs])
    bandwidth = np.array([b for _, b in pairs])
    return pd.DataFrame({"performance_gflops": performance, "bandwidth_gbs": bandwidth,
                         "arithmetic_intensity_flops_per_byte": performance / bandwidth})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_rates, _rates), min_size=1, max_size=20))
def test_no_point_above_empirical_roofs(pairs):
    points = _points(pairs)
    table = Roofline.from_peaks(None, None, points).classify(points)
    assert not table["above_roof"].any()
    assert (table["efficiency_percent"] <= 100.0 * (1 + 1e-9)).all()
    assert (table["efficiency_percent"] > 0).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_rates, _rates), min_size=1, max_size=20), _rates, _rates)
def test_efficiency_above_100_only_when_flagged(pairs, peak_flops, peak_bandwidth):
    points = _points(pairs)
    table = Roofline.from_peaks(peak_flops, peak_bandwidth).classify(points)
    over = table["efficiency_percent"] > 100.0 * (1 + 1e-9)
    assert (over == table["above_roof"]).all()
    # attainable is the minimum of both roofs, and never above either
    assert (table["attainable_gflops"] <= peak_flops).all()
    expected = np.minimum(peak_flops, peak_bandwidth * table["arithmetic_intensity_flops_per_byte"])
    np.testing.assert_allclose(table["attainable_gflops"], expected, rtol=0)


@settings(max_examples=60, deadline=None)
@given(_rates, _rates)
def test_ridge_point_is_where_both_roofs_meet(peak_flops, peak_bandwidth):
    roof = Roofline.from_peaks(peak_flops, peak_bandwidth)
    ridge = roof.ridge_point()
    assert math.isclose(peak_bandwidth * ridge, peak_flops, rel_tol=1e-12)
    main = roof.lines(ridge / 10, ridge * 10)[-1]
    assert main["x"][1] == ridge
    assert main["y"][1] == peak_flops
