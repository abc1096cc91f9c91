"""The hierarchical roofline on L2, L3 and MEM_DP runs of one program, rendered by tests/render_likwid.py.

``render_likwid.PROGRAM`` is a made-up program (regions ``triad`` and ``stencil<3d>``,
hardware threads 0 and 1 of one Cascade Lake socket) measured three times, with the L2, L3
and MEM_DP groups.  Every expected number below is worked out by hand from its counts:

* bandwidth of a level = sum over threads of (cache lines x 64 bytes / region time of that run)
* GFLOP/s = sum over threads of the MEM_DP FLOPs / time (the same at every level)
* intensity = GFLOP/s / GB/s
"""

import re
import warnings

import numpy as np
import pytest
import render_likwid
from render_likwid import FILE_NAMES, num2str, render_program

from roofline_widget import (
    RooflineWidget,
    hierarchical_points,
    plot_roofline,
    read_likwid,
    sample_path,
    sanity_check,
)
from roofline_widget.errors import StatSumMismatchWarning
from roofline_widget.io.stat_check import stat_comparisons
from roofline_widget.look.markers import LEVEL_MARKERS
from roofline_widget.scene.levels import FINDING_GID, LEVEL_GID

X = "arithmetic_intensity_flops_per_byte"
Y = "performance_gflops"

# triad (L2 run, 0.5 s): thread 0 (150e6 + 50e6 + 1e6) lines x 64 B / 0.5 s = 25728 MB/s,
#   thread 1 (120e6 + 40e6 + 1e6) x 64 / 0.5 = 20608 MB/s -> 46336 MB/s = 46.336 GB/s
# triad (L3 run, 0.5 s): (60e6 + 30e6) x 64 / 0.5 = 11520, (50e6 + 25e6) x 64 / 0.5 = 9600
#   -> 21.12 GB/s (L3 bandwidth = L2_LINES_IN_ALL + L2_TRANS_L2_WB; the upgrades are a part)
# triad (MEM_DP run, 0.5 s): 6 channels x (10e6 reads + 5e6 writes) x 64 B / 0.5 s on the
#   socket's first thread = 11520 MB/s, 0 on thread 1 -> 11.52 GB/s;
#   FLOPs: thread 0 50e6 scalar + 250e6 x 8 (AVX-512) = 2050e6 / 0.5 s = 4100 MFLOP/s,
#   thread 1 50e6 + 200e6 x 8 = 1650e6 / 0.5 = 3300 -> 7.4 GFLOP/s
# stencil<3d> (L2, 0.25 s): (20e6 + 5e6) x 64 / 0.25 = 6400, (15e6 + 5e6) x 64 / 0.25 = 5120
#   -> 11.52 GB/s
# stencil<3d> (L3, 0.2 s): (30e6 + 10e6) x 64 / 0.2 = 12800, (20e6 + 10e6) x 64 / 0.2 = 9600
#   -> 22.4 GB/s: more L3 than L2 traffic
# stencil<3d> (MEM_DP, 0.25 s): 6 x (2e6 + 1e6) x 64 / 0.25 = 4608 MB/s -> 4.608 GB/s;
#   FLOPs: (20e6 + 100e6 x 4) / 0.25 = 1680, (20e6 + 80e6 x 4) / 0.25 = 1360 -> 3.04 GFLOP/s
EXPECTED = {  # (region, level): (GB/s, GFLOP/s, FLOP/byte)
    ("triad", "L2"): (46.336, 7.4, 7.4 / 46.336),     # 0.15970
    ("triad", "L3"): (21.12, 7.4, 7.4 / 21.12),       # 0.35038
    ("triad", "MEM"): (11.52, 7.4, 7.4 / 11.52),      # 0.64236
    ("stencil<3d>", "L2"): (11.52, 3.04, 3.04 / 11.52),   # 0.26389
    ("stencil<3d>", "L3"): (22.4, 3.04, 3.04 / 22.4),     # 0.13571
    ("stencil<3d>", "MEM"): (4.608, 3.04, 3.04 / 4.608),  # 0.65972
}


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    return render_program(tmp_path_factory.mktemp("rendered"))


@pytest.fixture(scope="module")
def run(paths):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no STAT Sum mismatch, nothing passed over
        return read_likwid([paths["L2"], paths["L3"], paths["MEM_DP"]])


# ------------------------------------------------------------------ the renderer
def test_num2str_follows_likwid():
    # examples worked from LIKWID's num2str (likwid.lua)
    assert num2str(1083403000000.0) == "1083403000000"
    assert num2str(0.146394) == "0.1464"
    assert num2str(6.864286e-06) == "6.864286e-06"
    assert num2str(1641366.25) == "1.641366e+06"
    assert num2str(3.4) == "3.4000"


def test_rendered_layout(paths):
    text = paths["MEM_DP"].read_text()
    lines = text.splitlines()
    assert lines[:5] == [render_likwid.HLINE, f"CPU name:\t{render_likwid.CPU_NAME}",
                         "CPU type:\tIntel Cascadelake SP processor", "CPU clock:\t2.50 GHz",
                         render_likwid.HLINE]
    assert [line for line in lines if line.startswith("Region ")] == [
        "Region triad, Group 1: MEM_DP", "Region stencil<3d>, Group 1: MEM_DP"]
    # per region: Region Info, Event, Event STAT, Metric, Metric STAT, each followed by a blank line
    headers = [line.split("|")[1].strip() + "|" + line.split("|")[-2].strip()
               for line in lines if re.match(r"^\|\s+(Region Info|Event|Metric)\s+\|", line)]
    assert headers == ["Region Info|HWThread 1", "Event|HWThread 1", "Event|Avg",
                       "Metric|HWThread 1", "Metric|Avg"] * 2
    borders = [i for i, line in enumerate(lines) if line.startswith("+-")]
    assert len(borders) == 2 * 5 * 3
    assert all(lines[i + 1] == "" for i in borders[2::3])
    # numbers right-aligned, names centred (LIKWID's printtable)
    assert "|            DP [MFLOP/s] STAT           |   7400 |   3300 |   4100 |   3700 |" in lines
    assert "|               CAS_COUNT_RD               | MBOX0C0 |   10000000 |          0 |" in lines
    assert "| RDTSC Runtime [s] |   0.500000 |   0.500000 |" in lines


def test_stat_sums_of_the_rendered_files_agree(paths, run):
    for group, path in paths.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error", StatSumMismatchWarning)
            single = read_likwid(path)
        comparisons = stat_comparisons(single)
        # every STAT row printed (events and metrics of both regions) is compared, and agrees
        stat_rows = [line for line in path.read_text().splitlines() if " STAT " in line]
        assert len(comparisons) == len(stat_rows) > 30, group
        assert comparisons["agree"].all(), group
    assert not [w for w in run.warnings if "STAT" in w]


def test_a_changed_thread_value_breaks_the_stat_sum(paths, tmp_path):
    # the self-check does see the rendered STAT tables: change one printed thread value
    text = paths["L2"].read_text()
    changed = tmp_path / "changed.txt"
    changed.write_text(text.replace("|     L2 bandwidth [MBytes/s]    |      25728 |",
                                    "|     L2 bandwidth [MBytes/s]    |      25729 |", 1))
    assert changed.read_text() != text
    with pytest.warns(StatSumMismatchWarning, match=r"'L2 bandwidth \[MBytes/s\]'"):
        read_likwid(changed)


def test_shipped_copies_are_the_renderer_output(paths):
    for group, name in FILE_NAMES.items():
        shipped = sample_path(f"rendered/{name}")
        assert open(shipped, encoding="utf-8").read() == paths[group].read_text(), name
    sources = open(sample_path("rendered/SOURCES.md"), encoding="utf-8").read()
    assert "rendered by tests/render_likwid.py, not measured" in sources
    assert all(f"`{name}`" in sources for name in FILE_NAMES.values())


# ------------------------------------------------------------------ points per level
def test_hierarchical_points_by_hand(run):
    points = hierarchical_points(run)
    assert len(points) == 6
    assert points["level"].astype(str).tolist() == ["L2", "L3", "MEM"] * 2
    assert points["bandwidth_metric"].tolist()[:3] == [
        "L2 bandwidth [MBytes/s]", "L3 bandwidth [MBytes/s]", "Memory bandwidth [MBytes/s]"]
    for row in points.itertuples(index=False):
        gbs, gflops, intensity = EXPECTED[(row.region, str(row.level))]
        assert row.bandwidth_gbs == pytest.approx(gbs, rel=1e-12)
        assert row.performance_gflops == pytest.approx(gflops, rel=1e-12)
        assert row.arithmetic_intensity_flops_per_byte == pytest.approx(intensity, rel=1e-12)
        assert row.n_threads == 2
        assert row.flops_metric == "DP [MFLOP/s]"


def test_sanity_check_reports_l3_traffic_above_l2(run):
    findings = sanity_check(run)
    assert findings[["region", "level", "check"]].astype(str).values.tolist() == [
        ["stencil<3d>", "L3", "intensity order"]]
    detail = findings["detail"].iloc[0]
    # 3.04 / 11.52 = 0.2639 at L2, 3.04 / 22.4 = 0.1357 at L3: 1 - 11.52 / 22.4 = 48.6 % lower;
    # 22.4 / 11.52 = 1.94x the L2 traffic
    assert detail.startswith("intensity falls from 0.2639 FLOP/byte at L2 to 0.1357 at L3 "
                             "(48.6 % lower): L3 traffic (22.4 GB/s, L3 bandwidth [MBytes/s]) "
                             "is 1.94x the L2 traffic (11.52 GB/s, L2 bandwidth [MBytes/s])")
    assert "victim" not in detail  # Intel L3 bandwidth is a total, not Zen's L3 access


# ------------------------------------------------------------------ widget and static plot
def test_widget_draws_the_levels_joined_with_a_ring_on_the_finding(run):
    widget = RooflineWidget(run, levels=["L2", "L3", "MEM"])
    layer = widget.figure.layers["levels"]
    for level in ("L2", "L3", "MEM"):
        dots = layer.dots[level]
        assert dots.visible
        assert dots.marker == LEVEL_MARKERS[level].bqplot
        np.testing.assert_allclose(dots.x, [EXPECTED["triad", level][2],
                                            EXPECTED["stencil<3d>", level][2]], rtol=1e-12)
        np.testing.assert_allclose(dots.y, [7.4, 3.04], rtol=1e-12)
    # one line per region through its three dots, inner level first
    assert layer.joins.visible
    assert layer.joins.x.shape == (2, 3)
    np.testing.assert_allclose(layer.joins.x[1], [EXPECTED["stencil<3d>", lv][2]
                                                  for lv in ("L2", "L3", "MEM")], rtol=1e-12)
    np.testing.assert_allclose(layer.joins.y[0], [7.4] * 3, rtol=1e-12)
    # the ring: the L3 dot of stencil<3d> (0.1357 FLOP/byte, 3.04 GFLOP/s)
    assert layer.rings.visible
    np.testing.assert_allclose(layer.rings.x, [3.04 / 22.4], rtol=1e-12)
    np.testing.assert_allclose(layer.rings.y, [3.04], rtol=1e-12)
    layer._on_ring_hover({"data": {"index": 0}})
    tooltip = layer.ring_tooltip.value
    assert "stencil&lt;3d&gt;" in tooltip
    assert "<3d>" not in tooltip
    assert "intensity order" in tooltip
    assert "48.6 % lower" in tooltip
    status = widget.controls.status_html.value
    assert "1 sanity finding(s)" in status
    assert "stencil&lt;3d&gt; (rank 0, L3, intensity order)" \
        in status
    widget.levels = ["L2", "MEM"]  # the finding is the L3 dot's: no ring without L3
    assert not layer.rings.visible
    assert len(layer.rings.x) == 0


def test_static_plot_rings_the_finding(run, tmp_path):
    payload = plot_roofline(run, levels=["L2", "L3", "MEM"], filepath=tmp_path / "levels.png",
                            data_filepath=tmp_path / "levels.json", data_format="json",
                            verbose=False)
    axes = payload["figure"].axes[0]
    gids = {c.get_gid(): c for c in axes.collections if c.get_gid()}
    assert set(gids) == {*(LEVEL_GID.format(lv) for lv in ("L2", "L3", "MEM")), FINDING_GID}
    np.testing.assert_allclose(gids[FINDING_GID].get_offsets(), [[3.04 / 22.4, 3.04]],
                               rtol=1e-12)
    np.testing.assert_allclose(gids[LEVEL_GID.format("L3")].get_offsets(),
                               [[7.4 / 21.12, 7.4], [3.04 / 22.4, 3.04]], rtol=1e-12)
    assert "sanity finding (1)" in [t.get_text() for t in axes.get_legend().get_texts()]
    assert [(f["region"], f["level"], f["check"]) for f in payload["level_findings"]] == [
        ("stencil<3d>", "L3", "intensity order")]
    assert '"check": "intensity order"' in (tmp_path / "levels.json").read_text()
