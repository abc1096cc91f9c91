"""Each point is judged against the roofs of its own memory level, device and precision.

Ceilings: sample 22 (``roofline_widget/data/machine_milan_epyc7763_16c/``, likwid-bench on 16
cores of an EPYC 7763), as ``machine_roofline`` reads them (the numbers as the logs print them):

* DP: ``peakflops_avx_fma`` 820022.22 MFlops/s -> 820.02222 GFLOP/s
* SP: ``peakflops_sp_avx_fma`` 1639166.87 MFlops/s -> 1639.16687 GFLOP/s
* L2: ``load`` in ``-g L2`` 771742.15 MByte/s -> 771.74215 GB/s; ridge 820.02222 / 771.74215 = 1.06256
* MEM: ``stream_mem_avx_fma`` run under ``-g MEM1`` (41272.67 MByte/s) and ``-g MEM2``
  (41258.46): the median, 41.265565 GB/s; ridge 820.02222 / 41.265565 = 19.8718 FLOP/byte

Points: rendered by tests/render_likwid.py (likwid-perfctr MEM_DP text, two hardware threads,
every number chosen; rendered, not measured) and the rendered L2/L3/MEM_DP program
(``render_likwid.PROGRAM``, worked by hand in tests/test_rendered_levels.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import render_likwid
from render_likwid import Region, perfctr_output, render_program
from wild_samples import MILAN_LOGS

from roofline_widget import (
    RooflineWidget,
    hierarchical_points,
    machine_roofline,
    plot_roofline,
    points_dataframe,
    read_likwid,
)
from roofline_widget.io import read_likwid_text
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline

DP_PEAK, SP_PEAK, L2_ROOF, MEM_ROOF = 820.02222, 1639.16687, 771.74215, 41.265565
X, Y = "arithmetic_intensity_flops_per_byte", "performance_gflops"


def _blocked_region() -> Region:
    """A cache-blocked kernel: 2 threads, 0.5 s, each 499.875e6 AVX-512 DP instructions (8 FLOP
    each) and 1e6 scalar ones: 4e9 FLOP / 0.5 s = 8 GFLOP/s per thread, 16 GFLOP/s summed; on the
    socket's 6 memory
    channels 9e6 reads + 1e6 writes each: 60e6 lines x 64 B = 3.84e9 B / 0.5 s = 7.68 GB/s
    (uncore: counted on the first thread only).  DRAM intensity 16 / 7.68 = 2.0833 FLOP/byte."""
    core = 0.9 * 0.5 * render_likwid.CLOCK_HZ  # 90 % unhalted, CPI 0.5
    counts = {"FIXC0": [2 * core] * 2, "FIXC1": [core] * 2, "FIXC2": [core] * 2,
              "PWR0": [30.0, 0], "PWR3": [5.0, 0], "PMC1": [1_000_000] * 2,
              "PMC3": [499_875_000] * 2}
    for channel in range(6):
        counts[f"MBOX{channel}C0"] = [9_000_000, 0]
        counts[f"MBOX{channel}C1"] = [1_000_000, 0]
    return Region("blocked", (0, 1), (0.5, 0.5), (1, 1), counts)


@pytest.fixture(scope="module")
def milan():
    return machine_roofline(MILAN_LOGS)


@pytest.fixture(scope="module")
def blocked():
    text = perfctr_output("MEM_DP", [_blocked_region()])
    return points_dataframe(read_likwid_text(text, "blocked.txt"))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    paths = render_program(tmp_path_factory.mktemp("rendered"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_likwid([paths["L2"], paths["L3"], paths["MEM_DP"]])


# ------------------------------------------------------------------ a DRAM-intensity point
def test_a_dram_intensity_point_is_judged_against_the_mem_roof(milan, blocked):
    assert [(r.level, r.gbs) for r in milan.bandwidth] == [("L2", L2_ROOF), ("MEM", pytest.approx(MEM_ROOF))]
    assert milan.compute[0].gflops == DP_PEAK
    (row,) = milan.classify(blocked).to_dict("records")
    assert row[Y] == pytest.approx(16.0)
    assert row[X] == pytest.approx(16.0 / 7.68)
    # against the MEM roof: 2.0833 < ridge 19.872 -> memory bound; attainable 41.265565 x 2.0833
    # = 85.970 GFLOP/s; efficiency 16 / 85.970 = 18.61 % (= 7.68 / 41.265565: on the slope the
    # efficiency is the measured bandwidth over the roof's)
    assert row["bound"] == "memory"
    assert row["attainable_gflops"] == pytest.approx(MEM_ROOF * 16.0 / 7.68)
    assert row["efficiency_percent"] == pytest.approx(100 * 7.68 / MEM_ROOF)
    assert row["efficiency_percent"] == pytest.approx(18.611, abs=1e-3)
    assert row["ridge_flops_per_byte"] == pytest.approx(DP_PEAK / MEM_ROOF)
    assert (row["compute_roof"], row["bandwidth_roof"]) == (
        "DP AVX FMA peak", "MEM (stream_mem_avx_fma, likwid-bench)")
    # what the highest (L2) roof said before, taken for any level: 2.0833 > ridge 1.0626 ->
    # "compute bound" at 16 / 820.02 = 1.95 % -- the wrong roof
    wrong = Roofline(milan.compute, [BandwidthRoof("L2 for any level", L2_ROOF)]).classify(
        blocked).iloc[0]
    assert (wrong["bound"], round(wrong["efficiency_percent"], 2)) == ("compute", 1.95)
    # each level has its own ridge
    assert milan.ridge_point(level="MEM") == pytest.approx(19.8718, abs=1e-4)
    assert milan.ridge_point(level="L2") == pytest.approx(1.06256, abs=1e-5)
    assert np.isnan(milan.ridge_point(level="L3"))


def test_the_static_plot_and_the_widget_say_the_same(milan, blocked, tmp_path):
    run = read_likwid_text(perfctr_output("MEM_DP", [_blocked_region()]), "blocked.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rendered on a Xeon, the ceilings an EPYC's
        payload = plot_roofline(run, ceilings=milan, filepath=tmp_path / "p.png", verbose=False)
        widget = RooflineWidget(run, ceilings=milan)
    (analysis,) = payload["analysis"]
    assert analysis["bound"] == "memory"
    assert analysis["efficiency_percent"] == pytest.approx(100 * 7.68 / MEM_ROOF)
    # the legend's roofline is the MEM one: ridge at 19.87, not L2's 1.063
    roof = payload["lines"][-1]
    assert roof["label"] == "Roofline (MEM, ridge at 19.87 FLOP/byte)"
    legend = [t.get_text() for t in payload["figure"].axes[0].get_legend().get_texts()]
    assert "Roofline (MEM, ridge at 19.87 FLOP/byte)" in legend
    assert payload["ridge_point"] == pytest.approx(DP_PEAK / MEM_ROOF)
    row = widget.to_dataframe().iloc[0]
    assert row["bound"] == analysis["bound"]
    assert row["efficiency_percent"] == pytest.approx(analysis["efficiency_percent"])
    assert widget.roofline.ridge_point() == pytest.approx(payload["ridge_point"])
    assert list(widget.figure.roof.labels) == [roof["label"]]


def test_dp_points_against_dp_peaks_and_sp_against_sp(milan, blocked):
    sp = machine_roofline(MILAN_LOGS, precision="SP")
    both = Roofline([*milan.compute, *sp.compute], milan.bandwidth)
    assert [(r.precision, r.gflops) for r in both.compute] == [("SP", SP_PEAK), ("DP", DP_PEAK)]
    points = pd.concat([blocked, blocked.assign(flops_metric="SP [MFLOP/s]"),
                        blocked.assign(flops_metric="HP [MFLOP/s]")], ignore_index=True)
    table = both.classify(points)
    assert table["compute_roof"].tolist() == ["DP AVX FMA peak", "SP AVX FMA peak", ""]
    # ridges 820.02222 / 41.265565 (DP) and 1639.16687 / 41.265565 (SP); no HP peak: not judged
    assert table["ridge_flops_per_byte"].iloc[:2].tolist() == pytest.approx(
        [DP_PEAK / MEM_ROOF, SP_PEAK / MEM_ROOF])
    assert table["bound"].iloc[2] == "no HP compute roof"
    assert np.isnan(table["efficiency_percent"].iloc[2])


def test_no_roof_of_the_points_level_is_said_not_borrowed(milan, blocked):
    only_l2 = Roofline(milan.compute, [milan.bandwidth[0]])
    widget_like = only_l2.classify(blocked.assign(bandwidth_metric="L3 bandwidth [MBytes/s]"))
    row = widget_like.iloc[0]
    assert row["bound"] == "no L3 roof"
    assert np.isnan(row["attainable_gflops"])
    assert np.isnan(row["efficiency_percent"])
    assert not row["above_roof"]
    assert row["compute_roof"] == "DP AVX FMA peak"
    assert row["bandwidth_roof"] == ""


# ------------------------------------------------------------------ rendered L2/L3/MEM sets
# the program's levels (tests/test_rendered_levels.py): GB/s of triad 46.336 (L2), 21.12 (L3),
# 11.52 (MEM) at 7.4 GFLOP/s; of stencil<3d> 11.52, 22.4, 4.608 at 3.04 GFLOP/s
LEVEL_GBS = {("triad", "L2"): 46.336, ("triad", "L3"): 21.12, ("triad", "MEM"): 11.52,
             ("stencil<3d>", "L2"): 11.52, ("stencil<3d>", "L3"): 22.4,
             ("stencil<3d>", "MEM"): 4.608}
GFLOPS = {"triad": 7.4, "stencil<3d>": 3.04}
# a socket's roofs (user numbers): 200 GFLOP/s, L2 100 GB/s (ridge 2), L3 50 (4), MEM 20 (10)
LEVEL_ROOFS = {"L2": 100.0, "L3": 50.0, "MEM": 20.0}


def _level_roofs(levels=("L2", "L3", "MEM")) -> Roofline:
    return Roofline([ComputeRoof("socket DP peak", 200.0, device="cpu", precision="DP")],
                    [BandwidthRoof(f"{lv} bench", LEVEL_ROOFS[lv], level=lv, device="cpu")
                     for lv in levels])


def test_each_level_row_against_its_level_roof(program):
    table = _level_roofs().classify(hierarchical_points(program))
    assert len(table) == 6
    for row in table.itertuples(index=False):
        level, gbs = str(row.level), LEVEL_GBS[(row.region, str(row.level))]
        roof = LEVEL_ROOFS[level]
        # every intensity is below its ridge (200 / roof = 2, 4, 10): memory bound at
        # roof x intensity; efficiency = measured GB/s / roof GB/s
        assert row.bound == "memory"
        assert row.ridge_flops_per_byte == pytest.approx(200.0 / roof)
        assert row.attainable_gflops == pytest.approx(roof * GFLOPS[row.region] / gbs)
        assert row.efficiency_percent == pytest.approx(100 * gbs / roof)
        assert row.bandwidth_roof == f"{level} bench"
    by_key = table.set_index(["region", table["level"].astype(str)])
    # triad: 46.34 % of L2, 42.24 % of L3, 57.6 % of MEM; stencil<3d>: 11.52, 44.8, 23.04 %
    assert by_key["efficiency_percent"].round(2).to_dict() == {
        ("triad", "L2"): 46.34, ("triad", "L3"): 42.24, ("triad", "MEM"): 57.6,
        ("stencil<3d>", "L2"): 11.52, ("stencil<3d>", "L3"): 44.8, ("stencil<3d>", "MEM"): 23.04}


def test_a_set_without_l3_leaves_the_l3_rows_unjudged(program, tmp_path):
    roofs = _level_roofs(("L2", "MEM"))
    table = roofs.classify(hierarchical_points(program))
    l3 = table[table["level"].astype(str) == "L3"]
    assert l3["bound"].tolist() == ["no L3 roof"] * 2
    assert l3["attainable_gflops"].isna().all()
    others = table[table["level"].astype(str) != "L3"]
    assert others["efficiency_percent"].notna().all()
    # the same rows in the widget's selection_dataframe(levels=) and the static payload
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(program, ceilings=roofs, levels=["L2", "L3", "MEM"])
        payload = plot_roofline(program, ceilings=roofs, levels=["L2", "L3", "MEM"],
                                filepath=tmp_path / "levels.png", verbose=False)
    widget.selected = [(key.file, key.rank, key.region)
                       for key in widget.to_dataframe().itertuples()]
    rows = widget.selection_dataframe()
    assert len(rows) == 6
    for column in ("attainable_gflops", "efficiency_percent", "bound", "above_roof"):
        assert column in rows
    assert rows.loc[rows["level"].astype(str) == "L3", "bound"].tolist() == ["no L3 roof"] * 2
    mem = rows[(rows["level"].astype(str) == "MEM") & (rows["region"] == "triad")].iloc[0]
    assert mem["efficiency_percent"] == pytest.approx(100 * 11.52 / 20.0)
    levels = pd.DataFrame(payload["levels"])
    assert levels.loc[levels["level"] == "L3", "bound"].tolist() == ["no L3 roof"] * 2
    assert levels.loc[(levels["level"] == "MEM") & (levels["region"] == "triad"),
                      "efficiency_percent"].tolist() == pytest.approx([57.6])
    # the main points (MEM_DP's memory bandwidth) are MEM points: judged, nothing unjudged
    assert payload["ceiling_notes"] == [n for n in payload["ceiling_notes"] if "no MEM" not in n]


def test_status_line_and_payload_say_which_points_are_not_judged(program, tmp_path):
    roofs = _level_roofs(("L2",))  # no MEM roof: the MEM_DP points are not judged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(program, ceilings=roofs)
        payload = plot_roofline(program, ceilings=roofs, filepath=tmp_path / "p.png",
                                verbose=False)
    note = ("2 points have no MEM roof: not judged (another level&#x27;s or device&#x27;s roof "
            "is not used)")
    assert note in widget.controls.status_html.value
    assert payload["ceiling_notes"][0] == note.replace("&#x27;", "'")
    assert [a["bound"] for a in payload["analysis"]] == ["no MEM roof"] * 2
    assert all(hover.endswith("not judged: no MEM roof") for hover in payload["hover"])


def test_a_peak_replaces_the_roof_of_the_points_level(milan, blocked):
    # plot_roofline(peak_bandwidth=) and `check --ceilings --peak-bandwidth`: the MEM roof the
    # DRAM-intensity points are judged against takes the value, the L2 roof stays
    replaced = Roofline.from_ceilings(milan, peak_bandwidth=50.0, points=blocked)
    assert {r.level: r.gbs for r in replaced.bandwidth} == {"L2": L2_ROOF, "MEM": 50.0}
    assert replaced.main_bandwidth.level == "MEM"
    assert milan.with_main(level="MEM").with_peaks(peak_bandwidth=50.0).bandwidth[1].gbs == 50.0
    row = replaced.classify(blocked).iloc[0]
    assert row["efficiency_percent"] == pytest.approx(100 * 7.68 / 50.0)
    assert replaced.ridge_point() == pytest.approx(DP_PEAK / 50.0)
