"""The static figures' Agg canvas: matplotlib's pixels of every text, drawn with less work a glyph.

matplotlib's Agg renderer (3.11) draws a line of text glyph by glyph
(``RendererAgg._draw_text_glyphs_and_boxes``): before each glyph it sets the glyph's
font to its size again, which makes FreeType work out the size's metrics and hinting
once more, and builds the glyph's 2 x 2 transform with numpy.  :class:`GlyphRenderer`
takes the same steps in the same order with the same numbers, but sets a font's size
only when the font or the size changes and builds the transform once per slant and
stretch: the same bitmaps at the same places (``tests/test_static_text.py`` compares
every pixel with matplotlib's renderer), about a quarter less time a glyph (the 18-run
sweep's figure: 1,915 glyphs, its draw 225 -> 174 ms of CPU).

The loop it replaces is a private method of matplotlib's.  :func:`canvas_class` hands
out :class:`GlyphCanvas` only where this matplotlib draws text that way (the method and
its parameters, FreeType's per-glyph calls it makes); elsewhere matplotlib's own
``FigureCanvasAgg``, which draws the same pixels.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.ft2font import FT2Font

__all__ = ["GlyphCanvas", "GlyphRenderer", "canvas_class", "draws_glyphs_one_by_one"]

#: The parameters of matplotlib's glyph loop that :class:`GlyphRenderer` takes over.
_GLYPH_LOOP = ("self", "gc", "x", "y", "angle", "glyphs", "boxes")


def draws_glyphs_one_by_one() -> bool:
    """Whether this matplotlib's Agg renderer draws text as :class:`GlyphRenderer` expects:
    a glyph loop ``_draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)`` over
    ``FT2Font._set_transform`` and ``FT2Font._render_glyph`` (matplotlib 3.11)."""
    loop = getattr(RendererAgg, "_draw_text_glyphs_and_boxes", None)
    if loop is None or not all(hasattr(FT2Font, name) for name in ("_set_transform", "_render_glyph")):
        return False
    try:
        from matplotlib.ft2font import RenderMode  # noqa: F401 - matplotlib >= 3.10
    except ImportError:
        return False
    return tuple(inspect.signature(loop).parameters) == _GLYPH_LOOP


class GlyphRenderer(RendererAgg):
    """matplotlib's Agg renderer whose glyphs are drawn with their font sized once a run.

    Everything but the glyph loop is ``RendererAgg``'s (the rules of a mathtext formula
    too).
    """

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        """Draw ``glyphs`` (font, size, glyph index, slant, stretch, dx, dy: matplotlib's
        tuples) at ``x``, ``y`` (pixels, y down) turned by ``angle`` degrees, as matplotlib
        does, then ``boxes`` by matplotlib's own code."""
        from matplotlib.ft2font import RenderMode

        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        load_flags = get_hinting_flag()
        antialiased = gc.get_antialiased()
        mode = RenderMode.NORMAL if antialiased else RenderMode.MONO
        turn = 0x10000 * np.array([[cos, -sin], [sin, cos]])
        transforms: dict[tuple[float, float], np.ndarray] = {}
        sized: tuple | None = None  # the (font, size) the last glyph was drawn in
        for font, size, glyph_index, slant, extend, dx, dy in glyphs:  # dy is upwards
            if sized is None or sized[0] is not font or sized[1] != size:
                font.set_size(size, self.dpi)
                sized = (font, size)
            transform = transforms.get((slant, extend))
            if transform is None:
                transform = transforms[(slant, extend)] = (
                    (turn @ [[extend, extend * slant], [0, 1]]).round().astype(int))
            font._set_transform(transform, [round(0x40 * (x + dx * cos - dy * sin)),
                                            # FreeType's y is upwards
                                            round(0x40 * (self.height - y + dx * sin + dy * cos))])
            bitmap = font._render_glyph(glyph_index, load_flags, mode)
            buffer = bitmap.buffer
            if not antialiased:
                buffer *= 0xff
            # draw_text_image's y is downwards and the bitmap's bottom side
            self._renderer.draw_text_image(buffer, bitmap.left,
                                           int(self.height) - bitmap.top + buffer.shape[0], 0, gc)
        super()._draw_text_glyphs_and_boxes(gc, x, y, angle, (), boxes)


class GlyphCanvas(FigureCanvasAgg):
    """matplotlib's Agg canvas drawing on a :class:`GlyphRenderer` (made again when the
    canvas' size or resolution changes, as matplotlib's)."""

    _glyph_renderer_key: tuple | None = None  # the renderer's (width, height, dpi)

    def get_renderer(self):
        """The canvas' renderer: the same one while its size and resolution stay the same
        (matplotlib's text metrics are cached per renderer)."""
        width, height = self.get_width_height(physical=True)
        key = (width, height, self.figure.dpi)
        if self._glyph_renderer_key != key:
            self.renderer = GlyphRenderer(width, height, self.figure.dpi)
            self._glyph_renderer_key = key
        return self.renderer


def canvas_class() -> type:
    """The Agg canvas class of the static figures: :class:`GlyphCanvas` where
    :func:`draws_glyphs_one_by_one`, else matplotlib's ``FigureCanvasAgg``."""
    return GlyphCanvas if _GLYPH_LOOP_FOUND else FigureCanvasAgg


_GLYPH_LOOP_FOUND = draws_glyphs_one_by_one()
