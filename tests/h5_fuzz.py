"""Mutation fuzzing of the HDF5 reader against h5py: the cases and the oracle.

Shared by ``tests/test_h5_fuzz.py`` (a few hundred cases in the normal test
run) and ``benchmarks/fuzz_h5.py`` (thousands).  A case is a copy of a file
written by scope-profiler's writer with some bytes changed; the oracle reads
it three ways (``read_scope_sums(..., cache=False)``):

* ``engine="raw"``: the package's own reader, in this process (it must
  never hang: each read runs under an alarm);
* ``engine="h5py"``: libhdf5, in the guarded worker (a hang is stopped);
* ``engine="auto"``: what users get.

and requires of the raw and the auto reader: the package's
:class:`LikwidFormatError`, or exactly what h5py reads, or (where h5py fails
or hangs) exactly what the undamaged file holds (the damage was in bytes no
reader uses).  Never another exception, a hang, a crash, a different name or
a different number.

The kinds of issue 37 come with the byte mutations: a link name cut by a NUL
(``region_000`` read as ``region_0``), cpu numbers that are no hardware
thread (-1, 2**40) and a group id past 64 bits (written with h5py into a
copy), and a file replaced (``os.replace``) or rewritten in place between two
ranks of one read (:func:`judge_change`: the read must be of one version,
the last, or refused).  :func:`outcome_kind` sorts what a read gave: equal,
refused, changed with a warning, silent (the last is a defect).
"""

from __future__ import annotations

import contextlib
import os
import struct
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from time_limits import alarm

#: Seconds one raw or auto read may take before the case counts as a hang.
ALARM_SECONDS = 20


def base_file(path):
    """The file mutated: 2 ranks, regions with '/' in tags, NaN threads, two name lists."""
    from scope_fixtures import write_scope_h5
    from scope_profiler.likwid_data import LikwidRegionResult
    from scope_profiler.results import ProfilingResults

    def region(tag, cpus, names, metrics):
        return LikwidRegionResult(
            tag=tag, group_id=3, group_name="MEM_DP", cpus=cpus, times=np.linspace(0.5, 1.0, len(cpus)),
            call_counts=np.arange(1, len(cpus) + 1), event_names=["CAS_COUNT_RD"],
            counter_names=["MBOX0C0"], events=np.ones((1, len(cpus))), metric_names=names,
            metrics=np.asarray(metrics, dtype=float))

    names = ["DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"]
    likwid = {
        0: {"solver/inner1": region("solver/inner1", [0, 1], names, [[1.0, 2.0], [10.0, 0.0]]),
            "setup": region("setup", [0, 1], names, [[3.0, np.nan], [5.0, 0.0]])},
        1: {"solver/inner1": region("solver/inner1", [2, 3], names, [[4.0, 8.0], [20.0, 0.0]]),
            "io": region("io", [2], ["CPI"], [[0.5]])},
    }
    results = ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="fuzz.h5",
                               metadata={"label": "fuzz"})
    return write_scope_h5(path, results)


def mutations(data: bytes, seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` mutated copies of ``data``: (description, bytes), reproducible from ``seed``.

    First every global heap object header zeroed in turn (what made h5py
    hang), then random kinds: bits flipped, bytes set, runs zeroed or
    copied from elsewhere, the file cut.
    """
    rng = np.random.default_rng(seed)
    made = 0
    for what, variant in _schema_variants(data):
        if made < count:
            made += 1
            yield what, variant
    start = data.find(b"GCOL")
    while start >= 0 and made < count:
        first_object = start + 16
        yield f"zeroed first object header of the global heap at {start}", \
            data[:first_object] + bytes(16) + data[first_object + 16:]
        made += 1
        start = data.find(b"GCOL", start + 4)
    while made < count:
        copy = bytearray(data)
        kind = int(rng.integers(6))
        at = int(rng.integers(len(data)))
        names = _link_names(data)
        if kind == 5 and names:
            start, length = names[int(rng.integers(len(names)))]
            at = start + 1 + int(rng.integers(length - 1))
            copy[at] = 0
            what = f"link name at {start} cut at {at}"
        elif kind == 0:
            copy[at] ^= 1 << int(rng.integers(8))
            what = f"bit flipped at {at}"
        elif kind == 1:
            copy[at] = int(rng.integers(256))
            what = f"byte set at {at}"
        elif kind == 2:
            n = int(rng.choice([2, 4, 8, 16]))
            copy[at:at + n] = bytes(len(copy[at:at + n]))
            what = f"{n} bytes zeroed at {at}"
        elif kind == 3:
            source, n = int(rng.integers(len(data))), 8
            copy[at:at + n] = data[source:source + n][:len(copy[at:at + n])]
            what = f"8 bytes at {at} copied from {source}"
        else:
            copy = copy[:at]
            what = f"cut at {at}"
        made += 1
        yield what, bytes(copy)


_HEAP = struct.Struct("<4sB3xQQQ")  # "HEAP", version, data size, free list, data address


def _link_names(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of every name of two or more characters in the file's local heaps."""
    found = []
    at = data.find(b"HEAP")
    while at >= 0:
        _, _, size, _, address = _HEAP.unpack_from(data, at)
        segment = data[address:address + size] if address + size <= len(data) else b""
        offset = 0
        for name in segment.split(b"\0"):
            if len(name) >= 2:
                found.append((address + offset, len(name)))
            offset += len(name) + 1
        at = data.find(b"HEAP", at + 4)
    return found


def _schema_variants(data: bytes) -> Iterator[tuple[str, bytes]]:
    """Copies with values no hardware thread or group has, written with h5py (issue 37)."""
    import h5py

    changes = [
        ("cpu -1", "cpus", np.array([-1, 1])),
        ("cpu 2**40", "cpus", np.array([0, 2**40])),
        ("cpu 2**62", "cpus", np.array([2**62, 1])),
        ("group id 2**64-1", "group_id", np.uint64(2**64 - 1)),
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "variant.h5"
        for what, name, value in changes:
            path.write_bytes(data)
            with h5py.File(path, "r+") as handle:
                group = handle["rank0/likwid/regions/setup"]
                if name == "cpus":
                    del group["cpus"]
                    group["cpus"] = value
                else:
                    group.attrs[name] = value
            yield f"{what} in rank 0's region setup", path.read_bytes()


@dataclass
class Outcome:
    """What one read gave: the table, or the error's type and text."""

    table: dict | None
    error: str = ""
    package_error: bool = False
    warned: bool = False

    def same_table(self, other: Outcome | None) -> bool:
        return other is not None and self.table is not None and other.table is not None and \
            tables_equal(self.table, other.table)


def tables_equal(a: dict, b: dict) -> bool:
    """Equal names and numbers (NaN equal to NaN), key columns included."""
    if list(a["metric_names"]) != list(b["metric_names"]):
        return False
    for name in ("region", "groups", "unmeasured_names"):
        if list(a[name]) != list(b[name]):
            return False
    for name in ("sums", "unmeasured", "rank", "n_threads", "runtime_s", "call_count"):
        if not np.array_equal(np.asarray(a[name]), np.asarray(b[name]), equal_nan=True):
            return False
    return True


def read(path, engine: str) -> Outcome:
    """``read_scope_sums(path, engine=engine)`` as an :class:`Outcome` (warnings ignored)."""
    import warnings

    from roofline_widget.errors import LikwidFormatError, RooflineWarning
    from roofline_widget.points import read_scope_sums

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = read_scope_sums(path, cache=False, progress=False, engine=engine).table()
        return Outcome(table, warned=any(issubclass(w.category, RooflineWarning) for w in caught))
    except LikwidFormatError as exc:
        return Outcome(None, str(exc), True)
    except Exception as exc:  # a defect for raw and auto; reported, not raised
        return Outcome(None, f"{type(exc).__name__}: {exc}", False)


def judge(path, original: Outcome) -> tuple[str | None, dict]:
    """Read one mutated file three ways; the defect found (None if none) and the outcomes."""
    outcomes = {}
    for engine in ("raw", "auto"):
        start = time.perf_counter()
        try:
            with alarm(ALARM_SECONDS):
                outcomes[engine] = read(path, engine)
        except TimeoutError:
            return f"engine={engine!r} hangs", outcomes
        outcomes[f"{engine} seconds"] = time.perf_counter() - start
    outcomes["h5py"] = h5py = read(path, "h5py")
    for engine in ("raw", "auto"):
        outcomes[f"{engine} kind"] = outcome_kind(outcomes[engine], h5py, original)
    for engine in ("raw", "auto"):
        got = outcomes[engine]
        if got.table is None and not got.package_error:
            return f"engine={engine!r} raised {got.error}", outcomes
        if got.table is not None and not got.same_table(h5py) and not got.same_table(original):
            return (f"engine={engine!r} read a table that is neither h5py's nor the original "
                    f"(h5py: {h5py.error or 'a table'})"), outcomes
    return None, outcomes


def outcome_kind(got: Outcome, *expected: Outcome | None) -> str:
    """"equal" (a table of ``expected``), "refused" (the package's error), "changed with a
    warning", "silent" (another table, nothing said: a defect) or "foreign error" (a defect)."""
    if got.table is None:
        return "refused" if got.package_error else "foreign error"
    if any(got.same_table(other) for other in expected):
        return "equal"
    return "changed with a warning" if got.warned else "silent"


def changes(data: bytes, seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` versions a file may be changed to while it is read: the file written with
    other numbers (same shape), or a byte mutation of it."""
    rng = np.random.default_rng(seed)
    later = list(mutations(data, seed + 1, count))
    for k in range(count):
        if k % 2 == 0:
            yield "written again with other numbers", _renumbered(data, int(rng.integers(1, 1000)))
        else:
            yield later[k]


def _renumbered(data: bytes, seed: int) -> bytes:
    """``data`` with every metric value scaled (same layout, same size: other numbers)."""
    import h5py

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "again.h5"
        path.write_bytes(data)
        with h5py.File(path, "r+") as handle:
            for rank in handle:
                if rank.startswith("rank"):
                    for region in handle[f"{rank}/likwid/regions"].values():
                        region["metrics"][...] = region["metrics"][...] * (1 + seed / 1000)
        return path.read_bytes()


@contextlib.contextmanager
def after_first_rank(change):
    """Within the block, ``change()`` runs once, right after the first rank of a read was read."""
    from roofline_widget.points.engines import h5_read

    read_rank_rows = h5_read.read_rank_rows
    done: list[bool] = []

    def read_then_change(*args, **kwargs):
        rows = read_rank_rows(*args, **kwargs)
        if not done:
            done.append(True)
            change()
        return rows

    h5_read.read_rank_rows = read_then_change
    try:
        yield
    finally:
        h5_read.read_rank_rows = read_rank_rows


def judge_change(path, before: bytes, after: bytes, how: str, engine: str = "auto"
                 ) -> tuple[str | None, str]:
    """Read ``path`` holding ``before``; after its first rank the file becomes ``after``
    (``how``: ``"replace"`` through ``os.replace``, ``"rewrite"`` in place).

    The read must give the table of ``after`` (read alone) or the package's error; the
    defect found (None if none) and the outcome's kind (:func:`outcome_kind`).
    """
    path = Path(path)
    final = path.with_name("final.h5")
    final.write_bytes(after)
    expected = read(final, engine)
    path.write_bytes(before)
    def change():
        if how == "replace":
            part = path.with_name("part.h5")
            part.write_bytes(after)
            os.replace(part, path)
        else:
            with open(path, "r+b") as handle:
                handle.write(after)
                handle.truncate(len(after))

    try:
        with alarm(ALARM_SECONDS), after_first_rank(change):
            got = read(path, engine)
    except TimeoutError:
        return f"engine={engine!r} hangs on a file changed while read", "hang"
    kind = outcome_kind(got, expected)
    if kind in ("silent", "foreign error"):
        return (f"engine={engine!r} on a file changed while read ({how}): {kind} "
                f"({got.error or 'a table of neither version'})"), kind
    return None, kind
