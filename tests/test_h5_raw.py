"""The direct HDF5 reader (``io/scope/h5_raw.py``) against h5py, and the fallback to h5py.

Every expected value comes from h5py reading the same file. Files outside the
subset the module reads (h5py's default ``libver="earliest"`` layout) must be
refused with :class:`NotSupported`, never misread; damaged files must raise
:class:`Damaged`, which the scope-profiler reader reports as the package's
error naming the file, rank and region without calling h5py
(``tests/test_bad_scope_input.py`` covers those messages; here one more kind
of damage, in a global heap).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
pytest.importorskip("scope_profiler")

from scope_fixtures import write_scope_h5  # noqa: E402
from scope_profiler.results import ProfilingResults  # noqa: E402

from roofline_widget.errors import EngineFallbackWarning, LikwidFormatError  # noqa: E402
from roofline_widget.io.scope.h5 import scope_file_overview  # noqa: E402
from roofline_widget.io.scope.h5_engines import RawReader  # noqa: E402
from roofline_widget.io.scope.h5_format import Damaged, NotSupported  # noqa: E402
from roofline_widget.io.scope.h5_raw import RawH5  # noqa: E402
from roofline_widget.points import ScopeResultsSource, read_scope_sums  # noqa: E402
from roofline_widget.points.engines.h5 import read_rank_rows  # noqa: E402

DTYPES = ["<f8", ">f8", "<f4", "<i8", ">i4", "<u2", "i1"]


def _header(raw: RawH5, path: str):
    return raw.member(raw.header(raw.root), path)


def _values(path, name):
    with RawH5(path) as raw:
        return raw.values(_header(raw, name).dataset())


@pytest.fixture
def typed(tmp_path):
    """One dataset per dtype, 2-D, with NaN/inf among the floats, and their attributes."""
    path = tmp_path / "typed.h5"
    rng = np.random.default_rng(3)
    with h5py.File(path, "w") as handle:
        group = handle.create_group("g")
        for dtype in DTYPES:
            values = (rng.uniform(-100, 100, (3, 5)) if dtype[-2] == "f"
                      else rng.integers(0, 100, (3, 5))).astype(dtype)
            if dtype[-2] == "f":
                values[0, 0], values[1, 2] = np.nan, -np.inf
            group.create_dataset(dtype.replace("<", "le").replace(">", "be"), data=values)
        group.attrs["text"] = "MEM_DP"
        group.attrs["empty"] = ""
        group.attrs["number"] = 7
        group.attrs["unicode"] = "Ström [µs]"
        group.attrs.create("names", ["a", "", "DP [MFLOP/s]", "é"], dtype=h5py.string_dtype())
        group.attrs.create("ints", [3, 1, 2], dtype="<i4")
    return path


@pytest.mark.parametrize("dtype", DTYPES)
def test_datasets_of_every_dtype_are_read_as_h5py_reads_them(typed, dtype):
    name = "g/" + dtype.replace("<", "le").replace(">", "be")
    with h5py.File(typed, "r") as handle:
        expected = handle[name][()]
    ours = _values(typed, name)
    assert ours.dtype == expected.dtype.newbyteorder("=")
    assert ours.shape == (3, 5)
    np.testing.assert_array_equal(ours, expected)
    assert ours.dtype.isnative


def test_attributes_are_read_as_h5py_reads_them(typed):
    with h5py.File(typed, "r") as handle:
        attrs = handle["g"].attrs
        expected = {name: attrs[name] for name in attrs}
    with RawH5(typed) as raw:
        header = _header(raw, "g")
        assert header.attribute("text") == expected["text"] == "MEM_DP"
        assert header.attribute("empty") == expected["empty"] == ""
        assert header.attribute("number") == expected["number"] == 7
        assert header.attribute("unicode") == expected["unicode"] == "Ström [µs]"
        assert header.attribute("names") == list(expected["names"]) == ["a", "", "DP [MFLOP/s]",
                                                                       "é"]
        assert header.attribute("ints") == list(expected["ints"]) == [3, 1, 2]
        assert header.attribute("absent") is None


def test_a_compact_dataset_is_read(tmp_path):
    path = tmp_path / "compact.h5"
    with h5py.File(path, "w") as handle:
        plist = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        plist.set_layout(h5py.h5d.COMPACT)
        space = h5py.h5s.create_simple((4,))
        dataset = h5py.h5d.create(handle.id, b"c", h5py.h5t.IEEE_F64LE, space, plist)
        dataset.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([1.5, 2.5, np.nan, 4.0]))
    with h5py.File(path, "r") as handle:
        assert handle["c"].id.get_create_plist().get_layout() == h5py.h5d.COMPACT
    np.testing.assert_array_equal(_values(path, "c"), [1.5, 2.5, np.nan, 4.0])


def test_many_members_are_listed_in_h5py_order(tmp_path):
    # 1,000 links: a B-tree of several levels of symbol-table nodes; names that sort
    # differently as text and as numbers, and a name with "|" as scope-profiler writes it
    path = tmp_path / "many.h5"
    names = [f"r{k}" for k in range(999)] + ["solver|inner"]
    with h5py.File(path, "w") as handle:
        group = handle.create_group("regions")
        for k, name in enumerate(names):
            group.create_dataset(name, data=np.full(2, float(k)))
        expected = list(group)
    with RawH5(path) as raw:
        links = raw.links(_header(raw, "regions"))
        assert [name for name, _ in links] == expected == sorted(names)
        second = dict(links)["r1"]
        np.testing.assert_array_equal(raw.values(raw.header(second).dataset()), [1.0, 1.0])


def test_a_header_with_a_continuation_block_is_read(tmp_path):
    # attributes added after the datasets do not fit the first header block
    path = tmp_path / "continued.h5"
    with h5py.File(path, "w") as handle:
        group = handle.create_group("g")
        group.create_dataset("d", data=np.arange(3.0))
        for k in range(40):
            group.attrs[f"attribute {k}"] = f"value {k}"
    with RawH5(path) as raw:
        header = _header(raw, "g")
        assert [header.attribute(f"attribute {k}") for k in range(40)] == \
            [f"value {k}" for k in range(40)]
        assert dict(raw.links(header)).keys() == {"d"}


@pytest.mark.parametrize("make", ["chunked", "gzip", "latest"])
def test_other_layouts_are_refused_not_misread(tmp_path, make):
    path = tmp_path / f"{make}.h5"
    libver = "latest" if make == "latest" else None
    with h5py.File(path, "w", libver=libver) as handle:
        keywords = {"chunked": {"chunks": (2,)}, "gzip": {"compression": "gzip"}}.get(make, {})
        handle.create_group("g").create_dataset("d", data=np.arange(4.0), **keywords)
    with pytest.raises(NotSupported):
        with RawH5(path) as raw:
            raw.values(_header(raw, "g/d").dataset())


def test_a_broken_global_heap_is_damage(tmp_path):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 1, "n_regions": 2, "n_threads": 2})
    data = bytearray(path.read_bytes())
    first = data.find(b"GCOL")
    data[first:first + 4] = b"XXXX"
    path.write_bytes(bytes(data))
    with RawH5(path) as raw:
        header = _header(raw, "rank0/likwid/regions/region_000")
        with pytest.raises(Damaged, match="global heap"):
            header.attribute("metric_names")


def _same_rank(a, b) -> None:
    assert (a.rank, a.tags, a.groups, a.name_lists) == (b.rank, b.tags, b.groups, b.name_lists)
    assert (a.engine, b.engine) == ("raw", "h5py")
    for name in ("n_threads", "runtime_s", "call_count", "list_of_region"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for mine, theirs in zip(a.sums, b.sums, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    for mine, theirs in zip(a.unmeasured, b.unmeasured, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert a.unmeasured_names == b.unmeasured_names
    return a


def test_every_rank_of_a_writer_file_is_read_raw_as_h5py_reads_it(tmp_path):
    from test_scope_h5 import _mixed  # thread counts 1-3, two name lists, NaN threads, '/' tags

    for path in (write_scope_h5(tmp_path / "mixed.h5", _mixed()),
                 write_scope_h5(tmp_path / "run.h5", {"n_ranks": 3, "n_regions": 40,
                                                      "n_threads": 5, "seed": 2})):
        ranks = scope_file_overview(path).ranks
        for raw, h5 in zip(read_rank_rows(str(path), ranks, "raw"),  # raises if refused
                           read_rank_rows(str(path), ranks, "h5py"), strict=True):
            _same_rank(raw, h5)


def _assert_equal_to_from_h5(path, fallback: str) -> None:
    with pytest.warns(EngineFallbackWarning, match=fallback):
        ours = read_scope_sums(path, cache=False)
    reference = ScopeResultsSource(ProfilingResults.from_h5(path))
    assert ours.metric_names == reference.metric_names
    for name in ("rank", "n_threads", "runtime_s", "call_count"):
        np.testing.assert_array_equal(ours.keys[name], reference.keys[name])
    assert list(ours.keys["region"]) == list(reference.keys["region"])
    for metric in ours.metric_names:
        np.testing.assert_array_equal(ours.sums(metric), reference.sums(metric))


def test_a_file_written_with_libver_latest_is_read_through_h5py(tmp_path):
    from scope_fixtures import make_profiling_results
    from scope_profiler.likwid_data import write_likwid_results

    results = make_profiling_results(n_ranks=2, n_regions=3, n_threads=2)
    path = tmp_path / "latest.h5"
    with h5py.File(path, "w", libver="latest") as handle:
        for rank, regions in results.get_likwid_regions().items():
            write_likwid_results(handle.create_group(f"rank{rank}"), regions.values())
    with pytest.raises(NotSupported):
        RawH5(path)
    _assert_equal_to_from_h5(path, r"2 of 2 rank\(s\) .*\(superblock version 3\)")


def test_a_rank_outside_the_subset_falls_back_alone(tmp_path):
    # rank 1's metrics compressed: rank 0 read raw, rank 1 through h5py, same numbers
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 2, "n_regions": 3, "n_threads": 4})
    with h5py.File(path, "r+") as handle:
        group = handle["rank1/likwid/regions/region_001"]
        values = group["metrics"][()]
        del group["metrics"]
        group.create_dataset("metrics", data=values, compression="gzip")
    reader = RawReader(path)
    try:
        reader.read_rank(0, "rank0", False)
        with pytest.raises(NotSupported):
            reader.read_rank(1, "rank1", False)
    finally:
        reader.close()
    parts = read_rank_rows(str(path), [(0, "rank0"), (1, "rank1")], "auto")
    assert [type(part).__name__ for part in parts] == ["RankRows", "UnreadRank"]
    _assert_equal_to_from_h5(path, r"1 of 2 rank\(s\) .*\(filtered or external dataset\)")


def test_damage_in_a_global_heap_names_file_rank_and_region(tmp_path):
    good = write_scope_h5(tmp_path / "good.h5", {"n_ranks": 2, "n_regions": 3, "n_threads": 4})
    bad = tmp_path / "heap.h5"
    shutil.copy(good, bad)
    data = bytearray(bad.read_bytes())
    heaps = [i for i in range(len(data)) if data.startswith(b"GCOL", i)]
    data[heaps[-1]:heaps[-1] + 4] = b"XXXX"  # the last rank's strings
    bad.write_bytes(bytes(data))
    with pytest.raises(LikwidFormatError) as info:
        read_scope_sums(bad, cache=False)
    assert str(bad) in str(info.value)
    assert "(rank 1, region" in str(info.value)
    assert "damaged" in str(info.value)


def test_a_truncated_file_is_refused(tmp_path):
    path = write_scope_h5(tmp_path / "run.h5", {"n_ranks": 1, "n_regions": 2, "n_threads": 2})
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size - 8)
    with pytest.raises(Damaged, match="truncated"):
        RawH5(path)


def test_dataset_headers_equal_but_for_the_address_are_matched_not_misread(tmp_path):
    # same header size, differing in shape, dtype or only in the address of the values;
    # "unwritten" has no values stored (undefined address) and must be refused
    path = tmp_path / "alike.h5"
    arrays = {"a": np.arange(3.0), "b": np.arange(3), "c": np.arange(4.0), "d": np.arange(3.0) + 7,
              "e": np.arange(3.0).astype(">f8"), "f": np.arange(6.0).reshape(2, 3)}
    with h5py.File(path, "w") as handle:
        for name, values in arrays.items():
            handle.create_dataset(name, data=values)
        handle.create_dataset("unwritten", shape=(3,), dtype="<f8")
    with RawH5(path) as raw:
        root = raw.header(raw.root)
        members = dict(raw.links(root))
        for name, values in [*arrays.items(), ("a", arrays["a"])]:  # "a" again: a match
            found = raw.dataset(members[name])
            assert found == raw.header(members[name]).dataset()
            np.testing.assert_array_equal(raw.values(found), values)
            assert raw.values(found).shape == values.shape
        with pytest.raises(NotSupported):
            raw.dataset(members["unwritten"])
