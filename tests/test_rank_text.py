"""Ranks as text: "0-71,144", host and socket names, globs; bounded for thousands of ranks.

The generated job of ``study_files.py``: 32 hosts n000 ... n031 of 72 ranks (two sockets of 36
cores, the likwid-topology block first), 2,304 ranks; sample 23: hosts f0702, f0703, f0704 of
72 ranks each (no topology block: no socket names).
"""

from __future__ import annotations

import pytest
from study_files import write_ranks
from wild_samples import SOMA_216

from roofline_widget import RegionSums, SelectionError, points_dataframe, read_likwid
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
    assert SELECTION["ranks"].check("0-3,7") == [0, 1, 2, 3, 7]
    assert points_dataframe(SOMA_216, ranks="0-71")["rank_group"].tolist() == ["f0702 (ranks 0-71)"]


@pytest.mark.parametrize(("text", "message"), [
    ("7-3", "expected a-b with a <= b"),
    ("0-2000000000", "names 2,000,000,001 ranks; at most 1,000,000"),
    ("99999999999", "larger than 2147483647"),
    ("f0702", "a host or socket name needs the data: ranks_of"),
    ("-1", "none of these"),
    ("1.5", "none of these"),
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
    with pytest.raises(SelectionError, match="the hosts and sockets are 'n000', 'n001', 'n002', "
                                             "'n003', 'n004' and 91 more"):
        ranks_of(ranks_2304, "f0702")
    # what the points name, the text reads back: a socket's rank_group "n000 socket 1 (...)"
    socket = points_dataframe(ranks_2304, ranks=ranks_of(ranks_2304, "n000 socket 1"))
    assert socket["rank_group"].tolist() == ["n000 socket 1 (ranks 36-71)"]


def test_sample_23_names_its_hosts():
    assert list(rank_places_of(RegionSums.from_runs(SOMA_216))) == ["f0702", "f0703", "f0704"]
    assert ranks_of(SOMA_216, "f0703,0") == [0, *range(72, 144)]


def test_format_reads_back():
    assert format_rank_text([]) == ""
    assert format_rank_text(range(2304)) == "0-2303"
    every_72nd = list(range(0, 2304, 72))
    assert format_rank_text(every_72nd).count(",") == 31
    for ranks in ([0], [3, 1, 2], [*range(72), 144], every_72nd):
        assert parse_rank_text(format_rank_text(ranks)) == sorted(ranks)
