"""Log axes (look/log_axes.py): padding, ticks, valid scale ranges, the one clipping rule."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from roofline_widget.look.log_axes import (
    clip_segment,
    log_ranges,
    padded_range,
    positive,
    tick_format,
    visible_part,
)


def test_positive_and_padded_range():
    values = [0.5, -1.0, np.nan, np.inf, 0.0, 20.0]
    assert list(positive(values)) == [0.5, 20.0]
    assert padded_range(values, 2.0, (1.0, 10.0)) == (0.25, 40.0)
    assert padded_range([np.nan, -3.0], 2.0, (1.0, 10.0)) == (1.0, 10.0)


def test_tick_format_plain_inside_powers_of_ten_outside():
    assert tick_format(0.01, 1000.0) == "~g"
    assert tick_format(1e-4, 10.0) == ".0e"
    assert tick_format(1.0, 1e5) == ".0e"


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
