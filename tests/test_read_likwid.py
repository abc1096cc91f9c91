"""read_likwid: content-based detection, merging files of one job, files it refuses."""

from pathlib import Path

import numpy as np
import pytest

from roofline_widget import points_dataframe, read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io import as_runs, read_likwid_text

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
GMG_MEM = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
CSV_SAMPLE = sample_path("ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv")


def _split_pmgpu(tmp_path):
    """The slurm log holds two runs (MEM_DP, then FLOPS_DP): write each to a file of its own."""
    lines = Path(PMGPU).read_text().splitlines(keepends=True)
    # the second run starts with its own "INFO: You are running LIKWID in a cpuset" line (line 179)
    starts = [i for i, line in enumerate(lines) if line.startswith("INFO: You are running LIKWID")]
    assert starts == [0, 178]
    mem, flops = tmp_path / "mem_dp.txt", tmp_path / "flops_dp.txt"
    mem.write_text("".join(lines[:178]))
    flops.write_text("".join(lines[178:]))
    return mem, flops


def test_layout_is_detected_from_content_not_suffix(tmp_path):
    disguised = tmp_path / "output.dat"
    disguised.write_bytes(Path(CSV_SAMPLE).read_bytes())
    assert read_likwid(disguised).layout == "perfctr-csv"
    text_as_csv = tmp_path / "tables.csv"
    text_as_csv.write_bytes(Path(GMG_MEM).read_bytes())
    assert read_likwid(text_as_csv).layout == "perfctr-text"


def test_two_files_of_one_job_are_merged_and_joined(tmp_path):
    mem, flops = _split_pmgpu(tmp_path)
    merged = read_likwid([mem, flops], label="pmgpu")
    assert merged.label == "pmgpu"
    assert merged.sources == (str(mem), str(flops))
    assert merged.groups == ["MEM_DP", "FLOPS_DP"]
    assert len(merged.table) == 10  # 5 regions x 2 groups x 1 hardware thread
    points = points_dataframe(merged).set_index("region")
    whole_log = points_dataframe(read_likwid(PMGPU)).set_index("region")
    # same points whether the two runs come in one log or in two files
    np.testing.assert_array_equal(points["performance_gflops"], whole_log["performance_gflops"])
    # <function_a>: DP 2134.1473 MFLOP/s (MEM_DP group, first in file order), bandwidth 8554.1607 MB/s
    assert points.loc["<function_a>", "performance_gflops"] == pytest.approx(2.1341473)
    assert points.loc["<function_a>", "bandwidth_gbs"] == pytest.approx(8.5541607)
    assert set(points["groups"]) == {"MEM_DP+FLOPS_DP"}


def test_the_same_file_twice_is_a_duplicate(tmp_path):
    mem, _ = _split_pmgpu(tmp_path)
    with pytest.raises(LikwidFormatError, match="each \\(rank, region, group, thread\\) once") as info:
        read_likwid([mem, mem])
    assert info.value.source == str(mem)
    assert info.value.line == 9  # the header "Region <init_datastructures>, Group 1: MEM_DP"


def test_same_region_and_group_twice_in_one_log(tmp_path):
    # The same output twice, every number equal: one measurement printed twice, read once
    # (a second measurement would be a second run, see test_several_runs.py).
    mem, _ = _split_pmgpu(tmp_path)
    twice = tmp_path / "twice.txt"
    twice.write_text(mem.read_text() * 2)
    with pytest.warns(LikwidReadWarning, match="printed again"):
        run = read_likwid(twice)
    assert run.runs == ()
    assert len(run.table) == 5  # 5 regions x 1 thread
    assert len(run.warnings) == 5
    # the first region header of the repeated run, and of the first
    assert run.warnings[0].startswith(f"line {178 + 9}: region '<init_datastructures>'")
    assert "identical to line 9" in run.warnings[0]


@pytest.mark.parametrize(("content", "expected"), [
    (b"", "an empty file"),
    (b"  \n\n\t\n", "an empty file"),
    (b"\x89HDF\r\n\x1a\n\x00\x00\x00binary", "an HDF5 file .*format='scope-h5'"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "binary data"),
])
def test_empty_and_binary_files(tmp_path, content, expected):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(LikwidFormatError, match=expected) as info:
        read_likwid(path)
    assert info.value.source == str(path)
    assert info.value.line is None


TIMELINE = """\
--------------------------------------------------------------------------------
CPU name:\tIntel(R) Core(TM) i7-6700K CPU @ 4.00GHz
CPU type:\tIntel Skylake processor
CPU clock:\t4.01 GHz
--------------------------------------------------------------------------------
# GID|MetricsCount|CpuCount|Total runtime|Runtime (RDTSC) [s]|Clock [MHz]|DP [MFLOP/s]
1 3 1 1.000184 1.000184 4008.1216 1234.5678
1 3 1 2.000312 1.000128 4007.9982 1240.0001
"""

TOPOLOGY = """\
--------------------------------------------------------------------------------
CPU name:\tIntel(R) Core(TM) i7-6700K CPU @ 4.00GHz
CPU type:\tIntel Skylake processor
CPU stepping:\t3
********************************************************************************
Hardware Thread Topology
********************************************************************************
Sockets:\t\t1
Cores per socket:\t4
Threads per core:\t2
--------------------------------------------------------------------------------
HWThread\tThread\t\tCore\t\tSocket\t\tAvailable
0\t\t0\t\t0\t\t0\t\t*
********************************************************************************
Graphical Topology
********************************************************************************
Socket 0:
+---------------------------------------------+
| +--------+ +--------+ +--------+ +--------+ |
| |  0 4   | |  1 5   | |  2 6   | |  3 7   | |
"""


@pytest.mark.parametrize(("text", "line", "what"), [
    (TIMELINE, 6, "timeline output"),
    (TOPOLOGY, 6, "likwid-topology output"),
    ("hello from the application\nno tables here\n", None, "no LIKWID table"),
])
def test_output_that_is_not_marker_or_wrapper_output(tmp_path, text, line, what):
    path = tmp_path / "out.txt"
    path.write_text(text)
    with pytest.raises(LikwidFormatError, match=what) as info:
        read_likwid(path)
    assert info.value.line == line
    assert str(path) in str(info.value)


def test_likwid_bench_output_points_to_read_likwid_bench():
    with pytest.raises(LikwidFormatError, match="read_likwid_bench"):
        read_likwid(sample_path("likwid_readme_bench_triad_avx_skylake_i7-6700K.txt"))


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_likwid(tmp_path / "nope.txt")
    with pytest.raises(LikwidFormatError, match="not a directory"):
        read_likwid(tmp_path)
    with pytest.raises(ValueError, match="at least one file"):
        read_likwid([])


def test_read_likwid_text_names_the_source():
    run = read_likwid_text(Path(GMG_MEM).read_text(), "job-42.out")
    assert run.label == "job-42"
    assert run.sources == ("job-42.out",)
    assert run.regions == ["Setup", "Solve"]


def test_as_runs_accepts_runs_paths_and_lists():
    run = read_likwid(GMG_MEM)
    runs = as_runs([run, PMGPU, Path(CSV_SAMPLE)])
    assert [r.label for r in runs] == [
        "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket",
        "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t",
        "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O",
    ]
    assert as_runs(run)[0] is run
    with pytest.raises(TypeError, match="LikwidRun"):
        as_runs(42)
    with pytest.raises(ValueError, match="no runs"):
        as_runs([])


def test_a_table_passed_over_is_a_visible_warning(tmp_path):
    from roofline_widget.errors import LikwidReadWarning

    foreign = ("+-----------+-------+\n"
               "|  Kernel   | GB/s  |\n"
               "+-----------+-------+\n"
               "|   triad   | 11.16 |\n"
               "+-----------+-------+\n")
    text = Path(GMG_MEM).read_text()
    path = tmp_path / "with_foreign_table.txt"
    path.write_text(foreign + text)
    with pytest.warns(LikwidReadWarning, match="passed over 1 part") as record:
        run = read_likwid(path)
    assert "line 1: ignored a table headed 'Kernel'" in str(record[0].message)
    assert run.warnings == ["line 1: ignored a table headed 'Kernel' "
                            "(not a LIKWID Region Info, Event or Metric table)"]
    assert run.regions == ["Setup", "Solve"]  # the LIKWID tables are all read
