"""The look's tables (look/markers.py, look/colors.py, look/texts.py): one entry, both backends."""

from __future__ import annotations

import numpy as np
import pytest
import render_likwid

from roofline_widget import RooflineWidget, plot_roofline, read_likwid, sample_path
from roofline_widget.look.colors import PALETTE, STRONG_COLORS, TAB20, palette_color, strong_first
from roofline_widget.look.markers import (
    CIRCLE,
    CURRENT_MARKER,
    HEAD_MARKER,
    LEVEL_MARKERS,
    RUN_MARKERS,
    run_marker,
)
from roofline_widget.look.texts import X_LABEL, Y_LABEL, figure_title


def test_marker_table_names_each_shape_in_both_backends():
    assert {m.bqplot: m.matplotlib for m in LEVEL_MARKERS.values()} == {
        "triangle-up": "^", "diamond": "D", "square": "s", "circle": "o"}
    assert [m.bqplot for m in RUN_MARKERS] == ["square", "diamond", "cross", "triangle-down"]
    assert CURRENT_MARKER is CIRCLE
    assert HEAD_MARKER.bqplot == "triangle-up"
    assert [run_marker(i) for i in range(6)] == [*RUN_MARKERS, *RUN_MARKERS[:2]]


def test_level_shapes_are_the_same_in_the_widget_and_the_static_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.markers import MarkerStyle

    from roofline_widget.scene.levels import LEVEL_GID

    paths = render_likwid.render_program(tmp_path)  # L2, L3 and MEM_DP runs of one program
    run = read_likwid([paths["L2"], paths["L3"], paths["MEM_DP"]])
    levels = ["L2", "L3", "MEM"]
    widget = RooflineWidget(run, levels=levels)
    payload = plot_roofline(run, levels=levels, verbose=False)
    drawn_gids = {c.get_gid(): c for c in payload["figure"].axes[0].collections}
    assert all(LEVEL_GID.format(level) in drawn_gids for level in levels)
    for level in levels:
        marker = LEVEL_MARKERS[level]
        assert widget.figure.layers["levels"].dots[level].marker == marker.bqplot
        collection = drawn_gids[LEVEL_GID.format(level)]
        drawn = collection.get_paths()[0].vertices
        style = MarkerStyle(marker.matplotlib)
        expected = style.get_path().transformed(style.get_transform()).vertices
        np.testing.assert_allclose(drawn, expected, atol=1e-12)


def test_palette_strong_shades_first():
    assert PALETTE[:10] == STRONG_COLORS == tuple(TAB20[0::2])
    assert PALETTE[10:] == tuple(TAB20[1::2])
    assert strong_first(["a", "A", "b", "B"]) == ["a", "b", "A", "B"]
    assert palette_color(0) == "#1f77b4"
    assert palette_color(len(PALETTE) + 1) == PALETTE[1]


def test_titles_and_axis_labels_are_shared():
    pytest.importorskip("matplotlib")
    data = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
    axes = plot_roofline(data, verbose=False)["figure"].axes[0]
    figure = plot_roofline(data, verbose=False, backend="bqplot")["figure"]
    assert axes.get_title() == figure.title == figure_title("empirical ceilings") == (
        "Roofline analysis (empirical ceilings)")
    assert figure_title("") == "Roofline analysis"
    widget = RooflineWidget(data)
    assert [a.label for a in widget.figure.plot.axes] == [a.label for a in figure.axes] == [
        X_LABEL, Y_LABEL]
    assert axes.get_ylabel() == Y_LABEL
    assert axes.get_xlabel().startswith(X_LABEL)


def test_ceiling_colours_are_the_same_in_the_widget_and_the_static_plot():
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from roofline_widget.look.colors import LINE_COLORS, ROOF_COLOR

    data = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
    peaks = {"peak_flops": 1164.8, "peak_bandwidth": 128.0}
    widget = RooflineWidget(data, **peaks)
    axes = plot_roofline(data, verbose=False, **peaks)["figure"].axes[0]
    assert list(widget.figure.ceilings.colors) == [LINE_COLORS["bandwidth"], LINE_COLORS["compute"]]
    assert list(widget.figure.roof.colors) == [ROOF_COLOR]
    lines = {line.get_label(): to_hex(line.get_color()) for line in axes.get_lines()}
    roof = next(label for label in lines if label.startswith("Roofline"))
    assert lines[roof] == to_hex(ROOF_COLOR)
    ceiling_colours = sorted(colour for label, colour in lines.items() if label != roof)
    assert ceiling_colours == sorted(LINE_COLORS.values())
    texts = {text.get_text(): to_hex(text.get_color()) for text in axes.texts}
    assert texts["Peak 1165 GFLOP/s"] == LINE_COLORS["compute"]
    assert texts["Peak bandwidth 128 GB/s"] == LINE_COLORS["bandwidth"]
