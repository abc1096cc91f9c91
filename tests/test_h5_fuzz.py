"""Mutation fuzzing of the HDF5 reader against h5py, in the normal test run.

300 mutated copies of a file written by scope-profiler's writer (the first
ones with a zeroed global heap object header: what made h5py hang); each is
read by the raw engine (in this process, under an alarm), by h5py (in the
guarded worker, stopped after a few seconds) and by ``engine="auto"``.  The
raw and the auto reader must give the package's error, or exactly h5py's
table, or (where h5py fails or hangs) exactly the undamaged file's table:
never another exception, a hang, a crash, a different name or number.
Then 20 reads of a file replaced or rewritten between two of its ranks (issue 37).
``benchmarks/fuzz_h5.py`` runs thousands.
"""

from __future__ import annotations

import collections

import pytest

pytest.importorskip("scope_profiler")
pytest.importorskip("h5py")

import h5_fuzz

from roofline_widget.io.scope import guard

CASES = 300


def test_mutated_files_are_read_as_h5py_reads_them_or_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(guard, "SECONDS_BASE", 4.0)
    monkeypatch.setattr(guard, "SECONDS_PER_MB", 0.0)
    base = h5_fuzz.base_file(tmp_path / "base.h5")
    original = h5_fuzz.read(base, "raw")
    assert original.table is not None
    assert h5_fuzz.read(base, "h5py").same_table(original)
    seen = collections.Counter()
    defects = []
    case = tmp_path / "case.h5"
    for what, data in h5_fuzz.mutations(base.read_bytes(), seed=2, count=CASES):
        case.write_bytes(data)
        defect, outcomes = h5_fuzz.judge(case, original)
        if defect:
            defects.append(f"{what}: {defect}")
        raw, h5py = outcomes.get("raw"), outcomes.get("h5py")
        seen["raw read it" if raw is not None and raw.table is not None else "raw refused it"] += 1
        seen["h5py stopped" if h5py is not None and "within" in h5py.error else "h5py answered"] += 1
    assert not defects, "\n".join(defects[:10])
    # the cases are not all alike: some read, some refused
    assert seen["raw read it"] > 50, seen
    assert seen["raw refused it"] > 50, seen


CHANGES = 20


def test_files_changed_while_read_are_read_as_one_version_or_refused(tmp_path, monkeypatch):
    # issue 37: replaced (os.replace) or rewritten in place between two ranks of one read
    monkeypatch.setattr(guard, "SECONDS_BASE", 4.0)
    monkeypatch.setattr(guard, "SECONDS_PER_MB", 0.0)
    before = h5_fuzz.base_file(tmp_path / "base.h5").read_bytes()
    seen = collections.Counter()
    defects = []
    for index, (what, after) in enumerate(h5_fuzz.changes(before, seed=3, count=CHANGES)):
        how = ("replace", "rewrite")[index // 2 % 2]  # each with both kinds of change
        defect, kind = h5_fuzz.judge_change(tmp_path / "case.h5", before, after, how)
        seen[kind] += 1
        if defect:
            defects.append(f"{what}: {defect}")
    assert not defects, "\n".join(defects[:10])
    assert seen["equal"] >= CHANGES // 2, seen  # the files written again are read whole
