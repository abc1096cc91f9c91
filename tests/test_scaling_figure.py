"""The scaling figure (static/scaling.py) and ``roofline-widget scaling`` (cli/commands.py, cli/parser.py).

Samples 17 (gmgpolar on 1, 2 and 8 threads: Solve 134.7829 s, 69.45862 s, 19.59984 s) and 19
(seven LULESH sizes), and the generated 54-run sweep of ``study_files.py``.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from study_files import GMGPOLAR_THREADS
from test_cli import run
from wild_samples import LULESH_SIZES

from roofline_widget import OutputPathError, scaling_table
from roofline_widget.analysis.study_keys import KEYS
from roofline_widget.cli import main
from roofline_widget.cli.parser import STUDY_KEYS
from roofline_widget.static.scaling import MAX_PANELS, save_scaling_figure, scaling_figure

pytest.importorskip("matplotlib")

GMGPOLAR = list(GMGPOLAR_THREADS)
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def sweep_name(sweep_file):
    return str(sweep_file)


def _lines(axes) -> dict:
    return {line.get_label(): line for line in axes.get_lines()}


def test_speed_up_against_threads_with_the_ideal_line():
    figure = scaling_figure(scaling_table(GMGPOLAR))
    axes = figure.axes[0]
    lines = _lines(axes)
    assert set(lines) == {"Setup", "Solve", "ideal (speed-up = threads ratio)"}
    x, y = lines["Solve"].get_data()
    assert list(x) == [1, 2, 8]
    assert list(y) == pytest.approx([1.0, 134.7829 / 69.45862, 134.7829 / 19.59984])
    assert list(lines["ideal (speed-up = threads ratio)"].get_data()[1]) == [1, 2, 8]
    assert axes.get_xscale() == axes.get_yscale() == "log"
    assert [t.get_text() for t in axes.get_xticklabels()] == ["1", "2", "8"]
    assert axes.get_ylabel() == "speed-up against the group's first run"
    assert figure.get_suptitle().endswith("dashed: ideal scaling.")


def test_a_panel_per_case_of_the_sweep(sweep_name):
    figure = scaling_figure(scaling_table(sweep_name))
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert [axes.get_title() for axes in visible] == ["case=sedov", "case=noh", "case=sod"]
    kinematics = _lines(visible[0])["CalcKinematics"]
    assert kinematics.get_data()[0][-1] == 18
    assert kinematics.get_data()[1][-1] == pytest.approx(42.04 / 12.37)
    # one legend entry per region and the ideal, never one per run
    legend = figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == [
        "CalcKinematics", "CalcHourglass", "UpdateVolumes", "ideal (speed-up = threads ratio)"]
    # grouped by threads: 18 groups, the first 12 drawn with a note
    by_threads = scaling_figure(scaling_table(sweep_name, group_by="threads"))
    assert sum(axes.get_visible() for axes in by_threads.axes) == MAX_PANELS
    assert any("the first 12 of 18 groups drawn" in t.get_text() for t in by_threads.texts)
    bottom = [axes for axes in by_threads.axes if axes.get_visible()][-1]  # shared x: labelled
    assert [t.get_text() for t in bottom.get_xticklabels()] == ["sedov", "noh", "sod"]


def test_sizes_draw_gflops_and_leave_out_broken_counters(tmp_path):
    table = scaling_table(LULESH_SIZES)
    figure = scaling_figure(table)
    axes = figure.axes[0]
    assert axes.get_ylabel() == "GFLOP/s"
    assert "so GFLOP/s is drawn" in figure.get_suptitle()
    assert [t.get_text() for t in axes.get_xticklabels()] == [
        "30^3", "60^3", "90^3", "120^3", "150^3", "250^3", "350^3"]
    hourglass = _lines(axes)["CalcFBHourglassForceForElems"]
    assert list(hourglass.get_data()[1][[0, 6]]) == pytest.approx([7.771664, 7.8122025])
    # CalcPressureForElems reports 19,514,360 GFLOP/s on one thread at 30^3: not drawn, named
    assert table["beyond_hardware"].sum() == 5
    pressure = _lines(axes)["CalcPressureForElems"]
    assert 0 not in pressure.get_data()[0]
    assert np.nanmax(axes.get_ylim()) < 1e3
    assert any("5 point(s) of 4 region(s) report more GFLOP/s" in t.get_text()
               for t in figure.texts)
    save_scaling_figure(table, tmp_path / "sizes.png")
    assert (tmp_path / "sizes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_region_names_are_plain_text_and_the_path_is_checked(tmp_path):
    table = scaling_table(GMGPOLAR)
    table["region"] = table["region"].map({"Setup": "$x^2$ <setup>", "Solve": "Solve"})
    save_scaling_figure(table, tmp_path / "names.svg")
    svg = (tmp_path / "names.svg").read_text()
    ET.fromstring(svg)  # well-formed: the name is escaped
    assert "&lt;setup&gt;" in svg
    with pytest.raises(OutputPathError):
        save_scaling_figure(table, tmp_path / "missing" / "fig.png")
    assert not (tmp_path / "missing").exists()


def test_cli_scaling_text_json_csv_and_figure(tmp_path, capsys, sweep_name):
    assert main(["scaling", *GMGPOLAR]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("3 run(s), 2 region(s); the runs vary in threads")
    solve = [line.split() for line in out if line.split()[:1] == ["Solve"]]
    # region, threads, runtime, speed-up, efficiency %, GFLOP/s (4 significant digits)
    assert solve[-1][:5] == ["Solve", "8", "19.6", "6.877", "85.96"]
    assert main(["scaling", sweep_name, "--group-by", "case", "--include", "CalcK", "--json",
                 "-o", str(tmp_path / "sweep.pdf")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["varies"] == "threads"
    assert data["groups"] == ["case=sedov", "case=noh", "case=sod"]
    assert len(data["rows"]) == 54
    last = data["rows"][17]
    assert (last["threads"], round(last["speedup"], 2), round(100 * last["efficiency"], 1)) \
        == (18, 3.40, 18.9)
    assert (tmp_path / "sweep.pdf").read_bytes()[:5] == b"%PDF-"
    assert main(["scaling", str(LULESH_SIZES), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 154
    assert rows[1]["note"].startswith("speed-up compares different work (size 30^3 -> 60^3)")
    assert main(["scaling", *GMGPOLAR, "--group-by", "compiler"]) == 2  # argparse: not a key
    assert "--group-by" in capsys.readouterr().err


def test_cli_scaling_errors_and_help(tmp_path, sweep_name):
    done = run("scaling", sweep_name, "--group-by", "size", cwd=tmp_path)
    assert done.returncode == 2
    assert "still varies in threads and case" in done.stderr
    assert "Traceback" not in done.stderr
    bad = run("scaling", sweep_name, "--ranks", "0-x", cwd=tmp_path)
    assert bad.returncode == 2
    assert "0-x" in bad.stderr
    helped = run("scaling", "--help", cwd=tmp_path)
    assert helped.returncode == 0
    assert "roofline-widget scaling sweep.txt --group-by case -o scaling.png" in helped.stdout
    assert "  2  usage or input error" in helped.stdout
    assert "\n    scaling " in run("--help", cwd=tmp_path).stdout


def test_the_group_by_keys_are_the_studys():
    assert STUDY_KEYS == KEYS
