"""Mutation fuzzing of the HDF5 reader against h5py, by the thousand.

Run ``python benchmarks/fuzz_h5.py [--cases 3000] [--changes 300] [--seed 1] [--timeout 4]``.
Each case is a copy of a small file written by scope-profiler's writer with
some bytes changed (``tests/h5_fuzz.py``: the first cases zero a global heap
object header, then random bit flips, bytes set, runs zeroed or copied, the
file cut); it is read by the raw engine (in this process, under an alarm),
by h5py (in the guarded worker, stopped after ``--timeout`` seconds) and by
``engine="auto"``.  A defect is a raw or auto read that raises anything but
the package's ``LikwidFormatError``, hangs, or returns a table that is
neither h5py's nor the undamaged file's.  Then ``--changes`` reads of a file
replaced (``os.replace``) or rewritten in place between two of its ranks, by
the file with other numbers or by a mutation: the read must be of the last
version or refused (``h5_fuzz.judge_change``).  Every read of the raw and
the auto engine is counted as equal, refused, changed with a warning or
silent (``h5_fuzz.outcome_kind``; silent is a defect).  The test suite runs
300 + 20 such cases (``tests/test_h5_fuzz.py``); this script prints the
counts of thousands and every defect with its case, and exits with 1 if
there is one.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

from _common import ms, print_table, quiet


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--changes", type=int, default=300,
                        help="reads of a file changed between two of its ranks")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=4.0,
                        help="seconds h5py may take on one case before it is stopped")
    args = parser.parse_args()
    quiet()
    import h5_fuzz

    from roofline_widget.io.scope import guard

    guard.SECONDS_BASE, guard.SECONDS_PER_MB = args.timeout, 0.0
    counts: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    defects, slowest = [], 0.0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        base = h5_fuzz.base_file(Path(tmp) / "base.h5")
        original = h5_fuzz.read(base, "raw")
        assert original.table is not None
        assert h5_fuzz.read(base, "h5py").same_table(original)
        case = Path(tmp) / "case.h5"
        for index, (what, data) in enumerate(h5_fuzz.mutations(base.read_bytes(), args.seed,
                                                               args.cases)):
            case.write_bytes(data)
            defect, outcomes = h5_fuzz.judge(case, original)
            if defect:
                defects.append(f"case {index} ({what}): {defect}")
            raw, h5py = outcomes.get("raw"), outcomes.get("h5py")
            raw_kind = "read" if raw is not None and raw.table is not None else "refused"
            h5py_kind = ("read" if h5py is not None and h5py.table is not None else
                         "stopped (hang)" if h5py is not None and "within" in h5py.error else
                         "refused")
            counts[(raw_kind, h5py_kind)] += 1
            group = ("mutated: link name cut" if what.startswith("link name") else
                     "mutated: cpus, group id" if what.startswith(("cpu", "group id")) else
                     "mutated: bytes")
            for engine in ("raw", "auto"):
                kinds[(group, engine, outcomes.get(f"{engine} kind", "hang"))] += 1
            slowest = max(slowest, outcomes.get("raw seconds", 0.0), outcomes.get("auto seconds", 0.0))
        before = base.read_bytes()
        for index, (what, after) in enumerate(h5_fuzz.changes(before, args.seed, args.changes)):
            how = ("replace", "rewrite")[index // 2 % 2]  # each with both kinds of change
            for engine in ("raw", "auto"):
                defect, kind = h5_fuzz.judge_change(case, before, after, how, engine)
                kinds[(f"changed while read ({how})", engine, kind)] += 1
                if defect:
                    defects.append(f"change {index} ({what}): {defect}")
    seconds = time.perf_counter() - start
    rows = [[raw, h5py, n] for (raw, h5py), n in sorted(counts.items())]
    print_table(f"{args.cases} mutated files (seed {args.seed}), {ms(seconds)} in all",
                ["raw engine", "h5py", "cases"], rows)
    names = ("equal", "refused", "changed with a warning", "silent", "foreign error", "hang")
    groups = sorted({(case_kind, engine) for case_kind, engine, _ in kinds})
    print_table("what the raw and auto reads gave", ["cases", "engine", *names],
                [[case_kind, engine, *(kinds[(case_kind, engine, name)] for name in names)]
                 for case_kind, engine in groups])
    print(f"slowest raw or auto read: {ms(slowest)}; defects: {len(defects)}")
    for line in defects:
        print("  " + line)
    return 1 if defects else 0


if __name__ == "__main__":
    raise SystemExit(main())
