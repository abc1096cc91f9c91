"""The text/CSV reader of this tree against the one of another commit: the same runs, errors, lines.

Usage::

    python benchmarks/compare_readers.py --base 33e1f7e              # samples and their mutations
    python benchmarks/compare_readers.py --base 33e1f7e --generated  # also the benchmark files
    python benchmarks/compare_readers.py --base 33e1f7e --mutations 400 --seed 7

The base commit's ``roofline_widget/`` is exported (``git archive``) to a temporary folder; every
file is read by ``read_likwid`` once with each tree, each tree in its own subprocess, and the
outcomes compared: the same ``LikwidFormatError`` (message and line), or runs whose ``table``,
``events`` and ``stats`` are equal bit for bit (``check_exact``, NaN equal to NaN, dtypes
included), with the same warnings, layout, CPU header, LIKWID version, topology and runs of a
file of several. The files: every bundled sample, the files from the wild in ``tests/data``, the
shared samples, and ``--mutations`` damaged copies of them (cut at a random byte, lines deleted,
cells replaced by garbage or "no value" tokens, a span printed twice, lines duplicated), the same
damage as ``tests/test_fuzz_readers.py`` without hypothesis, so that both trees read the very same
bytes. ``--generated`` adds the files ``bench_read.py`` and ``bench_text_read.py`` write to ``/tmp``.

Prints one line per file that differs and a summary; exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/samples/likwid")
GARBAGE = ["x", "?", "12a", "1.2.3", "0x1f", "#", "1e", "abc", "--", "+-1", "1..0", "e5", "1_0",
           "\uff11", "\u0661", "nil", "-", "nan", "-nan", "inf", ""]


def _child(tree: str, listing: str, out: str) -> None:
    """Read every file of ``listing`` with the package in ``tree``; pickle one outcome each."""
    sys.path.insert(0, tree)
    import warnings

    import roofline_widget
    from roofline_widget import read_likwid
    from roofline_widget.errors import LikwidFormatError

    assert roofline_widget.__file__.startswith(tree), (roofline_widget.__file__, tree)
    for number, path in enumerate(json.loads(Path(listing).read_text())):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run = read_likwid(path)
            outcome = ("run", _summary(run))
        except LikwidFormatError as exc:
            outcome = ("error", str(exc), exc.line)
        except Exception as exc:  # a crash is an outcome to compare too
            outcome = ("crash", type(exc).__name__, str(exc)[:300])
        with open(Path(out) / f"{number}.pkl", "wb") as handle:
            pickle.dump(outcome, handle)


def _summary(run) -> dict:
    """What a read gave, for comparing: frames, attributes, the runs of a file of several."""
    parts = [(part.label, repr(part.run_info), part.table, part.events, part.stats)
             for part in run.runs]  # its repr: the trees' classes may differ (a RunMark)
    return {"table": run.table, "events": run.events, "stats": run.stats,
            "attributes": (run.label, run.sources, str(run.layout), run.cpu_name, run.cpu_type,
                           run.cpu_clock, run.likwid_version, list(run.warnings),
                           repr(run.topology), dict(run.full_names)),
            "runs": parts}


def _same(a, b) -> str | None:
    """None if two outcomes are the same, else what differs."""
    import pandas as pd

    if a[0] != b[0] or a[0] != "run":
        return None if a == b else f"{a[:3]!r} != {b[:3]!r}"[:400]
    x, y = a[1], b[1]
    if x["attributes"] != y["attributes"]:
        for k, (u, v) in enumerate(zip(x["attributes"], y["attributes"])):
            if u != v:
                return f"attribute {k}: {u!r} != {v!r}"[:400]
    frames = [(name, x[name], y[name]) for name in ("table", "events", "stats")]
    if len(x["runs"]) != len(y["runs"]):
        return f"{len(x['runs'])} runs != {len(y['runs'])} runs"
    for k, (p, q) in enumerate(zip(x["runs"], y["runs"])):
        if p[:2] != q[:2]:
            return f"run {k + 1}: {p[:2]!r} != {q[:2]!r}"[:400]
        frames += [(f"run {k + 1} {name}", p[i], q[i])
                   for i, name in ((2, "table"), (3, "events"), (4, "stats"))]
    for name, u, v in frames:
        try:
            pd.testing.assert_frame_equal(u, v, check_exact=True)
        except AssertionError as exc:
            return f"{name}: {str(exc).splitlines()[0]}"[:400]
    return None


def _mutate(text: str, rng: random.Random) -> str:
    """One or two kinds of damage, as tests/test_fuzz_readers.py does them."""
    for _ in range(rng.randint(1, 2)):
        lines = text.splitlines(keepends=True)
        if not lines:
            return text
        kind = rng.choice(["cut", "delete", "cells", "twice", "duplicate"])
        if kind == "cut":
            k = rng.randrange(len(lines))
            text = "".join(lines[:k]) + lines[k][:rng.randrange(len(lines[k]) + 1)]
        elif kind == "delete":
            for _ in range(rng.randint(1, 3)):
                if len(lines) > 1:
                    del lines[rng.randrange(len(lines))]
            text = "".join(lines)
        elif kind == "twice":
            start, length = rng.randrange(len(lines)), rng.randint(1, 80)
            text = "".join(lines[:start + length] + lines[start:start + length]
                           + lines[start + length:])
        elif kind == "duplicate":
            k = rng.randrange(len(lines))
            text = "".join(lines[:k + 1] + lines[k:])
        else:
            text = _replace_cell(lines, rng)
    return text


def _replace_cell(lines: list[str], rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(lines))
        line = lines[k]
        separator = "|" if line.startswith("|") else ","
        cuts = [i for i, c in enumerate(line) if c == separator]
        if len(cuts) < 2:
            continue
        i = rng.randrange(len(cuts) - 1)
        a, b = cuts[i] + 1, cuts[i + 1]
        token = rng.choice(GARBAGE)
        if separator == "|":
            token = token[:max(b - a - 2, 0)].center(b - a)
        lines[k] = line[:a] + token + line[b:]
    return "".join(lines)


def _files(args, folder: Path) -> list[str]:
    originals = sorted((ROOT / "roofline_widget" / "data").glob("*.txt")) \
        + sorted((ROOT / "roofline_widget" / "data").glob("*.csv")) \
        + sorted((ROOT / "tests" / "data").glob("*.*")) \
        + sorted(p for p in SHARED.glob("*") if p.is_file() and p.name != "SOURCES.md")
    originals = [p for p in originals if p.suffix != ".md"]
    rng = random.Random(args.seed)
    files = [str(p) for p in originals]
    texts = {p: p.read_text(encoding="utf-8", errors="surrogateescape") for p in originals}
    for number in range(args.mutations):
        source = rng.choice(originals)
        path = folder / f"m{number:05d}_{source.name}"
        path.write_text(_mutate(texts[source], rng), encoding="utf-8", errors="surrogateescape")
        files.append(str(path))
    if args.generated:
        files += sorted(str(p) for p in Path("/tmp").glob("roofline_bench_*.txt"))
        files += sorted(str(p) for p in Path("/tmp").glob("roofline_text_*.txt"))
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--mutations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--generated", action="store_true")
    parser.add_argument("--keep", help="a folder to copy the files that differ to")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    with tempfile.TemporaryDirectory() as temp:
        temp = Path(temp)
        base = temp / "tree"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "roofline_widget"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        files = _files(args, temp)
        listing = temp / "files.json"
        listing.write_text(json.dumps(files))
        outcomes = {}
        for name, tree in (("base", base), ("this", ROOT)):
            out = temp / f"outcomes_{name}"
            out.mkdir()
            subprocess.run([sys.executable, __file__, "--base", args.base, "--child", str(tree),
                            str(listing), str(out)], check=True, cwd=temp)
            outcomes[name] = out
        differ = 0
        kinds: dict[str, int] = {}
        for number, path in enumerate(files):
            a = pickle.loads((outcomes["base"] / f"{number}.pkl").read_bytes())
            b = pickle.loads((outcomes["this"] / f"{number}.pkl").read_bytes())
            kinds[a[0]] = kinds.get(a[0], 0) + 1
            difference = _same(a, b)
            if difference:
                differ += 1
                print(f"DIFFERS {Path(path).name}: {difference}")
                if args.keep:
                    Path(args.keep).mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, args.keep)
    print(f"{len(files)} files ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))} with "
          f"the base), {differ} differ; base {args.base}, seed {args.seed}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
