"""Render rocprof-compute files for the tests: sample R2's dispatch with some counters changed.

Sample R2 (``roofline_widget/data/rocprof/mi200_dispatch0_pmc_perf.csv``) is a copy kernel: every
FLOP counter reads 0.  :func:`pmc_perf` writes the same header and row with chosen counters
replaced (a kernel that does FP64 FMAs, say) or more rows appended, read and written with the
csv module alone, never with the package's reader; :func:`workload` puts such a file and
sample R3's ``sysinfo.csv`` (and sample R1's ``roofline.csv``) into a workload folder.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

from roofline_widget import sample_path

R2 = "rocprof/mi200_dispatch0_pmc_perf.csv"
R3 = "rocprof/mi200_dispatch0_sysinfo.csv"
R1 = "rocprof/mi200_dispatch0_roofline.csv"


def r2_rows() -> tuple[list[str], list[list[str]]]:
    """Sample R2's header and rows, as the csv module reads them."""
    with open(sample_path(R2), newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def pmc_perf(*dispatches: dict[str, str]) -> str:
    """A pmc_perf.csv text: one row per dict, R2's row with the dict's columns replaced."""
    header, rows = r2_rows()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for changes in dispatches or ({},):
        unknown = set(changes) - set(header)
        if unknown:
            raise KeyError(f"R2 has no column {sorted(unknown)}")
        writer.writerow([changes.get(name, value) for name, value in zip(header, rows[0])])
    return out.getvalue()


def workload(folder: Path, *dispatches: dict[str, str], roofline: bool = False) -> Path:
    """A workload folder with :func:`pmc_perf` of ``dispatches`` and sample R3's sysinfo.csv
    (and, with ``roofline=True``, sample R1 as its roofline.csv)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pmc_perf.csv").write_text(pmc_perf(*dispatches), encoding="utf-8")
    shutil.copyfile(sample_path(R3), folder / "sysinfo.csv")
    if roofline:
        shutil.copyfile(sample_path(R1), folder / "roofline.csv")
    return folder


def roofline_row(device: str = "0") -> dict[str, float]:
    """Sample R1's ceilings of one GPU, as the csv module reads them (GB/s, GFLOP/s)."""
    with open(sample_path(R1), newline="", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["device"] == device)
    return {name: float(value) for name, value in row.items() if name != "device"}
