"""Every text the package writes is escaped for its target: CSV, matplotlib, SVG, terminal.

The names come from a real sample (sample 5, pmgpu: five regions, one thread)
whose region names are replaced by hostile ones, as a user's code may name
its regions.  Before the fix (issue 37): ``points --csv`` wrote formula cells,
``$\\frac{$`` made every static plot fail, ``cost $5 and $6`` was drawn
"cost 5and6", a BEL or ESC made ``plot -o x.svg`` crash with a traceback and
leave an SVG that does not parse, and ``points --csv`` and
``plot_roofline(verbose=True)`` printed raw escape sequences.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import warnings
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mutations import rename_regions

from roofline_widget import escaping, sample_path
from roofline_widget.cli import main
from roofline_widget.roofs.roofline import ComputeRoof

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")  # sample 5
HOSTILE = {
    "init_datastructures": '=HYPERLINK("http://x","y")',
    "function_d": "+cmd|' /C calc'!A0",
    "function_b": "@SUM(1+1)",
    "function_a": "cost $5 and $6",
    "function_c": "bell\x07esc\x1b[31m",
}
SVG = "{http://www.w3.org/2000/svg}"


def _renamed(tmp_path, names: dict[str, str], stem: str = "hostile"):
    """Sample 5 with its regions renamed (``Region <function_a>`` -> ``Region <new name>``)."""
    text = open(PMGPU, encoding="utf-8").read()
    for old, new in names.items():
        assert f"<{old}>" in text
        text = text.replace(f"<{old}>", new)
    path = tmp_path / f"{stem}.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def hostile(tmp_path):
    return _renamed(tmp_path, HOSTILE)


def test_points_csv_neutralises_formula_cells_as_data_does(hostile, tmp_path, capsys):
    assert main(["points", str(hostile), "--csv"]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(printed)))
    regions = sorted(row["region"] for row in rows)
    # the three formula starts get a leading ', the others are kept as they are (on stdout, a
    # terminal's, with the control characters escaped)
    safe = ["'=HYPERLINK(\"http://x\",\"y\")", "'+cmd|' /C calc'!A0", "'@SUM(1+1)", "cost $5 and $6"]
    assert regions == sorted([*safe, "bell\\x07esc\\x1b[31m"])
    # --data writes the same cells (one helper for both), the names as they are in a file
    data = tmp_path / "points.csv"
    assert main(["plot", str(hostile), "-o", str(tmp_path / "x.png"), "--data", str(data)]) == 0
    written = pd.read_csv(data)
    assert sorted(written["region"]) == sorted([*safe, "bell\x07esc\x1b[31m"])


def test_spreadsheet_safe_looks_at_every_text_cell_and_the_header():
    table = pd.DataFrame({"region": ["=1+2", "solve", "\uff1dSUM(A1)"], "rank": [-1, 0, 1],
                          "-metric": ["a", "-b", "c"]})
    safe = escaping.spreadsheet_safe(table)
    assert safe["region"].tolist() == ["'=1+2", "solve", "'\uff1dSUM(A1)"]
    assert safe["rank"].tolist() == [-1, 0, 1]  # a number is no formula
    assert list(safe.columns) == ["region", "rank", "'-metric"]
    assert safe["'-metric"].tolist() == ["a", "'-b", "c"]
    assert table["region"].tolist()[0] == "=1+2"  # the caller's table is left alone


def _drawn_texts(payload) -> list[str]:
    """Every text of the saved figure's SVG, drawn as text (svg.fonttype none)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        payload["figure"].savefig(buffer, format="svg")
    root = ET.fromstring(buffer.getvalue())
    return ["".join(node.itertext()) for node in root.iter(f"{SVG}text")]


def test_dollar_signs_in_names_are_drawn_as_written(tmp_path):
    from roofline_widget import plot_roofline

    path = _renamed(tmp_path, {"function_a": "$\\frac{$", "function_b": "cost $5 and $6"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(path, filepath=tmp_path / "x.png", verbose=False)
    assert (tmp_path / "x.png").stat().st_size > 0
    drawn = " ".join(_drawn_texts(payload))
    assert "cost $5 and $6" in drawn
    assert "$\\frac{$" in drawn


def test_control_characters_make_a_valid_svg_from_the_command_line(hostile, tmp_path, capsys):
    svg = tmp_path / "x.svg"
    assert main(["plot", str(hostile), "-o", str(svg)]) == 0
    root = ET.parse(svg).getroot()  # parses: no raw control character in the file
    assert "\x1b" not in svg.read_text(encoding="utf-8")
    titles = [title.text or "" for title in root.iter(f"{SVG}title")]
    assert any("bell\\x07esc\\x1b[31m" in title for title in titles), titles
    assert "\x1b" not in capsys.readouterr().out


def test_the_terminal_gets_no_escape_sequence(hostile, tmp_path, capsys):
    from roofline_widget import plot_roofline

    assert main(["points", str(hostile)]) == 0
    assert main(["points", str(hostile), "--csv"]) == 0
    printed = capsys.readouterr()
    for stream in (printed.out, printed.err):
        assert "\x1b" not in stream
        assert "\x07" not in stream
    assert "bell\\x07esc\\x1b[31m" in printed.out
    # plot_roofline's report names the region doing almost no FLOPs (init_datastructures:
    # 6.86e-09 GFLOP/s), named with an escape sequence here
    no_flop = _renamed(tmp_path, {"init_datastructures": "init\x1b[2J"}, "no_flop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plot_roofline(no_flop, verbose=True, peak_bandwidth=20.0,
                      ceilings=[ComputeRoof("peak\x1b[31m", 5.0)])
    printed = capsys.readouterr().out
    assert "init\\x1b[2J" in printed
    assert "peak\\x1b[31m" in printed
    assert "\x1b" not in printed


def test_escaping_rules():
    assert escaping.matplotlib_text("cost $5 and $6") == "cost \\$5 and \\$6"
    assert escaping.xml_text("a\x00b\x1bc\ud800\udcff\ufffe") == "a\\x00b\\x1bc\\ud800\\xff\\ufffe"
    assert escaping.xml_text("tab\tnewline\n") == "tab\tnewline\n"  # XML holds these
    assert escaping.terminal_text("solve\x1b[2J\u202e") == "solve\\x1b[2J\\u202e"
    assert escaping.file_name(b"job\xff.txt") == "job\\xff.txt"
    assert escaping.spreadsheet_cell("-1") == "'-1"
    assert escaping.spreadsheet_cell(-1) == -1


# ---------------------------------------------------------------- the output fuzz
#: Examples of the output fuzz (``ROOFLINE_FUZZ_EXAMPLES``; ``benchmarks/fuzz_readers_long.py
#: --outputs`` runs many).
EXAMPLES = max(1, int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", "30")) // 5)
NAMED_SAMPLES = ["pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt",
                 "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt",
                 "gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt"]
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_names_reach_every_output_escaped(tmp_path, data):
    name = data.draw(st.sampled_from(NAMED_SAMPLES), label="sample")
    text, renamed = rename_regions(open(sample_path(name), encoding="utf-8").read(), data)
    path = tmp_path / "named.txt"
    path.write_text(text, encoding="utf-8")
    svg, table = tmp_path / "x.svg", tmp_path / "x.csv"
    printed, errors = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed), \
            contextlib.redirect_stderr(errors):
        warnings.simplefilter("ignore")
        assert main(["plot", str(path), "-o", str(svg), "--data", str(table)]) == 0
        assert main(["points", str(path)]) == 0
        assert main(["points", str(path), "--csv"]) == 0
    ET.parse(svg)  # an SVG that parses, whatever the names
    for stream in (printed.getvalue(), errors.getvalue()):
        assert not _CONTROL.search(stream.replace("\n", "")), repr(stream)
    with open(table, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            assert not row["region"].startswith(escaping.FORMULA_STARTS), row["region"]
            assert row["region"].removeprefix("'") in renamed.values()
    event(f"{name}: {len(renamed)} regions renamed")


def test_a_missing_file_named_with_an_escape_sequence_is_printed_escaped(tmp_path, capsys):
    assert main(["points", str(tmp_path / "gone\x1b[2J.txt")]) == 2
    error = capsys.readouterr().err
    assert "gone\\x1b[2J.txt" in error
    assert "\x1b" not in error
