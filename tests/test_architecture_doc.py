"""docs/modules.md is what ``docs/architecture_tables.py`` writes from the code, and every module
says its job in the first sentence of its docstring."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "architecture_tables", ROOT / "docs" / "architecture_tables.py")
tables = sys.modules.setdefault("architecture_tables", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(tables)

MODULES = tables.package_modules()


def test_modules_page_is_what_the_generator_writes():
    assert (ROOT / "docs" / "modules.md").read_text() == tables.render(), (
        "docs/modules.md is out of date: run python docs/architecture_tables.py")


def test_the_generator_checks_and_writes_from_the_command_line(tmp_path, monkeypatch):
    page = tmp_path / "modules.md"
    monkeypatch.setattr(tables, "OUTPUT", page)
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    assert tables.main(["--check"]) == 1  # no page yet
    assert tables.main([]) == 0
    assert page.read_text() == tables.render()
    assert tables.main(["--check"]) == 0
    page.write_text(page.read_text().replace("RegionSource", "RegionSauce"))
    assert tables.main(["--check"]) == 1


def test_the_script_runs_as_the_message_says():
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "architecture_tables.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_says_its_job_in_one_sentence(name):
    docstring = ast.get_docstring(ast.parse(MODULES[name].read_text()))
    assert docstring, f"{name} has no module docstring"
    sentence = tables.first_sentence(docstring)
    assert sentence.endswith("."), f"{name}: the docstring's first paragraph has no full stop: {sentence!r}"
    assert len(sentence.split()) >= 3, f"{name}: {sentence!r} does not say what the module does"
    assert len(sentence) <= 200, f"{name}: the first sentence is too long for one table row"


def test_a_module_row_holds_its_first_sentence_and_its_public_names():
    page = tables.render()
    source_row = next(line for line in page.splitlines() if line.startswith("| `source.py` |"))
    assert "| The interface of a sums engine: what `RegionSums` aggregates. |" in source_row
    assert source_row.endswith("| `RegionSource` |")
    assert "### `roofline_widget/points/engines/`" in page
    assert "| `__main__.py` | `python -m roofline_widget`: the `roofline-widget` command line. | — |" in page


def test_the_page_lists_every_module_once_and_the_graph_of_each():
    page = tables.render()
    rows = [line for line in page.splitlines() if line.startswith("| `") and line.count("|") >= 4]
    assert len(rows) == len(MODULES)
    for name in MODULES:
        assert any(line.startswith(f"{tables.short_name(name)} ") for line in page.splitlines()), name
    assert "points.engines.dispatch" in page


@pytest.mark.parametrize(("docstring", "sentence"), [
    ("One job. More detail.", "One job."),
    ("Reads files, e.g. text and CSV. More.", "Reads files, e.g. text and CSV."),
    ("Over two\nlines. Next.", "Over two lines."),
    ("A title line\n\nThe body.", "A title line"),
    ("Numbers like 1.5 stay. Next.", "Numbers like 1.5 stay."),
    (None, ""),
])
def test_first_sentence(docstring, sentence):
    assert tables.first_sentence(docstring) == sentence


def test_markdown_of_sphinx_roles():
    assert tables.as_markdown(":class:`~roofline_widget.model.LikwidRun`") == "`LikwidRun`"
    assert tables.as_markdown(":func:`.gpu.gpu_ceilings` and ``x | y``") == r"`gpu.gpu_ceilings` and `x \| y`"


def test_the_parts_import_only_lower_layers():
    parts = tables.folder_graph(tables.import_graph(MODULES))
    assert "io" in parts["points"]  # the graph is read: the sums engines build on the readers
    assert tables.layer_violations(parts) == [], (
        "an import against the layers: change the import, or LAYERS in docs/architecture_tables.py "
        "(then run python docs/architecture_tables.py)")


def _tier(part: str) -> int:
    return next(n for n, names in enumerate(tables.LAYERS) if part in names)


def test_an_import_against_the_layers_is_named():
    parts = {"errors": set(), "io": {"errors"}, "points": {"io"}, "look": {"points", "widget"},
             "widget": {"look"}, "newpart": set()}
    assert tables.layer_violations(parts) == [
        "newpart is in no tier of LAYERS",
        f"look -> widget (tier {_tier('look')} -> {_tier('widget')})",
    ]
    assert tables.layer_violations({"errors": {"enums"}}) == ["errors -> enums (tier 0 -> 0)"]


MODULE_LINES, CLASS_LINES = 500, 300


def test_no_module_over_500_lines_and_no_class_over_300():
    too_long = []
    for path in sorted((ROOT / "roofline_widget").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        if len(text.splitlines()) > MODULE_LINES:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        too_long += [f"{name} {node.name}: {node.end_lineno - node.lineno + 1} lines"
                     for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ClassDef)
                     and node.end_lineno - node.lineno + 1 > CLASS_LINES]
    assert too_long == []
