"""RooflineWidget state without a browser: traits, marks, links, selection, exports.

Expected numbers are worked out from the bundled samples (see the comments);
the comm traffic is recorded by patching ``ipywidgets.Widget._send``, which
every state update of every widget goes through.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from traitlets import TraitError

from roofline_widget import BandwidthRoof, ComputeRoof, sample_path
from roofline_widget.io.parsed import RegionBlock, ThreadColumn, build_run
from roofline_widget.widget import DEFAULT_MAX_POINTS, RooflineWidget

PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
GMGPOLAR = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
MPIRUN = "mpirun_clx_sonata_48ranks_CACHES_marker.txt"
EVIL = "<img src=x onerror=alert(1)>"


class SentMessages:
    """Every comm message the widgets would send: (widget, state dict, buffer bytes)."""

    def __init__(self):
        self.messages = []

    def __call__(self, widget, msg, buffers=None):
        sizes = sum(memoryview(b).nbytes for b in (buffers or []))
        self.messages.append((widget, msg.get("state", {}), sizes, msg))

    def clear(self):
        self.messages.clear()

    def by(self, widget):
        return [state for w, state, _, _ in self.messages if w is widget]

    @property
    def bytes(self) -> int:
        return sum(len(json.dumps(msg, default=str)) + size for _, _, size, msg in self.messages)


@pytest.fixture
def sent(monkeypatch):
    import ipywidgets

    recorder = SentMessages()
    monkeypatch.setattr(ipywidgets.Widget, "_send",
                        lambda self, msg, buffers=None: recorder(self, msg, buffers))
    return recorder


def synthetic_run(n_regions, n_ranks, *, names=None, seed=0, zero_bandwidth=()):
    """One likwid-mpirun-like run: one block per region, one column per rank.

    Per-rank values are random; ``zero_bandwidth`` names regions whose
    bandwidth is 0 on every rank (they must be left out with a reason).
    """
    rng = np.random.default_rng(seed)
    names = names or [f"region_{i:05d}" for i in range(n_regions)]
    threads = [ThreadColumn(f"node:{r}:{r}", r, "cpu", r, "node") for r in range(n_ranks)]
    blocks = []
    for index, name in enumerate(names):
        flops = rng.uniform(10, 5000, n_ranks)
        flops_sp = rng.uniform(10, 5000, n_ranks)
        bandwidth = np.zeros(n_ranks) if name in zero_bandwidth else rng.uniform(100, 20000, n_ranks)
        runtime = rng.uniform(0.001, 10, n_ranks)
        blocks.append(RegionBlock(
            region=name, group_index=1, group="MEM_DP", line=10 * index + 1, threads=threads,
            runtime=runtime, call_count=np.ones(n_ranks),
            metric_names=["DP [MFLOP/s]", "SP [MFLOP/s]", "Memory bandwidth [MBytes/s]"],
            metrics=np.vstack([flops, flops_sp, bandwidth])))
    return build_run(blocks, source="synthetic.txt", layout="mpirun-text")


def hover(widget, content):
    """What bqplot does with the message the browser sends when a point is hovered."""
    scatter = widget.figure.scatter
    scatter._handle_custom_msgs(scatter, content)


def point(frame, region):
    rows = frame[frame["region"] == region]
    assert len(rows) == 1, rows
    return rows.iloc[0]


# --------------------------------------------------------------------------
# points from the samples
# --------------------------------------------------------------------------
def test_pmgpu_points_and_marks(pmgpu):
    w = RooflineWidget(pmgpu)
    frame = w.to_dataframe()
    assert len(frame) == 5
    assert w.flops_metric == "DP [MFLOP/s]"
    assert w.bandwidth_metric == "Memory bandwidth [MBytes/s]"
    a = point(frame, "<function_a>")
    # MEM_DP block of <function_a> (first group in the file), one thread HWThread 64:
    # DP 2134.1472 MFLOP/s -> 2.1341472 GFLOP/s; Memory bandwidth 8554.1612 MBytes/s ->
    # 8.5541612 GB/s; intensity 2.1341472 / 8.5541612 = 0.249486 FLOP/byte.
    assert a["performance_gflops"] == pytest.approx(2.1341472)
    assert a["bandwidth_gbs"] == pytest.approx(8.5541612)
    assert a["arithmetic_intensity_flops_per_byte"] == pytest.approx(2.1341472 / 8.5541612)
    assert a["runtime_seconds"] == pytest.approx(1.499428)
    np.testing.assert_allclose(w.figure.scatter.x, frame["arithmetic_intensity_flops_per_byte"])
    np.testing.assert_allclose(w.figure.scatter.y, frame["performance_gflops"])
    # No peaks given: empirical ceilings = the largest observations, <function_a>'s
    # 2.1341472 GFLOP/s and <function_d>'s 28580.9575 MBytes/s = 28.5809575 GB/s.
    assert w.roofline.peak_flops == pytest.approx(2.1341472)
    assert w.roofline.peak_bandwidth == pytest.approx(28.5809575)
    assert w.controls.flops_empirical.value
    assert w.controls.bandwidth_empirical.value
    assert "Empirical peak 2.134 GFLOP/s" in w.figure.ceilings.labels
    assert w.controls.flops_slider.value == pytest.approx(2.1341472)
    status = w.controls.status_html.value
    assert "5 points" in status
    assert "empirical" in status
    assert "DP [MFLOP/s]" in status
    assert w.figure.roof.visible
    assert w.figure.ceilings.visible


def test_dom_classes_and_axis_labels(pmgpu):
    w = RooflineWidget(pmgpu)
    assert "roofline-widget" in w._dom_classes
    assert "roofline-figure" in w.figure.plot._dom_classes
    expected = {
        w.controls.bandwidth_slider: "roofline-peak-bandwidth", w.controls.flops_slider: "roofline-peak-flops",
        w.controls.include_text: "roofline-include", w.controls.exclude_text: "roofline-exclude",
        w.controls.status_html: "roofline-status", w.figure.tooltip: "roofline-tooltip",
        w.controls.interaction_choice: "roofline-interaction",
        w.controls.group_choice: "roofline-group-ranks",
    }
    for control, css in expected.items():
        assert css in control._dom_classes
    labels = [axis.label for axis in w.figure.plot.axes]
    assert labels == ["Arithmetic intensity [FLOP/byte]", "Attained performance [GFLOP/s]"]
    assert w.figure.scatter.tooltip is w.figure.tooltip
    # The ceilings are labelled on their lines inside the plot by a Label mark.
    assert w.figure.ceilings.labels
    # each label in one of the two Label marks (ending at its anchor, or starting there)
    drawn = [end or start for end, start in zip(w.figure.ceiling_labels.text,
                                                w.figure.ceiling_labels_start.text)]
    assert drawn == list(w.figure.ceilings.labels)


def test_traits_stay_in_the_kernel(pmgpu):
    # The browser model of the widget is a plain VBox: it reads none of the roofline traits.
    import ipywidgets

    w = RooflineWidget(pmgpu)
    synced = set(RooflineWidget.class_trait_names(sync=True))
    assert synced == set(ipywidgets.VBox.class_trait_names(sync=True))
    state = w.get_state()
    for name in ("flops_metric", "bandwidth_metric", "ranks", "combine_ranks", "include",
                 "exclude", "peak_flops", "peak_bandwidth", "color_by", "size_by",
                 "max_points", "selected", "message"):
        assert name not in state
    assert w.figure.plot in w.children
    assert w.controls.status_html in w.children


def test_metric_change_replaces_data_in_place(gmgpolar, sent):
    w = RooflineWidget(gmgpolar)
    marks = list(w.figure.plot.marks)
    scatter, figure = w.figure.scatter, w.figure.plot
    setup = point(w.to_dataframe(), "Setup")
    # STAT Sum of Setup: DP 1950.0623 MFLOP/s, Memory bandwidth 541.7965 MBytes/s.
    assert setup["performance_gflops"] == pytest.approx(1.9500623, rel=1e-6)
    assert setup["bandwidth_gbs"] == pytest.approx(0.5417965, rel=1e-6)
    sent.clear()
    w.flops_metric = "AVX DP [MFLOP/s]"
    frame = w.to_dataframe()
    # AVX DP is non-zero on Core 0 only: Setup 1.1058, Solve 0.0570 MFLOP/s (STAT Sum).
    assert point(frame, "Setup")["performance_gflops"] == pytest.approx(1.1058e-3)
    assert point(frame, "Solve")["performance_gflops"] == pytest.approx(0.0570e-3)
    assert w.figure.scatter is scatter
    assert w.figure.plot is figure
    assert list(figure.marks) == marks
    np.testing.assert_allclose(scatter.y, frame["performance_gflops"])
    scatter_updates = sent.by(scatter)
    assert len(scatter_updates) == 1, "one hold_sync: one message for the Scatter"
    assert {"x", "y"} <= set(scatter_updates[0])
    w.bandwidth_metric = "Memory read bandwidth [MBytes/s]"
    # Memory read bandwidth STAT Sum: Setup 151.8988, Solve 388.2475 MBytes/s.
    frame = w.to_dataframe()
    assert point(frame, "Setup")["bandwidth_gbs"] == pytest.approx(0.1518988)
    assert point(frame, "Solve")["bandwidth_gbs"] == pytest.approx(0.3882475)
    assert w.controls.bandwidth_choice.value == "Memory read bandwidth [MBytes/s]"
    assert "Memory read bandwidth" in w.controls.status_html.value


def test_metric_dropdowns_offer_the_metrics_present_and_drive_the_trait(gmgpolar):
    w = RooflineWidget(gmgpolar)
    assert list(w.controls.flops_choice.options) == ["DP [MFLOP/s]", "AVX DP [MFLOP/s]",
                                             "Packed [MUOPS/s]", "Scalar [MUOPS/s]"]
    assert "Memory bandwidth [MBytes/s]" in w.controls.bandwidth_choice.options
    w.controls.flops_choice.value = "Scalar [MUOPS/s]"
    assert w.flops_metric == "Scalar [MUOPS/s]"
    # Scalar STAT Sum of Setup: 1948.8507 MUOPS/s -> 1.9488507 G/s.
    assert point(w.to_dataframe(), "Setup")["performance_gflops"] == pytest.approx(1.9488507)


def test_unknown_metric_raises_naming_the_valid_ones_and_changes_nothing(gmgpolar):
    w = RooflineWidget(gmgpolar)
    before = np.array(w.figure.scatter.y)
    with pytest.raises(TraitError, match=r"flops_metric 'SP \[MFLOP/s\]' is not in the data "
                                         r"\(available: \['DP \[MFLOP/s\]', 'AVX DP \[MFLOP/s\]'"):
        w.flops_metric = "SP [MFLOP/s]"
    with pytest.raises(TraitError, match=r"bandwidth_metric .* \(available: .*Memory bandwidth"):
        w.bandwidth_metric = "L2 bandwidth [MBytes/s]"
    with pytest.raises(TraitError, match="available"):
        RooflineWidget(gmgpolar, flops_metric="nope")
    assert w.flops_metric == "DP [MFLOP/s]"
    assert w.controls.flops_choice.value == "DP [MFLOP/s]"
    np.testing.assert_array_equal(w.figure.scatter.y, before)
    w.flops_metric = None  # back to the detected metric
    assert w.flops_metric == "DP [MFLOP/s]"


def test_include_exclude_filters_and_text_boxes(pmgpu):
    w = RooflineWidget(pmgpu)
    w.include = "<function_[ab]"
    assert sorted(w.to_dataframe()["region"]) == ["<function_a>", "<function_b>"]
    assert w.controls.include_text.value == "<function_[ab]"
    assert len(w.figure.scatter.x) == 2
    w.controls.exclude_text.value = "<function_a"
    assert w.exclude == "<function_a"
    assert list(w.to_dataframe()["region"]) == ["<function_b>"]
    w.include, w.exclude = "", "<init"
    assert len(w.to_dataframe()) == 4


def test_invalid_regex_is_an_inline_message_not_a_traceback(pmgpu):
    w = RooflineWidget(pmgpu)
    w.controls.include_text.value = "func(("  # what a user types: no exception escapes
    assert w.include == "func(("
    assert "invalid include pattern 'func(('" in w.message
    assert "invalid include pattern" in w.controls.message_html.value
    assert len(w.figure.scatter.x) == 0
    assert len(w.to_dataframe()) == 0
    assert w.figure.plot.title.startswith("No points")
    w.include = "<function"
    assert w.message == ""
    assert len(w.figure.scatter.x) == 4
    assert w.figure.plot.title == ""
    w.exclude = "[unclosed"
    assert "invalid exclude pattern" in w.message


def test_ranks_trait_text_field_and_validation(mpirun):
    """Sample 10: 48 ranks on host sonata.  The Ranks field shows the trait as text and sets it."""
    w = RooflineWidget(mpirun, group_ranks="rank")
    field = w.controls.rank_control
    assert w.ranks is None
    assert field.text.value == ""  # every rank
    assert field.hint_html.value == "<small>48 ranks on 1 host: 0-47; hosts sonata</small>"
    w.ranks = np.int64(3)
    assert w.ranks == [3]
    assert field.text.value == "3"
    assert list(w.left_out_dataframe()["rank"]) == [3]
    field.text.value = "1, 25"  # what the browser sends when the user presses Enter
    assert w.ranks == [1, 25]
    assert field.text.value == "1, 25"  # kept as typed
    assert sorted(w.left_out_dataframe()["rank"]) == [1, 25]
    field.text.value = "0-47"
    assert w.ranks is None  # every rank
    assert field.text.value == ""
    with pytest.raises(TraitError, match=r"ranks \[48\] are not in the data \(ranks: \[0, 1,"):
        w.ranks = [0, 48]
    w.ranks = "24-26"  # a ranks text (settings/rank_text.py)
    assert w.ranks == [24, 25, 26]
    assert field.text.value == "24-26"
    w.ranks = None
    with pytest.raises(TraitError):
        w.ranks = "one"
    assert w.ranks is None


def test_left_out_list_names_the_device_of_a_gpu_region():
    """LIKWID.jl's saxpy measured on the CPU (the real sample) and on a GPU (a GPU block of
    the same region appended, LIKWID 5 layout): both left out, each row names its device."""
    import importlib.util
    import sys
    from pathlib import Path

    from roofline_widget.io import read_likwid_text

    spec = importlib.util.spec_from_file_location(
        "likwid_generate", Path(__file__).resolve().parents[1] / "benchmarks" / "generate.py")
    gen = sys.modules.setdefault("likwid_generate", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(gen)
    cpu_text = Path(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")).read_text()
    gpu_block = gen.render_block(gen.Block(
        "saxpy", 2, "FLOPS_DP", ["GPU 0"],
        [("SMSP_SASS_THREAD_INST_EXECUTED_OP_DFMA_PRED_ON", "GPU0", ["2000000"])],
        [("DP [MFLOP/s]", ["4000.0000"])], runtime=["0.001000"], calls=["1"]), "5")
    run = read_likwid_text(cpu_text + "\n" + "\n".join(gpu_block) + "\n", "likwidjl_gpu.txt")
    w = RooflineWidget(run)
    assert w.controls.left_out.selected_index is None
    groups = w.left_out_dataframe()
    assert sorted(zip(groups["region"], groups["device"])) == [("saxpy", "cpu"), ("saxpy", "gpu")]
    w.controls.left_out.selected_index = 0  # opened: made now
    table = w.controls.left_out_html.value
    assert "<th>device</th>" in table
    assert table.count("<td>saxpy</td>") == 2
    assert "<td>cpu</td>" in table
    assert "<td>gpu</td>" in table


def test_no_plottable_region_shows_empty_plot_with_message(mpirun):
    # CACHES group: bandwidths but no FLOP metric, so all 48 (rank, wr-only) rows are left out.
    w = RooflineWidget(mpirun, group_ranks="rank")
    assert w.flops_metric is None
    assert w.controls.flops_choice.disabled
    assert len(w.figure.scatter.x) == 0
    assert len(w.to_dataframe()) == 0
    assert w.message.startswith("No plottable region: 48 region/rank row(s) left out")
    assert w.figure.plot.title == "No plottable region"
    left_out = w.left_out_dataframe()
    assert len(left_out) == 48
    assert set(left_out["region"]) == {"wr-only"}
    assert left_out["reason"].str.contains("no FLOP-rate metric in the data").all()
    assert w.controls.left_out.get_title(0) == "Left out (48)"
    assert w.controls.left_out.selected_index is None  # collapsed: the user opens it
    assert w.message.endswith('Open "Left out" below for the list.')
    # 48 rows, two reasons: ranks 0 and 24 measure the uncore (one thread per socket of
    # the two-socket CLX nodes) and have a non-zero bandwidth; every other rank reads 0.
    w.controls.left_out.selected_index = 0  # opened: made now
    table = w.controls.left_out_html.value
    assert table.count("</tr>") == 3  # the header and one row per reason
    assert "<td>0, 24</td>" in table
    assert "<td>1\u201323, 25\u201347</td>" in table
    assert "no FLOP-rate metric in the data" in table
    assert not w.figure.roof.visible
    assert "ceilings: none" in w.controls.status_html.value
    assert "None" not in w.controls.status_html.value
    assert "FLOP rate <i>none in the data</i>" in w.controls.status_html.value
    w.peak_flops, w.peak_bandwidth = 1000.0, 100.0  # user peaks draw a roof even without points
    assert w.figure.roof.visible
    assert w.roofline.ridge_point() == pytest.approx(10.0)


# --------------------------------------------------------------------------
# peaks
# --------------------------------------------------------------------------
def test_peak_change_moves_only_the_ceilings(pmgpu, sent):
    w = RooflineWidget(pmgpu)
    touched = []
    w.figure.scatter.observe(lambda change: touched.append(change.name), names=["x", "y", "color"])
    sent.clear()
    w.peak_bandwidth = 204.8
    w.peak_flops = 2048.0
    assert touched == [], "a peak change must not touch the Scatter's data"
    assert sent.by(w.figure.scatter) == []
    assert w.roofline.ridge_point() == pytest.approx(10.0)  # 2048 / 204.8
    np.testing.assert_allclose(w.figure.ridge.x, [10.0])
    np.testing.assert_allclose(w.figure.ridge.y, [2048.0])
    # The main roof passes exactly through the ridge point.
    assert 10.0 in list(w.figure.roof.x)
    assert 2048.0 in list(w.figure.roof.y)
    assert "Peak bandwidth 204.8 GB/s" in w.figure.ceilings.labels
    assert "Peak 2048 GFLOP/s" in w.figure.ceilings.labels
    a = point(w.to_dataframe(), "<function_a>")
    # <function_a>: intensity 0.249486 < ridge 10 -> memory bound, attainable
    # 204.8 * 0.249486 = 51.0948 GFLOP/s, efficiency 2.1341472 / 51.0948 = 4.1768 %.
    assert a["bound"] == "memory"
    assert a["attainable_gflops"] == pytest.approx(204.8 * 2.1341472 / 8.5541612)
    assert a["efficiency_percent"] == pytest.approx(100 * 8.5541612 / 204.8)
    assert not a["above_roof"]
    assert "empirical ceilings" not in w.controls.status_html.value


def test_slider_and_trait_are_linked_both_ways(pmgpu):
    w = RooflineWidget(pmgpu)
    w.peak_flops = 2000
    assert w.controls.flops_slider.value == pytest.approx(2000)
    assert not w.controls.flops_empirical.value
    w.controls.flops_slider.value = 500.0  # a drag
    assert w.peak_flops == pytest.approx(500.0)
    assert w.roofline.peak_flops == pytest.approx(500.0)
    w.controls.bandwidth_slider.value = 100.0
    assert w.peak_bandwidth == pytest.approx(100.0)
    assert not w.controls.bandwidth_empirical.value
    w.controls.flops_empirical.value = True
    assert w.peak_flops is None
    assert w.roofline.empirical_flops
    assert w.controls.flops_slider.value == pytest.approx(2.1341472)  # shows the empirical peak
    w.controls.flops_empirical.value = False
    assert w.peak_flops == pytest.approx(2.1341472)
    w.peak_bandwidth = 1e7  # beyond the slider's range: the range widens, no clamping
    assert w.controls.bandwidth_slider.value == pytest.approx(1e7)
    assert w.peak_bandwidth == 1e7
    w.peak_bandwidth = None
    assert w.controls.bandwidth_empirical.value
    assert w.roofline.peak_bandwidth == pytest.approx(28.5809575)


def test_browser_snapping_a_slider_to_its_step_grid_is_not_a_drag(pmgpu):
    # The browser puts a value it is sent on the slider's grid of exponents
    # (step 0.0001 decades) and sends that back: 10**3.3113 = 2047.9 for 2048.
    w = RooflineWidget(pmgpu, peak_flops=2048.0)
    w.controls.flops_slider.value = 10 ** round(math.log10(2048.0), 4)
    assert w.peak_flops == 2048.0
    w.controls.bandwidth_slider.value = 10 ** round(math.log10(28.5809575), 4)  # the empirical value
    assert w.peak_bandwidth is None
    assert w.controls.bandwidth_empirical.value
    # The snapped echo of an earlier value may arrive after the kernel moved on.
    w.peak_flops = 1000.0
    w.controls.flops_slider.set_state({"value": 10 ** round(math.log10(2048.0), 4)})
    assert w.peak_flops == 1000.0
    w.controls.flops_slider.value = 10 ** (round(math.log10(2048.0), 4) + 0.0002)  # two steps: a drag
    assert w.peak_flops == pytest.approx(10 ** 3.3115)


@pytest.mark.parametrize("bad", [0, -5.0, float("nan"), float("inf"), "fast"])
def test_non_positive_peaks_raise(pmgpu, bad):
    w = RooflineWidget(pmgpu, peak_flops=100.0)
    with pytest.raises(TraitError):
        w.peak_flops = bad
    with pytest.raises(TraitError):
        w.peak_bandwidth = bad
    assert w.peak_flops == 100.0
    assert w.peak_bandwidth is None


def test_extra_ceilings_are_drawn_together(pmgpu):
    w = RooflineWidget(pmgpu, peak_flops=2048, peak_bandwidth=204.8,
                       ceilings=[ComputeRoof("1 core boost", 53.6, "spec sheet"),
                                 BandwidthRoof("L3", 1000.0, "user")])
    labels = w.figure.ceilings.labels
    assert "1 core boost 53.6 GFLOP/s" in labels
    assert "L3 1000 GB/s" in labels
    assert len(labels) == 4
    assert w.figure.ceilings.x.shape == (4, 3)
    # The roofs the peaks set are THE roofs (the sliders' roofs, the solid line) whatever other
    # ceilings are higher: 2048 GFLOP/s and 204.8 GB/s, ridge 2048 / 204.8 = 10 FLOP/byte; the
    # 1000 GB/s "L3" ceiling is drawn beside them.
    assert w.roofline.ridge_point() == pytest.approx(10.0)
    assert (w.roofline.main_compute.name, w.roofline.main_bandwidth.name) == ("Peak",
                                                                            "Peak bandwidth")
    # <function_d>: 1.6163005 GFLOP/s at 28.5809575 GB/s, judged against 204.8 GB/s
    row = point(w.to_dataframe(), "<function_d>")
    assert row["attainable_gflops"] == pytest.approx(204.8 * 1.6163005 / 28.5809575)
    assert row["bandwidth_roof"] == "Peak bandwidth"
    with pytest.raises(TypeError):
        RooflineWidget(pmgpu, ceilings=[3.0])


# --------------------------------------------------------------------------
# selection
# --------------------------------------------------------------------------
def test_selection_by_keys_and_by_scatter_indices(pmgpu):
    w = RooflineWidget(pmgpu, peak_flops=2048, peak_bandwidth=204.8)
    run = w.to_dataframe()["file"].iloc[0]
    w.selected = [(run, 0, "<function_a>"), {"file": run, "rank": 0, "region": "<function_d>"}]
    regions = list(w.to_dataframe()["region"])
    assert sorted(w.figure.scatter.selected) == sorted([regions.index("<function_a>"),
                                                  regions.index("<function_d>")])
    selection = w.selection_dataframe()
    assert sorted(selection["region"]) == ["<function_a>", "<function_d>"]
    assert ", 2 selected" in w.controls.status_html.value
    for column in ("performance_gflops", "bandwidth_gbs", "arithmetic_intensity_flops_per_byte",
                   "flops_metric", "bandwidth_metric", "efficiency_percent", "bound",
                   "above_roof"):
        assert column in selection.columns
    # <function_d>: 1.6163005 GFLOP/s at 28.5809575 GB/s -> efficiency 28.5809575 / 204.8.
    assert point(selection, "<function_d>")["efficiency_percent"] == pytest.approx(
        100 * 28.5809575 / 204.8)
    w.figure.scatter.selected = np.array([regions.index("<function_b>")])  # a click in the browser
    assert w.selected == [(run, 0, "<function_b>")]
    assert ", 1 selected" in w.controls.status_html.value
    with pytest.raises(TraitError, match="not among the current points"):
        w.selected = [(run, 0, "<nope>")]
    assert w.selected == [(run, 0, "<function_b>")]


def test_filters_after_selection_leave_no_stale_rows(pmgpu):
    w = RooflineWidget(pmgpu)
    run = w.to_dataframe()["file"].iloc[0]
    w.selected = [(run, 0, "<function_a>"), (run, 0, "<function_b>")]
    w.include = "<function_b"
    assert w.selected == [(run, 0, "<function_b>")]
    assert list(w.selection_dataframe()["region"]) == ["<function_b>"]
    assert list(w.figure.scatter.selected) == [0]  # function_b is now the only (first) point
    w.include = ""
    assert list(w.selection_dataframe()["region"]) == ["<function_b>"]
    regions = list(w.to_dataframe()["region"])
    assert list(w.figure.scatter.selected) == [regions.index("<function_b>")]
    w.include = "("  # invalid: no points, so nothing can stay selected
    assert w.selected == []
    assert len(w.selection_dataframe()) == 0


# --------------------------------------------------------------------------
# escaping, budget, styles, failures
# --------------------------------------------------------------------------
def test_region_names_are_escaped_in_tooltip_legend_and_left_out_table(pmgpu):
    run = synthetic_run(0, 2, names=[EVIL, "<script>alert(2)</script>"],
                        zero_bandwidth={"<script>alert(2)</script>"})
    w = RooflineWidget(run)
    assert list(w.to_dataframe()["region"]) == [EVIL, EVIL]
    # The message bqplot 0.13 sends on hover (seen in Chromium): {"event", "data": {..., "index"}}.
    hover(w, {"event": "hover", "data": {"x": 1.0, "y": 1.0, "color": 0,
                                                        "index": 0, "name": "Dot0"}})
    tooltip = w.figure.tooltip.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in tooltip
    assert "<img" not in tooltip
    for field in ("region", "rank", "GFLOP/s", "FLOP/byte", "bound"):  # compact
        assert f">{field}<" in tooltip
    w.controls.left_out.selected_index = 0  # opened: made now
    table = w.controls.left_out_html.value
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in table
    assert "<script>" not in table
    assert "is zero on every thread" in table
    assert "<img" not in w.controls.legend_html.value
    assert "&lt;img" in w.controls.legend_html.value
    # The real pmgpu names carry angle brackets too.
    w = RooflineWidget(pmgpu)
    hover(w, {"event": "hover", "data": {"index": 3}})
    assert "&lt;function_a&gt;" in w.figure.tooltip.value
    assert "<function_a>" not in w.figure.tooltip.value


def test_point_budget_draws_the_longest_running(pmgpu):
    w = RooflineWidget(pmgpu, max_points=2)
    # Region runtimes (RDTSC, MEM_DP block): init 1.748179 s, function_a 1.499428 s,
    # function_c 0.000121, function_b 0.000105, function_d 0.000050.
    drawn = w.figure.scene.points.rows["region"].tolist()
    assert drawn == ["<init_datastructures>", "<function_a>"]
    assert len(w.figure.scatter.x) == 2
    assert len(w.to_dataframe()) == 5
    assert "drawing the 2 longest-running" in w.controls.status_html.value
    w.max_points = 5000
    assert len(w.figure.scatter.x) == 5
    assert "longest-running" not in w.controls.status_html.value


def test_color_and_size_change_restyle_without_touching_positions(gmgpolar, pmgpu, sent):
    w = RooflineWidget([pmgpu, gmgpolar])
    touched = []
    w.figure.scatter.observe(lambda change: touched.append(change.name), names=["x", "y"])
    codes = w.figure.scatter.color.copy()
    assert len(set(codes)) == 7  # 5 + 2 regions, one colour code each
    w.color_by = "run"
    assert w.controls.color_choice.value == "run"
    np.testing.assert_array_equal(w.figure.scatter.color, [0, 0, 0, 0, 0, 1, 1])
    assert "Runs" in w.controls.legend_html.value
    w.controls.size_choice.value = "runtime"
    sizes = w.figure.scatter.size
    frame = w.to_dataframe()
    assert sizes[frame["region"].tolist().index("Solve")] == pytest.approx(1.0)  # 10.08 s
    assert sizes[frame["region"].tolist().index("<function_d>")] == pytest.approx(0.15)  # 50 us
    assert touched == []
    w.size_by = "none"
    assert w.figure.scatter.size is None


def test_failed_refresh_leaves_the_widget_unchanged(pmgpu, monkeypatch):
    w = RooflineWidget(pmgpu)
    before = (np.array(w.figure.scatter.x), w.controls.status_html.value, w.figure.scene, w.to_dataframe())

    def broken(*arguments, **keywords):
        raise RuntimeError("boom")

    monkeypatch.setattr(w.sums, "select", broken)
    with pytest.raises(RuntimeError, match="boom"):
        w.include = "<function_a"
    assert w.include == ""
    assert w.controls.include_text.value == ""
    np.testing.assert_array_equal(w.figure.scatter.x, before[0])
    assert w.controls.status_html.value == before[1]
    assert w.figure.scene is before[2]
    assert w.to_dataframe().equals(before[3])


def test_reset_view_refits_the_axes(pmgpu):
    w = RooflineWidget(pmgpu)
    fitted = (w.figure.x_scale.min, w.figure.x_scale.max, w.figure.y_scale.min, w.figure.y_scale.max)
    w.figure.x_scale.min, w.figure.x_scale.max = 1.0, 2.0  # a zoom in the browser
    assert w.figure.ceilings.x.min() == pytest.approx(1.0)  # ceilings follow the zoom
    assert w.controls.interaction_choice.value == "inspect"
    assert w.figure.plot.interaction is None
    w.controls.interaction_choice.value = "lasso"
    assert w.figure.plot.interaction is w.figure.interactions["lasso"]
    assert w.figure.pointer.mode == "lasso"  # the kernel draws and selects (widget/pointer.py)
    w.controls.interaction_choice.value = "pan-zoom"
    assert type(w.figure.plot.interaction).__name__ == "PanZoom"
    w.controls.reset_button.click()
    assert (w.figure.x_scale.min, w.figure.x_scale.max, w.figure.y_scale.min, w.figure.y_scale.max) == fitted


# --------------------------------------------------------------------------
# cost (printed, not asserted, except that a peak change leaves the points alone)
# --------------------------------------------------------------------------
@pytest.mark.parametrize(("max_points", "mark"), [(2000, "svg"), (DEFAULT_MAX_POINTS, "gl")])
def test_large_data_set_draws_the_budget_and_a_peak_change_sends_no_points(sent, max_points, mark):
    """At 2,000 (SVG) and 50,000 (WebGL) drawn points a peak change sends under 4 KB.

    Timings of these updates are measured in benchmarks/bench_widget.py, not here.
    """
    w = RooflineWidget(synthetic_run(500, 100), rank_view="points", max_points=max_points)
    w.figure.plot._view_count = 1  # the figure is shown in a browser: the WebGL mark joins it
    assert len(w.to_dataframe()) == 50_000
    drawn, empty = w.figure.points.svg, w.figure.points.gl
    if mark == "gl":
        drawn, empty = empty, drawn
    assert DEFAULT_MAX_POINTS == 50_000
    assert len(drawn.x) == max_points
    assert len(empty.x) == 0
    assert w.figure.points.active is drawn
    assert (drawn in w.figure.plot.marks)
    assert (mark == "gl") == (empty in w.figure.plot.marks)
    sent.clear()
    w.flops_metric = "SP [MFLOP/s]"
    assert len(sent.by(drawn)) == 1  # new point arrays, in one message
    assert sent.by(empty) == []
    sent.clear()
    w.peak_bandwidth = 3000.0
    assert sent.by(drawn) == []
    assert sent.by(empty) == []
    # the ceiling lines, their labels, the slider and the status line: a few hundred bytes each
    assert 0 < sent.bytes < 4096
    assert {type(widget).__name__ for widget, *_ in sent.messages} <= {
        "FloatLogSlider", "HTML", "Label", "Lines", "RooflineWidget", "Checkbox",
        "FloatText", "ToggleButton"}


def test_log_ticks_read_as_plain_numbers_over_wide_ranges(pmgpu):
    w = RooflineWidget(pmgpu)
    # <init_datastructures> (4.6e-10 FLOP/byte, 6.9e-9 GFLOP/s) does almost no FLOPs, so the
    # axes follow <function_*>: 0.056 to 0.25 FLOP/byte, 0.5 to 2.1 GFLOP/s: plain numbers
    assert (w.figure.x_axis.tick_format, w.figure.y_axis.tick_format) == ("~g", "~g")
    w.peak_flops = 1e6  # a ridge at 1e6 / 28.58 = 3.5e4 FLOP/byte: still 10000, not 1e+4
    assert w.figure.x_scale.max > 1e5
    assert (w.figure.x_axis.tick_format, w.figure.y_axis.tick_format) == ("~g", "~g")


def test_ceiling_labels_name_each_ceiling_with_its_value(pmgpu):
    w = RooflineWidget(pmgpu, peak_flops=2048.0, peak_bandwidth=204.8)
    texts = list(w.figure.ceilings.labels)
    assert "Peak 2048 GFLOP/s" in texts
    assert "Peak bandwidth 204.8 GB/s" in texts
    w.peak_flops = None
    assert "Empirical peak 2.134 GFLOP/s" in w.figure.ceilings.labels


def test_scope_profiler_results_are_accepted_as_they_are():
    pytest.importorskip("scope_profiler")
    from scope_fixtures import make_profiling_results

    from roofline_widget import collect_roofline_points

    results = make_profiling_results(3, 4, 6, seed=7)
    w = RooflineWidget(results)
    frame = w.to_dataframe().sort_values(["rank", "region"]).reset_index(drop=True)
    expected = sorted(collect_roofline_points(results), key=lambda p: (p["rank"], p["region"]))
    assert len(frame) == len(expected) == 12  # 3 ranks x 4 regions
    np.testing.assert_array_equal(frame["performance_gflops"],
                                  [p["performance_gflops"] for p in expected])
    np.testing.assert_array_equal(frame["bandwidth_gbs"], [p["bandwidth_gbs"] for p in expected])
    w.ranks = [2]
    assert set(w.to_dataframe()["rank"]) == {2}
    assert len(w.figure.scatter.x) == 4


# --------------------------------------------------------------------------
# sum over ranks
# --------------------------------------------------------------------------
def two_rank_run():
    """likwid-mpirun-like: rank 0 measures the socket's memory traffic, rank 1 reads 0."""
    threads = [ThreadColumn(f"node:{r}:{r}", r, "cpu", r, "node") for r in range(2)]
    names = ["DP [MFLOP/s]", "Memory bandwidth [MBytes/s]"]
    blocks = [RegionBlock(region=region, group_index=1, group="MEM_DP", line=line,
                          threads=threads, runtime=np.array([2.0, 2.5]),
                          call_count=np.ones(2), metric_names=names,
                          metrics=np.array(values, dtype=float))
              for region, line, values in [("solve", 1, [[1000, 3000], [2000, 0]]),
                                           (EVIL, 20, [[500, 500], [0, 250]])]]
    return build_run(blocks, source="two_ranks.txt", layout="mpirun-text")


def test_sum_over_ranks_by_hand():
    w = RooflineWidget(two_rank_run(), group_ranks="rank")
    # per rank: solve on rank 1 and EVIL on rank 0 have zero bandwidth and are left out
    assert sorted(map(tuple, w.to_dataframe()[["region", "rank"]].values.tolist())) == [
        (EVIL, 1), ("solve", 0)]
    assert len(w.left_out_dataframe()) == 2
    w.controls.group_choice.value = "all"  # the "Group ranks" dropdown drives the trait
    assert w.combine_ranks is True
    frame = w.to_dataframe()
    solve = point(frame, "solve")
    # (1000 + 3000) MFLOP/s over (2000 + 0) MB/s: 4 GFLOP/s, 2 GB/s, 2 FLOP/byte
    assert solve["rank"] == -1
    assert solve["performance_gflops"] == pytest.approx(4.0)
    assert solve["bandwidth_gbs"] == pytest.approx(2.0)
    assert solve["arithmetic_intensity_flops_per_byte"] == pytest.approx(2.0)
    assert solve["runtime_seconds"] == 2.5
    assert solve["n_threads"] == 2
    # EVIL: (500 + 500) MFLOP/s over (0 + 250) MB/s = 4 FLOP/byte
    assert point(frame, EVIL)["arithmetic_intensity_flops_per_byte"] == pytest.approx(4.0)
    assert len(w.left_out_dataframe()) == 0
    # the rank filter applies before summing: rank 0 alone has solve's point only
    w.ranks = [0]
    assert w.to_dataframe()[["region", "rank"]].values.tolist() == [["solve", -1]]
    assert point(w.to_dataframe(), "solve")["performance_gflops"] == pytest.approx(1.0)
    left = w.left_out_dataframe()
    assert left[["region", "rank"]].values.tolist() == [[EVIL, -1]]
    w.controls.left_out.selected_index = 0  # opened: made now
    assert "all ranks" in w.controls.left_out_html.value
    assert "&lt;img" in w.controls.left_out_html.value


def test_combine_ranks_toggle_replaces_the_scatter_data_in_place(sent):
    w = RooflineWidget(synthetic_run(6, 4))
    per_rank = w.to_dataframe()
    assert len(per_rank) == 24
    assert len(w.figure.scatter.x) == 24
    scatter, figure, marks = w.figure.scatter, w.figure.plot, list(w.figure.plot.marks)
    sent.clear()
    w.combine_ranks = True
    assert w.controls.group_choice.value == "all"
    assert w.figure.scatter is scatter
    assert w.figure.plot is figure
    assert list(figure.marks) == marks
    updates = sent.by(scatter)
    assert len(updates) == 1, "one hold_sync"
    assert {"x", "y"} <= set(updates[0]), "data replaced"
    frame = w.to_dataframe()
    assert len(frame) == len(scatter.x) == 6
    assert set(frame["rank"]) == {-1}
    # the combined point of each region: the sums over its 4 ranks, intensity their ratio
    totals = per_rank.groupby("region")[["performance_gflops", "bandwidth_gbs"]].sum()
    combined = frame.set_index("region").loc[totals.index]
    np.testing.assert_allclose(combined["performance_gflops"], totals["performance_gflops"])
    np.testing.assert_allclose(combined["bandwidth_gbs"], totals["bandwidth_gbs"])
    np.testing.assert_allclose(scatter.x, frame["arithmetic_intensity_flops_per_byte"])
    np.testing.assert_allclose(scatter.y, frame["performance_gflops"])
    np.testing.assert_allclose(frame["arithmetic_intensity_flops_per_byte"],
                               frame["performance_gflops"] / frame["bandwidth_gbs"])
    assert "ranks summed" in w.controls.status_html.value
    assert "6 points" in w.controls.status_html.value
    w.controls.group_choice.value = "auto"
    assert w.combine_ranks is False
    assert len(w.figure.scatter.x) == 24
    assert w.figure.scatter is scatter
    assert "ranks summed" not in w.controls.status_html.value


def test_combined_points_show_all_ranks_and_can_be_selected():
    w = RooflineWidget(two_rank_run(), combine_ranks=True, color_by="rank", group_ranks="rank")
    assert w.controls.group_choice.value == "all"
    assert len(w.figure.scatter.x) == 2
    assert "all ranks" in w.controls.legend_html.value
    assert ">-1<" not in w.controls.legend_html.value
    np.testing.assert_array_equal(w.figure.scatter.color, [0, 0])
    hover(w, {"event": "hover", "data": {"index": 0}})
    assert ">all ranks (ranks 0-1)</td>" in w.figure.tooltip.value  # the rank_group
    run = w.to_dataframe()["file"].iloc[0]
    w.selected = [(run, -1, "solve")]
    regions = list(w.to_dataframe()["region"])
    assert list(w.figure.scatter.selected) == [regions.index("solve")]
    assert w.selection_dataframe()[["region", "rank"]].values.tolist() == [["solve", -1]]
    w.figure.scatter.selected = np.array([regions.index(EVIL)])  # a click
    assert w.selected == [(run, -1, EVIL)]
    w.combine_ranks = False  # rank -1 is no longer among the points: no stale selection
    assert w.selected == []
    assert "all ranks" not in w.controls.legend_html.value
    with pytest.raises(TraitError, match="not among the current points"):
        w.selected = [(run, -1, "solve")]
