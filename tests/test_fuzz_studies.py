"""Fuzzing the two new parsers of user input: ranks as text, and CSV files of points.

* ranks text: any text raises ``SelectionError`` or names ranks; a rank list written by
  ``format_rank_text`` reads back the same (the reference: ``sorted(set(ranks))``);
* a points CSV (``points_dataframe`` of sample 2, written as CSV) damaged -- cut at a random
  offset, lines deleted or printed twice, a cell replaced by garbage -- raises
  ``PointsTableError`` / ``LikwidFormatError``, or gives points whose numbers are what the
  damaged file's cells say (the reference: the csv module reading the same text).

``ROOFLINE_FUZZ_EXAMPLES`` sets the examples (30 by default).
"""

from __future__ import annotations

import csv
import io
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import cut, delete_lines, print_twice

from roofline_widget import LikwidFormatError, SelectionError, points_dataframe, sample_path
from roofline_widget.io.points_table import sniff_points_table
from roofline_widget.settings.rank_text import format_rank_text, parse_rank_text

EXAMPLES = int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
GIVE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
GARBAGE = ["x", "?", "12a", "1.2.3", "-5", "1e", "#", "inf", "nan", "", "\uff11", "=1+2", ","]
NUMBERS = ["performance_gflops", "bandwidth_gbs", "runtime_seconds", "n_threads"]


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("0123456789-, abc*xf\u0661")), max_size=60))
def test_any_ranks_text_is_ranks_or_a_selection_error(text):
    try:
        ranks = parse_rank_text(text)
    except SelectionError:
        return
    assert ranks == sorted(set(ranks))
    assert all(0 <= r < 2**31 for r in ranks)


@FUZZ
@given(st.binary(max_size=300), st.sampled_from([b"", b"region,performance_gflops,", b"\x1f\x8b"]))
def test_any_first_bytes_are_sniffed_without_error(tail, start):
    assert sniff_points_table(start + tail) in (True, False)


@FUZZ
@given(st.lists(st.integers(0, 5000), max_size=200))
def test_format_and_parse_are_inverse(ranks):
    assert parse_rank_text(format_rank_text(ranks)) == sorted(set(ranks))
    assert parse_rank_text(format_rank_text(ranks), known=range(5001)) == sorted(set(ranks))


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    path = tmp_path_factory.mktemp("points") / "points.csv"
    points_dataframe(GIVE_4T).to_csv(path, index=False)
    return path.read_text(), points_dataframe(str(path)).set_index("region")


def _damaged(text: str, data) -> str:
    how = data.draw(st.sampled_from(["cut", "delete", "twice", "cell"]))
    if how == "cut":
        return cut(text, data)
    if how == "delete":
        return delete_lines(text, data)
    if how == "twice":
        return print_twice(text, data)
    lines = text.splitlines()
    row = data.draw(st.integers(0, len(lines) - 1))
    cells = lines[row].split(",")
    cells[data.draw(st.integers(0, len(cells) - 1))] = data.draw(st.sampled_from(GARBAGE))
    lines[row] = ",".join(cells)
    return "\n".join(lines) + "\n"


def _number(cell: str | None, default: float = math.nan) -> float:
    """A cell as the module docstring of io/points_table.py says it is read (ValueError: no number)."""
    text = (cell or "").strip()
    return default if text.lower() in ("", "nan", "<na>", "none") else float(text)


def _reference(text: str) -> dict:
    """Per (region, rank) of a CSV the numbers its cells say, read by the csv module alone."""
    found = {}
    for row in csv.DictReader(io.StringIO(text)):
        try:
            key = (row["region"], int(_number(row.get("rank"), 0)))
            numbers = {column: _number(row.get(column), 1 if column == "n_threads" else math.nan)
                       for column in NUMBERS}
            if "bandwidth_gbs" not in row:  # the documented fallback: GFLOP/s over the intensity
                with np.errstate(divide="ignore", invalid="ignore"):
                    numbers["bandwidth_gbs"] = np.float64(numbers["performance_gflops"]) / _number(
                        row.get("arithmetic_intensity_flops_per_byte"))
            found[key] = numbers
        except (KeyError, TypeError, ValueError):
            continue
    return found


@FUZZ
@given(data=st.data())
def test_a_damaged_points_csv_raises_or_gives_what_its_cells_say(intact, data, tmp_path_factory):
    text, expected = intact
    damaged = _damaged(text, data)
    path = tmp_path_factory.mktemp("damaged") / "points.csv"
    path.write_text(damaged)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = points_dataframe(str(path))
    except LikwidFormatError:  # PointsTableError, or no LIKWID table once the header is gone
        return
    reference = _reference(damaged)
    for row in got.to_dict("records"):
        cells = reference[(str(row["region"]), int(row["rank"]))]
        for column in NUMBERS:
            assert row[column] == pytest.approx(cells[column], rel=1e-12, nan_ok=True), column
    if damaged == text:
        assert got.set_index("region")[NUMBERS].equals(expected[NUMBERS])
