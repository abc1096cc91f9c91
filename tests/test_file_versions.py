"""One version of a scope-profiler HDF5 file per read, and a cache keyed on the content read.

Before the fix (issue 37): a file replaced with ``os.replace`` while it was
read gave points mixing ranks of the old and the new file under the old label
(each rank is opened by name); rewritten in place, about 30 % of concurrent
reads were mixed; a write through ``mmap`` that moved no timestamp was not
seen by the cache; the cache ignored the engine; a cut group name renamed a
region silently.  Here the change is made between two ranks of one read
(deterministic), or by a writer process racing the reads (in a subprocess
with limits).
"""

from __future__ import annotations

import mmap
import os
import struct
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("scope_profiler")
h5py = pytest.importorskip("h5py")

from h5_fuzz import after_first_rank  # noqa: E402
from scope_fixtures import write_scope_h5  # noqa: E402

from roofline_widget import read_likwid  # noqa: E402
from roofline_widget.errors import LikwidFormatError  # noqa: E402
from roofline_widget.points import read_scope_sums  # noqa: E402
from roofline_widget.points.engines import h5_read  # noqa: E402

DP = "DP [MFLOP/s]"


def _write(path, seed: int, label: str | None = None):
    path = write_scope_h5(path, {"n_ranks": 3, "n_regions": 3, "n_threads": 2, "seed": seed})
    if label is not None:
        with h5py.File(path, "r+") as handle:
            handle.require_group("metadata").attrs["label"] = label
    return path


def _table(path, **keywords):
    sums = read_scope_sums(path, cache=False, progress=False, **keywords)
    return sums.label, {m: sums.sums(m).tolist() for m in sums.metric_names}


@pytest.fixture
def two_versions(tmp_path):
    old = _write(tmp_path / "job.h5", seed=1, label="old")
    new = _write(tmp_path / "next.h5", seed=2, label="new")
    assert old.stat().st_size == new.stat().st_size
    return old, new, _table(old), _table(new)


def test_a_file_replaced_while_read_gives_one_version_not_a_mix(two_versions):
    old, new, _, new_table = two_versions
    new_bytes = new.read_bytes()
    replacement = old.with_name("job.h5.part")

    def save_safely():  # what every writer that saves safely does
        replacement.write_bytes(new_bytes)
        os.replace(replacement, old)

    with after_first_rank(save_safely):
        assert _table(old) == new_table  # read again: all of the new file, under its label


def test_a_file_rewritten_in_place_while_read_gives_one_version(two_versions):
    old, new, _, new_table = two_versions
    new_bytes = new.read_bytes()

    def rewrite():
        with open(old, "r+b") as handle:
            handle.write(new_bytes)

    with after_first_rank(rewrite):
        assert _table(old) == new_table


def test_a_file_that_keeps_changing_is_refused(two_versions, monkeypatch):
    old, _, _, _ = two_versions
    read = h5_read.read_rank_rows

    def read_and_touch(*args, **kwargs):
        rows = read(*args, **kwargs)
        os.utime(old)  # a job still writing it
        return rows

    monkeypatch.setattr(h5_read, "read_rank_rows", read_and_touch)
    with pytest.raises(LikwidFormatError, match=r"job\.h5: expected a file that stays the same "
                                                r"while it is read, found 'it changed during each "
                                                r"of 3 reads"):
        read_scope_sums(old, cache=False, progress=False)


def test_the_per_thread_run_is_of_the_version_the_sums_were_read_from(two_versions):
    old, new, _, _ = two_versions
    sums = read_scope_sums(old, cache=False, progress=False)
    os.replace(new, old)
    with pytest.raises(LikwidFormatError, match="it changed since"):
        sums.run  # noqa: B018


def _first_float(path, value: float) -> int:
    data = path.read_bytes()
    at = data.find(struct.pack("<d", value))
    assert at > 0
    return at


def test_a_write_through_mmap_that_moves_no_timestamp_is_seen_by_the_cache(tmp_path):
    # a page of a shared mapping that is already dirty takes more writes without a page fault:
    # neither the modification nor the status change time moves
    path = write_scope_h5(tmp_path / "job.h5", {"n_ranks": 4, "n_regions": 40, "n_threads": 16,
                                                "seed": 1})
    cache_dir = tmp_path / "cache"
    run = read_scope_sums(path, cache=False, progress=False).run.table
    middle = run[(run["rank"] == 2) & (run["region"] == "region_020")]
    value = float(middle[DP].iloc[0])  # one thread's value, in the middle of the file
    at = _first_float(path, value)
    with open(path, "r+b") as handle, mmap.mmap(handle.fileno(), 0) as mapped:
        mapped[at:at + 8] = struct.pack("<d", value)  # the same bytes: the page is now dirty
        time.sleep(2.5)  # past the "recently changed" window of any timestamp-based check
        status = path.stat()
        first = read_scope_sums(path, cache_dir=cache_dir, progress=False)
        mapped[at:at + 8] = struct.pack("<d", value + 1e6)  # no fault, no timestamp moves
        moved = path.stat()
        again = read_scope_sums(path, cache_dir=cache_dir, progress=False)
    if (moved.st_mtime_ns, moved.st_ctime_ns) != (status.st_mtime_ns, status.st_ctime_ns):
        pytest.skip("this file system moved a timestamp")  # the case is then the easy one
    assert not again.from_cache
    row = int(np.flatnonzero((first.keys["rank"] == 2)
                             & (np.asarray(first.keys["region"]) == "region_020"))[0])
    assert again.sums(DP)[row] == pytest.approx(first.sums(DP)[row] + 1e6)


def test_the_cache_keeps_one_entry_per_engine(tmp_path):
    # a file in a layout the raw engine does not read (superblock version 2 or 3)
    path = tmp_path / "latest.h5"
    with h5py.File(_write(tmp_path / "job.h5", seed=1), "r") as source, \
            h5py.File(path, "w", libver="latest") as out:
        for name in source:
            source.copy(source[name], out, name=name)
    cache_dir = tmp_path / "cache"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = read_scope_sums(path, cache_dir=cache_dir, progress=False)
        assert read_scope_sums(path, cache_dir=cache_dir, progress=False).from_cache
    assert not auto.from_cache
    with pytest.raises(LikwidFormatError, match="an HDF5 layout the raw engine reads"):
        read_scope_sums(path, cache_dir=cache_dir, progress=False, engine="raw")
    through_h5py = read_scope_sums(path, cache_dir=cache_dir, progress=False, engine="h5py")
    assert not through_h5py.from_cache  # read by h5py itself, not auto's entry
    assert read_scope_sums(path, cache_dir=cache_dir, progress=False, engine="h5py").from_cache


def test_a_cut_group_name_is_refused_not_a_renamed_region(tmp_path):
    path = _write(tmp_path / "job.h5", seed=1)
    data = bytearray(path.read_bytes())
    # the link names of rank 0's regions in its local heap: "region_000\0" not preceded by a
    # global heap object's length (the tag attribute's copy of the same text)
    at = next(k for k in range(len(data)) if data.startswith(b"region_000\0", k)
              and data[k - 8:k] != struct.pack("<Q", 10))
    data[at + 8] = 0  # "region_000" now reads "region_0": still before "region_001"
    path.write_bytes(bytes(data))
    for engine in ("raw", "h5py"):
        with pytest.raises(LikwidFormatError, match=r"group 'region_0'\): expected the region group "
                                                    r"named after its tag.*'region_000'"):
            read_scope_sums(path, cache=False, progress=False, engine=engine)
        with pytest.raises(LikwidFormatError, match="named after its tag"):
            read_likwid(path, format="scope-h5", engine=engine)


def test_file_version_pins_identity_and_content(tmp_path):
    from roofline_widget.io.scope import snapshot

    path = _write(tmp_path / "job.h5", seed=1)
    version = snapshot.file_version(path)
    assert version == snapshot.file_version(path)
    assert version.size == path.stat().st_size
    copy = tmp_path / "copy.h5"
    copy.write_bytes(path.read_bytes())
    assert snapshot.file_version(copy) != version
    assert snapshot.file_version(copy).same_content(version)


_RACE = """
import os, warnings
from pathlib import Path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.points import read_scope_sums
folder = Path({folder!r})
versions = [(folder / name).read_bytes() for name in ("one.h5", "two.h5")]
tables = []
for name in ("one.h5", "two.h5"):
    sums = read_scope_sums(folder / name, cache=False, progress=False)
    tables.append([sums.sums(m).tolist() for m in sums.metric_names])
target = folder / "job.h5"
target.write_bytes(versions[0])
writer = os.fork()
if writer == 0:  # saves the file safely, one version after the other, for ever
    k = 0
    part = folder / "job.h5.part"
    while True:
        k += 1
        part.write_bytes(versions[k % 2])
        os.replace(part, target)
counts = {{"one": 0, "two": 0, "refused": 0, "mixed": 0}}
try:
    for _ in range(30):
        try:
            sums = read_scope_sums(target, cache=False, progress=False)
        except LikwidFormatError as exc:
            counts["refused"] += 1
            continue
        got = [sums.sums(m).tolist() for m in sums.metric_names]
        counts["one" if got == tables[0] else "two" if got == tables[1] else "mixed"] += 1
finally:
    os.kill(writer, 9)
    os.waitpid(writer, 0)
print(counts, flush=True)
"""


def test_reads_racing_a_writer_are_one_version_or_refused(tmp_path):
    # the writer saves each version whole (os.replace), so the path always names one version;
    # a read that mixed two versions is the defect (a third of the reads before the fix).  A
    # writer stopped in the middle of an in-place write leaves bytes of neither version: a read
    # then gives what the file holds, as for a file cut by a killed job (docs/hostile-input.md)
    from isolated import run_python

    _write(tmp_path / "one.h5", seed=1)
    _write(tmp_path / "two.h5", seed=2)
    done = run_python(_RACE.format(folder=str(tmp_path)), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    counts = eval(done.stdout.strip().splitlines()[-1])  # our own dict
    assert counts["mixed"] == 0, counts
    assert sum(counts.values()) == 30


def test_after_an_auto_read_h5py_refuses_what_h5py_refuses(tmp_path):
    # a mutation the raw engine reads (the damage is in bytes it does not use) and h5py refuses:
    # engine="h5py" was served auto's cache entry
    import h5_fuzz

    base = h5_fuzz.base_file(tmp_path / "base.h5").read_bytes()
    path, cache_dir = tmp_path / "case.h5", tmp_path / "cache"
    for _, data in h5_fuzz.mutations(base, seed=38, count=400):
        path.write_bytes(data)
        if h5_fuzz.read(path, "raw").table is not None and h5_fuzz.read(path, "h5py").package_error:
            break
    else:
        pytest.fail("no mutation that the raw engine reads and h5py refuses")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not read_scope_sums(path, cache_dir=cache_dir, progress=False).from_cache
        assert read_scope_sums(path, cache_dir=cache_dir, progress=False).from_cache
    with pytest.raises(LikwidFormatError):
        read_scope_sums(path, cache_dir=cache_dir, progress=False, engine="h5py")
