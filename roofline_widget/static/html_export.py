"""Shared pages: ``RooflineWidget.save_html`` and the ``.html`` files of ``plot_roofline`` and the CLI.

One HTML file that opens offline in any browser and shows what the widget
shows, as far as a browser alone can (:mod:`~roofline_widget.static.html_view`),
drawn by ipywidgets' HTML widget manager from the widget state written into
the page with every script it needs (:mod:`~roofline_widget.static.html_page`).
The path is checked first and the file written atomically
(:mod:`~roofline_widget.static.output_files`).
"""

from __future__ import annotations

import os
from pathlib import Path

from roofline_widget.errors import OutputPathError
from roofline_widget.static import output_files
from roofline_widget.static.html_page import page_html
from roofline_widget.static.html_view import SHARED_CSS, shared_view

__all__ = ["TITLE_FILES", "html_text", "page_title", "save_html", "write_html"]

#: Most file names in a page's title.
TITLE_FILES = 3


def page_title(widget) -> str:
    """The page's title: "Roofline: " and the names of the files drawn."""
    scene = widget.figure.scene
    points = scene.point_rows if scene is not None else None
    files = [] if points is None or not len(points) else points["file"].astype(str).unique().tolist()
    shown = ", ".join(files[:TITLE_FILES]) + (f" and {len(files) - TITLE_FILES} more"
                                              if len(files) > TITLE_FILES else "")
    return f"Roofline: {shown}" if shown else "Roofline"


def html_text(widget, title: str | None = None) -> str:
    """The text of the page of ``widget`` (a :class:`~roofline_widget.RooflineWidget`)."""
    return page_html(shared_view(widget), title or page_title(widget), SHARED_CSS)


def write_html(widget, path: str | os.PathLike, title: str | None = None) -> None:
    """Write the page of ``widget`` to ``path`` as it is (no check, not atomic)."""
    text = html_text(widget, title)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def save_html(widget, path: str | os.PathLike, title: str | None = None) -> Path:
    """Check ``path``, then write the page of ``widget`` there atomically; the path.

    This is :meth:`RooflineWidget.save_html <roofline_widget.RooflineWidget.save_html>`
    (``widget.save_html(path)``).  The page opens offline in any browser: the
    points with their hover texts, pan and zoom, region and rank toggles, the
    ceilings with their labels and provenance, level dots, baseline arrows
    and chains, the legend and the ceilings and left-out tables; what needs
    Python (other metrics or ranks, new peaks, filters, selection) is left
    out (:mod:`~roofline_widget.static.html_view`, docs/guide/sharing.md).

    Parameters
    ----------
    widget : RooflineWidget
        The widget (``self`` of the method).
    path : str or path-like
        The file, ending ``.html`` or ``.htm``; its directory must exist.
    title : str, optional
        The page's title (default: "Roofline: " and the files drawn).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputPathError
        Before anything is written: the directory is missing or not writable,
        the path is a directory, the suffix is not ``.html``/``.htm``, or a
        script the page inlines is not installed (the message says how to get it).
    """
    target = output_files.image_target(path)
    if target.format not in output_files.HTML_FORMATS:
        raise OutputPathError([(path, "page", f"the suffix {target.path.suffix!r} is not "
                                              ".html or .htm")])
    output_files.check_targets([target])
    output_files.write_atomically([(target, lambda temporary: write_html(widget, temporary, title))])
    return target.path
