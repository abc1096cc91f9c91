"""A thread that was not measured never silently shrinks a sum.

Mutated copies (in tmp_path) of real samples: a cell replaced by ``-``,
``nan``, ``inf`` or ``1e400``.  The expected numbers are the printed cells of
the sample, added by hand in the comments.

No shipped sample is a two-socket MEM_DP run; the 8-thread MEM_DP sample
(one socket, lock thread ``Core 0``: the only thread with memory traffic) is
the case of one socket, and the DP cells of its other
threads give a sum to work out by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from roofline_widget import LikwidRun, read_likwid, sample_path
from roofline_widget.errors import RegionsLeftOutWarning, StatSumMismatchWarning
from roofline_widget.io.cells import parse_cells
from roofline_widget.points import RegionSums, collect_roofline_points, left_out_regions, points_dataframe

MEM_DP_8T = "gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt"
CSV_1T = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"
TEXT_1T = "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"
BW = "Memory bandwidth [MBytes/s]"
DP = "DP [MFLOP/s]"


def _replace_cell(text: str, metric: str, thread: int, token: str, occurrence: int = 0) -> str:
    """``text`` with the cell of ``thread`` (0-based column) in the ``occurrence``-th row of
    ``metric`` of a ``|``-table replaced by ``token`` (width kept)."""
    lines = text.split("\n")
    seen = 0
    for k, line in enumerate(lines):
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip() == metric:
            if seen == occurrence:
                width = len(cells[thread + 2])
                cells[thread + 2] = f" {token}".rjust(width - 1) + " "
                lines[k] = "|".join(cells)
                return "\n".join(lines)
            seen += 1
    raise AssertionError(f"no row {metric!r} number {occurrence}")


def _mutated(tmp_path, name: str, metric: str, thread: int, token: str, occurrence: int = 0):
    text = open(sample_path(name), encoding="utf-8").read()
    path = tmp_path / f"mutated_{token.replace('-', 'dash')}_{name}"
    path.write_text(_replace_cell(text, metric, thread, token, occurrence), encoding="utf-8")
    return path


def _read(path) -> LikwidRun:
    """Read a mutated file; the STAT check rightly notices the changed cell, recorded here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatSumMismatchWarning)
        return read_likwid(path)


def _reasons(data, **keywords) -> dict:
    frame = left_out_regions(data, **keywords)
    return dict(zip(frame["region"].astype(str), frame["reason"].astype(str)))


def test_parse_cells_makes_every_non_finite_value_nan():
    # the fast path (numpy parses 'inf' and '1e400' itself) and the cell-by-cell path agree
    fast = parse_cells(["1.5", "inf", "1e400", "-inf"], "f.txt", 3, "values")
    slow = parse_cells(["1.5", "inf", "1e400", "-"], "f.txt", 3, "values")
    for values in (fast, slow):
        assert values[0] == 1.5
        assert np.isnan(values[1:]).all()


@pytest.mark.parametrize("token", ["-", "nan", "inf", "1e400"])
def test_lock_thread_without_bandwidth_is_left_out_with_the_true_reason(tmp_path, token):
    # Setup: Memory bandwidth 1235.3228 on Core 0, 0 on Core 1..7; Core 0 becomes unmeasured
    run = _read(_mutated(tmp_path, MEM_DP_8T, BW, 0, token))
    with pytest.warns(RegionsLeftOutWarning, match="thread Core 0 not measured"):
        points = collect_roofline_points(run)
    assert [p["region"] for p in points] == ["Solve"]
    reasons = _reasons(run)
    # not "zero on every thread": the only non-zero thread is the unmeasured one
    assert reasons == {"Setup": f"thread Core 0 not measured ({BW})"}
    # kept on request, the sum of the measured threads is 0: left out, and it says so
    assert _reasons(run, unmeasured="keep") == {"Setup": f"{BW!r} is zero on every measured thread"}


def test_unmeasured_flop_thread_kept_on_request_and_marked(tmp_path):
    # Setup DP [MFLOP/s]: 378.4044 335.2537 333.0803 333.1228 332.9475 331.9011 331.8538
    # 331.5994; Core 3 (333.1228) becomes '-'
    run = _read(_mutated(tmp_path, MEM_DP_8T, DP, 3, "-"))
    assert _reasons(run, flops_metric=DP) == {"Setup": f"thread Core 3 not measured ({DP})"}
    with pytest.warns(RegionsLeftOutWarning):
        default = points_dataframe(run, flops_metric=DP)
    assert default["region"].tolist() == ["Solve"]
    assert default["unmeasured_threads"].tolist() == [0]
    kept = points_dataframe(run, flops_metric=DP, unmeasured="keep").set_index("region")
    assert kept.loc["Setup", "unmeasured_threads"] == 1
    assert kept.loc["Solve", "unmeasured_threads"] == 0
    # the seven others: 378.4044 + 335.2537 + 333.0803 + 332.9475 + 331.9011 + 331.8538
    # + 331.5994 = 2375.0402 MFLOP/s; bandwidth 1235.3228 MBytes/s (Core 0 alone)
    assert kept.loc["Setup", "performance_gflops"] == pytest.approx(2.3750402, rel=1e-12)
    assert kept.loc["Setup", "bandwidth_gbs"] == pytest.approx(1.2353228, rel=1e-12)
    assert kept.loc["Setup", "n_threads"] == 8
    # combine_ranks keeps the mark
    combined = points_dataframe(run, flops_metric=DP, unmeasured="keep", combine_ranks=True)
    assert combined.set_index("region").loc["Setup", "unmeasured_threads"] == 1
    # and the widget tooltip says it (only for that point)
    pytest.importorskip("bqplot")
    from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
    from roofline_widget.widget.html import tooltip_html
    from roofline_widget.widget.roofs import classify

    roofline = Roofline([ComputeRoof("peak", 100.0)], [BandwidthRoof("DRAM", 50.0)])
    rows = classify(kept.reset_index(), roofline)
    assert "1 thread not measured" in tooltip_html(rows.iloc[0])
    assert "not measured" not in tooltip_html(rows.iloc[1])


def test_the_memory_levels_keep_an_unmeasured_thread_on_request(tmp_path):
    from roofline_widget import Selection, hierarchical_left_out, hierarchical_points

    # the same mutation: Setup's Core 3 DP cell is '-'; one level (MEM) is measured
    run = _read(_mutated(tmp_path, MEM_DP_8T, DP, 3, "-"))
    left = hierarchical_left_out(run, flops_metric=DP)
    assert left[["region", "level", "reason"]].values.tolist() == [
        ["Setup", "MEM", f"thread Core 3 not measured ({DP})"]]
    kept = hierarchical_points(run, selection=Selection(flops_metric=DP, unmeasured="keep"))
    setup = kept.set_index("region").loc["Setup"]
    # 2375.0402 MFLOP/s of the seven measured threads over Core 0's 1235.3228 MBytes/s
    assert setup["performance_gflops"] == pytest.approx(2.3750402, rel=1e-12)
    assert setup["bandwidth_gbs"] == pytest.approx(1.2353228, rel=1e-12)
    assert hierarchical_left_out(run, flops_metric=DP, unmeasured="keep").empty


def test_several_unmeasured_threads_are_listed_then_counted(tmp_path):
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    for thread in (1, 2, 4, 5, 7):
        text = _replace_cell(text, DP, thread, "-")
    path = tmp_path / "five_dashes.txt"
    path.write_text(text, encoding="utf-8")
    run = _read(path)
    assert _reasons(run, flops_metric=DP)["Setup"] == (
        f"5 threads Core 1, Core 2, Core 4 and 2 more not measured ({DP})")
    kept = points_dataframe(run, flops_metric=DP, unmeasured="keep").set_index("region")
    assert kept.loc["Setup", "unmeasured_threads"] == 5
    # 378.4044 + 333.1228 + 331.8538 (Core 0, 3, 6) = 1043.381 MFLOP/s
    assert kept.loc["Setup", "performance_gflops"] == pytest.approx(1.043381, rel=1e-12)


def test_flop_and_bandwidth_threads_are_counted_once(tmp_path):
    # Core 0 loses DP, and its bandwidth: one thread, not two
    text = open(sample_path(MEM_DP_8T), encoding="utf-8").read()
    text = _replace_cell(_replace_cell(text, DP, 0, "-"), BW, 3, "-")
    path = tmp_path / "two_metrics.txt"
    path.write_text(text, encoding="utf-8")
    run = _read(path)
    assert _reasons(run, flops_metric=DP)["Setup"] == (
        f"thread Core 0 not measured ({DP}); thread Core 3 not measured ({BW})")
    kept = points_dataframe(run, flops_metric=DP, unmeasured="keep").set_index("region")
    assert kept.loc["Setup", "unmeasured_threads"] == 2
    text = _replace_cell(open(sample_path(MEM_DP_8T), encoding="utf-8").read(), DP, 3, "-")
    path.write_text(_replace_cell(text, BW, 3, "-"), encoding="utf-8")
    kept = points_dataframe(_read(path), flops_metric=DP, unmeasured="keep").set_index("region")
    assert kept.loc["Setup", "unmeasured_threads"] == 1


def test_uncore_zero_on_other_threads_is_measured():
    # intact sample: bandwidth 0 on Core 1..7 is a measured 0, nothing is left out
    sums = RegionSums.from_runs(read_likwid(sample_path(MEM_DP_8T)))
    assert sums.unmeasured(BW).counts.tolist() == [0, 0]
    frame = points_dataframe(sums)
    assert frame["unmeasured_threads"].tolist() == [0, 0]


def test_unmeasured_option_is_checked():
    run = read_likwid(sample_path(MEM_DP_8T))
    with pytest.raises(ValueError, match="unmeasured must be one of"):
        points_dataframe(run, unmeasured="drop")


@pytest.mark.parametrize("name", [CSV_1T, TEXT_1T])
def test_text_and_csv_agree_on_inf(tmp_path, name):
    run = read_likwid(sample_path(name))
    flops = RegionSums.from_runs(run).detect_flops_metric()
    original = open(sample_path(name), encoding="utf-8").read()
    results = {}
    for token in ("-", "inf", "1e400"):
        if name.endswith(".csv"):
            lines = original.split("\n")
            k = next(i for i, line in enumerate(lines) if line.split(",")[0] == flops)
            cells = lines[k].split(",")
            cells[1] = token
            lines[k] = ",".join(cells)
            text = "\n".join(lines)
        else:
            text = _replace_cell(original, flops, 0, token)
        path = tmp_path / f"{token}_{name}"
        path.write_text(text, encoding="utf-8")
        mutated = _read(path)
        # the cell is NaN in the table in every case (CSV kept inf before)
        assert mutated.table[flops].isna().sum() == 1
        results[token] = left_out_regions(mutated, flops_metric=flops)[["region", "reason"]]
    pd.testing.assert_frame_equal(results["inf"], results["-"])
    pd.testing.assert_frame_equal(results["1e400"], results["-"])
    # the first region (the mutated cell) lacks its FLOPs (a FLOPS_DP run has no bandwidth)
    assert str(results["-"]["reason"].iloc[0]).startswith(f"{flops!r} not measured in this region")
    assert not any(str(r).startswith(repr(flops)) for r in results["-"]["reason"].iloc[1:])


def test_scope_engines_count_unmeasured_threads(tmp_path):
    pytest.importorskip("scope_profiler")
    pytest.importorskip("h5py")
    from scope_fixtures import write_scope_h5
    from scope_profiler.likwid_data import LikwidRegionResult
    from scope_profiler.results import ProfilingResults

    from roofline_widget.points import ScopeResultsSource, read_scope_sums

    def region(tag, cpus, metrics):
        return LikwidRegionResult(
            tag=tag, group_id=1, group_name="MEM_DP", cpus=cpus, times=np.ones(len(cpus)),
            call_counts=np.ones(len(cpus)), event_names=[], counter_names=[],
            events=np.zeros((0, len(cpus))), metric_names=[DP, BW],
            metrics=np.asarray(metrics, dtype=float))

    likwid = {0: {"a": region("a", [0, 14], [[1.0, 2.0], [10.0, np.inf]]),
                  "b": region("b", [0, 14], [[1.0, 2.0], [4.0, 6.0]])},
              1: {"a": region("a", [3, 5, 7], [[np.nan, 2.0, np.nan], [1.0, 2.0, 4.0]])}}
    results = ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="u.h5")
    path = write_scope_h5(tmp_path / "u.h5", results)
    for data in (results, path):
        engine = ScopeResultsSource(results) if data is results else read_scope_sums(path, cache=False)
        counts, threads = engine.unmeasured(BW)
        assert counts.tolist() == [1, 0, 0]
        assert threads == {0: ("HWThread 14",)}
        counts, threads = engine.unmeasured(DP)
        assert counts.tolist() == [0, 0, 2]
        assert threads == {2: ("HWThread 3", "HWThread 7")}
        # inf is not summed: 10 MBytes/s over the measured thread
        assert engine.sums(BW).tolist() == [10.0, 10.0, 7.0]
        frame = left_out_regions(data, flops_metric=DP, bandwidth_metric=BW)
        assert frame["reason"].astype(str).tolist() == [
            f"thread HWThread 14 not measured ({BW})",
            f"2 threads HWThread 3, HWThread 7 not measured ({DP})"]
        kept = points_dataframe(data, flops_metric=DP, bandwidth_metric=BW, unmeasured="keep")
        assert kept[["rank", "region", "unmeasured_threads"]].values.tolist() == [
            [0, "a", 1], [0, "b", 0], [1, "a", 2]]
    # the HDF5 sums survive the cache
    cache_dir = tmp_path / "cache"
    read_scope_sums(path, cache_dir=cache_dir)
    cached = read_scope_sums(path, cache_dir=cache_dir)
    assert cached.from_cache
    assert cached.unmeasured(DP)[1] == {2: ("HWThread 3", "HWThread 7")}


def test_a_rank_without_the_metric_is_a_gap_when_ranks_are_summed():
    pytest.importorskip("scope_profiler")
    from scope_profiler.likwid_data import LikwidRegionResult
    from scope_profiler.results import ProfilingResults

    def region(cpus, metrics):
        return LikwidRegionResult(
            tag="solve", group_id=1, group_name="MEM_DP", cpus=cpus, times=np.ones(len(cpus)),
            call_counts=np.ones(len(cpus)), event_names=[], counter_names=[],
            events=np.zeros((0, len(cpus))), metric_names=[DP, BW],
            metrics=np.asarray(metrics, dtype=float))

    # likwid-mpirun-like: rank 1's bandwidth is '-' on both threads (its socket's lock thread)
    likwid = {0: {"solve": region([0, 1], [[1000.0, 1000.0], [3000.0, 0.0]])},
              1: {"solve": region([14, 15], [[1000.0, 1000.0], [np.nan, np.nan]])}}
    results = ProfilingResults(regions={}, likwid=likwid, num_ranks=2, file_path="m.h5")
    frame = left_out_regions(results, flops_metric=DP, bandwidth_metric=BW, combine_ranks=True)
    assert frame["reason"].astype(str).tolist() == [f"rank 1 (2 threads) not measured ({BW})"]
    kept = points_dataframe(results, flops_metric=DP, bandwidth_metric=BW, combine_ranks=True,
                            unmeasured="keep")
    # 4 x 1000 MFLOP/s over the 3000 MBytes/s of rank 0 alone, two threads not measured
    assert kept[["rank", "unmeasured_threads"]].values.tolist() == [[-1, 2]]
    assert kept["performance_gflops"].tolist() == [4.0]
    assert kept["bandwidth_gbs"].tolist() == [3.0]
