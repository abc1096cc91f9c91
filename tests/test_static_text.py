"""The static figures' canvas draws matplotlib's pixels, its text with less work (issue 33).

``static.agg_text.GlyphCanvas`` replaces matplotlib's glyph loop (private to matplotlib)
by one that sizes a font once per run of glyphs: every pixel must stay what
matplotlib's own ``FigureCanvasAgg`` draws.  Checked on the figure of a real sweep
(sample 19: region labels, legend, notes, rotated ceiling labels, colour bar) and on
texts of every kind the loop sees (sizes, fonts, angles, mathtext with its rules,
no antialiasing).  Where a matplotlib draws text otherwise, the canvas is matplotlib's.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from roofline_widget import plot_roofline
from roofline_widget.static import agg_text
from roofline_widget.static.agg_text import GlyphCanvas, GlyphRenderer, canvas_class

SWEEP = Path(__file__).resolve().parent / "data" / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv"

needs_the_glyph_loop = pytest.mark.skipif(
    not agg_text.draws_glyphs_one_by_one(),
    reason="this matplotlib draws text otherwise: the canvas is its own FigureCanvasAgg")


def _drawn(figure, canvas_type) -> np.ndarray:
    canvas_type(figure)
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba()).copy()


def _texts_of_every_kind() -> Figure:
    figure = Figure(figsize=(5.0, 4.0), dpi=100.0)
    axes = figure.add_axes((0.15, 0.15, 0.7, 0.7))
    axes.plot([1, 2, 3], [3, 1, 2])
    axes.set_title("Roofline analysis (empirical ceilings)", fontsize=12)
    axes.set_xlabel("Arithmetic intensity [FLOP/byte]")
    axes.text(1.1, 2.8, "CalcEnergyForElems:KERNEL_5 \N{HORIZONTAL ELLIPSIS}", fontsize=7)
    axes.text(1.2, 1.2, "Empirical bandwidth 22.87 GB/s", rotation=33.5, rotation_mode="anchor",
              fontsize=8.5)
    axes.text(2.0, 2.5, "bold, serif", fontweight="bold", family="serif", fontsize=9)
    axes.text(2.0, 2.2, "italic, turned", style="italic", rotation=90)
    axes.text(1.5, 1.6, r"$\frac{a}{b} = \sqrt{x_1^2}$", fontsize=11)  # glyphs and rules
    axes.text(2.5, 1.4, "no antialiasing", antialiased=False)
    axes.text(1.3, 1.9, "line one\nline two, longer", fontsize=8)
    axes.legend(["a line"])
    return figure


@needs_the_glyph_loop
def test_texts_of_every_kind_have_matplotlibs_pixels():
    figure = _texts_of_every_kind()
    ours = _drawn(figure, GlyphCanvas)
    assert isinstance(figure.canvas.get_renderer(), GlyphRenderer)
    theirs = _drawn(figure, FigureCanvasAgg)
    assert type(figure.canvas.get_renderer()) is not GlyphRenderer
    assert (ours[..., :3] < 128).any()  # text and lines were drawn
    assert np.array_equal(ours, theirs)


@needs_the_glyph_loop
def test_the_sweep_figure_has_matplotlibs_pixels():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure = plot_roofline(str(SWEEP), verbose=False)["figure"]
    assert type(figure.canvas) is GlyphCanvas  # the static figure is drawn on it
    ours = _drawn(figure, GlyphCanvas)
    theirs = _drawn(figure, FigureCanvasAgg)
    assert np.array_equal(ours, theirs)


@needs_the_glyph_loop
def test_the_renderer_is_kept_while_the_size_stays():
    figure = Figure(figsize=(2.0, 1.0), dpi=100.0)
    canvas = GlyphCanvas(figure)
    first = canvas.get_renderer()
    assert canvas.get_renderer() is first  # the texts' metrics are cached per renderer
    figure.set_size_inches(3.0, 1.0)
    resized = canvas.get_renderer()
    assert resized is not first
    assert (resized.width, resized.height) == (300, 100)


def test_without_the_glyph_loop_the_canvas_is_matplotlibs(monkeypatch):
    monkeypatch.setattr(agg_text, "_GLYPH_LOOP_FOUND", False)
    assert canvas_class() is FigureCanvasAgg
    monkeypatch.setattr(agg_text, "_GLYPH_LOOP_FOUND", True)
    assert canvas_class() is GlyphCanvas


def test_the_glyph_loop_is_recognised_by_its_parameters(monkeypatch):
    # matplotlib 3.11 has the loop; a later one without it fails here: the text is drawn at
    # matplotlib's own (slower) pace then, which issue 33's benchmark would want to know
    found = agg_text.draws_glyphs_one_by_one()
    assert found == (tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) >= (3, 11))

    def other_loop(self, gc, x, y, angle, glyphs):  # a changed private method
        raise AssertionError("not called")

    monkeypatch.setattr(matplotlib.backends.backend_agg.RendererAgg,
                        "_draw_text_glyphs_and_boxes", other_loop, raising=False)
    assert not agg_text.draws_glyphs_one_by_one()
