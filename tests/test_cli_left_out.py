"""What the command line says of regions left out: where ITS user finds the list, said once.

Sample 2, GMGPolar FLOPS_DP (``roofline_widget/data/gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt``):
a FLOPS_DP run of two regions (Setup, Solve) and one rank, no bandwidth row at all: both rows are
left out ("2 x no bandwidth metric in the data") and no point is placed.  Merged with pmgpu
(``--separate``, 5 regions of a MEM_DP+FLOPS_DP run) the plot is drawn and lists the two.
"""

from __future__ import annotations

import pytest
from test_cli import PMGPU, one_error_line, run, run_json

from roofline_widget import points_dataframe, sample_path
from roofline_widget.cli.report import CLI_LEFT_OUT_LIST, error_line
from roofline_widget.errors import LEFT_OUT_LIST, RegionsLeftOutWarning

FLOPS_ONLY = sample_path("gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt")
SUMMARY = ("2 region/rank row(s) left out of the roofline (FLOP metric 'DP [MFLOP/s]', no "
           "bandwidth metric): 2 x no bandwidth metric in the data.")


def test_a_failed_plot_says_the_reasons_once_and_names_the_points_command(tmp_path):
    done = run("plot", FLOPS_ONLY, cwd=tmp_path)
    line = one_error_line(done, "plot")
    assert line == ("roofline-widget plot: error: No LIKWID roofline points found with FLOP "
                    "metric 'DP [MFLOP/s]' (detected) and no bandwidth metric: see the warning "
                    "above")
    assert done.stderr.count(SUMMARY) == 1
    assert (f"roofline-widget: warning: RegionsLeftOutWarning: {SUMMARY} 'roofline-widget points' "
            "lists them (with --json: \"left_out\").") in done.stderr.splitlines()
    assert "left_out_regions()" not in done.stderr
    # and the command it names does list them: Setup and Solve, rank 0
    code, listed = run_json("points", FLOPS_ONLY, cwd=tmp_path)
    assert code == 0
    assert sorted((r["region"], r["rank"]) for r in listed["left_out"]) == [("Setup", 0),
                                                                            ("Solve", 0)]


def test_a_drawn_plot_warns_in_the_command_lines_words(tmp_path):
    code, result = run_json("plot", FLOPS_ONLY, PMGPU, "--separate", "-o", "r.png", cwd=tmp_path)
    assert code == 0
    assert result["points"] == 5  # pmgpu's 5 regions
    [warning] = [w for w in result["warnings"] if w["category"] == "RegionsLeftOutWarning"]
    assert warning["message"].endswith(CLI_LEFT_OUT_LIST)
    assert sorted(r["region"] for r in result["left_out"]) == ["Setup", "Solve"]


def test_the_python_warning_keeps_naming_left_out_regions():
    with pytest.warns(RegionsLeftOutWarning) as caught:
        points_dataframe(FLOPS_ONLY)
    assert str(caught[0].message) == f"{SUMMARY} {LEFT_OUT_LIST}"
    assert LEFT_OUT_LIST == "See left_out_regions() for the list."


def test_an_error_without_a_warning_shown_is_whole():
    error = ValueError(f"nothing placed: {SUMMARY} {LEFT_OUT_LIST}")
    assert error_line("plot", error) == (
        f"roofline-widget plot: error: nothing placed: {SUMMARY} {CLI_LEFT_OUT_LIST}")
