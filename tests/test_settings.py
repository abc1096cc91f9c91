"""One rule, one message: every user setting checked through roofline_widget.settings.

Each invalid value is set through every door that takes the setting (the widget's trait,
``View.load``, ``plot_roofline``, the command line) and must give the same sentence; the
widget keeps its old value and stays usable (``to_view`` works).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from traitlets import TraitError

from roofline_widget import (
    RooflineWidget,
    SelectionError,
    View,
    ViewError,
    plot_roofline,
    sample_path,
)
from roofline_widget.cli import main
from roofline_widget.settings import SELECTION, SETTINGS

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")  # 1 rank, MEM level
VIEW = {"format": "roofline-widget view", "version": 1}

#: setting -> [(invalid value, the one message of the rule it breaks)]
PEAK_MESSAGES = [
    (5e9, "peak_flops is in GFLOP/s; 5e9 looks like FLOP/s"),
    (0, "peak_flops must be positive (GFLOP/s), got 0"),
    (-1, "peak_flops must be positive (GFLOP/s), got -1"),
    (math.nan, "peak_flops must be a finite number of GFLOP/s, got nan"),
    (math.inf, "peak_flops must be a finite number of GFLOP/s, got inf"),
    (1e-320, "peak_flops must be at least 1e-6 GFLOP/s (1 kFLOP/s), got 1e-320"),
]
BANDWIDTH_MESSAGE = "peak_bandwidth is in GB/s; 5e9 looks like B/s"
MAX_POINTS_MESSAGES = [
    (0, "max_points must be an integer from 1 to 1,000,000,000, got 0"),
    (-1, "max_points must be an integer from 1 to 1,000,000,000, got -1"),
    (10**10, "max_points must be an integer from 1 to 1,000,000,000, got 10000000000"),
    (2.5, "max_points must be an integer from 1 to 1,000,000,000, got 2.5"),
    (True, "max_points must be an integer from 1 to 1,000,000,000, got True"),
]
RANKS_MESSAGES = [
    ([-1], "ranks must be integers from 0 to 2147483647, got -1"),
    ([0, 2**31], "ranks must be integers from 0 to 2147483647, got 2147483648"),
    ([1.5], "ranks must be integers from 0 to 2147483647, got 1.5"),
    ("all", "ranks text 'all': None selects every rank; a text names ranks, ranges, hosts and "
            "sockets (\"0-71,144\", \"f0702 socket 1\")"),
    ("7-3", "rank range '7-3': expected a-b with a <= b"),
    ("-1", "ranks must be integers from 0 to 2147483647, got -1"),
    ("0-x", "ranks text '0-x' is no rank (144), range (0-71), host (f0702), socket (f0702 "
            "socket 1) or glob (f07*)"),
]
LEVEL_MESSAGE = "levels must be among L1, L2, L3, MEM, got 'L4'"


@pytest.fixture(scope="module")
def widget(pmgpu):
    return RooflineWidget(pmgpu, peak_flops=100.0, peak_bandwidth=20.0)


def widget_message(widget, name: str, value) -> str:
    """The TraitError of ``widget.<name> = value``; the widget keeps its value and works."""
    before = getattr(widget, name)
    status = widget.controls.status_html.value
    with pytest.raises(TraitError) as error:
        setattr(widget, name, value)
    assert getattr(widget, name) == before
    assert widget.controls.status_html.value == status
    assert widget.to_view().peak_flops == 100.0  # the widget's state is whole
    return str(error.value)


def view_message(tmp_path, **fields) -> str:
    """The one problem ``View.load`` names for a file with ``fields``."""
    path = tmp_path / "view.json"
    path.write_text(json.dumps({**VIEW, **fields}), encoding="utf-8")  # NaN, Infinity: as Python writes
    with pytest.raises(ViewError) as error:
        View.load(path)
    assert error.value.source == str(path)
    [problem] = error.value.problems
    return problem


def plot_message(**keywords) -> str:
    with pytest.raises(ValueError) as error:  # noqa: PT011 - the message is compared below
        plot_roofline(PMGPU, verbose=False, backend="bqplot", **keywords)
    return str(error.value)


def cli_line(capsys, option: str, value: str) -> str:
    """The message of the one stderr line of a refused command line (exit code 2)."""
    assert main(["plot", PMGPU, "-o", "never.png", option, value]) == 2
    [line] = capsys.readouterr().err.splitlines()
    head = f"roofline-widget plot: error: argument {option}: "
    tail = " (roofline-widget plot --help)"
    assert line.startswith(head)
    assert line.endswith(tail)
    return line[len(head):-len(tail)]


@pytest.mark.parametrize(("value", "message"), PEAK_MESSAGES, ids=lambda v: repr(v)[:20])
def test_an_invalid_peak_gives_one_message_through_every_door(widget, tmp_path, capsys, value,
                                                              message):
    assert widget_message(widget, "peak_flops", value) == message
    assert view_message(tmp_path, peak_flops=value) == message
    assert plot_message(peak_flops=value) == message
    assert cli_line(capsys, "--peak-flops", repr(float(value))) == message


def test_a_bandwidth_in_bytes_per_second_is_named_so(widget, tmp_path):
    assert widget_message(widget, "peak_bandwidth", 5e9) == BANDWIDTH_MESSAGE
    assert view_message(tmp_path, peak_bandwidth=5e9) == BANDWIDTH_MESSAGE
    assert plot_message(peak_bandwidth=5e9) == BANDWIDTH_MESSAGE


@pytest.mark.parametrize(("value", "message"), MAX_POINTS_MESSAGES, ids=repr)
def test_an_invalid_max_points_gives_one_message(widget, tmp_path, value, message):
    # plot_roofline and the command line draw every point: they take no max_points
    assert widget_message(widget, "max_points", value) == message
    assert view_message(tmp_path, max_points=value) == message


@pytest.mark.parametrize(("value", "message"), RANKS_MESSAGES, ids=repr)
def test_invalid_ranks_give_one_message(widget, tmp_path, capsys, value, message):
    assert widget_message(widget, "ranks", value) == message
    assert view_message(tmp_path, ranks=value) == message
    assert plot_message(ranks=value) == message
    if isinstance(value, list) and all(isinstance(rank, int) for rank in value):
        text = ",".join(str(rank) for rank in value)
        assert cli_line(capsys, "--ranks", text) == message
    if isinstance(value, str):  # --ranks goes through the same rule
        assert cli_line(capsys, "--ranks", value) == message


def test_an_unknown_level_gives_one_message(widget, tmp_path, capsys):
    assert widget_message(widget, "levels", ["L4"]) == LEVEL_MESSAGE
    assert view_message(tmp_path, levels={"L4": "L4 bandwidth [MBytes/s]"}) == LEVEL_MESSAGE
    assert plot_message(levels=["L4"]) == LEVEL_MESSAGE
    assert cli_line(capsys, "--levels", "L4") == LEVEL_MESSAGE


def test_the_rules_normalise_what_they_accept():
    assert SELECTION["ranks"].check(np.array([5, 2, 5])) == [2, 5]
    assert SELECTION["ranks"].check([]) == []
    with pytest.raises(SelectionError, match="got True"):
        SELECTION["ranks"].check([True])
    with pytest.raises(SelectionError, match=r"got 10000000000"):
        SELECTION["ranks"].check(10**10)
    assert SELECTION["levels"].check({"L2": "x"}) == {"L2": "x"}
    assert SELECTION["levels"].check((("L2", "x"),)) == {"L2": "x"}  # as Selection stores it
    with pytest.raises(SelectionError, match="levels must be a mapping"):
        SELECTION["levels"].check({"L2": 3})
    assert SETTINGS["levels"].check(["MEM", "L2", "MEM"]) == ["L2", "MEM"]  # inner to outer
    assert SETTINGS["peak_flops"].check(2048) == 2048.0
    assert SETTINGS["peak_flops"].check(np.float64(1e-6)) == 1e-6
    assert SETTINGS["max_points"].check(np.int64(7)) == 7


def test_every_value_the_widget_takes_saves_as_a_view(pmgpu, tmp_path):
    # the trait and the view follow one rule: the limits themselves are taken by both
    w = RooflineWidget(pmgpu, peak_flops=1e9, peak_bandwidth=1e-6, max_points=10**9,
                       levels=["MEM"], ranks=[0])
    again = View.load(w.save_view(tmp_path / "limits.json"))
    assert (again.peak_flops, again.peak_bandwidth, again.max_points) == (1e9, 1e-6, 10**9)
    assert again.levels == {"MEM": "Memory bandwidth [MBytes/s]"}
    assert RooflineWidget(pmgpu, view=again).peak_bandwidth == 1e-6
