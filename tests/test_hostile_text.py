"""Hostile text and CSV input (issue 37, the text reader's part): each case of the adversarial trial.

Each test failed before its fix:

* a separator line followed by 100,000 blanks made the separator pattern quadratic (16,000
  blanks: 7.5 s; 100,000: no answer in a minute), and so did a region header or a command line
  ending in many blanks; 400,000 commas on one CSV line took minutes (the padding was dropped one
  cell at a time);
* one line of 32 MB took far more than the 3 bytes of memory per byte of the file the readers
  promise (a line of dashes: 7.9 GB for 100 MB);
* ``Group +1 Raw`` in a CSV ``TABLE`` line dropped the Raw table silently (call counts NaN,
  runtimes from another row), an extra comma in a row made a garbled event name
  (``INSTR_RETIRED_ANY,FIXC0:``), a NUL byte past the first 64 KiB ended up inside a name.

The hangs and blow-ups run in a subprocess with a time limit (60 s, generous: the fixed reader
takes well under a second) and a limit on its address space, and assert what the read gives,
never how long it took.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError, LikwidReadWarning
from roofline_widget.io.run_marks import command_of, separator_text

ROOT = Path(__file__).resolve().parents[1]
JULIA = "likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"
CSV_SAMPLE = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"
CSV_REGIONS = ["multMatVet_NAO_OTIM", "multMatVet_COM_OTIM", "multMatMat_NAO_OTIM",
               "multMatMat_COM_OTIM"]
#: The child's address space: far above what a linear read of these files needs, far below
#: what the quadratic ones took (a line of dashes: 7.9 GB for 100 MB).
ADDRESS_SPACE = 6 * 2**30

#: The child: warm up (every module imported), reset the peak resident size, read the file,
#: print what it gave and the peak memory the read added.
CHILD = """
import json, sys, warnings
from roofline_widget import read_likwid, sample_path
from roofline_widget.errors import LikwidFormatError
read_likwid(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt"))
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
before = rss("VmRSS")
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")
out = {}
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = read_likwid(sys.argv[1])
    out = {"regions": run.regions, "warnings": [str(w.message) for w in caught]}
except LikwidFormatError as exc:
    out = {"error": str(exc), "line": exc.line}
out["added_bytes"] = rss("VmHWM") - before
print(json.dumps(out))
"""


def _limit_address_space():  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def read_in_child(path: Path, timeout: float = 60) -> dict:
    """``read_likwid(path)`` in a fresh interpreter, stopped after ``timeout`` seconds."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                              text=True, env=env, timeout=timeout,
                              preexec_fn=_limit_address_space)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading {path.name} gave no answer in {timeout:.0f} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _sample(name: str) -> str:
    return Path(sample_path(name)).read_text()


# ------------------------------------------------------------------ patterns linear in the line
@pytest.mark.parametrize("line", [
    "----" + " " * 100_000,                                   # the trial's separator line
    "=" * 40 + " " * 100_000 + "x",
    "Group 1 L3: Region " + " " * 100_000 + "x",              # a LIKWID 4.0 region header
    "+ srun likwid-perfctr -" + " " * 100_000 + "x",          # a command line
], ids=["dashes", "equals", "region-4.0", "command"])
def test_a_line_ending_in_many_blanks_is_read_in_linear_time(tmp_path, line):
    path = tmp_path / "blanks.txt"
    path.write_text(line + "\n" + _sample(JULIA))
    result = read_in_child(path)
    if line.startswith("Group"):  # a region header with no table below it
        assert result["line"] == 1, result
        assert "an Event or Metric table" in result["error"], result
    else:
        assert result["regions"] == ["saxpy"], result


def test_a_csv_line_of_many_commas_is_read_in_linear_time(tmp_path):
    lines = _sample(CSV_SAMPLE).splitlines()
    assert lines[15] == "INSTR_RETIRED_ANY,FIXC0,103637"
    lines[15] += "," * 400_000  # padding, as LIKWID pads its lines with commas, only more
    path = tmp_path / "commas.csv"
    path.write_text("\n".join(lines) + "\n")
    assert read_in_child(path)["regions"] == CSV_REGIONS


# ------------------------------------------------------------------ one very long line
@pytest.mark.parametrize("text", ["x", "-", "|", "+-", ",", "TABLE,", "Region "],
                         ids=["letters", "dashes", "bars", "border", "commas", "table", "region"])
def test_one_long_line_keeps_three_bytes_of_memory_per_byte(tmp_path, text):
    size = 32 * 2**20
    path = tmp_path / "long.txt"
    with open(path, "w") as handle:
        handle.write(_sample(JULIA))
        handle.write((text * (size // len(text) + 1))[:size] + "\n")
    result = read_in_child(path)
    assert result["added_bytes"] < 3 * path.stat().st_size, result
    assert result.get("regions") == ["saxpy"], result
    number = _sample(JULIA).count("\n") + 1
    assert any(f"line {number}: passed over a line of {size + len(text) * 0:,}" in w
               for w in result["warnings"]), result


# ------------------------------------------------------------------ what was dropped silently
def test_a_table_line_the_reader_cannot_read_is_an_error(tmp_path):
    text = _sample(CSV_SAMPLE)
    assert text.splitlines()[10] == "TABLE,Region multMatVet_NAO_OTIM,Group 1 Raw,FLOPS_DP,6"
    path = tmp_path / "plus.csv"
    path.write_text(text.replace("Group 1 Raw", "Group +1 Raw", 1))
    with pytest.raises(LikwidFormatError, match="TABLE") as info:
        read_likwid(path)
    assert info.value.line == 11
    assert "Group +1 Raw" in info.value.found


def test_a_table_line_cut_by_the_end_of_the_file_is_left_out_with_a_warning(tmp_path):
    text = _sample(CSV_SAMPLE)
    last = text.rindex("TABLE,Region multMatMat_COM_OTIM,Group 1 Metric")
    path = tmp_path / "cut.csv"
    path.write_text(text[:last + len("TABLE,Region multMatMat_COM")])
    with pytest.warns(LikwidReadWarning, match="the file ends inside line"):
        run = read_likwid(path)
    assert run.regions == CSV_REGIONS


@pytest.mark.parametrize("row", ["INSTR_RETIRED_ANY,FIXC0,,103637", "INSTR_RETIRED_ANY,,FIXC0,103637",
                                 "INSTR_RETIRED_ANY,FIXC0,103637,5"])
def test_an_extra_comma_in_a_raw_row_is_an_error_not_a_garbled_name(tmp_path, row):
    lines = _sample(CSV_SAMPLE).splitlines()
    lines[15] = row
    path = tmp_path / "comma.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LikwidFormatError, match="3 cells") as info:
        read_likwid(path)
    assert info.value.line == 16


def test_a_comma_inside_a_metric_name_is_kept_but_not_an_empty_or_numeric_cell(tmp_path):
    lines = _sample(CSV_SAMPLE).splitlines()
    assert lines[27] == "DP MFLOP/s,2116.0763,"
    lines[27] = "DP MFLOP/s, scalar,2116.0763,"
    path = tmp_path / "name.csv"
    path.write_text("\n".join(lines) + "\n")
    assert "DP MFLOP/s, scalar" in read_likwid(path).metric_names
    for damaged in ("DP MFLOP/s,,2116.0763,", "DP MFLOP/s,7,2116.0763,"):
        lines[27] = damaged
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(LikwidFormatError, match="2 cells") as info:
            read_likwid(path)
        assert info.value.line == 28


def test_a_nul_byte_past_the_first_64_kib_is_binary_data_not_part_of_a_name(tmp_path):
    text = "program output\n" * 5000 + _sample(JULIA)  # 75 KB of output, then the tables
    assert len(text[:text.index("Region saxpy")]) > 65536
    path = tmp_path / "nul.txt"
    path.write_text(text.replace("Region saxpy", "Region sa\x00xpy"))
    with pytest.raises(LikwidFormatError, match="binary data") as info:
        read_likwid(path)
    assert info.value.line == text[:text.index("Region saxpy")].count("\n") + 1


# ------------------------------------------------------------------ the same lines as the patterns
#: The separator and command patterns of before (quadratic in a run of blanks): the reference the
#: string methods that replaced them are checked against.
OLD_SEPARATOR = re.compile(r"^(?P<c>[#=*~-])(?P=c){2,}[ \t]*(?P<text>[^#=*~ \t-](?:.*?[^ \t])?)?"
                           r"[ \t]*(?P=c){3,}[ \t]*$")
OLD_COMMAND = re.compile(r"(?:^|[\s;&|(])(?P<command>likwid-(?:perfctr|mpirun)\s+-.*?)\s*$")


@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
@given(st.text(st.sampled_from("#=-*~ \tab\x0b1"), max_size=16))
def test_separator_lines_are_those_of_the_pattern(line):
    match = OLD_SEPARATOR.match(line)
    expected = None if match is None else (
        match["text"] if match["text"] is not None else ("" if match["c"] == "#" else None))
    assert separator_text(line) == expected


@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(["likwid-", "perfctr", "mpirun", " ", "\t", "-", "x", ";", "(",
                                 "|", "\u2003", "likwid-perfctr -"]), max_size=10).map("".join))
def test_command_lines_are_those_of_the_pattern(line):
    match = OLD_COMMAND.search(line)
    assert command_of(line) == (None if match is None else match["command"])
