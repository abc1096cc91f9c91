"""The ``roofline-widget`` console script, run for real in a subprocess on the bundled samples.

Exit codes (0 ok, 1 findings, 2 usage or input error), files written and
opened, JSON parsed, and bad input (missing file, damaged file, bad option,
unwritable output).  Expected numbers are worked out by hand from the sample
files (the arithmetic is in the comments).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from roofline_widget import __version__, sample_path

REPO = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")  # sample 5
GIVE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")  # sample 2
TAKE = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")  # sample 16
MILAN = str(Path(sample_path("SOURCES.md")).parent / "machine_milan_epyc7763_16c")  # sample 22
RENDERED = [sample_path(f"rendered/rendered_not_measured_clx_2t_{g}.txt") for g in ("L2", "L3", "MEM_DP")]


def console_script() -> list[str]:
    """The installed ``roofline-widget`` script next to this Python; ``python -m`` where the
    checkout was not reinstalled since the script was added (never under CI)."""
    script = Path(sys.executable).with_name("roofline-widget")
    if script.is_file():
        return [str(script)]
    if os.environ.get("CI"):
        pytest.fail(f"no roofline-widget console script at {script}: pip install -e '.[test]'")
    return [sys.executable, "-m", "roofline_widget"]


def run(*args: str, cwd: Path, command: list[str] | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                     os.environ.get("PYTHONPATH")])))
    return subprocess.run([*(command or console_script()), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def run_json(*args: str, cwd: Path) -> tuple[int, dict]:
    done = run(*args, "--json", cwd=cwd)
    return done.returncode, json.loads(done.stdout)


def one_error_line(done: subprocess.CompletedProcess, command: str) -> str:
    """The error of a failed command: exit code 2, one line on stderr, no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"roofline-widget {command}: error: ")
    return errors[0]


# --------------------------------------------------------------------------
# help, version, python -m
# --------------------------------------------------------------------------
def test_help_lists_the_commands_examples_and_exit_codes(tmp_path):
    done = run("--help", cwd=tmp_path)
    assert done.returncode == 0
    for command in ("plot", "compare", "check", "machine", "points", "explain"):
        assert f"\n    {command} " in done.stdout
    assert "examples:" in done.stdout
    assert "exit codes:" in done.stdout
    for command in ("plot", "compare", "check", "machine", "points", "explain"):
        sub = run(command, "--help", cwd=tmp_path)
        assert sub.returncode == 0
        assert f"roofline-widget {command} " in sub.stdout.split("examples:")[1]
        assert "  2  usage or input error" in sub.stdout


def test_python_dash_m_is_the_same_program(tmp_path):
    done = run("--version", cwd=tmp_path, command=[sys.executable, "-m", "roofline_widget"])
    assert done.returncode == 0
    assert done.stdout.strip() == f"roofline-widget {__version__}"


# --------------------------------------------------------------------------
# plot
# --------------------------------------------------------------------------
def test_plot_writes_a_png_that_opens(tmp_path):
    from matplotlib import image

    done = run("plot", PMGPU, "--peak-flops", "2048", "--peak-bandwidth", "204.8", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote roofline.png: 5 point(s)")  # the default name
    pixels = image.imread(tmp_path / "roofline.png")
    assert pixels.shape[0] > 300
    assert pixels.shape[1] > 500
    # 2048 GFLOP/s over 204.8 GB/s: the ridge point is at 10 FLOP/byte
    assert "ridge point 10 FLOP/byte" in done.stdout


def _titles(svg_path: Path) -> list[str]:
    """The titles of the drawn points (the ceilings' lines have theirs: ``_ceiling_titles``;
    the notes under the axes theirs, group ``roofline-notes``)."""
    ceilings = set(_ceiling_titles(svg_path).values())
    notes = {g.find(f"{SVG}title").text for g in ET.parse(svg_path).getroot().iter(f"{SVG}g")
             if g.get("id") == "roofline-notes" and g.find(f"{SVG}title") is not None}
    return [t.text for t in ET.parse(svg_path).getroot().iter(f"{SVG}title")
            if t.text not in ceilings | notes]


def _ceiling_titles(svg_path: Path) -> dict[str, str]:
    """The title of each ceiling's line, by its group's id (``roofline-ceiling-<n>``)."""
    return {g.get("id"): g.find(f"{SVG}title").text
            for g in ET.parse(svg_path).getroot().iter(f"{SVG}g")
            if (g.get("id") or "").startswith("roofline-ceiling-")
            and g.find(f"{SVG}title") is not None}


def test_plot_svg_carries_each_points_numbers_as_a_hover_title(tmp_path):
    code, result = run_json("plot", PMGPU, "-o", "roofline.svg", "--peak-flops", "2048",
                            "--peak-bandwidth", "204.8", cwd=tmp_path)
    assert code == 0
    assert result["points"] == 5
    assert result["hover_titles"] == 5
    titles = _titles(tmp_path / "roofline.svg")
    assert len(titles) == 5
    [function_a] = [t for t in titles if t.startswith("<function_a>")]
    # sample 5, MEM_DP block of <function_a>: DP 2134.1472 MFLOP/s, Memory bandwidth 8554.1612
    # MBytes/s (one thread): 2.134 GFLOP/s, 8.554 GB/s, 2134.1472 / 8554.1612 = 0.2495 FLOP/byte;
    # the roof there is 0.2495 * 204.8 = 51.09 GFLOP/s, so 2.134 / 51.09 = 4.18 % of it
    assert "0.2495 FLOP/byte, 2.134 GFLOP/s, 8.554 GB/s" in function_a
    assert "4.18 % of attainable (memory bound)" in function_a
    # <init_datastructures> does 6.9e-9 GFLOP/s: drawn at the axis edge, titled all the same
    [init] = [t for t in titles if t.startswith("<init_datastructures>")]
    assert "almost no FLOPs: drawn at the axis edge" in init
    # each ceiling's line: the label on it, then where the number came from
    assert _ceiling_titles(tmp_path / "roofline.svg") == {
        "roofline-ceiling-0": "Peak 2048 GFLOP/s\nuser",
        "roofline-ceiling-1": "Peak bandwidth 204.8 GB/s\nuser"}


def test_plot_svg_titles_of_a_machines_ceilings_say_where_each_number_came_from(tmp_path):
    done = run("plot", PMGPU, "--ceilings", MILAN, "-o", "milan.svg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    titles = _ceiling_titles(tmp_path / "milan.svg")
    by_label = {text.split("\n")[0]: text for text in titles.values()}
    # sample 22: 820022.22 MFlops/s (peakflops_avx_fma), 771742.15 and 41272.67 MByte/s
    assert set(by_label) == {"DP AVX FMA 820 GFLOP/s", "L2 771.7 GB/s", "MEM 41.27 GB/s"}
    assert "likwid-bench stream_mem_avx_fma, 16 threads" in by_label["MEM 41.27 GB/s"]
    assert "milan_mem1_16c.log" in by_label["MEM 41.27 GB/s"]


def test_plot_svg_titles_escape_region_names(tmp_path):
    hostile = '<script>alert("x")</script>&'
    damaged = tmp_path / "hostile.txt"
    damaged.write_text(Path(PMGPU).read_text().replace("<function_a>", hostile))
    done = run("plot", str(damaged), "-o", "hostile.svg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    raw = (tmp_path / "hostile.svg").read_text()
    assert "<script>" not in raw
    assert "&lt;script&gt;alert(" in raw
    assert any(t.startswith(hostile + ", run hostile") for t in _titles(tmp_path / "hostile.svg"))


def test_plot_with_baseline_and_json_data(tmp_path):
    done = run("plot", TAKE, "--baseline", GIVE, "-o", "compare.svg", "--data", "points.json",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "points.json").read_text())
    setup = next(r for r in data["comparison"] if r["region"] == "Setup")
    # RDTSC runtime of Setup, slowest of 4 threads: 0.091758 s (give), 0.128629 s (take)
    assert setup["speedup"] == pytest.approx(0.091758 / 0.128629)
    titles = _titles(tmp_path / "compare.svg")
    assert len(titles) == 4  # two regions, each with a baseline point
    [setup_before] = [t for t in titles if t.startswith("Setup, baseline ")]
    assert setup_before.startswith("Setup, baseline gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket\n")
    assert setup_before.endswith("speed-up 0.713x")


def test_plot_levels_against_the_machines_ceilings(tmp_path):
    code, result = run_json("plot", *RENDERED, "--levels", "L2", "L3", "MEM", "--ceilings", MILAN,
                            "-o", "levels.png", cwd=tmp_path)
    assert code == 0
    assert (tmp_path / "levels.png").stat().st_size > 10_000
    # sample 22's bench figures: peakflops_avx_fma 820022.22 MFlops/s, L2 load 771742.15 MByte/s;
    # stream_mem_avx_fma ran twice (under MEM1 and MEM2), 41272.67 and 41258.46 MByte/s: the
    # roof of repetitions is their median, 41265.565
    assert {c["name"]: c["value"] for c in result["ceilings"]} == {
        "DP AVX FMA peak": 820.02222, "L2 (load, likwid-bench)": 771.74215,
        "MEM (stream_mem_avx_fma, likwid-bench)": pytest.approx(41.265565)}
    # the rendered run is a Xeon Gold 6248's, the ceilings an EPYC 7763's: told as a finding
    assert [f["check"] for f in result["level_findings"]] == ["intensity order", "other machine"]
    assert "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" in result["level_findings"][1]["detail"]
    assert "AMD EPYC 7763 64-Core Processor" in result["level_findings"][1]["detail"]
    done = run("plot", *RENDERED, "--levels", "L2", "L3", "MEM", "-o", "levels.svg", cwd=tmp_path)
    assert done.returncode == 0
    # 2 regions x (a point + 3 level dots) + 1 ring, every one titled; the ring keeps its id
    assert "9 of 9 drawn point(s) carry their numbers" in done.stdout
    root = ET.parse(tmp_path / "levels.svg").getroot()
    [ring] = [g for g in root.iter(f"{SVG}g") if g.get("id") == "roofline-level-findings"]
    assert "finding (intensity order): intensity falls from 0.2639" in "".join(ring.itertext())


def test_plot_levels_text_names_the_level_dots_and_the_ringed_finding(tmp_path):
    """The figure rings a level dot with a sanity finding; the text says which and why.

    Rendered L2/L3/MEM_DP runs, region stencil<3d>: DP 3040 MFLOP/s (MEM_DP STAT Sum), L2
    bandwidth 11520 MBytes/s, L3 bandwidth 22400 MBytes/s.  Intensity at L2 3040 / 11520 =
    0.2639, at L3 3040 / 22400 = 0.1357: 1 - 11520 / 22400 = 48.6 % lower, the L3 traffic
    22400 / 11520 = 1.94x the L2's.  2 regions x 3 levels = 6 level dots.
    """
    done = run("plot", *RENDERED, "--levels", "L2", "L3", "MEM", "-o", "levels.png", cwd=tmp_path)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[1] == ("  and 6 memory-level dot(s) (L2, L3, MEM), each against its level's "
                        "bandwidth metric")
    at = lines.index("sanity finding(s), ringed in the figure (1):")
    assert lines[at + 1].startswith(
        "  stencil<3d>, L3: intensity order: intensity falls from 0.2639 FLOP/byte at L2 to "
        "0.1357 at L3 (48.6 % lower): L3 traffic (22.4 GB/s, L3 bandwidth [MBytes/s]) is 1.94x "
        "the L2 traffic (11.52 GB/s, L2 bandwidth [MBytes/s])")
    assert len(lines) == at + 2  # the finding is the last thing said
    plain = run("plot", GIVE, "-o", "plain.png", cwd=tmp_path).stdout  # no levels, no findings
    assert "memory-level dot" not in plain
    assert "sanity finding" not in plain


# --------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------
def test_compare_fails_below_the_threshold_naming_the_region(tmp_path):
    done = run("compare", GIVE, TAKE, "--fail-below", "0.95", cwd=tmp_path)
    assert done.returncode == 1
    regressions = [line for line in done.stdout.splitlines() if line.startswith("REGRESSION")]
    # Setup: 0.091758 s -> 0.128629 s is 0.713x; Solve: 10.08174 s -> 4.479016 s is 2.251x
    assert regressions == ["REGRESSION: Setup runs 0.713x (0.09176 s -> 0.1286 s), "
                           "below --fail-below 0.95"]
    assert run("compare", GIVE, TAKE, "--fail-below", "0.7", cwd=tmp_path).returncode == 0


def test_compare_json_rows(tmp_path):
    code, result = run_json("compare", GIVE, TAKE, "--fail-below", "0.95", cwd=tmp_path)
    assert code == 1
    assert result["exit_code"] == 1
    assert [r["region"] for r in result["regressions"]] == ["Setup"]
    speedups = {r["region"]: r["speedup"] for r in result["rows"]}
    assert speedups["Solve"] == pytest.approx(10.08174 / 4.479016)
    code, result = run_json("compare", GIVE, TAKE, cwd=tmp_path)  # no gate: no failure
    assert code == 0
    assert result["regressions"] == []


# --------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------
def test_check_clean_run(tmp_path):
    code, result = run_json("check", GIVE, cwd=tmp_path)
    assert code == 0
    # every row of the sample's STAT tables ("... STAT |") is compared: 80 of them
    stat_rows = sum(" STAT " in line for line in Path(GIVE).read_text().splitlines())
    assert result["stat_sums"] == {"compared": stat_rows, "mismatches": []}
    assert result["sanity"] == {"ran": True, "not_run_because": None, "findings": []}


def test_check_finds_a_damaged_number(tmp_path):
    lines = Path(GIVE).read_text().splitlines(keepends=True)
    # Setup, Core 1: DP 478.9738 MFLOP/s (line 74); its STAT Sum stays 1950.0623
    assert "|  478.9738 |" in lines[73]
    assert "DP [MFLOP/s]" in lines[73]
    lines[73] = lines[73].replace("478.9738", "488.9738")
    damaged = tmp_path / "damaged.txt"
    damaged.write_text("".join(lines))
    code, result = run_json("check", str(damaged), cwd=tmp_path)
    assert code == 1
    [mismatch] = result["stat_sums"]["mismatches"]
    assert (mismatch["region"], mismatch["name"]) == ("Setup", "DP [MFLOP/s]")
    # 517.2402 + 488.9738 + 477.1800 + 476.6683 = 1960.0623 read, against LIKWID's 1950.0623
    assert mismatch["summed"] == pytest.approx(1960.0623)
    assert mismatch["stat_sum"] == pytest.approx(1950.0623)
    text = run("check", str(damaged), cwd=tmp_path)
    assert "STAT sums: 1 of 80 differ" in text.stdout


def test_check_sanity_findings_and_roofs(tmp_path):
    done = run("check", *RENDERED, cwd=tmp_path)
    assert done.returncode == 1
    assert "  stencil<3d>, L3: intensity order: intensity falls from 0.2639" in done.stdout
    # Solve does 4383.3768 MFLOP/s (STAT Sum of DP): above a 1 GFLOP/s peak, as Setup's 1.95
    code, result = run_json("check", GIVE, "--peak-flops", "1", "--peak-bandwidth", "100",
                            cwd=tmp_path)
    assert code == 1
    assert sorted((f["region"], f["check"]) for f in result["sanity"]["findings"]) == [
        ("Setup", "above roof"), ("Solve", "above roof")]


def test_check_without_level_metrics_says_why(tmp_path):
    flops_only = sample_path("gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt")  # sample 1
    done = run("check", flops_only, cwd=tmp_path)
    assert done.returncode == 0
    assert "sanity checks: not run: no bandwidth metric" in done.stdout


# --------------------------------------------------------------------------
# machine, points
# --------------------------------------------------------------------------
def test_machine_table_with_provenance(tmp_path):
    code, result = run_json("machine", MILAN, cwd=tmp_path)
    assert code == 0
    assert [Path(f).name for f in result["files"]] == [
        "milan_flops_dp_avx_fma_16c.log", "milan_flops_sp_avx_fma_16c.log", "milan_l2_16c.log",
        "milan_mem1_16c.log", "milan_mem2_16c.log"]  # the .sh script is not a log
    by_name = {c["name"]: c for c in result["ceilings"]}
    assert by_name["L2 (load, likwid-bench)"]["level"] == "L2"
    assert by_name["L2 (load, likwid-bench)"]["provenance"]["level_decided_by"] == (
        "likwid-perfctr group L2 wrapping the benchmark")
    # the ridge plot judges LIKWID's memory points by: 820.02222 GFLOP/s over the MEM roof,
    # the median of the MEM1 and MEM2 runs' figures, (41272.67 + 41258.46) / 2 = 41265.565
    # MByte/s: 19.872 FLOP/byte (not 1.06 against L2); and each level's ridge
    assert result["ridge_point"] == pytest.approx(820.02222 / 41.265565)
    assert result["level_ridges"] == pytest.approx({"L2": 820.02222 / 771.74215,
                                                    "MEM": 820.02222 / 41.265565})
    text = run("machine", MILAN, "--precision", "SP", cwd=tmp_path)
    assert "SP AVX FMA peak: 1639 GFLOP/s" in text.stdout  # 1639166.87 MFlops/s


def test_points_text_json_and_csv(tmp_path):
    text = run("points", PMGPU, cwd=tmp_path)
    assert text.returncode == 0
    assert text.stdout.startswith("5 point(s) of pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t")
    code, result = run_json("points", PMGPU, cwd=tmp_path)
    assert code == 0
    function_a = next(p for p in result["points"] if p["region"] == "<function_a>")
    assert function_a["performance_gflops"] == pytest.approx(2.1341472)  # 2134.1472 MFLOP/s
    assert function_a["bandwidth_gbs"] == pytest.approx(8.5541612)  # 8554.1612 MBytes/s
    rows = list(csv.DictReader(io.StringIO(run("points", PMGPU, "--csv", cwd=tmp_path).stdout)))
    assert [r["region"] for r in rows] == [p["region"] for p in result["points"]]
    assert float(rows[3]["arithmetic_intensity_flops_per_byte"]) == pytest.approx(
        2134.1472 / 8554.1612)


def test_points_left_out_are_listed_never_dropped(tmp_path):
    mpirun = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")  # sample 10: CACHES, no FLOPs
    code, result = run_json("points", mpirun, "--ranks", "0-3,7", "--combine-ranks", cwd=tmp_path)
    assert code == 0
    assert result["points"] == []
    assert [(r["region"], r["rank"], r["reason"]) for r in result["left_out"]] == [
        ("wr-only", -1, "no FLOP-rate metric in the data")]
    assert [w["category"] for w in result["warnings"]] == ["RegionsLeftOutWarning"]


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------
def test_missing_file(tmp_path):
    line = one_error_line(run("points", "no_such_run.txt", cwd=tmp_path), "points")
    assert line == "roofline-widget points: error: no_such_run.txt: No such file or directory"


def test_damaged_file_names_file_and_line(tmp_path):
    truncated = tmp_path / "truncated.txt"
    truncated.write_text("".join(Path(GIVE).read_text().splitlines(keepends=True)[:70]))
    line = one_error_line(run("plot", str(truncated), cwd=tmp_path), "plot")
    assert f"{truncated}, line " in line
    assert not (tmp_path / "roofline.png").exists()


def test_a_run_without_a_metric_is_told_in_words_never_none(tmp_path):
    """Sample 6 is a FLOPS_DP run only: 'DP [MFLOP/s]' 1.0774 on its one thread, no bandwidth row.
    Sample 15 is an L3 run only: 'L3 bandwidth [MBytes/s]', no FLOP rate.  Neither places a
    point; the error names the metric found and says which one the data lacks (not "None")."""
    flops_only = sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")
    done = run("plot", flops_only, cwd=tmp_path)
    # the reasons are the warning's, printed once; the error names the metrics and points to it
    assert one_error_line(done, "plot") == (
        "roofline-widget plot: error: No LIKWID roofline points found with FLOP metric "
        "'DP [MFLOP/s]' (detected) and no bandwidth metric: see the warning above")
    assert ("RegionsLeftOutWarning: 1 region/rank row(s) left out of the roofline (FLOP metric "
            "'DP [MFLOP/s]', no bandwidth metric): 1 x no bandwidth metric in the data.") \
        in done.stderr
    l3_only = sample_path("pylikwid_readme_haswell_i7-4770_lw40_L3_marker_python.txt")
    done = run("plot", l3_only, cwd=tmp_path)
    line = one_error_line(done, "plot")
    assert "found with no FLOP metric and bandwidth metric 'L3 bandwidth [MBytes/s]' (detected):" \
        in line
    assert "None" not in done.stderr


def test_bad_options(tmp_path):
    done = run("plot", PMGPU, "--ranks", "3-1", cwd=tmp_path)
    assert done.returncode == 2
    assert "argument --ranks: rank range '3-1'" in done.stderr
    assert run("frobnicate", cwd=tmp_path).returncode == 2
    unknown_format = one_error_line(run("points", PMGPU, "--format", "xml", cwd=tmp_path), "points")
    assert "unknown format 'xml'; valid formats: 'text', 'csv'" in unknown_format
    both = run("points", PMGPU, "--csv", "--json", cwd=tmp_path)
    assert both.returncode == 2
    assert "choose one" in both.stderr
    unknown = run("plot", PMGPU, "--flops-metric", "SP [MFLOP/s]", cwd=tmp_path)
    assert one_error_line(unknown, "plot").endswith("(detected): see the warning above")
    assert "5 x no metric 'SP [MFLOP/s]' in the data" in unknown.stderr  # the warning's, once


def test_unwritable_output_and_debug_traceback(tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a directory")
    done = run("plot", PMGPU, "-o", "notes.txt/x.png", cwd=tmp_path)
    assert "notes.txt/x.png" in one_error_line(done, "plot")
    debug = run("plot", PMGPU, "-o", "notes.txt/x.png", "--debug", cwd=tmp_path)
    assert debug.returncode == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert "OutputPathError" in debug.stderr


# --------------------------------------------------------------------------
# numeric options: the API's rules (roofline_widget.settings), errors in one line
# --------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "message"), [
    ("nan", "fail_below must be a finite number, got nan"),
    ("0", "fail_below must be positive, got 0"),
    ("-1", "fail_below must be positive, got -1"),
    ("fast", "fail_below must be a number, got 'fast'"),
])
def test_compare_refuses_a_gate_that_cannot_fail(tmp_path, value, message):
    # nan, 0 or -1: no speed-up is below it, so the gate would pass a 0.15x slowdown (exit 0)
    line = one_error_line(run("compare", GIVE, TAKE, "--fail-below", value, cwd=tmp_path),
                          "compare")
    assert line == (f"roofline-widget compare: error: argument --fail-below: {message} "
                    "(roofline-widget compare --help)")


def test_check_refuses_the_peaks_plot_refuses(tmp_path):
    message = "peak_flops must be at least 1e-6 GFLOP/s (1 kFLOP/s), got 1e-320"
    for command in ("plot", "check"):
        line = one_error_line(run(command, GIVE, "--peak-flops", "1e-320", "--peak-bandwidth",
                                  "100", cwd=tmp_path), command)
        assert line == (f"roofline-widget {command}: error: argument --peak-flops: {message} "
                        f"(roofline-widget {command} --help)")


@pytest.mark.parametrize(("arguments", "expected"), [
    (("plot",), "the following arguments are required: FILE"),
    (("points", PMGPU, "--colour", "red"), "unrecognized arguments: --colour red"),
    (("plot", PMGPU, "--group-ranks", "node"), "argument --group-ranks: group_ranks must be one "
                                               "of ['auto', 'rank', 'socket', 'host', 'all'], "
                                               "got 'node'"),
])
def test_usage_errors_are_one_line(tmp_path, arguments, expected):
    # argparse's usage block is not printed: the promised one line, with where to find help
    done = run(*arguments, cwd=tmp_path)
    line = one_error_line(done, arguments[0])
    assert done.stderr.splitlines() == [line]
    assert line == (f"roofline-widget {arguments[0]}: error: {expected} "
                    f"(roofline-widget {arguments[0]} --help)")
