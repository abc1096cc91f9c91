"""A sweep appended to one log, read and summed fast, gives the file's numbers (issue 33).

Sample 19 (``tests/data/lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv``, a copy of
``/work/shared/samples/likwid/``): seven LULESH runs (problem sizes 30^3 ... 350^3) appended to
one likwid-perfctr ``-O`` log, 22 kernels each on ONE hardware thread, so a point's sum over
threads is the one value the file prints.  Worked out by hand from the file, run 3 (its banner
on line 3176, ``Running problem size 90^3``), kernel ``CalcFBHourglassForceForElems``:

* line 3724: ``DP [MFLOP/s],7551.3941``  -> 7.5513941 GFLOP/s;
* line 3732: ``Memory bandwidth [MBytes/s],5177.2395`` -> 5.1772395 GB/s;
* arithmetic intensity 7551.3941 / 5177.2395 = 1.458574... FLOP/byte.

The fast paths these tests pin: the runs' repeated-row check done for all runs at once on
integer codes, a piece's lines decoded at once and a table's rows taken in one scan, a run's
sums kept as arrays (the DataFrame built only when asked for), the sorted categories of a set
of region names reused between runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from roofline_widget import read_likwid
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.csv_tables import CsvLines
from roofline_widget.io.key_codes import sorted_categorical
from roofline_widget.io.lines import Piece
from roofline_widget.io.parsed import check_unique_rows
from roofline_widget.look.colors import PALETTE
from roofline_widget.points.engines.run import RunSource, cached_run_frame
from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selection import Selection
from roofline_widget.scene.parts import Coloring
from roofline_widget.scene.sweep import runs_sweep
from roofline_widget.schema import SOURCE_KEYS

LULESH = Path(__file__).parent / "data" / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv"
KERNEL = "CalcFBHourglassForceForElems"
KEYS = ["source", "rank", "region", "group", "thread"]


@pytest.fixture(scope="module")
def sweep():
    return read_likwid(LULESH)


def test_every_run_summed_as_the_file_prints_it(sweep):
    assert len(sweep.runs) == 7
    points = RegionSums.from_runs(list(sweep.runs)).select(Selection()).points
    assert len(points) == 7 * 22
    row = points[(points["run"] == 3) & (points["region"] == KERNEL)]
    assert len(row) == 1
    assert row["performance_gflops"].iloc[0] == pytest.approx(7.5513941, rel=1e-12)
    assert row["bandwidth_gbs"].iloc[0] == pytest.approx(5.1772395, rel=1e-12)
    assert row["arithmetic_intensity_flops_per_byte"].iloc[0] == pytest.approx(
        7551.3941 / 5177.2395, rel=1e-12)
    assert row["n_threads"].iloc[0] == 1
    # one thread: the largest thread is the sum
    assert row["thread_max_gflops"].iloc[0] == row["performance_gflops"].iloc[0]


def test_the_sweep_paths_hold_the_same_numbers(sweep):
    part = runs_sweep(sweep.runs, Selection(), Coloring("region", (), PALETTE))
    rows = part.frame[part.frame["region"] == KERNEL].sort_values("sweep_step")
    assert rows["sweep_step"].tolist() == list(range(7))
    # run 1 (line 550) and run 3 (line 3724) of the file, MFLOP/s -> GFLOP/s
    assert rows["performance_gflops"].iloc[0] == pytest.approx(7.7716640, rel=1e-12)
    assert rows["performance_gflops"].iloc[2] == pytest.approx(7.5513941, rel=1e-12)
    assert rows["bandwidth_gbs"].iloc[0] == pytest.approx(1.6566329, rel=1e-12)


def test_a_runs_arrays_and_its_frame_agree(sweep):
    run = sweep.runs[2]
    source = RunSource(run)
    frame = cached_run_frame(run)
    assert list(frame.columns) == [*SOURCE_KEYS, *run.metric_names]
    assert frame["region"].dtype == object
    assert frame["device"].dtype == object
    assert pd.api.types.is_string_dtype(frame["groups"].dtype)
    assert len(source) == len(frame) == 22
    for metric in run.metric_names:
        np.testing.assert_array_equal(source.sums(metric), frame[metric].to_numpy(dtype=float))
    kernel = np.asarray(source.keys["region"]) == KERNEL
    assert source.sums("DP [MFLOP/s]")[kernel].tolist() == [7551.3941]
    assert frame.loc[frame["region"] == KERNEL, "Memory bandwidth [MBytes/s]"].tolist() == [5177.2395]


def test_runs_checked_for_repeated_rows_in_one_pass(sweep):
    table = sweep.table  # every run's rows: each run repeats the kernels of the one before
    sizes = [len(run.table) for run in sweep.runs]
    codes = np.repeat(np.arange(len(sizes)), sizes)
    check_unique_rows(table, KEYS, "each row once in a run", "log", within=codes)  # no error
    second = int(sweep.runs[1].table["line"].iloc[0])  # run 2's first row repeats run 1's
    assert second > 1589  # run 2's banner
    with pytest.raises(LikwidFormatError) as raised:
        check_unique_rows(table, KEYS, "each row once in a run", "log")
    assert raised.value.line == second
    # a repeat inside a run is named at its row (run 5 given run 4's code)
    joined = codes.copy()
    joined[joined == 4] = 3
    fifth = int(sweep.runs[4].table["line"].iloc[0])
    with pytest.raises(LikwidFormatError) as raised:
        check_unique_rows(table, KEYS, "each row once in a run", "log", within=joined)
    assert raised.value.line == fifth


def test_lines_decoded_at_once_are_the_lines_decoded_one_by_one():
    data = LULESH.read_bytes()[:20000]
    data = data[:data.rfind(b"\n") + 1] + b"tail without newline"
    piece = Piece(data)
    assert [piece.line(k) for k in range(piece.count)] == \
        [data[a:b].decode("utf-8") for a, b in zip(piece.starts, piece.ends)]
    assert piece.line(piece.count - 1) == "tail without newline"
    broken = Piece(b"a,1\n\xff,2\n")  # not UTF-8: only the line read raises
    assert broken.line(0) == "a,1"
    with pytest.raises(UnicodeDecodeError):
        broken.line(1)


def test_a_tables_rows_end_at_the_next_block_or_ask_for_the_next_piece():
    text = b"TABLE,x\n1,2\n3,4\n\nTABLE,y\n5,6\n"
    lines = CsvLines(Piece(text), cut_last_line=False)
    assert lines.rows_from(1) == ["1,2", "3,4"]
    assert lines.rows_from(5) == ["5,6"]
    assert lines.rows_from(6) == []
    unfinished = CsvLines(Piece(b"TABLE,x\n1,2\n3,4\n", last=False), cut_last_line=False)
    with pytest.raises(EOFError):  # the table may go on in the next piece
        unfinished.rows_from(1)


def test_sorted_categories_reused_only_for_the_same_values():
    regions = np.array(["b", "a", "c"], dtype=object)
    first = sorted_categorical(np.array([0, 1, 1]), regions)
    again = sorted_categorical(np.array([1, 0]), regions.copy())
    assert list(first) == ["b", "a", "a"]
    assert list(first.categories) == ["a", "b"]
    assert list(again) == ["a", "b"]
    assert again.dtype == first.dtype
    # 2 == 2.0 (the same hash): the values' types keep their categories apart
    numbers = sorted_categorical(np.array([0, 1]), np.array([2, 1], dtype=object))
    floats = sorted_categorical(np.array([0, 1]), np.array([2.0, 1.0], dtype=object))
    assert list(numbers.categories) == [1, 2]
    assert list(floats.categories) == [1.0, 2.0]
    assert pd.api.types.is_integer_dtype(numbers.categories.dtype)
    assert pd.api.types.is_float_dtype(floats.categories.dtype)
