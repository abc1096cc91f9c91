"""The on-disk cache of scope-profiler HDF5 sums: hit, never stale, off switch."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

pytest.importorskip("scope_profiler")
pytest.importorskip("h5py")

from scope_fixtures import write_scope_h5

from roofline_widget.io.scope import cache as scope_cache
from roofline_widget.points import read_scope_sums

DP = "DP [MFLOP/s]"


def _write(path, seed=1, n_ranks=2):
    return write_scope_h5(path, {"n_ranks": n_ranks, "n_regions": 3, "n_threads": 2,
                                 "seed": seed})


def _same(a, b):
    assert a.metric_names == b.metric_names
    assert len(a) == len(b)
    for name in ("rank", "n_threads", "runtime_s", "call_count"):
        np.testing.assert_array_equal(a.keys[name], b.keys[name])
    assert list(a.keys["region"]) == list(b.keys["region"])
    assert list(a.keys["groups"]) == list(b.keys["groups"])
    for metric in a.metric_names:
        np.testing.assert_array_equal(a.sums(metric), b.sums(metric))


def test_second_read_is_a_hit_with_the_same_numbers(tmp_path):
    path = _write(tmp_path / "run.h5")
    first = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert not first.from_cache
    assert scope_cache.entry_path(path, tmp_path / "cache").is_file()
    second = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert second.from_cache
    _same(first, second)


def test_a_touched_file_is_still_a_hit_its_content_is_the_same(tmp_path):
    # the cache is keyed on the content read, not on timestamps (issue 37)
    path = _write(tmp_path / "run.h5")
    first = read_scope_sums(path, cache_dir=tmp_path / "cache")
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    again = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert again.from_cache
    _same(first, again)


def test_rewritten_file_gives_the_new_numbers(tmp_path):
    path = _write(tmp_path / "run.h5", seed=1)
    old = read_scope_sums(path, cache_dir=tmp_path / "cache")
    status = path.stat()
    _write(path, seed=2, n_ranks=3)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))  # same mtime: the size differs
    new = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert not new.from_cache
    assert sorted(set(new.keys["rank"])) == [0, 1, 2]
    assert not np.array_equal(new.sums(DP)[:6], old.sums(DP))
    _same(new, read_scope_sums(path, cache=False))


def test_other_package_version_is_not_served(tmp_path, monkeypatch):
    import roofline_widget

    path = _write(tmp_path / "run.h5")
    read_scope_sums(path, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(roofline_widget, "__version__", "0.0.0-other")
    assert not read_scope_sums(path, cache_dir=tmp_path / "cache").from_cache


def test_cache_false_reads_and_writes_nothing(tmp_path):
    path = _write(tmp_path / "run.h5")
    sums = read_scope_sums(path, cache=False, cache_dir=tmp_path / "cache")
    assert not sums.from_cache
    assert not (tmp_path / "cache").exists()


def test_corrupt_entry_is_replaced(tmp_path):
    path = _write(tmp_path / "run.h5")
    entry = scope_cache.entry_path(path, tmp_path / "cache")
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"not an npz file")
    assert not read_scope_sums(path, cache_dir=tmp_path / "cache").from_cache
    assert read_scope_sums(path, cache_dir=tmp_path / "cache").from_cache


def test_default_directory_is_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    path = _write(tmp_path / "run.h5")
    read_scope_sums(path)
    assert scope_cache.entry_path(path).is_file()
    assert str(scope_cache.entry_path(path)).startswith(str(tmp_path / "xdg"))


def _same_size_rewrite(path, seed):
    """The file written again with other numbers, same shape (and so the same size)."""
    size = path.stat().st_size
    _write(path, seed=seed)
    assert path.stat().st_size == size


def test_a_same_size_rewrite_with_the_mtime_put_back_is_a_miss(tmp_path):
    path = _write(tmp_path / "run.h5", seed=1)
    old = read_scope_sums(path, cache_dir=tmp_path / "cache")
    status = path.stat()
    _same_size_rewrite(path, seed=2)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert path.stat().st_mtime_ns == status.st_mtime_ns
    new = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert not new.from_cache
    assert not np.array_equal(new.sums(DP), old.sums(DP))
    _same(new, read_scope_sums(path, cache=False))


def test_a_file_replaced_by_a_copy_of_equal_mtime_is_a_miss(tmp_path):
    path = _write(tmp_path / "run.h5", seed=1)
    read_scope_sums(path, cache_dir=tmp_path / "cache")
    status = path.stat()
    other = _write(tmp_path / "other.h5", seed=3)
    os.utime(other, ns=(status.st_atime_ns, status.st_mtime_ns))
    os.replace(other, path)
    new = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert not new.from_cache
    _same(new, read_scope_sums(path, cache=False))


def _corruptions(entry_bytes: bytes) -> list[tuple[str, bytes]]:
    n = len(entry_bytes)
    cut = [(f"cut at {k}/8", entry_bytes[:n * k // 8]) for k in range(8)]
    flipped = []
    for k in range(1, 10):
        data = bytearray(entry_bytes)
        at = n * k // 10
        data[at:at + 16] = bytes(b ^ 0x5A for b in data[at:at + 16])
        flipped.append((f"16 bytes flipped at {k}/10", bytes(data)))
    other = io.BytesIO()
    np.savez(other, something=np.arange(3))
    return [*cut, *flipped, ("text", b"not an npz file"), ("zeros", bytes(n)),
            ("another npz", other.getvalue()), ("tail only", entry_bytes[n // 2:])]


def test_any_entry_that_does_not_load_is_a_miss_deleted_and_rebuilt(tmp_path):
    path = _write(tmp_path / "run.h5")
    cache_dir = tmp_path / "cache"
    reference = read_scope_sums(path, cache=False)
    read_scope_sums(path, cache_dir=cache_dir)
    entry = scope_cache.entry_path(path, cache_dir)
    corruptions = _corruptions(entry.read_bytes())
    assert len(corruptions) == 21
    misses = 0
    for what, data in corruptions:
        entry.write_bytes(data)
        sums = read_scope_sums(path, cache_dir=cache_dir)  # never EOFError, BadZipFile, IndexError
        _same(sums, reference)  # a miss, or (bytes of the zip no column uses) the same numbers
        misses += not sums.from_cache
        again = read_scope_sums(path, cache_dir=cache_dir)
        assert again.from_cache, what  # rebuilt
        _same(again, reference)
    assert misses >= 19  # all but flips in zip bytes that hold no column (checked by the hash)


def test_an_entry_whose_columns_do_not_fit_is_a_miss(tmp_path):
    path = _write(tmp_path / "run.h5")
    cache_dir = tmp_path / "cache"
    read_scope_sums(path, cache_dir=cache_dir)
    entry = scope_cache.entry_path(path, cache_dir)
    with np.load(entry) as stored:
        columns = {name: stored[name] for name in stored.files}
    columns["rank"] = columns["rank"][:-1]  # one rank short: would be an IndexError later
    np.savez(entry, **columns)
    assert not read_scope_sums(path, cache_dir=cache_dir).from_cache
    assert read_scope_sums(path, cache_dir=cache_dir).from_cache


def test_a_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch):
    import errno

    path = _write(tmp_path / "run.h5")
    cache_dir = tmp_path / "cache"

    def full_disk(stream, **columns):
        stream.write(b"PK\x03\x04 half an entry")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(scope_cache.np, "savez", full_disk)
    sums = read_scope_sums(path, cache_dir=cache_dir)
    assert not sums.from_cache
    _same(sums, read_scope_sums(path, cache=False))
    assert list(cache_dir.iterdir()) == []
