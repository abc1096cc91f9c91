"""The widget's public state: its traits, each a setting of :mod:`roofline_widget.settings`.

:class:`RooflineTraits` declares the traits of
:class:`~roofline_widget.widget.roofline_widget.RooflineWidget` (documented
there).  A :class:`SettingTrait` checks a value with its setting's rule (the
same sentence as a view, ``plot_roofline`` and the command line); the
``@validate`` methods add the rules that need the data (a metric, rank,
level or region of it).  A refused value raises ``TraitError`` and the trait
keeps its value.
"""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
from traitlets import Any, List, TraitError, TraitType, Unicode, validate

from roofline_widget.errors import SelectionError, SettingError
from roofline_widget.points import RegionSums
from roofline_widget.points.rank_places import resolve_ranks
from roofline_widget.settings import DEFAULT_MAX_POINTS, SETTINGS, Setting
from roofline_widget.settings.rules import levels_in_data, metric_in_data, ranks_in_data
from roofline_widget.widget.point_keys import normalize_key

__all__ = ["DEFAULT_MAX_POINTS", "SELECTION_TRAITS", "SWEEP_TRAITS", "RooflineTraits", "SettingTrait"]

#: The traits whose change selects the points again.
SELECTION_TRAITS = ("flops_metric", "bandwidth_metric", "ranks", "group_ranks", "combine_ranks",
                    "include", "exclude", "max_points", "rank_view", "expanded_regions")
#: The traits of a chain of runs drawn as a sweep (``scene.sweep``).
SWEEP_TRAITS = ("sweep_step", "group_runs_by")


class SettingTrait(TraitType):
    """A trait whose values are those of a :class:`~roofline_widget.settings.Setting`.

    Its default, help and check are the setting's; a value the setting's rule
    refuses raises ``TraitError`` with the rule's sentence.
    """

    def __init__(self, setting: Setting, **kwargs) -> None:
        self.setting = setting
        super().__init__(default_value=setting.default, help=setting.help, **kwargs)

    def validate(self, obj, value):
        try:
            return self.setting.check(value)
        except (SettingError, TypeError) as exc:
            raise TraitError(str(exc)) from None


def _trait(name: str) -> SettingTrait:
    return SettingTrait(SETTINGS[name])


def _known(problem: str | None, value):
    if problem is not None:
        raise TraitError(problem)
    return value


class RooflineTraits(widgets.VBox):
    """The traits of a roofline widget and their checks.

    A subclass sets ``sums`` before the traits get values, and gives
    :attr:`available_levels` and :attr:`drawn_keys`.

    Attributes
    ----------
    sums : RegionSums
        The per-region sums the points are selected from.
    """

    sums: RegionSums

    # No browser model reads these (the front end is a plain VBox): kernel-side only.
    flops_metric = _trait("flops_metric")
    bandwidth_metric = _trait("bandwidth_metric")
    ranks = _trait("ranks")
    group_ranks = _trait("group_ranks")
    combine_ranks = _trait("combine_ranks")
    include = _trait("include")
    exclude = _trait("exclude")
    peak_flops = _trait("peak_flops")
    peak_bandwidth = _trait("peak_bandwidth")
    color_by = _trait("color_by")
    size_by = _trait("size_by")
    max_points = _trait("max_points")
    rank_view = _trait("rank_view")
    levels = _trait("levels")
    selected: List[tuple] = List(help="selected points as (file, rank, region) tuples")
    message = Unicode("", read_only=True, help="error or remark shown with the plot")
    expanded_regions: List[str] = List(help="regions whose ranks the spread view shows as points")
    baseline = Any(None, allow_none=True, help="baseline run(s) the points are compared with")
    sweep_step = _trait("sweep_step")
    group_runs_by = _trait("group_runs_by")
    highlight_region = Unicode("", help="the region lit up in the roofline and the scaling panel")

    @property
    def available_levels(self) -> list[str]:
        """The memory levels the data can draw (``levels`` takes these)."""
        raise NotImplementedError

    @property
    def drawn_keys(self) -> pd.MultiIndex | None:
        """The keys of the points selected for drawing (None before the first selection)."""
        raise NotImplementedError

    @validate("flops_metric", "bandwidth_metric")
    def _validate_metric(self, proposal):
        sums, name, value = self.sums, proposal.trait.name, proposal.value
        flops = name == "flops_metric"
        if value is None:
            return sums.detect_flops_metric() if flops else sums.detect_bandwidth_metric()
        of_kind = sums.flop_metrics if flops else sums.bandwidth_metrics
        return _known(metric_in_data(name, value, of_kind, sums.metrics,
                                     "a FLOP rate" if flops else "a byte rate"), value)

    @validate("ranks")
    def _validate_ranks(self, proposal):
        try:  # a text ("0-71,144", "f0702 socket 1") as the data's ranks it names
            value = resolve_ranks(self.sums, proposal.value)
        except SelectionError as exc:
            raise TraitError(str(exc)) from None
        return _known(ranks_in_data(value, self.sums.ranks), value)

    @validate("levels")
    def _validate_levels(self, proposal):
        return _known(levels_in_data(proposal.value, self.available_levels), proposal.value)

    @validate("selected")
    def _validate_selected(self, proposal):
        keys = list(dict.fromkeys(normalize_key(k) for k in proposal.value))
        points = self.drawn_keys if keys else None
        if points is not None:
            known = pd.MultiIndex.from_tuples(keys).isin(points)
            if not known.all():
                unknown = [k for k, ok in zip(keys, known) if not ok]
                raise TraitError(f"{len(unknown)} selected key(s) are not among the current "
                                 f"points, e.g. {unknown[0]!r}; keys are (file, rank, region)")
        return keys

    @validate("expanded_regions")
    def _validate_expanded_regions(self, proposal):
        chosen = list(dict.fromkeys(str(r) for r in proposal.value))
        unknown = [r for r in chosen if r not in set(self.sums.regions)]
        if unknown:
            raise TraitError(f"unknown region(s) {unknown}; valid: {list(self.sums.regions)}")
        return chosen
