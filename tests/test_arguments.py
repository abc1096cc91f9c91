"""Tests of roofline_widget.points.arguments: the field checks, region names matched in bounded time."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from roofline_widget import SelectionError, points_dataframe, sample_path
from roofline_widget.points import RegionSums
from roofline_widget.points.arguments import (
    MATCH_SECONDS,
    check_levels,
    compile_patterns,
    names_selected,
    normalize_ranks,
)

#: Sample 3: four regions named like 'multMatMat_COM_OTIM' (19 word characters).
UFPR = sample_path("ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv")
#: Three ways to match one word character, repeated, then a character no name has: Python's re
#: tries 3**19 ways on a 19-character name before it fails (minutes); regex gives up in time.
CATASTROPHIC = r"(\w|\w|\w)+\s"


def test_names_are_matched_at_their_start_as_re_match_does():
    names = ["Setup", "Solve", "Solver_extra", "setup"]
    include = compile_patterns(["Sol", re.compile("SETUP", re.IGNORECASE)])
    assert names_selected(names, include, None).tolist() == [True, True, True, True]
    assert names_selected(names, include, compile_patterns("Solver")).tolist() == [
        True, True, False, True]
    assert names_selected(names, compile_patterns("olve"), None).tolist() == [False] * 4
    assert names_selected(names, compile_patterns([]), None).tolist() == [False] * 4
    # the flags of a compiled pattern are kept (ASCII: \w is no longer 'é')
    assert names_selected(["é"], compile_patterns(re.compile(r"\w", re.ASCII)), None).tolist() == [
        False]
    assert names_selected(["é"], compile_patterns(r"\w"), None).tolist() == [True]


def test_a_catastrophic_pattern_stops_in_bounded_time_naming_the_pattern():
    regions = RegionSums.from_runs(UFPR).regions
    assert regions[0] == "multMatMat_COM_OTIM"
    start = time.process_time()
    with pytest.raises(SelectionError, match=r"include pattern '\(\\\\w\|\\\\w\|\\\\w\)\+\\\\s' "
                                             r"took more than 1 s on the region names \(stopped "
                                             r"at 'multMatMat_COM_OTIM'\)"):
        points_dataframe(UFPR, include=CATASTROPHIC)
    # the budget is CPU time for all names; regex looks at the clock every so often
    assert time.process_time() - start < MATCH_SECONDS + 3
    with pytest.raises(SelectionError, match="exclude pattern"):
        points_dataframe(UFPR, exclude=CATASTROPHIC)


def test_ranks_and_levels_checks():
    assert normalize_ranks(np.array([5, 2, 5])) == [2, 5]
    assert normalize_ranks([]) == []
    with pytest.raises(SelectionError, match="got True"):
        normalize_ranks([True])
    with pytest.raises(SelectionError, match=r"got 10000000000"):
        normalize_ranks(10**10)
    assert check_levels({"L2": "x"}) == (("L2", "x"),)
    assert check_levels((("L2", "x"),)) == (("L2", "x"),)  # as Selection stores it
    with pytest.raises(SelectionError, match="levels must be a mapping"):
        check_levels({"L2": 3})
