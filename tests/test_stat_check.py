"""LIKWID's own STAT sums against the threads read.

Every intact sample with STAT rows must agree with itself; a copy with one
thread's value changed by 10 % must warn, naming region, metric and both
values (worked out by hand from the printed cells in the comments).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import roofline_widget
from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import StatSumMismatchWarning
from roofline_widget.io.stat_check import stat_comparisons, stat_mismatches

SAMPLES = Path(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")).parent
MEM_DP_8T = "gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt"
MPIRUN = "mpirun_clx_sonata_48ranks_CACHES_marker.txt"
# the samples with STAT tables (more than one thread) and how many STAT rows each has
WITH_STATS = {
    "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt": 34,
    "gmgpolar_skx4s_lw50_MEM_DP_compact2t_1537x2048_give.txt": 80,
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt": 80,
    "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt": 80,
    MEM_DP_8T: 80,
    MPIRUN: 104,
}


def _samples() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir()
                  if p.suffix in (".txt", ".csv") and "bench_triad" not in p.name
                  and not p.name.endswith(".stderr.txt"))


def _replace_cell(text: str, row: str, column: int, value: str) -> str:
    """``text`` with the ``column``-th value cell of the first ``|``-table row ``row`` set."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip() == row:
            offset = 3 if cells[2].strip().startswith(("FIXC", "PMC", "MBOX", "PWR")) else 2
            width = len(cells[column + offset])
            cells[column + offset] = f" {value}".rjust(width - 1) + " "
            lines[k] = "|".join(cells)
            return "\n".join(lines)
    raise AssertionError(f"no row {row!r}")


def _write(tmp_path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_warning_is_exported():
    assert "StatSumMismatchWarning" in roofline_widget.__all__
    assert issubclass(StatSumMismatchWarning, UserWarning)


@pytest.mark.parametrize("name", _samples())
def test_every_intact_sample_agrees_with_its_stat_sums(name):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        run = read_likwid(sample_path(name))
    assert not [w for w in record if issubclass(w.category, StatSumMismatchWarning)]
    assert not [m for m in run.warnings if "STAT Sum" in m]
    compared = stat_comparisons(run)
    assert len(run.stats) == WITH_STATS.get(name, 0)
    if name in WITH_STATS:
        # every printed Sum was compared (mpirun's 'Region calls' row has no thread column)
        assert len(compared) >= len(run.stats) - 1
        assert compared["agree"].all()
    assert stat_mismatches(run) == []


def test_stat_sum_of_the_dp_rate_by_hand():
    run = read_likwid(sample_path(MEM_DP_8T))
    compared = stat_comparisons(run).set_index(["region", "name"])
    # Setup DP [MFLOP/s]: 378.4044 + 335.2537 + 333.0803 + 333.1228 + 332.9475 + 331.9011
    # + 331.8538 + 331.5994 = 2708.1630, the printed STAT Sum
    row = compared.loc[("Setup", "DP [MFLOP/s]")]
    assert row["summed"] == pytest.approx(2708.1630, abs=1e-9)
    assert row["stat_sum"] == 2708.1630
    assert row["tolerance"] < 0.1


def test_a_thread_changed_by_ten_percent_warns_with_both_values(tmp_path):
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    # Setup, Core 1: 335.2537 -> 368.7791 (+10 %); the sum becomes 2708.1630 + 33.5254
    path = _write(tmp_path, "ten_percent.txt", _replace_cell(text, "DP [MFLOP/s]", 1, "368.7791"))
    with pytest.warns(StatSumMismatchWarning) as record:
        run = read_likwid(path)
    message = str(record[0].message)
    assert "region 'Setup'" in message
    assert "'DP [MFLOP/s]'" in message
    assert "2741.688" in message
    assert "2708.163" in message
    assert str(path) in message
    [mismatch] = stat_mismatches(run)
    assert (mismatch.region, mismatch.group, mismatch.name, mismatch.rank) == (
        "Setup", "MEM_DP", "DP [MFLOP/s]", 0)
    assert mismatch.summed == pytest.approx(2741.6884)
    assert mismatch.stat_sum == 2708.1630
    assert [m for m in run.warnings if "STAT Sum" in m] == [f"STAT Sum mismatch: {mismatch}"]


def test_an_event_changed_by_ten_percent_warns(tmp_path):
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    # Setup INSTR_RETIRED_ANY on Core 1: 307754900 -> 338530390
    path = _write(tmp_path, "event.txt", _replace_cell(text, "INSTR_RETIRED_ANY", 1, "338530390"))
    with pytest.warns(StatSumMismatchWarning, match="INSTR_RETIRED_ANY:FIXC0"):
        run = read_likwid(path)
    [mismatch] = stat_mismatches(run)
    # 2580904900 + 30775490
    assert mismatch.summed == 2611680390
    assert mismatch.stat_sum == 2580904900


def test_rounding_of_the_last_printed_digit_is_no_mismatch(tmp_path):
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    # one unit of the 4th decimal on one thread: within what LIKWID's rounding allows
    path = _write(tmp_path, "rounding.txt", _replace_cell(text, "DP [MFLOP/s]", 1, "335.2538"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", StatSumMismatchWarning)
        run = read_likwid(path)
    assert stat_mismatches(run) == []


def test_mpirun_stat_sums_are_over_every_rank(tmp_path):
    text = open(sample_path(MPIRUN), encoding="utf-8").read()
    run = read_likwid(sample_path(MPIRUN))
    assert len(run.ranks) == 48
    compared = stat_comparisons(run).set_index("name")
    # CPI STAT Sum 4108.7746 over the 48 ranks' threads
    assert compared.loc["CPI", "stat_sum"] == 4108.7746
    assert compared.loc["CPI", "rank"] == -1
    assert compared.loc["CPI", "summed"] == pytest.approx(4108.7746, abs=1e-6)
    # rank 1 (sonata:1:25): CPI 1.7995 -> 1.9795 (+10 %)
    path = _write(tmp_path, "mpirun.txt", _replace_cell(text, "CPI", 1, "1.9795"))
    with pytest.warns(StatSumMismatchWarning, match="'CPI'") as record:
        mutated = read_likwid(path)
    assert "region 'wr-only'" in str(record[0].message)
    [mismatch] = stat_mismatches(mutated)
    assert mismatch.rank is None
    assert mismatch.summed == pytest.approx(4108.9546)


def test_a_dash_on_a_thread_shows_in_the_stat_check(tmp_path):
    # a dropped thread ('-' where LIKWID summed a number) is caught as well
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    path = _write(tmp_path, "dash.txt", _replace_cell(text, "DP [MFLOP/s]", 3, "-"))
    with pytest.warns(StatSumMismatchWarning, match="2375.04"):
        run = read_likwid(path)
    assert np.isnan(run.table["DP [MFLOP/s]"]).sum() == 1


def test_a_log_of_two_runs_matches_each_stat_table_to_its_block(tmp_path):
    # the same regions measured twice (as a job log of two likwid-perfctr runs on other
    # cores): each STAT table sums its own block's threads, not the region's four threads
    name = "gmgpolar_skx4s_lw50_MEM_DP_compact2t_1537x2048_give.txt"
    text = open(sample_path(name), encoding="utf-8").read()
    second = text.replace("Core 0 ", "Core 20").replace("Core 1 ", "Core 21")
    path = _write(tmp_path, "two_runs.txt", text + second)
    with warnings.catch_warnings():
        warnings.simplefilter("error", StatSumMismatchWarning)
        run = read_likwid(path)
    assert run.table.groupby("region").size().tolist() == [4, 4]
    compared = stat_comparisons(run)
    assert len(compared) == 2 * 80
    assert compared["agree"].all()
