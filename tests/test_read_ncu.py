"""Nsight Compute exports read into runs: sample N1 worked by hand, the raw page, passes, ranks.

Sample N1 (``roofline_widget/data/ncu/``, see its SOURCES.md) is GENE's ``dgdxy`` region on a
Summit V100: three instances of the template ``gt::detail::kernel_assign_6`` (kernel names of
1789, 577 and 2789 characters), each launched four times (IDs 0-11 in turn), profiled in two
passes, i.e. two runs of the program: process 126788 with ``dram__bytes.sum`` and
``sm__cycles_elapsed.avg[.per_second]``, process 15236 with the DP instruction counters.

Per kernel, from its rows (FLOP = dadd + dmul + 2 dfma per launch; time = cycles / cycles per
second per launch; the point = summed FLOP and bytes over summed time):
"""

import gzip
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from render_ncu import N1, details, n1_rows, render_raw, write_raw_passes

from roofline_widget import points_dataframe, read_likwid, read_ncu, sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io import detect_format, read_likwid_text
from roofline_widget.io.ncu import short_name

# kernel_assign_6 #1: launches 0, 3, 6, 9 (name of 1789 characters)
#   bytes 450,249,760 + 450,122,592 + 450,118,176 + 450,214,688 = 1,800,705,216 B
#   time 793,092.60 / 1,300,800,070.85 + 792,009.90 / 1,300,799,357.49
#        + 790,848.62 / 1,300,943,282.16 + 792,394.30 / 1,300,747,064.93 = 2.435648e-3 s
#   FLOP 4 x (0 + 27,525,120 + 2 x 110,100,480) = 990,904,320
#   -> 406.834 GFLOP/s, 739.313 GB/s, intensity 990,904,320 / 1,800,705,216 = 0.550287
# kernel_assign_6 #2: launches 1, 4, 7, 10 (577 characters)
#   bytes 443,692,736 + 443,717,216 + 443,716,224 + 443,708,800 = 1,774,834,976 B
#   time 720,659.90 / 1,309,947,759.13 + 721,787.20 / 1,309,939,601.60
#        + 721,524.70 / 1,310,071,865.38 + 722,195.35 / 1,309,995,628.48 = 2.203200e-3 s
#   FLOP 4 x (0 + 27,525,120 + 2 x 27,525,120) = 330,301,440
#   -> 149.919 GFLOP/s, 805.571 GB/s, intensity 0.186103
# kernel_assign_6 #3: launches 2, 5, 8, 11 (2789 characters)
#   bytes 700,872,736 + 700,882,464 + 701,137,408 + 701,236,704 = 2,804,129,312 B
#   time 1,152,925.55 / 1,300,119,927.74 + 1,155,705.32 / 1,300,111,285.73
#        + 1,156,526.45 / 1,300,286,078.88 + 1,170,172.52 / 1,300,284,159.10 = 3.565088e-3 s
#   FLOP 4 x (0 + 55,050,240 + 2 x 192,675,840) = 1,761,607,680
#   -> 494.127 GFLOP/s, 786.553 GB/s, intensity 0.628219
N1_SECONDS = {
    "kernel_assign_6 #1": (793_092.60 / 1_300_800_070.85 + 792_009.90 / 1_300_799_357.49
                           + 790_848.62 / 1_300_943_282.16 + 792_394.30 / 1_300_747_064.93),
    "kernel_assign_6 #2": (720_659.90 / 1_309_947_759.13 + 721_787.20 / 1_309_939_601.60
                           + 721_524.70 / 1_310_071_865.38 + 722_195.35 / 1_309_995_628.48),
    "kernel_assign_6 #3": (1_152_925.55 / 1_300_119_927.74 + 1_155_705.32 / 1_300_111_285.73
                           + 1_156_526.45 / 1_300_286_078.88 + 1_170_172.52 / 1_300_284_159.10),
}
N1_BYTES = {"kernel_assign_6 #1": 1_800_705_216, "kernel_assign_6 #2": 1_774_834_976,
            "kernel_assign_6 #3": 2_804_129_312}
N1_FLOP = {"kernel_assign_6 #1": 990_904_320, "kernel_assign_6 #2": 330_301_440,
           "kernel_assign_6 #3": 1_761_607_680}
N1_POINTS = {  # GFLOP/s, GB/s, FLOP/byte: the numbers of the comments above
    "kernel_assign_6 #1": (406.834, 739.313, 0.550287),
    "kernel_assign_6 #2": (149.919, 805.571, 0.186103),
    "kernel_assign_6 #3": (494.127, 786.553, 0.628219),
}


@pytest.fixture(scope="module")
def n1():
    return read_likwid(sample_path(N1))


def _frame_by_region(run):
    return run.table.set_index("region")


def test_n1_kernels_summed_over_launches_by_hand(n1):
    assert n1.regions == list(N1_POINTS)
    assert n1.layout == "ncu-details"
    assert n1.groups == ["NCU"]
    assert n1.ranks == [0]
    table = _frame_by_region(n1)
    for region in N1_POINTS:
        row = table.loc[region]
        assert row["device"] == "gpu"
        assert row["thread"] == "GPU"
        assert row["host"] == "127.0.0.1"
        assert row["call_count"] == 4
        assert row["runtime_s"] == pytest.approx(N1_SECONDS[region], rel=1e-12)
        assert row["DP [MFLOP/s]"] == pytest.approx(N1_FLOP[region] / N1_SECONDS[region] / 1e6,
                                                    rel=1e-12)
        assert row["Memory bandwidth [MBytes/s]"] == pytest.approx(
            N1_BYTES[region] / N1_SECONDS[region] / 1e6, rel=1e-12)
        assert row["Memory data volume [GBytes]"] == pytest.approx(N1_BYTES[region] / 1e9, rel=1e-12)
    events = n1.events.set_index(n1.table["region"].astype(str))
    assert events.loc["kernel_assign_6 #1", "dram__bytes.sum"] == N1_BYTES["kernel_assign_6 #1"]
    assert events.loc["kernel_assign_6 #3", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"] \
        == 4 * 192_675_840
    assert events.loc["kernel_assign_6 #2", "sm__cycles_elapsed.avg.per_second"] \
        == pytest.approx(1_310_071_865.38)  # the largest clock of its four launches


def test_n1_points_downstream(n1):
    points = points_dataframe(n1).set_index("region")
    assert list(points["flops_metric"].unique()) == ["DP [MFLOP/s]"]
    assert list(points["bandwidth_metric"].unique()) == ["Memory bandwidth [MBytes/s]"]
    for region, (gflops, gbs, intensity) in N1_POINTS.items():
        point = points.loc[region]
        assert point["performance_gflops"] == pytest.approx(gflops, abs=5e-4)
        assert point["bandwidth_gbs"] == pytest.approx(gbs, abs=5e-4)
        assert point["arithmetic_intensity_flops_per_byte"] == pytest.approx(intensity, abs=5e-7)
        assert point["device"] == "gpu"
        assert point["call_count"] == 4


def test_n1_full_template_names_kept_behind_the_short_names(n1):
    fulls = list(dict.fromkeys(row["Kernel Name"] for row in n1_rows()))
    assert [len(name) for name in fulls] == [1789, 577, 2789]
    assert n1.full_names == dict(zip(N1_POINTS, fulls))
    assert {short_name(name) for name in fulls} == {"kernel_assign_6"}


def test_raw_page_rendered_from_the_same_numbers_reads_identically(n1, tmp_path):
    passes = write_raw_passes(tmp_path)
    raw = read_likwid(passes)
    assert raw.layout == "ncu-raw"
    assert raw.sources == tuple(map(str, passes))
    pd.testing.assert_frame_equal(raw.table.drop(columns=["source", "line"]),
                                  n1.table.drop(columns=["source", "line"]))
    pd.testing.assert_frame_equal(raw.events, n1.events)
    assert raw.full_names == n1.full_names
    # the raw page's line is the launch's row: launch 0 under the header and the units row
    assert raw.table["line"].tolist() == [3, 4, 5]


def test_raw_passes_concatenated_in_one_file_read_as_two_files(n1, tmp_path):
    one = tmp_path / "both_passes.csv"
    one.write_text("".join(p.read_text() for p in write_raw_passes(tmp_path)), encoding="utf-8")
    pd.testing.assert_frame_equal(read_ncu(one).table.drop(columns=["source", "line"]),
                                  n1.table.drop(columns=["source", "line"]))


def test_scaled_units_read_as_base_units(n1, tmp_path):
    scaled = read_likwid(write_raw_passes(tmp_path, scale=True))
    text = write_raw_passes(tmp_path, scale=True)[0].read_text()
    assert '"Mbyte","Kcycle","cycle/nsecond"' in text
    assert '"450.24976"' in text
    metrics = ["runtime_s", "DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"]
    np.testing.assert_allclose(scaled.table[metrics].to_numpy(dtype=float),
                               n1.table[metrics].to_numpy(dtype=float), rtol=1e-12)


def test_details_passes_in_two_files_join_by_launch_and_kernel(n1, tmp_path):
    text = open(sample_path(N1), encoding="utf-8").read().splitlines(keepends=True)
    header, rows = text[0], text[1:]
    first = tmp_path / "pass_bytes.csv"
    second = tmp_path / "pass_flops.csv.gz"
    first.write_text(header + "".join(r for r in rows if '"126788"' in r), encoding="utf-8")
    second.write_bytes(gzip.compress((header + "".join(r for r in rows if '"15236"' in r)).encode()))
    joined = read_likwid([first, second])
    pd.testing.assert_frame_equal(joined.table.drop(columns=["source"]),
                                  n1.table.drop(columns=["source"]))
    # the FLOP pass alone: DP rates without time are NaN, said in the warnings
    with pytest.warns(LikwidReadWarning, match="no kernel time"):
        alone = read_ncu(second)
    assert alone.table["DP [MFLOP/s]"].isna().all()


def test_launches_mean_and_each(n1):
    # mean of the launch rates of kernel #2: each launch 82,575,360 FLOP over its own time
    mean = read_ncu(sample_path(N1), launches="mean")
    times = [720_659.90 / 1_309_947_759.13, 721_787.20 / 1_309_939_601.60,
             721_524.70 / 1_310_071_865.38, 722_195.35 / 1_309_995_628.48]
    row = mean.table.set_index("region").loc["kernel_assign_6 #2"]
    assert row["DP [MFLOP/s]"] == pytest.approx(np.mean([82_575_360 / t for t in times]) / 1e6,
                                                rel=1e-12)
    assert row["runtime_s"] == pytest.approx(np.mean(times), rel=1e-12)
    each = read_ncu(sample_path(N1), launches="each")
    assert len(each.table) == 12
    assert set(each.table["call_count"]) == {1.0}
    assert each.regions[:3] == ["kernel_assign_6 #1, launch 0", "kernel_assign_6 #2, launch 1",
                                "kernel_assign_6 #3, launch 2"]
    launch_4 = each.table.set_index("region").loc["kernel_assign_6 #2, launch 4"]
    assert launch_4["Memory bandwidth [MBytes/s]"] == pytest.approx(443_717_216 / times[1] / 1e6)
    assert each.full_names["kernel_assign_6 #2, launch 4"] == n1.full_names["kernel_assign_6 #2"]
    with pytest.raises(ValueError, match="'sum', 'mean', 'each'"):
        read_ncu(sample_path(N1), launches="median")


def test_detection_and_the_format_table():
    text = open(sample_path(N1), encoding="utf-8").read()
    assert detect_format("program output\n" + text, "x") == "ncu"
    run = read_likwid_text(text, "n1.csv")
    assert run.regions == list(N1_POINTS)
    assert run.label == "n1"
    with pytest.raises(LikwidFormatError, match="Nsight Compute CSV header"):
        read_likwid(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"), format="ncu")


def test_likwid_and_ncu_files_in_one_call_give_cpu_and_gpu_rows():
    run = read_likwid([sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"),
                       sample_path(N1)])
    devices = run.table.groupby("device", observed=True)["region"].nunique()
    assert devices.to_dict() == {"cpu": 5, "gpu": 3}
    points = points_dataframe(run)
    assert sorted(points["device"].unique()) == ["cpu", "gpu"]
    assert points["flops_metric"].unique().tolist() == ["DP [MFLOP/s]"]


# ------------------------------------------------------------------ small exports
KERNEL = "void stream::triad<double>(double*, const double*, const double*, double)"


def _launch(launch, kernel=KERNEL, flop_scale=1, extra=()):
    # per launch: 1e6 dadd, 2e6 dmul, 3e6 dfma = 9e6 FLOP; 1e6 cycles at 1 GHz = 1 ms
    return [(launch, kernel, "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst",
             f"{1_000_000 * flop_scale:,}"),
            (launch, kernel, "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst",
             f"{2_000_000 * flop_scale:,}"),
            (launch, kernel, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst",
             f"{3_000_000 * flop_scale:,}"),
            (launch, kernel, "sm__cycles_elapsed.avg", "cycle", "1,000,000"),
            (launch, kernel, "sm__cycles_elapsed.avg.per_second", "cycle/second", "1,000,000,000"),
            (launch, kernel, "dram__bytes.sum", "Mbyte", "36"), *extra]


def test_na_values_leave_the_kernel_out_with_the_reason(tmp_path):
    rows = _launch(0) + [(1, KERNEL, m, u, "n/a" if m == "dram__bytes.sum" else v)
                         for _, _, m, u, v in _launch(1)]
    path = tmp_path / "na.csv"
    path.write_text(details(rows))
    with pytest.warns(LikwidReadWarning, match=r"1 launch\(es\) without a value for Memory bandwidth"):
        run = read_ncu(path)
    assert math.isnan(run.table["Memory bandwidth [MBytes/s]"].iloc[0])
    # the FLOP rate stays: 2 x 9e6 FLOP / 2 ms = 9000 MFLOP/s
    assert run.table["DP [MFLOP/s]"].iloc[0] == pytest.approx(9000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from roofline_widget import left_out_regions
        left = left_out_regions(run)
    assert left["region"].tolist() == ["triad"]
    assert left["reason"].tolist() == ["'Memory bandwidth [MBytes/s]' not measured in this region"]


def test_kernel_names_of_ten_kilobytes_and_quoted_commas(tmp_path):
    inner = ", ".join(f"gt::gview<thrust::complex<double>, {i}>" for i in range(300))
    kernel = f"void gt::detail::kernel_assign_6<{inner}>(int, \"quoted\", double)"
    assert len(kernel) > 10_000
    path = tmp_path / "long.csv"
    path.write_text(details(_launch(0, kernel) + _launch(1, KERNEL)))
    run = read_ncu(path)
    assert run.regions == ["kernel_assign_6", "triad"]
    assert run.full_names["kernel_assign_6"] == kernel


def test_processes_with_the_same_metrics_are_ranks(tmp_path):
    text = details(_launch(0)) + "".join(details(_launch(0, flop_scale=2), pid="4343")
                                         .splitlines(keepends=True)[2:])
    path = tmp_path / "two_ranks.csv"
    path.write_text(text)
    with pytest.warns(LikwidReadWarning, match="numbered 0.. in order of appearance"):
        run = read_ncu(path)
    assert run.ranks == [0, 1]
    assert run.table["DP [MFLOP/s]"].tolist() == pytest.approx([9000, 18000])
    ranked = tmp_path / "job_rank7.csv"
    ranked.write_text(details(_launch(0)))
    assert read_ncu(ranked).ranks == [7]


@pytest.mark.parametrize(("rows", "line", "expected"), [
    ([(0, KERNEL, "dram__bytes.sum", "byte", "12 MB")], 3, "a number for dram__bytes.sum"),
    ([(0, KERNEL, "dram__bytes.sum", "percent", "12")], 3, "a unit of byte"),
    ([("x", KERNEL, "dram__bytes.sum", "byte", "12")], 3, "an integer launch ID"),
    ([(0, KERNEL, "dram__bytes.sum", "byte", "12"), (0, KERNEL, "dram__bytes.sum", "byte", "13")],
     4, "each metric once per launch"),
    ([(0, KERNEL, "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "50")], 2,
     "at least one kernel launch row"),
])
def test_bad_exports_name_file_line_and_expectation(tmp_path, rows, line, expected):
    path = tmp_path / "bad.csv"
    path.write_text(details(rows))
    with pytest.raises(LikwidFormatError, match=expected) as info:
        read_ncu(path)
    assert info.value.source == str(path)
    assert info.value.line == line


def test_ragged_row_and_summary_header_are_format_errors(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text(details(_launch(0)) + '"1","4242","app"\n')
    with pytest.raises(LikwidFormatError, match="a row of 12 cells") as info:
        read_ncu(path)
    assert info.value.line == 9
    summary = tmp_path / "summary.csv"
    summary.write_text(details([], header=["ID", "Process ID", "Kernel Name", "Metric Name",
                                           "Metric Unit", "Minimum", "Maximum", "Average"]))
    with pytest.raises(LikwidFormatError, match="without --print-summary"):
        read_ncu(summary)


def test_raw_page_line_of_n1_units_row():
    rows = n1_rows()
    table = render_raw(rows, "126788").splitlines()
    assert table[1].startswith('"","","",')
    assert table[1].endswith('"byte","cycle","cycle/second"')


NEW_HEADER = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC", "MPI Rank", "Section Name", "Metric Name",
              "Metric Unit", "Metric Value")


def _new_layout(rows) -> str:
    """The details page of newer ncu (Block Size, Grid Size, Device, CC), an MPI Rank column added."""
    lines = ['"' + '","'.join(NEW_HEADER) + '"']
    for launch, device, rank, metric, unit, value in rows:
        cells = [str(launch), "77", "app", "nid7", KERNEL, "1", "7", "(256, 1, 1)", "(80, 1, 1)",
                 str(device), "9.0", str(rank), "Command line profiler metrics", metric, unit, value]
        lines.append('"' + '","'.join(cells) + '"')
    return "\n".join(lines) + "\n"


def test_newer_header_device_column_and_mpi_rank_column(tmp_path):
    rows = []
    for launch, device in ((0, 0), (1, 1)):  # the kernel on GPU 0, then on GPU 1
        rows += [(launch, device, 3, m, u, v) for _, _, m, u, v in _launch(launch)]
        rows.append((launch, device, 3, "device__attribute_display_name", "", "NVIDIA H100 80GB HBM3"))
    path = tmp_path / "h100.csv"
    path.write_text(_new_layout(rows))
    run = read_ncu(path)
    assert run.ranks == [3]
    assert run.cpu_name == "NVIDIA H100 80GB HBM3"
    assert run.table["thread"].tolist() == ["GPU 0", "GPU 1"]
    assert run.table["cpu"].tolist() == [0, 1]
    # one launch per GPU: 9e6 FLOP / 1 ms = 9000 MFLOP/s each; the point sums the GPUs
    assert run.table["DP [MFLOP/s]"].tolist() == pytest.approx([9000, 9000])
    assert points_dataframe(run)["performance_gflops"].tolist() == pytest.approx([18.0])


def test_passes_read_on_an_executor_join_as_read_serially(n1, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        parallel = read_likwid(write_raw_passes(tmp_path), executor=pool)
    pd.testing.assert_frame_equal(parallel.table.drop(columns=["source", "line"]),
                                  n1.table.drop(columns=["source", "line"]))
