"""The widget's public state: its traits and the checks each value passes.

:class:`RooflineTraits` declares the traits of
:class:`~roofline_widget.widget.roofline_widget.RooflineWidget` (documented
there) with their validators, which call :mod:`~roofline_widget.widget.trait_checks`;
the widget itself says where a change goes.
"""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
from traitlets import Any, Bool, CFloat, Enum, Int, List, Unicode, validate

from roofline_widget.points import RegionSums
from roofline_widget.points.rank_groups import GROUP_RANKS_CHOICES
from roofline_widget.scene.spread import RANK_VIEWS
from roofline_widget.widget import trait_checks as checks

__all__ = ["DEFAULT_MAX_POINTS", "SELECTION_TRAITS", "OptionalUnicode", "RooflineTraits"]

#: The point budget: WebGL draws this many in about a second (docs/performance.md); without
#: WebGL, and while memory levels or a baseline are shown, ``SVG_MAX_POINTS`` applies.
DEFAULT_MAX_POINTS = 50_000
#: The traits whose change selects the points again.
SELECTION_TRAITS = ("flops_metric", "bandwidth_metric", "ranks", "group_ranks", "combine_ranks",
                    "include", "exclude", "max_points", "rank_view", "expanded_regions")


class OptionalUnicode(Unicode):
    """Unicode that passes None on to the widget's ``@validate`` (which maps it).

    traitlets skips cross-validation for None when ``allow_none`` is set, so
    None is let through here instead.
    """

    def validate(self, obj, value):
        return None if value is None else super().validate(obj, value)


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
    flops_metric = OptionalUnicode(None, help="FLOP-rate metric name")
    bandwidth_metric = OptionalUnicode(None, help="bandwidth metric name")
    ranks = Any(None, allow_none=True, help="ranks to show, None for all")
    group_ranks = Enum(GROUP_RANKS_CHOICES, "auto", help="which ranks a point sums")
    combine_ranks = Bool(False, help="one point per region: the ranks summed")
    include = OptionalUnicode("", help="regex of regions to show")
    exclude = OptionalUnicode("", help="regex of regions to hide")
    peak_flops = CFloat(None, allow_none=True, help="GFLOP/s, None: empirical")
    peak_bandwidth = CFloat(None, allow_none=True, help="GB/s, None: empirical")
    color_by = Enum(("region", "run", "rank"), "region")
    size_by = Enum(("none", "runtime"), "none")
    max_points = Int(DEFAULT_MAX_POINTS, help="most points drawn")
    selected: List[tuple] = List(help="selected points as (file, rank, region) tuples")
    message = Unicode("", read_only=True, help="error or remark shown with the plot")
    rank_view = Enum(RANK_VIEWS, "auto", help="points: one per rank; spread: per region")
    expanded_regions: List[str] = List(help="regions whose ranks the spread view shows as points")
    baseline = Any(None, allow_none=True, help="baseline run(s) the points are compared with")
    levels = List(Unicode(), help="memory levels drawn as a hierarchical roofline, [] for none")

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
        sums = self.sums
        if proposal.trait.name == "flops_metric":
            return checks.checked_metric(proposal.value, sums.flop_metrics,
                                         sums.detect_flops_metric, "FLOP-rate")
        return checks.checked_metric(proposal.value, sums.bandwidth_metrics,
                                     sums.detect_bandwidth_metric, "bandwidth")

    @validate("ranks")
    def _validate_ranks(self, proposal):
        return checks.checked_ranks(proposal.value, self.sums.ranks)

    @validate("include", "exclude")
    def _validate_pattern(self, proposal):
        return proposal.value or ""

    @validate("peak_flops", "peak_bandwidth")
    def _validate_peak(self, proposal):
        return checks.checked_peak(proposal.trait.name, proposal.value)

    @validate("max_points")
    def _validate_max_points(self, proposal):
        return checks.checked_max_points(proposal.value)

    @validate("selected")
    def _validate_selected(self, proposal):
        return checks.checked_selected(proposal.value, self.drawn_keys)

    @validate("levels")
    def _validate_levels(self, proposal):
        return checks.checked_levels(proposal.value, self.available_levels)

    @validate("expanded_regions")
    def _validate_expanded_regions(self, proposal):
        return checks.checked_regions(proposal.value, self.sums.regions)
