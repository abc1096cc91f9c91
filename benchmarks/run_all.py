"""Run every benchmark in turn and print their tables.

Usage::

    python benchmarks/run_all.py            # the default runs (a few minutes each)
    python benchmarks/run_all.py --quick    # smoke run of every script

Each script is started as its own process (so that one's memory does not
weigh on the next) with the same ``--quick`` flag.  Before and after each
script the load average (``/proc/loadavg``) is printed, since other jobs on
the machine change the timings; at the start and the end, the commit and any
uncommitted change under ``roofline_widget/`` (the code being measured).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = ("bench_collect.py", "bench_passes.py", "bench_widget.py", "bench_read.py",
           "bench_memory.py", "bench_scaling.py", "bench_ranks_build.py")
ROOT = Path(__file__).resolve().parent.parent


def load_average() -> str:
    """The 1, 5 and 15 minute load averages from ``/proc/loadavg``."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def code_state() -> str:
    """Short commit of the checkout and the uncommitted changes of the measured package."""
    def git(*args):
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else "unknown"

    changes = git("status", "--short", "--", "roofline_widget")
    return f"commit {git('rev-parse', '--short', 'HEAD')}, roofline_widget/: " + (
        "no uncommitted change" if not changes else "UNCOMMITTED " + changes.replace("\n", "; "))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    here = Path(__file__).resolve().parent
    print(f"start: {code_state()}", flush=True)
    for script in SCRIPTS:
        print(f"\n{'=' * 30} {script} {'=' * 30}", flush=True)
        print(f"load average before (1, 5, 15 min): {load_average()}", flush=True)
        done = subprocess.run([sys.executable, str(here / script), *argv], check=False)
        print(f"load average after (1, 5, 15 min): {load_average()}", flush=True)
        if done.returncode:
            print(f"{script} FAILED with exit code {done.returncode}", flush=True)
    print(f"\nend: {code_state()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
