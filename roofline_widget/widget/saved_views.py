"""Saved views of a :class:`~roofline_widget.RooflineWidget`: its choices to a View and back.

:func:`widget_view` reads the widget's choices into a
:class:`~roofline_widget.views.View` (never data); :func:`apply_view`
restores one all at once: what the data lacks (metrics, ranks, regions of the
selection, memory levels, another baseline, a sweep's grouping or step) is left out and named in one
:class:`~roofline_widget.ViewWarning`, the rest applied in one refresh, and
every trait put back if applying fails.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from roofline_widget.analysis.levels import detect_levels
from roofline_widget.errors import SelectionError, ViewWarning
from roofline_widget.points.rank_places import resolve_ranks
from roofline_widget.scene.sweep import SweepRuns
from roofline_widget.views import View
from roofline_widget.widget.point_keys import surviving_keys

if TYPE_CHECKING:
    from roofline_widget.widget.pipeline import RefreshPipeline
    from roofline_widget.widget.roofline_widget import RooflineWidget
    from roofline_widget.widget.state import UpdateGuard

__all__ = ["apply_view", "view_problems", "widget_view"]


def _baseline_labels(widget: RooflineWidget) -> list[str] | None:
    """The baseline runs as a view names them: the chain's labels, or one run's files."""
    runs = widget.baseline_runs
    if not runs:
        return None
    return [label if len(runs) > 1 else " + ".join(sums.files) for label, sums in runs]


def widget_view(widget: RooflineWidget, extra_ceilings=()) -> View:
    """The widget's choices as a :class:`~roofline_widget.views.View`.

    ``extra_ceilings`` are the widget's extra ceilings (``RooflineWidget(ceilings=)``).
    """
    return View(flops_metric=widget.flops_metric, bandwidth_metric=widget.bandwidth_metric,
                ranks=widget.ranks, group_ranks=widget.group_ranks,
                combine_ranks=widget.combine_ranks, include=widget.include,
                exclude=widget.exclude, peak_flops=widget.peak_flops,
                peak_bandwidth=widget.peak_bandwidth, ceilings=list(extra_ceilings),
                color_by=widget.color_by, size_by=widget.size_by, max_points=widget.max_points,
                selected=list(widget.selected), baseline=_baseline_labels(widget),
                levels=_shown_level_metrics(widget), sweep_step=widget.sweep_step,
                group_runs_by=widget.group_runs_by)


def _shown_level_metrics(widget: RooflineWidget) -> dict[str, str] | None:
    """Level -> bandwidth metric of the levels shown, None when none are."""
    if not widget.levels:
        return None
    chosen, _notes = detect_levels(widget.sums.bandwidth_metrics)
    return {level: chosen[level] for level in widget.levels}


def _sweep_problem(widget: RooflineWidget, view: View) -> str | None:
    """Why this widget's sweep cannot take the view's ``group_runs_by`` and ``sweep_step``
    (None: it can; the defaults, the last step grouped as ``scaling_table`` groups, always fit)."""
    if not view.group_runs_by and view.sweep_step == -1:
        return None
    chain = widget.file_chain if widget.chain_shown else None
    if chain is None:
        return (f"the view shows a sweep (group_runs_by {view.group_runs_by!r}, sweep_step "
                f"{view.sweep_step}); this widget draws none")
    try:
        steps = len(SweepRuns.of(chain.runs, chain.labels, view.group_runs_by or None).key())
    except ValueError as exc:  # a key the runs do not differ in
        return f"group_runs_by: {exc}"
    if view.sweep_step >= steps:
        return f"sweep_step {view.sweep_step}: the sweep has steps 0 to {steps - 1}"
    return None


def view_problems(widget: RooflineWidget, view: View, source: str = "View") -> list[str]:
    """What of ``view`` this widget's data cannot show, one sentence each.

    ``source`` (where the view came from) is named by a ``ViewError`` for a
    pattern that takes too long on the region names.
    """
    problems = view.check_against(widget.sums, source)
    mine = _baseline_labels(widget)
    if view.baseline is not None and view.baseline != mine:
        if mine is None:
            problems.append(f"the view compared with the baseline {view.baseline}; this widget "
                            "has no baseline (pass baseline=)")
        else:
            problems.append(f"the view compared with the baseline {view.baseline}; this widget "
                            f"compares with {mine}")
    available = widget.available_levels
    missing = [level for level in view.levels or {} if level not in available]
    if missing:
        problems.append(f"memory level(s) {missing} are not measured in the data "
                        f"(levels: {available or 'none'})")
    sweep = _sweep_problem(widget, view)
    return problems if sweep is None else [*problems, sweep]


def _applicable(widget: RooflineWidget, view: View) -> dict:
    """The view's trait values without the metrics and ranks the data lacks."""
    sums = widget.sums
    values = view.trait_values()
    if values["flops_metric"] not in (None, *sums.flop_metrics):
        del values["flops_metric"]
    if values["bandwidth_metric"] not in (None, *sums.bandwidth_metrics):
        del values["bandwidth_metric"]
    try:  # a text ("f0702 socket 1") as the ranks it names in this data
        chosen = resolve_ranks(sums, values["ranks"])
    except SelectionError:
        chosen = None
        del values["ranks"]
    if chosen:
        present = set(sums.ranks)
        known = [r for r in chosen if r in present]
        if known:
            values["ranks"] = known
        else:  # none of the view's ranks: keep the widget's
            del values["ranks"]
    values["levels"] = [level for level in view.levels or {} if level in widget.available_levels]
    if _sweep_problem(widget, view) is not None:  # the widget's grouping and step kept
        del values["group_runs_by"], values["sweep_step"]
    return values


def apply_view(widget: RooflineWidget, view: View | str, *, pipeline: RefreshPipeline,
               guard: UpdateGuard) -> list[str]:
    """Restore a saved view (a path or a View) on ``widget``, all at once.

    Parameters
    ----------
    widget : RooflineWidget
    view : View or path
    pipeline : RefreshPipeline
        The widget's refresh pipeline (its extra ceilings are the view's).
    guard : UpdateGuard
        The widget's guard: the traits change without a refresh each.

    Returns
    -------
    list of str
        The problems found (empty when the view fits the data); when there
        are any, one ``ViewWarning`` names them all.

    Raises
    ------
    ViewError
        For a file that is not a valid view, or an include/exclude pattern
        that takes too long on the region names (nothing is changed).
    """
    source = "View" if isinstance(view, View) else str(view)
    view = view if isinstance(view, View) else View.load(view)
    problems = view_problems(widget, view, source)
    values = _applicable(widget, view)
    selected = values.pop("selected")
    old = {name: getattr(widget, name) for name in values}
    old_extra = pipeline.extra
    try:
        with guard.hold(), widget.hold_trait_notifications():
            for name, value in values.items():
                setattr(widget, name, value)
        pipeline.set_extra(view.ceilings)
        pipeline.refresh_points()
    except Exception:
        with guard.hold(), widget.hold_trait_notifications():
            for name, value in old.items():
                widget.set_trait(name, value)
        pipeline.set_extra(old_extra)
        pipeline.refresh_points()
        raise
    widget.selected = surviving_keys(selected, pipeline.current.keys)
    if problems:
        warnings.warn(f"{source}: view applied in part, left out: " + "; ".join(problems),
                      ViewWarning, stacklevel=3)
    return problems
