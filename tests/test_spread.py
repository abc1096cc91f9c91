"""rank_spread: per region min / median / max over ranks, imbalance and slowest rank."""

from __future__ import annotations

import numpy as np
import pytest

from roofline_widget import rank_spread, sample_path

MPIRUN = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
L1L2 = "L1 to/from L2 bandwidth [MBytes/s]"


def test_48_ranks_of_likwid_mpirun_by_hand():
    # One region 'wr-only', 48 ranks of one hardware thread each (sonata:<rank>:<cpu>), CACHES
    # group: no FLOP metric, so GFLOP/s and intensity are NaN; the bandwidth is given.
    spread = rank_spread(MPIRUN, bandwidth_metric=L1L2)
    assert len(spread) == 1
    row = spread.iloc[0]
    assert row["region"] == "wr-only"
    assert row["n_ranks"] == 48
    assert row["flops_metric"] is None
    assert row["bandwidth_metric"] == L1L2
    assert np.isnan(row["performance_gflops_median"])
    assert np.isnan(row["arithmetic_intensity_flops_per_byte_max"])
    # 'L1 to/from L2 bandwidth' row: min 33.0835 (rank 2) and max 34.1064 (rank 38), as the STAT
    # table's Min and Max say; sorted, the 24th and 25th of the 48 values are 33.7458 (rank 5)
    # and 33.7700 (rank 9): median (33.7458 + 33.7700) / 2 = 33.7579 MB/s. In GB/s: / 1000.
    assert row["bandwidth_gbs_min"] == pytest.approx(33.0835e-3, rel=1e-12)
    assert row["bandwidth_gbs_max"] == pytest.approx(34.1064e-3, rel=1e-12)
    assert row["bandwidth_gbs_median"] == pytest.approx(33.7579e-3, rel=1e-12)
    # 'Runtime (RDTSC) [s]': min 28.0537 (ranks 0 and 24), max 28.0576 (rank 18, the slowest),
    # twelve ranks print 28.0546, among them the 24th and 25th sorted values: median 28.0546.
    # STAT Sum 1346.6199 over 48 ranks: mean 28.054581..., imbalance 28.0576 / mean.
    assert row["runtime_seconds_min"] == pytest.approx(28.0537, rel=1e-12)
    assert row["runtime_seconds_median"] == pytest.approx(28.0546, rel=1e-12)
    assert row["runtime_seconds_max"] == pytest.approx(28.0576, rel=1e-12)
    assert row["slowest_rank"] == 18
    assert row["imbalance"] == pytest.approx(28.0576 / (1346.6199 / 48), rel=1e-9)


def test_selection_keywords_reach_the_points_engine():
    spread = rank_spread(MPIRUN, bandwidth_metric=L1L2, ranks=[0, 1, 2])
    # ranks 0, 1, 2 print 33.5467, 33.6197, 33.0835 and runtimes 28.0537, 28.0544, 28.0546
    row = spread.iloc[0]
    assert row["n_ranks"] == 3
    assert row["bandwidth_gbs_median"] == pytest.approx(33.5467e-3, rel=1e-12)
    assert row["slowest_rank"] == 2
    with pytest.raises(TypeError, match="combine_ranks"):
        rank_spread(MPIRUN, combine_ranks=True)


def test_1024_generated_ranks():
    pytest.importorskip("scope_profiler")
    from scope_fixtures import make_profiling_results

    results = make_profiling_results(n_ranks=1024, n_regions=2, n_threads=2, seed=3)
    regions = results.get_likwid_regions()
    slow = regions[777]["region_001"]
    slow.times = slow.times.copy()
    slow.times[1] = 50.0  # rank 777 waits in region_001
    spread = rank_spread(results, flops_metric="DP [MFLOP/s]",
                         bandwidth_metric="Memory bandwidth [MBytes/s]")
    assert spread["region"].tolist() == ["region_000", "region_001"]
    assert spread["n_ranks"].tolist() == [1024, 1024]
    for _, row in spread.iterrows():
        tag = row["region"]
        # independent of the points engine: straight from the region arrays, per rank the sum
        # over its 2 threads, MFLOP/s and MB/s / 1000; runtime the max of the thread times
        names = regions[0][tag].metric_names
        dp = np.array([regions[r][tag].metrics[names.index("DP [MFLOP/s]")].sum() / 1e3
                       for r in range(1024)])
        bw = np.array([regions[r][tag].metrics[names.index("Memory bandwidth [MBytes/s]")].sum()
                       / 1e3 for r in range(1024)])
        runtime = np.array([regions[r][tag].times.max() for r in range(1024)])
        assert row["performance_gflops_median"] == pytest.approx(np.median(dp), rel=1e-12)
        assert row["performance_gflops_max"] == pytest.approx(dp.max(), rel=1e-12)
        assert row["bandwidth_gbs_min"] == pytest.approx(bw.min(), rel=1e-12)
        assert row["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
            np.median(dp / bw), rel=1e-12)
        assert row["runtime_seconds_median"] == pytest.approx(np.median(runtime), rel=1e-12)
        assert row["imbalance"] == pytest.approx(runtime.max() / runtime.mean(), rel=1e-12)
        assert row["slowest_rank"] == int(np.argmax(runtime))
    assert spread.loc[1, "slowest_rank"] == 777
    assert spread.loc[1, "runtime_seconds_max"] == 50.0


@pytest.mark.parametrize("selection", [{"include": "nomatch"}, {"ranks": []},
                                       {"exclude": "wr"}, {"ranks": [48]}])
def test_a_selection_of_nothing_is_an_empty_frame(selection):
    expected = rank_spread(MPIRUN, bandwidth_metric=L1L2)
    spread = rank_spread(MPIRUN, bandwidth_metric=L1L2, **selection)
    assert spread.empty
    assert list(spread.columns) == list(expected.columns)
    assert spread["slowest_rank"].dtype == np.int64
