"""Every entry point raises the package's own errors, naming the file, where the docs promise them.

Before the fix (issue 37): a file name that is no UTF-8 raised ``UnicodeEncodeError``
from the string columns (every entry point and the CLI), ``/proc/self/mem``
(stat says a regular file, reads fail) raised a bare ``OSError`` (the CLI
message without the file name), a huge ``cpus`` value in a scope-profiler file
a ``MemoryError``, cpu -1 was labelled ``HWThread 3``, and a 5,001-digit group
id a ``ValueError``.
"""

from __future__ import annotations

import os
import shutil
import warnings

import numpy as np
import pytest

import roofline_widget as rw
from roofline_widget import sample_path
from roofline_widget.cli import main
from roofline_widget.errors import LikwidFormatError, RooflineError

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")  # sample 5
MEM = "/proc/self/mem"


def _entry_points(path, tmp_path) -> dict:
    return {
        "read_likwid": lambda: rw.read_likwid(path),
        "points_dataframe": lambda: rw.points_dataframe(path),
        "collect_roofline_points": lambda: rw.collect_roofline_points(path),
        "left_out_regions": lambda: rw.left_out_regions(path),
        "RooflineWidget": lambda: rw.RooflineWidget(path),
        "plot_roofline": lambda: rw.plot_roofline(path, filepath=tmp_path / "x.svg", verbose=False,
                                                  data_filepath=tmp_path / "x.csv"),
        "sanity_check": lambda: rw.sanity_check(path),
        "compare_points": lambda: rw.compare_points(path, path),
        "rank_spread": lambda: rw.rank_spread(path),
        "hierarchical_points": lambda: rw.hierarchical_points(path),
        "run_chain": lambda: rw.run_chain([path, path]),
    }


@pytest.fixture
def non_utf8(tmp_path):
    path = os.fsdecode(os.fsencode(tmp_path) + b"/job\xff.txt")
    shutil.copy(PMGPU, path)
    return path


def test_a_file_name_that_is_no_utf8_is_read_and_named_with_escapes(non_utf8, tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, call in _entry_points(non_utf8, tmp_path).items():
            call()  # no UnicodeEncodeError
            assert name
        assert rw.read_likwid(non_utf8).label == "job\\xff"
        assert set(rw.points_dataframe(non_utf8)["file"]) == {"job\\xff"}
        written = (tmp_path / "x.csv").read_text(encoding="utf-8")
        assert "job\\xff" in written
    assert main(["points", non_utf8]) == 0
    assert "job\\xff" in capsys.readouterr().out


def test_a_scope_file_whose_name_is_no_utf8(tmp_path):
    pytest.importorskip("scope_profiler")
    import h5_fuzz

    path = os.fsdecode(os.fsencode(tmp_path) + b"/scope\xff.h5")
    h5_fuzz.base_file(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for engine in ("raw", "h5py", "auto"):
            assert rw.read_likwid(path, format="scope-h5", engine=engine).sources == (
                os.fsdecode(os.fsencode(tmp_path)) + "/scope\\xff.h5",)
        assert len(rw.points_dataframe(path)) == 2  # solver/inner1 on two ranks (the others lack a metric)


def test_a_path_whose_reads_fail_is_the_package_error_naming_it(tmp_path, capsys):
    for name, call in {**_entry_points(MEM, tmp_path),
                       "read_likwid scope-h5": lambda: rw.read_likwid(MEM, format="scope-h5"),
                       "machine_roofline": lambda: rw.machine_roofline([MEM]),
                       "read_likwid_bench": lambda: rw.read_likwid_bench(MEM)}.items():
        with pytest.raises(RooflineError, match="/proc/self/mem") as caught:
            call()
        assert not isinstance(caught.value, OSError), name
    assert main(["points", MEM]) == 2
    assert "/proc/self/mem" in capsys.readouterr().err


@pytest.mark.parametrize(("cpus", "found"), [([0, 2**40], "1099511627776"), ([-1, 1], "-1"),
                                              ([0.5, 1], "0.5"), ([0, 1e300], r"1e\+300")])
def test_cpu_numbers_that_are_no_hardware_threads_are_refused(tmp_path, cpus, found):
    pytest.importorskip("scope_profiler")
    h5py = pytest.importorskip("h5py")
    import h5_fuzz

    from roofline_widget.points import read_scope_sums

    path = h5_fuzz.base_file(tmp_path / "cpus.h5")
    with h5py.File(path, "r+") as handle:  # region "setup" has a NaN thread: its cpus are read
        group = handle["rank0/likwid/regions/setup"]
        del group["cpus"]
        group["cpus"] = np.array(cpus)
    for engine in ("raw", "h5py"):
        with pytest.raises(LikwidFormatError, match=rf"rank 0, region 'setup'.*cpu numbers.*{found}"):
            read_scope_sums(path, cache=False, engine=engine)
        with pytest.raises(LikwidFormatError, match=rf"rank 0, region 'setup'.*cpu numbers.*{found}"):
            rw.read_likwid(path, format="scope-h5", engine=engine)


def _results(**changes):
    from scope_fixtures import make_profiling_results

    results = make_profiling_results(n_ranks=1, n_regions=2, n_threads=2, seed=1)
    for regions in results.get_likwid_regions().values():
        for region in regions.values():
            for name, value in changes.items():
                setattr(region, name, value)
    return results


def test_a_group_id_past_64_bits_is_the_package_error():
    pytest.importorskip("scope_profiler")
    from roofline_widget.io.scope.objects import from_scope_profiler

    results = _results(group_id=10**5000, group_name="")
    for call in (lambda: rw.points_dataframe(results),
                 lambda: from_scope_profiler(results, cache=False)):
        with pytest.raises(LikwidFormatError, match="group_id to be an integer of at most 64 bits"):
            call()


def test_cpu_minus_one_of_results_in_memory_is_refused_not_labelled_another_thread():
    pytest.importorskip("scope_profiler")
    from roofline_widget.io.scope.objects import from_scope_profiler

    results = _results(cpus=[-1, 1])
    with pytest.raises(LikwidFormatError, match=r"cpu numbers.*-1"):
        from_scope_profiler(results, cache=False)
    huge = _results(cpus=[0, 2**40])
    with pytest.raises(LikwidFormatError, match="cpu numbers"):
        from_scope_profiler(huge, cache=False)  # was a 4 TiB table: MemoryError
