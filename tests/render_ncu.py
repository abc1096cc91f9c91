"""Render Nsight Compute CSV exports for the tests: the raw page of sample N1's numbers, and small exports.

Sample N1 (``roofline_widget/data/ncu/``) is a real details-page export
(``ncu --csv``: one row per launch and metric).  :func:`render_raw` writes the
same launches and values as ``ncu --csv --page raw`` lays them out: one row
per launch, one column per metric, a units row under the header, one table
per profiling pass (each pass a separate ``ncu`` run, so a separate file, or
two tables in one file when concatenated).  The rows are read here with the
csv module alone, never with the package's reader, so that the reader is
checked against an independent rendering.

:func:`details` writes a details-page export from ``(launch, kernel, metric,
unit, value)`` tuples, for exports no sample holds (L2 and L1 bytes, peaks,
bad input).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from roofline_widget import sample_path

N1 = "ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"
#: The columns of the raw page before the metrics (ncu 2020, like sample N1's details page).
RAW_KEYS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
            "Context", "Stream")
DETAILS_HEADER = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
                  "Context", "Stream", "Section Name", "Metric Name", "Metric Unit", "Metric Value")
#: Scaled units as ncu prints them by default, with the factor from the base unit.
SCALED = {"byte": ("Mbyte", 1e6), "cycle/second": ("cycle/nsecond", 1e9), "inst": ("Kinst", 1e3),
          "cycle": ("Kcycle", 1e3)}


def n1_rows() -> list[dict[str, str]]:
    """Sample N1's rows, as the csv module reads them."""
    with open(sample_path(N1), newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _line(cells: Iterable[str]) -> str:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(list(cells))
    return out.getvalue()


def _scaled(text: str, unit: str) -> tuple[str, str]:
    if unit not in SCALED:
        return text, unit
    scaled_unit, factor = SCALED[unit]
    return repr(float(text.replace(",", "")) / factor), scaled_unit


def render_raw(rows: list[dict[str, str]], pid: str, *, scale: bool = False) -> str:
    """The raw-page table of one profiling pass (one ``Process ID``) of ``rows``.

    With ``scale=True`` bytes, cycles, instructions and clocks are printed in
    ncu's scaled units (``Mbyte``, ``Kcycle``, ``Kinst``, ``cycle/nsecond``).
    """
    mine = [row for row in rows if row["Process ID"] == pid]
    metrics = list(dict.fromkeys(row["Metric Name"] for row in mine))
    units = {row["Metric Name"]: row["Metric Unit"] for row in mine}
    launches: dict[str, dict[str, str]] = {}
    for row in mine:
        launch = launches.setdefault(row["ID"], {key: row[key] for key in RAW_KEYS})
        value, _ = _scaled(row["Metric Value"], row["Metric Unit"]) if scale else \
            (row["Metric Value"], None)
        launch[row["Metric Name"]] = value
    unit_cells = [_scaled("0", units[m])[1] if scale else units[m] for m in metrics]
    text = _line([*RAW_KEYS, *metrics]) + _line([""] * len(RAW_KEYS) + unit_cells)
    for launch in launches.values():
        text += _line([*(launch[key] for key in RAW_KEYS), *(launch[m] for m in metrics)])
    return text


def n1_passes() -> list[str]:
    """The process ids of sample N1's two passes, in file order."""
    return list(dict.fromkeys(row["Process ID"] for row in n1_rows()))


def write_raw_passes(folder: Path, *, scale: bool = False) -> list[Path]:
    """Sample N1 as two raw-page files, one per pass; returns their paths."""
    rows = n1_rows()
    paths = []
    for number, pid in enumerate(n1_passes(), start=1):
        path = folder / f"n1_raw_pass{number}.csv"
        path.write_text(render_raw(rows, pid, scale=scale), encoding="utf-8")
        paths.append(path)
    return paths


def details(rows: Iterable[tuple], *, pid: str = "4242", host: str = "nid001",
            header: Iterable[str] = DETAILS_HEADER) -> str:
    """A details-page export of ``(launch, kernel, metric, unit, value)`` rows (one process)."""
    text = "==PROF== Connected to process 4242 (./app)\n" + _line(header)
    for launch, kernel, metric, unit, value in rows:
        text += _line([str(launch), pid, "app", host, kernel, "2024-Jan-01 00:00:00", "1", "7",
                       "Command line profiler metrics", metric, unit, value])
    return text
