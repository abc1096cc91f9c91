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
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

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
    start = data.find(b"GCOL")
    while start >= 0 and made < count:
        first_object = start + 16
        yield f"zeroed first object header of the global heap at {start}", \
            data[:first_object] + bytes(16) + data[first_object + 16:]
        made += 1
        start = data.find(b"GCOL", start + 4)
    while made < count:
        copy = bytearray(data)
        kind = int(rng.integers(5))
        at = int(rng.integers(len(data)))
        if kind == 0:
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


@dataclass
class Outcome:
    """What one read gave: the table, or the error's type and text."""

    table: dict | None
    error: str = ""
    package_error: bool = False

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

    from roofline_widget.errors import LikwidFormatError
    from roofline_widget.points import read_scope_sums

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Outcome(read_scope_sums(path, cache=False, progress=False, engine=engine).table())
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
        got = outcomes[engine]
        if got.table is None and not got.package_error:
            return f"engine={engine!r} raised {got.error}", outcomes
        if got.table is not None and not got.same_table(h5py) and not got.same_table(original):
            return (f"engine={engine!r} read a table that is neither h5py's nor the original "
                    f"(h5py: {h5py.error or 'a table'})"), outcomes
    return None, outcomes
