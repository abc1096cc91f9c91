"""``read_likwid`` of large likwid-perfctr text files against a line split, this tree beside another.

Usage::

    python benchmarks/bench_text_read.py                    # this tree, 5 rounds
    python benchmarks/bench_text_read.py --base 33e1f7e     # and the reader of commit 33e1f7e
    python benchmarks/bench_text_read.py --quick            # smaller files, 3 rounds
    python benchmarks/bench_text_read.py --files headers    # one of the files

Three files, written once to ``/tmp`` (likwid-perfctr 5.x marker output, LIKWID's table layout
and number formats):

* ``wide``: 16 ranks x 200 regions x 16 threads, 55 MB: few regions, wide tables (the file of
  ``bench_read.py``); target >= 60 MB/s;
* ``many``: 1 rank x 50,000 regions x 1 thread, 131 MB (``bench_read.py``'s generator):
  50,000 regions of one thread, three small tables each; target <= 5x the time Python takes
  to split its lines;
* ``headers``: 50,000 regions of one thread, 105 MB, the CPU header printed before every
  region (``generate.py``'s ``generate_perfctr(50000, 1)``, the file of ``profile_read.py``);
  target <= 5x the line split too.

Each measurement runs in its own subprocess: first the line split (``open(path, "rb").read()
.decode().splitlines()``), then ``read_likwid(path)`` (read, decode, parse, build the run,
check the STAT sums), wall and CPU time of each (MB/s of the CPU time too: on a shared machine
the wall time of a read waits for the other jobs).  With ``--base`` the base commit's package is
exported (``git archive``) and measured the same way; the rounds alternate base and this tree,
so that both see the same load.  Printed: medians per tree and file, the ratio read / split of
each measurement (its median), MB/s, and the load average before and after.  The machine is
shared: compare the trees side by side, not with figures of another run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATE_TARGET = 60.0   # MB/s on the wide file
SPLIT_TARGET = 5.0   # read / line split on the file of many regions
FILES = {"wide": (16, 200, 16), "many": (1, 50_000, 1), "headers": (1, 50_000, 1)}
QUICK = {"wide": (4, 100, 16), "many": (1, 5_000, 1), "headers": (1, 5_000, 1)}


def child(path: str) -> None:
    """One measurement (run in a subprocess): print a JSON object."""
    import warnings

    def timed(function):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        return time.perf_counter() - wall, time.process_time() - cpu

    split = timed(lambda: open(path, "rb").read().decode().splitlines())
    import roofline_widget
    from roofline_widget import read_likwid

    assert roofline_widget.__file__.startswith(os.environ["PYTHONPATH"]), roofline_widget.__file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = timed(lambda: read_likwid(path))
    print(json.dumps({"split": split, "read": read}))


def _file(name: str, size: tuple) -> Path:
    kind = "_headers" if name == "headers" else ""
    path = Path("/tmp") / f"roofline_bench_perfctr{kind}_{size[0]}x{size[1]}x{size[2]}.txt"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_read import generate
        from generate import generate_perfctr

        start = time.perf_counter()
        if name == "headers":  # a CPU header before every region (likwid-perfctr -o)
            path.with_suffix(".tmp").write_text(generate_perfctr(size[1], size[2]))
        else:
            generate(path.with_suffix(".tmp"), *size)
        path.with_suffix(".tmp").rename(path)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s")
    return path


def _measure(tree: Path, path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, __file__, "--child", str(path)], env=env, cwd=tree,
                          capture_output=True, text=True, check=True, timeout=1800)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a commit whose reader is measured beside this tree's")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", nargs="+", choices=sorted(FILES), default=list(FILES),
                        help="the files measured (default: all three)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    from _common import command_line, median, print_table, verdict  # it puts ROOT first in the path

    rounds = 3 if args.quick else args.rounds
    print(f"command: {command_line()}")
    files = {name: _file(name, size) for name, size in (QUICK if args.quick else FILES).items()
             if name in args.files}
    with tempfile.TemporaryDirectory() as temp:
        trees = {"this tree": ROOT}
        if args.base:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base,
                                      "roofline_widget"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", temp], input=archive, check=True)
            trees = {f"base {args.base}": Path(temp), **trees}
        print(f"load average before: {_load()}")
        runs: dict[tuple, list] = {(t, f): [] for t in trees for f in files}
        for _ in range(rounds):
            for file, path in files.items():
                for tree, folder in trees.items():
                    runs[tree, file].append(_measure(folder, path))
        print(f"load average after:  {_load()}")
    rows = []
    for (tree, file), measured in runs.items():
        mb = files[file].stat().st_size / 1e6
        wall = median([m["read"][0] for m in measured])
        cpu = median([m["read"][1] for m in measured])
        split = median([m["split"][0] for m in measured])
        ratio = median([m["read"][0] / m["split"][0] for m in measured])
        ratio_cpu = median([m["read"][1] / m["split"][1] for m in measured])
        target = (f">= {RATE_TARGET:.0f} MB/s: {verdict(mb / wall, RATE_TARGET, True)}"
                  if file == "wide" else
                  f"<= {SPLIT_TARGET:.0f}x: {verdict(ratio, SPLIT_TARGET, False)}")
        rows.append([tree, f"{file} ({mb:.0f} MB)", f"{wall:.2f} s", f"{cpu:.2f} s",
                     f"{mb / wall:.1f}", f"{mb / cpu:.1f}", f"{split:.2f} s", f"{ratio:.1f}x",
                     f"{ratio_cpu:.1f}x", target])
    print_table(f"read_likwid, median of {rounds} rounds, one subprocess each", [
        "tree", "file", "read (wall)", "read (CPU)", "MB/s", "MB/s (CPU)", "line split", "read / split",
        "(CPU)", "target"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
