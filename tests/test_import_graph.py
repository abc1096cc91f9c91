"""The package's imports form no circle.

Counted: every ``from roofline_widget... import``, also inside functions.
Imports under ``if TYPE_CHECKING:`` serve annotations only and are left out of
the package-wide check; the readers and the sums engines (``io/``,
``points/``) must have no circle even counting them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import roofline_widget

PACKAGE = Path(roofline_widget.__file__).parent


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes inside ``if TYPE_CHECKING:`` blocks of a module."""
    return {id(inner) for node in tree.body if isinstance(node, ast.If)
            and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for inner in ast.walk(node)}


def _imports(path: Path, modules: dict[str, Path], type_checking: bool) -> set[str]:
    """The package's modules ``path`` imports (``from a.b import c``: ``a.b.c`` if a module)."""
    found = set()
    tree = ast.parse(path.read_text())
    skipped = set() if type_checking else _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules
                     else node.module for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found.update(name for name in names if name in modules)
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (as a path), or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child):], child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph[child])))
    return None


def test_the_imports_form_no_circle():
    modules = _modules()
    graph = {name: _imports(path, modules, False) - {name} for name, path in modules.items()}
    assert "roofline_widget.points.region_sums" in graph["roofline_widget.points.api"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_readers_and_engines_form_no_circle_even_for_annotations():
    modules = _modules()
    inside = {name for name in modules
              if name.startswith(("roofline_widget.io", "roofline_widget.points"))}
    graph = {name: (_imports(modules[name], modules, True) & inside) - {name} for name in inside}
    assert "roofline_widget.points.columns" in graph["roofline_widget.points.placement"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_circle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
