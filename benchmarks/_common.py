"""Helpers shared by the benchmark scripts: timing, tables, subprocesses, data.

The benchmarks are scripts, not tests: they print tables and exit 0.  Timings
are medians of interleaved repetitions (ours, reference, ours, ...) in one
process, so that both sides see the same machine noise.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))      # scope_fixtures
sys.path.insert(0, str(ROOT))                # roofline_widget from this checkout

#: The metrics both implementations are given explicitly (same choice on both sides).
FLOPS = "DP [MFLOP/s]"
BANDWIDTH = "Memory bandwidth [MBytes/s]"


def timed(function, *args, **keywords) -> tuple[float, object]:
    """Seconds one call takes (garbage collected before; the collector stays on), and its result."""
    gc.collect()
    start = time.perf_counter()
    result = function(*args, **keywords)
    return time.perf_counter() - start, result


def median(values) -> float:
    return statistics.median(values)


def shown(seconds: float) -> float:
    """``seconds`` rounded as :func:`ms` prints it.

    Ratios and per-region figures are computed from these values, so that a
    printed speed-up is the quotient of the printed times.
    """
    if seconds >= 10:
        return round(seconds, 1)
    return round(seconds * 1e3, 2 if seconds < 0.01 else 1) / 1e3


def ms(seconds: float) -> str:
    """``1.23 ms`` below 10 ms, ``12.3 ms`` below 10 s, else ``12.3 s``."""
    if seconds >= 10:
        return f"{seconds:,.1f} s"
    return f"{seconds * 1e3:,.2f} ms" if seconds < 0.01 else f"{seconds * 1e3:,.1f} ms"


def print_table(title: str, header: list, rows: list) -> None:
    """Print a plain-text table (right-aligned columns, first column left)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths)))

    print(f"\n{title}")
    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def verdict(value: float, target: float, higher_is_better: bool) -> str:
    ok = value >= target if higher_is_better else value <= target
    return "MET" if ok else "MISSED"


def _status_mb(field: str) -> float:
    """One ``kB`` field of /proc/self/status (``VmHWM``, ``VmRSS``) in MB."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    """Peak resident set size of this process (VmHWM) in MB."""
    return _status_mb("VmHWM")


def current_rss_mb() -> float:
    return _status_mb("VmRSS")


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux ``clear_refs`` 5); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def run_json_subprocess(script: Path, *args: str, timeout: float = 900) -> dict:
    """Run ``python script args...`` and parse the JSON object it prints last."""
    env = dict(os.environ)
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                         timeout=timeout, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{script.name} {' '.join(args)} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_results(n_ranks: int, n_regions: int, n_threads: int, n_metrics: int = 20,
                 seed: int = 1):
    """scope-profiler ``ProfilingResults`` built in memory by ``tests/scope_fixtures.py``."""
    from scope_fixtures import make_profiling_results

    return make_profiling_results(n_ranks=n_ranks, n_regions=n_regions, n_threads=n_threads,
                                  n_metrics=n_metrics, seed=seed, file_path="bench.h5")


def warm_up() -> None:
    """Call both ``collect_roofline_points`` once on tiny results, untimed.

    The first call in a process pays one-time costs (lazy imports, first use
    of pandas and numpy paths: about 20 ms against 4 ms for a later call at
    8 x 100 x 8), which belong to neither side's per-call cost.
    """
    from scope_profiler.plotting_scripts.roofline import collect_roofline_points as reference

    from roofline_widget.points import collect_roofline_points as ours

    results = make_results(2, 10, 2)
    for function in (ours, reference):
        function(results, flops_metric=FLOPS, bandwidth_metric=BANDWIDTH)


def quiet():
    """Silence the RegionsLeftOutWarning/MetricChoiceWarning of our functions."""
    warnings.simplefilter("ignore")


def command_line() -> str:
    return " ".join([Path(sys.executable).as_posix(), *sys.argv])


def load_average() -> str:
    """The 1, 5 and 15 minute load averages of the machine, as /proc/loadavg prints them."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def side_by_side_arguments(parser, rounds: int) -> None:
    """The options of a benchmark that measures this tree beside ``--base`` and jupyter-scatter."""
    parser.add_argument("--base", type=Path, help="the tree to compare with (e.g. /tmp/before)")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--points", type=int, default=50_000, help="a multiple of 8")
    parser.add_argument("--no-peer", action="store_true", help="leave jupyter-scatter out")


def has_jscatter() -> bool:
    """Whether jupyter-scatter (the ``bench`` extra) is installed."""
    try:
        import jscatter  # noqa: F401
    except ImportError:
        return False
    return True
