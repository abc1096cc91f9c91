"""The widget's Ranks field (widget/rank_control.py): a text linked to ``ranks``, at any rank count.

Sample 23: 216 ranks on hosts f0702 (ranks 0-71), f0703 (72-143), f0704 (144-215), no
likwid-topology block (no socket names); "auto" sums each host (memory is counted on one rank per
socket).  The generated job of ``study_files.py``: 32 hosts n000 ... n031 of 72 ranks, two sockets
of 36 each, 2,304 ranks.  A generated points table of 6,250 ranks x 2 regions: the case where a
list of every rank cost 3.4 s to build (issue 33).
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
import pandas as pd
import pytest
from study_files import write_ranks
from wild_samples import SOMA_216

from roofline_widget import RegionSums, RooflineWidget, View, read_likwid
from roofline_widget.widget.rank_control import MAX_PLACE_CHOICES, RankControl, ranks_hint
from roofline_widget.widget.state import UpdateGuard


def every_widget(root: widgets.Widget) -> list[widgets.Widget]:
    """``root`` and every widget below it (children, and an Accordion's)."""
    found, todo = [], [root]
    while todo:
        widget = todo.pop()
        found.append(widget)
        todo += [child for child in getattr(widget, "children", ()) or ()
                 if isinstance(child, widgets.Widget)]
    return found


def drawn(w: RooflineWidget) -> list[tuple]:
    """What the points mark shows: (rank, x, y) of every drawn point."""
    frame = w.to_dataframe()
    return sorted(zip(frame["rank"], frame["arithmetic_intensity_flops_per_byte"],
                      frame["performance_gflops"]))


@pytest.fixture(scope="module")
def soma():
    return RooflineWidget(SOMA_216)


def test_sample_23_hint_menu_and_the_trait(soma):
    field = soma.controls.rank_control
    assert soma.ranks is None
    assert field.text.value == ""
    assert field.hint == "216 ranks on 3 hosts: 0-215; hosts f0702, f0703, f0704"
    assert field.place_choice.options == (("host / socket", ""), ("f0702", "f0702"),
                                          ("f0703", "f0703"), ("f0704", "f0704"))
    # the trait changed by code: the field shows the host's name, the menu picks it
    soma.ranks = list(range(144, 216))
    assert field.text.value == "f0704"
    assert field.place_choice.value == "f0704"
    assert soma.to_dataframe()["rank_group"].tolist() == ["f0704 (ranks 144-215)"]
    soma.ranks = [0, 1, 2, 100]
    assert field.text.value == "0-2,100"
    assert field.place_choice.value == ""
    soma.ranks = None
    assert field.text.value == ""


def test_sample_23_typed_and_picked(soma):
    field = soma.controls.rank_control
    field.place_choice.value = "f0703"  # the menu fills the text, which is read
    assert field.text.value == "f0703"
    assert soma.ranks == list(range(72, 144))
    # by hand from the file: host f0703 sums to 65.64 GFLOP/s over 46.96 GB/s
    [(rank, intensity, gflops)] = drawn(soma)
    assert rank == 72
    assert gflops == pytest.approx(65.6437, abs=1e-4)
    assert intensity == pytest.approx(65.6437 / 46.9579, rel=1e-4)
    field.text.value = "f0702, 144-150"
    assert soma.ranks == [*range(72), *range(144, 151)]
    assert field.text.value == "f0702, 144-150"  # kept as typed
    assert field.place_choice.value == ""
    soma.ranks = None
    assert field.text.value == ""


@pytest.mark.parametrize(("text", "error"), [
    ("f0799", "'f0799': no host or socket of that name in the data (hosts and sockets: "
              "'f0702', 'f0703', 'f0704')"),
    ("7-3", "rank range '7-3': expected a-b with a <= b"),
    ("<b>x</b>", "'<b>x</b>' is no rank (144), range (0-71), host"),
    ("300", "ranks [300] are not in the data"),
])
def test_a_text_that_does_not_read_changes_nothing(soma, text, error):
    field = soma.controls.rank_control
    field.text.value = "f0703"
    points, status = drawn(soma), soma.controls.status_html.value
    field.text.value = text
    assert soma.ranks == list(range(72, 144))  # the trait, the points, the status: unchanged
    assert drawn(soma) == points
    assert soma.controls.status_html.value == status
    assert field.text.value == text  # left for the user to correct
    hint = field.hint_html.value
    assert "&#9888;" in hint
    assert hint.endswith(
        "<small>216 ranks on 3 hosts: 0-215; hosts f0702, f0703, f0704</small>")
    assert "<b>x" not in hint  # escaped

    assert error in html.unescape(hint)
    field.text.value = ""  # blank: every rank, the error gone
    assert soma.ranks is None
    assert "&#9888;" not in field.hint_html.value


def test_2304_ranks_on_32_hosts_name_hosts_and_sockets(tmp_path):
    w = RooflineWidget(read_likwid(write_ranks(tmp_path / "job.txt")))
    field = w.controls.rank_control
    assert field.hint == ("2,304 ranks on 32 hosts (64 sockets): 0-2303; hosts n000, n001, n002, "
                          "n003, ..., n031")
    assert len(field.place_choice.options) == 1 + 32 + 64
    field.place_choice.value = "n003 socket 1"
    assert w.ranks == list(range(252, 288))
    assert w.to_dataframe()["rank_group"].tolist() == ["n003 socket 1 (ranks 252-287)"]
    # a saved view holds the ranks; a new widget shows them by name again
    view = w.to_view()
    assert view.ranks == list(range(252, 288))
    again = RooflineWidget(read_likwid(write_ranks(tmp_path / "job.txt")), view=view)
    assert again.controls.rank_control.text.value == "n003 socket 1"
    # a view written by hand with a text: read against this data
    again.load_view(View(ranks="n03*"))
    assert again.ranks == list(range(30 * 72, 2304))
    assert again.controls.rank_control.text.value == "2160-2303"


def points_of_6250_ranks() -> pd.DataFrame:
    """6,250 ranks x 2 regions: rank r's points at intensity 1 + r % 7 and 1 + r % 5 GFLOP/s."""
    ranks = np.repeat(np.arange(6250), 2)
    return pd.DataFrame({"region": np.tile(["solve", "halo"], 6250), "rank": ranks,
                         "performance_gflops": 1.0 + ranks % 5,
                         "bandwidth_gbs": (1.0 + ranks % 5) / (1.0 + ranks % 7)})


def test_6250_ranks_build_no_list_of_ranks():
    w = RooflineWidget(points_of_6250_ranks(), group_ranks="rank")
    options = [len(widget.options) for widget in every_widget(w) if hasattr(widget, "options")]
    assert options
    assert max(options) < 10
    field = w.controls.rank_control
    assert field.hint == "6,250 ranks: 0-6249"
    assert field.place_choice.layout.display == "none"  # no hosts in a points table
    field.text.value = "100-199, 6000"
    assert len(w.ranks) == 101
    assert len(w.to_dataframe()) == 202  # two regions per rank
    assert set(w.to_dataframe()["rank"]) == {*range(100, 200), 6000}
    field.text.value = "0-1000000"  # a range past the data's ranks: every rank
    assert w.ranks is None
    assert len(w.to_dataframe()) == 12_500


def test_the_menu_and_the_hint_are_bounded():
    hosts = {f"h{n:04d}": [n] for n in range(1000)}
    hint = ranks_hint(range(1000), hosts)
    assert hint == "1,000 ranks on 1,000 hosts: 0-999; hosts h0000, h0001, h0002, h0003, ..., h0999"
    assert ranks_hint([0, 2, 4, 6, 8, 10], {}) == "6 ranks: 0,2,4,6, ..."
    assert MAX_PLACE_CHOICES == 200


def test_the_shared_page_lists_few_ranks_only():
    """The HTML export (no kernel) keeps a list of ranks up to MAX_RANK_TOGGLES, none above."""
    from roofline_widget.static.html_view import MAX_RANK_TOGGLES, shared_view

    def rank_lists(view) -> list:
        return [w for w in every_widget(view) if "roofline-shared-ranks" in w._dom_classes]

    hosts = RooflineWidget(SOMA_216)  # three host points: a list of three
    [listed] = rank_lists(shared_view(hosts))
    assert [label for label, _rank in listed.options] == [
        "f0702 (ranks 0-71)", "f0703 (ranks 72-143)", "f0704 (ranks 144-215)"]
    many = points_of_6250_ranks()
    many = many[many["rank"] < MAX_RANK_TOGGLES + 1]  # one rank more than the list takes
    assert rank_lists(shared_view(RooflineWidget(many, group_ranks="rank"))) == []


def test_a_host_named_like_a_socket_is_a_host():
    places = {"socketserver": [0, 1], "socketserver socket 0": [0], "socketserver socket 1": [1]}
    assert ranks_hint([0, 1], places) == "2 ranks on 1 host (2 sockets): 0-1; hosts socketserver"


def test_a_place_past_the_menu_is_typed(tmp_path):
    """The 2,304-rank job's 96 places in a menu of 10: the text names the others all the same."""
    sums = RegionSums.from_runs(read_likwid(write_ranks(tmp_path / "job.txt")))
    field = RankControl(sums, UpdateGuard(), max_choices=10)
    assert [name for name, _value in field.place_choice.options[1:]] == [
        f"n{n:03d}" for n in range(10)]
    field.show(list(range(252, 288)))  # the trait's value, shown: a socket the menu does not list
    assert field.text.value == "n003 socket 1"
    assert field.place_choice.value == ""
    field.show(list(range(216, 288)))  # a host it lists
    assert field.place_choice.value == "n003"
