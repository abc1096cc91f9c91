"""Log axes (look/log_axes.py): padding, ticks, valid scale ranges, the one clipping rule."""

from __future__ import annotations

import itertools
import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from roofline_widget.look.log_axes import (
    clip_segment,
    labelled_ticks,
    log_ranges,
    log_ticks,
    padded_range,
    positive,
    tick_format,
    tick_text,
    visible_part,
)


def test_positive_and_padded_range():
    values = [0.5, -1.0, np.nan, np.inf, 0.0, 20.0]
    assert list(positive(values)) == [0.5, 20.0]
    assert padded_range(values, 2.0, (1.0, 10.0)) == (0.25, 40.0)
    assert padded_range([np.nan, -3.0], 2.0, (1.0, 10.0)) == (1.0, 10.0)


def test_ticks_read_as_plain_numbers_at_any_range():
    """A spread view's wide range once got ".0e" ticks ("1e+0, 2e+0") beside "0.05" elsewhere."""
    for low, high in ((0.01, 1000.0), (1e-4, 10.0), (1.0, 1e5), (1e-9, 1e9)):
        assert tick_format(low, high) == "~g"
    # d3's "~g" (toPrecision(6), trailing zeros trimmed), written by hand:
    assert [tick_text(v) for v in (0.05, 0.2, 1.0, 5.0, 100.0, 20000.0, 100000.0)] == [
        "0.05", "0.2", "1", "5", "100", "20000", "100000"]
    assert [tick_text(v) for v in (1e-6, 1e-7, 1e6, 2e8, 0.000123)] == [
        "0.000001", "1e-7", "1e+6", "2e+8", "0.000123"]


def test_log_ticks_thin_out_as_bqplot_does():
    # under 2 decades: every 1..9 x 10^k (0.05 to 0.3: 1.78 decades)
    assert log_ticks(0.05, 0.3).tolist() == pytest.approx(
        [0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.2, 0.3])
    # 2 to 7 decades: 1, 2, 5 x 10^k (0.018 to 60: 3.5 decades)
    assert log_ticks(0.018, 60.0).tolist() == pytest.approx(
        [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50])
    # 7 decades and more: powers of ten, every round(decades / 10)-th (18 decades: every 2nd)
    assert log_ticks(1e-3, 1e6).tolist() == pytest.approx([10.0 ** k for k in range(-3, 7)])
    assert log_ticks(1e-9, 1e9).tolist() == pytest.approx([10.0 ** k for k in range(-8, 9, 2)])
    assert log_ticks(0.0, 1.0).size == 0


def test_log_ranges_only_while_both_scales_are_log_ranges():
    scale = SimpleNamespace
    assert log_ranges(scale(min=0.1, max=10.0), scale(min=1.0, max=2.0)) == ((0.1, 10.0), (1.0, 2.0))
    assert log_ranges(scale(min=None, max=10.0), scale(min=1.0, max=2.0)) is None
    assert log_ranges(scale(min=0.0, max=10.0), scale(min=1.0, max=2.0)) is None
    assert log_ranges(scale(min=0.1, max=10.0), scale(min=2.0, max=2.0)) is None


def test_clip_segment_by_hand():
    box = ((0.0, 0.0), (10.0, 10.0))
    # from (-5, 5) to (15, 5): inside from x = 0 (t = 5/20) to x = 10 (t = 15/20)
    assert clip_segment((-5.0, 5.0), (15.0, 5.0), *box) == pytest.approx((0.25, 0.75))
    # a diagonal from (-10, -10) to (20, 20) enters at t = 1/3, leaves at 2/3
    assert clip_segment((-10.0, -10.0), (20.0, 20.0), *box) == pytest.approx((1 / 3, 2 / 3))
    # wholly inside: the whole segment
    assert clip_segment((1.0, 1.0), (2.0, 3.0), *box) == (0.0, 1.0)
    # missing the box, and running along its edge (not inside)
    assert clip_segment((11.0, 0.0), (20.0, 9.0), *box) is None
    assert clip_segment((0.0, 0.0), (0.0, 10.0), *box) is None


def test_visible_part_of_a_bandwidth_slope_on_log_axes():
    # 100 GB/s from 0.01 to 10 FLOP/byte (1 to 1000 GFLOP/s) on axes 0.1..100 x 10..500
    (x0, y0), (x1, y1) = visible_part([0.01, 10.0], [1.0, 1000.0], (0.1, 100.0), (10.0, 500.0))
    # it enters at the left edge x = 0.1 (10 GFLOP/s) and leaves at the top, 500 GFLOP/s
    assert (x0, y0) == (pytest.approx(0.1), pytest.approx(10.0))
    assert (x1, y1) == (pytest.approx(5.0), pytest.approx(500.0))
    assert math.isclose(y1 / x1, 100.0)
    # below the axes: nothing of it is shown
    assert visible_part([0.01, 0.1], [0.01, 0.1], (0.1, 100.0), (10.0, 500.0)) is None


def test_labels_kept_apart_by_rank():
    # 0.47-42 FLOP/byte is 1.95 decades: log_ticks gives every step 0.5, 0.6, ..., 40 (24 ticks);
    # on 775 px, 0.6 and 0.7 are 26.6 px apart, less than two 22 px labels and the 8 px gap
    ticks = log_ticks(0.47, 42.0)
    shown = labelled_ticks(ticks, 0.47, 42.0, 775.0, [22.0] * len(ticks))
    texts = [tick_text(t) for t in ticks[shown]]
    assert {"1", "10", "2", "5", "20"} <= set(texts)  # ranks 0 and 1 first
    assert "0.7" not in texts
    assert "0.9" not in texts
    assert labelled_ticks(ticks, 0.47, 42.0, 20_000.0, [22.0] * len(ticks)).all()  # room: all


def test_static_tick_labels_do_not_overlap():
    # sample 23's static plot: x from about 0.47 to 42 FLOP/byte (its labels ran "0.60.70.80.91")
    from wild_samples import DATA

    from roofline_widget import plot_roofline

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(
            DATA / "pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt", verbose=False)
    figure = payload["figure"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    for axis, side in ((axes.xaxis, 0), (axes.yaxis, 1)):
        boxes = sorted((label.get_window_extent(renderer) for label in axis.get_ticklabels()
                        if label.get_text() and label.get_visible()),
                       key=lambda box: box.get_points()[0][side])
        assert len(boxes) >= 4
        for before, after in itertools.pairwise(boxes):
            assert before.get_points()[1][side] < after.get_points()[0][side], axis
