"""The renderer-neutral sweep (``scene.sweep``): runs grouped into paths, steps, shades, rings.

Samples: 17 (gmgpolar ``Solve`` and ``Setup`` on 1, 2 and 8 threads, three files), 19
(``LULESH_SIZES``: seven problem sizes in one log) and the generated 54-run sweep (18 thread
counts x 3 cases, ``study_files``).  By hand: sample 17's Solve runs 1253.7118, 2432.8082 and
8621.4700 MFLOP/s (STAT Sum) on 1, 2 and 8 threads, so its path climbs 1.2537 -> 2.4328 ->
8.6215 GFLOP/s; the shade of the thread counts 1, 2, 8 on ``SWEEP_COLORS`` (#e3e3e3, #969696,
#252525 at 1, 4.5, 8): 2 threads lie 1/3.5 of the way to the middle stop:
0xe3 - (0xe3 - 0x96) x 2/7 = 227 - 22 = 205 = 0xcd.
"""

from __future__ import annotations

import numpy as np
import pytest
from study_files import CASES, GMGPOLAR_THREADS, THREADS, write_sweep
from wild_samples import LULESH_SIZES

from roofline_widget import read_likwid
from roofline_widget.look.colors import PALETTE
from roofline_widget.points import RegionSums, Selection
from roofline_widget.scene.parts import Coloring, Shade
from roofline_widget.scene.sweep import (
    PATH_STYLES,
    SweepRuns,
    runs_sweep,
    shade_colors,
    sweep_part,
    sweep_rows,
    with_step,
)

COLORING = Coloring("region", ("Solve", "Setup"), PALETTE)


@pytest.fixture(scope="module")
def gmgpolar():
    return [read_likwid(path) for path in GMGPOLAR_THREADS]


def test_three_files_make_one_path_per_region_shaded_by_threads(gmgpolar):
    part = runs_sweep(gmgpolar, Selection(), COLORING)
    assert part.key.name == "threads"
    assert part.key.labels == ("1", "2", "8")
    assert part.key.values == (1.0, 2.0, 8.0)
    assert part.key.colors() == ["#e3e3e3", "#cdcdcd", "#252525"]
    assert part.group_by == ()
    assert part.groups == ("",)
    assert len(part.paths) == 1
    assert part.paths[0].style == PATH_STYLES[0]
    solve = part.drawn[part.drawn["region"] == "Solve"]
    assert solve["performance_gflops"].tolist() == pytest.approx([1.2537118, 2.4328082, 8.62147])
    assert solve["sweep_value"].tolist() == [1.0, 2.0, 8.0]
    # the path's colour is the region's: Solve is code 0 of the coloring
    line = int(np.flatnonzero(part.drawn.drop_duplicates("sweep_path")["region"] == "Solve")[0])
    assert part.paths[0].colors[line] == PALETTE[0]
    assert np.asarray(part.paths[0].y)[line].tolist() == pytest.approx([1.2537118, 2.4328082,
                                                                        8.62147])
    # the last step is ringed; another step moves the rings, the paths and dots stay
    assert part.chosen == 2
    assert set(part.ring.rows["n_threads"]) == {8}
    first = with_step(part, 0, COLORING)
    assert set(first.ring.rows["n_threads"]) == {1}
    assert first.paths is part.paths
    assert first.runs is part.runs
    with pytest.raises(ValueError, match="steps 0 to 2"):
        with_step(part, 3, COLORING)


def test_sizes_step_by_their_number_not_their_text():
    run = read_likwid(LULESH_SIZES)
    sums = RegionSums.from_runs(list(run.runs))
    runs = SweepRuns.of(sums.runs, sums.files)
    key = runs.key()
    # "120^3" sorts before "30^3" as text; as numbers 30^3 = 27,000 < 120^3 = 1,728,000
    assert key.labels == ("30^3", "60^3", "90^3", "120^3", "150^3", "250^3", "350^3")
    assert runs.steps() == list(range(7))
    assert runs.choices == ()
    with pytest.raises(ValueError, match="group the runs by one of"):
        SweepRuns.of(sums.runs, sums.files, "case")


def test_54_runs_group_by_case_or_by_threads(tmp_path):
    sums = RegionSums.from_runs(read_likwid(write_sweep(tmp_path)).runs)
    by_case = SweepRuns.of(sums.runs, sums.files)
    assert (by_case.group_by, by_case.varies, by_case.choices) == (("case",), "threads",
                                                                  ("threads", "case"))
    assert by_case.groups()[::18] == [f"case={case}" for case in CASES]
    assert by_case.steps() == [t - 1 for t in THREADS] * 3
    by_threads = SweepRuns.of(sums.runs, sums.files, "threads")
    assert (by_threads.group_by, by_threads.varies) == (("threads",), "case")
    assert by_threads.key().labels == CASES  # as they first appear
    assert by_threads.steps() == [0] * 18 + [1] * 18 + [2] * 18
    rows = sweep_rows(sums.select(Selection()).points, by_threads)
    part = sweep_part(rows, by_threads, Coloring("region", (), PALETTE))
    assert len(part.paths) == 18
    assert part.path_count() == 54
    assert [lines.style for lines in part.paths[:4]] == [*PATH_STYLES, PATH_STYLES[0]]
    assert all(np.shape(lines.x) == (3, 3) for lines in part.paths)


def test_shade_colors_are_clipped_and_linear():
    shade = Shade(("#000000", "#ffffff"), 0.0, 10.0)
    assert shade_colors(shade, [-5, 0, 5, 10, 20]) == ["#000000", "#000000", "#808080",
                                                        "#ffffff", "#ffffff"]
