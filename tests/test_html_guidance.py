"""The shared HTML page carries each point's guidance in its hover text, as the widget's tooltip does.

Sample 17 (``gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt``, Xeon Gold 6132 "@ 2.60GHz",
8 threads, MEM_DP), region Setup, STAT Sum column: ``Scalar [MUOPS/s] 2703.4415``, ``Packed
[MUOPS/s] 0.6845`` (2,704.126 in all: 99.97 % scalar, shown 99.9 %), ``DP [MFLOP/s] 2708.1630``;
8 lanes x 2,704.126 / 2,708.163 = 7.99: "8x"; STAT Avg ``Clock [MHz] 1895.4695`` against the
2,600 MHz of the CPU name (72.9 %, below the 90 % of the clock rule).
"""

from __future__ import annotations

import json
import re
import warnings

import pandas as pd
import pytest

from roofline_widget import RooflineWidget, sample_path
from roofline_widget.static.html_marks import GUIDANCE_CHARS, GUIDANCE_WIDTH, point_texts
from roofline_widget.static.html_page import STATE_TYPE
from roofline_widget.static.html_view import page_guidance

GIVE_8T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt")
SCALAR = ("scalar code: 99.9 % scalar (2,703 of 2,704 MUOPS/s): vectorising could raise the "
          "compute ceiling 8x (AVX-512 DP, 8 lanes)")
CLOCK = "clock 1,895 MHz against 2,600 nominal (CPU name)"


@pytest.fixture(scope="module")
def widget():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RooflineWidget(GIVE_8T)


def _page_names(path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    state = json.loads(re.search(rf'<script type="{re.escape(STATE_TYPE)}">(.*?)</script>', text,
                                 re.S).group(1))["state"]
    names = [name for entry in state.values() if entry["model_name"] == "ScatterModel"
             for name in entry["state"].get("names") or [] if name]
    return {name.split("\n")[0]: name for name in names}


def test_the_page_shows_the_guidance_the_widget_gives(widget, tmp_path):
    names = _page_names(widget.save_html(tmp_path / "guidance.html"))
    setup = names["Setup"]
    lines = setup.split("\n")
    assert lines[0] == "Setup"
    assert lines[1].endswith("(memory bound)")  # the efficiency line, as before
    guidance = " ".join(lines[2:])  # wrapped at GUIDANCE_WIDTH: joined again by a blank
    assert all(len(line) <= GUIDANCE_WIDTH for line in lines[2:])
    assert guidance.startswith(SCALAR)
    assert CLOCK in guidance
    # the widget's tooltip line of the same point starts alike (it is cut at 160 characters)
    row = widget.to_dataframe().set_index("region").loc["Setup"]
    assert row["limiting_factor"] == "scalar code"
    point = widget.figure.scene.point_rows
    judged = widget.roofline.classify(point[point["region"] == "Setup"]).iloc[0]
    assert widget.figure.guidance_line(judged) == SCALAR
    assert names["Solve"].split("\n")[2].startswith("scalar code: 99.9 % scalar (8,621 of 8,621")


def test_page_guidance_aligns_by_point_and_says_nothing_without_a_rule():
    advised = pd.DataFrame({"file": ["a", "a", "b"], "rank": [0, 1, 0],
                            "region": ["r", "r", "s"],
                            "limiting_factor": ["scalar code", "", "MEM bandwidth"],
                            "guidance": ["99 % scalar", "no rule applies to the numbers measured",
                                         "only less traffic helps"]})
    points = advised.iloc[[2, 1, 0]][["file", "rank", "region"]].reset_index(drop=True)
    points.loc[len(points)] = ["c", 0, "t"]  # a point the widget's frame does not hold
    assert page_guidance(advised, points) == [
        "MEM bandwidth: only less traffic helps", "", "scalar code: 99 % scalar", ""]
    assert page_guidance(advised.drop(columns="guidance"), points) == [""] * 4


def test_a_long_guidance_is_cut_and_wrapped():
    points = pd.DataFrame({"file": ["a"], "region": ["r"], "rank": [0]})
    text = point_texts(points, None, ["x" * 10 + " " + "word " * 400])[0]
    lines = text.split("\n")
    assert lines[0] == "r"
    assert all(len(line) <= GUIDANCE_WIDTH for line in lines[1:])
    assert len(" ".join(lines[1:])) <= GUIDANCE_CHARS
    assert text.endswith("…")
    assert point_texts(points, None, [""]) == ["r"]  # no rule: no line
