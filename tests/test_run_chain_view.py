"""A file of several runs opens in the widget and in plot_roofline as a chain of its runs.

Sample 19 (seven LULESH problem sizes, 30^3 ... 350^3, appended to one CSV log; 22 regions on
one hardware thread each) is drawn as run #7's points; the widget draws the runs as a sweep
(each region's path through runs #1 ... #7; more in ``tests/test_widget_sweep.py``),
``plot_roofline`` as the compare layer's chain (arrows from run to run).  The numbers are
read off the sample's metric rows for CalcFBHourglassForceForElems, one thread, so the
region's point is that thread's row:

- run #1 (30^3), lines 550-564: DP 7771.6640 MFLOP/s, Memory bandwidth 1656.6329 MB/s,
  Runtime (RDTSC) 0.8588 s; LIKWID's own Operational intensity 4.6912 FLOP/Byte;
- run #7 (350^3), lines 10072-10086: DP 7812.2025 MFLOP/s, Memory bandwidth 5633.6970 MB/s,
  Runtime (RDTSC) 1356.6850 s; Operational intensity 1.3867 FLOP/Byte.
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from wild_samples import BENCH_REPS, LULESH_SIZES

from roofline_widget import RooflineWidget, plot_roofline, read_likwid, sample_path
from roofline_widget.cli import main
from roofline_widget.io.chain import FileChain
from roofline_widget.scene.sweep import PATH_GID, RUNS_GID

LULESH = "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated"
LABELS = ["#1 (size 30^3)", "#2 (size 60^3)", "#3 (size 90^3)", "#4 (size 120^3)",
          "#5 (size 150^3)", "#6 (size 250^3)", "#7 (size 350^3)"]
RUN_7 = f"{LULESH}#7 (Running problem size 350^3 per domain until completion)"
HOURGLASS = "CalcFBHourglassForceForElems"
# run #1 and run #7 of the region: (FLOP/byte, GFLOP/s); MFLOP/s / 1000 and MB/s / 1000
FIRST = (7771.6640 / 1656.6329, 7.7716640)  # 4.6912..., LIKWID printed 4.6912
LAST = (7812.2025 / 5633.6970, 7.8122025)  # 1.38669..., LIKWID printed 1.3867
GIVE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
TAKE_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket_take.txt")


@pytest.fixture(scope="module")
def lulesh():
    return read_likwid(LULESH_SIZES)


def _status(widget) -> str:
    return widget.controls.status_html.value


def test_the_chain_is_labelled_by_what_sets_the_runs_apart(lulesh):
    chain = FileChain.of(lulesh)
    assert chain.file == f"{LULESH}.csv"
    assert list(chain.labels) == LABELS
    assert chain.current is lulesh.runs[6]
    assert list(chain.baseline) == LABELS[:6]
    assert [run.run_info.number for run in chain.baseline.values()] == [1, 2, 3, 4, 5, 6]
    assert chain.summary() == (f"7 runs of {LULESH}.csv drawn as a chain: #1 (size 30^3) → "
                               "#2 (size 60^3) → #3 (size 90^3) → … → #7 (size 350^3)")
    # twenty likwid-bench repetitions: nothing differs between them, the labels are numbers
    reps = FileChain.of(read_likwid(BENCH_REPS))
    assert reps.labels[:2] == ("#1", "#2")
    assert reps.summary().endswith("drawn as a chain: #1 → #2 → #3 → … → #20")
    with pytest.raises(ValueError, match="a chain needs two"):
        FileChain.of(read_likwid(GIVE_4T))


def test_the_widget_draws_the_last_run_and_the_earlier_runs_as_the_chain(lulesh):
    w = RooflineWidget(LULESH_SIZES)
    assert w.chain_shown
    assert list(w.file_chain.labels) == LABELS
    points = w.to_dataframe()
    assert len(points) == 22
    assert set(points["file"]) == {RUN_7}
    hourglass = points.set_index("region").loc[HOURGLASS]
    assert hourglass["performance_gflops"] == pytest.approx(LAST[1])
    assert hourglass["bandwidth_gbs"] == pytest.approx(5.6336970)
    assert hourglass["arithmetic_intensity_flops_per_byte"] == pytest.approx(LAST[0])
    assert hourglass["arithmetic_intensity_flops_per_byte"] == pytest.approx(1.3867, abs=5e-5)
    # the scatter draws those 22 points
    assert len(w.figure.scatter.x) == 22
    # the baseline is the chain of runs #1 ... #6, by short label; drawn as a sweep, not arrows
    assert list(w.baseline) == LABELS[:6]
    assert w.baseline_layer is None
    assert w.figure.scene.comparison is None
    assert w.figure.scene.sweep is not None


def test_the_sweep_draws_each_regions_path_through_the_seven_runs():
    w = RooflineWidget(LULESH_SIZES)
    frame = w.comparison_dataframe()  # the chain's rows, though no arrows are drawn
    both = frame[frame["status"] == "both"].reset_index(drop=True)
    assert len(both) == 22 * 6  # every region in every step
    rows = both.index[both["region"] == HOURGLASS]
    assert list(both.loc[rows, "step"]) == [1, 2, 3, 4, 5, 6]
    # speed-up vs the first run: runtime 0.8588 s at 30^3, 1356.6850 s at 350^3
    assert both.loc[rows[-1], "speedup_vs_first"] == pytest.approx(0.8588 / 1356.6850, rel=1e-4)
    # the region's path: one line of the sweep's only Lines mark, 7 positions, run #1 first
    layer = w.figure.layers["sweep"]
    assert len(layer.paths) == 1
    drawn = w.figure.scene.sweep.drawn
    first_rows = drawn.drop_duplicates("sweep_path")
    line = int(np.flatnonzero(first_rows["region"].astype(str).to_numpy() == HOURGLASS)[0])
    x, y = np.asarray(layer.paths[0].x)[line], np.asarray(layer.paths[0].y)[line]
    positions = list(zip(x, y))
    assert len(positions) == 7
    assert len(set(positions)) == 7
    assert positions[0] == pytest.approx(FIRST)
    assert positions[-1] == pytest.approx(LAST)


def test_the_status_line_names_the_sweep_and_the_details_the_chain():
    w = RooflineWidget(LULESH_SIZES)
    status = _status(w)
    assert "<b>7 runs</b> of lulesh_icx8360y_MEM_D…enated.csv as a sweep: 22 paths" in status
    assert "drawn as a chain" not in status
    w.sweep_controls.details.selected_index = 0  # opened: made now
    details = w.sweep_controls.details_html.value
    assert (f"<b>7 runs of {LULESH}.csv drawn as a chain: #1 (size 30^3) → #2 (size 60^3) → "
            "#3 (size 90^3) → … → #7 (size 350^3)</b>") in details
    assert "chain=False" in details
    assert "□ square" not in details  # no marker shape per run


def test_chain_false_draws_every_run_as_points():
    w = RooflineWidget(LULESH_SIZES, chain=False)
    assert w.file_chain is None
    assert not w.chain_shown
    assert w.baseline is None
    assert w.baseline_layer is None
    points = w.to_dataframe()
    assert len(points) == 154
    assert points["file"].nunique() == 7
    assert "drawn as a chain" not in _status(w)


def test_an_explicit_baseline_wins_over_the_chain(lulesh):
    first = lulesh.runs[0]
    w = RooflineWidget(LULESH_SIZES, baseline=first)
    assert w.file_chain is None
    assert not w.chain_shown
    assert w.baseline is first
    assert len(w.to_dataframe()) == 154  # the data as it is: all its runs
    status = _status(w)
    assert "drawn as a chain" not in status
    # one baseline run against seven current runs cannot be compared: the status says why
    assert "Baseline not compared" in status
    assert "compare one run per side" in status


def test_replacing_the_chains_baseline_removes_its_note():
    w = RooflineWidget(LULESH_SIZES)
    w.baseline = None
    assert not w.chain_shown
    assert w.file_chain is not None  # what the data is does not change
    assert len(w.to_dataframe()) == 22
    status = _status(w)
    assert "drawn as a chain" not in status
    assert "median speed-up" not in status


def test_a_list_of_single_run_files_is_one_point_per_file_as_before():
    w = RooflineWidget([GIVE_4T, TAKE_4T])
    assert w.file_chain is None
    assert w.baseline is None
    assert w.baseline_layer is None
    points = w.to_dataframe()
    assert len(points) == 4  # 2 regions x 2 files
    assert points["file"].nunique() == 2


def test_files_each_of_several_runs_are_all_points(tmp_path):
    other = tmp_path / "lulesh_again.csv"
    shutil.copyfile(LULESH_SIZES, other)
    w = RooflineWidget([LULESH_SIZES, other])
    assert w.file_chain is None
    assert w.baseline_layer is None
    assert len(w.to_dataframe()) == 2 * 154


def test_plot_roofline_draws_the_chain_and_writes_its_trajectories(tmp_path):
    svg = tmp_path / "chain.svg"
    payload = plot_roofline(LULESH_SIZES, filepath=svg, verbose=False)
    assert payload["chain"] == LABELS
    assert len(payload["points"]) == 22
    assert {p["file"] for p in payload["points"]} == {RUN_7}
    assert payload["colour_by"] == "region"  # a trajectory per region, in its colour
    axes = payload["figure"].axes[0]
    # a sweep: one path per region through its seven runs, every run's points on the shade
    paths = [line for line in axes.get_lines() if line.get_gid() == PATH_GID]
    assert len(paths) == 22
    (mine,) = [line for line in paths if line.get_label() == HOURGLASS]
    x, y = mine.get_data()
    assert len(x) == 7
    assert (x[0], y[0]) == pytest.approx(FIRST)
    assert (x[-1], y[-1]) == pytest.approx(LAST)
    (dots,) = [c for c in axes.collections if c.get_gid() == RUNS_GID]
    # 7 runs x 22 regions less the 5 points beyond the hardware (left out, said in the notes)
    assert len(dots.get_offsets()) == 7 * 22 - 5
    assert "5 of the runs' 154 points not on the paths (5 beyond the hardware" in " ".join(
        payload["scene"].sweep.notes)
    assert len(payload["sweep"]) == 7 * 22  # every run's point, drawn or not
    assert svg.stat().st_size > 0
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_plot_roofline_chain_false_and_bqplot_draw_every_run():
    payload = plot_roofline(LULESH_SIZES, chain=False, verbose=False)
    assert payload["chain"] == []
    assert "comparison" not in payload
    assert len(payload["points"]) == 154
    bqplot = plot_roofline(LULESH_SIZES, backend="bqplot", verbose=False)
    assert bqplot["chain"] == []
    assert len(bqplot["points"]) == 154


def test_cli_plot_draws_the_chain_with_titles_for_every_run(tmp_path, capsys):
    svg = tmp_path / "chain.svg"
    assert main(["plot", str(LULESH_SIZES), "-o", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out
    assert "22 point(s)" in out
    assert "drawn as a chain of the file's 7 runs: #1 (size 30^3) → #2 (size 60^3)" in out
    # each run's point of the region carries its numbers as an SVG title (run #1: lines 550-564),
    # and so does the ring over its last run's point
    titles = [t.text for t in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}title")
              if t.text and t.text.startswith(HOURGLASS + ",")]
    assert len(titles) == 7 + 1
    first = next(t for t in titles if "#1 (Running problem size 30^3" in t)
    assert re.search(r"4\.691 FLOP/byte, 7\.772 GFLOP/s, 1\.657 GB/s", first)
    last = next(t for t in titles if t.startswith(f"{HOURGLASS}, run {RUN_7}"))
    assert re.search(r"1\.387 FLOP/byte, 7\.812 GFLOP/s, 5\.634 GB/s", last)
    assert main(["plot", str(LULESH_SIZES), "-o", str(tmp_path / "all.svg"), "--no-chain"]) == 0
    assert "154 point(s)" in capsys.readouterr().out
