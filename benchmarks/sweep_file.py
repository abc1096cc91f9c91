"""An 18-run sweep of 22 kernels in one log, made of a real LULESH file (for the benchmarks).

Sample 19 (``tests/data/lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv``:
seven LULESH runs, problem sizes 30^3 ... 350^3, appended to one
likwid-perfctr ``-O`` log, 22 kernels on one hardware thread each) is cut at
its runs (each starts with the program's banner, a rule and
``CPU name:<tab>``), and the runs are appended again in turn until the log
holds ``runs`` of them; run ``k`` says ``Running problem size <10 k>^3`` so
that every run has its own label.  Its numbers are the sample's, unchanged:
run ``k`` is the sample's run ``(k - 1) % 7 + 1``.  18 runs x 22 kernels are
the 396 points of issue 33's sweep.
"""

from __future__ import annotations

import re
from pathlib import Path

LULESH = (Path(__file__).resolve().parent.parent / "tests" / "data"
          / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv")
_BANNER = re.compile(r"^CPU name:\t", re.M)
_SIZE = re.compile(r"^Running problem size [0-9]+\^3", re.M)


def sample_runs(path: Path = LULESH) -> list[str]:
    """The sample's runs as text, each from the rule above its banner to the next one's."""
    text = path.read_text()
    starts = [text.rfind("\n", 0, match.start() - 1) + 1 for match in _BANNER.finditer(text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]


def write_sweep(directory: Path, runs: int = 18, name: str = "lulesh_sweep.csv") -> Path:
    """Write the sweep of ``runs`` runs into ``directory``; return its path."""
    blocks = sample_runs()
    parts = [_SIZE.sub(f"Running problem size {10 * (k + 1)}^3", blocks[k % len(blocks)], count=1)
             for k in range(runs)]
    path = Path(directory) / name
    path.write_text("".join(parts))
    return path
