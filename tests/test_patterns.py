"""Region-name patterns from anyone (``include=``, ``--include``, a saved view): bounded to compile.

The ``regex`` package (which matches region names under a time budget) writes every counted
repeat out when it compiles: ``(?:(?:(?:a{1000}){1000}){1000})`` grew to 12 GB before the
budget of its matching began.  The reproductions run in a subprocess under a 1 GiB address-space
limit (``resource.setrlimit``), so a blow-up fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from roofline_widget import SelectionError, View, ViewError, points_dataframe, sample_path
from roofline_widget.points import RegionSums
from roofline_widget.settings import MATCH_SECONDS, compile_patterns, names_selected

NESTED = "(?:(?:(?:a{1000}){1000}){1000})"
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
#: Sample 3: four regions named like 'multMatMat_COM_OTIM' (19 word characters).
UFPR = sample_path("ufpr_coffeelake_i5-7500_lw43_FLOPS_DP_4regions_1t_O.csv")
#: Three ways to match one word character, repeated, then a character no name has: Python's re
#: tries 3**19 ways on a 19-character name before it fails (minutes); regex gives up in time.
CATASTROPHIC = r"(\w|\w|\w)+\s"


def run_limited(script: str, *arguments: str) -> subprocess.CompletedProcess:
    """``script`` in a fresh Python under a 1 GiB address-space limit (a hang guard of 120 s)."""
    limited = ("import resource\n"
               "resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))\n" + textwrap.dedent(script))
    return subprocess.run([sys.executable, "-c", limited, *arguments], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"},
                          check=False)


def test_nested_counted_repeats_are_refused_before_compiling(tmp_path):
    view = tmp_path / "nested.json"
    view.write_text(json.dumps({"format": "roofline-widget view", "version": 1,
                                "include": NESTED}), encoding="utf-8")
    done = run_limited("""
        import sys
        from roofline_widget import RooflineWidget, View, points_dataframe
        for call in (lambda: points_dataframe(sys.argv[1], include=sys.argv[3]),
                     lambda: View.load(sys.argv[2])):
            try:
                call()
                print("accepted")
            except ValueError as exc:  # SelectionError, ViewError
                print(type(exc).__name__, exc)
        typed = RooflineWidget(sys.argv[1], include=sys.argv[3])  # what a user types in the box
        print(len(typed.to_dataframe()), typed.message)
        """, PMGPU, str(view), NESTED)
    assert done.returncode == 0, done.stderr[-2000:]
    selection, loaded, widget = done.stdout.splitlines()
    message = (f"include pattern {NESTED!r} stands for 1,000,000,000 characters with its "
               "repeats written out (at most 100,000): too large to match in bounded time")
    assert selection == f"SelectionError {message}"
    assert loaded == f"ViewError {view}: {message}"
    assert widget == f"0 {message}. No points are drawn until it is fixed."


@pytest.mark.parametrize(("pattern", "problem"), [
    ("a{100001}", "stands for 100,001 characters with its repeats written out (at most 100,000)"),
    ("(?:x{400}y{400}){200}", "stands for 160,000 characters"),  # (400 + 400) x 200
    ("(" * 40 + "a" + ")" * 40, "nests groups 40 deep (at most 32)"),
    ("(?:a|b{99999999999}){2}", "stands for 200,000,000,000 characters"),  # (1 + 99,999,999,999) x 2
    ("b{99999999999999999999}", "stands for more than 1,000,000,000,000 characters"),
    ("x" * 100_001, "is 100,001 characters long (at most 100,000)"),
])
def test_the_bounds_name_what_is_too_much(pattern, problem):
    with pytest.raises(SelectionError) as error:
        points_dataframe(PMGPU, exclude=pattern)
    assert str(error.value).startswith(f"exclude pattern {pattern!r:.80} {problem}")
    assert str(error.value).endswith(": too large to match in bounded time")


@pytest.mark.parametrize("pattern", [
    r"\{1000000\}", "[{(]a{9}", r"a\{1000}", "<function_[ab]>{1,3}", "a{,5}b{3,}", r"\N{DIGIT ONE}",
    "(?:a{300}){300}", "|".join(f"region_{i}" for i in range(3000)),
])
def test_patterns_within_the_bounds_still_match(pattern):
    # escaped braces, braces in a class, open-ended counts, 90,000 repeats, a long alternation
    points_dataframe(PMGPU, include=pattern)


def test_a_view_with_a_pattern_past_the_bounds_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"format": "roofline-widget view", "version": 1,
                                "exclude": "(" * 40 + ")" * 40}), encoding="utf-8")
    with pytest.raises(ViewError, match=r"deep.json: exclude pattern .* nests groups 40 deep"):
        View.load(path)


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
