"""Points above the user's roofs: one note in the widget's status, the static plot and the CLI.

Sample 5 (``PMGPU``: pmgpu on an AMD EPYC 7702, MEM_DP of 5 regions, one hardware
thread, HWThread 64).  Its MEM_DP tables, in GFLOP/s and GB/s (LIKWID's MFLOP/s and
MBytes/s / 1000), with the intensity GFLOP/s / GB/s:

=====================  ============  ==========  ============  ==========
region                 DP GFLOP/s    line        GB/s          FLOP/byte
=====================  ============  ==========  ============  ==========
<init_datastructures>  6.864286e-09  37          14.9057212    4.6e-10
<function_d>           1.6163005     71          28.5809575    0.056552
<function_b>           0.7594276     105         9.2703090     0.081920
<function_a>           2.1341472     139         8.5541612     0.249486
<function_c>           0.4954019     173         8.7754462     0.056453
=====================  ============  ==========  ============  ==========

Under a 2 GFLOP/s peak and a 16 GB/s bandwidth (ridge 0.125 FLOP/byte):
``<function_d>`` (left of the ridge) moves 28.58 GB/s against 16, 1.786x what the roofs
allow there; ``<function_a>`` (right of it) does 2.134 GFLOP/s against 2, 1.067x; the other
three are under both roofs (14.9, 9.27 and 8.78 GB/s; under 2 GFLOP/s).
"""

from __future__ import annotations

import html
import json
import warnings

import pytest
from conftest import PMGPU
from wild_samples import LULESH_SIZES

from roofline_widget import RooflineWidget, plot_roofline, points_dataframe, sample_path
from roofline_widget.cli import main as cli_main
from roofline_widget.look.above_roofs import above_roofs_text
from roofline_widget.roofs.roofline import Roofline

TAIL = ("a ceiling set too low (a base clock's peak, a benchmark on fewer cores), or a FLOP "
        "metric of another precision (efficiency_percent above 100; see sanity_check)")
TWO_ABOVE = ("2 points are above their roofs, the furthest <function_d>: 28.58 GB/s against the "
             f"roof Peak bandwidth 16 GB/s (1.79x what they allow): {TAIL}")
ONE_ABOVE = ("<function_a> is above its roofs: 2.134 GFLOP/s against the roof Peak 2 GFLOP/s "
             f"(1.07x what they allow): {TAIL}")


@pytest.fixture(scope="module")
def points():
    return points_dataframe(sample_path(PMGPU))


def _roofs(points, peak_flops=None, peak_bandwidth=None) -> Roofline:
    return Roofline.from_ceilings(None, peak_flops, peak_bandwidth, points)


def test_the_note_counts_the_points_above_and_names_the_furthest_and_its_roof(points):
    assert above_roofs_text(points, _roofs(points, 2.0, 16.0)) == TWO_ABOVE
    # 100 GB/s: only <function_a>, above the compute roof
    assert above_roofs_text(points, _roofs(points, 2.0, 100.0)) == ONE_ABOVE
    # 16 GB/s but 10 GFLOP/s: <function_d> alone, 28.58 / 16 again
    assert above_roofs_text(points, _roofs(points, 10.0, 16.0)).startswith(
        "<function_d> is above its roofs: 28.58 GB/s against the roof Peak bandwidth 16 GB/s "
        "(1.79x what they allow)")


def test_no_note_under_roofs_high_enough_or_empirical(points):
    assert above_roofs_text(points, _roofs(points, 10.0, 100.0)) == ""
    assert above_roofs_text(points, _roofs(points)) == ""  # the largest observations: none above
    assert above_roofs_text(points, None) == ""
    assert above_roofs_text(points.iloc[:0], _roofs(points, 2.0, 16.0)) == ""


def test_it_agrees_with_the_above_roof_column(points):
    table = _roofs(points, 2.0, 16.0).classify(points)
    assert table.loc[table["above_roof"], "region"].tolist() == ["<function_d>", "<function_a>"]
    assert table.loc[table["above_roof"], "efficiency_percent"].tolist() == pytest.approx(
        [100 * 28.5809575 / 16, 100 * 2.1341472 / 2])


def test_points_beyond_any_hardware_are_left_to_their_own_note():
    # sample 19 under 1000 GFLOP/s and 1000 GB/s: the five wrapped-counter points are far above
    # the peak, but the beyond-hardware note names them; nothing else is above
    points = points_dataframe(LULESH_SIZES)
    table = _roofs(points, 1000.0, 1000.0).classify(points)
    assert int(table["above_roof"].sum()) == 5
    assert above_roofs_text(points, _roofs(points, 1000.0, 1000.0)) == ""
    # 7 GFLOP/s: CalcFBHourglassForceForElems of every run is above it (DP [MFLOP/s] 7771.6640,
    # 7595.1758, 7551.3941, 7759.6402, 7828.5323, 7819.0950, 7812.2025 on lines 550, 2137,
    # 3724, 5311, 6898, 8485, 10072; no other plausible point passes 7 GFLOP/s), the
    # furthest run #5's: 7.8285323 / 7 = 1.118
    note = above_roofs_text(points, _roofs(points, 7.0, 1000.0))
    assert note.startswith("7 points are above their roofs, the furthest "
                           "CalcFBHourglassForceForElems (run #5): 7.829 GFLOP/s against the roof "
                           "Peak 7 GFLOP/s (1.12x what they allow)")


def test_the_widget_status_says_it_escaped_and_follows_the_peaks():
    widget = RooflineWidget(sample_path(PMGPU), peak_flops=2.0, peak_bandwidth=16.0)
    status = widget.controls.status_html.value
    assert f"<div class='roofline-above-roofs' style='color:#8a4b00'>{html.escape(TWO_ABOVE)}</div>" \
        in status
    assert "<function_d>" not in status  # the region names are escaped
    widget.peak_bandwidth = 100.0
    status = widget.controls.status_html.value
    assert html.escape(ONE_ABOVE) in status
    assert "roofline-above-roofs" in status
    widget.peak_flops = 10.0
    assert "roofline-above-roofs" not in widget.controls.status_html.value
    widget.peak_flops = None  # empirical again: nothing can be above
    assert "roofline-above-roofs" not in widget.controls.status_html.value


def test_the_static_plot_draws_prints_and_returns_the_note(tmp_path, capsys):
    payload = plot_roofline(sample_path(PMGPU), peak_flops=2.0, peak_bandwidth=16.0,
                            filepath=tmp_path / "above.png", verbose=True)
    assert payload["above_roofs_note"] == TWO_ABOVE
    assert TWO_ABOVE not in payload["ceiling_notes"]
    assert TWO_ABOVE in capsys.readouterr().out
    drawn = " ".join(" ".join(t.get_text().split()) for t in payload["figure"].axes[0].texts)
    assert TWO_ABOVE in drawn  # under the axes, wrapped
    assert (tmp_path / "above.png").stat().st_size > 0
    assert plot_roofline(sample_path(PMGPU), verbose=False)["above_roofs_note"] == ""


def test_the_command_line_prints_it_and_puts_it_in_the_json(tmp_path, capsys):
    out = tmp_path / "above.svg"
    code = cli_main(["plot", sample_path(PMGPU), "-o", str(out), "--peak-flops", "2",
                     "--peak-bandwidth", "16", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["above_roofs_note"] == TWO_ABOVE
    assert html.escape(TWO_ABOVE, quote=False) in out.read_text()  # the notes' hover title


def test_a_widget_warns_nothing_new():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RooflineWidget(sample_path(PMGPU), peak_flops=2.0, peak_bandwidth=16.0)
