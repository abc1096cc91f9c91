"""Which ceiling the figure calls empirical: only the roofs taken from the points, never a machine limit.

Sample: pmgpu (``roofline_widget/data/pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt``,
one thread of an AMD EPYC 7702, "CPU clock: 2.00 GHz"). Its merged points take the MEM_DP
group's metrics: the largest GFLOP/s is <function_a>'s DP 2134.1472 MFLOP/s (line 139), the
largest GB/s <function_d>'s Memory bandwidth 28580.9575 MBytes/s (line 72).  So the empirical
peak is 2.1341472 GFLOP/s and the empirical bandwidth 28.5809575 GB/s.
"""

from __future__ import annotations

import warnings

import pytest

from roofline_widget import RooflineWidget, plot_roofline, sample_path, theoretical_roofline
from roofline_widget.look.texts import figure_title
from roofline_widget.roofs.lines import empirical_words

matplotlib = pytest.importorskip("matplotlib")

PMGPU = sample_path("pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt")
EMPIRICAL_PEAK = 2.1341472  # <function_a>: 2134.1472 MFLOP/s
EMPIRICAL_BANDWIDTH = 28.5809575  # <function_d>: 28580.9575 MBytes/s
#: Zen2 AVX2 FMA: 2 FMA pipes x 4 doubles x 2 FLOP = 16 FLOP/cycle, x 2.00 GHz x 1 core
THEORETICAL = 16 * 2.0 * 1


def _plot(path, **keywords):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the theoretical roof's clock note, not tested here
        payload = plot_roofline(PMGPU, filepath=path, verbose=False, **keywords)
    axes = payload["figure"].axes[0]
    roofline = [line.get_label() for line in axes.get_lines()
                if not line.get_label().startswith("_")]
    return payload, axes.get_title(), roofline, [text.get_text() for text in axes.texts]


@pytest.mark.parametrize(("keywords", "title", "roofline", "ceiling_labels"), [
    # a peak FLOP rate given: 32 / 28.5809575 = 1.1196 FLOP/byte
    ({"peak_flops": 32.0}, "Roofline analysis (empirical bandwidth)",
     "Roofline with empirical bandwidth (ridge at 1.12 FLOP/byte)",
     ["Peak 32 GFLOP/s", "Empirical bandwidth 28.58 GB/s"]),
    # a peak bandwidth given: 2.1341472 / 100 = 0.021341 FLOP/byte
    ({"peak_bandwidth": 100.0}, "Roofline analysis (empirical peak)",
     "Roofline with empirical peak (ridge at 0.02134 FLOP/byte)",
     ["Empirical peak 2.134 GFLOP/s", "Peak bandwidth 100 GB/s"]),
    # nothing given: both from the points, 2.1341472 / 28.5809575 = 0.07467 FLOP/byte
    ({}, "Roofline analysis (empirical ceilings)", "Empirical roofline (ridge at 0.07467 FLOP/byte)",
     ["Empirical peak 2.134 GFLOP/s", "Empirical bandwidth 28.58 GB/s"]),
    # both given: 32 / 100 = 0.32 FLOP/byte, nothing empirical
    ({"peak_flops": 32.0, "peak_bandwidth": 100.0}, "Roofline analysis",
     "Roofline (ridge at 0.32 FLOP/byte)", ["Peak 32 GFLOP/s", "Peak bandwidth 100 GB/s"]),
])
def test_the_title_and_legend_name_only_the_empirical_ceiling(tmp_path, keywords, title, roofline,
                                                             ceiling_labels):
    payload, drawn_title, legend, texts = _plot(tmp_path / "roofline.png", **keywords)
    assert drawn_title == title
    assert legend == [roofline]
    assert set(ceiling_labels) <= set(texts)
    assert (tmp_path / "roofline.png").read_bytes().startswith(b"\x89PNG")
    # the payload still says whether any ceiling is empirical (unchanged)
    assert payload["empirical_ceilings"] is (title != "Roofline analysis")


def test_a_theoretical_peak_is_a_machine_limit_not_empirical(tmp_path):
    """``plot --theoretical`` and theoretical_roofline's roof as ceilings: the compute roof is the
    CPU's, 32 GFLOP/s (16 FLOP/cycle x 2 GHz x 1 core); only the bandwidth is empirical."""
    from_flag = _plot(tmp_path / "theoretical.png", theoretical=True)
    roof = theoretical_roofline(PMGPU).simd_fma
    assert roof.gflops == pytest.approx(THEORETICAL)
    from_roofs = _plot(tmp_path / "ceilings.png", ceilings=[roof])
    for payload, title, legend, texts in (from_flag, from_roofs):
        assert title == "Roofline analysis (empirical bandwidth)"
        assert legend == ["Roofline with empirical bandwidth (ridge at 1.12 FLOP/byte)"]
        assert "Theoretical DP AVX2 FMA 32 GFLOP/s" in texts
        compute = [c for c in payload["ceilings"] if c["kind"] == "compute"]
        assert [(c["value"], c["empirical"]) for c in compute] == [(THEORETICAL, False)]


def test_the_bqplot_figure_and_the_widget_say_the_same():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure = plot_roofline(PMGPU, verbose=False, backend="bqplot", peak_flops=32.0)["figure"]
        widget = RooflineWidget(PMGPU, peak_flops=32.0)
    assert figure.title == figure_title("empirical bandwidth")
    assert "Roofline with empirical bandwidth (ridge at 1.12 FLOP/byte)" in widget.figure.roof.labels
    status = widget.controls.status_html.value
    assert "the empirical bandwidth is the largest observation, not a machine limit" in status
    assert "empirical ceilings" not in status
    widget.peak_flops = None  # back to the largest observation: both empirical
    assert "empirical ceilings are the largest observation" in widget.controls.status_html.value


def test_empirical_words_name_the_kind():
    assert [empirical_words(f, b) for f, b in ((True, True), (True, False), (False, True),
                                               (False, False))] == [
        "empirical ceilings", "empirical peak", "empirical bandwidth", ""]
    assert figure_title("") == "Roofline analysis"
