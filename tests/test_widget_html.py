"""The widget's HTML (widget/html/): built there only, every name escaped."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

import roofline_widget.widget
from roofline_widget.widget.html import (
    compare_status_html,
    legend_html,
    names_text,
    rows_table,
    runs_legend_html,
    spread_status_html,
)

HOSTILE = "<img src=x onerror=alert(1)>"
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"
#: An HTML element in a string literal.
TAG = re.compile(r"<(?:b|i|p|ul|li|tr|th|td|div|span|table|style|code|br)\b[^<>]*>", re.I)


def _literals(tree: ast.AST) -> list[str]:
    """The string literals of a module, docstrings left out."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_no_widget_module_outside_html_builds_html():
    package = Path(roofline_widget.widget.__file__).parent
    modules = [p for p in package.rglob("*.py") if "html" not in p.relative_to(package).parts]
    assert len(modules) > 10
    offenders = {str(p.relative_to(package)): tags for p in modules
                 if (tags := [t for s in _literals(ast.parse(p.read_text())) for t in TAG.findall(s)])}
    assert offenders == {}
    # ... while the html package does (the scan finds tags where they are)
    html_literals = [s for p in (package / "html").glob("*.py")
                     for s in _literals(ast.parse(p.read_text()))]
    assert any(TAG.search(s) for s in html_literals)


def test_rows_table_escapes_labels_and_values():
    table = rows_table([(HOSTILE, HOSTILE), ("a & b", "1 < 2")], cell_style="padding:0 4px",
                       table_class="x")
    assert HOSTILE not in table
    assert table.count(ESCAPED) == 2
    assert "a &amp; b" in table
    assert "1 &lt; 2" in table
    assert table.startswith("<table class='x'><tr><th style='text-align:left;padding:0 4px'>")


def test_names_text_escapes_and_counts_the_rest():
    names = [HOSTILE, *(f"r{i}" for i in range(9))]
    text = names_text(names, 3)
    assert text == f"{ESCAPED}, r0, r1 and 7 more"


def test_compare_status_by_hand():
    assert compare_status_html() == ""
    # every layer's note starts with the status line's separator
    assert compare_status_html(error=HOSTILE) == (
        f"&middot; <span class='roofline-compare-status'>Baseline not compared: {ESCAPED}</span>")
    text = compare_status_html(median=1.4049, count=2, labels=[HOSTILE],
                               only_in=[("current", ["Init"])], notes=["a < b"])
    assert text.startswith(f"&middot; <span class='roofline-compare-status'>median speed-up vs "
                           f"{ESCAPED}: 1.4× over 2 points; ")
    # the worst region and every slowdown are named: 1 / 1.75 = 0.5714 is 1.75x slower
    slower = compare_status_html(median=1.4049, count=2, worst=(HOSTILE, 1 / 1.75),
                                 slowdowns=[(HOSTILE, 1 / 1.75)], labels=["base"])
    assert f"; worst: {ESCAPED} 0.571× (1.75× slower); " in slower
    assert f"<b>1 region slower</b>: {ESCAPED} (1.75× slower); " in slower
    assert HOSTILE not in slower
    assert "1 region only in current: Init" in text
    assert text.endswith("; a &lt; b</span>")
    assert runs_legend_html([HOSTILE]) in text
    nothing = compare_status_html(median=float("nan"), labels=["base"])
    assert "no region placed in both base and current" in nothing


def test_legends_escape_names_and_colours():
    text = legend_html([HOSTILE, "b"], ["#1f77b4", "#ff7f0e"], "region", note=HOSTILE)
    assert HOSTILE not in text
    assert text.count(ESCAPED) == 3  # the name, its title attribute and the note
    assert "<b>Regions</b>" in text
    assert "background:#1f77b4" in text
    runs = runs_legend_html(["1t", "2t", "4t", "8t", "16t"])
    assert runs.startswith("<span class='roofline-compare-runs'>runs: 1t □ square → 2t ◇ diamond")
    assert "current ● circle" in runs
    assert "16t as 1t" in runs


def test_spread_status_escapes_notes():
    text = spread_status_html(3, float(np.float64(1.5)), [HOSTILE, ""])
    assert text.startswith("&middot; <b>ranks view: 3 region(s)</b>")
    assert "imbalance 1 " in text
    assert " 1.5 (max / mean runtime)" in text
    assert ESCAPED in text
    assert not text.endswith("; ")
