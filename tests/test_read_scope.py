"""Tests of the scope-profiler adapter (roofline_widget.io.scope.objects)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("scope_profiler")
pytest.importorskip("h5py")

from scope_fixtures import make_profiling_results, metric_names, socket_lock_mask, write_scope_h5
from scope_profiler.likwid_data import LikwidRegionResult
from scope_profiler.results import ProfilingResults

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io import as_runs
from roofline_widget.io.scope.h5 import read_scope_h5
from roofline_widget.io.scope.objects import from_scope_profiler
from roofline_widget.schema import KEY_COLUMNS


def _hand_made() -> ProfilingResults:
    """Rank 0: 'solve' (MEM_DP, cpus 0 and 8) and 'setup' (FLOPS_DP, cpu 0); rank 1: 'solve'."""
    solve = dict(
        group_id=0, group_name="MEM_DP",
        event_names=["INSTR_RETIRED_ANY", "CAS_COUNT_RD", "CAS_COUNT_RD"],
        counter_names=["FIXC0", "MBOX0C0", "MBOX1C0"],
        metric_names=["DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"],
    )
    rank0_solve = LikwidRegionResult(
        tag="solve", cpus=[0, 8], times=np.array([0.5, 0.25]), call_counts=np.array([3, 3]),
        events=np.array([[100.0, 200.0], [10.0, 0.0], [20.0, 0.0]]),
        metrics=np.array([[1000.0, 2000.0], [5000.0, 0.0]]), **solve)
    rank0_setup = LikwidRegionResult(
        tag="setup", group_id=1, group_name="FLOPS_DP", cpus=[0], times=np.array([0.125]),
        call_counts=np.array([1]), event_names=["INSTR_RETIRED_ANY"], counter_names=["FIXC0"],
        events=np.array([[7.0]]), metric_names=["DP [MFLOP/s]", "CPI"],
        metrics=np.array([[300.0], [0.75]]))
    rank1_solve = LikwidRegionResult(
        tag="solve", cpus=[16, 24], times=np.array([0.5, 0.5]), call_counts=np.array([3, 4]),
        events=np.array([[1.0, 2.0], [3.0, 0.0], [4.0, 0.0]]),
        metrics=np.array([[np.nan, 10.0], [20.0, 0.0]]), **solve)
    return ProfilingResults(regions={}, likwid={0: {"solve": rank0_solve, "setup": rank0_setup},
                                                1: {"solve": rank1_solve}},
                            num_ranks=2, file_path="x.h5")


def test_hand_made_results_object():
    results = _hand_made()
    assert results.likwid_ranks == [0, 1]
    assert results.display_label == "x"
    assert results.get_likwid_region("solve", rank=1).cpus == [16, 24]


def test_table_keys_from_hand_made_results():
    run = from_scope_profiler(_hand_made())
    table = run.table
    assert list(table.columns[:len(KEY_COLUMNS)]) == list(KEY_COLUMNS)
    assert run.label == "x"
    assert run.layout == "scope-profiler"
    assert run.sources == ("x.h5",)
    assert table["rank"].tolist() == [0, 0, 0, 1, 1]
    assert table["region"].astype(str).tolist() == ["solve", "solve", "setup", "solve", "solve"]
    assert run.regions == ["solve", "setup"]
    assert table["thread"].astype(str).tolist() == [
        "HWThread 0", "HWThread 8", "HWThread 0", "HWThread 16", "HWThread 24"]
    assert table["cpu"].tolist() == [0, 8, 0, 16, 24]
    assert table["group"].astype(str).tolist() == ["MEM_DP"] * 2 + ["FLOPS_DP"] + ["MEM_DP"] * 2
    assert table["group_index"].tolist() == [0, 0, 1, 0, 0]
    assert set(table["device"].astype(str)) == {"cpu"}
    np.testing.assert_array_equal(table["runtime_s"], [0.5, 0.25, 0.125, 0.5, 0.5])
    np.testing.assert_array_equal(table["call_count"], [3, 3, 1, 3, 4])


def test_metrics_of_two_metric_sets_are_aligned():
    run = from_scope_profiler(_hand_made())
    assert run.metric_names == ["DP [MFLOP/s]", "Memory bandwidth [MBytes/s]", "CPI"]
    np.testing.assert_array_equal(run.values("DP [MFLOP/s]"), [1000, 2000, 300, np.nan, 10])
    np.testing.assert_array_equal(run.values("Memory bandwidth [MBytes/s]"),
                                  [5000, 0, np.nan, 20, 0])
    np.testing.assert_array_equal(run.values("CPI"), [np.nan, np.nan, 0.75, np.nan, np.nan])
    # Repeated event names are told apart by their counters.
    assert run.events.columns.tolist() == [
        "INSTR_RETIRED_ANY:FIXC0", "CAS_COUNT_RD:MBOX0C0", "CAS_COUNT_RD:MBOX1C0"]
    np.testing.assert_array_equal(run.events["CAS_COUNT_RD:MBOX1C0"], [20, 0, np.nan, 4, 0])
    np.testing.assert_array_equal(run.events["INSTR_RETIRED_ANY:FIXC0"], [100, 200, 7, 1, 2])


def test_label_argument_and_cache():
    results = _hand_made()
    first = from_scope_profiler(results)
    assert from_scope_profiler(results) is first  # same object, same regions
    assert from_scope_profiler(results, cache=False) is not first
    assert from_scope_profiler(results, label="other").label == "other"
    results.get_likwid_regions()[1]["extra"] = results.get_likwid_region("setup")
    rebuilt = from_scope_profiler(results)
    assert rebuilt is not first
    assert len(rebuilt) == 6


def test_generated_results_are_realistic():
    results = make_profiling_results(n_ranks=3, n_regions=4, n_threads=6, n_metrics=20, seed=7)
    run = from_scope_profiler(results, cache=False)
    assert len(run) == 3 * 4 * 6
    assert run.metric_names == metric_names(20)
    assert {"DP [MFLOP/s]", "Memory bandwidth [MBytes/s]",
            "Memory read bandwidth [MBytes/s]"} <= set(run.metric_names)
    lock = np.tile(socket_lock_mask(6, 2), 12)  # threads 0 and 3 lead their socket
    assert lock.tolist()[:6] == [True, False, False, True, False, False]
    bandwidth = run.values("Memory bandwidth [MBytes/s]")
    assert (bandwidth[lock] > 0).all()
    assert (bandwidth[~lock] == 0).all()
    assert (run.values("DP [MFLOP/s]") > 0).all()
    # Per (rank, region) the table sums equal the sums of the source arrays.
    regions = results.get_likwid_regions()
    sums = run.table.groupby(["rank", "region"], observed=True)["DP [MFLOP/s]"].sum()
    index = run.metric_names.index("DP [MFLOP/s]")
    for (rank, tag), value in sums.items():
        assert value == pytest.approx(regions[rank][tag].metrics[index].sum(), rel=1e-12)
    # Rows 24..29: rank 1 (after rank 0's 4 regions x 6 threads), on cpus 6..11.
    assert run.table["cpu"].tolist()[24:30] == list(range(6, 12))


def test_hdf5_written_by_scope_profiler_reads_back(tmp_path):
    results = make_profiling_results(n_ranks=2, n_regions=3, n_threads=4, n_metrics=8, seed=3,
                                     label="my run")
    path = write_scope_h5(tmp_path / "profile.h5", results)
    assert path.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    from_file = read_scope_h5(path)
    in_memory = from_scope_profiler(results, cache=False)
    assert from_file.label == "my run"
    assert from_file.sources == (str(path),)
    for column in ("rank", "cpu", "group_index", "call_count", "runtime_s", *in_memory.metric_names):
        np.testing.assert_array_equal(from_file.table[column], in_memory.table[column])
    for column in ("region", "thread", "group"):
        assert from_file.table[column].astype(str).tolist() == \
            in_memory.table[column].astype(str).tolist()
    np.testing.assert_array_equal(from_file.events.to_numpy(), in_memory.events.to_numpy())
    (via_as_runs,) = as_runs(str(path))
    np.testing.assert_array_equal(via_as_runs.values("DP [MFLOP/s]"),
                                  in_memory.values("DP [MFLOP/s]"))


def test_hdf5_from_params_and_hand_made(tmp_path):
    path = write_scope_h5(tmp_path / "params.h5", {"n_ranks": 1, "n_regions": 2, "n_threads": 1,
                                                    "n_metrics": 4, "seed": 5})
    run = read_scope_h5(path)
    assert run.label == "params"
    assert len(run) == 2
    assert run.metric_names == metric_names(4)
    hand = read_scope_h5(write_scope_h5(tmp_path / "hand.h5", _hand_made()))
    # h5py lists a rank's regions by name: rank 0's "setup" now comes first.
    assert hand.table["region"].astype(str).tolist() == ["setup", "solve", "solve", "solve", "solve"]
    np.testing.assert_array_equal(hand.values("CPI"), [0.75, np.nan, np.nan, np.nan, np.nan])
    assert hand.table["thread"].astype(str).tolist()[3:] == ["HWThread 16", "HWThread 24"]


def test_no_likwid_data_raises():
    empty = ProfilingResults(regions={}, likwid={}, num_ranks=1, file_path="none.h5")
    with pytest.raises(LikwidFormatError, match="no LIKWID data"):
        from_scope_profiler(empty)


def test_misshaped_region_arrays_raise():
    results = _hand_made()
    bad = results.get_likwid_region("setup")
    bad.metrics = np.array([[300.0, 1.0], [0.75, 1.0]])  # two columns for one cpu
    with pytest.raises(LikwidFormatError, match="'setup'"):
        from_scope_profiler(results, cache=False)
    bad.metrics, bad.times = np.array([[300.0], [0.75]]), np.array([0.1, 0.2])
    with pytest.raises(LikwidFormatError, match="2 times for 1 cpus"):
        from_scope_profiler(results, cache=False)


def test_package_import_does_not_import_scope_profiler():
    code = ("import sys, roofline_widget, roofline_widget.io, roofline_widget.io.scope.objects; "
            "print('scope_profiler' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
