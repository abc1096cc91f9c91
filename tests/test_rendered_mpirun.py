"""A rendered likwid-mpirun MEM_DP run of 8 ranks (tests/render_likwid.py): the copy, the points,
the rank spread, all worked out by hand from the counts in ``render_likwid.MPI_PROGRAM``.

Each rank is alone on its socket and reads its socket's memory counters (6 channels); so
* GFLOP/s = (scalar + 8 x AVX-512 DP instructions) / seconds,
* GB/s = 6 channels x (CAS reads + CAS writes) x 64 bytes / seconds.
"""

from __future__ import annotations

import warnings

import pytest
from render_likwid import MPI_FILE_NAME, render_mpi_program

from roofline_widget import RooflineWidget, points_dataframe, rank_spread, read_likwid, sample_path
from roofline_widget.errors import StatSumMismatchWarning

SHIPPED = sample_path(f"rendered/{MPI_FILE_NAME}")


def test_the_shipped_copy_is_the_renderers(tmp_path):
    with open(SHIPPED, encoding="utf-8") as shipped:
        assert render_mpi_program(tmp_path).read_text(encoding="utf-8") == shipped.read()


@pytest.fixture(scope="module")
def run():
    with warnings.catch_warnings():
        warnings.simplefilter("error", StatSumMismatchWarning)  # STAT Sum = the ranks' sum
        return read_likwid(SHIPPED)


def test_points_by_hand(run):
    assert run.ranks == list(range(8))
    points = points_dataframe(run).set_index(["region", "rank"])
    # stencil, rank 0: 4e6 + 8 x 240e6 = 1.924e9 FLOP in 1 s; 6 x (30e6 + 12e6) x 64 B
    assert points.loc[("stencil", 0), "performance_gflops"] == pytest.approx(1.924)
    assert points.loc[("stencil", 0), "bandwidth_gbs"] == pytest.approx(16.128)
    # stencil, rank 7: 4e6 + 8 x 310e6 = 2.484e9; 6 x (37e6 + 12e6) x 64 = 18.816e9
    assert points.loc[("stencil", 7), "performance_gflops"] == pytest.approx(2.484)
    assert points.loc[("stencil", 7), "arithmetic_intensity_flops_per_byte"] == pytest.approx(
        2.484 / 18.816)
    # exchange, rank 7: 0.55 s; 1e6 + 8 x 4e6 = 33e6 FLOP -> 0.06 GFLOP/s;
    # 6 x (6e6 + 9.5e6) x 64 / 0.55 = 10.8218 GB/s
    assert points.loc[("exchange", 7), "performance_gflops"] == pytest.approx(0.06)
    assert points.loc[("exchange", 7), "bandwidth_gbs"] == pytest.approx(6 * 15.5e6 * 64 / 0.55
                                                                         / 1e9)
    assert len(points) == 24  # 3 regions x 8 ranks, none left out


def test_rank_spread_by_hand(run):
    spread = rank_spread(run).set_index("region")
    # stencil: GFLOP/s 1.924 + 0.08 r; median of 8 ranks = (2.164 + 2.244) / 2 = 2.204
    assert spread.loc["stencil", "performance_gflops_median"] == pytest.approx(2.204)
    assert spread.loc["stencil", "imbalance"] == pytest.approx(1.0)
    # exchange: 0.20 + 0.05 r s, max 0.55 over mean 0.375 -> 1.4667, rank 7 slowest
    assert spread.loc["exchange", "imbalance"] == pytest.approx(0.55 / 0.375)
    assert spread.loc["exchange", "slowest_rank"] == 7
    # reduce: rank 0 0.18 s, the others 0.1 s: mean 0.11, imbalance 0.18 / 0.11
    assert spread.loc["reduce", "imbalance"] == pytest.approx(0.18 / 0.11)
    assert spread.loc["reduce", "slowest_rank"] == 0


def test_the_spread_view_draws_a_square_per_region(run):
    w = RooflineWidget(run, rank_view="spread")
    layer = w.figure.layers["ranks"]
    assert layer.active
    assert len(layer.medians.x) == 3
    assert len(w.figure.scatter.x) == 0  # no region expanded: no rank points
