"""Rates no hardware reaches: found by sanity_check, told, and kept out of empirical ceilings.

Sample 19 (``LULESH_SIZES``: LULESH on an Ice Lake Xeon 8360Y, ``likwid-perfctr -O -g
MEM_DP``, seven problem sizes in one log, one hardware thread each).  ICX's MEM_DP metric is
``DP [MFLOP/s] = 1e-6 * (FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE * 2 + ..._SCALAR_DOUBLE +
..._256B_PACKED_DOUBLE * 4 + ..._512B_PACKED_DOUBLE * 8) / runtime``.  In five region blocks
the 512B counter (PMC3) reads about 2^47 = 140,737,488,355,328 or 2^48 = 281,474,976,710,656,
a wrapped 48-bit counter, so LIKWID prints rates no CPU reaches:

============================  ===  ==========  =====================  ===========  ===============
region                        run  file line   PMC3 (512B)            PMC1 scalar  runtime [s]
============================  ===  ==========  =====================  ===========  ===============
CalcPressureForElems          #1   1093/1120   140,737,500,000,000    80,344,800   0.057696
CalcEnergyForElems:KERNEL_5   #2   2908/2935   281,474,700,000,000    569,424,700  0.305426
CalcCourantConstraintForElems #2   3079/3106   140,737,400,000,000    195,401,600  0.287399
CalcEnergyForElems:KERNEL_5   #3   4495/4522   140,736,800,000,000    2,355,312,000  1.220516
CalcEnergyForElems:KERNEL_1   #6   8971/8998   140,718,400,000,000    51,988,960,000 27.32988
============================  ===  ==========  =====================  ===========  ===============

CalcPressureForElems run #1: (140737500000000 * 8 + 80344800) / 0.057696 s = 1.9514352e16
FLOP/s = 19,514,352 GFLOP/s (LIKWID prints 1.951436e+10 MFLOP/s: 19,514,360 GFLOP/s, the value
read) on one hardware thread, against at most 1,000 GFLOP/s per hardware thread.  The other
149 points are at most 7.8285323 GFLOP/s: run #5's CalcFBHourglassForceForElems (line 6898),
(425,250,000,000 scalar + 4 * 102,262,500,000 256B) / 106.5717 s = 834,300,000,000 / 106.5717
= 7.82853 GFLOP/s, the empirical peak.  No bandwidth is beyond the hardware: the empirical
bandwidth stays run #7's CalcVelocityForNodes, 22865.2091 MBytes/s (line 10251).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from likwid_render import perfctr_header, perfctr_region
from wild_samples import LULESH_SIZES

from roofline_widget import (
    Roofline,
    RooflineWidget,
    hierarchical_points,
    plot_roofline,
    points_dataframe,
    sanity_check,
)
from roofline_widget.analysis.sanity import CHECKS, flagged_points
from roofline_widget.look.axis_ranges import axis_ranges
from roofline_widget.look.beyond_hardware import beyond_hardware_text, point_name
from roofline_widget.look.no_flop import split_flop_work
from roofline_widget.roofs.hardware_bounds import (
    MAX_CPU_GFLOPS_PER_THREAD,
    beyond_hardware,
    counters_near_wrap,
    keep_flags,
    largest_plausible,
)
from roofline_widget.scene.sweep import PATH_GID, RUNS_GID

#: (region, run) of the five broken points, in file order.
BROKEN = [("CalcPressureForElems", 1), ("CalcEnergyForElems:KERNEL_5", 2),
          ("CalcCourantConstraintForElems", 2), ("CalcEnergyForElems:KERNEL_5", 3),
          ("CalcEnergyForElems:KERNEL_1", 6)]
#: LIKWID's DP [MFLOP/s] of the five (lines 1120, 2935, 3106, 4522, 8998) in GFLOP/s.
BROKEN_GFLOPS = [1.951436e7, 7.372657e6, 3.917547e6, 9.224760e5, 4.119298e4]
#: The largest plausible point (run #5 CalcFBHourglassForceForElems, line 6898) and bandwidth.
PLAUSIBLE_PEAK = 7.8285323
PLAUSIBLE_BANDWIDTH = 22.8652091
SENTENCE = ("5 points report rates beyond any CPU, the largest CalcPressureForElems (run #1): "
            "19,514,360 GFLOP/s on 1 hardware thread")
#: The same in the default view of a file of several runs, a chain: the last run's points, the
#: earlier runs as the baseline, named by their chain labels.
CHAIN_SENTENCE = SENTENCE.replace("(run #1)", "(#1 (size 30^3))")


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def points():
    return points_dataframe(LULESH_SIZES)


@pytest.fixture(scope="module")
def widget():
    return _quiet(RooflineWidget, LULESH_SIZES, chain=False)  # every run as points


# ------------------------------------------------------------------ the rule
def test_the_metric_is_the_broken_counter_read_faithfully(points):
    row = points[(points["region"] == "CalcPressureForElems") & (points["run"] == 1)].iloc[0]
    # (140737500000000 * 8 + 80344800) / 0.057696 s / 1e9 = 19,514,352 GFLOP/s: LIKWID's
    # 1.951436e+10 MFLOP/s to its 7 digits
    by_hand = (140737500000000 * 8 + 80344800) / 0.057696 / 1e9
    assert by_hand == pytest.approx(row["performance_gflops"], rel=1e-6)
    assert row["performance_gflops"] == 19514360.0  # read as printed, not dropped
    assert row["n_threads"] == 1
    assert row["performance_gflops"] > 19_000 * MAX_CPU_GFLOPS_PER_THREAD


def test_exactly_the_five_broken_points_are_beyond_the_hardware(points):
    flagged = points[beyond_hardware(points)]
    assert list(zip(flagged["region"], flagged["run"])) == BROKEN
    np.testing.assert_allclose(flagged["performance_gflops"], BROKEN_GFLOPS, rtol=1e-12)
    assert not beyond_hardware(points, "bandwidth_gbs").any()
    # the largest of the other 149: run #5's CalcFBHourglassForceForElems
    # (425250000000 + 4 * 102262500000) / 106.5717 s = 7.82853 GFLOP/s
    assert (425250000000 + 4 * 102262500000) / 106.5717 / 1e9 == pytest.approx(
        PLAUSIBLE_PEAK, rel=1e-6)
    assert largest_plausible(points, "performance_gflops") == PLAUSIBLE_PEAK
    assert points["performance_gflops"].max() == 19514360.0


def test_the_bound_scales_with_threads_and_device():
    frame = pd.DataFrame({
        "performance_gflops": [40_000.0, 49_000.0, 1e6, 1e8, 5e6, np.nan, 2_000.0],
        "bandwidth_gbs": [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 5e7],
        "n_threads": [48, 48, 1, 1, 0, 1, 1],
        "device": ["cpu", "cpu", "gpu", "gpu", "cpu", "cpu", "cpu"]})
    # 48 threads x 1,000 = 48,000 GFLOP/s: 40,000 fits, 49,000 does not; a GPU's 1 PFLOP/s fits
    # its 50 PFLOP/s, 100 PFLOP/s does not; no thread count, no NaN rate is judged; 50 PB/s on
    # one thread is beyond the 20,000 GB/s bound
    assert beyond_hardware(frame).tolist() == [False, True, False, True, False, False, True]
    assert beyond_hardware(frame, "performance_gflops").tolist() == [
        False, True, False, True, False, False, True]
    assert beyond_hardware(frame, "bandwidth_gbs").tolist() == [False] * 6 + [True]
    assert not beyond_hardware(frame.drop(columns="n_threads")).any()  # scope-profiler dicts


def test_counters_near_a_wrap_are_named():
    readings = pd.DataFrame({"FP_512B:PMC3": [0.0, 140737500000000.0],
                             "FP_SCALAR:PMC1": [80344800.0, 1.0],
                             "CAS:MBOX0C0": [281474700000000.0, 0.0],
                             "BIG:PMC0": [1.5e14, 0.0]})  # 6.6 % above 2^47: not near it
    assert counters_near_wrap(readings) == [("FP_512B:PMC3", 140737500000000.0, 47),
                                            ("CAS:MBOX0C0", 281474700000000.0, 48)]


# ------------------------------------------------------------------ sanity_check
def test_sanity_check_finds_exactly_the_broken_points_and_names_their_counters():
    findings = sanity_check(LULESH_SIZES)
    assert CHECKS[0] == "beyond hardware"
    assert findings["check"].tolist() == ["beyond hardware"] * 5
    assert [(region, int(file.split("#")[1].split(" ")[0]))
            for region, file in zip(findings["region"], findings["file"])] == BROKEN
    assert findings["level"].isna().all()  # a FLOP rate: every level of the region
    first = findings["detail"].iloc[0]
    # per thread, before any sum: the thread, its file and run, the rate as printed, the
    # bound of one Ice Lake SP thread (64 SP FLOP/cycle x 1.5 x the threads' measured clock,
    # about 2.394 GHz: about 230 GFLOP/s), the wrapped counter, the point that sums it
    assert first.startswith(
        "rank 0, thread HWThread 0 (file lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv, run "
        "'lulesh_icx8360y_MEM_DP_O_7sizes_concatenated#1 (Running problem size 30^3 per domain "
        "until completion)') reads 19,514,360,000 MFLOP/s (DP [MFLOP/s]: 19,514,360 GFLOP/s), "
        "beyond what one hardware thread can do (at most 229.")
    assert "64 FLOP/cycle (Intel Ice Lake SP) x 1.5 x 2.39" in first
    assert ("FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3 reads 140,737,500,000,000, near 2^47: "
            "a wrapped counter; the point of rank 0 in CalcPressureForElems sums it: 19,514,360 "
            "GFLOP/s on 1 hardware thread, left out of empirical ceilings and axis ranges"
            in first)
    # run #2's KERNEL_5 counter wrapped at 2^48: 281,474,700,000,000 (line 2908)
    assert ("FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3 reads 281,474,700,000,000, near 2^48"
            in findings["detail"].iloc[1])
    # run #6's KERNEL_1: (140718400000000 * 8 + 51988960000) / 27.32988 s = 41,193 GFLOP/s
    assert (140718400000000 * 8 + 51988960000) / 27.32988 / 1e9 == pytest.approx(41192.98,
                                                                                   rel=1e-5)
    assert "(DP [MFLOP/s]: 41,193 GFLOP/s)" in findings["detail"].iloc[4]


def test_with_user_peaks_the_finding_stays_and_the_ceilings_are_the_users():
    roofs = Roofline.from_peaks(2_000.0, 200.0)
    findings = sanity_check(LULESH_SIZES, ceilings=roofs)
    beyond = findings[findings["check"] == "beyond hardware"]
    assert len(beyond) == 5
    # the five broken points are above the 2,000 GFLOP/s peak too; nothing else is
    above = findings[findings["check"] == "above roof"]
    assert sorted(zip(above["region"], above["file"])) == sorted(zip(beyond["region"],
                                                                     beyond["file"]))
    payload = plot_roofline(LULESH_SIZES, peak_flops=2_000.0, peak_bandwidth=200.0,
                            verbose=False, chain=False)
    assert [c["value"] for c in payload["ceilings"]] == [2_000.0, 200.0]
    assert not payload["empirical_ceilings"]
    assert payload["beyond_hardware_note"] == (
        f"{SENTENCE}: the axes follow the other points (see sanity_check)")


# ------------------------------------------------------------------ the widget
def test_widget_empirical_peak_is_the_largest_plausible_point(widget):
    roofline = widget.roofline
    assert roofline.empirical_flops
    assert roofline.empirical_bandwidth
    assert roofline.main_compute.gflops == PLAUSIBLE_PEAK
    assert roofline.main_bandwidth.gbs == PLAUSIBLE_BANDWIDTH
    status = widget.controls.status_html.value
    assert "Empirical peak 7.829 GFLOP/s" in status
    assert "1.951e+07" not in status
    assert (f"{SENTENCE}: not used for the empirical peak or the empirical bandwidth; the axes "
            "follow the other points "
            "(see sanity_check)") in status
    # the broken points stay in the data and are drawn (outside the axes)
    frame = widget.to_dataframe()
    assert len(frame) == 154
    assert frame["performance_gflops"].max() == 19514360.0
    assert widget.figure.points.active.y.max() == 19514360.0
    # the axes follow the plausible points: 7.8285323 GFLOP/s x the margin 3 = 23.49
    assert widget.figure.y_scale.max == pytest.approx(3 * PLAUSIBLE_PEAK)
    # before, the broken rate made 149 points "no FLOP work" (below 1e-6 x 1.95e7 = 19.5)
    assert len(split_flop_work(frame)[1]) == 0
    # the peak slider (log10 exponents) spans the plausible peak, not 1.95e7
    slider = widget.controls.peaks.flops_slider
    assert slider.min < math.log10(PLAUSIBLE_PEAK) < slider.max < math.log10(1e6)


def test_widget_peak_given_leaves_the_note_without_the_empirical_part():
    widget = _quiet(RooflineWidget, LULESH_SIZES, peak_flops=2_000.0, chain=False)
    assert widget.roofline.main_compute.gflops == 2_000.0
    status = widget.controls.status_html.value
    # the bandwidth roof is still empirical: a broken point, left out as a whole, gives none
    assert (f"{SENTENCE}: not used for the empirical bandwidth; the axes follow the other points "
            "(see sanity_check)") in status


def test_widget_levels_ring_the_broken_points_and_keep_the_axes():
    widget = _quiet(RooflineWidget, LULESH_SIZES, levels=["MEM"], chain=False)
    layer = widget.figure.layers.get("levels")
    flagged = layer.flagged
    assert flagged["checks"].tolist() == ["beyond hardware"] * 5
    assert flagged["region"].tolist() == [region for region, _run in BROKEN]
    # their MEM dots share the broken FLOP rate; they do not stretch the axes either
    assert widget.figure.y_scale.max == pytest.approx(3 * PLAUSIBLE_PEAK)


# ------------------------------------------------------------------ the static plot
def test_static_plot_note_ceilings_axes_and_data(tmp_path):
    csv = tmp_path / "points.csv"
    payload = plot_roofline(LULESH_SIZES, filepath=tmp_path / "lulesh.png",
                            data_filepath=csv, verbose=False, chain=False)
    assert [c["value"] for c in payload["ceilings"]] == [PLAUSIBLE_PEAK, PLAUSIBLE_BANDWIDTH]
    note = payload["beyond_hardware_note"]
    assert note == (f"{SENTENCE}: not used for the empirical peak or the empirical bandwidth; "
                    "the axes follow the other "
                    "points (see sanity_check)")
    axes = payload["figure"].axes[0]
    assert any(" ".join(text.get_text().split()) == note for text in axes.texts)  # wrapped
    assert axes.get_ylim()[1] == pytest.approx(3 * PLAUSIBLE_PEAK)
    assert payload["no_flop_note"] == ""
    assert (tmp_path / "lulesh.png").stat().st_size > 0
    written = pd.read_csv(csv)
    assert len(written) == 154
    assert written["performance_gflops"].max() == 19514360.0


def test_static_plot_prints_the_note(capsys):
    plot_roofline(LULESH_SIZES, verbose=True, chain=False)
    assert SENTENCE in capsys.readouterr().out


# ------------------------------------------------------------------ the default view: a chain
def test_chain_of_runs_keeps_broken_baseline_points_out_of_roofs_and_axes(tmp_path):
    # the points are run #7's 22 (none broken); runs #1-#6 are the baseline, four of the five
    # broken points among them (run #6's KERNEL_1 too): the roofs and axes still follow the
    # plausible points, and the note names the worst, a baseline point
    widget = _quiet(RooflineWidget, LULESH_SIZES)
    assert len(widget.to_dataframe()) == 22
    assert widget.roofline.main_compute.gflops == PLAUSIBLE_PEAK
    assert widget.figure.y_scale.max == pytest.approx(3 * PLAUSIBLE_PEAK)
    # drawn as a sweep: the status line counts them, its details name the worst
    assert "<b>5 beyond the hardware</b>" in widget.controls.status_html.value
    widget.sweep_controls.details.selected_index = 0  # opened: made now
    assert (f"{SENTENCE}: not used for the empirical peak or the empirical bandwidth; the "
            "axes follow the other "
            "points (see sanity_check)") in widget.sweep_controls.details_html.value


def test_static_sweep_keeps_broken_baseline_points_out_of_roofs_and_axes(tmp_path):
    # as above, in plot_roofline's sweep (the chain of the file's seven runs)
    payload = plot_roofline(LULESH_SIZES, filepath=tmp_path / "chain.png", verbose=False)
    assert payload["chain"][0] == "#1 (size 30^3)"
    assert [c["value"] for c in payload["ceilings"]] == [PLAUSIBLE_PEAK, PLAUSIBLE_BANDWIDTH]
    axes = payload["figure"].axes[0]
    assert axes.get_ylim()[1] == pytest.approx(3 * PLAUSIBLE_PEAK)
    assert payload["beyond_hardware_note"].startswith(CHAIN_SENTENCE)
    # the broken baseline points are left out of the sweep (said in its note); every path and
    # every run's point drawn lies inside the axes
    left_out = payload["scene"].sweep.left_out
    assert len(left_out) == 5
    assert (left_out["sweep_run"] < 6).all()
    (x0, x1), (y0, y1) = axes.get_xlim(), axes.get_ylim()
    (dots,) = [c for c in axes.collections if c.get_gid() == RUNS_GID]
    drawn = [dots.get_offsets()] + [np.column_stack(line.get_data()) for line in axes.get_lines()
                                    if line.get_gid() == PATH_GID]
    for xy in drawn:
        assert ((xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)).all()


# ------------------------------------------------------------------ a rendered small case
def test_rendered_two_thread_case_escapes_the_region_and_says_the_usual_cause(tmp_path):
    # "<broken>&kernel": 3,000 + 2,500,000,000 MFLOP/s on HWThreads 0 and 1 = 2,500,003 GFLOP/s,
    # above 2 x 1,000 GFLOP/s; "good": 1,500 + 1,500 MFLOP/s = 3 GFLOP/s at 6 GB/s (the memory
    # bandwidth is counted on thread 0 only); the raw counts are only INSTR_RETIRED_ANY = 1000
    path = tmp_path / "two_threads.txt"
    path.write_text(perfctr_header() + perfctr_region(
        "<broken>&kernel", 1, "MEM_DP", [0, 1], 1.0,
        {"DP [MFLOP/s]": [3000.0, 2.5e9], "Memory bandwidth [MBytes/s]": [5000.0, 0.0]})
        + perfctr_region("good", 1, "MEM_DP", [0, 1], 1.0,
                         {"DP [MFLOP/s]": [1500.0, 1500.0],
                          "Memory bandwidth [MBytes/s]": [6000.0, 0.0]}))
    findings = sanity_check(path)
    assert findings["region"].tolist() == ["<broken>&kernel"]
    # the header names a Xeon Gold 6132 (Skylake SP, 2 AVX-512 FMA units: 64 SP FLOP/cycle)
    # at 2.59 GHz printed, 2.60 stated: a thread does at most 64 x 2.5 x 2.6 = 416 GFLOP/s
    assert findings["detail"].iloc[0] == (
        "rank 0, thread HWThread 1 (file two_threads.txt, run 'two_threads') reads "
        "2,500,000,000 MFLOP/s (DP [MFLOP/s]: 2,500,000 GFLOP/s), beyond what one hardware "
        "thread can do (at most 416 GFLOP/s: 64 FLOP/cycle (Intel Skylake SP) x 2.5 x 2.6 GHz "
        "base clock); a counter overflow or a broken event is the usual cause; the point of "
        "rank 0 in <broken>&kernel sums it: 2,500,003 GFLOP/s on 2 hardware threads, left out "
        "of empirical ceilings and axis ranges")
    widget = _quiet(RooflineWidget, path)
    assert widget.roofline.main_compute.gflops == pytest.approx(3.0)
    assert widget.roofline.main_bandwidth.gbs == pytest.approx(6.0)
    status = widget.controls.status_html.value
    assert ("&lt;broken&gt;&amp;kernel reports 2,500,003 GFLOP/s on 2 hardware threads, one "
            "hardware thread of them 2,500,000 GFLOP/s (at most 416 GFLOP/s a hardware thread), "
            "beyond what one core can do: not used for the empirical peak or the empirical "
            "bandwidth; the axes follow the "
            "other points") in status
    assert "<broken>" not in status


def test_only_broken_points_still_give_a_roof_and_say_so():
    frame = pd.DataFrame({"region": ["a"], "file": ["f"], "rank": [0],
                          "performance_gflops": [1e7], "bandwidth_gbs": [1.0],
                          "arithmetic_intensity_flops_per_byte": [1e7], "n_threads": [1],
                          "device": ["cpu"]})
    roofline = Roofline.from_peaks(None, None, frame)
    assert roofline.main_compute.gflops == 1e7  # nothing else to take it from
    assert beyond_hardware_text(frame, roofline) == (
        "a reports 10,000,000 GFLOP/s on 1 hardware thread, beyond any CPU: no other point "
        "to take the empirical ceilings and the axes from (see sanity_check)")
    (_x0, _x1), (_y0, y1) = axis_ranges(frame, roofline)
    assert y1 == pytest.approx(3e7)


def test_flagged_points_ring_every_level_of_a_broken_region():
    findings = sanity_check(LULESH_SIZES)
    marked = flagged_points(hierarchical_points(LULESH_SIZES), findings)
    assert set(marked["checks"]) == {"beyond hardware"}
    np.testing.assert_allclose(marked["performance_gflops"], BROKEN_GFLOPS, rtol=1e-12)


def test_point_name_says_which_rank_group_and_run():
    frame = pd.DataFrame({"region": ["solve", "solve"], "file": ["job#1", "job#2"],
                          "rank": [-1, -1], "run": [1, 2],
                          "rank_group": ["f0472 socket 0 (ranks 0-23)",
                                         "f0472 socket 1 (ranks 24-47)"]})
    rows = list(frame.itertuples(index=False))
    assert point_name(rows[1], frame) == "solve (f0472 socket 1 (ranks 24-47), run #2)"
    assert point_name(rows[0], frame.iloc[:1]) == "solve"


def test_kept_flags_are_worked_out_once_and_only_for_the_kept_frame():
    # two CPU points of one hardware thread: 10 GFLOP/s (fine), 5,000 GFLOP/s (beyond 1,000)
    frame = pd.DataFrame({"performance_gflops": [10.0, 5000.0], "bandwidth_gbs": [1.0, 1.0],
                          "n_threads": [1, 1], "device": ["cpu", "cpu"]})
    copy = frame.copy()
    assert keep_flags(frame) is frame
    first = beyond_hardware(frame, "performance_gflops")
    assert first.tolist() == [False, True]
    assert beyond_hardware(frame, "performance_gflops") is first  # remembered
    assert not first.flags.writeable  # nobody changes what others read
    # a frame not kept is worked out on every call: a change in place is seen
    copy.loc[1, "performance_gflops"] = 50.0
    assert beyond_hardware(copy, "performance_gflops").tolist() == [False, False]


def _counting_limits(monkeypatch) -> list:
    """Record each rate column judged (``hardware_limits`` is called once per column judged)."""
    from roofline_widget.roofs import hardware_bounds

    judged: list = []
    original = hardware_bounds.hardware_limits

    def counted(points, column):
        judged.append((len(points), column))
        return original(points, column)

    monkeypatch.setattr(hardware_bounds, "hardware_limits", counted)
    return judged


def test_each_rate_of_a_kept_frame_is_judged_once_and_either_is_their_union(monkeypatch):
    judged = _counting_limits(monkeypatch)
    # 10 GFLOP/s fine; 5,000 GFLOP/s beyond 1,000 a thread; 30,000 GB/s beyond 20,000 a thread
    frame = keep_flags(pd.DataFrame({"performance_gflops": [10.0, 5000.0, 10.0],
                                     "bandwidth_gbs": [1.0, 1.0, 30000.0],
                                     "n_threads": [1, 1, 1], "device": ["cpu"] * 3}))
    assert beyond_hardware(frame).tolist() == [False, True, True]
    assert beyond_hardware(frame, "performance_gflops").tolist() == [False, True, False]
    assert beyond_hardware(frame, "bandwidth_gbs").tolist() == [False, False, True]
    assert largest_plausible(frame, "performance_gflops") == 10.0
    assert judged == [(3, "performance_gflops"), (3, "bandwidth_gbs")]  # nothing judged twice


def test_a_kept_part_takes_its_flags_from_the_whole_and_rows_pick_the_same_largest(monkeypatch):
    judged = _counting_limits(monkeypatch)
    # a GPU point at 2,000 GFLOP/s is fine (a GPU's bound is 5e7), a CPU point at 2,000 is not
    whole = keep_flags(pd.DataFrame({"performance_gflops": [10.0, 2000.0, 2000.0, 40.0],
                                     "bandwidth_gbs": [1.0, 2.0, 3.0, 4.0],
                                     "n_threads": [1, 1, 1, 1],
                                     "device": ["cpu", "cpu", "gpu", "cpu"]}))
    part = keep_flags(whole[whole["performance_gflops"] > 20.0], within=whole)  # rows 1-3
    assert beyond_hardware(part).tolist() == [True, False, False]
    assert judged == [(4, "performance_gflops"), (4, "bandwidth_gbs")]  # of the whole, once
    assert beyond_hardware(part) is beyond_hardware(part)  # kept
    cpu = (whole["device"] == "cpu").to_numpy()
    # CPU rows: 10 and 40 plausible, 2,000 beyond: the CPU's empirical peak is 40
    assert largest_plausible(whole, "performance_gflops", cpu) == 40.0
    assert largest_plausible(whole, "performance_gflops", ~cpu) == 2000.0  # the GPU's
    assert len(judged) == 2
    assert largest_plausible(whole[cpu], "performance_gflops") == 40.0  # the same, judged apart
    # a part of a frame not kept is judged on its own
    loose = pd.DataFrame(whole.to_dict("list"))
    assert beyond_hardware(keep_flags(loose.iloc[1:], within=loose)).tolist() == [True, False, False]


def test_the_widget_judges_each_selection_once_and_again_after_a_change(monkeypatch):
    # 40 one-thread points of 4 regions: region_003's rank 2 reports 5,000 GFLOP/s (beyond a
    # CPU thread's 1,000), so the empirical peak is the largest of the others, 4 x 10 = 40
    n = 40
    frame = pd.DataFrame({"region": [f"region_{i % 4:03d}" for i in range(n)],
                          "rank": [i // 4 for i in range(n)],
                          "performance_gflops": [1.0 + (i % 4) * 10 for i in range(n)],
                          "bandwidth_gbs": [1.0 + i for i in range(n)]})
    frame.loc[(frame["region"] == "region_003") & (frame["rank"] == 2), "performance_gflops"] = 5000.0
    widget = _quiet(RooflineWidget, frame)
    judged = _counting_limits(monkeypatch)
    widget.include = "region_00[0-2]"  # region_003 (with the broken point) filtered out
    assert judged == [(30, "performance_gflops"), (30, "bandwidth_gbs")]  # one selection, once
    assert widget.roofline.compute[0].gflops == 21.0  # region_002: 1 + 2 x 10
    assert widget.roofline.bandwidth[0].gbs == 39.0  # rank 9's region_002: 1 + 38
    judged.clear()
    widget.include = ""  # a new selection: judged again, the broken point passed over
    assert judged == [(40, "performance_gflops"), (40, "bandwidth_gbs")]
    assert widget.roofline.compute[0].gflops == 31.0
    assert "beyond any CPU" in widget.controls.status_html.value
    judged.clear()
    widget.peak_flops = 25.0  # a peak: the same selection's flags, no judging again
    assert judged == []
    assert [roof.gflops for roof in widget.roofline.compute] == [25.0]
    widget.peak_flops = None
    assert widget.roofline.compute[0].gflops == 31.0
    widget.ranks = [0, 1]  # another selection of 8 points: judged once
    assert judged == [(8, "performance_gflops"), (8, "bandwidth_gbs")]
    assert widget.roofline.compute[0].gflops == 31.0  # rank 0's region_003
