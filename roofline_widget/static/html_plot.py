"""``plot_roofline(..., filepath="x.html")``: the widget of the plot's arguments, written as a page."""

from __future__ import annotations

from roofline_widget.points import Selection
from roofline_widget.widget import RooflineWidget

__all__ = ["plot_widget"]


def plot_widget(profiling_data, selection: Selection, *, ceilings=None, peak_flops=None,
                peak_bandwidth=None, levels=None, baseline=None, match=None,
                chain: bool = True) -> RooflineWidget:
    """The :class:`~roofline_widget.RooflineWidget` of ``plot_roofline``'s arguments.

    The selection's patterns become one regular expression each (matching
    where any of them does); its grouping of ranks ``group_ranks``, or
    ``combine_ranks`` for ``"all"``; ``ceilings`` (a Roofline or roofs) the
    widget's extra ceilings.
    """
    roofs = ([] if ceilings is None else [*ceilings.compute, *ceilings.bandwidth]
             if hasattr(ceilings, "compute") else list(ceilings))
    options = {
        "flops_metric": selection.flops_metric, "bandwidth_metric": selection.bandwidth_metric,
        "ranks": (selection.ranks if selection.ranks is None or isinstance(selection.ranks, str)
                  else list(selection.ranks)),
        "include": one_pattern(selection.include), "exclude": one_pattern(selection.exclude),
        "combine_ranks": selection.group_ranks == "all",
        "peak_flops": peak_flops, "peak_bandwidth": peak_bandwidth,
        "levels": [levels] if isinstance(levels, str) else list(levels or []),
    }
    if selection.group_ranks != "all":
        options["group_ranks"] = selection.group_ranks
    if baseline is not None:
        options["baseline"] = baseline
    return RooflineWidget(profiling_data, ceilings=roofs, match=match, chain=chain, **options)


def one_pattern(patterns) -> str:
    """Compiled patterns as one expression matching where any of them does ("" for None).

    Examples
    --------
    >>> import re
    >>> one_pattern([re.compile("solve"), re.compile("setup")])
    '(?:solve)|(?:setup)'
    >>> one_pattern(None)
    ''
    """
    if not patterns:
        return ""
    if len(patterns) == 1:
        return patterns[0].pattern
    return "|".join(f"(?:{pattern.pattern})" for pattern in patterns)
