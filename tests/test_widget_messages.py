"""What one widget sends to the browser: widgets built, comm messages, the points' marker size.

Every ipywidget (a ``Layout`` and a ``*Style`` too) is opened in the browser
with a comm message of its own, so the first draw's messages are counted
here by the comms the widgets open and the messages they publish
(``comm.create_comm`` replaced by a recording comm, as a kernel's would send
them).  Counts, not times: the times are benchmarks/bench_browser_peers.py's.

Counted for a points table of 5,000 points (625 ranks x 8 regions) on
7 December 2026: 80 widgets and 80 messages for the build, each widget opened
once with its first draw in it (87 and 112 before the widgets were opened at
the end of the build, a unit scale and the description styles shared, the rank
field's row and the peaks' row dropped and the starting labels' mark made when
first needed; 101 and 126 before
the widgets hidden or unused at the first draw were made when first needed:
pan-zoom, hover proxy, flagged outlines, rank spread, dashed roof, message box,
section contents, hidden menus; 201 and 273 before the sweep controls were
built lazily, the layouts and styles shared and the DOM classes given at
construction; 102 and 129 before the collapsed sections were filled when opened
and the brush outline made at the first drag); the bounds below leave room for
a few controls more, not for a panel built while hidden.
"""

from __future__ import annotations

import collections

import numpy as np
import pandas as pd
import pytest
import traitlets
from comm.base_comm import BaseComm
from study_files import THREADS

from roofline_widget import RooflineWidget
from roofline_widget.look.markers import POINT_SIZE
from roofline_widget.widget.points_mark import (
    DENSE_POINT_SIZE,
    POINT_STROKE_WIDTH,
    SVG_MAX_POINTS,
    marker_look,
)

#: Most widgets (comms) one build of a widget of data that is no chain may open.
MAX_WIDGETS = 84
#: Most comm messages of that build: one per widget (its open, no update after it).
MAX_MESSAGES = MAX_WIDGETS


#: What the recording comms sent: (comm id, message type, state keys).
_SENT: list[tuple] = []
#: The model name of each comm opened (comm id -> ``_model_name``).
_MODELS: dict[str, str] = {}


#: The widgets each message named before the widget was opened (comm id -> model ids).
_UNKNOWN: dict[str, set] = {}


def _named(value) -> set:
    """The model ids a state names (``"IPY_MODEL_<id>"``, in lists and dicts too)."""
    if isinstance(value, str):
        return {value[len("IPY_MODEL_"):]} if value.startswith("IPY_MODEL_") else set()
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else ()
    return set().union(*map(_named, items))


class _Recorded(BaseComm):
    """A comm that keeps what it would send in ``_SENT``."""

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        state = (data or {}).get("state", {})
        unknown = _named(state) - set(_MODELS)
        if unknown:
            _UNKNOWN[self.comm_id] = unknown
        if msg_type == "comm_open":
            _MODELS[self.comm_id] = state.get("_model_name", "?")
        _SENT.append((self.comm_id, msg_type, tuple(sorted(state))))


@pytest.fixture
def recorded(monkeypatch):
    """The messages the widgets send from now on (a list of (comm id, type, state keys))."""
    import comm

    monkeypatch.setattr(comm, "create_comm", lambda *args, **keys: _Recorded(*args, **keys))
    _SENT.clear()
    _MODELS.clear()
    _UNKNOWN.clear()
    return _SENT


def points_table(n: int, regions: int = 8, seed: int = 0) -> pd.DataFrame:
    """``n`` points under a roof of 10 GB/s and 50 GFLOP/s, point i region i % regions of rank
    i // regions (benchmarks/peer_widgets.py's points)."""
    rng = np.random.default_rng(seed)
    intensity = 10 ** rng.uniform(-2, 2, n)
    performance = np.minimum(50.0, 10.0 * intensity) * 10 ** rng.uniform(-3, 0, n)
    index = np.arange(n)
    return pd.DataFrame({
        "region": np.array([f"region_{r:03d}" for r in range(regions)])[index % regions],
        "rank": index // regions, "performance_gflops": performance,
        "arithmetic_intensity_flops_per_byte": intensity})


def _opened(sent) -> set:
    return {comm_id for comm_id, kind, _state in sent if kind == "comm_open"}


def test_one_build_opens_a_bounded_number_of_widgets_and_no_sweep_controls(recorded):
    w = RooflineWidget(points_table(5000))
    opened = _opened(recorded)
    assert 60 < len(opened) <= MAX_WIDGETS  # 80 on 7 December 2026 (87, 101, 201 before)
    assert len(recorded) <= MAX_MESSAGES  # 80 (112, 126, 273 before)
    # data that is no chain: no sweep controls, no scaling panel, none sent
    assert not w.sweep_controls.built
    classes = {name for child in w.children for name in child._dom_classes}
    assert not classes & {"roofline-sweep", "roofline-scaling-box", "roofline-sweep-details"}
    # the controls share their looks: one Layout and one style for the two metric choices
    controls = w.controls
    assert controls.flops_choice.layout is controls.bandwidth_choice.layout
    assert controls.flops_choice.style is controls.color_choice.style
    assert controls.include_text.style is controls.exclude_text.style
    # a layout that changes (the message shown and hidden) is the message's own
    layouts = [child.layout for child in w.children if child is not controls.message_html]
    assert all(controls.message_html.layout is not layout for layout in layouts)
    w.include = "(("  # an invalid pattern: the message is shown, nothing else moves
    assert controls.message_html.layout.display == ""
    assert controls.status_html.layout.display in (None, "")


def test_each_widget_is_opened_once_with_its_first_draw_after_the_widgets_it_names(recorded):
    w = RooflineWidget(points_table(5000))
    # one message per widget, its open: no value set after it (ranges, texts, points, peaks)
    assert [kind for _id, kind, _keys in recorded] == ["comm_open"] * len(_opened(recorded))
    assert _UNKNOWN == {}  # the browser knows every model before a message names it
    figure, controls = w.figure, w.controls
    assert figure.x_scale.min > 0
    assert len(figure.points.gl.x) == 5000
    assert controls.status_html.value.startswith("<b>5,000 points</b>")
    # the shared looks: one [0, 1] scale for the figure's two and the points' sizes; the
    # dropdowns, the number boxes and the text boxes of one description width, one style
    assert figure.plot.scale_x is figure.plot.scale_y is figure.unit_scale
    assert figure.scatter.scales["size"] is figure.unit_scale
    assert controls.flops_choice.style is controls.include_text.style is controls.flops_text.style
    # both ceiling-label marks are made with the figure, the start-aligned one empty here:
    # a mark added to the figure later makes the browser draw every mark again (the
    # filter below drew the WebGL points twice a frame when it made that mark then)
    assert figure.ceiling_marks.marks == (figure.ceilings, figure.roof, figure.ceiling_labels,
                                          figure.ceiling_labels_start, figure.ridge)
    assert not any(figure.ceiling_labels_start.text)
    marks = list(figure.plot.marks)
    start = figure.ceiling_labels_start
    w.peak_flops = 10.0  # a peak under the points: the bandwidth's label starts at its anchor
    assert [text for text in start.text if text] == ["Empirical bandwidth 9.994 GB/s"]
    del recorded[:]
    w.include = "region_001"  # 625 points: the start-aligned label's text follows the filter
    assert [text for text in start.text if text] == ["Empirical bandwidth 9.947 GB/s"]
    assert list(figure.plot.marks) == marks  # the figure's marks stay as they were
    assert "comm_open" not in {kind for _id, kind, _keys in recorded}


def test_a_build_that_fails_sends_nothing(recorded):
    with pytest.raises(traitlets.TraitError, match="nope"):
        RooflineWidget(points_table(5000), flops_metric="nope")
    assert recorded == []


def _kinds(sent) -> collections.Counter:
    """The widgets opened in ``sent`` by model name."""
    return collections.Counter(_MODELS[comm_id] for comm_id in _opened(sent))


def test_what_the_first_draw_does_not_show_is_made_when_first_needed(recorded):
    # 5,000 points in 625 ranks (WebGL draws them): 80 widgets, 80 messages (101 and 126
    # while the widgets below were made with the first draw)
    w = RooflineWidget(points_table(5000))
    figure, controls = w.figure, w.controls
    kinds = _kinds(recorded)
    assert kinds["PanZoomModel"] == 0  # made when the user picks pan-zoom
    # Scatter: the SVG points only (no hover proxy, no outlines of flagged points, no spread
    # medians); Lines: the ceilings and the roofline (no dashed theoretical roof, no whiskers)
    assert kinds["ScatterModel"] == 1
    assert kinds["LinesModel"] == 2
    assert kinds["ColorScaleModel"] == 1  # the points'; the spread's is made with the spread
    assert list(figure.layers) == []
    assert figure.pointer.proxy_marks == ()
    assert figure.points.hollow_marks == []
    # no message box; both closed sections hold one placeholder (their contents not made)
    assert not [child for child in w.children if "roofline-message" in child._dom_classes]
    placeholder = controls.left_out.children[0]
    assert controls.ceilings_section.children[0] is placeholder
    assert placeholder.value == ""
    # no host in the data: the host menu is not made (nor sent), nor a row for the field and it
    assert list(controls.rank_control.box.children) == [controls.rank_control.text,
                                                        controls.rank_control.hint_html]
    assert len(_opened(recorded)) <= MAX_WIDGETS
    assert len(recorded) <= MAX_MESSAGES

    # each is made when the user first needs it
    del recorded[:]
    controls.interaction_choice.value = "pan-zoom"
    assert _kinds(recorded)["PanZoomModel"] == 1
    assert figure.plot.interaction is figure.interactions["pan-zoom"]
    controls.interaction_choice.value = "inspect"
    controls.interaction_choice.value = "pan-zoom"  # the same one again
    assert _kinds(recorded)["PanZoomModel"] == 1
    w.include = "(("  # a message: its box made and placed under the control panel
    assert w.children[1] is controls.message_html
    assert controls.message_html.layout.display == ""
    assert "((" in controls.message_html.value
    w.include = ""
    assert controls.message_html.layout.display == "none"  # kept, hidden
    assert list(w.children).count(controls.message_html) == 1
    controls.ceilings_section.selected_index = 0  # opened: its table made, in one message
    table = controls.ceilings_section.children[0]
    assert table is controls.ceilings_html is not placeholder
    assert "GFLOP/s" in table.value
    assert [kind for comm_id, kind, _keys in recorded if comm_id == table.model_id] == [
        "comm_open"]
    assert controls.left_out.children[0] is placeholder  # still closed
    w.rank_view = "spread"  # the spread drawn: its marks made and joined to the figure
    spread = figure.layers["ranks"]
    assert spread.active
    assert all(mark in figure.plot.marks for mark in spread.marks)
    assert spread.on_click == w.square_ranks.click


def test_data_of_one_rank_makes_no_group_menu(recorded):
    w = RooflineWidget(points_table(8))  # 8 regions of rank 0
    controls = w.controls
    assert controls.rank_control.box.layout.display == "none"
    row = controls.children[0].children[2]  # the ranks' row: the (hidden) rank field only
    assert list(row.children) == [controls.rank_control.box]
    assert _kinds(recorded)["DropdownModel"] == 4  # metrics, colour and size: no group menu
    choice = controls.group_choice  # read: made hidden, and linked both ways
    assert choice.layout.display == "none"
    assert choice.value == "auto"
    choice.value = "all"
    assert w.combine_ranks is True
    w.combine_ranks = False
    assert choice.value == "auto"


def test_a_filter_sends_the_points_once_and_only_what_changed(recorded):
    w = RooflineWidget(points_table(5000))
    w.figure.plot._view_count = w.figure.points.gl._view_count = 1  # shown, with WebGL
    del recorded[:]
    w.include = "region_00[0-3]"  # half the points
    gl = w.figure.points.gl
    points = [keys for comm_id, kind, keys in recorded if comm_id == gl.model_id]
    assert len(gl.x) == 2500
    assert len(points) == 1  # one message
    assert {"x", "y", "color"} <= set(points[0])
    assert not _opened(recorded)  # no widget made for a filter
    assert len(recorded) <= 20  # the roofs, their labels, the ranges and the texts that changed
    ids = [comm_id for comm_id, _kind, _keys in recorded]
    assert len(ids) == len(set(ids))  # each widget once
    # no mark shown and hidden again in one message (the rooflines' marks set once)
    assert ("visible",) not in [keys for _id, _kind, keys in recorded]


def test_closed_sections_and_the_drag_outline_cost_no_message_until_needed(recorded):
    # built and filtered with the "Ceilings" and "Left out" sections closed: their tables are
    # never sent (only their titles' counts) and no brush outline mark exists; opening a
    # section sends its table once
    table = points_table(5000)
    table.loc[::100, "arithmetic_intensity_flops_per_byte"] = np.nan  # some rows left out
    w = RooflineWidget(table)
    w.figure.plot._view_count = w.figure.points.gl._view_count = 1
    w.include = "region_00[0-3]"
    w.peak_flops = 80.0
    controls = w.controls
    contents = {controls.ceilings_html.model_id, controls.left_out_html.model_id}
    sent = [(kind, keys) for comm_id, kind, keys in recorded if comm_id in contents]
    assert sent == [("comm_open", keys) for _kind, keys in sent]  # opened, never updated
    assert controls.left_out.get_title(0).startswith("Left out (")
    assert controls.left_out.get_title(0) != "Left out (0)"
    assert w.figure.pointer.outline is None
    del recorded[:]
    controls.ceilings_section.selected_index = 0  # the user opens it
    updates = [keys for comm_id, _kind, keys in recorded
               if comm_id == controls.ceilings_html.model_id]
    assert updates == [("value",)]
    assert "80 GFLOP/s" in controls.ceilings_html.value


def test_webgl_points_are_sent_as_float32_the_numbers_stay_float64():
    table = points_table(5000)
    w = RooflineWidget(table, rank_view="points")
    w.figure.plot._view_count = w.figure.points.gl._view_count = 1
    w.include = "region_00[0-3]"  # drawn again, now with WebGL
    gl = w.figure.points.gl
    assert w.figure.points.active is gl
    assert gl.x.dtype == np.float32  # 4 bytes a coordinate on the wire, as WebGL draws them
    assert gl.y.dtype == np.float32
    frame = w.to_dataframe()
    assert frame["arithmetic_intensity_flops_per_byte"].dtype == np.float64
    drawn = w.figure.scene.points
    assert drawn.x.dtype == np.float64  # what the pointer and the tooltips read
    # the export keeps the table's exact numbers (not rounded through float32)
    chosen = table[table["region"].str.match("region_00[0-3]")]
    assert sorted(frame["performance_gflops"]) == sorted(chosen["performance_gflops"])
    assert np.array_equal(gl.x, drawn.x.astype(np.float32))


def test_a_sweep_builds_its_controls_when_shown_and_places_them(sweep_file, recorded):
    w = RooflineWidget(sweep_file)
    controls = w.sweep_controls
    assert controls.built
    children = list(w.children)
    figure_at = children.index(w.figure.plot)
    assert children[figure_at + 1: figure_at + 3] == [controls.row, controls.scaling.box]
    assert children[children.index(w.controls.status_html) + 1] is controls.details
    assert controls.row.layout.display == "flex"
    # built lazily, they work: the slider moves the ring, the dropdown regroups
    controls.slider.value = 4
    assert w.sweep_step == 4
    assert set(w.figure.scene.sweep.ring.rows["n_threads"]) == {THREADS[4]}
    controls.group_choice.value = "threads"
    assert w.group_runs_by == "threads"
    # the chain replaced: hidden, kept
    w.baseline = None
    assert controls.row.layout.display == "none"
    assert controls.details in w.children


def test_dense_clouds_get_smaller_markers_small_ones_keep_the_look():
    assert marker_look(50) == (POINT_SIZE, POINT_STROKE_WIDTH)
    assert marker_look(SVG_MAX_POINTS) == (POINT_SIZE, POINT_STROKE_WIDTH)
    # beyond SVG_MAX_POINTS: 90 * (2,000 / n) ** 0.75 px², e.g. 90 * 0.4 ** 0.75 = 45.3 at 5,000
    sizes = [marker_look(n)[0] for n in (2001, 5000, 10_000, 20_000, 50_000, 10**6)]
    assert sizes == [90, 45, 27, 16, DENSE_POINT_SIZE, DENSE_POINT_SIZE]
    # the outline thins with the marker's diameter: 0.8 * sqrt(45 / 90)
    assert marker_look(5000)[1] == pytest.approx(0.8 * (45 / 90) ** 0.5)
    few = RooflineWidget(points_table(48))
    assert few.figure.points.active.default_size == POINT_SIZE
    many = RooflineWidget(points_table(5000))
    many.figure.plot._view_count = many.figure.points.gl._view_count = 1
    gl = many.figure.points.gl
    assert many.figure.points.active is gl
    assert gl.default_size == 45
    many.include = "region_000"  # 625 points: SVG again, at the widget's size
    assert many.figure.points.active.default_size == POINT_SIZE
