"""A widget view as one self-contained HTML page: its state, ipywidgets' HTML manager and every script inlined.

The page is what ipywidgets' own embedding writes (``ipywidgets.embed``: the
widget state as ``application/vnd.jupyter.widget-state+json``, a view spec
per shown widget), except that nothing is loaded from anywhere: RequireJS,
the HTML widget manager and the front ends of the widget modules in the state
are ``<script>`` elements of the page (:mod:`roofline_widget.static.html_scripts`),
and the one icon font a ``bqplot.Toolbar`` uses is a ``data:`` URL.  The
manager draws the views when the page has loaded; array buffers travel as
base64 in the state, as ipywidgets writes them.
"""

from __future__ import annotations

import html
import json

import ipywidgets
from ipywidgets.embed import dependency_state, embed_data

from roofline_widget import __version__
from roofline_widget.errors import HtmlScriptsError
from roofline_widget.static.html_scripts import (
    WIDGET_PACKAGES,
    font_css,
    manager_script,
    script_element,
    widget_bundle,
)

__all__ = ["BUILT_IN_MODULES", "PAGE_CSS", "STATE_TYPE", "TOOLTIP_CSS", "VIEW_TYPE", "page_html",
           "page_modules"]

STATE_TYPE = "application/vnd.jupyter.widget-state+json"
VIEW_TYPE = "application/vnd.jupyter.widget-view+json"
#: Widget modules the HTML manager defines itself.
BUILT_IN_MODULES = ("@jupyter-widgets/base", "@jupyter-widgets/controls", "@jupyter-widgets/output")
#: bqplot's tooltip keeps the line breaks of a point's text (region, rank, run, efficiency on
#: lines of their own).
TOOLTIP_CSS = ".bqplot_tooltip_div .datavalue{white-space:pre-line}"
#: The page's own style.
PAGE_CSS = "body{margin:12px;font-family:sans-serif}" + TOOLTIP_CSS


def page_modules(state: dict) -> list[str]:
    """The widget modules whose front ends the page must define, in the order they are inlined.

    Raises
    ------
    HtmlScriptsError
        For a widget whose module has no bundle that can be inlined.
    """
    used = {entry["model_module"] for entry in state.values()}
    used |= {entry["state"].get("_view_module") for entry in state.values()} - {None}
    unknown = sorted(used - set(BUILT_IN_MODULES) - set(WIDGET_PACKAGES))
    if unknown:
        raise HtmlScriptsError(f"the view holds widgets of {', '.join(map(repr, unknown))}, whose "
                               "front end the HTML export cannot inline (it inlines "
                               f"{', '.join(WIDGET_PACKAGES)})")
    return [module for module in WIDGET_PACKAGES if module in used]


def page_html(view: ipywidgets.DOMWidget, title: str, css: str = "") -> str:
    """The text of a page showing ``view`` (with the widgets it refers to and their links).

    Parameters
    ----------
    view : ipywidgets.DOMWidget
        The widget shown; its state and that of every widget it refers to
        (``ipywidgets.embed.dependency_state``, ``jslink``\\s between them
        included) are written.
    title : str
        The page's title (escaped here).
    css : str
        More style rules for the page.

    Raises
    ------
    HtmlScriptsError
        When a script to inline is missing (the message says how to get it).
    """
    state = dependency_state(view, drop_defaults=True)
    data = embed_data(view, drop_defaults=True, state=state)
    scripts = [manager_script(), *(widget_bundle(module) for module in page_modules(state))]
    head = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta name="generator" content="roofline-widget {__version__}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{PAGE_CSS}{css}</style>",
        *(script_element(text) for text in scripts),
        script_element(json.dumps(data["manager_state"], separators=(",", ":")), STATE_TYPE),
        "</head>", "<body>",
        # after the manager's own stylesheet: this @font-face is the one used (no font request)
        f"<style>{font_css()}</style>",
        "<noscript>This roofline is drawn by JavaScript: allow it to run for this file.</noscript>",
    ]
    views = [script_element(json.dumps(spec), VIEW_TYPE) for spec in data["view_specs"]]
    return "\n".join([*head, *views, "</body>", "</html>", ""])

