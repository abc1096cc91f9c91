"""The reader fuzz tests (tests/test_fuzz_readers.py) with many more examples per file.

Usage::

    python benchmarks/fuzz_readers_long.py                 # 1,000 examples per file
    python benchmarks/fuzz_readers_long.py --examples 5000 -k wild
    python benchmarks/fuzz_readers_long.py --outputs --examples 1000   # hostile names, 200 runs

The normal test command runs 30 examples per bundled sample (15 per file from the wild, the
larger ones), under a minute in all; this runs the same properties (the reader refuses a
damaged file with ``LikwidFormatError``, or every sum it gives equals the intact file's, never
a different number) as long as one likes, and prints hypothesis' statistics: how many damaged
files were refused, read, or read with other runs than the intact file.  ``--outputs`` runs the
output fuzz instead (``tests/test_output_escaping.py``: samples whose regions get hostile names,
``mutations.HOSTILE_NAMES``, through ``plot -o x.svg --data x.csv`` and ``points [--csv]``: an SVG
that parses, no formula cell, no control character on the terminal), one run per five examples.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="examples per file")
    parser.add_argument("-k", default=None, help="pytest -k expression (default: all fuzz tests)")
    parser.add_argument("--outputs", action="store_true",
                        help="the output fuzz (hostile region names) instead of the readers'")
    args = parser.parse_args(argv)
    env = {**os.environ, "ROOFLINE_FUZZ_EXAMPLES": str(args.examples),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    module, default_k = (("test_output_escaping.py", "hostile_names") if args.outputs
                         else ("test_fuzz_readers.py", "damaged"))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               str(ROOT / "tests" / module), "-k", args.k or default_k,
               "--hypothesis-show-statistics"]
    print(f"command: ROOFLINE_FUZZ_EXAMPLES={args.examples} {' '.join(command)}", flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, check=False)
    print(f"{time.perf_counter() - start:.0f} s, pytest exit status {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
