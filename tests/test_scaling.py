"""scaling_table: per region and run what differs, runtime, speed-up, parallel efficiency, GFLOP/s.

Numbers by hand from the runtimes the files print (the ``RDTSC Runtime [s]`` of the Region Info
table, the largest over a region's threads):

- sample 17 (gmgpolar ``Solve``, compact pinning): 134.782900 s on 1 thread, 69.458620 s on 2,
  19.599840 s on 8; DP 1253.7118, 2432.8082 (STAT Sum), 8621.4700 MFLOP/s;
- sample 19 (LULESH ``CalcFBHourglassForceForElems``, one thread, sizes 30^3 ... 350^3):
  0.858814 s at 7771.6640 MFLOP/s (30^3), 7.030148 s at 7595.1758 (60^3), 1356.685000 s at
  7812.2025 (350^3);
- the generated sweep (``study_files.py``): CalcKinematics of case sedov 42.04 s on 1 thread,
  12.37 s on 18.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from study_files import CASES, GMGPOLAR_THREADS, THREADS, runtime
from wild_samples import LULESH_SIZES

from roofline_widget import points_dataframe, read_likwid, scaling_table
from roofline_widget.analysis.study_keys import study_keys

GMGPOLAR = list(GMGPOLAR_THREADS)
HOURGLASS = "CalcFBHourglassForceForElems"


@pytest.fixture(scope="module")
def sweep(sweep_file):
    return read_likwid(sweep_file)


def _rows(table: pd.DataFrame, **where) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        mask &= (table[column] == value).to_numpy()
    return table[mask].reset_index(drop=True)


def test_a_thread_sweep_of_three_files_by_hand():
    table = scaling_table(GMGPOLAR)
    assert set(table["varies"]) == {"threads"}
    assert set(table["group"]) == {""}
    solve = _rows(table, region="Solve")
    assert solve["threads"].tolist() == [1, 2, 8]
    assert solve["ranks"].tolist() == [1, 1, 1]
    assert solve["size"].tolist() == [None] * 3  # the labels differ in 'compact1t' only
    assert solve["runtime_seconds"].tolist() == [134.7829, 69.45862, 19.59984]
    # 134.7829 / 69.45862 = 1.94048, / 2 = 97.0 %; 134.7829 / 19.59984 = 6.87674, / 8 = 86.0 %
    assert solve["speedup"].tolist() == pytest.approx(
        [1.0, 134.7829 / 69.45862, 134.7829 / 19.59984], rel=1e-12)
    assert solve["speedup"].round(3).tolist() == [1.0, 1.94, 6.877]
    assert solve["efficiency"].round(3).tolist() == [1.0, 0.970, 0.860]
    assert solve["performance_gflops"].tolist() == pytest.approx([1.2537118, 2.4328082, 8.62147])
    assert (solve["baseline"] == solve["file"].iloc[0]).all()
    assert (solve["note"] == "").all()  # the same work: 169.0 GFLOP each, within 25 %
    assert solve["work_ratio"].tolist() == pytest.approx(
        [1.0, 2.4328082 * 69.45862 / (1.2537118 * 134.7829),
         8.62147 * 19.59984 / (1.2537118 * 134.7829)])
    # Setup: 0.805947 -> 0.496629 -> 0.263811 s
    setup = _rows(table, region="Setup")
    assert setup["speedup"].tolist() == pytest.approx(
        [1.0, 0.805947 / 0.496629, 0.805947 / 0.263811], rel=1e-12)  # 1.623, 3.055
    assert setup["efficiency"].round(3).tolist() == [1.0, 0.811, 0.382]


def test_seven_problem_sizes_compare_different_work(tmp_path):
    table = scaling_table(LULESH_SIZES)
    assert set(table["varies"]) == {"size"}
    assert len(table) == 22 * 7
    hourglass = _rows(table, region=HOURGLASS)
    assert hourglass["size"].tolist() == ["30^3", "60^3", "90^3", "120^3", "150^3", "250^3",
                                          "350^3"]
    assert hourglass["threads"].tolist() == [1] * 7
    assert hourglass.loc[1, "speedup"] == pytest.approx(0.858814 / 7.030148)
    assert hourglass.loc[1, "note"] == ("speed-up compares different work (size 30^3 -> 60^3): "
                                        "compare GFLOP/s")
    assert hourglass.loc[0, "note"] == ""
    assert hourglass["efficiency"].isna().all()  # no parallel efficiency between sizes
    assert hourglass["performance_gflops"].tolist()[::6] == pytest.approx([7.771664, 7.8122025])
    # the work grows with the cube of the size: (60 / 30)^3 = 8, (350 / 30)^3 = 1587.96
    assert hourglass.loc[1, "work_ratio"] == pytest.approx(7.5951758 * 7.030148
                                                           / (7.771664 * 0.858814))
    assert hourglass.loc[1, "work_ratio"] == pytest.approx(8.0, rel=1e-3)
    assert hourglass.loc[6, "work_ratio"] == pytest.approx((350 / 30) ** 3, rel=1e-3)
    # a points table of the same runs (points_dataframe, a CSV) gives the same table
    csv = tmp_path / "points.csv"
    points_dataframe(LULESH_SIZES).to_csv(csv, index=False)
    again = scaling_table(str(csv))
    pd.testing.assert_frame_equal(again.drop(columns=["file", "baseline"]),
                                  table.drop(columns=["file", "baseline"]), rtol=1e-12)


def test_54_runs_of_18_thread_counts_by_3_cases(sweep):
    keys = study_keys(sweep.runs)
    assert [k.threads for k in keys] == list(THREADS) * 3
    assert [k.case for k in keys] == [case for case in CASES for _ in THREADS]
    assert {k.case_name for k in keys} == {"-c"}  # '-C 0-17' follows the threads: dropped
    table = scaling_table(sweep)
    assert len(table) == 3 * 3 * 18
    assert set(table["varies"]) == {"threads"}
    assert list(pd.unique(table["group"])) == ["case=sedov", "case=noh", "case=sod"]
    kinematics = _rows(table, group="case=sedov", region="CalcKinematics")
    assert kinematics["threads"].tolist() == list(THREADS)
    # the example: 42.04 s on 1 thread, 12.37 s on 18: speed-up 3.40, efficiency 18.9 %
    last = kinematics.iloc[-1]
    assert (last["runtime_seconds"], kinematics.loc[0, "runtime_seconds"]) == (12.37, 42.04)
    assert round(last["speedup"], 2) == 3.40
    assert round(100 * last["efficiency"], 1) == 18.9
    assert last["threads_ratio"] == 18
    # each case against its own first run: noh's CalcKinematics 30 s -> 30 x (0.1 + 0.9 / 18)
    noh = _rows(table, group="case=noh", region="CalcKinematics").iloc[-1]
    assert noh["speedup"] == pytest.approx(30.0 / runtime("CalcKinematics", "noh", 18))
    assert noh["speedup"] == pytest.approx(1 / 0.15, rel=1e-4)
    assert noh["baseline"].startswith("lulesh_sweep#19 (1 thread")
    # 40 GFLOP on every thread count: no note
    assert (table["note"] == "").all()
    assert table["work_ratio"].to_numpy() == pytest.approx(1.0, rel=1e-5)


def test_grouped_by_threads_the_cases_are_compared(sweep):
    table = scaling_table(sweep, group_by="threads")
    assert set(table["varies"]) == {"case"}
    one = _rows(table, group="threads=1", region="CalcKinematics")
    assert one["case"].tolist() == ["sedov", "noh", "sod"]
    assert one["speedup"].tolist() == pytest.approx([1.0, 42.04 / 30.0, 42.04 / 21.0])
    assert one["efficiency"].isna().all()  # the same hardware: no parallel efficiency
    assert scaling_table(sweep, group_by=["case"]).equals(scaling_table(sweep))
    with pytest.raises(ValueError, match="still varies in threads and case"):
        scaling_table(sweep, group_by="size")
    with pytest.raises(ValueError, match=r"group_by takes keys of \['threads'"):
        scaling_table(sweep, group_by="compiler")


def test_ranks_scale_as_hardware_threads():
    # two points tables of one region, 2 ranks of 4 threads then 4 ranks of 4 threads: the
    # region takes 10 s then 6 s (the slowest rank); efficiency = (10 / 6) / (16 / 8)
    def job(label, n_ranks, seconds):
        return pd.DataFrame({"file": label, "region": "solve", "rank": range(n_ranks),
                             "performance_gflops": 2.0, "bandwidth_gbs": 1.0, "n_threads": 4,
                             "runtime_seconds": seconds})

    table = scaling_table([job("np2", 2, [10.0, 9.0]), job("np4", 4, [6.0, 5.0, 5.5, 5.0])])
    assert set(table["varies"]) == {"ranks"}
    assert table["ranks"].tolist() == [2, 4]
    assert table["threads"].tolist() == [4, 4]
    assert table["speedup"].tolist() == pytest.approx([1.0, 10 / 6])
    assert table["efficiency"].tolist() == pytest.approx([1.0, 10 / 6 / 2])
    assert table["performance_gflops"].tolist() == pytest.approx([4.0, 8.0])


def test_one_run_is_its_own_baseline():
    table = scaling_table(GMGPOLAR[0])
    assert table["varies"].tolist() == ["", ""]
    assert table["speedup"].tolist() == [1.0, 1.0]
    assert table["efficiency"].isna().all()
