"""The widget's first draw computes only what it shows (issue 33): the sizes' runtime range
when points are sized by runtime, no place lookup for data that names no host or socket.

Public state after trait changes; no timing (``benchmarks/bench_widget_build.py`` times it).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from roofline_widget import RooflineWidget, read_likwid
from roofline_widget.points import RegionSums
from roofline_widget.points.columns import RegionColumns


def _widget(data, **options) -> RooflineWidget:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(data, **options)


def _table() -> pd.DataFrame:
    # three one-thread points, runtimes 1, 10 and 100 s: log10 0, 1 and 2
    return pd.DataFrame({"region": ["a", "b", "c"], "rank": [0, 0, 0],
                         "performance_gflops": [1.0, 2.0, 4.0], "bandwidth_gbs": [1.0, 1.0, 1.0],
                         "runtime_seconds": [1.0, 10.0, 100.0]})


def _count_frames(monkeypatch) -> list:
    """Record each build of a ``RegionSums.frame`` (the every-metric table of the sums)."""
    built: list = []
    original = RegionColumns.frame

    def counted(self):
        if self._frame is None:
            built.append(len(self))
        return original.fget(self)

    monkeypatch.setattr(RegionColumns, "frame", property(counted))
    return built


def test_the_first_draw_builds_no_sums_table_and_sizes_by_runtime_when_asked(monkeypatch):
    built = _count_frames(monkeypatch)
    widget = _widget(_table())
    assert built == []  # sized by nothing: the data's runtimes are not looked at
    assert widget.figure.scene.points.sizes is None
    widget.size_by = "runtime"
    assert built == [3]  # now, once
    # 0.15 + 0.85 * (log10 t - 0) / (2 - 0): 0.15, 0.575, 1.0
    np.testing.assert_allclose(widget.figure.scene.points.sizes, [0.15, 0.575, 1.0])
    widget.include = "[ab]"  # the range stays the whole data's, worked out once
    np.testing.assert_allclose(widget.figure.scene.points.sizes, [0.15, 0.575])
    assert built == [3]


def test_sized_by_runtime_from_the_start_the_range_is_the_data_s():
    widget = _widget(_table(), size_by="runtime", include="[bc]")
    # log range of all three points (0, 2), not of the two shown (1, 2)
    np.testing.assert_allclose(widget.figure.scene.points.sizes, [0.575, 1.0])
    assert math.isclose(widget.figure.scene.points.sizes[0], 0.15 + 0.85 * 0.5)


@pytest.mark.parametrize("rows", [3, 400])
def test_a_points_table_names_no_place_for_any_rank(rows):
    table = pd.DataFrame({"region": [f"r{i % 4}" for i in range(rows)],
                          "rank": [i // 4 for i in range(rows)],
                          "performance_gflops": 1.0, "bandwidth_gbs": 1.0})
    places = RegionSums.from_runs(table).rank_places()
    assert places.hosts.dtype == object
    assert set(places.hosts.tolist()) == {""}
    assert places.sockets.dtype == np.int64
    assert set(places.sockets.tolist()) == {-1}
    assert len(places.hosts) == len(places.sockets) == rows


def test_an_mpirun_log_still_names_its_host():
    from roofline_widget import sample_path

    sums = RegionSums.from_runs(read_likwid(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")))
    assert set(sums.rank_places().hosts.tolist()) == {"sonata"}  # 48 ranks on host sonata
