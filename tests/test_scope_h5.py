"""The fast scope-profiler HDF5 reader against ``ProfilingResults.from_h5``.

Every file here is written by scope-profiler's own writer
(``write_likwid_results``, through ``scope_fixtures.write_scope_h5``); the
reference is :class:`ScopeResultsSource` on ``ProfilingResults.from_h5`` of the same
file, so the numbers must be identical (bit for bit), key columns included.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("scope_profiler")
pytest.importorskip("h5py")

from scope_fixtures import write_scope_h5
from scope_profiler.likwid_data import LikwidRegionResult
from scope_profiler.results import ProfilingResults

from roofline_widget.errors import LikwidFormatError
from roofline_widget.points import (
    RegionSums,
    ScopeH5Source,
    ScopeResultsSource,
    collect_roofline_points,
    points_dataframe,
    read_scope_sums,
)

DP, BW = "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"
KEYS = ("rank", "region", "device", "n_threads", "runtime_s", "call_count", "groups")


def _assert_identical(ours: ScopeH5Source, reference: ScopeResultsSource) -> None:
    assert ours.metric_names == reference.metric_names
    assert len(ours) == len(reference)
    assert ours.label == reference.label
    for name in KEYS:
        mine, theirs = ours.keys[name], reference.keys[name]
        if isinstance(theirs, pd.Categorical):
            assert list(mine.categories) == list(theirs.categories), name
            np.testing.assert_array_equal(mine.codes, theirs.codes, err_msg=name)
        else:
            np.testing.assert_array_equal(mine, theirs, err_msg=name)
    for metric in ours.metric_names:
        np.testing.assert_array_equal(ours.sums(metric), reference.sums(metric), err_msg=metric)


def _region(tag, cpus, names, metrics, times=None, group="MEM_DP", group_id=1):
    return LikwidRegionResult(
        tag=tag, group_id=group_id, group_name=group, cpus=cpus,
        times=np.ones(len(cpus)) if times is None else np.asarray(times, dtype=float),
        call_counts=np.arange(1, len(cpus) + 1), event_names=[], counter_names=[],
        events=np.zeros((0, len(cpus))), metric_names=names,
        metrics=np.asarray(metrics, dtype=float))


def _mixed() -> ProfilingResults:
    """Thread counts 1-3, two name lists, NaN threads, a tag with '/', no group name, 11 ranks."""
    both = [DP, BW]
    likwid = {
        0: {"a": _region("a", [0, 1], both, [[1.0, 2.0], [10.0, np.nan]], times=[0.5, np.nan]),
            "solver/inner": _region("solver/inner", [0], [BW, "CPI"], [[7.0], [0.5]],
                                    group="MEM")},
        2: {"a": _region("a", [4, 5, 6], both, [[np.nan] * 3, [1.0, 2.0, 4.0]]),
            "c": _region("c", [4], both, [[3.0], [6.0]], group="", group_id=7)},
        10: {"c": _region("c", [9], both, [[0.25], [0.5]])},
    }
    return ProfilingResults(regions={}, likwid=likwid, num_ranks=11, file_path="mixed.h5",
                            metadata={"label": "mixed run"})


def _reference(path) -> ScopeResultsSource:
    return ScopeResultsSource(ProfilingResults.from_h5(path))


def test_fixture_file_is_identical_to_from_h5(tmp_path):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 3, "n_regions": 5, "n_threads": 6,
                                                "seed": 4})
    _assert_identical(read_scope_sums(path, cache=False), _reference(path))


def test_mixed_file_is_identical_to_from_h5(tmp_path):
    path = write_scope_h5(tmp_path / "mixed.h5", _mixed())
    ours = read_scope_sums(path, cache=False)
    _assert_identical(ours, _reference(path))
    frame = RegionSums([ours], [ours.label]).frame.set_index(["rank", "region"])
    # rank 0 'a': DP 1 + 2 = 3; bandwidth 10 (the NaN thread ignored); runtime max(0.5, NaN)
    assert frame.loc[(0, "a"), DP] == 3.0
    assert frame.loc[(0, "a"), BW] == 10.0
    assert frame.loc[(0, "a"), "runtime_s"] == 0.5
    assert frame.loc[(0, "a"), "n_threads"] == 2
    # rank 2 'a': every DP thread NaN stays NaN, never 0; bandwidth 1 + 2 + 4 = 7
    assert np.isnan(frame.loc[(2, "a"), DP])
    assert frame.loc[(2, "a"), BW] == 7.0
    # the tag keeps its '/', the group without a name is called after its id
    assert np.isnan(frame.loc[(0, "solver/inner"), DP])
    assert frame.loc[(2, "c"), "groups"] == "Group 7"
    assert ours.label == "mixed run"


def test_points_of_a_path_equal_those_of_from_h5(tmp_path):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 4, "n_regions": 6, "n_threads": 4,
                                                "seed": 9})
    results = ProfilingResults.from_h5(path)
    assert collect_roofline_points(path) == collect_roofline_points(results)
    pd.testing.assert_frame_equal(points_dataframe(str(path), ranks=[1, 3]),
                                  points_dataframe(results, ranks=[1, 3]))


def test_sources_of_a_path_are_the_fast_reader(tmp_path):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 2, "n_regions": 2, "n_threads": 2})
    sums = RegionSums.from_runs(path)
    assert sums.ranks == [0, 1]
    assert sums.regions == ["region_000", "region_001"]
    # the per-thread run is still there when asked for (read through scope-profiler)
    assert len(sums.runs[0].table) == 2 * 2 * 2


@pytest.mark.parametrize("executor", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_executors_give_the_serial_result(tmp_path, executor):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 5, "n_regions": 3, "n_threads": 3})
    with executor(max_workers=2) as pool:
        parallel = read_scope_sums(path, cache=False, executor=pool)
    _assert_identical(parallel, _reference(path))


def test_dask_client_executor(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 3, "n_regions": 2, "n_threads": 2})
    with distributed.Client(processes=False, n_workers=1, dashboard_address=None) as client:
        ours = read_scope_sums(path, cache=False, executor=client.get_executor())
    _assert_identical(ours, _reference(path))


def _write_bad_metrics(path, shape):
    import h5py

    write_scope_h5(path, {"n_ranks": 2, "n_regions": 2, "n_threads": 3})
    with h5py.File(path, "r+") as handle:
        group = handle["rank1/likwid/regions/region_001"]
        del group["metrics"]
        group.create_dataset("metrics", data=np.zeros(shape))


def test_misshaped_metrics_name_rank_and_region(tmp_path):
    path = tmp_path / "bad.h5"
    _write_bad_metrics(path, (19, 3))  # 20 metric names
    with pytest.raises(LikwidFormatError, match=r"rank 1, region 'region_001'.*20 rows.*\(19, 3\)"):
        read_scope_sums(path, cache=False)
    _write_bad_metrics(path, (20, 2))  # 3 cpus, 3 times
    with pytest.raises(LikwidFormatError, match=r"region 'region_001'.*3 times for 2 metrics col"):
        read_scope_sums(path, cache=False)


def test_file_without_likwid_data_is_refused(tmp_path):
    import h5py

    path = tmp_path / "empty.h5"
    with h5py.File(path, "w") as handle:
        handle.create_group("rank0")
    with pytest.raises(LikwidFormatError, match="no LIKWID data"):
        read_scope_sums(path, cache=False)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_scope_sums(tmp_path / "absent.h5")
