"""MPI ranks summed where the uncore (memory) counts live: ``group_ranks``.

likwid-mpirun runs each rank as a process on its own core and reads the memory
counters on one rank per socket (0 on the others).  The expected figures are
LIKWID's own STAT ``Sum`` rows of the real samples 10 and 18, converted from
MFLOP/s and MBytes/s to GFLOP/s and GB/s (divide by 1000).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from likwid_render import mpirun_region, topology
from wild_samples import MPIRUN_NIL

from roofline_widget import (
    RooflineWidget,
    SelectionError,
    View,
    ViewError,
    compare_points,
    hierarchical_left_out,
    hierarchical_points,
    plot_roofline,
    points_dataframe,
    sample_path,
)
from roofline_widget.cli import main
from roofline_widget.cli.svg_titles import add_hover_titles
from roofline_widget.points import RegionSums, Selection

CACHES = Path(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt"))  # sample 10
MEM_BW = "Memory bandwidth [MBytes/s]"
DP = "DP [MFLOP/s]"


def _with_topology(tmp_path: Path, sample: Path, *, sockets: int, cores: int) -> Path:
    """A job log: likwid-topology output, then the sample as it is."""
    path = tmp_path / f"topology_{sample.name}"
    path.write_text(topology(sockets=sockets, cores=cores) + "\n" + sample.read_text())
    return path


# ------------------------------------------------------------------ sample 18
def test_sample18_default_sums_the_host_with_its_memory_counted_on_rank_0():
    selected = RegionSums.from_runs(MPIRUN_NIL).select()
    points = selected.points
    assert len(points) == 1
    assert selected.left_out.empty
    point = points.iloc[0]
    # line 702, 'DP [MFLOP/s] STAT' Sum 321220.6676 MFLOP/s = 321.2206676 GFLOP/s (24 ranks)
    assert point["performance_gflops"] == pytest.approx(321.2206676, rel=1e-9)
    # line 710, 'Memory bandwidth [MBytes/s] STAT' Sum 53388.0431 MBytes/s = 53.3880431 GB/s
    # (rank 0's cell; the other 23 ranks print 0)
    assert point["bandwidth_gbs"] == pytest.approx(53.3880431, rel=1e-9)
    assert point["arithmetic_intensity_flops_per_byte"] == pytest.approx(321220.6676 / 53388.0431)
    assert round(point["arithmetic_intensity_flops_per_byte"], 2) == 6.02
    # runtime: line 694 'Runtime (RDTSC) [s] STAT' Max 925.5336 s; 24 one-thread ranks
    assert point["runtime_seconds"] == 925.5336
    assert point["n_threads"] == 24
    assert point["rank"] == -1
    # the log has no likwid-topology block: grouped by host, and the note says so
    assert point["rank_group"] == "f0472 (ranks 0-23)"
    assert selected.rank_grouping == (
        "24 ranks on 1 host (no likwid-topology in the log: sockets unknown), memory counted "
        "on rank 0: one point per host",)


def test_sample18_with_a_topology_block_gives_one_point_per_socket(tmp_path):
    # Xeon Platinum 8360Y: 2 sockets x 36 cores; ranks 0-23 run on cpus 0-23, socket 0
    path = _with_topology(tmp_path, MPIRUN_NIL, sockets=2, cores=36)
    selected = RegionSums.from_runs(path).select()
    assert selected.rank_grouping == (
        "24 ranks on 1 socket, memory counted on rank 0: one point per socket",)
    point = selected.points.iloc[0]
    assert point["rank_group"] == "f0472 socket 0 (ranks 0-23)"
    assert point["performance_gflops"] == pytest.approx(321.2206676, rel=1e-9)  # STAT Sum
    assert point["bandwidth_gbs"] == pytest.approx(53.3880431, rel=1e-9)  # STAT Sum


def test_the_per_rank_option_gives_the_per_rank_numbers():
    with pytest.warns(UserWarning, match="23 region/rank row"):
        points = points_dataframe(MPIRUN_NIL, group_ranks="rank")
    # rank 0's own cells: DP 13370.5843 MFLOP/s, Memory bandwidth 53388.0431 MBytes/s (its
    # socket's traffic): 0.25 FLOP/byte, the pairing the socket point corrects
    assert points[["rank", "rank_group"]].values.tolist() == [[0, "rank 0"]]
    assert points["performance_gflops"].iloc[0] == pytest.approx(13.3705843, rel=1e-9)
    assert points["bandwidth_gbs"].iloc[0] == pytest.approx(53.3880431, rel=1e-9)
    assert round(points["arithmetic_intensity_flops_per_byte"].iloc[0], 2) == 0.25
    left = RegionSums.from_runs(MPIRUN_NIL).select(group_ranks="rank").left_out
    assert left["rank"].tolist() == list(range(1, 24))
    assert left["rank_group"].iloc[0] == "rank 1"
    assert set(left["reason"]) == {f"{MEM_BW!r} is zero on every thread"}


def test_all_and_combine_ranks_are_one_option():
    assert Selection(combine_ranks=True) == Selection(group_ranks="all")
    assert Selection(group_ranks="all").combine_ranks
    with_all = points_dataframe(MPIRUN_NIL, group_ranks="all")
    combined = points_dataframe(MPIRUN_NIL, combine_ranks=True)
    assert with_all.equals(combined)
    assert combined["rank_group"].iloc[0] == "all ranks (ranks 0-23)"
    # the widget's "sum over ranks" box on top of any grouping: it wins
    assert Selection(combine_ranks=True, group_ranks="rank").group_ranks == "all"
    with pytest.raises(SelectionError, match="group_ranks must be one of"):
        Selection(group_ranks="node")


# ------------------------------------------------------------------ sample 10
def test_sample10_without_flops_names_the_host_group_in_the_left_out_rows():
    # CACHES has no FLOP metric: nothing is placed, but every level is summed over the host,
    # because memory (and L3-to-system) traffic is counted on ranks 0 and 24 only
    left = hierarchical_left_out(CACHES).set_index("level")
    assert len(left) == 3
    assert set(left["rank_group"]) == {"sonata (ranks 0-47)"}
    assert set(left["rank"]) == {-1}
    assert left["reason"].str.startswith("no FLOP-rate metric in the data").all()
    # Metric STAT Sum rows: L1 to/from L2 1617.9811, L2 to/from L3 1495.2533,
    # Memory bandwidth 54.4560 MBytes/s (27.2278 on rank 0 + 27.2282 on rank 24)
    assert left.loc["L2", "bandwidth_gbs"] == pytest.approx(1.6179811, rel=1e-7)
    assert left.loc["L3", "bandwidth_gbs"] == pytest.approx(1.4952533, rel=1e-7)
    assert left.loc["MEM", "bandwidth_gbs"] == pytest.approx(0.054456, rel=1e-7)


def _caches_with_flops(tmp_path: Path) -> list[Path]:
    """Sample 10 after a likwid-topology block, joined with a rendered FLOPS_DP group.

    The topology is the one the sample's own counts imply: LIKWID read the memory
    counters on rank 0 (cpu 0) and rank 24 (cpu 48), so cpus 0-47 are socket 0 and
    48-95 socket 1: ranks 0-23 on socket 0, ranks 24-47 on socket 1.  Rank r gets
    100 + r MFLOP/s (likwid-mpirun prints no group names: the rendered run is group 2).
    """
    path = _with_topology(tmp_path, CACHES, sockets=2, cores=48)
    header = next(line for line in CACHES.read_text().splitlines()
                  if line.startswith("|") and "Metric" in line)
    columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
    flops = tmp_path / "flops_dp.txt"
    flops.write_text(mpirun_region("wr-only", 2, columns,
                                   {DP: [100.0 + int(c.split(":")[1]) for c in columns]}, 28.0))
    return [path, flops]


def test_sample10_with_topology_gives_one_point_per_socket(tmp_path):
    files = _caches_with_flops(tmp_path)
    selected = RegionSums.from_runs([files]).select()
    assert selected.rank_grouping == (
        "48 ranks on 2 sockets, memory counted on ranks 0, 24: one point per socket",)
    points = selected.points.set_index("rank_group")
    assert list(points.index) == ["sonata socket 0 (ranks 0-23)", "sonata socket 1 (ranks 24-47)"]
    # memory: rank 0's 27.2278 and rank 24's 27.2282 MBytes/s (together the STAT Sum 54.4560)
    assert points["bandwidth_gbs"].tolist() == pytest.approx(
        [0.0272278, 0.0272282], rel=1e-9)
    # FLOPs: sum over r = 0..23 of (100 + r) = 2400 + 276 = 2676 MFLOP/s;
    #        sum over r = 24..47 of (100 + r) = 2400 + 852 = 3252 MFLOP/s
    assert points["performance_gflops"].tolist() == pytest.approx([2.676, 3.252], rel=1e-12)
    assert points["n_threads"].tolist() == [24, 24]
    # every level of a region sums the same ranks: L2 per socket too
    levels = hierarchical_points([files])
    assert set(levels["rank_group"]) == set(points.index)
    l2 = levels[levels["level"] == "L2"]
    assert l2["bandwidth_gbs"].sum() == pytest.approx(1.6179811, rel=1e-7)  # STAT Sum
    # the explicit choices: host and per rank
    host = RegionSums.from_runs([files]).select(group_ranks="host").points
    assert host[["rank_group", "bandwidth_gbs"]].values.tolist() == [
        ["sonata (ranks 0-47)", pytest.approx(0.054456, rel=1e-7)]]
    assert host["performance_gflops"].iloc[0] == pytest.approx(5.928)  # 2676 + 3252
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_rank = points_dataframe([files], group_ranks="rank")
    assert per_rank["rank"].tolist() == [0, 24]


def test_socket_without_topology_falls_back_to_the_host_and_says_so():
    selected = RegionSums.from_runs(CACHES).select(group_ranks="socket",
                                                    flops_metric="L1 to/from L2 bandwidth [MBytes/s]")
    assert selected.rank_grouping[0].startswith("48 ranks on 1 host (no likwid-topology in the log")
    assert set(selected.left_out["rank_group"]) == {"sonata (ranks 0-47)"}


def test_a_subset_of_ranks_is_named_in_the_group_and_one_rank_keeps_its_number():
    sums = RegionSums.from_runs(MPIRUN_NIL)
    two = sums.select(ranks=[0, 1]).points
    # two ranks of the host summed (rank 0's bandwidth is the whole host's): named so
    assert two["rank_group"].tolist() == ["f0472 (ranks 0-1)"]
    one = sums.select(ranks=[0]).points
    assert one[["rank", "rank_group"]].values.tolist() == [[0, "rank 0"]]  # no sum: its own


# ------------------------------------------------------------------ unchanged files
@pytest.mark.parametrize("name", [
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt",  # threads of one rank
    "gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt",
    "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
])
def test_files_whose_ranks_measure_their_own_traffic_keep_their_points(name):
    auto = points_dataframe(sample_path(name))
    assert auto.equals(points_dataframe(sample_path(name), group_ranks="rank"))
    assert (auto["rank"] >= 0).all()


# ------------------------------------------------------------------ scope-profiler HDF5
def test_scope_h5_ranks_are_summed_when_only_rank_0_measures_memory(tmp_path):
    pytest.importorskip("scope_profiler")
    from scope_fixtures import make_profiling_results, write_scope_h5

    results = make_profiling_results(n_ranks=4, n_regions=1, n_threads=1, n_metrics=20, seed=3)
    regions = results.get_likwid_regions()
    names = regions[0]["region_000"].metric_names
    bandwidth, flops = names.index(MEM_BW), names.index(DP)
    for rank in (1, 2, 3):  # memory counted on rank 0 only, as likwid-mpirun does
        regions[rank]["region_000"].metrics[bandwidth] = 0.0
    expected_flops = sum(regions[r]["region_000"].metrics[flops][0] for r in range(4))
    expected_bandwidth = regions[0]["region_000"].metrics[bandwidth][0]
    path = write_scope_h5(tmp_path / "run.h5", results)
    selected = RegionSums.from_runs(path).select()
    assert selected.rank_grouping == (
        "4 ranks (no host or cpu in the data), memory counted on rank 0: one point for all ranks",)
    point = selected.points.iloc[0]
    assert point["rank_group"] == "all ranks (ranks 0-3)"
    assert point["performance_gflops"] == pytest.approx(expected_flops / 1000, rel=1e-12)
    assert point["bandwidth_gbs"] == pytest.approx(expected_bandwidth / 1000, rel=1e-12)
    # every rank measuring its own traffic (the fixture's default): one point per rank
    own = write_scope_h5(tmp_path / "own.h5", make_profiling_results(n_ranks=4, n_regions=1,
                                                                     n_threads=1, seed=3))
    assert RegionSums.from_runs(own).select().points["rank"].tolist() == [0, 1, 2, 3]


# ------------------------------------------------------------------ widget, views, CLI
def test_widget_status_and_points_follow_the_group_ranks_trait(tmp_path):
    path = _with_topology(tmp_path, MPIRUN_NIL, sockets=2, cores=36)
    widget = RooflineWidget(str(path))
    status = widget.controls.status_html.value
    assert "24 ranks on 1 socket, memory counted on rank 0: one point per socket" in status
    assert widget.to_dataframe()["performance_gflops"].tolist() == pytest.approx([321.2206676])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget.group_ranks = "rank"
    assert "one point per socket" not in widget.controls.status_html.value
    assert widget.to_dataframe()["rank"].tolist() == [0]
    assert widget.to_dataframe()["performance_gflops"].tolist() == pytest.approx([13.3705843])
    widget.group_ranks = "auto"
    assert widget.to_dataframe()["rank_group"].tolist() == ["f0472 socket 0 (ranks 0-23)"]
    assert View.from_dict(widget.to_view().to_dict()).group_ranks == "auto"


def test_widget_status_escapes_run_labels(tmp_path):
    sample = MPIRUN_NIL.read_text()
    one, two = tmp_path / "<b>one.txt", tmp_path / "two.txt"
    one.write_text(sample)
    two.write_text(sample)
    status = RooflineWidget([str(one), str(two)]).controls.status_html.value
    assert "&lt;b&gt;one: 24 ranks on 1 host" in status
    assert "<b>one" not in status


def test_view_field_is_checked():
    assert View(group_ranks="socket").selection.group_ranks == "socket"
    with pytest.raises(ViewError, match="group_ranks must be one of"):
        View(group_ranks="<script>")
    assert View(combine_ranks=True, group_ranks="rank").selection.group_ranks == "all"


def test_cli_group_ranks_option(tmp_path, capsys):
    assert main(["points", str(MPIRUN_NIL), "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["rank_group"] for p in points] == ["f0472 (ranks 0-23)"]
    assert main(["points", str(MPIRUN_NIL), "--group-ranks", "rank", "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["rank"] for p in points] == [0]
    assert np.isclose(points[0]["performance_gflops"], 13.3705843)


def test_widget_on_sample10_leaves_out_one_host_row_and_the_box_wins():
    widget = RooflineWidget(str(CACHES))
    assert widget.message.startswith("No plottable region: 1 region/rank row(s) left out")
    left = widget.left_out_dataframe()
    assert left[["rank", "rank_group"]].values.tolist() == [[-1, "sonata (ranks 0-47)"]]
    assert "48 ranks on 1 host" in widget.controls.status_html.value
    widget.group_ranks = "rank"
    assert len(widget.left_out_dataframe()) == 48
    widget.combine_ranks = True  # the "sum over ranks" box on top of group_ranks="rank"
    assert widget.left_out_dataframe()["rank_group"].tolist() == ["all ranks (ranks 0-47)"]
    assert "ranks summed" in widget.controls.status_html.value


# ------------------------------------------------------------------ keys of socket points
def _two_sockets(tmp_path: Path, host: str = "sonata") -> list[Path]:
    """:func:`_caches_with_flops`, the host renamed in the sample's columns (``host:rank:cpu``;
    six characters, so the tables stay aligned)."""
    assert len(host) == len("sonata")
    files = _caches_with_flops(tmp_path)
    if host != "sonata":
        for path in files:
            path.write_text(path.read_text().replace("sonata", host))
    return files


def test_two_sockets_give_two_keys_and_a_whole_run_keeps_rank_minus_1(tmp_path):
    sums = RegionSums.from_runs([_two_sockets(tmp_path)])
    points = sums.select().points
    # each socket point is keyed by its lowest rank (rank 0 and rank 24, the memory counters)
    assert points[["rank", "rank_group"]].values.tolist() == [
        [0, "sonata socket 0 (ranks 0-23)"], [24, "sonata socket 1 (ranks 24-47)"]]
    assert not points.duplicated(["file", "rank", "region"]).any()
    # a sum of every rank of the run keeps -1: the host of this run, or group_ranks="all"
    assert sums.select(group_ranks="host").points["rank"].tolist() == [-1]
    assert sums.select(group_ranks="all").points["rank"].tolist() == [-1]
    # ranks= filters before the sum: socket 1 alone keeps its key; part of a socket is keyed
    # by the lowest rank it sums, and named so
    socket1 = sums.select(ranks=list(range(24, 48))).points
    assert socket1[["rank", "rank_group"]].values.tolist() == [[24, "sonata socket 1 (ranks 24-47)"]]
    assert socket1["performance_gflops"].tolist() == pytest.approx([3.252], rel=1e-12)
    part = sums.select(ranks=list(range(1, 48)))
    assert part.points[["rank", "rank_group"]].values.tolist() == [
        [24, "sonata socket 1 (ranks 24-47)"]]
    # socket 0 without rank 0 lost the rank that counted its memory: left out, keyed by rank 1
    assert part.left_out[["rank", "rank_group"]].values.tolist() == [
        [1, "sonata socket 0 (ranks 1-23)"]]
    assert part.left_out["reason"].iloc[0] == f"{MEM_BW!r} is zero on every thread"


def test_sample18_on_one_socket_sums_every_rank_and_keeps_rank_minus_1(tmp_path):
    path = _with_topology(tmp_path, MPIRUN_NIL, sockets=2, cores=36)
    point = RegionSums.from_runs(path).select().points.iloc[0]
    assert (point["rank"], point["rank_group"]) == (-1, "f0472 socket 0 (ranks 0-23)")


def test_the_widget_selects_one_socket_point_by_its_key(tmp_path):
    widget = RooflineWidget([[str(p) for p in _two_sockets(tmp_path)]])
    frame = widget.to_dataframe()
    run = frame["file"].iloc[0]
    widget.selected = [(run, 24, "wr-only")]
    row = frame.index[frame["rank"] == 24][0]
    assert list(widget.figure.scatter.selected) == [row]
    selection = widget.selection_dataframe()
    assert len(selection) == 1
    chosen = selection.iloc[0]
    assert chosen["rank_group"] == "sonata socket 1 (ranks 24-47)"
    # ranks 24-47: FLOPs sum of (100 + r) = 2400 + 852 = 3252 MFLOP/s; memory: rank 24's
    # 27.2282 MBytes/s (the other ranks of socket 1 print 0); 3252 / 27.2282 = 119.43 FLOP/byte
    assert chosen["performance_gflops"] == pytest.approx(3.252, rel=1e-12)
    assert chosen["bandwidth_gbs"] == pytest.approx(0.0272282, rel=1e-9)
    assert chosen["arithmetic_intensity_flops_per_byte"] == pytest.approx(3252 / 27.2282)
    assert chosen["n_threads"] == 24
    # the detail panel names the socket, not "all ranks" and not a bare 24
    detail = widget.controls.detail_html.value
    assert "<td style='padding:0 4px'>sonata socket 1 (ranks 24-47)</td>" in detail
    assert "all ranks" not in detail
    # a saved view keeps the one socket point selected
    view = View.from_dict(json.loads(json.dumps(widget.to_view().to_dict())))
    assert view.selected == [(run, 24, "wr-only")]
    assert view.check_against([[str(p) for p in _two_sockets(tmp_path)]]) == []
    again = RooflineWidget([[str(p) for p in _two_sockets(tmp_path)]], view=view)
    assert again.selected == [(run, 24, "wr-only")]
    assert again.selection_dataframe()["rank_group"].tolist() == ["sonata socket 1 (ranks 24-47)"]


def test_compare_pairs_each_socket_with_the_same_socket(tmp_path):
    files = _two_sockets(tmp_path)
    table = compare_points([files], [files])
    assert table[["rank", "status"]].values.tolist() == [[0, "both"], [24, "both"]]
    assert table["rank_group_before"].tolist() == ["sonata socket 0 (ranks 0-23)",
                                                   "sonata socket 1 (ranks 24-47)"]
    assert table["rank_group_after"].tolist() == table["rank_group_before"].tolist()
    assert table["speedup"].tolist() == [1.0, 1.0]
    # socket 1 against socket 1: its own 3.252 GFLOP/s on both sides
    assert table["performance_gflops_before"].tolist() == pytest.approx([2.676, 3.252])
    assert table["performance_gflops_after"].tolist() == pytest.approx([2.676, 3.252])
    assert (table["performance_change_percent"] == 0).all()


def test_texts_name_the_socket_and_escape_the_host(tmp_path):
    host = "<b>n&1"
    widget = RooflineWidget([[str(p) for p in _two_sockets(tmp_path, host)]])
    frame = widget.to_dataframe()
    assert frame["rank_group"].tolist() == [f"{host} socket 0 (ranks 0-23)",
                                            f"{host} socket 1 (ranks 24-47)"]
    escaped = "&lt;b&gt;n&amp;1 socket 1 (ranks 24-47)"
    scatter = widget.figure.scatter
    scatter._handle_custom_msgs(scatter, {"event": "hover", "data": {"index": 1}})
    tooltip = widget.figure.tooltip.value
    assert f"<th style='text-align:left;padding:0 4px'>rank</th><td style='padding:0 4px'>{escaped}</td>" \
        in tooltip
    assert "<b>" not in tooltip
    widget.color_by = "rank"  # socket 1 is coloured as rank 24, and named by its group
    assert escaped in widget.controls.legend_html.value
    assert ">24<" not in widget.controls.legend_html.value
    # left out per socket (no FLOP metric in CACHES alone): the table names both sockets
    caches = RooflineWidget(str(_two_sockets(tmp_path, host)[0]))
    caches.controls.left_out.selected_index = 0  # opened: made now
    left = caches.controls.left_out_html.value
    assert "&lt;b&gt;n&amp;1 socket 0 (ranks 0-23), &lt;b&gt;n&amp;1 socket 1 (ranks 24-47)" in left
    assert "<b>" not in left


def test_svg_titles_name_the_socket(tmp_path):
    files = _two_sockets(tmp_path, "<b>n&1")
    out = tmp_path / "roofline.svg"
    payload = plot_roofline([files], filepath=str(out), verbose=False)
    assert payload["rank_groups"] == ["<b>n&1 socket 0 (ranks 0-23)", "<b>n&1 socket 1 (ranks 24-47)"]
    # the two socket points of region wr-only: named and coloured by socket (look.point_names)
    assert payload["point_names"] == ["<b>n&1 socket 0", "<b>n&1 socket 1"]
    assert payload["scene"].points.codes.tolist() == [0.0, 1.0]
    assert add_hover_titles(payload, out) == (2, 2)
    svg = out.read_text()
    # one region, two sockets: each point named by its socket (look.point_names), then its ranks
    assert "<title>&lt;b&gt;n&amp;1 socket 1 (ranks 24-47), run " in svg
    assert "<b>" not in svg
    assert "all ranks" not in svg


def test_the_group_ranks_dropdown_and_the_traits_follow_each_other(tmp_path):
    widget = RooflineWidget(str(MPIRUN_NIL))
    choice = widget.controls.group_choice
    assert choice.layout.display != "none"  # 24 ranks: shown
    assert "roofline-group-ranks" in choice._dom_classes
    assert choice.value == "auto"
    assert dict(choice.options) == {"auto": "auto", "per rank": "rank", "per socket": "socket",
                                    "per host": "host", "all ranks": "all"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choice.value = "rank"
    # per rank: rank 0 placed (its own FLOPs over the host's bandwidth), 23 ranks left out
    assert (widget.group_ranks, widget.combine_ranks) == ("rank", False)
    assert widget.to_dataframe()[["rank", "rank_group"]].values.tolist() == [[0, "rank 0"]]
    assert len(widget.left_out_dataframe()) == 23
    assert "1 point" in widget.controls.status_html.value
    assert "one point per host" not in widget.controls.status_html.value
    choice.value = "all"  # the former "sum over ranks" box: combine_ranks, group_ranks kept
    assert (widget.group_ranks, widget.combine_ranks) == ("rank", True)
    assert widget.to_dataframe()[["rank", "rank_group"]].values.tolist() == [
        [-1, "all ranks (ranks 0-23)"]]
    assert "ranks summed" in widget.controls.status_html.value
    widget.combine_ranks = False  # the trait unticked: the grouping it had comes back
    assert choice.value == "rank"
    widget.group_ranks = "host"
    assert choice.value == "host"
    # STAT Sum of DP: 321220.6676 MFLOP/s over the 24 ranks of host f0472
    assert widget.to_dataframe()["performance_gflops"].tolist() == pytest.approx([321.2206676])
    assert "24 ranks on 1 host" in widget.controls.status_html.value
    widget.group_ranks = "all"  # "all" by either trait reads "all ranks" and "ranks summed"
    assert choice.value == "all"
    assert "ranks summed" in widget.controls.status_html.value
    choice.value = "auto"
    assert (widget.group_ranks, widget.combine_ranks) == ("auto", False)
    assert widget.to_view().group_ranks == "auto"
    # data of one rank: no grouping to choose
    one = RooflineWidget(sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"))
    assert one.controls.group_choice.layout.display == "none"


def test_the_widget_names_and_colours_each_socket(tmp_path):
    widget = RooflineWidget([_two_sockets(tmp_path)])
    points = widget.figure.scene.points
    # one region (wr-only), two sockets: two names, two colours, both in the legend
    assert points.names.tolist() == ["sonata socket 0", "sonata socket 1"]
    assert len(set(points.codes.tolist())) == 2
    legend = widget.controls.legend_html.value
    assert "sonata socket 0</span>" in legend
    assert "sonata socket 1</span>" in legend
    widget.group_ranks = "host"  # one point for the host: its region again
    assert widget.figure.scene.points.names.tolist() == ["wr-only"]
