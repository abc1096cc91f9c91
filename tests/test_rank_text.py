"""Ranks as text: "0-71,144", host and socket names, globs; bounded for thousands of ranks.

The generated job of ``study_files.py``: 32 hosts n000 ... n031 of 72 ranks (two sockets of 36
cores, the likwid-topology block first), 2,304 ranks; sample 23: hosts f0702, f0703, f0704 of
72 ranks each (no topology block: no socket names).
"""

from __future__ import annotations

import json

import pytest
from study_files import write_ranks
from traitlets import TraitError
from wild_samples import SOMA_216

from roofline_widget import (
    RegionSums,
    RooflineWidget,
    SelectionError,
    View,
    points_dataframe,
    read_likwid,
)
from roofline_widget.points.rank_places import rank_places_of, ranks_of
from roofline_widget.settings import SELECTION
from roofline_widget.settings.rank_text import (
    MAX_TEXT_CHARACTERS,
    MAX_TEXT_RANKS,
    format_rank_text,
    parse_rank_text,
)


@pytest.fixture(scope="module")
def ranks_2304(tmp_path_factory):
    return RegionSums.from_runs(read_likwid(write_ranks(tmp_path_factory.mktemp("r") / "j.txt")))


def test_ranges_and_ranks():
    assert parse_rank_text("0-71,144") == [*range(72), 144]
    assert parse_rank_text(" 5 , 3-4,, 4 ") == [3, 4, 5]
    assert parse_rank_text("") == []
    assert parse_rank_text(" , ") == []
    # the setting keeps a text as typed (checked for its shape); the data reads it
    assert SELECTION["ranks"].check("0-3,7") == "0-3,7"
    assert SELECTION["ranks"].check((7, 3, 3)) == [3, 7]
    assert points_dataframe(SOMA_216, ranks="0-71")["rank_group"].tolist() == ["f0702 (ranks 0-71)"]


@pytest.mark.parametrize(("text", "message"), [
    ("7-3", "expected a-b with a <= b"),
    ("0-2000000000", "names 2,000,000,001 ranks; at most 1,000,000"),
    ("99999999999", "ranks must be integers from 0 to 2147483647, got 99999999999"),
    ("1" * 5000, "got <an integer of 5,000 digits>"),
    ("f0702", "'f0702' names a host or socket: that needs the data"),
    ("-1", "ranks must be integers from 0 to 2147483647, got -1"),
    ("1.5", "ranks must be integers from 0 to 2147483647, got 1.5"),
    ("0-x", "'0-x' is no rank \\(144\\), range \\(0-71\\), host"),
    ("all", "None selects every rank"),
])
def test_bad_texts_are_named(text, message):
    with pytest.raises(SelectionError, match=message):
        parse_rank_text(text)


def test_the_text_and_what_it_names_are_bounded():
    with pytest.raises(SelectionError, match=f"at most {MAX_TEXT_CHARACTERS:,}"):
        parse_rank_text("1," * MAX_TEXT_CHARACTERS)
    with pytest.raises(SelectionError, match="names more than"):
        parse_rank_text(f"0-{MAX_TEXT_RANKS - 1},{MAX_TEXT_RANKS}-{MAX_TEXT_RANKS + 5}")
    # with the data's ranks a range is cut to them, never expanded
    assert parse_rank_text("0-2000000000", known=[5, 1, 70]) == [1, 5, 70]
    with pytest.raises(SelectionError, match="must be a string"):
        parse_rank_text(b"0-3")  # type: ignore[arg-type]


def test_host_and_socket_names_of_2304_ranks(ranks_2304):
    places = rank_places_of(ranks_2304)
    assert len(places) == 32 + 64
    assert places["n003"] == list(range(216, 288))
    assert places["n003 socket 1"] == list(range(252, 288))
    assert ranks_of(ranks_2304, "n003 socket 1") == list(range(252, 288))
    assert ranks_of(ranks_2304, "N003") == list(range(216, 288))  # case does not matter
    assert ranks_of(ranks_2304, "n00*") == list(range(720))  # hosts n000 ... n009
    assert len(ranks_of(ranks_2304, "* socket 0")) == 32 * 36
    assert ranks_of(ranks_2304, "0-5, n031 socket 1")[6:8] == [2268, 2269]
    assert ranks_of(ranks_2304, "2300-999999999") == [2300, 2301, 2302, 2303]
    with pytest.raises(SelectionError, match="no host or socket of that name in the data \\(hosts "
                                             "and sockets: 'n000', 'n001', 'n002', 'n003', 'n004' "
                                             "and 91 more\\)"):
        ranks_of(ranks_2304, "f0702")
    # what the points name, the text reads back: a socket's rank_group "n000 socket 1 (...)"
    socket = points_dataframe(ranks_2304, ranks=ranks_of(ranks_2304, "n000 socket 1"))
    assert socket["rank_group"].tolist() == ["n000 socket 1 (ranks 36-71)"]


def test_sample_23_names_its_hosts():
    assert list(rank_places_of(RegionSums.from_runs(SOMA_216))) == ["f0702", "f0703", "f0704"]
    assert ranks_of(RegionSums.from_runs(SOMA_216), "f0703,0") == [0, *range(72, 144)]


def test_format_reads_back():
    assert format_rank_text([]) == ""
    assert format_rank_text(range(2304)) == "0-2303"
    every_72nd = list(range(0, 2304, 72))
    assert format_rank_text(every_72nd).count(",") == 31
    for ranks in ([0], [3, 1, 2], [*range(72), 144], every_72nd):
        assert parse_rank_text(format_rank_text(ranks)) == sorted(ranks)


# ---------------------------------------------------------------- the text through every ranks=
# Sample 23: hosts f0702 (ranks 0-71), f0703 (72-143), f0704 (144-215); memory counted on one
# rank per socket, so "auto" sums each host (no topology block: no sockets).  A host's text and
# the same ranks as numbers must give the same points in every entry point.


def test_a_host_name_selects_what_its_ranks_select():
    by_name = points_dataframe(SOMA_216, ranks="f0703")
    by_numbers = points_dataframe(SOMA_216, ranks=range(72, 144))
    assert by_name["rank_group"].tolist() == ["f0703 (ranks 72-143)"]
    assert by_name["performance_gflops"].tolist() == by_numbers["performance_gflops"].tolist()
    # "0-71, f0704": host f0702 by its range, and f0704 by name: two host points
    two = points_dataframe(SOMA_216, ranks="0-71, f0704")
    assert two["rank_group"].tolist() == ["f0702 (ranks 0-71)", "f0704 (ranks 144-215)"]
    with pytest.raises(SelectionError, match=r"'f0799': no host or socket of that name in the "
                                             r"data \(hosts and sockets: 'f0702', 'f0703', 'f0704'\)"):
        points_dataframe(SOMA_216, ranks="f0799")


def test_the_command_line_takes_host_names(capsys, tmp_path):
    from roofline_widget.cli import main

    assert main(["points", str(SOMA_216), "--ranks", "f07*3", "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [(p["rank"], p["rank_group"]) for p in points] == [(72, "f0703 (ranks 72-143)")]
    # the scaling command's --ranks is the same option (cli/parser.py add_ranks_option)
    assert main(["scaling", str(SOMA_216), "--ranks", "7-3"]) == 2
    assert "argument --ranks: rank range '7-3': expected a-b with a <= b" in capsys.readouterr().err


def test_a_view_keeps_the_text_and_names_what_the_data_lacks(tmp_path):
    sums = RegionSums.from_runs(SOMA_216)
    path = tmp_path / "hosts.json"
    View(ranks="f0704, 0").save(path)
    assert View.load(path).ranks == "f0704, 0"
    assert View.load(path).check_against(sums) == []
    [problem] = View(ranks="f0799").check_against(sums)
    assert "'f0799': no host or socket of that name in the data" in problem


def test_the_widget_reads_the_text_into_its_ranks():
    w = RooflineWidget(SOMA_216)
    w.ranks = "f0702 , 144-150"
    assert w.ranks == [*range(72), *range(144, 151)]
    assert sorted(w.to_dataframe()["rank_group"]) == ["f0702 (ranks 0-71)",
                                                          "f0704 (ranks 144-150)"]
    before = w.controls.status_html.value
    with pytest.raises(TraitError, match="'f0799': no host or socket of that name"):
        w.ranks = "f0799"
    assert w.ranks == [*range(72), *range(144, 151)]  # unchanged, the plot too
    assert w.controls.status_html.value == before
    w.load_view(View(ranks="f0703"))
    assert w.ranks == list(range(72, 144))


def test_one_rank_is_kept_known_or_not():
    # a range names the data's ranks in it; one rank is kept, for the selection to name it
    assert parse_rank_text("3, 5-9, 300", known=[0, 3, 6, 7]) == [3, 6, 7, 300]
    with pytest.warns(UserWarning, match=r"ranks \[300\] are not in the data"):
        assert points_dataframe(SOMA_216, ranks="f0703, 300")["rank"].tolist() == [72]
