"""Tests of roofline_widget.views: the versioned JSON view format and its checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_widget import View, read_likwid, sample_path
from roofline_widget.ceilings import BandwidthRoof, ComputeRoof
from roofline_widget.errors import ViewError
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
    for expected in ("'ranks' must be a list of non-negative integers or null, got 'all'",
                     "'peak_flops' must be a positive number or null, got -1",
                     "'color_by' must be one of ['region', 'run', 'rank'], got 'colour'",
                     "'combine_ranks' must be true or false, got 'yes'",
                     "'include' is not a valid regular expression",
                     "'selected' must hold [run, rank, region] keys",
                     "'max_points' must be a positive integer or null, got 0",
                     "'ceilings' value must be a number, got 'fast'",
                     "'levels' must be an object of level name -> metric name",
                     "'flops_metric' must be a string or null, got 7"):
        assert expected in text


def test_a_ceiling_with_a_bad_value_names_the_roof():
    bad = document(ceilings=[{"kind": "bandwidth", "name": "DRAM", "value": 0,
                              "source": "user"}])
    with pytest.raises(ViewError, match="bandwidth roof 'DRAM' must be a positive finite"):
        View.from_dict(bad)
    with pytest.raises(ViewError, match="level must be a string on a bandwidth ceiling"):
        View.from_dict(document(ceilings=[{"kind": "compute", "name": "x", "value": 1,
                                           "source": "user", "level": "L2"}]))
    with pytest.raises(ViewError, match=r"and optionally \['level', 'provenance'\]"):
        View.from_dict(document(ceilings=[{"kind": "compute", "name": "x", "value": 1,
                                           "source": "user", "colour": "red"}]))
    with pytest.raises(ViewError, match="kind must be 'compute' or 'bandwidth'"):
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
    with pytest.raises(ViewError, match=r"^View: 'size_by' must be one of"):
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
