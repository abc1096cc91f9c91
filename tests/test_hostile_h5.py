"""Damaged and hostile scope-profiler HDF5 files: refused with the package's error, never a hang or a crash.

Each file is written by scope-profiler's writer and then damaged in one
place, found with the direct reader's own structures.  What can hang or kill
a process (libhdf5 on a zeroed global heap object, a header continuation
pointing back at itself, a file cut while read) runs in a subprocess with a
time limit, so that a regression fails the test instead of the test run.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("scope_profiler")
h5py = pytest.importorskip("h5py")

import h5_fuzz  # noqa: E402
from scope_fixtures import write_scope_h5  # noqa: E402

from roofline_widget import RooflineWidget, points_dataframe, read_likwid  # noqa: E402
from roofline_widget.errors import EngineFallbackWarning, LikwidFormatError  # noqa: E402
from roofline_widget.io.scope import guard  # noqa: E402
from roofline_widget.io.scope import h5 as scope_h5  # noqa: E402
from roofline_widget.io.scope.h5_format import LAYOUT, SYMBOL_TABLE  # noqa: E402
from roofline_widget.io.scope.h5_raw import RawH5  # noqa: E402
from roofline_widget.points import read_scope_sums  # noqa: E402

ENGINES = ("raw", "h5py", "auto")


def _run(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter that sees this package; killed after ``timeout`` s."""
    path = os.pathsep.join(entry or os.curdir for entry in sys.path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": path}, check=False)


def _patch(path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(data)


def _header(path, member: str):
    raw = RawH5(path)
    try:
        return raw.member(raw.header(raw.root), member)
    finally:
        raw.close()


@pytest.fixture
def scope_file(tmp_path):
    return write_scope_h5(tmp_path / "job.h5", {"n_ranks": 2, "n_regions": 3, "n_threads": 4})


@pytest.fixture
def no_h5py(monkeypatch):
    """Fail the test if anything hands the file to h5py."""
    def refuse(*args, **kwargs):
        raise AssertionError("h5py was called on a damaged file")

    monkeypatch.setattr(scope_h5, "guarded_map", refuse)


def test_a_zeroed_global_heap_object_is_refused_without_h5py(tmp_path, scope_file, no_h5py):
    # h5py spins forever on this file (the guarded worker is stopped; see test_h5_fuzz.py)
    data = scope_file.read_bytes()
    heap = data.find(b"GCOL")
    bad = tmp_path / "zeroed.h5"
    bad.write_bytes(data[:heap + 16] + bytes(16) + data[heap + 32:])
    for call in (lambda: read_scope_sums(bad, cache=False),
                 lambda: read_likwid(bad, format="scope-h5"), lambda: points_dataframe(bad)):
        with pytest.raises(LikwidFormatError, match=r"zeroed\.h5 \(rank 0.*damaged.*global heap"):
            call()


def test_the_same_file_does_not_hang_the_caller_with_h5py(tmp_path, scope_file, monkeypatch):
    monkeypatch.setattr(guard, "SECONDS_BASE", 3.0)
    monkeypatch.setattr(guard, "SECONDS_PER_MB", 0.0)
    data = scope_file.read_bytes()
    heap = data.find(b"GCOL")
    bad = tmp_path / "zeroed.h5"
    bad.write_bytes(data[:heap + 16] + bytes(16) + data[heap + 32:])
    with pytest.raises(LikwidFormatError, match=r"zeroed\.h5.*(h5py to finish reading within|damaged)"):
        read_scope_sums(bad, cache=False, engine="h5py")


def test_a_header_continuation_pointing_back_is_damage_not_a_loop(tmp_path, scope_file):
    with h5py.File(scope_file, "r+") as handle:  # enough attributes for a continuation block
        attrs = handle["rank0/likwid/regions/region_001"].attrs
        for k in range(40):
            attrs[f"note {k}"] = f"value {k}"
    header = _header(scope_file, "rank0/likwid/regions/region_001")
    assert header.n_blocks >= 2
    data = scope_file.read_bytes()
    first_block = header.address + 16
    continuation = data.find(b"\x10\x00\x10\x00", header.address, header.address + len(header.first_block))
    # its block now is the header's first block again: h5py's reader and ours used to re-read it forever
    _patch(scope_file, continuation + 8, struct.pack("<QQ", first_block, len(header.first_block) - 16))
    done = _run(f"""
from roofline_widget.points import read_scope_sums
from roofline_widget.errors import LikwidFormatError
try:
    read_scope_sums({str(scope_file)!r}, cache=False, engine="raw")
except LikwidFormatError as exc:
    print(exc)
""", timeout=60)
    assert "rank 0, region 'region_001'" in done.stdout, done.stderr[-2000:]
    assert "continuation pointing back" in done.stdout


def test_a_deep_b_tree_chain_is_damage_not_a_recursion_error(tmp_path, scope_file, no_h5py):
    header = _header(scope_file, "rank0/likwid/regions")
    (block, start, _), = header.messages[SYMBOL_TABLE]
    assert block is header.first_block
    end = scope_file.stat().st_size
    nodes = b"".join(b"TREE" + bytes([0, 1]) + struct.pack("<H", 1) + b"\xff" * 16
                     + struct.pack("<QQQ", 0, end + 48 * (k + 1), 0) for k in range(1200))
    with open(scope_file, "ab") as handle:  # 1,200 nodes, each the only child of the one before
        handle.write(nodes)
    _patch(scope_file, header.address + start, struct.pack("<Q", end))
    assert scope_file.read_bytes()[8] == 0  # superblock version 0: its end-of-file address at 40
    _patch(scope_file, 40, struct.pack("<Q", scope_file.stat().st_size))
    with pytest.raises(LikwidFormatError, match=r"rank 0\).*B-tree node of level 1 below a node of level 1"):
        read_scope_sums(scope_file, cache=False)


def test_a_file_cut_while_it_is_read_is_damage_not_sigbus(tmp_path):
    # larger than the reader's first pages, so that rank 1 is read after the cut
    scope_file = write_scope_h5(tmp_path / "big.h5", {"n_ranks": 2, "n_regions": 40,
                                                      "n_threads": 16})
    done = _run(f"""
import os
from roofline_widget.io.scope.h5_engines import RawReader
from roofline_widget.errors import LikwidFormatError
reader = RawReader({str(scope_file)!r})
os.truncate({str(scope_file)!r}, {scope_file.stat().st_size // 3})
try:
    reader.read_rank(1, "rank1", False)
except LikwidFormatError as exc:
    print(exc)
""", timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -7 would be SIGBUS
    assert "(rank 1)" in done.stdout
    assert "the file was cut while it was read" in done.stdout


def _base(tmp_path):
    return h5_fuzz.base_file(tmp_path / "names.h5")


def test_a_tag_cut_by_a_flipped_length_bit_is_refused(tmp_path):
    path = _base(tmp_path)
    header = _header(path, "rank0/likwid/regions/solver|inner1")
    block, start, size = header.attribute_names()["tag"]
    data_at = header._parts(block, start, size)[4]
    assert struct.unpack_from("<I", block, data_at)[0] == len("solver/inner1")
    heap_id = block[data_at:data_at + 16]  # length, global heap collection, object index
    at = path.read_bytes().find(heap_id)
    _patch(path, at, struct.pack("<I", len("solve")))  # one bit: 13 -> 5
    for engine in ("raw", "auto"):
        with pytest.raises(LikwidFormatError, match=r"names\.h5 .*region 'solver/inner1'.*global heap"):
            read_scope_sums(path, cache=False, engine=engine)


def test_a_zero_link_name_offset_is_refused(tmp_path):
    path = _base(tmp_path)
    tree, _ = _header(path, "rank0/likwid/regions").symbol_table()
    data = path.read_bytes()
    leaf = struct.unpack_from("<Q", data, tree + 32)[0]
    assert data[leaf:leaf + 4] == b"SNOD"
    _patch(path, leaf + 8, bytes(8))  # the first entry's name: offset 0, the empty string
    for engine in ENGINES:
        with pytest.raises(LikwidFormatError, match=r"names.h5 \(rank 0\)"):
            read_scope_sums(path, cache=False, engine=engine)


def test_an_address_past_the_end_is_refused(tmp_path, no_h5py):
    path = _base(tmp_path)
    regions = _header(path, "rank1/likwid/regions")
    raw = RawH5(path)
    try:
        metrics = dict(raw.links(raw.header(dict(raw.links(regions))["io"])))["metrics"]
        (_block, start, _), = raw.header(metrics).messages[LAYOUT]
    finally:
        raw.close()
    _patch(path, metrics + start + 2, struct.pack("<Q", path.stat().st_size + 4096))
    with pytest.raises(LikwidFormatError, match=r"rank 1, region 'io'.*past the end of the file"):
        read_scope_sums(path, cache=False)


@pytest.mark.parametrize(("change", "expected"), [
    ("group_name", "group_name to be one string"),
    ("group_id", "group_id to be one integer"),
    ("metric_names", "metric_names to be a list of names"),
    ("stray dataset", "a dataset or other object where a .*group belongs"),
    ("one string", "one string 'DP \\[MFLOP/s\\]', not a list"),
])
def test_schema_slips_are_the_package_error_on_every_engine(scope_file, change, expected):
    with h5py.File(scope_file, "r+") as handle:
        regions = handle["rank1/likwid/regions"]
        attrs = regions["region_002"].attrs
        if change == "group_name":
            attrs["group_name"] = ["MEM", "DP"]
        elif change == "group_id":
            attrs["group_name"], attrs["group_id"] = "", "7"
        elif change == "metric_names":
            attrs["metric_names"] = np.arange(20)
        elif change == "stray dataset":
            regions.create_dataset("region_999", data=np.zeros(3))
        else:
            attrs["metric_names"] = "DP [MFLOP/s]"
    for engine in ENGINES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EngineFallbackWarning)
            with pytest.raises(LikwidFormatError, match=f"rank 1.*{expected}"):
                read_scope_sums(scope_file, cache=False, engine=engine)
        with pytest.raises(LikwidFormatError, match=f"rank 1.*{expected}"):
            read_likwid(scope_file, format="scope-h5", engine=engine)


def test_the_raw_engines_own_error_is_not_retried_through_h5py(scope_file, no_h5py):
    with h5py.File(scope_file, "r+") as handle:
        handle["rank0/likwid/regions/region_000"].attrs["metric_names"] = "DP [MFLOP/s]"
    with pytest.raises(LikwidFormatError, match="one string"):
        read_scope_sums(scope_file, cache=False)


def test_a_name_that_is_no_utf8_is_refused(tmp_path):
    path = _base(tmp_path)
    _, heap = _header(path, "rank0/likwid/regions").symbol_table()
    data = bytearray(path.read_bytes())
    names = struct.unpack_from("<Q", data, heap + 24)[0]  # the local heap's names
    at = data.find(b"setup\x00", names)
    data[at + 2] = 0xFF  # the link name "se\xffup"
    path.write_bytes(bytes(data))
    for engine in ENGINES:
        with pytest.raises(LikwidFormatError, match=r"names.h5 \(rank 0"):
            read_scope_sums(path, cache=False, engine=engine)


def test_a_tag_that_contradicts_its_group_name_is_refused_on_both_paths(scope_file):
    # issue 37: the tag attribute must match the group's name, "|" or not (a cut name would
    # otherwise rename the region); two groups tagged alike were kept apart by name before
    with h5py.File(scope_file, "r+") as handle:
        handle["rank0/likwid/regions/region_001"].attrs["tag"] = "region_000"
    for call in (lambda: points_dataframe(scope_file),
                 lambda: read_likwid(scope_file, format="scope-h5")):
        with pytest.raises(LikwidFormatError, match=r"group 'region_001'.*named after its tag.*"
                                                    r"'region_000'"):
            call()
    with h5py.File(scope_file, "r+") as handle:
        regions = handle["rank0/likwid/regions"]
        regions["region_001"].attrs["tag"] = "region_001"
        regions.move("region_002", "solver|inner")
        regions["solver|inner"].attrs["tag"] = "region_000"
    for call in (lambda: points_dataframe(scope_file),
                 lambda: read_likwid(scope_file, format="scope-h5")):
        with pytest.raises(LikwidFormatError, match=r"group 'solver\|inner'.*named after its tag"):
            call()


def _latest(tmp_path):
    from scope_fixtures import make_profiling_results
    from scope_profiler.likwid_data import write_likwid_results

    path = tmp_path / "latest.h5"
    with h5py.File(path, "w", libver="latest") as handle:
        for rank, regions in make_profiling_results(n_ranks=2, n_regions=2, n_threads=2) \
                .get_likwid_regions().items():
            write_likwid_results(handle.create_group(f"rank{rank}"), regions.values())
    return path


def test_the_engine_is_chosen_by_the_caller(tmp_path, scope_file):
    latest = _latest(tmp_path)
    with pytest.raises(LikwidFormatError, match=r"layout the raw engine reads.*superblock version 3"):
        read_scope_sums(latest, cache=False, engine="raw")
    with pytest.raises(LikwidFormatError, match="superblock version 3"):
        RooflineWidget(latest, engine="raw")
    with pytest.raises(ValueError, match="unknown HDF5 engine 'fast'"):
        read_likwid(scope_file, format="scope-h5", engine="fast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # engine='h5py' says nothing
        widget = RooflineWidget(latest, engine="h5py")
    assert len(widget.sums) == 4
    with pytest.warns(EngineFallbackWarning, match=r"2 of 2 rank\(s\).*superblock version 3") as said:
        read_scope_sums(latest, cache=False)
    assert len(said) == 1
    np.testing.assert_array_equal(read_scope_sums(scope_file, cache=False, engine="raw").sums(
        "DP [MFLOP/s]"), read_scope_sums(scope_file, cache=False, engine="h5py").sums("DP [MFLOP/s]"))


def test_without_h5py_the_default_layout_reads_and_others_say_how_to_install(tmp_path, scope_file):
    latest = _latest(tmp_path)
    done = _run(f"""
import sys
sys.modules["h5py"] = None  # not installed
from roofline_widget.points import read_scope_sums
print(len(read_scope_sums({str(scope_file)!r}, cache=False)))
try:
    read_scope_sums({str(latest)!r}, cache=False)
except ImportError as exc:
    print(exc)
""")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == "6"
    assert "latest.h5: its HDF5 layout is not read" in done.stdout
    assert "pip install h5py" in done.stdout


def _zeroed_heap_copy(scope_file, tmp_path):
    data = scope_file.read_bytes()
    heap = data.find(b"GCOL")
    bad = tmp_path / "zeroed.h5"
    bad.write_bytes(data[:heap + 16] + bytes(16) + data[heap + 32:])
    return bad


def test_a_libhdf5_hang_is_stopped_after_the_files_limit_whatever_its_ranks(tmp_path, scope_file,
                                                                             monkeypatch):
    # before (issue 37): 60 s + 30 s per rank read, per call; now one limit for the file
    monkeypatch.setattr(guard, "SECONDS_BASE", 3.0)
    monkeypatch.setattr(guard, "SECONDS_PER_MB", 0.0)
    bad = _zeroed_heap_copy(scope_file, tmp_path)
    for read in (lambda: read_scope_sums(bad, cache=False, engine="h5py"),
                 lambda: read_likwid(bad, format="scope-h5", engine="h5py")):
        with pytest.raises(LikwidFormatError, match=r"zeroed\.h5: expected h5py to finish reading "
                                                    r"within 3 s"):
            read()


def test_a_worker_spinning_in_libhdf5_dies_with_its_killed_caller(tmp_path, scope_file):
    # before (issue 37): the worker went on at 100 % CPU after its caller was killed
    from isolated import survivors_of_killed_caller

    bad = _zeroed_heap_copy(scope_file, tmp_path)
    assert survivors_of_killed_caller("from roofline_widget.points import read_scope_sums\n"
                                      f"read_scope_sums({str(bad)!r}, cache=False, engine='h5py')\n",
                                      busy_seconds=3.0) == []  # libhdf5 spins by then
