"""``read_likwid(paths, executor=)``: many files read on an executor, same run as serially.

The files are the bundled samples (one file per job step, as users pass one
file per rank or per group) and copies of them; every parallel read is
compared with the serial read of the same list: the merged ``run.table``
frame (pandas.testing), the sources in order, the warnings.
"""

from __future__ import annotations

import io
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from roofline_widget import sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning, ParallelReadError
from roofline_widget.io import read_likwid
from roofline_widget.io.parallel import read_each

#: Samples whose (rank, region, group, thread) rows do not collide: they merge into one run.
SAMPLES = [
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt",
    "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt",
    "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
    "mpirun_clx_sonata_48ranks_CACHES_marker.txt",
    "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv",
    "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt",
]
PATHS = [sample_path(name) for name in SAMPLES]


def _assert_same_run(parallel, serial):
    assert parallel.sources == serial.sources
    assert parallel.label == serial.label
    assert parallel.metric_names == serial.metric_names
    assert parallel.warnings == serial.warnings
    pd.testing.assert_frame_equal(parallel.table, serial.table)
    pd.testing.assert_frame_equal(parallel.events, serial.events)


@pytest.fixture(scope="module")
def serial():
    return read_likwid(PATHS)


def test_the_samples_merge_into_one_run(serial):
    # 8 + 8 + 10 + 48 + 4 + 1 rows (threads x regions x groups of each file)
    assert len(serial.table) == 79
    assert serial.sources == tuple(str(p) for p in PATHS)
    assert len(serial.ranks) == 48


def test_threads_give_the_serial_run(serial):
    with ThreadPoolExecutor(4) as pool:
        _assert_same_run(read_likwid(PATHS, executor=pool), serial)


def test_processes_give_the_serial_run(serial):
    with ProcessPoolExecutor(2) as pool:
        _assert_same_run(read_likwid(PATHS, executor=pool), serial)


def test_order_is_the_order_given_not_of_finishing():
    reversed_paths = PATHS[::-1]
    with ThreadPoolExecutor(6) as pool:
        run = read_likwid(reversed_paths, executor=pool)
    _assert_same_run(run, read_likwid(reversed_paths))
    assert run.sources[0].endswith(SAMPLES[-1])


class _MapOnly:
    """An executor with only ``map`` (the builtin, in order)."""

    def map(self, fn, items):
        return map(fn, items)


def test_an_object_with_only_map_is_accepted(serial):
    _assert_same_run(read_likwid(PATHS, executor=_MapOnly()), serial)


def test_file_objects_are_read_here_and_keep_their_place(serial):
    items = list(PATHS)
    items[2] = io.BytesIO(Path(PATHS[2]).read_bytes())
    items[2].name = str(PATHS[2])
    with ProcessPoolExecutor(2) as pool:
        _assert_same_run(read_likwid(items, executor=pool), serial)


def test_a_passed_over_table_warns_once_in_the_calling_process(tmp_path):
    foreign = ("+-----------+-------+\n|  Kernel   | GB/s  |\n+-----------+-------+\n"
               "|   triad   | 11.16 |\n+-----------+-------+\n")
    odd = tmp_path / "with_foreign_table.txt"
    odd.write_text(foreign + Path(PATHS[0]).read_text())
    paths = [odd, *PATHS[1:3]]
    with pytest.warns(LikwidReadWarning) as serial_warnings:
        serial = read_likwid(paths)
    with ProcessPoolExecutor(2) as pool, pytest.warns(LikwidReadWarning) as parallel_warnings:
        parallel = read_likwid(paths, executor=pool)
    _assert_same_run(parallel, serial)
    assert [str(w.message) for w in parallel_warnings] == [str(w.message) for w in serial_warnings]
    assert len(parallel_warnings) == 1
    assert str(parallel_warnings[0].message).startswith(f"{odd}: read, but passed over 1 part")


def test_a_bad_file_on_a_worker_names_the_file(tmp_path):
    broken = tmp_path / "rank3.txt"
    broken.write_text("no likwid here\n")
    with ProcessPoolExecutor(2) as pool, pytest.raises(LikwidFormatError) as info:
        read_likwid([*PATHS[:2], broken], executor=pool)
    assert info.value.source == str(broken)
    with ThreadPoolExecutor(2) as pool, pytest.raises(FileNotFoundError, match=r"missing\.txt"):
        read_likwid([PATHS[0], tmp_path / "missing.txt"], executor=pool)


def _dies(path):
    raise MemoryError()  # a message that names nothing


def test_an_error_that_does_not_name_the_file_is_wrapped(tmp_path):
    with ThreadPoolExecutor(2) as pool, pytest.raises(ParallelReadError) as info:
        read_each([str(PATHS[0]), "rank7.txt"], _dies, pool)
    assert info.value.source == str(PATHS[0])
    assert str(info.value).startswith(f"{PATHS[0]}: reading failed on the executor: MemoryError")
    assert isinstance(info.value.__cause__, MemoryError)


def test_an_executor_without_submit_or_map_is_a_type_error():
    with pytest.raises(TypeError, match=r"executor must be None .* got int"):
        read_likwid(PATHS, executor=4)


def test_dask_local_cluster_gives_the_serial_run(serial):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'roofline-widget[dask]')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own notes on ports and dashboards
        with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            _assert_same_run(read_likwid(PATHS, executor=client), serial)
            _assert_same_run(read_likwid(PATHS, executor=client.get_executor()), serial)
            broken = Path(PATHS[0]).with_name("does_not_exist.txt")
            with pytest.raises(FileNotFoundError, match=r"does_not_exist\.txt"):
                read_likwid([PATHS[0], broken], executor=client)
