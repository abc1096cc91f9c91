"""Guidance: what limits each point and what to try, from the numbers LIKWID already printed.

:func:`guidance` judges every point against the roofs of its own level,
device and precision (:meth:`Roofline.classify
<roofline_widget.roofs.roofline.Roofline.classify>`), gathers the other numbers the
groups printed (:func:`~roofline_widget.analysis.guidance_facts.point_facts`:
uop rates, clocks, thread runtimes, other levels' traffic) and runs the
rules of :mod:`~roofline_widget.analysis.guidance_rules` on each: the bound
and the percent of its roof, the limiting factor in a few words, and advice
that cites its numbers.  :func:`advise` is the step from judged points and
facts to the guidance columns, for callers that have both (the widget, the
``guidance=`` option of :func:`~roofline_widget.points_dataframe`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.guidance_facts import point_facts
from roofline_widget.analysis.guidance_rules import RULES, Advice, PointView
from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selected_points import SelectedPoints
from roofline_widget.points.selection import Selection, selection_parameters
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.roofline import Roofline, roof_keys

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import SelectionKeywords

__all__ = ["ADDED_COLUMNS", "ADVICE_SEPARATOR", "GUIDANCE_COLUMNS", "KEY_COLUMNS", "NOTHING_FOUND", "advise",
           "guidance", "guidance_of", "judging_roofline", "selection_guidance"]

#: The keys of a guidance row: those of the points.
KEY_COLUMNS = ("file", "region", "rank", "run", "device", "rank_group")
#: The columns :func:`guidance` gives after the keys.
GUIDANCE_COLUMNS = ("bound", "roof", "roof_percent", "roof_empirical", "limiting_factor",
                    "advice", "guidance", "guidance_metrics")
#: The columns a points table gets with guidance (``points_dataframe(guidance=...)``,
#: ``RooflineWidget.to_dataframe()``): its judged columns say the bound already.
ADDED_COLUMNS = ("limiting_factor", "guidance", "guidance_metrics")
#: Joins the advice sentences into the ``guidance`` text (no sentence contains it).
ADVICE_SEPARATOR = "; "
#: The text of a point no rule found anything on.
NOTHING_FOUND = "no rule applies to the numbers measured"


def _roofs(judged: pd.DataFrame, roofline: Roofline) -> dict[str, np.ndarray]:
    """Per point: the roof bounding it (name, value, unit, empirical), its level and precision."""
    keys = roof_keys(judged)
    distinct, inverse = keys.groups
    # per distinct key and kind (0 compute, 1 bandwidth): the roof's name, value, empirical
    per_key = [[(r.name, r.value, r.empirical) if r is not None else ("", np.nan, False)
                for r in roofline.roofs_for(*key)] for key in distinct]
    table = np.array([[cell for pair in kinds for cell in pair] for kinds in per_key],
                     dtype=object).reshape(len(distinct), 6)
    bound = judged["bound"].astype(str).to_numpy()
    kind = np.where(bound == "memory", 1, np.where(bound == "compute", 0, -1))
    rows = table[inverse] if len(distinct) else np.zeros((len(judged), 6), dtype=object)
    judged_kind = kind >= 0
    pick = np.where(judged_kind, kind, 0) * 3
    n = np.arange(len(judged))
    return {
        "roof_name": np.where(judged_kind, rows[n, pick], ""),
        "roof_value": np.where(judged_kind, rows[n, pick + 1], np.nan).astype(float),
        "roof_unit": np.where(kind == 1, "GB/s", np.where(kind == 0, "GFLOP/s", "")),
        "roof_empirical": np.where(judged_kind, rows[n, pick + 2], False).astype(bool),
        "level": np.array(["" if v is None else v for v in keys.level], dtype=object),
        "precision": np.array(["" if v is None else v for v in keys.precision], dtype=object)}


def _views(judged: pd.DataFrame, facts: pd.DataFrame, roofline: Roofline | None) -> list[PointView]:
    """One :class:`PointView` per row of the judged points and their facts."""
    n = len(judged)
    columns: dict[str, object] = {name: facts[name].to_numpy() for name in PointView._fields
                                  if name in facts}
    columns.update(_roofs(judged, roofline) if roofline is not None else {
        "roof_name": [""] * n, "roof_value": [np.nan] * n, "roof_unit": [""] * n,
        "roof_empirical": [True] * n, "level": [""] * n, "precision": [""] * n})
    columns.update({
        "performance_gflops": judged[schema.PERFORMANCE].to_numpy(dtype=float),
        "bandwidth_gbs": judged[schema.BANDWIDTH].to_numpy(dtype=float),
        "n_threads": pd.to_numeric(judged.get("n_threads", pd.Series(np.nan, index=judged.index)),
                                   errors="coerce").to_numpy(dtype=float),
        "bound": judged["bound"].astype(str).to_numpy(),
        "roof_percent": judged["efficiency_percent"].to_numpy(dtype=float),
        "beyond_hardware": beyond_hardware(judged)})
    # Python values (the rules format them), converted once per column
    fields = [np.asarray(columns[name]).tolist() for name in PointView._fields]
    return [PointView(*row) for row in zip(*fields)]


def _advices(view: PointView) -> list[Advice]:
    found = []
    for rule in RULES:
        advice = rule.check(view)
        if advice is not None:
            found.append(advice)
            if advice.rule == "broken counter":  # its numbers are no measurement: nothing else
                break
    return found


def advise(judged: pd.DataFrame, facts: pd.DataFrame, roofline: Roofline | None) -> pd.DataFrame:
    """The guidance columns of judged points and their facts, one row per point.

    Parameters
    ----------
    judged : pandas.DataFrame
        Points with the judged columns of :meth:`Roofline.classify` (``bound``,
        ``efficiency_percent``, ...).
    facts : pandas.DataFrame
        :func:`~roofline_widget.analysis.guidance_facts.point_facts` of the same
        points, row by row.
    roofline : Roofline or None
        The roofs the points were judged against (None: not judged).

    Returns
    -------
    pandas.DataFrame
        :data:`GUIDANCE_COLUMNS`, index of ``judged``.
    """
    views = _views(judged, facts, roofline)
    n = len(views)
    columns = {name: np.empty(n, dtype=object) for name in ("limiting_factor", "advice",
                                                             "guidance", "guidance_metrics")}
    for i, view in enumerate(views):
        advices = sorted(_advices(view), key=_rank)
        texts = tuple(a.text for a in advices)
        columns["limiting_factor"][i] = next((a.factor for a in advices if a.factor), "")
        columns["advice"][i] = texts
        columns["guidance"][i] = ADVICE_SEPARATOR.join(texts) if texts else NOTHING_FOUND
        columns["guidance_metrics"][i] = tuple(m for a in advices for m in a.used)
    out = pd.DataFrame({"bound": judged["bound"].astype(str).to_numpy(dtype=object),
                        "roof": np.array([v.roof_name for v in views], dtype=object),
                        "roof_percent": judged["efficiency_percent"].to_numpy(dtype=float),
                        "roof_empirical": np.array([v.roof_empirical for v in views], dtype=bool),
                        **columns}, index=judged.index)
    return out[list(GUIDANCE_COLUMNS)]


def _rank(advice: Advice) -> int:
    return advice.rank


def judging_roofline(ceilings: Roofline | Sequence | None, points: pd.DataFrame) -> Roofline | None:
    """The roofs that judge ``points``: ``ceilings`` as given (a Roofline), built from roofs
    (empirical where they lack a kind), or empirical (None); None without points."""
    if isinstance(ceilings, Roofline):
        return ceilings
    return Roofline.from_ceilings(ceilings, points=points) if len(points) else None


def selection_guidance(sums: RegionSums, selected: SelectedPoints,
                       ceilings: Roofline | Sequence | None = None) -> pd.DataFrame:
    """The guidance of a selection's points (:attr:`SelectedPoints.points`, row by row).

    ``ceilings`` judge them (:func:`judging_roofline`; None: empirical roofs).
    """
    points = selected.points
    roofline = judging_roofline(ceilings, points)
    judged = roofline.classify(points) if roofline is not None else points.assign(
        bound="n/a", efficiency_percent=np.nan)
    return advise(judged, point_facts(sums, selected), roofline)


def guidance_of(points: pd.DataFrame, sums: RegionSums, selected: SelectedPoints,
                ceilings: Roofline | Sequence | None = None,
                columns: Sequence[str] = ADDED_COLUMNS) -> pd.DataFrame:
    """``points`` (the selection's, or a table of them with more columns) with guidance ``columns``."""
    found = selection_guidance(sums, selected, ceilings)
    out = points.copy()
    for name in columns:
        out[name] = found[name].to_numpy()
    return out


@selection_parameters("selection", "flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "unmeasured")
def guidance(data: object, ceilings: Roofline | Sequence | None = None, *,
             selection: Selection | None = None,
             **keywords: Unpack[SelectionKeywords]) -> pd.DataFrame:
    """What limits each point and what to try, from the numbers LIKWID printed.

    Parameters
    ----------
    data
        Anything :func:`~roofline_widget.points_dataframe` accepts.
    ceilings : Roofline or sequence of ComputeRoof / BandwidthRoof, optional
        The machine's roofs (``machine_roofline(...)``, a user's peaks): each
        point is judged against the roofs of its level, device and precision.
        Without them the roofs are empirical (the largest observation) and no
        advice rests on them.
    {selection_parameters}

    Returns
    -------
    pandas.DataFrame
        One row per point of :func:`~roofline_widget.points_dataframe`, its keys
        ``file, region, rank, run, device, rank_group``, then ``bound``
        (``"memory"``, ``"compute"``, ``"no MEM roof"``, ...), ``roof`` (the
        roof bounding it), ``roof_percent``, ``roof_empirical``,
        ``limiting_factor`` (a few words, ``""`` when no rule names one),
        ``advice`` (a tuple of sentences citing their numbers, most limiting
        first), ``guidance`` (the sentences joined) and ``guidance_metrics``
        (the numbers used: tuples of name, value, unit).  A point beyond any
        hardware gets only "counter broken: no advice".

    Warns
    -----
    RegionsLeftOutWarning, MetricChoiceWarning, SelectionWarning
        As :func:`~roofline_widget.points_dataframe`.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> rows = guidance(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact8t_1537x2048_give.txt"))
    >>> rows.loc[0, "limiting_factor"]
    'scalar code'
    """
    sums = RegionSums.from_runs(data)
    selected = sums.select(Selection.of(selection, **keywords))
    selected.warn()
    points = selected.points
    found = selection_guidance(sums, selected, judging_roofline(ceilings, points))
    keys = points[[c for c in KEY_COLUMNS if c in points]].reset_index(drop=True)
    return pd.concat([keys, found.reset_index(drop=True)], axis=1)
