"""The scripts a shared HTML page inlines: RequireJS, the HTML widget manager and the widgets' bundles.

A page written by :mod:`roofline_widget.static.html_page` is drawn by
ipywidgets' own HTML widget manager (``@jupyter-widgets/html-manager``'s
``dist/embed-amd.js``) from the widget state in the page.  That bundle is an
AMD file: it defines ``@jupyter-widgets/base``, ``@jupyter-widgets/controls``
and the manager by name through RequireJS, and loads any other widget module
(``bqplot``, ``bqscales``, ``bqplot-gl``) with RequireJS too, from a CDN if
the page does not define it.  So the page defines them itself: each widget
package ships its front end as an AMD module with an anonymous
``define([...], ...)`` (its ``nbextension/index.js``), which is given its
module's name here (``define("bqplot", [...], ...)``), the standard way of
putting several AMD modules in one file.  Nothing is then loaded from
anywhere.

The manager and RequireJS are downloaded at build time (``hatch_build.py``) into
``vendor/``; the widgets' bundles come from the installed Python packages, so
they always match the widget state written.  Left out of the manager's bundle:
ipywidgets 7's ``base7`` and ``controls7`` modules (0.8 MB; no widget here is an
ipywidgets 7 one) and the source-map comments (files that are not there).
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import re
import sys
from pathlib import Path

from roofline_widget.errors import HtmlScriptsError

__all__ = [
    "FONT_FILE",
    "MANAGER_FILE",
    "REQUIREJS_FILE",
    "UNUSED_MANAGER_MODULES",
    "VENDOR",
    "WIDGET_PACKAGES",
    "font_css",
    "manager_script",
    "missing_scripts",
    "named_module",
    "script_element",
    "vendor_file",
    "widget_bundle",
]

#: Where the build step puts the downloaded files.
VENDOR = Path(__file__).resolve().parent / "vendor"
REQUIREJS_FILE, MANAGER_FILE, FONT_FILE = "require.js", "embed-amd.js", "fa-solid-900.woff2"
#: Widget module name -> the Python package whose ``nbextension`` folder holds its bundle.
WIDGET_PACKAGES = {"bqscales": "bqscales", "bqplot": "bqplot", "bqplot-gl": "bqplot_gl",
                   "ipyevents": "ipyevents"}
#: Named modules of the manager's bundle no page here needs (ipywidgets 7's).
UNUSED_MANAGER_MODULES = ("@jupyter-widgets/base7", "@jupyter-widgets/controls7")
_ANONYMOUS_DEFINE = re.compile(r"^define\(\[", re.MULTILINE)
_NAMED_DEFINE = re.compile(r'^define\("([^"]+)"', re.MULTILINE)
#: Each module of the manager's bundle starts with this comment line (upstream's build).
_MODULE_START = "/*! For license information please see "
_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
#: What would end or confuse a <script> element (the HTML standard's restrictions on its content).
_SCRIPT_BREAKERS = re.compile(r"<(script|/script|!--)", re.IGNORECASE)
_HOW_TO_GET = ("they are downloaded from the npm registry when the package is built: reinstall it "
               "(pip install roofline-widget, or pip install -e . in a checkout), or run "
               "'python hatch_build.py' in a checkout")


def vendor_file(name: str) -> Path:
    """The downloaded file ``name`` of :data:`VENDOR`.

    Raises
    ------
    HtmlScriptsError
        When it is missing, saying how to get it.
    """
    path = VENDOR / name
    if not path.is_file():
        raise HtmlScriptsError(f"the HTML export needs {path}, which is missing: {_HOW_TO_GET}")
    return path


def _nbextension_folders(package: str) -> list[Path]:
    """Where ``package``'s classic-notebook bundle may be: its own folder, then the prefix's."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return []
    here = Path(spec.origin).parent
    dest = package.replace("_", "-")
    return [here / "nbextension", here / "nbextension" / "static",
            Path(sys.prefix) / "share" / "jupyter" / "nbextensions" / dest,
            here.parent / "share" / "jupyter" / "nbextensions" / dest]


def named_module(text: str, name: str) -> str:
    """The AMD bundle ``text`` with its one anonymous ``define([`` given the name ``name``.

    Raises
    ------
    ValueError
        When ``text`` has not exactly one anonymous define at the start of a line.

    Examples
    --------
    >>> named_module('/* x */\\ndefine(["a"],f=>f)', "mine")
    '/* x */\\ndefine("mine",["a"],f=>f)'
    """
    found = len(_ANONYMOUS_DEFINE.findall(text))
    if found != 1:
        raise ValueError(f"expected one anonymous AMD define at a line start, found {found}")
    return _ANONYMOUS_DEFINE.sub(lambda _m: f"define({_js_string(name)},[", text, count=1)


def _js_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@functools.lru_cache(maxsize=8)
def widget_bundle(module: str) -> str:
    """The front end of widget module ``module`` (a key of :data:`WIDGET_PACKAGES`), named.

    Raises
    ------
    HtmlScriptsError
        When the package or its bundle is not installed.
    """
    package = WIDGET_PACKAGES[module]
    for folder in _nbextension_folders(package):
        path = folder / "index.js"
        if path.is_file():
            return named_module(_without_source_map(path.read_text(encoding="utf-8")), module)
    raise HtmlScriptsError(
        f"the HTML export needs the front end of {module!r} (nbextension/index.js of the Python "
        f"package {package!r}), which was not found: pip install --force-reinstall {package}")


def _without_source_map(text: str) -> str:
    return _SOURCE_MAP.sub("", text)


@functools.lru_cache(maxsize=1)
def manager_script() -> str:
    """RequireJS, then the HTML widget manager's modules (less :data:`UNUSED_MANAGER_MODULES`).

    The manager's last lines start it: once the page has loaded, it draws
    every widget view of the page from the page's widget state.

    Raises
    ------
    HtmlScriptsError
        When a downloaded file is missing.
    ValueError
        When the manager's bundle is not laid out as the pinned version is (one
        named module after each licence comment line).
    """
    requirejs = vendor_file(REQUIREJS_FILE).read_text(encoding="utf-8")
    manager = vendor_file(MANAGER_FILE).read_text(encoding="utf-8")
    parts = manager.split("\n" + _MODULE_START)
    kept, dropped = [parts[0]], []
    for part in parts[1:]:
        names = _NAMED_DEFINE.findall(part)
        if names and names[0] in UNUSED_MANAGER_MODULES:
            dropped.append(names[0])
        else:
            kept.append(_MODULE_START + part)
    if sorted(dropped) != sorted(UNUSED_MANAGER_MODULES):
        raise ValueError(f"{MANAGER_FILE} is not laid out as expected: found the modules "
                         f"{_NAMED_DEFINE.findall(manager)}")
    return _without_source_map(requirejs + "\n" + "\n".join(kept))


@functools.lru_cache(maxsize=1)
def font_css() -> str:
    """An ``@font-face`` rule carrying the toolbar's icon font, so that no font file is requested."""
    data = base64.b64encode(vendor_file(FONT_FILE).read_bytes()).decode("ascii")
    return ('@font-face{font-family:"Font Awesome 5 Free";font-style:normal;font-weight:900;'
            f'font-display:block;src:url(data:font/woff2;base64,{data}) format("woff2")}}')


def script_element(text: str, kind: str = "") -> str:
    """``text`` as the content of a ``<script>`` element (of type ``kind``, if given).

    ``<script``, ``</script`` and ``<!--`` are written ``\\u003cscript`` etc.,
    as ipywidgets' own embedding does: the same string in JSON and in a
    JavaScript string or regular expression, and no longer able to end the
    element.
    """
    kind_attribute = f' type="{kind}"' if kind else ""
    content = _SCRIPT_BREAKERS.sub(r"\\u003c\1", text)
    return f"<script{kind_attribute}>{content}</script>"


def missing_scripts() -> str | None:
    """Why a page cannot be written here (a script to inline is missing), or None."""
    try:
        for name in (REQUIREJS_FILE, MANAGER_FILE, FONT_FILE):
            vendor_file(name)
        for module in ("bqscales", "bqplot", "bqplot-gl"):
            widget_bundle(module)
    except HtmlScriptsError as exc:
        return str(exc)
    return None
