"""The sums engines group on integer codes (``io/key_codes.py``): the same groups, firsts and
categories as pandas' groupby and ``pd.Categorical`` on the texts, on real tables.

Samples: ``pmgpu`` (5 regions of one thread, each measured by two groups, MEM_DP then FLOPS_DP:
a (rank, region, device) row takes each metric from the first group with a value),
``mpirun_clx_sonata`` (48 ranks on host ``sonata``, rank r on cpu r).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from likwid_render import topology

from roofline_widget import read_likwid, sample_path
from roofline_widget.io.key_codes import (
    column_codes,
    duplicated,
    first_appearance,
    first_rows,
    first_valid,
    integer_codes,
    sorted_categorical,
)
from roofline_widget.io.points_table import read_points_table
from roofline_widget.points.engines.run import RunSource, cached_run_frame

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
SONATA = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
KEYS = ["rank", "region", "device", "group"]


def _codes(table: pd.DataFrame, names: list[str]) -> list[np.ndarray]:
    return [column_codes(table[name])[0] for name in names]


def test_first_appearance_numbers_groups_as_groupby_without_sorting():
    for path in (PMGPU, SONATA):
        table = read_likwid(path).table
        ours = first_appearance(_codes(table, KEYS))
        theirs = table.groupby(KEYS, observed=True, sort=False).ngroup().to_numpy()
        np.testing.assert_array_equal(ours, theirs)
        # a code's first row is where groupby's group starts
        assert first_rows(ours).tolist() == [int(np.flatnonzero(theirs == g)[0])
                                             for g in range(theirs.max() + 1)]


def test_a_row_with_a_missing_key_belongs_to_no_group():
    # rows 0 and 2 share (0, 5); row 1 lacks its second key; row 3 is new
    codes = first_appearance([np.array([0, 0, 0, 1]), np.array([5, -1, 5, 5])])
    assert codes.tolist() == [0, -1, 0, 1]


def test_first_valid_is_groupby_first_skipping_nan():
    # key 0: rows 0 and 2 -> first value 1.0 (row 0), then NaN skipped -> 3.0 (row 2)
    # key 1: rows 1 and 3 -> NaN in both columns of row 1 -> 2.0 and 4.0 from row 3
    values = np.array([[1.0, np.nan, 5.0, 2.0],
                       [np.nan, np.nan, 3.0, 4.0]])
    keys = np.array([0, 1, 0, 1])
    assert first_valid(values, keys, 2).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    frame = pd.DataFrame(values.T).groupby(keys, sort=False).first()
    np.testing.assert_array_equal(first_valid(values, keys, 2), frame.to_numpy().T)


def test_two_groups_of_a_region_give_one_row_each_metric_from_the_first_group_with_it():
    run = read_likwid(PMGPU)
    frame = cached_run_frame(run)
    table = run.table
    metrics = run.metric_names
    reference = table.groupby(KEYS, observed=True, sort=False)[metrics].sum(min_count=1)
    reference = reference.groupby(level=[0, 1, 2], observed=True, sort=False).first()
    assert len(frame) == 5
    assert set(frame["groups"]) == {"MEM_DP+FLOPS_DP"}
    np.testing.assert_allclose(frame[metrics].to_numpy(), reference.to_numpy(), equal_nan=True)


def test_sorted_categorical_is_pd_categorical_of_the_texts():
    table = read_likwid(SONATA).table
    codes, values = column_codes(table["region"])
    ours = sorted_categorical(codes, values)
    theirs = pd.Categorical(np.asarray(table["region"], dtype=object))
    assert list(ours.categories) == list(theirs.categories)
    assert ours.categories.dtype == theirs.categories.dtype
    np.testing.assert_array_equal(ours.codes, theirs.codes)
    # a value no row has is no category
    only_b = sorted_categorical(np.array([1, 1]), np.array(["c", "b", "a"], dtype=object))
    assert list(only_b.categories) == ["b"]
    assert only_b.codes.tolist() == [0, 0]


def test_integer_codes_offset_dense_ranks_and_number_sparse_ones():
    assert integer_codes(np.array([5, 7, 5])).tolist() == [0, 2, 0]
    assert integer_codes(np.array([-1, 3])).tolist() == [0, 4]
    assert integer_codes(np.array([10**12, 0, 10**12])).tolist() == [0, 1, 0]


def test_duplicated_is_dataframe_duplicated():
    a, b = np.array([0, 1, 0, 0, 1]), np.array([2, 2, 2, 3, 2])
    assert duplicated([a, b]).tolist() == [False, False, True, False, True]
    assert duplicated([a, b]).tolist() == pd.DataFrame({"a": a, "b": b}).duplicated().tolist()


def test_rank_places_of_sonata_name_host_and_socket_of_every_rank(tmp_path):
    source = RunSource(read_likwid(SONATA))
    places = source.rank_places()
    assert set(places.hosts.tolist()) == {"sonata"}
    assert set(places.sockets.tolist()) == {-1}  # the log has no likwid-topology block
    assert source.rank_places() is places  # worked out once
    # with one (4 sockets of 24 cores: cpus 0-23, 24-47, 48-71, 72-95): the header's
    # sonata:<rank>:<cpu> puts ranks 0, 2, .. 22 on cpus 0-22 (socket 0), 1, 3, .. 23 on
    # 25-47 (socket 1), 24, 26, .. 46 on 48-70 (socket 2), 25, 27, .. 47 on 73-95 (socket 3)
    log = tmp_path / "job.txt"
    log.write_text(topology(sockets=4, cores=24) + "\n" + Path(SONATA).read_text())
    source = RunSource(read_likwid(log))
    ranks = np.asarray(source.keys["rank"])
    np.testing.assert_array_equal(source.rank_places().sockets,
                                  np.where(ranks < 24, 0, 2) + ranks % 2)


def test_device_labels_and_thread_limits_are_worked_out_once_per_run():
    source = RunSource(read_likwid(PMGPU))
    labels = source.device_labels()
    assert source.device_labels() is labels
    assert list(labels["device_family"].categories) == ["cpu"]
    assert set(labels["device_name"]) == {read_likwid(PMGPU).cpu_name}
    assert source.thread_limit is source.thread_limit
    assert len(source.thread_limit) == len(source) == 5


def test_numbers_as_region_names_stay_apart_as_texts():
    # 1 and 1.0 (a column of Python objects) hash alike but read as two names
    table = pd.DataFrame({"region": pd.Series([1, 1.0], dtype=object),
                          "performance_gflops": [2.0, 4.0], "bandwidth_gbs": [1.0, 1.0]})
    assert read_points_table(table).regions == ["1", "1.0"]
