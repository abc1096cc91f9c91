"""rank_spread: per region min / median / max over ranks, imbalance, slowest rank, its ranks.

Where memory is counted on one rank per socket (samples 18 and 23, a generated 2,304-rank job of
``study_files.py``), each rank pairs its FLOPs with its share of its socket's (or host's) traffic.
"""

from __future__ import annotations

import numpy as np
import pytest
from study_files import write_ranks
from wild_samples import MPIRUN_NIL, SOMA_216

from roofline_widget import RegionSums, points_dataframe, rank_spread, read_likwid, sample_path
from roofline_widget.analysis.spread import bandwidth_shares

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
    # the L1-L2 bandwidth is counted on every rank: summed ranks (the points' grouping) share
    # nothing out, the spread over the ranks is the same
    assert row["bandwidth_share"] == ""
    assert row["ranks"] == (0, 1, 2)
    assert rank_spread(MPIRUN, bandwidth_metric=L1L2, ranks=[0, 1, 2],
                       combine_ranks=True).equals(spread)


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


# ---------------------------------------------------------------- memory counted per socket
def test_sample_18_each_rank_pairs_its_flops_with_its_share_of_the_hosts_traffic():
    # 24 ranks on host f0472, no likwid-topology block: memory is counted on rank 0 only
    # (53388.0431 MB/s, the STAT Sum), so the points sum the host: 321.2207 GFLOP/s on
    # 53.3880 GB/s, intensity 6.0167.  Each rank's share is 53.3880431 / 24 = 2.2245018 GB/s.
    share = 53.3880431 / 24
    row = rank_spread(MPIRUN_NIL).iloc[0]
    assert row["bandwidth_share"] == "host"
    assert row["ranks"] == tuple(range(24))
    assert row["bandwidth_gbs_median"] == pytest.approx(share, rel=1e-9)
    # DP [MFLOP/s] of the ranks (line 678): min 13368.9765 (the STAT Min); sorted, the 12th and
    # 13th of the 24 are 13371.1855 (the STAT %ile 50) and 13371.7313: median 13371.4584
    assert row["arithmetic_intensity_flops_per_byte_min"] == pytest.approx(13.3689765 / share,
                                                                           rel=1e-9)
    assert row["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
        (13.3711855 + 13.3717313) / 2 / share, rel=1e-9)
    # the square sits with the host point (6.0167), not at a rank's FLOPs over a socket's bytes
    assert row["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(6.011, abs=1e-3)
    # group_ranks="rank", the per-core view: each rank's own bandwidth, 0 but on rank 0
    per_rank = rank_spread(MPIRUN_NIL, group_ranks="rank").iloc[0]
    assert per_rank["bandwidth_share"] == ""
    assert per_rank["bandwidth_gbs_median"] == 0.0
    assert per_rank["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
        13.3705843 / 53.3880431, rel=1e-9)  # rank 0's, the only rank with bytes: 0.2504


def test_sample_23_three_hosts_each_shares_its_own_traffic():
    # memory on ranks 0 and 36 (host f0702: 24336.2989 + 23046.8986 MB/s), 72 and 108 (f0703:
    # 23864.1357 + 23093.7938), 144 and 180 (f0704: 23471.6888 + 23016.9690); 72 ranks a host
    f0702, f0703, f0704 = (47383.1975 / 72e3, 46957.9295 / 72e3, 46488.6578 / 72e3)
    row = rank_spread(SOMA_216).iloc[0]
    assert row["n_ranks"] == 216
    assert row["bandwidth_share"] == "host"
    assert (row["bandwidth_gbs_min"], row["bandwidth_gbs_median"], row["bandwidth_gbs_max"]) \
        == pytest.approx((f0704, f0703, f0702), rel=1e-9)
    # the least intensity: rank 51 of f0702, 898.8951 MFLOP/s; the most: rank 61 of f0702, whose
    # wrapped counter reads 1.169961e+06 MFLOP/s
    assert row["arithmetic_intensity_flops_per_byte_min"] == pytest.approx(0.8988951 / f0702,
                                                                           rel=1e-6)
    assert row["arithmetic_intensity_flops_per_byte_max"] == pytest.approx(1169.961 / f0702,
                                                                           rel=1e-6)
    hosts = points_dataframe(SOMA_216)["arithmetic_intensity_flops_per_byte"].sort_values()
    assert hosts.round(3).tolist() == [1.398, 1.413, 26.068]  # f0703, f0704, f0702
    assert hosts.iloc[0] <= row["arithmetic_intensity_flops_per_byte_median"] <= hosts.iloc[1]
    assert row["ranks"] == tuple(range(216))


@pytest.fixture(scope="module")
def ranks_2304(tmp_path_factory):
    return read_likwid(write_ranks(tmp_path_factory.mktemp("ranks") / "ranks2304.txt"))


def test_2304_ranks_on_32_hosts_share_their_sockets_traffic(ranks_2304):
    # per host: socket 0 (ranks c = 0-35 of the host) 30,000 MB/s over 36 ranks, socket 1
    # (c = 36-71) 50,000 MB/s; rank c does 1000 + 10 c MFLOP/s
    c = np.arange(72)
    shares = np.where(c < 36, 30.0 / 36, 50.0 / 36)  # GB/s
    intensity = (1.0 + 0.01 * c) / shares
    row = rank_spread(ranks_2304).iloc[0]
    assert row["n_ranks"] == 2304
    assert row["bandwidth_share"] == "socket"
    assert row["ranks"] == tuple(range(2304))
    assert (row["bandwidth_gbs_min"], row["bandwidth_gbs_max"]) == pytest.approx(
        (30 / 36, 50 / 36))
    # 32 hosts alike: the median of 2,304 is the median of one host's 72
    assert row["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
        np.median(intensity), rel=1e-12)
    assert row["arithmetic_intensity_flops_per_byte_min"] == pytest.approx(1.36 / (50 / 36))
    assert row["arithmetic_intensity_flops_per_byte_max"] == pytest.approx(1.35 / (30 / 36))
    # the socket points: socket 0 sums 42,300 MFLOP/s on 30 GB/s (1.41), socket 1 55,260 on 50
    # (1.1052); the square lies between them (before: 0.0303, the leaders' FLOPs over their bytes)
    points = points_dataframe(ranks_2304)
    assert len(points) == 64
    assert sorted(set(points["arithmetic_intensity_flops_per_byte"].round(4))) == [1.1052, 1.41]
    assert 1.1052 < row["arithmetic_intensity_flops_per_byte_median"] < 1.41
    leaders = rank_spread(ranks_2304, group_ranks="rank").iloc[0]
    assert leaders["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
        (1.0 / 30 + 1.36 / 50) / 2)
    # grouped by host: each rank's share is a 72nd of the host's 80 GB/s
    host = rank_spread(ranks_2304, group_ranks="host").iloc[0]
    assert host["bandwidth_share"] == "host"
    assert host["bandwidth_gbs_median"] == pytest.approx(80 / 72)
    assert host["arithmetic_intensity_flops_per_byte_median"] == pytest.approx(
        np.median((1.0 + 0.01 * c) / (80 / 72)))


def test_the_spread_of_a_few_ranks_keeps_the_socket_shares(ranks_2304):
    # ranks 1-3 of host n000 (not the leader): their share is still a 36th of socket 0's traffic
    row = rank_spread(ranks_2304, ranks=[1, 2, 3]).iloc[0]
    assert row["ranks"] == (1, 2, 3)
    assert row["bandwidth_gbs_median"] == pytest.approx(30 / 36)
    assert row["performance_gflops_median"] == pytest.approx(1.02)


def test_bandwidth_shares_per_row(ranks_2304):
    sums = RegionSums.from_runs(ranks_2304)
    values, kinds = bandwidth_shares(sums, "auto", "Memory bandwidth [MBytes/s]")
    ranks = sums.key_numbers("rank")
    assert values[ranks == 0][0] == pytest.approx(30_000 / 36)  # MB/s, the metric's own unit
    assert values[ranks == 2303][0] == pytest.approx(50_000 / 36)
    assert set(kinds) == {"socket"}
    own, none = bandwidth_shares(sums, "rank", "Memory bandwidth [MBytes/s]")
    assert own[ranks == 1][0] == 0.0
    assert set(none) == {""}
