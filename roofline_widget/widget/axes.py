"""Log axes of the widget's figures: tick labels kept apart, in the axes' state (``Axis.tick_labels``).

bqplot picks a log axis' ticks in the browser (every 1..9 x 10^k under 2
decades, 1, 2 and 5 x 10^k under 7, powers of ten beyond) whatever the width
of their text; its ``num_ticks`` does not help (with it, bqplot spaces the
ticks evenly in data, not in decades).  The kernel leaves the choice of ticks
to the browser, so that they follow a pan or zoom made there (a saved page has
no kernel), and writes an empty label for every tick whose text would come too
close to another's (:func:`~roofline_widget.look.log_axes.spaced_labels`): the
axis keeps the tick and its grid line.

The labels are spaced for the narrowest the figure is drawn as far as the
kernel knows (:func:`tick_lengths`): bqplot never tells the kernel the size
the browser gave a figure, so a figure of ``width: 100%`` (the roofline's) is
spaced for its ``min_width``, and one whose layout fixes its width in px (the
scaling panel's, or a user's ``figure.plot.layout.width = "1200px"``) for that
width.  They are decided again whenever the kernel learns of new ranges (a
filter, a peak, a pan or zoom in a notebook) and when the figure's layout or
margins change (:func:`follow_plot_size`).  Both the roofline
(:class:`~roofline_widget.widget.figure.RooflineFigure`) and the scaling panel
label their log axes here (:func:`label_log_axes`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from roofline_widget.look.label_boxes import WIDGET_CANVAS
from roofline_widget.look.log_axes import TICK_FORMAT, spaced_labels, tick_format, tick_text
from roofline_widget.look.plot_area import least_width, mark_padding, scale_size

__all__ = ["PLOT_SIZE_TRAITS", "follow_plot_size", "js_number_text", "label_log_axes",
           "set_log_tick_labels", "tick_extent_px", "tick_labels", "tick_lengths"]

#: The traits of a bqplot Figure (``"layout"``: its layout replaced) and of its layout that
#: :func:`tick_lengths` reads.
PLOT_SIZE_TRAITS = {"figure": ("layout", "fig_margin", "padding_x", "padding_y",
                               "min_aspect_ratio", "max_aspect_ratio"),
                    "layout": ("width", "min_width", "max_width", "height")}


def js_number_text(value: float) -> str:
    """``String(value)`` in JavaScript: the key bqplot looks a tick's label up by.

    The shortest digits that read back as ``value`` (as Python's ``repr``), in
    positional notation from 1e-6 up to 1e21 and as ``1e-7``, ``1.5e+21`` beyond.

    Examples
    --------
    >>> [js_number_text(v) for v in (100.0, 0.002, 3 * 0.1, 1e-6, 2e-7, 1e20, 1e21)]
    ['100', '0.002', '0.30000000000000004', '0.000001', '2e-7', '100000000000000000000', '1e+21']
    """
    if 1e-4 <= abs(value) < 1e16:  # where Python's repr is positional too
        text = repr(float(value))
        return text.removesuffix(".0")
    if value != 0 and (abs(value) < 1e-6 or abs(value) >= 1e21):
        return np.format_float_scientific(value, unique=True, trim="-", exp_digits=1)
    return np.format_float_positional(value, unique=True, trim="-")


def tick_extent_px(value: float, vertical: bool, text_format: str = TICK_FORMAT) -> float:
    """The extent of a tick's label along its axis (px): its text's width on x, its font size on y.

    bqplot writes tick labels (in ``text_format``) in its ``--bq-font``, 12 px
    sans-serif, the size of the ceiling labels (``WIDGET_CANVAS``), whose width
    estimate this is; a number's digits stand about 9 px of the 12 px high.
    """
    if vertical:
        return WIDGET_CANVAS.font_px
    return WIDGET_CANVAS.text_px(tick_text(value, text_format))


def tick_labels(low: float, high: float, length_px: float, vertical: bool) -> dict[str, str]:
    """``Axis.tick_labels`` of a log axis over ``low`` to ``high``: an empty text where none fits.

    Keys are the ticks bqplot may show as the view pans (:func:`js_number_text`
    of :func:`~roofline_widget.look.log_axes.spaced_labels`' ticks); the ticks
    not listed keep the axis' ``tick_format``.
    """
    return dict.fromkeys(_blanked_ticks(low, high, length_px, vertical), "")


@lru_cache(maxsize=64)
def _blanked_ticks(low: float, high: float, length_px: float, vertical: bool) -> tuple[str, ...]:
    """The keys :func:`tick_labels` blanks, worked out once per range (a redraw that keeps the
    ranges, such as most peak-slider steps, costs a lookup)."""
    text_format = tick_format(low, high)
    ticks, labelled = spaced_labels(low, high, length_px,
                                    lambda value: tick_extent_px(value, vertical, text_format))
    return tuple(js_number_text(value) for value in ticks[~labelled])


def set_log_tick_labels(axis, low: float, high: float, length_px: float) -> None:
    """Give the bqplot ``axis`` the :func:`tick_labels` of ``low`` to ``high`` (sent when they changed).

    ``length_px``: the pixels from ``low`` to ``high`` at the plot's smallest size.
    """
    labels = tick_labels(low, high, length_px, vertical=axis.side in ("left", "right"))
    if axis.tick_labels != labels:
        axis.tick_labels = labels


def tick_lengths(plot) -> tuple[float, float]:
    """The pixels over which ``plot``'s x and y scales run, at the narrowest the kernel knows it drawn.

    The figure's :func:`~roofline_widget.look.plot_area.least_width` and its
    height (its layout's, in px), less ``fig_margin``, bqplot's ``padding_x`` and
    ``padding_y`` (:func:`~roofline_widget.look.plot_area.scale_size`) and the
    pixels kept free at each end for the marks
    (:func:`~roofline_widget.look.plot_area.mark_padding`).

    Parameters
    ----------
    plot : bqplot.Figure
        The figure (its layout, margins, paddings and marks).

    Returns
    -------
    (float, float)
        The x and y lengths (px), each at least 1.
    """
    width, height = scale_size(plot, width=least_width(plot))
    padding = 2 * mark_padding(plot.marks)
    return max(width - padding, 1.0), max(height - padding, 1.0)


def label_log_axes(plot, x_range: tuple[float, float], y_range: tuple[float, float]) -> None:
    """Give each axis of ``plot`` the tick format and labels of its log range, at :func:`tick_lengths`.

    Parameters
    ----------
    plot : bqplot.Figure
        Its ``axes``: a ``left`` or ``right`` one takes ``y_range``, any other ``x_range``.
    x_range, y_range : (float, float)
        The log scales' limits, ``0 < low < high``.
    """
    lengths = tick_lengths(plot)
    for axis in plot.axes:
        vertical = axis.side in ("left", "right")
        low, high = y_range if vertical else x_range
        with axis.hold_sync():  # format and labels in one message
            axis.tick_format = tick_format(low, high)
            set_log_tick_labels(axis, low, high, lengths[vertical])


def follow_plot_size(plot, callback: Callable[[], None]) -> None:
    """Call ``callback()`` whenever what :func:`tick_lengths` reads of ``plot`` changes.

    The figure's :data:`PLOT_SIZE_TRAITS` (its margins, paddings, aspect-ratio
    limits; its layout replaced) and its layout's sizes, the replacing layout's from then on.
    """
    def changed(_change=None) -> None:
        callback()

    def new_layout(change) -> None:
        if change.old is not None:
            change.old.unobserve(changed, names=list(PLOT_SIZE_TRAITS["layout"]))
        change.new.observe(changed, names=list(PLOT_SIZE_TRAITS["layout"]))

    plot.layout.observe(changed, names=list(PLOT_SIZE_TRAITS["layout"]))
    plot.observe(new_layout, names="layout")
    plot.observe(changed, names=list(PLOT_SIZE_TRAITS["figure"]))
