"""The one axis-range rule (look/axis_ranges.py): worked by hand, and the same in every view.

Sample 2 (GMGPolar MEM_DP, 4 threads on one socket), per region the SUM over threads of
DP [MFLOP/s] and of Memory bandwidth [MBytes/s] (memory counted on core 0 only):
Setup 1950.0623 MFLOP/s, 541.7965 MB/s (STAT Sum 1950.0623); Solve 4383.3768, 513.2989.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from roofline_widget import Roofline, RooflineWidget, plot_roofline, read_likwid, sample_path
from roofline_widget.look.axis_ranges import AXIS_MARGIN, COMPUTE_ROOM, axis_ranges
from roofline_widget.look.ceiling_labels import ridge_label_end
from roofline_widget.points import points_dataframe
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
TAKE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt"
SETUP = (1950.0623 / 541.7965, 1.9500623)   # (FLOP/byte, GFLOP/s)
SOLVE = (4383.3768 / 513.2989, 4.3833768)
PEAK_FLOPS, PEAK_BANDWIDTH = 4.3833768, 0.5417965  # empirical: the largest of each
RENDERED = [sample_path(f"rendered/rendered_not_measured_clx_2t_{group}.txt")
            for group in ("L2", "L3", "MEM_DP")]


def limits(axes) -> list[float]:
    """x and y limits of a matplotlib Axes, flat."""
    return [*map(float, axes.get_xlim()), *map(float, axes.get_ylim())]


def scales(figure) -> list[float]:
    """x and y limits of a RooflineFigure's scales, flat."""
    return [figure.x_scale.min, figure.x_scale.max, figure.y_scale.min, figure.y_scale.max]


def test_the_rule_by_hand_on_sample_2():
    points = points_dataframe(read_likwid(sample_path(GIVE)))
    roofline = Roofline.from_peaks(None, None, points)
    x_range, y_range = axis_ranges(points, roofline)
    # x: the smallest of Setup's 3.5993 FLOP/byte and the ridge 4.3834 / 0.5418 = 8.090, over 3;
    # the largest of Solve's 8.540, the ridge and the compute roof's room 10 x 8.090 = 80.90,
    # times 3; the ridge label needs less (it ends at ridge_label_end)
    ridge = PEAK_FLOPS / PEAK_BANDWIDTH
    assert x_range[0] == pytest.approx(SETUP[0] / AXIS_MARGIN, rel=1e-7)
    assert x_range[1] == pytest.approx(COMPUTE_ROOM * ridge * AXIS_MARGIN, rel=1e-7)
    assert x_range == pytest.approx((1.19975, 242.7135), rel=1e-5)
    assert ridge_label_end(ridge, x_range[0]) < x_range[1]
    # y: Setup's 1.9501 GFLOP/s over 3 to the compute roof 4.3834 (Solve's) times 3
    assert y_range == pytest.approx((SETUP[1] / 3, PEAK_FLOPS * 3), rel=1e-7)


def test_every_ridge_is_inside_and_extent_widens_the_range():
    points = points_dataframe(read_likwid(sample_path(GIVE)))
    roofline = Roofline([ComputeRoof("Peak", 100.0)],
                        [BandwidthRoof("L2", 400.0), BandwidthRoof("MEM", 5.0)])
    (x0, x1), _ = axis_ranges(points, roofline)
    # the MEM ridge 100 / 5 = 20 FLOP/byte and the L2 ridge 0.25 are both inside
    assert x0 < 0.25 < 20.0 < x1
    assert x0 == pytest.approx(0.25 / 3)
    # a far dot of a layer (a memory level, a baseline point) is held too
    (_, wide), (_, high) = axis_ranges(points, roofline, (np.array([5000.0]), np.array([900.0])))
    assert wide == pytest.approx(5000.0 * 3)
    assert high == pytest.approx(900.0 * 3)


@pytest.mark.parametrize("peaks", [{}, {"peak_flops": 50.0, "peak_bandwidth": 20.0}])
def test_widget_matplotlib_and_bqplot_draw_the_same_ranges(peaks):
    pytest.importorskip("matplotlib")
    widget = RooflineWidget(sample_path(GIVE), **peaks)
    drawn = plot_roofline(sample_path(GIVE), verbose=False, **peaks)["figure"].axes[0]
    bq_figure = plot_roofline(sample_path(GIVE), verbose=False, backend="bqplot", **peaks)
    assert limits(drawn) == pytest.approx(scales(widget.figure), rel=1e-12)
    assert scales(bq_figure["roofline_figure"]) == pytest.approx(scales(widget.figure), rel=1e-12)


def test_levels_and_baseline_points_count_in_every_view():
    pytest.importorskip("matplotlib")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows the rendered levels leave out
        widget = RooflineWidget(RENDERED, levels=["L2", "L3", "MEM"])
        drawn = plot_roofline(RENDERED, levels=["L2", "L3", "MEM"], verbose=False)
    assert limits(drawn["figure"].axes[0]) == pytest.approx(scales(widget.figure), rel=1e-12)
    compared = RooflineWidget(sample_path(TAKE), baseline=sample_path(GIVE))
    static = plot_roofline(sample_path(TAKE), baseline=sample_path(GIVE), verbose=False)
    assert limits(static["figure"].axes[0]) == pytest.approx(scales(compared.figure), rel=1e-12)
    # the baseline's points are inside: give's Setup and Solve
    x0, x1, y0, y1 = limits(static["figure"].axes[0])
    for x, y in (SETUP, SOLVE):
        assert x0 < x < x1
        assert y0 < y < y1
