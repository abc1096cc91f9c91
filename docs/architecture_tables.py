"""Write ``docs/modules.md`` from the code: every module's job, public names and imports.

Run ``python docs/architecture_tables.py`` after adding, moving or renaming a module, or changing a
module docstring's first sentence or an ``__all__``; ``tests/test_architecture_doc.py`` fails while
``docs/modules.md`` differs from what this script writes. ``--check`` only compares (exit code 1 when
the file is out of date).

Everything is read with :mod:`ast`, nothing of the package is imported: per package folder a table
"module | what it does (the first sentence of its docstring) | public names (``__all__``)", then the
import graph. The import graph is the one ``tests/test_import_graph.py`` checks for circles (this file
is its one home): every ``from roofline_widget... import`` and ``import roofline_widget...``, also
inside functions; imports under ``if TYPE_CHECKING:`` serve annotations only and count only when asked.
The output depends on the files alone (sorted, no dates), so the same tree always gives the same text.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "roofline_widget"
OUTPUT = ROOT / "docs" / "modules.md"
COMMAND = "python docs/architecture_tables.py"

#: A module docstring's first sentence ends at the first full stop followed by white space or the end
#: (an abbreviation such as "e.g." does not end it).
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.(?=\s|$)")
#: The layering rule: the package's top-level parts (a folder, or a module at its root; the package
#: itself is ``roofline_widget``, its lazy public API) in tiers, lowest first. A part imports only
#: parts of lower tiers, apart from the exceptions below; ``tests/test_architecture_doc.py`` checks it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "enums", "schema", "demo", "escaping"),
    ("units",),
    ("model", "metric_names", "cpu_cores"),
    ("settings",),
    ("roofs",),
    ("roofline_widget",),
    ("io",),
    ("points",),
    ("look",),
    ("analysis",),
    ("scene",),
    ("views",),
    ("widget",),
    ("static",),
    ("cli",),
    ("__main__",),
)
#: Imports against the tiers, each with its reason: (importer, imported) -> why.
LAYER_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("views", "static"): "View.save writes through static.output_files (atomic writes)",
    ("widget", "static"): ("RooflineWidget.save_html is static.html_export.save_html (the page "
                           "is written through static.output_files)"),
    ("roofs", "look"): ("Roofline._repr_html_ shows look.ceiling_lines' ceilings table "
                           "(imported when displayed)"),
    ("points", "analysis"): ("points_dataframe(guidance=...) adds analysis.guidance's columns "
                             "(imported when asked for)"),
}
#: Sphinx roles (:func:`~a.b`), and double back-quotes, as Markdown code.
ROLE = re.compile(r":[a-z]+:`([^`]+)`")
DOUBLE_QUOTED = re.compile(r"``([^`]+)``")


# ---------------------------------------------------------------- modules and imports


def package_modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its name, not ``.__init__``)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of every node inside the module's top-level ``if TYPE_CHECKING:`` blocks."""
    return {id(inner) for node in tree.body if isinstance(node, ast.If)
            and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for inner in ast.walk(node)}


def imported_modules(tree: ast.Module, modules: Iterable[str], type_checking: bool) -> set[str]:
    """The package's modules a module imports (``from a.b import c``: ``a.b.c`` if that is a module).

    Parameters
    ----------
    tree : ast.Module
        The parsed module.
    modules : iterable of str
        The dotted names of the package's modules (:func:`package_modules`).
    type_checking : bool
        Whether the imports under ``if TYPE_CHECKING:`` count.
    """
    known = set(modules)
    skipped = set() if type_checking else type_checking_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known
                     else node.module for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found.update(name for name in names if name in known)
    return found


def import_graph(modules: dict[str, Path], type_checking: bool = False,
                 inside: set[str] | None = None) -> dict[str, set[str]]:
    """Who imports whom: each module (of ``inside``, default all) to the modules it imports.

    Parameters
    ----------
    modules : dict of str to Path
        The package's modules (:func:`package_modules`).
    type_checking : bool
        Whether the imports under ``if TYPE_CHECKING:`` count.
    inside : set of str, optional
        Only these modules, and only imports among them.
    """
    names = set(modules) if inside is None else inside
    return {name: (imported_modules(ast.parse(modules[name].read_text()), modules, type_checking)
                   & names) - {name} for name in sorted(names)}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as a path (first node repeated at the end), or None.

    An iterative depth-first search, in sorted order, so the same graph gives the same circle.
    """
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
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


# ---------------------------------------------------------------- docstrings and public names


def first_sentence(docstring: str | None) -> str:
    """The first sentence of a docstring's first paragraph, on one line ("" without a docstring)."""
    if not docstring:
        return ""
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    end = SENTENCE_END.search(paragraph)
    return paragraph[:end.end()] if end else paragraph


def as_markdown(text: str) -> str:
    """Sphinx roles and double back-quotes as Markdown code, ``|`` escaped for a table cell."""
    def role(match: re.Match[str]) -> str:
        target = match.group(1)
        if target.startswith("~"):
            target = target.rsplit(".", 1)[-1]
        return f"`{target.lstrip('.')}`"

    return DOUBLE_QUOTED.sub(r"`\1`", ROLE.sub(role, text)).replace("|", r"\|")


def public_names(tree: ast.Module) -> list[str] | None:
    """The module's ``__all__`` as written (a literal list or tuple of strings), or None without one."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            value = ast.literal_eval(node.value)  # type: ignore[union-attr, arg-type]
            return [str(name) for name in value]
    return None


# ---------------------------------------------------------------- the page


def short_name(module: str) -> str:
    """A dotted module name without the package prefix (the package itself keeps its name)."""
    return module.split(".", 1)[1] if "." in module else module


def module_tables(modules: dict[str, Path], root: Path) -> list[str]:
    """One table per package folder (``root``: the folder holding the package): module file, first
    sentence of its docstring, ``__all__``."""
    folders: dict[Path, list[Path]] = {}
    for path in modules.values():
        folders.setdefault(path.parent, []).append(path)
    lines = []
    for folder in sorted(folders, key=lambda f: f.relative_to(root).parts):
        lines += ["", f"### `{folder.relative_to(root).as_posix()}/`", "",
                  "| module | what it does | public names (`__all__`) |", "|---|---|---|"]
        for path in sorted(folders[folder], key=lambda p: (p.name != "__init__.py", p.name)):
            tree = ast.parse(path.read_text())
            names = public_names(tree)
            shown = ", ".join(f"`{name}`" for name in names) if names else "—"
            lines.append(f"| `{path.name}` | {as_markdown(first_sentence(ast.get_docstring(tree)))} "
                         f"| {shown} |")
    return lines


def graph_lines(graph: dict[str, set[str]]) -> list[str]:
    """The graph as aligned text lines, ``module -> imported, ...``."""
    width = max(len(short_name(name)) for name in graph) + 1
    return [f"{short_name(name):<{width}}-> "
            + (", ".join(short_name(child) for child in sorted(graph[name])) or "(nothing of ours)")
            for name in sorted(graph)]


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between the package's top-level parts (a folder, or a module at the root)."""
    def part(name: str) -> str:
        return short_name(name).split(".")[0]

    folders: dict[str, set[str]] = {}
    for name, children in graph.items():
        folders.setdefault(part(name), set()).update(part(child) for child in children)
    return {name: children - {name} for name, children in folders.items()}


def layer_violations(parts: dict[str, set[str]]) -> list[str]:
    """The imports between top-level parts that break :data:`LAYERS` (a part not in a tier too)."""
    tier = {part: number for number, names in enumerate(LAYERS) for part in names}
    problems = [f"{part} is in no tier of LAYERS" for part in sorted(parts) if part not in tier]
    problems += [f"{part} -> {child} (tier {tier[part]} -> {tier[child]})"
                 for part, children in sorted(parts.items()) if part in tier
                 for child in sorted(children) if child in tier and tier[child] >= tier[part]
                 and (part, child) not in LAYER_EXCEPTIONS]
    return problems


def layer_lines() -> list[str]:
    """The tiers, highest first, and the exceptions, as Markdown."""
    lines = [f"- tier {number}: " + ", ".join(f"`{name}`" for name in LAYERS[number])
             for number in reversed(range(len(LAYERS)))]
    exceptions = [f"- `{part}` -> `{child}`: {why}" for (part, child), why in sorted(LAYER_EXCEPTIONS.items())]
    return [*lines, "", "Allowed against the tiers:", "", *exceptions]


def render(package: Path = PACKAGE) -> str:
    """The text of ``docs/modules.md`` for the package as it is now."""
    modules = package_modules(package)
    graph = import_graph(modules)
    lines = [
        "# Modules and imports",
        "",
        f"Written by `{COMMAND}` from the code; do not edit by hand (`tests/test_architecture_doc.py`",
        "fails while this page differs from what the script writes). The design is in",
        "[the architecture page](architecture.md).",
        "",
        "## Modules",
        "",
        "Per package folder: each module, the first sentence of its docstring, and its public names",
        "(`__all__`; — where it has none).",
        *module_tables(modules, package.parent),
        "",
        "## Layers",
        "",
        "The top-level parts of `roofline_widget` (a folder, or a module at its root; `roofline_widget`",
        "is the package's lazy public API) in tiers, highest first: a part imports only parts of lower",
        "tiers (`LAYERS` in the script; `tests/test_architecture_doc.py` checks it).",
        "",
        *layer_lines(),
        "",
        "Which part imports which now, from the module graph below:",
        "",
        "```text",
        *graph_lines(folder_graph(graph)),
        "```",
        "",
        "## Import graph",
        "",
        "Who imports whom inside the package: every `from roofline_widget... import`, also inside",
        "functions; imports under `if TYPE_CHECKING:` (annotations only) are left out. No circle",
        "(`tests/test_import_graph.py`).",
        "",
        "```text",
        *graph_lines(graph),
        "```",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write ``docs/modules.md`` (or, with ``--check``, only say whether it is up to date)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit code 1 if out of date")
    check = parser.parse_args(argv).check
    text = render()
    if check:
        current = OUTPUT.read_text() if OUTPUT.is_file() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
