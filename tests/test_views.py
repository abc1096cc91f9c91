"""Tests of roofline_widget.views: the versioned JSON view format and its checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from roofline_widget import Selection, View, points_dataframe, read_likwid, sample_path
from roofline_widget.errors import ViewError
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof
from roofline_widget.views import VIEW_FORMAT, VIEW_VERSION

GIVE = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
GIVE_LABEL = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket"


def full_view() -> View:
    return View(
        flops_metric="DP [MFLOP/s]", bandwidth_metric="Memory bandwidth [MBytes/s]",
        ranks=[0], combine_ranks=False, include="S", exclude="Setup",
        peak_flops=2048.0, peak_bandwidth=105.5,
        ceilings=[ComputeRoof("AVX-512 FMA", 1331.2, "spec sheet"),
                  BandwidthRoof("DRAM", 98.7, "likwid-bench triad, 14 threads", level="MEM",
                                provenance={"file": Path("triad.txt"), "threads": 14})],
        levels={"MEM": "Memory bandwidth [MBytes/s]"}, color_by="run", size_by="runtime",
        max_points=800, selected=[(GIVE_LABEL, 0, "Solve")])


def document(**fields) -> dict:
    return {"format": VIEW_FORMAT, "version": VIEW_VERSION, **fields}


def test_a_view_round_trips_through_json_and_a_file(tmp_path):
    view = full_view()
    assert View.from_json(view.to_json()) == view
    path = view.save(tmp_path / "view.json")
    assert View.load(path) == view
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["format"] == "roofline-widget view"
    assert written["version"] == 1
    assert written["selected"] == [[GIVE_LABEL, 0, "Solve"]]
    assert written["ceilings"] == [
        {"kind": "compute", "name": "AVX-512 FMA", "value": 1331.2, "source": "spec sheet"},
        {"kind": "bandwidth", "name": "DRAM", "value": 98.7,
         "source": "likwid-bench triad, 14 threads", "level": "MEM",
         "provenance": {"file": "triad.txt", "threads": 14}}]
    restored = View.load(path).ceilings
    assert isinstance(restored[1], BandwidthRoof)
    assert restored[1].source.startswith("likwid")
    # provenance is no part of a roof's equality: checked on its own
    assert restored[1].level == "MEM"
    assert restored[1].provenance == {"file": "triad.txt", "threads": 14}
    assert restored[0].provenance is None


def test_keys_left_out_take_the_defaults():
    assert View.from_dict(document()) == View()
    view = View.from_dict(document(ranks=[3, 1, 3]))
    assert view.ranks == [1, 3]
    assert view.color_by == "region"
    assert view.max_points is None


def test_unknown_keys_are_named_with_the_known_ones():
    with pytest.raises(ViewError) as error:
        View.from_json(json.dumps(document(colour_by="run", rank=[0])), "my.json")
    message = str(error.value)
    assert message.startswith("my.json: unknown key(s) ['colour_by', 'rank']")
    assert "'color_by'" in message
    assert "'ranks'" in message
    assert error.value.source == "my.json"


def test_every_wrong_type_is_reported_at_once():
    bad = document(ranks="all", peak_flops=-1, color_by="colour", combine_ranks="yes",
                   include="(", selected=[["run", "0", "Solve"]], max_points=0,
                   ceilings=[{"kind": "compute", "name": "peak", "value": "fast",
                              "source": "user"}],
                   levels=["MEM"], flops_metric=7)
    with pytest.raises(ViewError) as error:
        View.from_dict(bad, "bad.json")
    problems = error.value.problems
    assert len(problems) == 10
    text = "\n".join(problems)
    # the settings' sentences, as the widget, plot_roofline and the command line give them
    for expected in ("ranks text 'all': None selects every rank; a text names ranks, ranges, "
                     "hosts and sockets",
                     "peak_flops must be positive (GFLOP/s), got -1",
                     "color_by must be one of ['region', 'run', 'rank', 'device'], got 'colour'",
                     "combine_ranks must be True or False, got 'yes'",
                     "invalid include pattern '(': missing ), unterminated subpattern",
                     "selected must hold [run, rank, region] keys",
                     "max_points must be an integer from 1 to 1,000,000,000, got 0",
                     "ceilings: compute roof 'peak' must be a number, got 'fast'",
                     "levels must be a mapping of level name to metric name",
                     "flops_metric must be one metric name (str) or None, got int 7"):
        assert expected in text


def test_a_ceiling_with_a_bad_value_names_the_roof():
    bad = document(ceilings=[{"kind": "bandwidth", "name": "DRAM", "value": 0,
                              "source": "user"}])
    with pytest.raises(ViewError, match="ceilings: bandwidth roof 'DRAM' must be positive, got 0"):
        View.from_dict(bad)
    with pytest.raises(ViewError, match="and optionally provenance, device, family and a compute roof's "
                                        "precision or a bandwidth roof's level"):
        View.from_dict(document(ceilings=[{"kind": "compute", "name": "x", "value": 1,
                                           "source": "user", "level": "L2"}]))
    with pytest.raises(ViewError, match=r"got \{'colour': 'red', 'kind': 'compute'"):
        View.from_dict(document(ceilings=[{"kind": "compute", "name": "x", "value": 1,
                                           "source": "user", "colour": "red"}]))
    with pytest.raises(ViewError, match=r"got \{'kind': 'L2'"):
        View.from_dict(document(ceilings=[{"kind": "L2", "name": "x", "value": 1,
                                           "source": "user"}]))


def test_versions_and_foreign_files():
    with pytest.raises(ViewError, match=r"newer roofline-widget \(view format version 2\).*"
                                        r"upgrade roofline-widget"):
        View.from_dict({**document(), "version": 2})
    with pytest.raises(ViewError, match="'version' must be a positive integer, got '1'"):
        View.from_dict({**document(), "version": "1"})
    with pytest.raises(ViewError, match="not a roofline-widget view"):
        View.from_dict({"cells": []})
    with pytest.raises(ViewError, match="a view is a JSON object, got list"):
        View.from_json("[1, 2]")


def test_bad_json_and_missing_files_name_the_source(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "roofline-widget view",\n "version": 1,,}')
    with pytest.raises(ViewError, match=r"broken.json: not valid JSON at line 2, column 15"):
        View.load(path)
    with pytest.raises(ViewError, match=r"nope.json: cannot read the view file"):
        View.load(tmp_path / "nope.json")


def test_a_view_built_in_python_is_checked_too():
    with pytest.raises(ViewError, match=r"^View: size_by must be one of"):
        View(size_by="calls")
    assert View(ranks=(2, 0)).ranks == [0, 2]


def test_trait_values_for_the_widget():
    values = full_view().trait_values()
    assert values["selected"] == [(GIVE_LABEL, 0, "Solve")]
    assert values["max_points"] == 800
    assert values["peak_bandwidth"] == 105.5
    assert "max_points" not in View().trait_values()
    assert "ceilings" not in values
    assert "levels" not in values


def test_check_against_real_data_names_what_is_missing():
    run = read_likwid(sample_path(GIVE))
    assert full_view().check_against(run) == []
    view = View(flops_metric="AVX512 DP [MFLOP/s]", bandwidth_metric="DP [MFLOP/s]",
                ranks=[0, 3], include="Assemble", levels={"L2": "L2 bandwidth [MBytes/s]"},
                selected=[(GIVE_LABEL, 0, "Assemble"), ("other run", 0, "Solve"),
                          (GIVE_LABEL, 5, "Solve"), (GIVE_LABEL, -1, "Solve")])
    problems = view.check_against(run)
    assert problems == [
        "flops_metric 'AVX512 DP [MFLOP/s]' is not in the data (available: ['DP [MFLOP/s]', "
        "'AVX DP [MFLOP/s]', 'Packed [MUOPS/s]', 'Scalar [MUOPS/s]'])",
        "bandwidth_metric 'DP [MFLOP/s]' is not a byte rate",
        "levels['L2'] 'L2 bandwidth [MBytes/s]' is not in the data (available: "
        "['Memory read bandwidth [MBytes/s]', 'Memory write bandwidth [MBytes/s]', "
        "'Memory bandwidth [MBytes/s]'])",
        "ranks [3] are not in the data (ranks: [0])",
        "include pattern 'Assemble' matches no region of the data (regions: ['Setup', 'Solve'])",
        f"selected point ({GIVE_LABEL!r}, 0, 'Assemble'): no region 'Assemble' in the data",
        f"selected point ('other run', 0, 'Solve'): no run 'other run' in the data "
        f"(runs: [{GIVE_LABEL!r}])",
        f"selected point ({GIVE_LABEL!r}, 5, 'Solve'): no rank 5 in the data",
        f"selected point ({GIVE_LABEL!r}, -1, 'Solve'): no rank -1 in the data",
    ]
    # rank -1 is the combined point when the view sums the ranks
    combined = View(combine_ranks=True, selected=[(GIVE_LABEL, -1, "Solve")])
    assert combined.check_against(sample_path(GIVE)) == []


# ---------------------------------------------------------------------------
# a view file may come from someone else
# ---------------------------------------------------------------------------
UFPR = "ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv"


def test_the_redos_view_opens_at_once(tmp_path):
    # '(\w|\w|\w)+!' tries 3**19 ways on 'multMatMat_COM_OTIM' with Python's re (minutes);
    # the region names are matched in bounded time, so the widget opens with the pattern
    # named as matching nothing. In a subprocess, so that a hang fails instead of waiting.
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(document(include=r"(\w|\w|\w)+!")), encoding="utf-8")
    script = (
        "import warnings, sys\n"
        "from roofline_widget import RooflineWidget, sample_path\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    w = RooflineWidget(sample_path({UFPR!r}), view=sys.argv[1])\n"
        "print(len(w.to_dataframe()), w.include)\n"
        "print(*[str(c.message) for c in caught if 'view applied in part' in str(c.message)])\n")
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stderr
    count, warned = done.stdout.splitlines()
    assert count == r"0 (\w|\w|\w)+!"
    assert r"include pattern '(\\w|\\w|\\w)+!' matches no region of the data" in warned


def test_a_pattern_that_backtracks_too_long_is_a_view_error_naming_the_field(tmp_path):
    from roofline_widget import RooflineWidget

    widget = RooflineWidget(sample_path(UFPR))
    before = widget.to_dataframe()
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(document(exclude=r"(\w|\w|\w)+\s", color_by="rank")))
    with pytest.raises(ViewError, match=r"slow.json: exclude pattern .* took more "
                                        r"than 1 s on the region names"):
        widget.load_view(path)
    assert widget.exclude == ""  # nothing applied
    assert widget.color_by == "region"
    assert widget.to_dataframe().equals(before)


def test_deep_nesting_is_refused_by_field_without_recursion(tmp_path):
    head = '{"format": "roofline-widget view", "version": 1,\n'
    ranks = head + '"ranks": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ViewError, match=r"^deep.json: 'ranks' is nested deeper than 16 levels "
                                        r"\(line 2\)"):
        View.from_json(ranks, "deep.json")
    provenance = "{" + '"a": {' * 900 + '"b": 1' + "}" * 901
    ceiling = (head + '"ceilings": [{"kind": "compute", "name": "peak", "value": 10, '
               f'"source": "user", "provenance": {provenance}}}]}}')
    with pytest.raises(ViewError, match="'ceilings' is nested deeper than 16 levels"):
        View.from_json(ceiling, "deep.json")
    # built in Python: the provenance is walked without recursion, bounded
    nested: dict = {}
    for _ in range(5000):
        nested = {"a": nested}
    with pytest.raises(ViewError, match=r"^View: ceilings: the provenance of 'peak' is nested deeper"):
        View(ceilings=[ComputeRoof("peak", 10.0, provenance=nested)])
    with pytest.raises(ViewError, match=r"ranks must be integers from 0 to 2147483647, "
                                        r"got \[\[\[\[\.\.\.\]\]\]\]"):
        View(ranks=[[[[[[[[[1]]]]]]]]])


def test_numbers_out_of_range_name_the_file_and_field(tmp_path):
    path = tmp_path / "huge.json"
    path.write_text('{"format": "roofline-widget view", "version": 1, "max_points": '
                    + "9" * 5000 + ', "peak_flops": 1e308, "peak_bandwidth": 1e-308, '
                    '"selected": [["run", 1' + "0" * 30 + ', "Solve"]], "ranks": [4294967296]}')
    with pytest.raises(ViewError) as error:
        View.load(path)
    assert error.value.source == str(path)
    assert error.value.problems == [
        "max_points must be an integer from 1 to 1,000,000,000, got <an integer of 5,000 digits>",
        "peak_flops is in GFLOP/s; 1e308 looks like FLOP/s",
        "peak_bandwidth must be at least 1e-6 GB/s (1 kB/s), got 1e-308",
        "selected must hold [run, rank, region] keys (string, integer from -1 to 2147483647, "
        "string), got ['run', <an integer of 31 digits>, 'Solve']",
        "ranks must be integers from 0 to 2147483647, got 4294967296"]
    with pytest.raises(ViewError, match=r"^View: peak_flops is in GFLOP/s; 1e308 looks like FLOP/s"):
        View(peak_flops=1e308)
    with pytest.raises(ViewError, match=r"max_points must be an integer from 1 to 1,000,000,000, "
                                        r"got <an integer of about 5,000 digits>"):
        View(max_points=10**4999)
    bad_roof = document(ceilings=[{"kind": "bandwidth", "name": "DRAM", "value": 1e300,
                                   "source": "user"}])
    with pytest.raises(ViewError, match=r"ceilings: the value of 'DRAM' is in GB/s; 1e300 looks "
                                        r"like B/s"):
        View.from_dict(bad_roof)
    with pytest.raises(ViewError, match=r"levels must be among L1, L2, L3, MEM, got 'L4'"):
        View(levels={"L4": "x"})


def test_a_view_that_is_no_regular_file_is_refused_without_reading(tmp_path):
    fifo = tmp_path / "view.fifo"
    os.mkfifo(fifo)
    outcome: list = []

    def load() -> None:
        try:
            View.load(fifo)
        except ViewError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(10)  # opening a FIFO without a writer would block forever
    assert not reader.is_alive()
    assert "expected a regular file" in str(outcome[0])
    assert outcome[0].source == str(fifo)
    with pytest.raises(ViewError, match="cannot read the view file"):
        View.load(tmp_path)


def test_the_selection_of_a_view():
    view = full_view()
    assert view.selection == Selection(
        flops_metric="DP [MFLOP/s]", bandwidth_metric="Memory bandwidth [MBytes/s]", ranks=[0],
        include="S", exclude="Setup", levels={"MEM": "Memory bandwidth [MBytes/s]"})
    assert View().selection == Selection()
    # the view's points are those of its selection: Solve (S..., not Setup) of the sample
    points = points_dataframe(sample_path(GIVE), selection=view.selection)
    assert points["region"].tolist() == ["Solve"]


@pytest.mark.parametrize("field", ['"include": "\\ud800"', '"flops_metric": "x\\udfff"',
                                   '"selected": [["\\udc80", 0, "Solve"]]',
                                   '"ceilings": [{"kind": "compute", "name": "\\ud83d", '
                                   '"value": 1, "source": "user"}]'])
def test_a_lone_surrogate_is_a_view_error_naming_the_file(tmp_path, field):
    # JSON may escape half of a UTF-16 pair; such a string is no text a notebook can send
    # ('\ud800'.encode() raises UnicodeEncodeError in the kernel's comm), so the file is refused.
    path = tmp_path / "surrogate.json"
    path.write_text('{"format": "roofline-widget view", "version": 1, ' + field + "}",
                    encoding="ascii")
    with pytest.raises(ViewError, match=r"surrogate.json: \w+ holds a lone surrogate "
                                        r"\('.*\\u[0-9a-f]{4}.*'\): not valid Unicode text"):
        View.load(path)
