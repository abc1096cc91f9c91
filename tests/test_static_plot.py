"""Tests of plot_roofline: payload, files actually written and re-read, errors before writing."""

from __future__ import annotations

import builtins
import json
import math

import numpy as np
import pandas as pd
import pytest
from test_points import DP, MEM_BW, block, make_run

from roofline_widget import sample_path
from roofline_widget.errors import RegionsLeftOutWarning
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.schema import POINT_KEYS
from roofline_widget.static.plot import plot_roofline

MEM_DP_4T = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
FLOPS_DP_4T = "gmgpolar_skx4s_lw50_FLOPS_DP_spread4t_2regions.txt"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _plot(data=None, **keywords):
    keywords.setdefault("verbose", False)
    return plot_roofline(sample_path(MEM_DP_4T) if data is None else data, **keywords)


# ---------------------------------------------------------------------------
# payload
# ---------------------------------------------------------------------------
def test_payload_of_gmgpolar_sample_with_empirical_ceilings():
    payload = _plot()
    for key in ("points", "colors", "file_ranks", "peak_flops_gflops", "peak_bandwidth_gbs",
                "empirical_ceilings", "roofline", "left_out", "ceilings"):
        assert key in payload
    assert [tuple(p) for p in payload["points"]] == [POINT_KEYS] * 2
    # empirical peaks: Solve's 4383.3768 MFLOP/s and Setup's 541.7965 MB/s
    assert payload["peak_flops_gflops"] == pytest.approx(4.3833768)
    assert payload["peak_bandwidth_gbs"] == pytest.approx(0.5417965)
    assert payload["empirical_ceilings"] is True
    assert payload["file_ranks"] == {"gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket": 1}
    assert payload["colors"] == {"gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket": "#1f77b4"}
    assert payload["left_out"] == []
    ridge = 4.3833768 / 0.5417965
    assert payload["ridge_point"] == pytest.approx(ridge)
    rows = payload["roofline"]
    assert set(rows[0]) == {"arithmetic_intensity_flops_per_byte", "performance_gflops"}
    x = np.array([r["arithmetic_intensity_flops_per_byte"] for r in rows])
    y = np.array([r["performance_gflops"] for r in rows])
    assert np.all(np.diff(x) > 0)
    # the exact ridge point is one of the rows, and every row is min(P, B * I)
    assert payload["ridge_point"] in x
    np.testing.assert_allclose(y, np.minimum(4.3833768, 0.5417965 * x), rtol=1e-6)
    # both regions sit on the empirical roof: 100 % of attainable
    assert [a["efficiency_percent"] for a in payload["analysis"]] == pytest.approx([100.0, 100.0])
    assert [a["bound"] for a in payload["analysis"]] == ["memory", "compute"]


def test_measured_peaks_and_several_ceilings():
    roofs = Roofline([ComputeRoof("AVX-512 FMA", 1164.8, "spec sheet"),
                      ComputeRoof("Scalar", 145.6, "spec sheet")],
                     [BandwidthRoof("L3", 200.0, "likwid-bench triad, 14 threads"),
                      BandwidthRoof("DRAM", 110.0, "likwid-bench triad, 14 threads")])
    payload = _plot(ceilings=roofs)
    assert payload["empirical_ceilings"] is False
    assert payload["peak_flops_gflops"] == 1164.8
    assert payload["peak_bandwidth_gbs"] == 200.0
    assert [c["name"] for c in payload["ceilings"]] == ["AVX-512 FMA", "Scalar", "L3", "DRAM"]
    kinds = [line["kind"] for line in payload["lines"]]
    assert kinds == ["bandwidth", "bandwidth", "compute", "compute", "roof"]
    # Setup: 1.9500623 GFLOP/s at 3.5993 FLOP/byte; attainable min(1164.8, 200 * 3.5993 = 719.9)
    setup = payload["analysis"][0]
    intensity = 1.9500623 / 0.5417965
    assert setup["attainable_gflops"] == pytest.approx(200.0 * intensity)
    assert setup["efficiency_percent"] == pytest.approx(100 * 1.9500623 / (200.0 * intensity))
    assert setup["bound"] == "memory"
    assert setup["above_roof"] is False
    replaced = _plot(ceilings=roofs, peak_bandwidth=300.0)
    assert replaced["peak_bandwidth_gbs"] == 300.0
    assert [c["value"] for c in replaced["ceilings"]] == [1164.8, 145.6, 300.0, 110.0]
    # a bandwidth roof of 0.3 GB/s is below Setup's measured 0.5417965 GB/s: above the roof
    replaced = _plot(peak_flops=1164.8, peak_bandwidth=0.3)
    assert replaced["analysis"][0]["above_roof"] is True
    assert replaced["analysis"][0]["efficiency_percent"] == pytest.approx(100 * 0.5417965 / 0.3)


def test_pmgpu_points_coloured_by_region_with_escaped_hover():
    payload = _plot(sample_path(PMGPU))
    assert payload["colour_by"] == "region"
    assert list(payload["point_colors"]) == ["<init_datastructures>", "<function_d>",
                                             "<function_b>", "<function_a>", "<function_c>"]
    assert payload["hover"][1].startswith("<b>&lt;function_d&gt;</b>")
    assert "<function_d>" not in payload["hover"][1]


def test_verbose_reports_points_metrics_and_ceilings(capsys):
    _plot(verbose=True, peak_flops=1164.8, peak_bandwidth=128.0)
    out = capsys.readouterr().out
    assert "2 LIKWID region/rank point(s)" in out
    assert "'Memory bandwidth [MBytes/s]'" in out
    assert "Peak: 1165 GFLOP/s (user)" in out


# ---------------------------------------------------------------------------
# files written and read back
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("suffix", "magic"), [(".png", PNG_MAGIC), (".pdf", b"%PDF"),
                                           (".svg", b"<?xml")])
def test_image_files_are_written(tmp_path, suffix, magic):
    path = tmp_path / f"roofline{suffix}"
    payload = _plot(filepath=path)
    assert path.read_bytes().startswith(magic)
    if suffix == ".svg":
        text = path.read_text()
        assert "empirical" in text.lower()
        assert "Setup" in text
    assert payload["figure"].axes[0].get_xscale() == "log"
    assert payload["figure"].axes[0].get_title() == "Roofline analysis (empirical ceilings)"


def test_matplotlib_figure_draws_the_exact_ridge_point():
    payload = _plot(peak_flops=1164.8, peak_bandwidth=128.0)
    axes = payload["figure"].axes[0]
    ridge = 1164.8 / 128.0
    roof_lines = [line for line in axes.get_lines() if line.get_label().startswith("Roofline")]
    assert len(roof_lines) == 1
    x, y = roof_lines[0].get_data()
    index = list(x).index(ridge)
    assert y[index] == 1164.8
    labels = [text.get_text() for text in axes.texts]
    # short labels on the lines; where each number came from is in the ceilings table
    assert "Peak 1165 GFLOP/s" in labels
    assert "Peak bandwidth 128 GB/s" in labels
    table = {row["label"]: row for row in payload["ceiling_table"]}
    assert table["Peak 1165 GFLOP/s"]["provenance"] == "user"
    assert table["Peak bandwidth 128 GB/s"]["value"] == 128.0
    assert axes.get_title() == "Roofline analysis"
    assert axes.get_yscale() == "log"
    # the same axis labels as the widget (roofline_widget.look.style)
    assert axes.get_ylabel() == "Attained performance [GFLOP/s]"
    assert axes.get_xlabel().startswith("Arithmetic intensity [FLOP/byte]  (DP [MFLOP/s] / ")


def test_csv_export(tmp_path):
    path = tmp_path / "points.csv"
    _plot(data_filepath=path, data_format="csv")
    frame = pd.read_csv(path)
    assert list(frame.columns[:len(POINT_KEYS)]) == list(POINT_KEYS)
    assert {"efficiency_percent", "above_roof", "bound"} <= set(frame.columns)
    assert frame["performance_gflops"].tolist() == pytest.approx([1.9500623, 4.3833768])


def test_json_export_is_valid_json_without_nan(tmp_path):
    # a missing runtime (NaN) must come out as null
    run = make_run(block("r", {DP: [1000.0], MEM_BW: [100.0]}, runtime=[np.nan]),
                   block("s", {DP: [500.0], MEM_BW: [100.0]}, line=9))
    path = tmp_path / "points.json"
    _plot(run, data_filepath=path, data_format="json")
    text = path.read_text()
    assert "NaN" not in text
    assert "Infinity" not in text
    document = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert document["format"] == "scope-profiler-plot-data"
    assert document["plot"] == "roofline"
    assert document["points"][0]["runtime_seconds"] is None
    assert document["points"][1]["runtime_seconds"] == 1.0
    assert document["peak_flops_gflops"] == pytest.approx(1.0)
    assert "figure" not in document


def test_parquet_export_reads_back(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "points.parquet"
    _plot(sample_path(PMGPU), data_filepath=path, data_format="parquet")
    frame = pd.read_parquet(path)
    assert len(frame) == 5
    assert frame["bandwidth_gbs"].iloc[1] == pytest.approx(28.5809575)
    assert frame["region"].astype(str).tolist()[1] == "<function_d>"


# ---------------------------------------------------------------------------
# errors, before anything is written
# ---------------------------------------------------------------------------
def test_unknown_backend_raises(tmp_path):
    with pytest.raises(ValueError, match="unknown backend 'plotly'"):
        _plot(backend="plotly", data_filepath=tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()


def test_unknown_data_format_raises_before_writing(tmp_path):
    target = tmp_path / "x.xlsx"
    with pytest.raises(ValueError, match="unknown data_format 'xlsx'"):
        _plot(data_filepath=target, data_format="xlsx", filepath=tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="unknown data_format 'xml'"):
        _plot(data_format="xml")


def test_unknown_image_suffix_raises(tmp_path):
    with pytest.raises(ValueError, match="cannot write a txt image"):
        _plot(filepath=tmp_path / "x.txt")
    with pytest.raises(ValueError, match="only be saved from the browser"):
        _plot(filepath=tmp_path / "x.png", backend="bqplot")


def test_bad_peaks_raise():
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="peak_flops"):
            _plot(peak_flops=bad)
        with pytest.raises(ValueError, match="peak_bandwidth"):
            _plot(peak_bandwidth=bad)


def test_no_points_names_metrics_and_reasons():
    with pytest.warns(RegionsLeftOutWarning):
        with pytest.raises(ValueError, match=r"'DP \[MFLOP/s\]' \(detected\).*no bandwidth metric"):
            _plot(sample_path(FLOPS_DP_4T))
    with pytest.raises(ValueError, match="no region matched"):
        _plot(include="nothing")


def test_left_out_regions_are_in_the_payload():
    run = make_run(block("good", {DP: [1000.0], MEM_BW: [100.0]}),
                   block("bad", {DP: [0.0], MEM_BW: [100.0]}, line=9))
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):
        payload = _plot(run)
    assert payload["left_out"] == [{"file": "synthetic", "region": "bad", "rank": 0,
                                    "reason": "'DP [MFLOP/s]' is zero on every thread"}]
    assert [p["region"] for p in payload["points"]] == ["good"]


def test_missing_matplotlib_gives_a_clear_import_error(monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"roofline-widget\[static\]"):
        _plot()
    # bqplot still works without matplotlib (fallback palette)
    payload = _plot(backend="bqplot")
    assert payload["colors"] == {"gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket": "#1f77b4"}


# ---------------------------------------------------------------------------
# bqplot backend
# ---------------------------------------------------------------------------
def test_bqplot_backend_returns_the_widgets_figure():
    import bqplot

    from roofline_widget.widget.figure import RooflineFigure

    payload = _plot(sample_path(PMGPU), backend="bqplot", peak_flops=100.0, peak_bandwidth=50.0)
    figure = payload["figure"]
    assert isinstance(figure, bqplot.Figure)
    assert isinstance(payload["roofline_figure"], RooflineFigure)
    assert payload["roofline_figure"].plot is figure
    assert all(isinstance(axis.scale, bqplot.LogScale) for axis in figure.axes)
    drawn = payload["roofline_figure"]
    # one scatter with the five regions, coloured by the payload's colours in legend order
    # (beside the hover proxy of WebGL points: no dot while nothing is hovered)
    scatters = [m for m in figure.marks if isinstance(m, bqplot.Scatter)
                and m is not drawn.pointer.proxy]
    assert len(drawn.pointer.proxy.x) == 0
    assert scatters == [drawn.scatter]
    assert len(drawn.scatter.x) == 5
    regions = list(payload["point_colors"])
    assert regions[1] == "<function_d>"
    assert list(drawn.scatter.color) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert drawn.color_scale.colors == list(payload["point_colors"].values())
    legend = payload["legend"].value
    assert "&lt;function_d&gt;" in legend
    assert "<function_d>" not in legend
    # the roof passes through the ridge 100 / 50 = 2 FLOP/byte at 100 GFLOP/s
    assert 2.0 in list(drawn.roof.x)
    assert drawn.roof.y[list(drawn.roof.x).index(2.0)] == 100.0
    assert drawn.roof.labels[0].startswith("Roofline")
    assert list(drawn.ceilings.labels) == ["Peak bandwidth 50 GB/s", "Peak 100 GFLOP/s"]
    assert figure.title == "Roofline analysis"
    assert [axis.label for axis in figure.axes] == ["Arithmetic intensity [FLOP/byte]",
                                                    "Attained performance [GFLOP/s]"]
    # the widget's hover text: the same fields and formats, names escaped
    drawn.scatter._handle_custom_msg({"event": "hover", "point": {"index": 1}}, [])
    tooltip = drawn.tooltip.value
    assert "&lt;function_d&gt;" in tooltip
    assert "FLOP/byte" in tooltip
    assert "GFLOP/s" in tooltip


def test_several_runs_coloured_by_run():
    first = make_run(block("a", {DP: [1000.0], MEM_BW: [100.0]}), source="one.txt")
    second = make_run(block("a", {DP: [3000.0], MEM_BW: [100.0]}), source="two.txt")
    payload = _plot([first, second], cmap="tab10")
    assert payload["colour_by"] == "file"
    assert list(payload["colors"]) == ["one", "two"]
    # a qualitative map is used in order: tab10 blue, then orange
    assert payload["colors"]["one"] == "#1f77b4"
    assert payload["colors"]["two"] == "#ff7f0e"
    with pytest.raises(ValueError, match="unknown colormap"):
        _plot([first, second], cmap="no-such-map")
    assert math.isclose(payload["peak_flops_gflops"], 3.0)


def test_bqplot_backend_colours_by_the_colormap_and_exports_no_widgets(tmp_path):
    first = make_run(block("a", {DP: [1000.0], MEM_BW: [100.0]}), source="one.txt")
    second = make_run(block("a", {DP: [3000.0], MEM_BW: [100.0]}), source="two.txt")
    path = tmp_path / "plot.json"
    payload = _plot([first, second], cmap="tab10", backend="bqplot", data_filepath=path,
                    data_format="json")
    drawn = payload["roofline_figure"]
    # by run, tab10 in order: the scatter's codes 0 and 1 are the payload's two colours
    assert payload["colour_by"] == "file"
    assert drawn.color_scale.colors == ["#1f77b4", "#ff7f0e"]
    assert list(drawn.scatter.color) == [0.0, 1.0]
    assert "<b>Runs</b>" in payload["legend"].value
    # the JSON holds data, not the figure, its RooflineFigure or its legend
    document = json.loads(path.read_text())
    assert not {"figure", "roofline_figure", "legend"} & set(document)
    assert document["point_colors"] == {"one": "#1f77b4", "two": "#ff7f0e"}


def test_payload_agrees_with_scope_profiler_on_its_results():
    reference = pytest.importorskip("scope_profiler.plotting_scripts.roofline")
    from scope_fixtures import make_profiling_results

    results = make_profiling_results(n_ranks=2, n_regions=3, n_threads=4, seed=11)
    explicit = {"flops_metric": DP, "bandwidth_metric": MEM_BW}
    payload = _plot(results, **explicit)
    theirs = reference._roofline(reference.collect_roofline_points(results, **explicit), None, None)
    assert payload["peak_flops_gflops"] == pytest.approx(theirs["peak_flops_gflops"], rel=1e-12)
    assert payload["peak_bandwidth_gbs"] == pytest.approx(theirs["peak_bandwidth_gbs"], rel=1e-12)
    assert payload["empirical_ceilings"] is theirs["empirical_ceilings"] is True
    assert payload["file_ranks"] == {"x": 2}
    # the same roof, sampled on our grid (which also spans the ridge point)
    for row in payload["roofline"]:
        expected = min(theirs["peak_flops_gflops"],
                       theirs["peak_bandwidth_gbs"] * row["arithmetic_intensity_flops_per_byte"])
        assert row["performance_gflops"] == pytest.approx(expected, rel=1e-12)


def test_run_without_metrics_is_left_out_not_an_error():
    from roofline_widget.io.parsed import RegionBlock, ThreadColumn, build_run

    custom = RegionBlock("events_only", 1, "Custom", 3, threads=[ThreadColumn("HWThread 0", 0)],
                         event_names=["INSTR_RETIRED_ANY:FIXC0"], events=np.array([[5.0]]))
    with_metrics = block("r", {DP: [1000.0], MEM_BW: [100.0]}, line=30)
    run = build_run([custom, with_metrics], source="custom.txt")
    with pytest.warns(RegionsLeftOutWarning, match="1 region/rank"):
        payload = _plot(run)
    assert [p["region"] for p in payload["points"]] == ["r"]
    assert payload["left_out"][0]["region"] == "events_only"
    only_events = build_run([custom], source="only.txt")
    with pytest.warns(RegionsLeftOutWarning):
        with pytest.raises(ValueError, match="no FLOP-rate metric in the data"):
            _plot(only_events)


def test_regions_of_one_run_get_the_strong_tab20_colours_first():
    run = make_run(*(block(name, {DP: [1000.0 * (i + 1)], MEM_BW: [100.0]}, line=10 * i + 1)
                     for i, name in enumerate(["a", "b", "c"])))
    payload = _plot(run)
    assert payload["colour_by"] == "region"
    # tab20's blue, orange, green: not blue, light blue, orange
    assert list(payload["point_colors"].values()) == ["#1f77b4", "#ff7f0e", "#2ca02c"]


# ---------------------------------------------------------------------------
# ceilings as a list, and region names in the CSV export
# ---------------------------------------------------------------------------
def test_ceilings_as_the_list_the_widget_takes():
    l3 = BandwidthRoof("L3", 200.0, "likwid-bench triad, 14 threads")
    dram = BandwidthRoof("DRAM", 110.0, "likwid-bench triad, 14 threads")
    fma = ComputeRoof("AVX-512 FMA", 1164.8, "spec sheet")
    as_list = _plot(ceilings=[dram, fma, l3])
    as_roofline = _plot(ceilings=Roofline([fma], [l3, dram]))
    assert as_list["ceilings"] == as_roofline["ceilings"]
    assert as_list["peak_flops_gflops"] == 1164.8
    assert as_list["peak_bandwidth_gbs"] == 200.0
    # bandwidth roofs only: the compute roof is the empirical one, Solve's 4383.3768 MFLOP/s
    empirical = _plot(ceilings=[l3, dram])
    assert [(c["name"], c["value"], c["empirical"]) for c in empirical["ceilings"]] == [
        ("Empirical peak", pytest.approx(4.3833768), True), ("L3", 200.0, False),
        ("DRAM", 110.0, False)]
    assert empirical["empirical_ceilings"] is True
    # ... or the peak given: 2048 GFLOP/s over 200 GB/s, ridge at 10.24 FLOP/byte
    peak = _plot(ceilings=[l3, dram], peak_flops=2048.0)
    assert [(c["name"], c["value"], c["source"]) for c in peak["ceilings"]] == [
        ("Peak", 2048.0, "user"), ("L3", 200.0, l3.source), ("DRAM", 110.0, dram.source)]
    assert peak["ridge_point"] == pytest.approx(10.24)
    with pytest.raises(TypeError, match="ceilings must be a Roofline or ComputeRoof/BandwidthRoof"):
        _plot(ceilings=[l3, 200.0])


def _formula_named_run():
    """Sample 4 with four of its five regions renamed to what a spreadsheet runs as a formula."""
    from roofline_widget.io import read_likwid_text

    with open(sample_path(PMGPU), encoding="utf-8") as handle:
        text = handle.read()
    for old, new in NAMES.items():
        text = text.replace(old, new)
    return read_likwid_text(text, "formula_names.txt")


NAMES = {"<function_a>": '=HYPERLINK("http://evil.example","x")', "<function_b>": "+1+2",
         "<function_c>": "-2+3", "<function_d>": "@SUM(1)"}


def test_csv_export_writes_formula_like_names_as_text(tmp_path):
    import csv

    run = _formula_named_run()
    path = tmp_path / "points.csv"
    _plot(run, data_filepath=path, flops_metric=DP, bandwidth_metric=MEM_BW)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    # a leading ' (OWASP): every spreadsheet shows the cell as text instead of running it
    assert sorted(row["region"] for row in rows) == sorted(
        ["<init_datastructures>"] + [f"'{name}" for name in NAMES.values()])
    assert all(not row[column].startswith(("=", "+", "-", "@"))
               for row in rows for column in ("region", "file", "flops_metric"))
    # numbers are numbers: <init_datastructures>'s DP rate is unchanged, the rank is 0
    plain = _plot(run, flops_metric=DP, bandwidth_metric=MEM_BW)
    first = next(p for p in plain["points"] if p["region"] == "<init_datastructures>")
    written = next(row for row in rows if row["region"] == "<init_datastructures>")
    assert float(written["performance_gflops"]) == pytest.approx(first["performance_gflops"],
                                                                 rel=1e-15)
    assert written["rank"] == "0"
    # the JSON export keeps the names as they are (no spreadsheet opens it as formulas)
    _plot(run, data_filepath=tmp_path / "points.json", data_format="json")
    document = json.loads((tmp_path / "points.json").read_text(encoding="utf-8"))
    assert {p["region"] for p in document["points"]} >= set(NAMES.values())
