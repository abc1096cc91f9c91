"""The one dispatcher from what the user passed to runs and engines (io/inputs.py, points/engines/dispatch.py).

The rule: the items of an outer list are the runs; a run is a LikwidRun,
ProfilingResults, a path or open file, or a list of files (the files of one
run, merged); ``read_likwid`` reads one run, so its list is that run's files.
Every entry point goes through it, the widget included, and every HDF5 path
takes the fast reader.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline_widget import RegionSums, points_dataframe, read_likwid, sample_path
from roofline_widget.io import as_runs, formats
from roofline_widget.io.inputs import run_inputs

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
GMG_MEM = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")


@pytest.fixture
def mem_and_flops(tmp_path):
    """The pmgpu log's two runs of one job (MEM_DP lines 1-178, FLOPS_DP after), one file each."""
    lines = Path(PMGPU).read_text().splitlines(keepends=True)
    mem, flops = tmp_path / "mem_dp.txt", tmp_path / "flops_dp.txt"
    mem.write_text("".join(lines[:178]))
    flops.write_text("".join(lines[178:]))
    return mem, flops


def test_the_outer_list_is_the_runs_an_inner_list_the_files_of_one(mem_and_flops):
    mem, flops = mem_and_flops
    separate = RegionSums.from_runs([mem, flops])
    assert separate.files == ["mem_dp", "flops_dp"]
    assert len(separate) == 10  # 5 regions in each file
    joined = RegionSums.from_runs([[mem, flops]])
    assert joined.files == ["mem_dp"]
    assert len(joined) == 5
    assert set(joined.frame["groups"]) == {"MEM_DP+FLOPS_DP"}
    # read_likwid reads one run: its list is that run's files, as the inner list above
    pd.testing.assert_frame_equal(joined.frame, RegionSums.from_runs(read_likwid([mem, flops])).frame)
    pd.testing.assert_frame_equal(points_dataframe([[mem, flops]]),
                                  points_dataframe(read_likwid([mem, flops])))
    mixed = RegionSums.from_runs([(mem, flops), GMG_MEM])
    assert mixed.files == ["mem_dp", Path(GMG_MEM).stem]
    assert [len(run.table) for run in as_runs([(mem, flops), GMG_MEM])] == \
        [10, len(read_likwid(GMG_MEM).table)]


def test_kinds_of_runs():
    run = read_likwid(GMG_MEM)
    inputs = run_inputs([run, GMG_MEM, [GMG_MEM], Path(GMG_MEM)])
    assert [item.format for item in inputs] == [formats.RUN, None, None, None]  # None: text files
    assert [item.engine for item in inputs] == ["per-thread"] * 4
    sums = RegionSums.from_runs(run)
    assert RegionSums.from_runs(sums) is sums
    # an aggregate inside a list gives its runs
    assert RegionSums.from_runs([sums, GMG_MEM]).files == [run.label, f"{run.label} (2)"]


@pytest.mark.parametrize(("data", "error", "match"), [
    ({"a": GMG_MEM}, TypeError, "got dict"),
    (b"run.txt", TypeError, "got bytes"),
    (3, TypeError, "got int"),
    ([], ValueError, "no runs given"),
    ([[[GMG_MEM]]], TypeError, "read_likwid takes a path"),
    ([[]], ValueError, "at least one file"),
])
def test_what_is_no_run_is_refused(data, error, match):
    with pytest.raises(error, match=match):
        RegionSums.from_runs(data)


def _scope_file(tmp_path):
    pytest.importorskip("scope_profiler")
    pytest.importorskip("h5py")
    from scope_fixtures import write_scope_h5

    return write_scope_h5(tmp_path / "job.h5", {"n_ranks": 3, "n_regions": 4, "n_threads": 5,
                                                "seed": 3})


def test_every_hdf5_entry_point_takes_the_fast_reader(tmp_path, monkeypatch):
    path = _scope_file(tmp_path)
    from scope_profiler.results import ProfilingResults

    from roofline_widget.io.scope.objects import from_scope_profiler
    from roofline_widget.points import ScopeH5Source

    reference = from_scope_profiler(ProfilingResults.from_h5(path))

    def slow_path(*args, **kwargs):
        raise AssertionError("ProfilingResults.from_h5 was called")

    monkeypatch.setattr(ProfilingResults, "from_h5", slow_path)
    sums = RegionSums.from_runs(path)
    assert isinstance(sums.sources[0], ScopeH5Source)
    assert isinstance(RegionSums.from_runs([str(path)]).sources[0], ScopeH5Source)
    # the per-thread run from the raw per-rank arrays, equal to scope-profiler's
    for run in (read_likwid(path, format="scope-h5"), as_runs(path)[0], sums.runs[0]):
        pd.testing.assert_frame_equal(run.table, reference.table)
        pd.testing.assert_frame_equal(run.events, reference.events)
        assert (run.label, run.layout) == (reference.label, reference.layout)
    points = points_dataframe(path)
    np.testing.assert_array_equal(points["performance_gflops"],
                                  points_dataframe(reference)["performance_gflops"])


def test_the_widget_goes_through_the_dispatcher(tmp_path, mem_and_flops):
    from roofline_widget import RooflineWidget

    mem, flops = mem_and_flops
    widget = RooflineWidget([[mem, flops]])
    assert widget.sums.files == ["mem_dp"]
    assert set(widget.to_dataframe()["groups"]) == {"MEM_DP+FLOPS_DP"}
