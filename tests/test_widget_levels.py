"""Memory levels in the widget (LevelMarks, the levels trait and toggles) and in the static plot.

Data: the real likwid-mpirun CACHES sample (48 ranks, region ``wr-only``; L1 to/from
L2, L2 to/from L3 and memory bandwidth in one group) joined with a rendered
FLOPS_DP group of the same ranks (rank r: 100 + r MFLOP/s), as in tests/test_levels.py.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from likwid_render import mpirun_region
from traitlets import TraitError

from roofline_widget import RooflineWidget, hierarchical_points, plot_roofline, read_likwid, sample_path
from roofline_widget.look.markers import LEVEL_MARKERS
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof
from roofline_widget.scene.levels import LEVEL_GID
from roofline_widget.widget.html import level_tooltip_html
from roofline_widget.widget.layers.levels import LevelMarks

CACHES = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
X = "arithmetic_intensity_flops_per_byte"
Y = "performance_gflops"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    header = next(line for line in Path(CACHES).read_text().splitlines()
                  if line.startswith("|") and "Metric" in line)
    columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
    flops = [100.0 + int(c.split(":")[1]) for c in columns]
    path = tmp_path_factory.mktemp("flops") / "flops_dp.txt"
    path.write_text(mpirun_region("wr-only", 2, columns, {"DP [MFLOP/s]": flops}, 28.0))
    return read_likwid([CACHES, path])


@pytest.fixture
def widget(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(run, group_ranks="rank")  # the level dots of every rank


def _expected(run, levels, **selection):
    selection.setdefault("group_ranks", "rank")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = hierarchical_points(run, **selection)
    return points[points["level"].astype(str).isin(levels)]


def _layer(widget):
    return widget.figure.layers.get("levels")


def _marks_hold(layer, expected):
    for level, dots in layer.dots.items():
        rows = expected[expected["level"].astype(str) == level]
        np.testing.assert_allclose(dots.x, rows[X].to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(dots.y, rows[Y].to_numpy(), rtol=1e-12)
        assert dots.visible == bool(len(rows))


def test_levels_off_by_default_and_the_toggles_list_the_measured_levels(widget):
    assert widget.levels == []
    assert widget.available_levels == ["L2", "L3", "MEM"]
    assert _layer(widget) is None  # registered when levels are first shown
    assert list(widget.controls.level_boxes) == ["L2", "L3", "MEM"]
    assert "levels:" not in widget.controls.status_html.value
    widget.levels = ["L3"]
    layer = _layer(widget)
    assert isinstance(layer, LevelMarks)
    assert layer.part is widget.figure.scene.levels
    marks = widget.figure.plot.marks
    assert all(mark in marks for mark in layer.marks)
    assert marks[-1] is widget.figure.scatter
    assert layer.dots["L3"].visible


def test_levels_draw_exactly_the_hierarchical_points(widget, run):
    widget.levels = ["MEM", "L2"]
    assert widget.levels == ["L2", "MEM"]  # inner to outer
    layer = _layer(widget)
    expected = _expected(run, ["L2", "MEM"])
    _marks_hold(layer, expected)
    # 48 ranks at L2; memory is read on one rank per socket (46 ranks read 0 and are left out)
    assert len(layer.dots["L2"].x) == 48
    assert len(layer.dots["MEM"].x) == 2
    # rank 0 by hand: 100 MFLOP/s over L1 to/from L2 33.5467 MBytes/s
    rank0 = expected[(expected["rank"] == 0) & (expected["level"] == "L2")].iloc[0]
    assert layer.dots["L2"].x[0] == pytest.approx(0.1 / 0.0335467)
    assert layer.dots["L2"].y[0] == pytest.approx(0.1) == rank0[Y]
    assert {layer.dots[lv].marker for lv in ("L2", "MEM")} == {LEVEL_MARKERS[lv].bqplot
                                                              for lv in ("L2", "MEM")}
    assert not layer.dots["L3"].visible
    assert not layer.dots["L1"].visible
    # one line per rank with two dots (L2 and MEM): the two memory-reading ranks
    assert layer.joins.visible
    assert layer.joins.x.shape == (2, 2)
    mem_ranks = expected[expected["level"] == "MEM"]["rank"].tolist()
    for line_x, line_y, rank in zip(layer.joins.x, layer.joins.y, mem_ranks):
        rows = expected[expected["rank"] == rank]
        np.testing.assert_allclose(line_x, rows[X].to_numpy())
        np.testing.assert_allclose(line_y, [rows[Y].iloc[0]] * 2)
    # colours as the region's points (one region: one colour code)
    assert set(layer.dots["L2"].color) == set(widget.figure.scatter.color)
    # the axes hold every level dot
    assert widget.figure.x_scale.min <= layer.dots["L2"].x.min()
    assert widget.figure.x_scale.max >= layer.dots["MEM"].x.max()
    status = widget.controls.status_html.value
    assert "levels: L2, MEM" in status
    assert "left out per level: MEM 46" in status
    assert [box.value for box in widget.controls.level_boxes.values()] == [True, False, True]


def test_selection_changes_the_level_dots(widget, run):
    widget.levels = ["L2", "MEM"]
    layer = _layer(widget)
    widget.ranks = [0, 1, 2]
    _marks_hold(layer, _expected(run, ["L2", "MEM"], ranks=[0, 1, 2]))
    assert len(layer.dots["L2"].x) == 3
    widget.include = "nothing-matches"
    assert not any(mark.visible for mark in layer.marks)
    assert len(layer.dots["L2"].x) == 0
    widget.include = "wr-"
    widget.ranks = None
    widget.combine_ranks = True
    # ranks summed: STAT Sum 1617.9811 MBytes/s at L2; 5928 MFLOP/s
    _marks_hold(layer, _expected(run, ["L2", "MEM"], combine_ranks=True))
    assert layer.dots["L2"].x.tolist() == pytest.approx([5.928 / 1.6179811])


def test_unknown_level_raises_and_empty_hides(widget):
    widget.levels = ["L3"]
    with pytest.raises(TraitError, match=r"unknown memory level\(s\) \['L1'\].*'L2', 'L3', 'MEM'"):
        widget.levels = ["L1", "L2"]
    assert widget.levels == ["L3"]
    widget.levels = []
    layer = _layer(widget)
    assert not any(mark.visible for mark in layer.marks)
    assert all(len(dots.x) == 0 for dots in layer.dots.values())
    assert layer.part is None
    assert widget.figure.scene.levels is None
    assert "levels:" not in widget.controls.status_html.value


def test_toggles_set_the_trait(widget, run):
    boxes = widget.controls.level_boxes
    boxes["L3"].value = True
    assert widget.levels == ["L3"]
    boxes["MEM"].value = True
    assert widget.levels == ["L3", "MEM"]
    _marks_hold(_layer(widget), _expected(run, ["L3", "MEM"]))
    boxes["L3"].value = False
    assert widget.levels == ["MEM"]


def test_peak_change_sends_no_level_arrays_and_findings_follow_the_ceilings(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(run, levels=["L2", "MEM"], group_ranks="rank",
                                ceilings=[BandwidthRoof("L2 (bench)", 0.02, level="L2"),
                                          ComputeRoof("bench peak", 10.0)])
    layer = _layer(widget)
    x, y = layer.dots["L2"].x, layer.dots["L2"].y
    # every rank's L2 traffic (>= 0.0301 GB/s) is above the 0.02 GB/s L2 roof
    assert len(layer.findings) >= 48
    assert set(layer.findings["check"]) == {"above roof"}
    status = widget.controls.status_html.value
    assert f"{len(layer.findings)} sanity finding(s)" in status
    # the first five listed, one <li> each, the rest counted
    findings_note = status[status.index("roofline-levels-status"):]
    assert findings_note.count("<li>") == 6
    # the ceilings have an L2 roof but no MEM roof: the memory-bandwidth points are not judged
    # against the L2 roof, and the status line says so
    assert f"{len(widget.to_dataframe()):,} points have no MEM roof: not judged" in status
    assert widget.to_dataframe()["efficiency_percent"].isna().all()
    assert f"and {len(layer.findings) - 5} more" in status
    first = layer.findings.iloc[0]
    assert f"{first['region']} (rank {first['rank']}, L2, above roof)" in status
    # the level roof is one of the figure's labelled ceilings (not drawn a second time)
    figure = widget.figure
    assert "L2 0.02 GB/s" in figure.ceilings.labels  # "L2 (bench)": the details in brackets go
    assert "L2 0.02 GB/s" in [*figure.ceiling_labels.text, *figure.ceiling_labels_start.text]
    widget.peak_flops = 1000.0
    assert layer.dots["L2"].x is x
    assert layer.dots["L2"].y is y


def test_tooltip_names_the_level_and_metric_escaped(widget):
    widget.levels = ["L2"]
    row = _layer(widget).frame.iloc[0].copy()
    row["region"] = "<b>kernel&</b>"
    text = level_tooltip_html(row)
    assert "&lt;b&gt;kernel&amp;&lt;/b&gt;" in text
    assert "<b>kernel" not in text
    assert "L1 to/from L2 bandwidth [MBytes/s]" in text
    assert ">L2<" in text
    assert format(0.1 / 0.0335467, ".4g") in text


# ------------------------------------------------------------------ static plot
def test_static_plot_draws_one_collection_per_level(run, tmp_path):
    path = tmp_path / "levels.png"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(run, levels=["L2", "L3", "MEM"], filepath=path, verbose=False,
                                group_ranks="rank")
    assert path.stat().st_size > 10_000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    axes = payload["figure"].axes[0]
    gids = {c.get_gid(): c for c in axes.collections if c.get_gid()}
    assert set(gids) == {LEVEL_GID.format(lv) for lv in ("L2", "L3", "MEM")}
    expected = _expected(run, ["L2", "L3", "MEM"])
    for level in ("L2", "L3", "MEM"):
        rows = expected[expected["level"].astype(str) == level]
        np.testing.assert_allclose(gids[LEVEL_GID.format(level)].get_offsets(),
                                   rows[[X, Y]].to_numpy())
    assert [row["level"] for row in payload["levels"]].count("L2") == 48
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert "MEM: Memory bandwidth [MBytes/s]" in labels


def test_static_plot_level_errors(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="matplotlib backend only"):
            plot_roofline(run, levels=["L2"], backend="bqplot", verbose=False)
        with pytest.raises(ValueError, match=r"unknown memory level\(s\) \['L1'\]"):
            plot_roofline(run, levels=["L1"], verbose=False)


def test_data_without_levels_has_no_toggles_and_refuses_levels():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        widget = RooflineWidget(read_likwid(sample_path(
            "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")))
    assert widget.available_levels == []
    assert widget.controls.level_boxes == {}
    with pytest.raises(TraitError, match="levels measured in the data: none"):
        widget.levels = ["MEM"]


def test_saved_view_keeps_the_levels_shown(widget, run, tmp_path):
    widget.levels = ["MEM", "L2"]
    path = widget.save_view(tmp_path / "view.json")
    saved = json.loads(path.read_text())["levels"]
    assert list(saved) == ["L2", "MEM"]  # inner to outer, with the metric used for each
    assert all(metric in widget.sums.bandwidth_metrics for metric in saved.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = RooflineWidget(run)
    assert fresh.load_view(path) == []
    assert fresh.levels == ["L2", "MEM"]
    _marks_hold(_layer(fresh), _expected(run, ["L2", "MEM"]))


def test_view_naming_a_level_the_data_lacks_warns_and_applies_the_rest(widget, tmp_path):
    from roofline_widget.errors import ViewWarning
    from roofline_widget.views import View
    metric = widget.sums.bandwidth_metrics[0]
    view = View(levels={"L1": metric, "MEM": metric})
    with pytest.warns(ViewWarning, match=r"memory level\(s\) \['L1'\] are not measured"):
        problems = widget.load_view(view)
    assert len(problems) == 1
    assert widget.levels == ["MEM"]


def test_selection_dataframe_carries_the_level_column(widget, run):
    widget.levels = ["L2", "MEM"]
    key = tuple(widget.to_dataframe().loc[0, ["file", "rank", "region"]])
    widget.selected = [key]
    frame = widget.selection_dataframe()
    assert frame["level"].astype(str).tolist() == ["L2", "MEM"]
    assert set(frame["rank"]) == {key[1]}
    expected = _expected(run, ["L2", "MEM"])
    expected = expected[expected["rank"] == key[1]]
    np.testing.assert_allclose(frame[X], expected[X], rtol=1e-12)
    widget.levels = []
    assert "level" not in widget.selection_dataframe().columns
    assert len(widget.selection_dataframe()) == 1
