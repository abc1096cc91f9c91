"""A table of points in: RooflineWidget, plot_roofline, compare_points and the CLI take a DataFrame,
a CSV or a Parquet file of points (``io/points_table.py``).

The round trip is the test: run -> points_dataframe -> (widget, plot_roofline, points_dataframe)
gives the same points.  Samples: 19 (seven LULESH sizes in one log: a chain), 18 (24 ranks summed
into one host point of 24 threads: 321.2207 GFLOP/s on 53.3880 GB/s, LIKWID's STAT Sum rows),
2 and 16 (gmgpolar give / take, four threads).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from wild_samples import LULESH_SIZES, MPIRUN_NIL

from roofline_widget import (
    LikwidFormatError,
    PointsTableError,
    RooflineWidget,
    compare_points,
    plot_roofline,
    points_dataframe,
    read_likwid,
    sample_path,
)
from roofline_widget.cli import main
from roofline_widget.io.points_cells import DEFAULT_BANDWIDTH_METRIC, DEFAULT_FLOPS_METRIC
from roofline_widget.io.points_table import is_points_file, read_points_table, sniff_points_table

GIVE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
TAKE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")
#: What a point is: its key and its numbers.
SAME = ["file", "region", "rank", "performance_gflops", "bandwidth_gbs",
        "arithmetic_intensity_flops_per_byte", "runtime_seconds", "n_threads", "device",
        "flops_metric", "bandwidth_metric", "run"]


def _same_points(got: pd.DataFrame, expected: pd.DataFrame, columns=SAME) -> None:
    keys = ["file", "region", "rank"]
    got = got[columns].astype({"file": object, "region": object}).sort_values(keys)
    expected = expected[columns].astype({"file": object, "region": object}).sort_values(keys)
    assert len(got) == len(expected)
    for column in columns:
        a, b = got[column].to_numpy(), expected[column].to_numpy()
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b.astype(float), rtol=1e-12, err_msg=column)
        else:
            assert a.astype(str).tolist() == b.astype(str).tolist(), column


@pytest.fixture(scope="module")
def lulesh():
    return read_likwid(LULESH_SIZES)


def test_a_chain_of_seven_runs_comes_back_as_the_same_chain(lulesh):
    points = points_dataframe(lulesh)
    assert len(points) == 154
    run = read_points_table(points)
    assert len(run.runs) == 7
    assert [r.label for r in run.runs] == [r.label for r in lulesh.runs]
    assert [r.run_info.number for r in run.runs] == list(range(1, 8))
    assert run.runs[1].run_info.detail == "Running problem size 60^3 per domain until completion"
    _same_points(points_dataframe(points), points)
    _same_points(points_dataframe(run), points)


def test_the_widget_draws_the_points_of_a_dataframe(lulesh):
    # today's bug: RooflineWidget(points_dataframe(run)) read the column names as file names
    points = points_dataframe(lulesh)
    original, again = RooflineWidget(lulesh), RooflineWidget(points)
    assert again.chain_shown
    assert original.chain_shown
    assert list(again.file_chain.labels) == list(original.file_chain.labels)
    assert again.file_chain.labels[0] == "#1 (size 30^3)"
    assert again.file_chain.file == "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated"
    _same_points(again.to_dataframe(), original.to_dataframe())
    assert np.allclose(np.asarray(again.figure.scatter.x), np.asarray(original.figure.scatter.x))
    assert np.allclose(np.asarray(again.figure.scatter.y), np.asarray(original.figure.scatter.y))
    # every run as points: the 154 points of the seven runs
    _same_points(RooflineWidget(points, chain=False).to_dataframe(), points)


def test_plot_roofline_of_a_dataframe_draws_the_same_points(lulesh, tmp_path):
    points = points_dataframe(lulesh)
    drawn = plot_roofline(points, filepath=tmp_path / "again.png", verbose=False)
    expected = plot_roofline(lulesh, filepath=tmp_path / "run.png", verbose=False)
    assert (tmp_path / "again.png").stat().st_size > 10_000
    assert drawn["chain"] == expected["chain"]
    _same_points(pd.DataFrame(drawn["points"]), pd.DataFrame(expected["points"]),
                 columns=SAME[:7])


def test_a_host_point_of_24_ranks_keeps_its_threads_and_its_sum():
    points = points_dataframe(MPIRUN_NIL)
    assert points["rank_group"].tolist() == ["f0472 (ranks 0-23)"]
    run = read_points_table(points)
    # one point of 24 threads: 24 thread rows, each a 24th of the rates
    assert len(run.table) == 24
    assert run.table["DP [MFLOP/s]"].sum() == pytest.approx(321220.668, rel=1e-6)
    again = points_dataframe(points)
    _same_points(again, points)
    assert again.loc[0, "performance_gflops"] == pytest.approx(321.2207, abs=5e-5)
    assert again.loc[0, "bandwidth_gbs"] == pytest.approx(53.3880, abs=5e-5)
    assert again.loc[0, "n_threads"] == 24  # the hardware bound multiplies by it
    assert again.loc[0, "rank"] == -1
    assert again.loc[0, "rank_group"] == "all ranks"  # the host's name is not in the table


def test_csv_and_parquet_files_of_points(tmp_path, capsys):
    points = points_dataframe(GIVE_4T)
    csv, parquet = tmp_path / "points.csv", tmp_path / "points.parquet"
    points.to_csv(csv, index=False)
    points.to_parquet(parquet)
    assert is_points_file(csv)
    assert is_points_file(parquet)
    assert not is_points_file(GIVE_4T)
    assert not is_points_file(LULESH_SIZES)
    for path in (csv, parquet):
        _same_points(points_dataframe(str(path)), points)
        _same_points(points_dataframe(read_likwid(path)), points)
    assert main(["points", str(csv), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [p["region"] for p in printed["points"]] == ["Setup", "Solve"]
    assert printed["points"][1]["performance_gflops"] == pytest.approx(
        points.loc[1, "performance_gflops"], rel=1e-12)
    assert main(["plot", str(parquet), "-o", str(tmp_path / "fig.svg")]) == 0
    assert (tmp_path / "fig.svg").stat().st_size > 1000


def test_compare_points_of_two_tables():
    before, after = points_dataframe(GIVE_4T), points_dataframe(TAKE_4T)
    table = compare_points(before, after)
    expected = compare_points(GIVE_4T, TAKE_4T)
    assert table["region"].tolist() == ["Setup", "Solve"]
    np.testing.assert_allclose(table["speedup"], expected["speedup"], rtol=1e-12)
    np.testing.assert_allclose(table["performance_change_percent"],
                               expected["performance_change_percent"], rtol=1e-9)


def test_a_minimal_table_and_a_table_of_counts():
    minimal = pd.DataFrame({"region": ["stream", "dgemm"], "performance_gflops": [2.0, 80.0],
                            "bandwidth_gbs": [20.0, 4.0]})
    points = points_dataframe(minimal)
    assert points["file"].astype(str).tolist() == ["points", "points"]
    assert points["arithmetic_intensity_flops_per_byte"].tolist() == [0.1, 20.0]
    assert points["flops_metric"].astype(str).tolist() == [DEFAULT_FLOPS_METRIC] * 2
    assert points["bandwidth_metric"].astype(str).tolist() == [DEFAULT_BANDWIDTH_METRIC] * 2
    assert points["n_threads"].tolist() == [1, 1]
    # FLOP and byte counts with a runtime: 4e10 FLOP and 8e10 bytes in 2 s = 20 GFLOP/s, 40 GB/s
    counts = pd.DataFrame({"region": ["solve"], "flops": [4e10], "bytes": [8e10],
                           "runtime_seconds": [2.0], "rank": [3]})
    point = points_dataframe(counts).iloc[0]
    assert (point["performance_gflops"], point["bandwidth_gbs"], point["rank"]) == (20.0, 40.0, 3)
    assert point["runtime_seconds"] == 2.0
    # an intensity in place of the bandwidth: 8 GFLOP/s at 2 FLOP/byte = 4 GB/s
    intensity = pd.DataFrame({"region": ["k"], "performance_gflops": [8.0],
                              "arithmetic_intensity_flops_per_byte": [2.0]})
    assert points_dataframe(intensity).loc[0, "bandwidth_gbs"] == 4.0
    # a metric named with its unit: MFLOP/s and MB/s are converted back and forth
    named = minimal.assign(flops_metric="DP [MFLOP/s]",
                           bandwidth_metric="Memory bandwidth [MBytes/s]")
    run = read_points_table(named)
    assert run.table["DP [MFLOP/s]"].tolist() == [2000.0, 80000.0]
    assert points_dataframe(named)["performance_gflops"].tolist() == [2.0, 80.0]


@pytest.mark.parametrize(("table", "line", "message"), [
    (pd.DataFrame({"region": ["a"], "performance_gflops": [1.0]}), 1,
     "missing 'bandwidth_gbs \\(or arithmetic_intensity_flops_per_byte\\)'"),
    (pd.DataFrame({"region": ["a"], "flops": [1.0], "bytes": [2.0]}), 1,
     "missing 'runtime_seconds'"),
    (pd.DataFrame({"name": ["a"], "performance_gflops": [1.0]}), 1, "missing 'region'"),
    (pd.DataFrame({"region": ["a", "b"], "performance_gflops": [1.0, "fast"],
                   "bandwidth_gbs": [1.0, 2.0]}), 3, "a number of at least 0"),
    (pd.DataFrame({"region": ["a"], "performance_gflops": [-1.0], "bandwidth_gbs": [1.0]}), 2,
     "a number of at least 0"),
    (pd.DataFrame({"region": ["a", "a"], "performance_gflops": [1.0, 2.0],
                   "bandwidth_gbs": [1.0, 2.0]}), 3, "one point per \\(file, rank, region"),
    (pd.DataFrame({"region": ["a", ""], "performance_gflops": [1.0, 2.0],
                   "bandwidth_gbs": [1.0, 2.0]}), 3, "a region name"),
    (pd.DataFrame({"region": ["a"], "performance_gflops": [1.0], "bandwidth_gbs": [1.0],
                   "device": ["fpga"]}), 2, "device 'cpu' or 'gpu'"),
    (pd.DataFrame({"region": ["a"], "performance_gflops": [1.0], "bandwidth_gbs": [1.0],
                   "n_threads": [2.5]}), 2, "an integer from 1"),
    (pd.DataFrame({"region": ["a", "a"], "performance_gflops": [1.0, 1.0],
                   "bandwidth_gbs": [1.0, 9.0], "level": ["L2", "MEM"]}), None,
     "one memory level per table"),
    (pd.DataFrame({"region": ["a"], "performance_gflops": [1.0], "bandwidth_gbs": [1.0],
                   "flops_metric": ["Runtime [s]"]}), None, "a flop rate metric name"),
])
def test_a_bad_table_names_what_is_missing_or_wrong(table, line, message):
    with pytest.raises(PointsTableError, match=message) as caught:
        read_points_table(table)
    assert caught.value.line == line
    assert caught.value.source == "<DataFrame>"
    assert isinstance(caught.value, LikwidFormatError)
    with pytest.raises(PointsTableError, match=message):  # the same from the widget
        RooflineWidget(table)


def test_a_bad_csv_names_its_file_and_line(tmp_path):
    path = tmp_path / "colleague.csv"
    path.write_text("region,performance_gflops,bandwidth_gbs\nsolve,1.5,2\nsetup,n/a,3\n")
    with pytest.raises(PointsTableError, match=r"colleague.csv, line 3: expected a number .*"
                                                r"'performance_gflops', found 'n/a'"):
        points_dataframe(str(path))
    path.write_text("region,performance_gflops\nsolve,1.5\n")
    assert main(["points", str(path)]) == 2


def test_what_is_sniffed_as_points():
    assert sniff_points_table(b"PAR1\x15\x04")
    assert sniff_points_table(b'"region","flops","bytes","runtime_seconds"\r\n')
    assert sniff_points_table(b"\xef\xbb\xbfregion,performance_gflops\n")  # missing: an error later
    assert not sniff_points_table(b"region,calls\nsolve,3\n")
    assert not sniff_points_table(b"STRUCT,Info,3\nCPU name:,Intel\n")
    assert not sniff_points_table(b"")


def test_a_list_of_tables_is_a_list_of_runs():
    first = points_dataframe(GIVE_4T)
    second = points_dataframe(TAKE_4T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = points_dataframe([first, second])
    assert both["file"].astype(str).unique().tolist() == [
        "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket",
        "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take"]
    # two files' points in one table are two runs, not a chain
    joined = pd.concat([first, second], ignore_index=True)
    widget = RooflineWidget(joined)
    assert widget.file_chain is None
    assert len(widget.to_dataframe()) == 4
