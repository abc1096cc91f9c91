"""The package's imports form no circle.

Counted: every ``from roofline_widget... import``, also inside functions.
Imports under ``if TYPE_CHECKING:`` serve annotations only and are left out of
the package-wide check; the readers and the sums engines (``io/``,
``points/``) must have no circle even counting them. The graph is computed by
``docs/architecture_tables.py``, the script that also writes it into
``docs/modules.md``.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "architecture_tables", Path(__file__).resolve().parents[1] / "docs" / "architecture_tables.py")
tables = sys.modules.setdefault("architecture_tables", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(tables)


def test_the_imports_form_no_circle():
    graph = tables.import_graph(tables.package_modules())
    assert "roofline_widget.points.region_sums" in graph["roofline_widget.points.api"]
    assert tables.find_cycle(graph) is None, " -> ".join(tables.find_cycle(graph) or [])


def test_readers_and_engines_form_no_circle_even_for_annotations():
    modules = tables.package_modules()
    inside = {name for name in modules
              if name.startswith(("roofline_widget.io", "roofline_widget.points"))}
    graph = tables.import_graph(modules, type_checking=True, inside=inside)
    assert "roofline_widget.points.columns" in graph["roofline_widget.points.placement"]
    assert tables.find_cycle(graph) is None, " -> ".join(tables.find_cycle(graph) or [])


def test_the_circle_finder_finds_one():
    assert tables.find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert tables.find_cycle({"a": {"b"}, "b": set()}) is None


def test_imports_inside_functions_count_and_annotation_imports_only_when_asked():
    source = (
        "from typing import TYPE_CHECKING\n"
        "from roofline_widget import errors\n"
        "from roofline_widget.points import selection\n"
        "if TYPE_CHECKING:\n"
        "    from roofline_widget.model import LikwidRun\n"
        "def late():\n"
        "    import roofline_widget.units\n"
        "    from roofline_widget.io.opener import open_text\n"
    )
    modules = ["roofline_widget.errors", "roofline_widget.points", "roofline_widget.points.selection",
               "roofline_widget.model", "roofline_widget.units", "roofline_widget.io.opener"]
    tree = ast.parse(source)
    runtime = {"roofline_widget.errors", "roofline_widget.points.selection", "roofline_widget.units",
               "roofline_widget.io.opener"}
    assert tables.imported_modules(tree, modules, type_checking=False) == runtime
    assert tables.imported_modules(tree, modules, type_checking=True) == runtime | {"roofline_widget.model"}
