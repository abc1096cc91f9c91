"""Host points of an MPI run named and coloured by host in every output; a spread square's click.

Sample 23 (``pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt``, SOMA on
216 ranks, likwid-mpirun without markers: one region "(whole run)") has 72 ranks
on each of the hosts f0702, f0703, f0704 ("f0702:0:0" ... "f0704:215:71"), memory
counted on one rank per socket: ``group_ranks="auto"`` gives one point per host,
each of region "(whole run)", rank groups "f0702 (ranks 0-71)", "f0703 (ranks
72-143)", "f0704 (ranks 144-215)".
"""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from wild_samples import SOMA_216

from roofline_widget import RooflineWidget, plot_roofline
from roofline_widget.cli.svg_titles import add_hover_titles
from roofline_widget.look.point_names import NAME_SEPARATOR, group_place, point_names
from roofline_widget.static.html_marks import point_texts

matplotlib.use("Agg")
HOSTS = ["f0702", "f0703", "f0704"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_group_places_and_names_by_hand():
    assert group_place("f0472 socket 0 (ranks 0-23)") == "f0472 socket 0"
    assert group_place("rank 3") == ""
    assert group_place("all ranks") == ""
    frame = pd.DataFrame({
        "file": ["a"] * 5,
        "region": ["Solve", "Solve", "Setup", "Setup", "IO"],
        "rank_group": ["f1 socket 0 (ranks 0-23)", "f1 socket 1 (ranks 24-47)",
                       "f1 socket 0 (ranks 0-23)", "f1 socket 1 (ranks 24-47)",
                       "f1 (ranks 0-47)"]})
    # several regions: the region stays in front; IO has one group only: its region
    assert point_names(frame).tolist() == [
        f"Solve{NAME_SEPARATOR}f1 socket 0", f"Solve{NAME_SEPARATOR}f1 socket 1",
        f"Setup{NAME_SEPARATOR}f1 socket 0", f"Setup{NAME_SEPARATOR}f1 socket 1", "IO"]
    # one point per rank: regions, whatever the ranks
    per_rank = pd.DataFrame({"file": ["a", "a"], "region": ["x", "x"],
                             "rank_group": ["rank 0", "rank 1"]})
    assert point_names(per_rank).tolist() == ["x", "x"]


def test_static_plot_of_sample_23_colours_and_names_each_host(tmp_path):
    out = tmp_path / "soma.svg"
    payload = plot_roofline(str(SOMA_216), filepath=str(out), verbose=False)
    assert payload["rank_groups"] == ["f0702 (ranks 0-71)", "f0703 (ranks 72-143)",
                                      "f0704 (ranks 144-215)"]
    assert payload["point_names"] == HOSTS
    scene = payload["scene"]
    assert scene.coloring.categories == tuple(HOSTS)
    assert sorted(scene.points.codes.tolist()) == [0.0, 1.0, 2.0]  # three colours
    axes = payload["figure"].axes[0]
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    # f0702 reports 1,235 GFLOP/s on 72 threads (beyond the hardware): hollow, its own entry
    assert legend[1:] == ["f0702 (beyond the hardware)", "f0703", "f0704"]
    labels = {text.get_text() for text in axes.texts}
    assert {"f0703", "f0704"} <= labels
    assert "(whole run)" not in labels
    assert "(whole run)" not in " ".join(legend)
    # f0702 lies above the axes (they follow the plausible points): said so, not "no room"
    notes = [text.get_text() for text in payload["figure"].texts]
    assert "Not labelled (outside the axes): f0702" in notes
    assert not any("no room" in note for note in notes)
    # hover texts (payload) and SVG titles name the host, then its ranks
    assert payload["hover"][1].startswith("<b>f0703</b> (f0703 (ranks 72-143))")
    add_hover_titles(payload, out)
    svg = out.read_text()
    assert "<title>f0704 (ranks 144-215), run " in svg
    assert "<title>(whole run)" not in svg


def test_widget_on_sample_23_colours_names_and_tooltips_by_host():
    w = RooflineWidget(str(SOMA_216))
    points = w.figure.scene.points
    assert points.names.tolist() == HOSTS
    assert len(set(points.codes.tolist())) == 3
    colors = w.figure.scene.coloring.colors(points.codes)
    legend = w.controls.legend_html.value
    for host, color in zip(HOSTS, colors):
        entry = f"title='{host}' " + legend.split(f"title='{host}' ", 1)[1].split("</span></span>")[0]
        assert f"background:{color};" in entry
        assert entry.endswith(f">{host}")
    assert "(whole run)" not in legend
    w.figure.scatter._handle_custom_msgs(w.figure.scatter, {"event": "hover",
                                                            "data": {"index": 2}})
    assert "f0704" in w.figure.tooltip.value
    # the shared HTML page's hover texts: the host first
    assert point_texts(w.to_dataframe(), None)[1].startswith("f0703\nf0703 (ranks 72-143)")
    # per rank: one region again, one colour
    w.group_ranks = "rank"
    assert set(w.figure.scene.points.names.tolist()) == {"(whole run)"}


def test_a_click_on_a_host_square_shows_its_ranks_and_the_spread_button_brings_it_back():
    w = RooflineWidget(str(SOMA_216), rank_view="spread")
    layer = w.figure.layers["ranks"]
    assert layer.active
    assert list(layer.spread["n_ranks"]) == [216]
    click = {"event": "element_click", "data": {"index": 0}}
    layer.medians._handle_custom_msgs(layer.medians, click)
    assert (w.rank_view, w.group_ranks) == ("points", "rank")
    assert w.ranks == list(range(216))
    assert not layer.active
    rows = w.figure.scene.points.rows
    # per rank, memory is counted on the socket leaders only: 3 hosts x 2 sockets = 6 rank
    # points (the other 210 ranks read 0 GB/s: left out, and said so)
    assert len(rows) == 6
    assert set(rows["rank_group"].astype(str)) == {f"rank {r}" for r in rows["rank"]}
    assert "210 left out" in w.controls.status_html.value
    w.rank_view = "spread"  # the mode button: the ranks and the grouping of before
    assert (w.ranks, w.group_ranks) == (None, "auto")
    assert layer.active
    assert len(layer.medians.x) == 1
    assert w.square_ranks.before is None
    # back() does the same; a hand-made choice in between is kept
    layer.medians._handle_custom_msgs(layer.medians, click)
    w.square_ranks.back()
    assert (w.rank_view, w.group_ranks, w.ranks) == ("spread", "auto", None)
    layer.medians._handle_custom_msgs(layer.medians, click)
    w.ranks = list(range(72))
    w.rank_view = "spread"
    assert w.ranks == list(range(72))
    assert w.group_ranks == "rank"


def test_a_click_on_a_square_of_per_rank_points_still_expands_the_region():
    w = RooflineWidget(str(SOMA_216), rank_view="spread", group_ranks="rank")
    layer = w.figure.layers["ranks"]
    layer.medians._handle_custom_msgs(layer.medians, {"event": "element_click",
                                                      "data": {"index": 0}})
    assert w.expanded_regions == ["(whole run)"]
    assert w.rank_view == "spread"
    assert w.square_ranks.before is None
    assert np.all(w.figure.scene.points.rows["rank"] >= 0)
