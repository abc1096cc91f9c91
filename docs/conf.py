"""Sphinx configuration of the roofline-widget documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (the README
names the command).  Pages are MyST Markdown; the guide pages, the gallery and
the quickstart notebook are executed at build time by myst-nb, with a
jupyter-cache in ``docs/_build/.jupyter_cache`` so that an unchanged page is
not run again.  ``-W`` turns every warning into an error, numpydoc's
docstring validation included.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# Document this checkout, whatever is installed: here and in the kernels that run the pages.
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

import roofline_widget  # noqa: E402

project = "roofline-widget"
author = "roofline-widget developers"
copyright = "roofline-widget developers"
release = version = roofline_widget.__version__

extensions = [
    "myst_nb",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]

# ---------------------------------------------------------------- sources
root_doc = "index"
#: The site's own pages at the top of docs/; every other top-level .md file is a
#: design note or measurement diary, listed by notes/index.md (see _list_notes).
SITE_PAGES = ("index", "getting-started", "guidance", "changelog")
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings: list[str] = []

# ---------------------------------------------------------------- notebooks (myst-nb)
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 180
nb_execution_raise_on_error = True  # a guide page whose code fails fails the build
nb_merge_streams = True
nb_execution_show_tb = True

# ---------------------------------------------------------------- API reference
templates_path = ["_templates"]  # a class page lists its own members, not ipywidgets'
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# numpydoc validation: every check on the public API except these, waived on purpose:
#   SA01 See Also, ES01 extended summary, EX01 examples: welcome, not demanded;
#   PR03 and PR04: parameters documented in groups ("flops_metric, ranks, include : as for
#   points_dataframe") carry one type for the group, and the group breaks the order check;
#   SS05, PR08, RT04: summaries and descriptions that start with a noun or a code name.
numpydoc_validation_checks = {"all", "SA01", "ES01", "EX01", "PR03", "PR04", "SS05", "PR08", "RT04"}
numpydoc_validation_exclude = {r"\.__init__$", r"\._[a-z]"}

# ---------------------------------------------------------------- widgets, offline
# myst-nb writes each executed page's widget state into the page; ipywidgets' HTML manager draws
# it. Its scripts come from this site, never from a CDN, so that every page works offline: the
# same files the shared HTML pages inline (roofline_widget.static.html_scripts: RequireJS and the
# manager downloaded at build time, the widgets' AMD bundles named), written at build time into
# _static/widgets/. The icon font's stylesheet is linked at the end of the body (_templates/
# layout.html), after the manager's own, so that no font file is requested.
WIDGET_STATIC = DOCS / "_build" / "widget-static"
WIDGET_MODULES = ("bqscales", "bqplot", "bqplot-gl", "ipyevents")
nb_ipywidgets_js = {f"widgets/{name}.js": {} for name in ("manager", *WIDGET_MODULES)}
(WIDGET_STATIC / "widgets").mkdir(parents=True, exist_ok=True)  # Sphinx checks it at start

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"roofline-widget {release}"
html_static_path: list[str] = [str(WIDGET_STATIC)]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
# "auto" follows the reader's system; set, so that the theme's script does not log an error for
# an empty mode (a page opened from a file has no stored choice).
html_context = {"default_mode": "auto"}


def _copy_quickstart(app) -> None:
    """The quickstart notebook lives in notebooks/ (the demo and the wheel ship it): copy it in."""
    target = DOCS / "gallery" / "quickstart.ipynb"
    source = ROOT / "notebooks" / "quickstart.ipynb"
    if not target.is_file() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)


def _write_widget_scripts(app) -> None:
    """Write the widget manager, the widgets' named bundles and the icon font's stylesheet."""
    from roofline_widget.static import html_page, html_scripts, html_view

    folder = WIDGET_STATIC / "widgets"
    folder.mkdir(parents=True, exist_ok=True)
    files = {"manager.js": html_scripts.manager_script(),
             "widgets.css": html_scripts.font_css() + html_page.TOOLTIP_CSS + html_view.SHARED_CSS,
             **{f"{name}.js": html_scripts.widget_bundle(name) for name in WIDGET_MODULES}}
    for name, text in files.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def _notes() -> list[str]:
    """Every top-level .md of docs/ that is not one of the site's own pages, by name."""
    return sorted(p.stem for p in DOCS.glob("*.md") if p.stem not in SITE_PAGES)


def _list_notes(app, docname: str, source: list[str]) -> None:
    """Append the notes' toctree to notes/index.md, so that a note added later is listed."""
    if docname == "notes/index":
        entries = "\n".join(f"/{name}" for name in _notes())
        source[0] += f"\n\n```{{toctree}}\n:maxdepth: 1\n\n{entries}\n```\n"


def _list_the_rest(app, docname: str, source: list[str]) -> None:
    """Append to api/index.md every public name its sections do not list (none, today)."""
    if docname != "api/index":
        return
    listed = {line.strip() for line in source[0].splitlines()}
    rest = [name for name in roofline_widget.__all__ if name not in listed]
    if rest:
        names = "\n".join(f"   {name}" for name in rest)
        source[0] += ("\n\n## Other public names\n\n```{eval-rst}\n.. currentmodule:: "
                      f"roofline_widget\n\n.. autosummary::\n   :toctree: generated\n\n{names}\n```\n")


def _always_reread(app, env, added, changed, removed) -> list[str]:
    """The two pages whose lists conf.py writes are read on every build (a note may be new)."""
    return ["notes/index", "api/index"]


def setup(app) -> dict:
    app.connect("builder-inited", _copy_quickstart)
    app.connect("builder-inited", _write_widget_scripts)
    app.connect("env-get-outdated", _always_reread)
    app.connect("source-read", _list_notes)
    app.connect("source-read", _list_the_rest)
    return {"parallel_read_safe": True}
