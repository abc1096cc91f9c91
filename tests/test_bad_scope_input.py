"""Damaged scope-profiler input: one clear error naming the file, the rank and the region.

Every file here is a copy of one written by scope-profiler's own writer
(``scope_fixtures.write_scope_h5``), then damaged: bytes overwritten, cut
short, a dataset deleted, an attribute replaced. Both HDF5 paths are tried:
the h5py reader (``read_scope_sums``, what ``RegionSums(path)`` and the widget
use) and the scope-profiler adapter (``read_scope_h5``, ``read_likwid(...,
format="scope-h5")``). In-memory ``ProfilingResults`` go through both engines
(``from_scope_profiler`` and ``ScopeResultsSource`` via ``points_dataframe``).
"""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest

pytest.importorskip("scope_profiler")
h5py = pytest.importorskip("h5py")

from scope_fixtures import make_profiling_results, write_scope_h5  # noqa: E402
from scope_profiler.results import ProfilingResults  # noqa: E402

from roofline_widget.errors import LikwidFormatError  # noqa: E402
from roofline_widget.io import read_likwid  # noqa: E402
from roofline_widget.io.bench import read_likwid_bench  # noqa: E402
from roofline_widget.io.scope.h5 import read_scope_h5  # noqa: E402
from roofline_widget.io.scope.objects import from_scope_profiler  # noqa: E402
from roofline_widget.points import points_dataframe, read_scope_sums  # noqa: E402

DP = "DP [MFLOP/s]"


@pytest.fixture
def good_h5(tmp_path):
    """Two ranks, three regions, four threads, written by scope-profiler's writer."""
    return write_scope_h5(tmp_path / "good.h5", {"n_ranks": 2, "n_regions": 3, "n_threads": 4})


def _copy(path, name):
    target = path.with_name(name)
    shutil.copy(path, target)
    return target


def _h5_readers(path):
    """Both HDF5 paths, as a user reaches them."""
    return {
        "read_scope_sums": lambda: read_scope_sums(path, cache=False),
        "read_scope_h5": lambda: read_scope_h5(path),
        "read_likwid": lambda: read_likwid(path, format="scope-h5"),
    }


def _raises_naming(call, *fragments) -> LikwidFormatError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(LikwidFormatError) as info:
            call()
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    return info.value


def test_the_intact_copy_reads(good_h5):
    # the damage below, not the copying, makes the files unreadable
    copy = _copy(good_h5, "copy.h5")
    assert len(read_scope_sums(copy, cache=False)) == 6
    assert len(read_scope_h5(copy).table) == 24


def test_a_broken_b_tree_names_the_file(good_h5):
    data = bytearray(good_h5.read_bytes())
    trees = [i for i in range(len(data)) if data.startswith(b"TREE", i)]
    assert len(trees) >= 3  # root group, rank groups, regions: symbol-table B-trees
    middle = min(trees, key=lambda i: abs(i - len(data) // 2))
    data[middle:middle + 4] = b"XXXX"  # what h5py reports as "wrong B-tree signature"
    bad = good_h5.with_name("btree.h5")
    bad.write_bytes(bytes(data))
    for name, call in _h5_readers(bad).items():
        error = _raises_naming(call, str(bad), "damaged")
        assert error.source.startswith(str(bad)), name


def test_flipped_bytes_in_the_middle_name_the_file(good_h5):
    data = bytearray(good_h5.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 2000] = bytes(b ^ 0xFF for b in data[middle:middle + 2000])
    bad = good_h5.with_name("flipped.h5")
    bad.write_bytes(bytes(data))
    for call in _h5_readers(bad).values():
        _raises_naming(call, str(bad), "damaged")


def test_a_truncated_file_says_it_cannot_be_opened(good_h5):
    bad = _copy(good_h5, "truncated.h5")
    with open(bad, "r+b") as handle:
        handle.truncate(bad.stat().st_size // 2)
    for call in _h5_readers(bad).values():
        error = _raises_naming(call, str(bad), "truncated", "cannot be opened")
        assert error.source == str(bad)
        assert not isinstance(error, OSError)  # not scope-profiler's CorruptProfileError


def test_a_region_without_metrics_names_rank_region_and_dataset(good_h5):
    bad = _copy(good_h5, "no_metrics.h5")
    with h5py.File(bad, "r+") as handle:
        del handle["rank1/likwid/regions/region_001/metrics"]
    for call in _h5_readers(bad).values():
        _raises_naming(call, f"{bad} (rank 1, region 'region_001')", "'metrics' dataset",
                       "call_counts, cpus, events, times")


def test_metric_names_as_one_string_is_said_so(good_h5):
    bad = _copy(good_h5, "one_string.h5")
    with h5py.File(bad, "r+") as handle:
        attrs = handle["rank0/likwid/regions/region_002"].attrs
        del attrs["metric_names"]
        attrs["metric_names"] = DP  # a scalar string: 12 characters, not 12 names
    for call in _h5_readers(bad).values():
        error = _raises_naming(call, f"{bad} (rank 0, region 'region_002')", "one string",
                               "not a list")
        assert "12 rows" not in str(error)


def _results(**changes):
    return make_profiling_results(n_ranks=2, n_regions=2, n_threads=2, file_path="job.h5",
                                  **changes)


def _engines(results):
    """The adapter (per-thread run) and the sums engine (what points and the widget use)."""
    return {"from_scope_profiler": lambda: from_scope_profiler(results, cache=False),
            "points_dataframe": lambda: points_dataframe(results)}


def test_a_string_in_an_object_metrics_array_names_the_region():
    results = _results()
    region = results.get_likwid_regions()[1]["region_001"]
    metrics = region.metrics.astype(object)
    metrics[region.metric_names.index(DP), 1] = "abc"
    region.metrics = metrics
    for call in _engines(results).values():
        _raises_naming(call, "job.h5 (rank 1, region 'region_001')", "numbers in metric",
                       "found 'abc'")


def test_a_string_in_times_names_the_region():
    results = _results()
    region = results.get_likwid_regions()[0]["region_000"]
    region.times = np.array([0.5, "abc"], dtype=object)
    for call in _engines(results).values():
        _raises_naming(call, "job.h5 (rank 0, region 'region_000')", "numbers in times",
                       "found 'abc'")


def test_an_object_array_of_numbers_is_still_read():
    results = _results()
    region = results.get_likwid_regions()[1]["region_001"]
    expected = float(np.sum(region.metrics[region.metric_names.index(DP)]))
    region.metrics = region.metrics.astype(object)
    run = from_scope_profiler(results, cache=False)
    rows = (run.table["rank"] == 1) & (run.table["region"] == "region_001")
    assert run.table.loc[rows, DP].sum() == pytest.approx(expected)


def test_metric_names_as_one_string_in_memory():
    results = _results()
    results.get_likwid_regions()[0]["region_001"].metric_names = DP
    for call in _engines(results).values():
        error = _raises_naming(call, "job.h5 (rank 0, region 'region_001')",
                               f"one string '{DP}', not a list")
        assert "rows" not in str(error)


def _with_ranks(mapping):
    by_rank = _results().get_likwid_regions()
    likwid = {new: by_rank[old] for old, new in mapping.items()}
    return ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="job.h5")


def test_a_negative_rank_is_refused_naming_it():
    results = _with_ranks({0: 0, 1: -1})
    for call in _engines(results).values():
        error = _raises_naming(call, "job.h5", "rank -1", "all ranks")
        assert error.found == "rank -1"


def test_a_rank_that_is_not_an_integer_is_a_type_error():
    results = _with_ranks({0: 0, 1: "1"})
    for call in _engines(results).values():
        with pytest.raises(TypeError, match=r"job.h5: .*integer ranks.*'1' \(str\)"):
            call()


def test_numpy_integer_ranks_are_read():
    results = _with_ranks({0: np.int64(0), 1: np.int32(3)})
    assert from_scope_profiler(results, cache=False).ranks == [0, 3]


def test_read_likwid_bench_of_a_directory_names_it(tmp_path):
    with pytest.raises(LikwidFormatError, match="not a directory") as info:
        read_likwid_bench(tmp_path)
    assert info.value.source == str(tmp_path)


def test_the_error_of_a_worker_process_names_the_region(good_h5):
    from concurrent.futures import ProcessPoolExecutor

    bad = _copy(good_h5, "no_times.h5")
    with h5py.File(bad, "r+") as handle:
        del handle["rank0/likwid/regions/region_002/times"]
    with ProcessPoolExecutor(1) as pool:
        _raises_naming(lambda: read_scope_sums(bad, cache=False, executor=pool),
                       f"{bad} (rank 0, region 'region_002')", "'times' dataset")
