"""The on-disk cache of scope-profiler HDF5 sums: hit, never stale, off switch."""

from __future__ import annotations

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


def test_touched_file_is_read_again(tmp_path):
    path = _write(tmp_path / "run.h5")
    read_scope_sums(path, cache_dir=tmp_path / "cache")
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    again = read_scope_sums(path, cache_dir=tmp_path / "cache")
    assert not again.from_cache
    assert read_scope_sums(path, cache_dir=tmp_path / "cache").from_cache  # the new entry


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
