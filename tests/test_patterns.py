"""Region-name patterns from anyone (``include=``, ``--include``, a saved view): bounded to compile.

The ``regex`` package (which matches region names under a time budget) writes every counted
repeat out when it compiles: ``(?:(?:(?:a{1000}){1000}){1000})`` grew to 12 GB before the
budget of its matching began.  The reproductions run in a subprocess under a 1 GiB address-space
limit (``resource.setrlimit``), so a blow-up fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from roofline_widget import SelectionError, View, ViewError, points_dataframe, sample_path

NESTED = "(?:(?:(?:a{1000}){1000}){1000})"
PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")


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
        from roofline_widget import View, points_dataframe
        for call in (lambda: points_dataframe(sys.argv[1], include=sys.argv[3]),
                     lambda: View.load(sys.argv[2])):
            try:
                call()
                print("accepted")
            except ValueError as exc:  # SelectionError, ViewError
                print(type(exc).__name__, exc)
        """, PMGPU, str(view), NESTED)
    assert done.returncode == 0, done.stderr[-2000:]
    selection, loaded = done.stdout.splitlines()
    message = (f"include pattern {NESTED!r} repeats too much to match in bounded time: "
               "it stands for 1,000,000,000 characters (at most 100,000)")
    assert selection == f"SelectionError {message}"
    assert loaded == f"ViewError {view}: {message}"


@pytest.mark.parametrize(("pattern", "problem"), [
    ("a{100001}", "stands for 100,001 characters (at most 100,000)"),
    ("(?:x{400}y{400}){200}", "stands for 160,000 characters"),
    ("(" * 40 + "a" + ")" * 40, "nests 40 groups (at most 32)"),
    ("(?:a|b{99999999999999999999}){2}", "stands for 200,000,000,000,000,000,002 characters"),
])
def test_the_bounds_name_what_is_too_much(pattern, problem):
    with pytest.raises(SelectionError, match=f"repeats too much|nests") as error:
        points_dataframe(PMGPU, exclude=pattern)
    assert problem in str(error.value)
    assert str(error.value).startswith(f"exclude pattern {pattern[:80]!r}")


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
    with pytest.raises(ViewError, match=r"deep.json: exclude pattern .* nests 40 groups"):
        View.load(path)
