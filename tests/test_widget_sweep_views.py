"""Saved views keep a sweep's grouping and ringed step (``group_runs_by``, ``sweep_step``).

The generated 54-run sweep (``study_files.write_sweep``: 18 thread counts x 3 cases,
the regions CalcKinematics, CalcHourglass, UpdateVolumes): grouped by case (the
default, as ``scaling_table`` groups it) each path varies in threads, 18 steps;
grouped by threads each path varies in the case, 3 steps (sedov, sod, noh in the
file's order).  Step 4 of the thread paths is 5 threads: CalcKinematics of case sedov
then takes 35.0588 s for 40 GFLOP, 40 / 35.0588 = 1.14094 GFLOP/s (the ring's y).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from traitlets import TraitError
from wild_samples import SOMA_216

from roofline_widget import RooflineWidget, View
from roofline_widget.errors import ViewError, ViewWarning
from roofline_widget.views import VIEW_FORMAT


@pytest.fixture
def sweep(sweep_file):
    return RooflineWidget(sweep_file)


def _ring(w) -> dict:
    """The ringed points of the roofline's sweep, by (group, region): (GFLOP/s)."""
    part = w.figure.layers["sweep"].part
    rows = part.ring.rows
    return {(g, r): y for g, r, y in zip(rows["sweep_group"], rows["region"].astype(str),
                                         np.asarray(w.figure.layers["sweep"].ring.y, float))}


def test_a_view_keeps_the_grouping_and_the_step_through_a_file(sweep, sweep_file, tmp_path):
    sweep.sweep_step = 4  # 5 threads
    view = sweep.to_view()
    assert (view.group_runs_by, view.sweep_step) == ("", 4)
    path = sweep.save_view(tmp_path / "sweep.json")
    written = json.loads(path.read_text(encoding="utf-8"))
    assert (written["group_runs_by"], written["sweep_step"]) == ("", 4)
    fresh = RooflineWidget(sweep_file)
    assert fresh.load_view(path) == []
    assert fresh.sweep_step == 4
    assert fresh.sweep_controls.slider.value == 4
    assert "threads = 5" in fresh.sweep_controls.step_html.value
    assert _ring(fresh)[("case=sedov", "CalcKinematics")] == pytest.approx(40 / 35.0588)

    sweep.group_runs_by = "threads"  # each path varies in the case: 3 steps
    sweep.sweep_step = 1  # sod
    path = sweep.save_view(tmp_path / "by_threads.json")
    assert View.load(path).group_runs_by == "threads"
    assert fresh.load_view(path) == []
    assert (fresh.group_runs_by, fresh.sweep_step) == ("threads", 1)
    assert fresh.sweep_controls.group_choice.value == "threads"
    assert fresh.sweep_controls.slider.max == 2
    assert len(fresh.figure.layers["sweep"].paths) == 18  # a line style per thread count
    assert set(fresh.figure.layers["sweep"].part.ring.rows["sweep_step"]) == {1}


def test_a_view_written_before_the_sweep_settings_loads_with_the_defaults(sweep, tmp_path):
    sweep.group_runs_by = "threads"
    sweep.sweep_step = 0
    old = tmp_path / "old.json"  # as version 1 wrote it before group_runs_by and sweep_step
    old.write_text(json.dumps({"format": VIEW_FORMAT, "version": 1, "color_by": "region",
                               "include": "", "peak_flops": None, "selected": []}),
                   encoding="utf-8")
    view = View.load(old)
    assert (view.group_runs_by, view.sweep_step) == ("", -1)
    assert sweep.load_view(old) == []
    assert sweep.group_runs_by == ""  # grouped by case again, the last of its 18 steps
    assert sweep.sweep_controls.slider.max == 17
    assert sweep.sweep_step == 17
    assert "threads = 18" in sweep.sweep_controls.step_html.value


def test_a_bad_sweep_setting_has_the_setting_s_one_message_everywhere(sweep):
    for field, value, message in (("sweep_step", -2, "sweep_step must be an integer from -1"),
                                  ("group_runs_by", "nodes", "group_runs_by must be one of")):
        with pytest.raises(ViewError, match=message):
            View(**{field: value})
        with pytest.raises(ViewError, match=message):
            View.from_dict({"format": VIEW_FORMAT, "version": 1, field: value})
        with pytest.raises(TraitError, match=message):
            setattr(sweep, field, value)


def test_what_the_sweep_cannot_take_is_left_out_and_named(sweep):
    sweep.sweep_step = 2
    with pytest.warns(ViewWarning, match="sweep_step 5: the sweep has steps 0 to 2"):
        problems = sweep.load_view(View(group_runs_by="threads", sweep_step=5, color_by="run"))
    assert len(problems) == 1
    assert sweep.color_by == "run"  # the rest applied
    assert (sweep.group_runs_by, sweep.sweep_step) == ("", 2)  # the sweep's kept
    with pytest.warns(ViewWarning, match="group_runs_by: group the runs by one of"):
        sweep.load_view(View(group_runs_by="size"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hosts = RooflineWidget(SOMA_216)  # one run: no sweep
    with pytest.warns(ViewWarning, match="this widget draws none"):
        hosts.load_view(View(group_runs_by="threads", sweep_step=3))
    assert (hosts.group_runs_by, hosts.sweep_step) == ("", -1)
