"""What ``plot_roofline`` writes: its arguments checked first, then the image and data writers.

Every argument and output path is checked before anything is computed or
written (:func:`check_arguments`); the writers (:func:`image_writer`,
:func:`data_writer`) are handed to
:func:`~roofline_widget.static.output_files.write_atomically`.  JSON exports
hold ``null`` where a value is missing, never ``NaN``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from roofline_widget.escaping import spreadsheet_safe
from roofline_widget.static import output_files
from roofline_widget.static.png_file import png_bytes

__all__ = [
    "BACKENDS",
    "DATA_FORMATS",
    "PLOT_DATA_FORMAT",
    "PLOT_DATA_FORMAT_VERSION",
    "check_arguments",
    "data_writer",
    "fit_to_drawing",
    "image_writer",
    "import_matplotlib",
    "plain",
    "records",
]

BACKENDS = ("matplotlib", "bqplot")
DATA_FORMATS = tuple(output_files.DATA_SUFFIXES)
PLOT_DATA_FORMAT = "scope-profiler-plot-data"
PLOT_DATA_FORMAT_VERSION = 1
#: Payload entries that are drawing objects, not data (left out of the JSON export).
_NOT_EXPORTED = ("figure", "roofline_figure", "legend", "scene", "widget")


def import_matplotlib() -> tuple:
    """``(matplotlib, Figure, FigureCanvasAgg)``, or an ImportError naming the extra to install."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "plot_roofline(backend='matplotlib') needs matplotlib, an optional extra: "
            "pip install 'roofline-widget[static]' (or use backend='bqplot')") from exc
    return matplotlib, Figure, FigureCanvasAgg


def check_arguments(backend: str, filepath, data_filepath, data_format: str) -> dict:
    """Check the arguments and every output path; the targets by kind (image, data).

    Raises
    ------
    ValueError
        For an unknown backend or data format, an image file (other than an
        ``.html`` page) with the bqplot backend, and (an ``OutputPathError``)
        any output path that cannot be written.
    ImportError
        For the matplotlib backend without matplotlib (unless the file is a page).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {list(BACKENDS)}")
    data_format = str(data_format).lower()
    if data_format not in DATA_FORMATS:
        raise ValueError(f"unknown data_format {data_format!r}; use one of {list(DATA_FORMATS)}")
    page = filepath is not None and (output_files.image_target(filepath).format
                                     in output_files.HTML_FORMATS)
    if filepath is not None and backend == "bqplot" and not page:
        raise ValueError("a bqplot Figure can only be saved from the browser; use "
                         "backend='matplotlib' to write an image file, or an .html file")
    targets = {}
    if filepath is not None:
        targets[output_files.IMAGE] = output_files.image_target(filepath)
    if data_filepath is not None:
        targets[output_files.DATA] = output_files.data_target(data_filepath, data_format)
    output_files.check_targets(list(targets.values()))
    if backend == "matplotlib" and not page:  # a page is the widget's (static/html_export.py)
        import_matplotlib()
    return targets


def plain(value):
    """JSON-safe Python value: NaN and infinities become None."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, pd.DataFrame):  # payload["comparison"] of a plot with a baseline
        return records(value)
    if value is pd.NA:  # nullable integer columns (n_threads of a region found in one run)
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-safe dicts (:func:`plain`)."""
    return [plain(row) for row in frame.to_dict(orient="records")]


def data_writer(data_format: str, table: pd.DataFrame, payload: dict) -> Callable[[str], None]:
    """``write(path)`` for the data file: the point table (CSV, Parquet) or the payload (JSON)."""
    if data_format == "csv":  # text cells that start like a formula get a leading '
        return lambda path: spreadsheet_safe(table).to_csv(path, index=False)
    if data_format == "parquet":
        return lambda path: table.to_parquet(path, index=False)
    return lambda path: _write_json(path, payload)


def _write_json(path, payload: dict) -> None:
    document = {"format": PLOT_DATA_FORMAT, "format_version": PLOT_DATA_FORMAT_VERSION,
                "plot": "roofline",
                **plain({k: v for k, v in payload.items() if k not in _NOT_EXPORTED})}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, allow_nan=False)
        handle.write("\n")


def tight_box(figure):
    """The box (inches) around everything ``figure`` draws, worked out from the artists' extents
    without drawing them (``savefig(bbox_inches="tight")`` draws the whole figure once more for
    it), padded as matplotlib pads a tight box (``savefig.pad_inches``), its edges on whole
    pixels (a file cut from the canvas and one ``savefig`` writes have the same pixels)."""
    import matplotlib
    from matplotlib.transforms import Bbox

    renderer = figure.canvas.get_renderer()
    box = figure.get_tightbbox(renderer).padded(matplotlib.rcParams["savefig.pad_inches"])
    dpi = figure.dpi
    return Bbox.from_extents(math.floor(box.x0 * dpi) / dpi, math.floor(box.y0 * dpi) / dpi,
                             math.ceil(box.x1 * dpi) / dpi, math.ceil(box.y1 * dpi) / dpi)


def fit_to_drawing(figure, box) -> None:
    """Resize ``figure`` to ``box`` (:func:`tight_box`, the box its image file was cut to: the
    figure's artists are measured once), everything drawn at its place: the figure a
    user gets back saves (``savefig`` without a box) and shows what the image file holds.

    The axes (a colour bar's among them) and the figure's texts placed in figure fractions
    are moved to the same inches from the box's corner; what is placed relative to the axes
    (legend, notes, labels) follows them.  The texts keep their sizes (the resolution is
    unchanged); nothing is drawn here.
    """
    from matplotlib.transforms import Bbox

    dpi = figure.dpi
    width, height = figure.get_size_inches()
    # the new size in whole pixels (the box's edges are on pixels; Agg truncates a size)
    new_width, new_height = (_inches(round(extent * dpi), dpi)
                             for extent in (box.width, box.height))

    def moved(x: float, y: float) -> tuple[float, float]:
        return (x * width - box.x0) / new_width, (y * height - box.y0) / new_height

    for axes in figure.axes:
        position = axes.get_position(original=True)
        x0, y0 = moved(position.x0, position.y0)
        x1, y1 = moved(position.x1, position.y1)
        axes.set_position(Bbox.from_extents(x0, y0, x1, y1))
    for text in figure.texts:
        if text.get_transform() == figure.transFigure:
            text.set_position(moved(*text.get_position()))
    figure.set_size_inches(new_width, new_height, forward=False)


def _inches(pixels: int, dpi: float) -> float:
    """The smallest size in inches at least ``pixels`` at ``dpi`` (in floats: the renderer
    truncates a size of 1182.9999 pixels to 1182)."""
    size = pixels / dpi
    while size * dpi < pixels:
        size = math.nextafter(size, math.inf)
    return size


def _saved_as_drawn() -> bool:
    """Whether ``savefig`` would save the canvas as drawn: matplotlib's defaults for the
    resolution, the background and the frame (a user's ``savefig.*`` settings win)."""
    import matplotlib

    rc = matplotlib.rcParams
    return (rc["savefig.dpi"] == "figure" and rc["savefig.facecolor"] == "auto"
            and rc["savefig.edgecolor"] == "auto" and not rc["savefig.transparent"])


def _write_png(figure, box, path) -> None:
    """The PNG of ``figure`` cut to ``box`` (:func:`tight_box`): drawn once on the canvas the
    texts were laid out on (their sizes measured once) and its pixels cut, when the box lies
    inside the canvas; else (or with a user's ``savefig.*`` settings) by ``savefig``, as other
    formats.

    An opaque image is written as RGB (what ``savefig`` writes as RGBA, with the same pixels
    and metadata), its rows unfiltered (:func:`~roofline_widget.static.png_file.png_bytes`):
    less than half the encoding time of ``savefig``'s Pillow, and a smaller file.
    """
    import matplotlib

    dpi = figure.dpi
    left, top = round(box.x0 * dpi), round(figure.bbox.height - box.y1 * dpi)
    width, height = round(box.width * dpi), round(box.height * dpi)
    if (not _saved_as_drawn() or left < 0 or top < 0 or left + width > figure.bbox.width
            or top + height > figure.bbox.height):
        figure.savefig(path, format="png", bbox_inches=box)
        return
    figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba())[top:top + height, left:left + width]
    opaque = bool((pixels[..., 3] == 255).all())
    software = f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"
    with open(path, "wb") as handle:
        handle.write(png_bytes(pixels[..., :3] if opaque else pixels, dpi, {"Software": software}))


def image_writer(figure, image_format: str, box=None) -> Callable[[str], None]:
    """``write(path)`` for the image file of a matplotlib ``figure``: drawn once, cut to
    ``box`` (inches; default :func:`tight_box` when the file is written, the box around its
    artists); a PNG on the canvas its texts were laid out on."""
    def write(path) -> None:
        cut = tight_box(figure) if box is None else box
        if image_format == "png":
            _write_png(figure, cut, path)
        else:
            figure.savefig(path, format=image_format, bbox_inches=cut)
    return write
