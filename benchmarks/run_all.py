"""Run every benchmark in turn and print their tables.

Usage::

    python benchmarks/run_all.py            # the default runs (a few minutes each)
    python benchmarks/run_all.py --quick    # smoke run of every script

Each script is started as its own process (so that one's memory does not
weigh on the next) with the same ``--quick`` flag.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = ("bench_collect.py", "bench_passes.py", "bench_widget.py", "bench_read.py",
           "bench_scaling.py")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    here = Path(__file__).resolve().parent
    for script in SCRIPTS:
        print(f"\n{'=' * 30} {script} {'=' * 30}", flush=True)
        subprocess.run([sys.executable, str(here / script), *argv], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
