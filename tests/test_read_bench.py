"""Tests of the likwid-bench reader (roofline_widget.io.bench)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_widget import sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.bench import BenchResult, read_likwid_bench
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

README = "likwid_readme_bench_triad_avx_skylake_i7-6700K.txt"
WRAPPED = "bench_in_perfctr_zen2_epyc7702_MEM_dash_values_wrapper.txt"


def test_readme_triad_avx():
    (result,) = read_likwid_bench(sample_path(README))
    assert isinstance(result, BenchResult)
    assert result.kernel == "triad_avx"
    assert (result.threads, result.work_groups) == (3, 1)
    # MFlops/s: 697.71 -> 0.69771 GFLOP/s; MByte/s: 11163.34 -> 11.16334 GB/s (decimal)
    assert result.gflops == pytest.approx(0.69771, rel=1e-12)
    assert result.gbs == pytest.approx(11.16334, rel=1e-12)
    assert result.time_s == 5.733051
    assert result.data_volume_bytes == 63999983616
    assert result.flops == 3999998976
    assert result.line == 10  # "Test: triad_avx"
    assert result.source == sample_path(README)


def test_readme_rates_agree_with_volume_and_time():
    (result,) = read_likwid_bench(sample_path(README))
    # 63999983616 B / 5.733051 s = 1.116334e10 B/s = 11.16334 GB/s
    assert result.data_volume_bytes / result.time_s / 1e9 == pytest.approx(result.gbs, rel=1e-6)
    # 3999998976 FLOP / 5.733051 s = 6.9771e8 FLOP/s = 0.69771 GFLOP/s
    assert result.flops / result.time_s / 1e9 == pytest.approx(result.gflops, rel=1e-5)


def test_bench_wrapped_by_perfctr():
    (result,) = read_likwid_bench(sample_path(WRAPPED))
    assert (result.kernel, result.threads) == ("triad", 1)
    assert result.gflops == pytest.approx(0.44226)   # MFlops/s: 442.26
    assert result.gbs == pytest.approx(7.07623)      # MByte/s: 7076.23
    assert result.time_s == 14.13181
    # The likwid-perfctr header ("CPU name:\t...") after the run is no result line.
    assert "CPU name" not in result.values
    assert result.values["Cycles per update"] == "9.027237"


def test_roofs_with_provenance():
    (result,) = read_likwid_bench(sample_path(README))
    compute, bandwidth = result.compute_roof(), result.bandwidth_roof("DRAM")
    # likwid-bench runs on the CPU; triad_avx has no _sp: a DP kernel
    assert compute == ComputeRoof("triad_avx", result.gflops, "likwid-bench triad_avx, 3 threads",
                                  device="cpu", precision="DP")
    assert bandwidth == BandwidthRoof("DRAM", result.gbs, "likwid-bench triad_avx, 3 threads",
                                      device="cpu")
    (single,) = read_likwid_bench(sample_path(WRAPPED))
    assert single.bandwidth_roof().source == "likwid-bench triad, 1 thread"


def test_several_benchmarks_in_one_file(tmp_path):
    path = tmp_path / "both.txt"
    readme = Path(sample_path(README)).read_text()
    path.write_text(readme + Path(sample_path(WRAPPED)).read_text())
    results = read_likwid_bench(path)
    assert [r.kernel for r in results] == ["triad_avx", "triad"]
    assert [r.threads for r in results] == [3, 1]
    assert [r.gbs for r in results] == pytest.approx([11.16334, 7.07623])
    # The second "Test: triad" is line 14 of its file, after the README's lines.
    assert results[1].line == len(readme.splitlines()) + 14


def test_interrupted_run_is_skipped_with_a_warning(tmp_path):
    readme = Path(sample_path(README)).read_text()
    truncated = readme.split("Cycles:")[0]
    path = tmp_path / "killed.txt"
    path.write_text(readme + truncated)
    # The second banner "LIKWID MICRO BENCHMARK" is line 9 of the copy: 43 + 9 = 52.
    assert len(readme.splitlines()) == 43
    with pytest.warns(UserWarning, match=r"line 52: likwid-bench run without"):
        results = read_likwid_bench(path)
    assert [r.kernel for r in results] == ["triad_avx"]


def test_no_flops_kernel_is_no_compute_roof(tmp_path):
    text = Path(sample_path(README)).read_text().replace("triad_avx", "load_avx").replace(
        "MFlops/s:\t\t697.71", "MFlops/s:\t\t0.00")
    path = tmp_path / "load.txt"
    path.write_text(text)
    (result,) = read_likwid_bench(path)
    assert result.bandwidth_roof().gbs == pytest.approx(11.16334)
    with pytest.raises(ValueError, match="load_avx"):
        result.compute_roof()


def test_file_without_bench_results_raises():
    with pytest.raises(LikwidFormatError, match="no likwid-bench result") as info:
        read_likwid_bench(sample_path("ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"))
    assert info.value.line is None


def test_non_numeric_result_raises(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(Path(sample_path(README)).read_text().replace("11163.34", "lots"))
    with pytest.raises(LikwidFormatError, match="triad_avx") as info:
        read_likwid_bench(path)
    assert info.value.line == 10


# --------------------------------------------------------------------------- truncated output
@pytest.mark.parametrize("cut_after", ["MByte/s:\t\t11", "MByte/s:\t\t11163.34\n",
                                       "UOPs:\t\t\t3749999040\n"])
def test_result_cut_off_by_the_end_of_the_file_is_skipped(tmp_path, cut_after):
    from roofline_widget.errors import LikwidReadWarning
    text = Path(sample_path(README)).read_text()
    path = tmp_path / "cut.txt"
    # the README result twice: the first is complete, the second is cut off
    path.write_text(text + text[:text.index(cut_after) + len(cut_after)])
    with pytest.warns(LikwidReadWarning, match=r"line 52: likwid-bench run 'triad_avx' whose "
                      r"results end at line \d+ without the closing '-----' line") as caught:
        results = read_likwid_bench(path)
    assert len(caught) == 1
    # only the complete result: 11.16334 GB/s, never 0.011 GB/s from 'MByte/s: 11'
    assert [(r.line, r.gbs) for r in results] == [(10, 11.16334)]


def test_only_a_cut_off_result_is_no_result(tmp_path):
    text = Path(sample_path(README)).read_text()
    path = tmp_path / "cut.txt"
    path.write_text(text[:text.index("MByte/s:") + len("MByte/s:\t\t11")])
    with pytest.warns(UserWarning, match="without the closing"), \
            pytest.raises(LikwidFormatError, match="no likwid-bench result"):
        read_likwid_bench(path)
