"""Several runs in one file: split where a new measurement starts, labelled, kept apart.

Samples 19 (seven LULESH problem sizes appended to one CSV log), 20 (twenty likwid-bench
repetitions under likwid-perfctr -O) and 21 (every block printed twice, identically), and logs
put together from the bundled real files the way job scripts write them (a thread-scaling
series, two implementations behind separator lines, command lines).  Expected numbers are read
off the files (and their STAT Sum rows) by hand.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from wild_samples import BENCH_REPS, LULESH_SIZES, REGIONS_TWICE, wild_text

from roofline_widget import (
    RegionSums,
    compare_points,
    left_out_regions,
    points_dataframe,
    read_likwid,
    run_chain,
    sample_path,
)
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io import as_runs
from roofline_widget.io.run_marks import RunMark
from roofline_widget.io.runs import plan_runs

LULESH = "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated"
SIZES = [30, 60, 90, 120, 150, 250, 350]
GIVE = {threads: sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{threads}t_1537x2048_give.txt")
        for threads in (1, 2, 8)}
GIVE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
TAKE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")


def _log(tmp_path: Path, name: str, parts: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("".join(parts))
    return path


def _text(path) -> str:
    return Path(path).read_text()


# ------------------------------------------------------------------ sample 19: seven sizes
def test_lulesh_log_is_seven_runs_labelled_by_problem_size():
    run = read_likwid(LULESH_SIZES)
    assert len(run.runs) == 7
    assert [r.label for r in run.runs] == [
        f"{LULESH}#{k} (Running problem size {size}^3 per domain until completion)"
        for k, size in enumerate(SIZES, start=1)]
    assert [r.run_info.number for r in run.runs] == list(range(1, 8))
    # 22 kernels, one thread, in every run; the whole file keeps all 154 rows
    assert [len(r.table) for r in run.runs] == [22] * 7
    assert len(run.table) == 154
    assert run.runs[0].regions == run.runs[6].regions
    # the first run's blocks lie between its TABLE lines 338 and 1535, the last one's from 9860
    assert (run.runs[0].run_info.first_line, run.runs[0].run_info.last_line) == (338, 1535)
    assert run.runs[6].run_info.first_line == 9860
    assert as_runs(run) == list(run.runs)


def test_lulesh_points_are_one_per_kernel_and_run():
    points = points_dataframe(LULESH_SIZES)
    assert len(points) == 154
    assert sorted(set(points["run"])) == list(range(1, 8))
    hourglass = points[points["region"] == "CalcFBHourglassForceForElems"].set_index("run")
    # run 1 (30^3), lines 550 and 558: DP [MFLOP/s] 7771.6640, Memory bandwidth 1656.6329 MB/s
    assert hourglass.loc[1, "performance_gflops"] == pytest.approx(7.771664)
    assert hourglass.loc[1, "bandwidth_gbs"] == pytest.approx(1.6566329)
    assert hourglass.loc[1, "arithmetic_intensity_flops_per_byte"] == pytest.approx(
        7771.6640 / 1656.6329)
    # run 7 (350^3), lines 10072 and 10080: 7812.2025 MFLOP/s on 5633.6970 MB/s
    assert hourglass.loc[7, "performance_gflops"] == pytest.approx(7.8122025)
    assert hourglass.loc[7, "bandwidth_gbs"] == pytest.approx(5.6336970)
    assert hourglass.loc[7, "file"] == f"{LULESH}#7 (Running problem size 350^3 per domain until completion)"


def test_lulesh_runs_form_a_chain_in_file_order():
    chain = run_chain(LULESH_SIZES)
    assert [run.run_info.number for run in chain.values()] == list(range(1, 8))
    assert list(chain)[2] == f"{LULESH}#3 (Running problem size 90^3 per domain until completion)"
    table = compare_points(chain, include="CalcFBHourglassForceForElems")
    assert list(table["step"]) == [1, 2, 3, 4, 5, 6]
    # step 6 compares 250^3 (line 8485: 7819.0950) with 350^3 (7812.2025)
    last = table.iloc[-1]
    assert last["performance_gflops_before"] == pytest.approx(7.8190950)
    assert last["performance_gflops_after"] == pytest.approx(7.8122025)


# ------------------------------------------------------------------ sample 20: twenty repetitions
def test_twenty_bench_repetitions_are_twenty_runs():
    run = read_likwid(BENCH_REPS)
    assert len(run.runs) == 20
    # the separators all say "2097152": nothing differs, the labels are numbers only
    assert run.runs[0].label == "bench_in_perfctr_O_naples_epyc7451_MEM_triad_20reps#1"
    assert {m.text for m in run.runs[0].run_info.marks if m.kind == "separator"} == {"2097152"}
    sums = RegionSums.from_runs(run)
    bandwidth = sums.frame.set_index("run")["Memory bandwidth [MBytes/s]"]
    # LIKWID's own STAT Sum rows: 125740.4056 (line 127), 125933.7735 (line 255)
    assert bandwidth[1] == pytest.approx(125740.4056, abs=24 * 5e-5)
    assert bandwidth[2] == pytest.approx(125933.7735, abs=24 * 5e-5)


# ------------------------------------------------------------------ sample 21: printed twice
def test_blocks_printed_twice_identically_are_read_once_with_a_note():
    with pytest.warns(LikwidReadWarning, match="printed again, identical to line 9"):
        run = read_likwid(REGIONS_TWICE)
    assert run.runs == ()
    assert run.regions == ["MVM", "MMM"]
    assert len(run.table) == 2
    assert [w for w in run.warnings if "printed again" in w] == [
        "line 69: region 'MVM' (group L2CACHE) is printed again, identical to line 9 (every "
        "number equal): one measurement printed twice, read once",
        "line 99: region 'MMM' (group L2CACHE) is printed again, identical to line 39 (every "
        "number equal): one measurement printed twice, read once"]
    # the numbers of the first print (line 34: L2 request rate 0.1774; line 64: 0.0463)
    assert run.table.set_index("region")["L2 request rate"].to_dict() == {"MVM": 0.1774,
                                                                         "MMM": 0.0463}


def test_a_repeat_with_other_numbers_is_a_second_run():
    lines = wild_text(REGIONS_TWICE).splitlines(keepends=True)
    assert "L2 request rate" in lines[93]
    assert "L2 request rate" in lines[123]
    lines[93] = lines[93].replace("0.1774", "0.1775")  # the second MVM block (line 94)
    lines[123] = lines[123].replace("0.0463", "0.0464")  # the second MMM block (line 124)
    # ... measured again: their cycle counts differ too (lines 81 and 111)
    assert "CPU_CLK_UNHALTED_CORE" in lines[80]
    assert "CPU_CLK_UNHALTED_CORE" in lines[110]
    lines[80] = lines[80].replace("29064", "29065")
    lines[110] = lines[110].replace("821820", "821821")
    run = read_likwid(io.BytesIO("".join(lines).encode()))
    assert [len(r.table) for r in run.runs] == [2, 2]
    rates = [r.table.set_index("region")["L2 request rate"].to_dict() for r in run.runs]
    assert rates == [{"MVM": 0.1774, "MMM": 0.0463}, {"MVM": 0.1775, "MMM": 0.0464}]


# ------------------------------------------------------------------ logs of several bundled files
def test_thread_scaling_log_is_three_runs_labelled_by_threads(tmp_path):
    log = _log(tmp_path, "scaling.txt", [_text(GIVE[t]) for t in (1, 2, 8)])
    run = read_likwid(log)
    assert [r.label for r in run.runs] == ["scaling#1 (1 thread)", "scaling#2 (2 threads)",
                                           "scaling#3 (8 threads)"]
    points = points_dataframe(log).set_index(["run", "region"])
    for number, threads in enumerate((1, 2, 8), start=1):  # each run = its own file, read alone
        alone = points_dataframe(GIVE[threads]).set_index("region")
        for column in ("performance_gflops", "bandwidth_gbs", "n_threads"):
            assert points.loc[(number, "Solve"), column] == alone.loc["Solve", column]
    # Solve on 8 threads: the STAT Sum rows of the 8-thread file (lines 205, 213)
    assert points.loc[(3, "Solve"), "performance_gflops"] == pytest.approx(8.6214700)
    assert points.loc[(3, "Solve"), "bandwidth_gbs"] == pytest.approx(3.2509677)
    # 1 thread, lines 109 and 117: 1253.7118 MFLOP/s, 444.7203 MB/s
    assert points.loc[(1, "Solve"), "performance_gflops"] == pytest.approx(1.2537118)


def test_separator_lines_label_the_runs(tmp_path):
    log = _log(tmp_path, "give_take.txt", [
        "#" * 30 + " give " + "#" * 30 + "\n", _text(GIVE_4T),
        "#" * 30 + " take " + "#" * 30 + "\n", _text(TAKE_4T)])
    run = read_likwid(log)
    assert [r.label for r in run.runs] == ["give_take#1 (give)", "give_take#2 (take)"]
    assert run.runs[1].run_info.marks[0] == RunMark(
        len(_text(GIVE_4T).splitlines()) + 2, "separator", "take")


def test_command_lines_label_the_runs(tmp_path):
    commands = ["$ likwid-perfctr -C S0:0-3 -g MEM_DP -m ./gmgpolar --variant give\n",
                "$ likwid-perfctr -C S0:0-3 -g MEM_DP -m ./gmgpolar --variant take\n"]
    log = _log(tmp_path, "commands.txt", [commands[0], _text(GIVE_4T), commands[1],
                                          _text(TAKE_4T)])
    labels = [r.label for r in read_likwid(log).runs]
    # the commands are too long for a label: the words that differ, and the one before
    assert labels == ["commands#1 (--variant give)", "commands#2 (--variant take)"]


def test_two_groups_of_one_job_in_one_log_stay_one_run():
    # pmgpu: a MEM_DP run, then a FLOPS_DP run of the same regions, two CPU headers: one job
    run = read_likwid(PMGPU)
    assert run.runs == ()
    assert run.groups == ["MEM_DP", "FLOPS_DP"]


def test_left_out_rows_name_their_run(tmp_path):
    text = _text(GIVE[1])
    row = "|    Memory bandwidth [MBytes/s]    |  444.7203 |"
    assert row in text
    # another measurement whose Solve bandwidth was not measured
    second = _remeasured(text).replace(row, row.replace(" 444.7203", "        -"))
    log = _log(tmp_path, "again.txt", [text, second])
    with pytest.warns(UserWarning, match="left out"):
        points = points_dataframe(log)
    assert sorted(zip(points["run"], points["region"])) == [
        (1, "Setup"), (1, "Solve"), (2, "Setup")]
    left = left_out_regions(log)
    assert list(zip(left["file"], left["run"], left["region"])) == [("again#2", 2, "Solve")]
    assert "not measured" in left["reason"].iloc[0]


# ------------------------------------------------------------------ joining files of several runs
def _pmgpu_groups() -> tuple[str, str]:
    """The slurm log's MEM_DP run and its FLOPS_DP run (each starts with its INFO line)."""
    lines = Path(PMGPU).read_text().splitlines(keepends=True)
    assert lines[178].startswith("INFO: You are running LIKWID")
    return "".join(lines[:178]), "".join(lines[178:])


def _remeasured(text: str) -> str:
    """The text as another measurement would print it: every region's runtimes and clock
    counts one in the last digit later (on the first thread).

    (A block printed again with every number equal is one measurement printed twice; an Event
    or Metric table equal to another region's is a damaged file.)
    """
    def later(match: re.Match) -> str:
        number = match[2]
        return match[1] + number[:-1] + str((int(number[-1]) + 1) % 10) + match[3]

    rows = r"RDTSC Runtime \[s\]|Runtime \(RDTSC\) \[s\]|\w*CLOCK\w*|\w*CLK\w*"
    pattern = rf"(\|\s*(?:{rows})\s*\|(?:\s*\w+\s*\|)?\s*)([0-9.]+)( \|)"
    changed, count = re.subn(pattern, later, text)
    assert count >= 6
    return changed


def test_files_of_several_runs_are_joined_run_by_run(tmp_path):
    mem, flops = _pmgpu_groups()
    # line 139, <function_a> in the MEM_DP group: DP [MFLOP/s] 2134.1472; 2000.0000 in run 2
    assert mem.count(" 2134.1472 ") == 1
    mem_log = _log(tmp_path, "mem.txt", [mem, _remeasured(mem).replace(" 2134.1472 ", " 2000.0000 ")])
    flops_log = _log(tmp_path, "flops.txt", [flops, _remeasured(flops)])
    joined = read_likwid([mem_log, flops_log], label="job")
    assert [r.label for r in joined.runs] == ["job#1", "job#2"]
    assert [r.groups for r in joined.runs] == [["MEM_DP", "FLOPS_DP"]] * 2
    points = points_dataframe(joined).set_index(["run", "region"])
    assert len(points) == 10  # 5 regions x 2 runs
    # the DP rate of the MEM_DP group (first in file order) in each run
    assert points.loc[(1, "<function_a>"), "performance_gflops"] == pytest.approx(2.1341472)
    assert points.loc[(2, "<function_a>"), "performance_gflops"] == pytest.approx(2.0)
    assert set(points["groups"]) == {"MEM_DP+FLOPS_DP"}


def test_files_of_different_numbers_of_runs_are_not_joined(tmp_path):
    mem, flops = _pmgpu_groups()
    mem_log = _log(tmp_path, "mem.txt", [mem, _remeasured(mem)])
    flops_log = _log(tmp_path, "flops.txt", [flops])
    with pytest.raises(LikwidFormatError, match="the same number of runs") as info:
        read_likwid([mem_log, flops_log])
    assert "they hold 2 run(s) in mem.txt, 1 run(s) in flops.txt" in str(info.value)


# ------------------------------------------------------------------ the planning rules
def test_plan_without_repeats_is_one_run():
    from roofline_widget.io.likwid_text import parse_text

    parsed = parse_text(_text(GIVE_4T), "give.txt")
    plan = plan_runs(parsed.blocks, parsed.marks)
    assert plan.bounds == [(0, 2)]
    assert plan.infos == []
    assert plan.notes == []


def test_plan_splits_at_the_segment_start_not_at_the_repeated_block(tmp_path):
    # run 2 starts (after its CPU header) with a region run 1 does not have: it belongs to run 2
    mem, _ = _pmgpu_groups()
    regions = ["<init_datastructures>", "<function_d>", "<function_b>", "<function_a>",
               "<function_c>"]
    second = _remeasured(mem).replace("Region <init_datastructures>,", "Region <warmup>,", 1)
    run = read_likwid(_log(tmp_path, "shifted.txt", [mem, second]))
    assert [r.regions for r in run.runs] == [regions, ["<warmup>", *regions[1:]]]
    np.testing.assert_array_equal(run.runs[1].table["rank"], 0)


def test_tables_under_another_regions_header_are_an_error():
    # Lines 70-99 of sample 21 (the second MVM block's tables, then "Region MMM, ...") printed
    # twice: MVM's tables stand under a "Region MMM" header.  No two regions count the same
    # cycles and runtimes: refused, never a point for MMM with MVM's numbers (a fuzz finding).
    lines = wild_text(REGIONS_TWICE).splitlines(keepends=True)
    assert lines[98].startswith("Region MMM, Group 1: L2CACHE")
    damaged = "".join(lines[:99] + lines[69:99] + lines[99:])
    with pytest.raises(LikwidFormatError, match="holds every number of region 'MVM'") as info:
        read_likwid(io.BytesIO(damaged.encode()))
    assert info.value.line == 99  # the "Region MMM" header above MVM's tables


def test_a_metric_table_under_another_regions_table_line_is_an_error():
    # Sample 19, lines 10576-10632 printed twice (a fuzz finding): the CSV line
    # "TABLE,Region CalcPressureForElems,Group 1 Metric" (10632) is followed by the copy of
    # CalcEnergyForElems:KERNEL_1's Metric rows.  Their numbers are KERNEL_1's: refused.
    lines = wild_text(LULESH_SIZES).splitlines(keepends=True)
    assert lines[10631].startswith("TABLE,Region CalcPressureForElems,Group 1 Metric")
    assert lines[10574].startswith("TABLE,Region CalcEnergyForElems:KERNEL_1,Group 1 Metric")
    damaged = "".join(lines[:10632] + lines[10575:10632] + lines[10632:])
    with pytest.raises(LikwidFormatError, match=r"Metric table of region 'CalcPressureForElems'"
                                                r".*holds every number of region "
                                                r"'CalcEnergyForElems:KERNEL_1'"):
        read_likwid(io.BytesIO(damaged.encode()))


def test_a_table_with_another_tables_rows_among_its_own_is_an_error():
    # Sample 19, lines 542-599 printed twice (a fuzz finding): CalcAccelerationForNodes' Metric
    # table (TABLE line 597) gets CalcFBHourglassForceForElems' 20 metric rows after its first
    # row; "Runtime (RDTSC) [s]" is printed twice in it: refused, not the later value.
    lines = wild_text(LULESH_SIZES).splitlines(keepends=True)
    assert lines[596].startswith("TABLE,Region CalcAccelerationForNodes,Group 1 Metric")
    damaged = "".join(lines[:599] + lines[541:599] + lines[599:])
    with pytest.raises(LikwidFormatError, match=r"each row of the Metric table of region "
                                                r"'CalcAccelerationForNodes' once, found "
                                                r"\"'Runtime \(RDTSC\) \[s\]' twice\""):
        read_likwid(io.BytesIO(damaged.encode()))


def test_a_repeat_with_the_same_counts_but_other_metrics_is_an_error():
    # Sample 19, lines 1959-2015 printed twice (a fuzz finding): a 57-line span, one block
    # long, so that IntegrateStressForElems' Metric table (run 2) reads its first rows and the
    # last rows of the block before it, as many as it declares.  The second copy of the block
    # has the same counts and its own metrics: the first one's metrics are not its counts'.
    lines = wild_text(LULESH_SIZES).splitlines(keepends=True)
    damaged = "".join(lines[:2015] + lines[1958:2015] + lines[2015:])
    with pytest.raises(LikwidFormatError, match="printed again with the metrics of its counts"):
        read_likwid(io.BytesIO(damaged.encode()))
