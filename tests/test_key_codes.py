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
    text_dtype,
    unique_integers,
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


def _groupby_numbers(columns: list[np.ndarray]) -> np.ndarray:
    """pandas' numbering of the rows' tuples (first appearance), -1 where a code is missing."""
    frame = pd.DataFrame({i: column for i, column in enumerate(columns)})
    frame = frame.where(frame >= 0)
    numbers = frame.groupby(list(frame.columns), sort=False, dropna=True).ngroup().to_numpy()
    return np.where(frame.isna().any(axis=1).to_numpy(), -1, numbers)


def test_first_appearance_counts_a_small_span_as_groupby_numbers_it():
    # SONATA: 48 ranks x 3 regions x 1 group: (rank, region) spans 48 x 3 = 144 keys for
    # the 48 x 3 x 4 thread rows, so the keys are counted (no hashing); the same groups.
    table = read_likwid(SONATA).table
    columns = _codes(table, ["rank", "region"])
    np.testing.assert_array_equal(first_appearance(columns), _groupby_numbers(columns))
    # the rows reversed, every second one dropped, a missing code: still groupby's numbers
    reordered = [column[::-2].copy() for column in columns]
    reordered[1][3] = -1
    np.testing.assert_array_equal(first_appearance(reordered), _groupby_numbers(reordered))
    # every key once (a points table's rows): numbered as the rows are
    distinct = [np.array([3, 0, 2, 1]), np.array([0, 0, 1, 1])]
    assert first_appearance(distinct).tolist() == [0, 1, 2, 3]
    # a span far larger than the rows is hashed: the same numbering
    wide = [np.array([10**9, 5, 10**9, 7]), np.array([0, 0, 0, 0])]
    assert first_appearance(wide).tolist() == [0, 1, 0, 2]


def test_unique_integers_is_np_unique_with_its_inverse():
    ranks = read_likwid(SONATA).table["rank"].to_numpy()[::-1]  # 47 .. 0, 12 rows each
    values, codes = unique_integers(ranks)
    assert values.tolist() == list(range(48))
    np.testing.assert_array_equal(values[codes], ranks)
    sparse = np.array([10**12, -1, 10**12, 3])  # the span is far wider than the rows: sorted
    values, codes = unique_integers(sparse)
    assert values.tolist() == [-1, 3, 10**12]
    assert codes.tolist() == [2, 0, 2, 1]
    assert unique_integers(np.zeros(0, dtype=np.int64))[0].tolist() == []


def test_text_dtype_is_made_once_and_is_pandas_own():
    assert text_dtype(("FLOP rate [GFLOP/s]",)) is text_dtype(("FLOP rate [GFLOP/s]",))
    assert text_dtype(("a", "b")) == pd.CategoricalDtype(["a", "b"])
    assert text_dtype(("a",)).categories.dtype == pd.CategoricalDtype(["a"]).categories.dtype
    assert text_dtype(("a",), as_objects=True).categories.dtype == object


def test_a_points_table_of_one_thread_per_point_sums_to_its_own_rates():
    # 3 ranks x 2 regions, one thread each: every (rank, region) row its own group, so the
    # sums are the table's numbers (infinite GFLOP/s is not a measurement: NaN, as a thread)
    table = pd.DataFrame({"region": ["b", "a"] * 3, "rank": [2, 2, 0, 0, 1, 1],
                          "performance_gflops": [1.0, 2.0, np.inf, 4.0, 5.0, np.nan],
                          "bandwidth_gbs": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0],
                          "runtime_seconds": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    run = read_points_table(table)
    frame = cached_run_frame(run)
    assert frame["rank"].tolist() == [2, 2, 0, 0, 1, 1]
    assert frame["region"].tolist() == ["b", "a"] * 3
    np.testing.assert_array_equal(frame["FLOP rate [GFLOP/s]"],
                                  [1.0, 2.0, np.nan, 4.0, 5.0, np.nan])
    np.testing.assert_array_equal(frame["runtime_s"], table["runtime_seconds"])
    assert frame["n_threads"].tolist() == [1] * 6
    assert set(frame["groups"]) == {"points"}
    # pandas' own groupby of the per-thread table gives the same sums
    reference = run.table.groupby(KEYS, observed=True, sort=False)["Memory bandwidth [GBytes/s]"]
    np.testing.assert_array_equal(frame["Memory bandwidth [GBytes/s]"], reference.sum().to_numpy())
    source = RunSource(run)
    np.testing.assert_array_equal(source.thread_maxima("Memory bandwidth [GBytes/s]"),
                                  table["bandwidth_gbs"])
