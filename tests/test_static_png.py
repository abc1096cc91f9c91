"""A PNG of the static figure is its canvas drawn once and cut to what is drawn (issue 33).

``static.exports.image_writer`` writes a PNG from the canvas the texts were laid out on,
cut to ``tight_box`` (no second renderer, no second layout of every text), when that box
lies inside the canvas; what does not fit, and a user's ``savefig.*`` settings, go through
``savefig``.  Checked against ``savefig`` of the same box: the same pixels, the same size.
The figure ``plot_roofline`` returns is then fitted to what it draws
(``static.exports.fit_to_drawing``): its own ``savefig``, without a box, writes the file's picture.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from roofline_widget import plot_roofline, sample_path
from roofline_widget.static.exports import image_writer, tight_box
from roofline_widget.static.png_file import png_bytes

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")


def _pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def _saved(figure, path) -> np.ndarray:
    """What ``savefig`` writes of the same box (a second renderer of the box's size)."""
    figure.savefig(path, bbox_inches=tight_box(figure))
    return _pixels(path)


def _same_picture(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """The same picture: sizes apart by at most the one pixel of rounding (``savefig``
    truncates the box's size in pixels, the cut rounds it); on the common area equal pixels
    but for a few on the edge of a line (``savefig`` shifts the figure by the box's corner,
    a whole number of pixels up to the last bit of a float: antialiasing may differ there by
    a few levels)."""
    height, width = min(ours.shape[0], theirs.shape[0]), min(ours.shape[1], theirs.shape[1])
    apart = np.abs(ours[:height, :width].astype(int) - theirs[:height, :width].astype(int))
    return (abs(ours.shape[0] - theirs.shape[0]) <= 1 and abs(ours.shape[1] - theirs.shape[1]) <= 1
            and np.count_nonzero(apart.max(axis=2)) <= 20 and apart.max() <= 32)


def test_the_plot_png_has_the_pixels_savefig_writes(tmp_path):
    payload = plot_roofline(PMGPU, filepath=tmp_path / "plot.png", peak_flops=2048.0,
                            peak_bandwidth=204.8, verbose=False)
    ours = Image.open(tmp_path / "plot.png")
    assert ours.mode == "RGB"  # an opaque figure: no alpha channel
    assert ours.info["Software"].startswith("Matplotlib version")
    assert ours.info["dpi"] == pytest.approx((100, 100), abs=0.01)
    theirs = _saved(payload["figure"], tmp_path / "savefig.png")
    assert _same_picture(_pixels(tmp_path / "plot.png"), theirs)
    # the legend right of the axes and the note under them are in the file: wider and taller
    # than the axes' 775 x 500 pixels with their tick labels
    assert theirs.shape[1] > 1100
    assert theirs.shape[0] > 600


def _figure_with_text_at(x: float) -> Figure:
    figure = Figure(figsize=(4.0, 3.0), dpi=100.0)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.15, 0.15, 0.7, 0.7))
    axes.plot([1, 2, 3], [3, 1, 2])
    axes.text(x, 0.5, "far right", transform=axes.transAxes)
    return figure


def test_a_figure_inside_its_canvas_is_cut_from_it(tmp_path):
    figure = _figure_with_text_at(0.5)
    image_writer(figure, "png")(tmp_path / "cut.png")
    ours = _pixels(tmp_path / "cut.png")
    assert ours.shape[1] < 400  # cut to what is drawn, inside the 400 x 300 canvas
    assert _same_picture(ours, _saved(figure, tmp_path / "savefig.png"))


def test_what_reaches_beyond_the_canvas_is_saved_whole(tmp_path):
    figure = _figure_with_text_at(2.5)  # 2.5 axes widths: 0.6 + 2.5 x 2.8 = 7.6 inches
    image_writer(figure, "png")(tmp_path / "wide.png")
    ours = _pixels(tmp_path / "wide.png")
    assert ours.shape[1] > 760  # the text beyond the 400-pixel canvas is in the file
    assert _same_picture(ours, _saved(figure, tmp_path / "savefig.png"))


def test_a_users_savefig_resolution_is_kept(tmp_path):
    figure = _figure_with_text_at(0.5)
    image_writer(figure, "png")(tmp_path / "at100.png")
    with matplotlib.rc_context({"savefig.dpi": 200}):
        image_writer(figure, "png")(tmp_path / "at200.png")
    small, large = _pixels(tmp_path / "at100.png"), _pixels(tmp_path / "at200.png")
    assert abs(large.shape[1] - 2 * small.shape[1]) <= 2
    assert abs(large.shape[0] - 2 * small.shape[0]) <= 2


def _inside(figure) -> list[str]:
    """What ``figure`` draws outside its own box (a legend, an axes with its labels, a text)."""
    renderer = figure.canvas.get_renderer()
    page = figure.bbox.padded(0.5)  # half a pixel of rounding
    drawn = [("axes", axes.get_tightbbox(renderer)) for axes in figure.axes]
    drawn += [("legend", axes.get_legend().get_window_extent(renderer))
              for axes in figure.axes if axes.get_legend() is not None]
    drawn += [("text", text.get_window_extent(renderer)) for text in figure.texts]
    drawn += [("note", text.get_window_extent(renderer)) for axes in figure.axes
              for text in axes.texts]
    return [what for what, box in drawn
            if box.x0 < page.x0 or box.y0 < page.y0 or box.x1 > page.x1 or box.y1 > page.y1]


def test_the_returned_figure_saves_the_picture_of_the_file(tmp_path, sweep_file):
    # the sweep: a colour bar right of the axes, the legend right of it, the notes under them
    payload = plot_roofline(sweep_file, filepath=tmp_path / "plot.png", verbose=False)
    figure = payload["figure"]
    assert _inside(figure) == []
    assert len(figure.axes) == 2  # the colour bar's axes checked too
    figure.savefig(tmp_path / "own.png")  # no box: the figure as it is
    ours, own = _pixels(tmp_path / "plot.png"), _pixels(tmp_path / "own.png")
    assert own.shape == ours.shape
    assert _same_picture(own, ours)
    # the figure is what is drawn: about 12.9 x 6.9 inches at 100 dpi, not the 18 x 11 canvas
    assert figure.get_size_inches() * 100 == pytest.approx(own.shape[1::-1], abs=0.01)


def test_the_figure_without_a_file_is_cut_to_what_it_draws(tmp_path):
    # PMGPU's legend reaches right of the axes, the notes below them (the region doing no FLOPs,
    # <init_datastructures>, named in its own note only: no labels' note, no figure text): all
    # inside
    arguments = {"peak_flops": 2048.0, "peak_bandwidth": 204.8, "verbose": False}
    figure = plot_roofline(PMGPU, **arguments)["figure"]
    assert len(figure.texts) == 0
    assert _inside(figure) == []
    figure.savefig(tmp_path / "own.png")
    plot_roofline(PMGPU, filepath=tmp_path / "plot.png", **arguments)
    assert _same_picture(_pixels(tmp_path / "own.png"), _pixels(tmp_path / "plot.png"))


@pytest.mark.parametrize("channels", [3, 4])
def test_a_png_of_unfiltered_rows_holds_the_pixels_it_was_given(tmp_path, channels):
    # a real figure's pixels (the legend, notes and points of PMGPU), RGB and with an alpha
    # channel: Pillow reads back every pixel, the resolution and the Software text
    figure = plot_roofline(PMGPU, verbose=False)["figure"]
    figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba())[:, :, :channels].copy()
    if channels == 4:
        pixels[::7, ::5, 3] = 128  # some half-transparent pixels
    path = tmp_path / "rows.png"
    path.write_bytes(png_bytes(pixels, 100.0, {"Software": "roofline-widget test"}))
    image = Image.open(path)
    assert image.mode == ("RGB" if channels == 3 else "RGBA")
    assert image.info["Software"] == "roofline-widget test"
    assert image.info["dpi"] == pytest.approx((100, 100), abs=0.01)
    assert np.array_equal(np.asarray(image), pixels)
    assert 1000 < path.stat().st_size < pixels.nbytes / 4  # compressed: flat colours


def test_a_png_is_written_of_8_bit_rgb_or_rgba_only():
    with pytest.raises(ValueError, match="height x width x 3 or 4 uint8"):
        png_bytes(np.zeros((4, 4, 2), dtype=np.uint8), 100.0)
    with pytest.raises(ValueError, match="float64"):
        png_bytes(np.zeros((4, 4, 3)), 100.0)
