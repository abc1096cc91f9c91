"""Tests of roofline_widget.points.selection: Selection, the one request every public function takes."""

from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np
import pytest

import roofline_widget
from roofline_widget import (
    Selection,
    SelectionError,
    compare_points,
    hierarchical_left_out,
    hierarchical_points,
    left_out_regions,
    plot_roofline,
    points_dataframe,
    rank_spread,
    read_likwid,
    sample_path,
    sanity_check,
)
from roofline_widget.analysis.levels import select_levels
from roofline_widget.points import RegionSums, collect_roofline_points
from roofline_widget.points.selection import PARAMETER_DOCS, selection_parameters
from roofline_widget.settings import MAX_RANK

MEM_DP_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
TAKE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")
MPIRUN = sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt")
DP = "DP [MFLOP/s]"
MEM_BW = "Memory bandwidth [MBytes/s]"
L1L2 = "L1 to/from L2 bandwidth [MBytes/s]"

#: Every public function that selects points, and the selection keywords it takes.
PUBLIC = {
    points_dataframe: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude",
                       "combine_ranks", "unmeasured"),
    left_out_regions: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude",
                       "combine_ranks", "unmeasured"),
    RegionSums.select: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude",
                        "combine_ranks", "unmeasured"),
    rank_spread: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude"),
    hierarchical_points: ("flops_metric", "levels", "ranks", "include", "exclude",
                          "combine_ranks", "unmeasured"),
    hierarchical_left_out: ("flops_metric", "levels", "ranks", "include", "exclude",
                            "combine_ranks", "unmeasured"),
    select_levels: ("flops_metric", "levels", "ranks", "include", "exclude", "combine_ranks",
                    "unmeasured"),
    sanity_check: ("flops_metric", "levels", "ranks", "include", "exclude", "combine_ranks",
                   "unmeasured"),
    compare_points: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude",
                     "combine_ranks"),
    plot_roofline: ("flops_metric", "bandwidth_metric", "ranks", "include", "exclude",
                    "combine_ranks"),
}


def test_a_selection_is_checked_and_normalised_once():
    chosen = Selection(ranks=np.array([3, 1, 3]), include="Sol", exclude=[re.compile("Setup")],
                       combine_ranks=np.bool_(True), levels={"L2": "L2 bandwidth [MBytes/s]"})
    assert chosen.ranks == (1, 3)
    assert [p.pattern for p in chosen.include] == ["Sol"]
    assert [p.pattern for p in chosen.exclude] == ["Setup"]
    assert chosen.combine_ranks is True
    assert chosen.level_overrides == {"L2": "L2 bandwidth [MBytes/s]"}
    # frozen, equal when the same, hashable, and replace() checks again
    assert chosen == Selection(ranks=[1, 3], include=["Sol"], exclude="Setup",
                               combine_ranks=True, levels={"L2": "L2 bandwidth [MBytes/s]"})
    assert len({chosen, dataclasses.replace(chosen)}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        chosen.ranks = (0,)  # type: ignore[misc]
    assert dataclasses.replace(chosen, ranks=np.int64(7)).ranks == (7,)
    with pytest.raises(SelectionError, match="ranks must be integers"):
        dataclasses.replace(chosen, ranks=[-1])
    assert Selection(include=[]).include == ()
    assert Selection().include is None


@pytest.mark.parametrize(("keywords", "error", "message"), [
    ({"ranks": "all"}, SelectionError, "ranks text 'all': None selects every rank"),
    ({"ranks": b"0-3"}, SelectionError, "ranks must be an int, a list of ints, a text such as"),
    ({"ranks": [0, 1.5]}, SelectionError, "got 1.5"),
    ({"ranks": [MAX_RANK + 1]}, SelectionError, f"integers from 0 to {MAX_RANK}"),
    ({"include": "("}, SelectionError, "invalid include pattern '\\('"),
    ({"exclude": [3]}, SelectionError, "exclude patterns must be strings"),
    ({"combine_ranks": "yes"}, SelectionError, "combine_ranks must be True or False"),
    ({"unmeasured": "drop"}, SelectionError, "unmeasured must be one of"),
    ({"levels": ["L2"]}, SelectionError, "levels must be a mapping"),
    ({"flops_metric": 7}, TypeError, "flops_metric must be one metric name"),
])
def test_a_bad_field_names_itself(keywords, error, message):
    with pytest.raises(error, match=message):
        Selection(**keywords)
    assert issubclass(SelectionError, ValueError)


def test_every_public_function_takes_a_selection_the_same_as_its_keywords():
    run = read_likwid(MEM_DP_4T)
    keywords = {"include": "S", "exclude": "Setup", "flops_metric": DP, "bandwidth_metric": MEM_BW}
    chosen = Selection(**keywords)
    points = points_dataframe(run, selection=chosen)
    assert points.equals(points_dataframe(run, **keywords))
    # Solve, by hand: 1112.9116 + 1090.3446 + 1086.9532 + 1093.1674 = 4383.3768 MFLOP/s over
    # 513.2946 MB/s (Core 0 only: uncore)
    assert points["region"].tolist() == ["Solve"]
    assert points["performance_gflops"].iloc[0] == pytest.approx(4.3833768, rel=1e-12)
    assert points["bandwidth_gbs"].iloc[0] == pytest.approx(0.5132946, rel=1e-12)
    selected = RegionSums.from_runs(run).select(chosen)
    assert selected.selection == chosen  # metrics given: the request as it was
    assert selected.points.equals(points)
    assert left_out_regions(run, selection=chosen).equals(left_out_regions(run, **keywords))
    assert hierarchical_points(run, selection=chosen).equals(
        hierarchical_points(run, include="S", exclude="Setup", flops_metric=DP))
    assert sanity_check(run, selection=chosen).equals(
        sanity_check(run, include="S", exclude="Setup", flops_metric=DP))
    pair = compare_points(MEM_DP_4T, TAKE_4T, selection=chosen)
    assert pair.equals(compare_points(MEM_DP_4T, TAKE_4T, **keywords))
    assert pair["region"].tolist() == ["Solve"]
    payload = plot_roofline(run, selection=chosen, verbose=False, backend="bqplot")
    assert payload["points"] == collect_roofline_points(run, **keywords)


def test_the_detected_metrics_travel_with_the_result():
    # MEM_DP detection: the DP total and the total memory bandwidth, written into the result's
    # selection so that layers and other runs use the same ones
    selected = RegionSums.from_runs(MEM_DP_4T).select(Selection(ranks=0))
    assert selected.selection == Selection(ranks=[0], flops_metric=DP, bandwidth_metric=MEM_BW)


def test_rank_spread_from_a_selection_of_three_ranks():
    # ranks 0, 1, 2 print 'L1 to/from L2 bandwidth' 33.5467, 33.6197, 33.0835 MB/s: median 33.5467
    chosen = Selection(bandwidth_metric=L1L2, ranks=[2, 0, 1])
    spread = rank_spread(MPIRUN, selection=chosen)
    assert spread.equals(rank_spread(MPIRUN, bandwidth_metric=L1L2, ranks=[0, 1, 2]))
    assert spread["n_ranks"].tolist() == [3]
    assert spread["bandwidth_gbs_median"].iloc[0] == pytest.approx(33.5467e-3, rel=1e-12)
    # summed ranks are accepted: the spread stays over ranks (the L1-L2 bandwidth is per rank)
    assert rank_spread(MPIRUN, selection=dataclasses.replace(chosen, combine_ranks=True)
                       ).equals(spread)


def test_a_selection_and_keywords_together_are_refused():
    with pytest.raises(TypeError, match=r"either as selection= or as keywords, not both \(got "
                                        r"selection= and ranks, include=\)"):
        points_dataframe(MEM_DP_4T, selection=Selection(), ranks=[0], include="S")
    with pytest.raises(TypeError, match="selection must be a Selection, got dict"):
        points_dataframe(MEM_DP_4T, selection={"ranks": [0]})  # type: ignore[arg-type]
    # keywords at their defaults next to a selection are no conflict
    assert len(points_dataframe(MEM_DP_4T, selection=Selection(include="Solve"),
                                combine_ranks=False, unmeasured="leave_out")) == 1


@pytest.mark.parametrize("function", list(PUBLIC), ids=lambda f: f.__qualname__)
def test_help_shows_every_keyword_and_its_text(function):
    parameters = inspect.signature(function).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    assert "selection" in parameters
    for name in PUBLIC[function]:
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        texts = [text.splitlines()[1].strip() for key, text in PARAMETER_DOCS.items()
                 if name in [part.strip() for part in key.split(",")]]
        assert any(text in function.__doc__ for text in texts)  # the shared text, filled in
    assert "{selection_parameters}" not in function.__doc__
    # an unknown keyword is Python's own TypeError
    with pytest.raises(TypeError, match="unexpected keyword argument 'flop_metric'"):
        function(MEM_DP_4T, flop_metric=DP)


def test_collect_roofline_points_keeps_scope_profilers_signature():
    reference = pytest.importorskip("scope_profiler.plotting_scripts.roofline")
    ours = inspect.signature(collect_roofline_points).parameters
    theirs = inspect.signature(reference.collect_roofline_points).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()]


def test_the_parameter_texts_cannot_drift_from_a_signature():
    with pytest.raises(TypeError, match=r"documents \['include', 'exclude'\] but has no such"):
        @selection_parameters("include, exclude")
        def no_patterns(data, *, ranks=None):
            """Parameters
            ----------
            {selection_parameters}
            """
    with pytest.raises(KeyError, match="no parameter text for"):
        selection_parameters("colour")
    with pytest.raises(ValueError, match="has no line"):
        @selection_parameters("ranks")
        def no_marker(data, *, ranks=None):
            """No parameters section."""


def test_selection_is_exported():
    assert roofline_widget.Selection is Selection
    assert "Selection" in roofline_widget.__all__
    assert "SelectionError" in roofline_widget.__all__
    # the Selection's own docstring holds the parameter texts
    assert PARAMETER_DOCS["unmeasured"].splitlines()[1].strip() in Selection.__doc__
