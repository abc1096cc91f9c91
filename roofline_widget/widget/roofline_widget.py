"""``RooflineWidget``: traits, their validators and the one refresh pipeline."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import ipywidgets as widgets
import numpy as np
import pandas as pd
from traitlets import Any, Bool, CFloat, Enum, Int, List, TraitError, Unicode, observe, validate

from roofline_widget.analysis.levels import detect_levels
from roofline_widget.ceilings import Roofline
from roofline_widget.errors import ViewWarning
from roofline_widget.points import RegionSums, normalize_ranks

# -- baseline comparison and saved views (issue 13)
from roofline_widget.views import View
from roofline_widget.widget import html as text
from roofline_widget.widget import state as st
from roofline_widget.widget.controls import PEAK_TRAITS, RooflineControls
from roofline_widget.widget.figure import FigureState, RooflineFigure
from roofline_widget.widget.layers.base import LayerInput
from roofline_widget.widget.layers.compare import CompareLayer, baseline_runs
from roofline_widget.widget.layers.levels import LevelsLayer, available_levels
from roofline_widget.widget.layers.ranks import RANK_VIEWS, RanksLayer

__all__ = ["DEFAULT_MAX_POINTS", "RooflineWidget"]

DEFAULT_MAX_POINTS = 2000
_SELECTION_TRAITS = ("flops_metric", "bandwidth_metric", "ranks", "combine_ranks", "include",
                     "exclude", "max_points")


class OptionalUnicode(Unicode):
    """Unicode that passes None on to the widget's ``@validate`` (which maps it).

    traitlets skips cross-validation for None when ``allow_none`` is set, so
    None is let through here instead.
    """

    def validate(self, obj, value):
        return None if value is None else super().validate(obj, value)


class RooflineWidget(widgets.VBox):
    """Interactive roofline of LIKWID measurements, updated in place.

    Parameters
    ----------
    data : LikwidRun, path, ProfilingResults, RegionSums, or a sequence of them
        Anything :func:`~roofline_widget.collect_roofline_points` accepts.
        The per-region sums are computed once, here.
    ceilings : sequence of ComputeRoof / BandwidthRoof, optional
        Extra roofs (e.g. from likwid-bench) drawn together with the peaks;
        the attainable performance uses the highest compute and bandwidth roof.
    match : dict or callable, optional
        Region renames for the baseline comparison (``compare_points(match=)``).
    view : path or View, optional
        A saved view restored after construction (:meth:`load_view`).
    **options
        Initial values of the traits below and ipywidgets Box options (``layout``).

    Attributes
    ----------
    flops_metric, bandwidth_metric : str or None
        Exact LIKWID metric names (None: detected).  An unknown name raises
        ``TraitError`` naming the valid ones.
    ranks : list of int or None
        Ranks to show (None: all).  Unknown ranks raise ``TraitError``.
    combine_ranks : bool
        Sum the shown ranks into one point per region and run; such points
        have rank -1, shown as "all ranks".
    include, exclude : str
        Regular expressions matched at the start of region names (``""``: no
        filter).  An invalid pattern is shown as a message, no points drawn.
    peak_flops, peak_bandwidth : float or None
        Ceilings in GFLOP/s and GB/s; None: the largest observation (an
        *empirical* ceiling).  Non-positive values raise ``TraitError``.
    color_by : {"region", "run", "rank"}
    size_by : {"none", "runtime"}
    max_points : int
        Most points drawn (SVG; default ``DEFAULT_MAX_POINTS`` = 2,000, chosen from
        the browser figures in docs/performance.md); above it the
        longest-running are drawn.
    levels : list of str
        Memory levels drawn as a hierarchical roofline (``["L2", "MEM"]``; ``[]``:
        none); one of ``available_levels`` each, else ``TraitError``.
    selected : list of (file, rank, region) tuples
        The selected points, by key (set by click, brush and lasso too).
    message : str
        The error or remark shown above the figure (read-only).
    rank_view : {"points", "spread", "auto"}
        "points": one point per rank; "spread": per region the rank median
        with min–max whiskers over the ranks, coloured by imbalance (the rank
        points hidden); "auto": "spread" while more points than
        ``max_points`` are selected from several ranks (the default).
    expanded_regions : list of str
        Regions whose ranks the spread view draws as points (a click on a
        median point toggles its region, see :meth:`toggle_region`).
    baseline : run data, mapping or None
        A run to compare with (anything ``data`` accepts), or an ordered
        ``{label: run}`` chain ending at ``data``: a dashed line from each
        baseline point (hollow) to the current point, the median speed-up
        in the status line (:meth:`comparison_dataframe`).
    figure : RooflineFigure
        The bqplot figure, its scales, marks and tooltip (``figure.plot``,
        ``figure.scatter``, ``figure.ceilings``, ``figure.state``, ...).
    controls : RooflineControls
        The child widgets (``controls.flops_slider``, ``controls.status_html``, ...).
    sums : RegionSums
        The per-region sums the points are selected from.

    Examples
    --------
    >>> from roofline_widget import RooflineWidget, read_likwid, sample_path
    >>> w = RooflineWidget(read_likwid(sample_path(
    ...     "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")))
    >>> len(w.to_dataframe())
    2
    """

    # No browser model reads these (the front end is a plain VBox): kernel-side only.
    flops_metric = OptionalUnicode(None, help="FLOP-rate metric name")
    bandwidth_metric = OptionalUnicode(None, help="bandwidth metric name")
    ranks = Any(None, allow_none=True, help="ranks to show, None for all")
    combine_ranks = Bool(False, help="one point per region: the ranks summed")
    include = OptionalUnicode("", help="regex of regions to show")
    exclude = OptionalUnicode("", help="regex of regions to hide")
    peak_flops = CFloat(None, allow_none=True, help="GFLOP/s, None: empirical")
    peak_bandwidth = CFloat(None, allow_none=True, help="GB/s, None: empirical")
    color_by = Enum(("region", "run", "rank"), "region")
    size_by = Enum(("none", "runtime"), "none")
    max_points = Int(DEFAULT_MAX_POINTS, help="most points drawn")
    selected = List(help="selected points as (file, rank, region) tuples")
    message = Unicode("", read_only=True, help="error or remark shown with the plot")
    # ranks view (RanksLayer): one point per region with whiskers over its ranks
    rank_view = Enum(RANK_VIEWS, "auto", help="points: one per rank; spread: per region")
    expanded_regions = List(help="regions whose ranks the spread view shows as points")
    baseline = Any(None, allow_none=True, help="baseline run(s) the points are compared with")

    def __init__(self, data, *, ceilings=(), match=None, view=None, **options) -> None:
        self._guard = st.UpdateGuard()
        self._points: st.PointState | None = None
        self._main: Roofline | None = None
        self._roofline: Roofline | None = None
        self.sums = RegionSums.from_runs(data)
        self._extra = st.check_ceilings(ceilings)
        self._size_range = st.runtime_log_range(self.sums)
        self.figure = RooflineFigure(self._guard)
        self.controls = RooflineControls(self.sums, self.figure, self._guard)
        self._ranks_layer = RanksLayer(self.figure, on_click=self.toggle_region)
        self.figure.add_layer("ranks", self._ranks_layer)
        with self._guard.hold():  # no refresh while the traits get their first values
            super().__init__(children=self.controls.children, **options)
            for name in ("flops_metric", "bandwidth_metric", "include", "exclude"):
                if getattr(self, name) is None:
                    setattr(self, name, None)  # the validator maps None (detect / no pattern)
            self.controls.link(self)
            self.controls.add_level_toggles(self, self.available_levels)
        self.add_class("roofline-widget")
        self.figure.on_select(self._select_indices)
        self._match = match
        self._start_baseline()
        self._levels_layer()
        self._refresh_points()
        self.controls.fit_sliders(self._main, self._points.points)
        if view is not None:
            self.load_view(view)

    # ------------------------------------------------------------ validation
    @staticmethod
    def _valid_metric(value, names, detect, role):
        if value is None:
            return detect()
        if value not in names:
            valid = ", ".join(repr(n) for n in names) or f"none: the data has no {role} metric"
            raise TraitError(f"unknown {role} metric {value!r}; valid: {valid}")
        return value

    @validate("flops_metric")
    def _validate_flops_metric(self, proposal):
        return self._valid_metric(proposal.value, self.sums.flop_metrics,
                                  self.sums.detect_flops_metric, "FLOP-rate")

    @validate("bandwidth_metric")
    def _validate_bandwidth_metric(self, proposal):
        return self._valid_metric(proposal.value, self.sums.bandwidth_metrics,
                                  self.sums.detect_bandwidth_metric, "bandwidth")

    @validate("ranks")
    def _validate_ranks(self, proposal):
        try:
            ranks = normalize_ranks(proposal.value)
        except ValueError as exc:
            raise TraitError(str(exc)) from None
        unknown = sorted(set(ranks or ()) - set(self.sums.ranks))
        if unknown:
            raise TraitError(f"unknown rank(s) {unknown}; valid ranks: {self.sums.ranks}")
        return ranks

    @validate("include", "exclude")
    def _validate_pattern(self, proposal):
        return proposal.value or ""

    @validate("peak_flops", "peak_bandwidth")
    def _validate_peak(self, proposal):
        value = proposal.value
        if value is not None and not (math.isfinite(value) and value > 0):
            unit = "GFLOP/s" if proposal.trait.name == "peak_flops" else "GB/s"
            raise TraitError(f"{proposal.trait.name} must be a positive finite number of "
                             f"{unit} or None (empirical), got {value!r}")
        return value

    @validate("max_points")
    def _validate_max_points(self, proposal):
        if proposal.value < 1:
            raise TraitError(f"max_points must be at least 1, got {proposal.value}")
        return proposal.value

    @validate("selected")
    def _validate_selected(self, proposal):
        keys = list(dict.fromkeys(st.normalize_key(k) for k in proposal.value))
        if keys and self._points is not None:
            known = pd.MultiIndex.from_tuples(keys).isin(st.key_index(self._points.points))
            if not known.all():
                unknown = [k for k, ok in zip(keys, known) if not ok]
                raise TraitError(f"{len(unknown)} selected key(s) are not among the current "
                                 f"points, e.g. {unknown[0]!r}; keys are (file, rank, region)")
        return keys

    # ------------------------------------------------------------ memory levels (issue 12)
    levels = List(Unicode(), help="memory levels drawn as a hierarchical roofline, [] for none")

    @property
    def available_levels(self) -> list[str]:
        """The memory levels measured in the data (``levels`` takes these), inner to outer."""
        return available_levels(self.sums.bandwidth_metrics)

    @validate("levels")
    def _validate_levels(self, proposal):
        levels = list(dict.fromkeys(proposal.value or ()))
        available = self.available_levels
        unknown = [level for level in levels if level not in available]
        if unknown:
            raise TraitError(f"unknown memory level(s) {unknown}; levels measured in the data: "
                             f"{available or 'none'}")
        return [level for level in available if level in levels]

    def _levels_layer(self) -> LevelsLayer | None:
        """The levels layer, registered with the figure when levels are first shown."""
        layer = self.figure.layers.get("levels")
        if layer is None and self.levels:
            layer = LevelsLayer(self.figure)
            self.figure.add_layer("levels", layer)
        return layer

    @observe("levels")
    def _on_levels(self, change) -> None:
        """Levels toggled: the levels layer, the axes and the status line; the points stay."""
        if self._guard.active:
            return
        try:
            self._levels_layer()
            self._update_layers(self._points, self._roofline)
            x_range, y_range = st.axis_ranges(self._points.points, self._roofline,
                                              self._layer_extent(),
                                              bulk=self._points.flop_split[0])
            self.figure.assign_roofline(self._roofline, x_range, y_range)
            self.controls.status_html.value = self._status()
        except Exception:
            with self._guard.hold():
                self.set_trait("levels", change.old)
            raise

    # ------------------------------------------------------------ the refresh pipeline
    @observe(*_SELECTION_TRAITS, *PEAK_TRAITS, "color_by", "size_by", "selected")
    def _on_trait(self, change) -> None:
        """Every trait change goes through here: one refresh, or a revert if it fails."""
        if self._guard.active:
            return
        if change.name == "selected":
            self.figure.show_selected(self._selected_indices())
            self.controls.status_html.value = self._status()
            return
        refresh = {"color_by": self._restyle, "size_by": self._restyle,
                   "peak_flops": self._refresh_roofline,
                   "peak_bandwidth": self._refresh_roofline}.get(change.name,
                                                                 self._refresh_points)
        try:
            refresh()
        except Exception:
            with self._guard.hold():  # nothing was assigned: put the trait back
                self.set_trait(change.name, change.old)
            raise

    def _refresh_points(self) -> None:
        """Select the points, then assign the figure, the selection and the texts."""
        points = st.select_points(
            self.sums, flops_metric=self.flops_metric, bandwidth_metric=self.bandwidth_metric,
            ranks=self.ranks, include=self.include, exclude=self.exclude,
            combine_ranks=self.combine_ranks, max_points=self.max_points)
        main, roofline = st.rooflines(self.peak_flops, self.peak_bandwidth, points.points,
                                      self._extra)
        self._update_layers(points, roofline)
        points = self._ranks_points(points)
        x_range, y_range = st.axis_ranges(points.points, roofline, self._layer_extent(),
                                          bulk=points.flop_split[0])
        selected = st.surviving_keys(self.selected, points.points)
        shown = points.shown
        figure_state = FigureState(
            points=shown, colors=self._color_codes(shown),
            sizes=st.marker_sizes(shown, self.size_by, self._size_range),
            selected=self._selected_indices(selected, shown), roofline=roofline,
            x_range=x_range, y_range=y_range, title=text.empty_title(points, self.ranks == []))
        self._points, self._main, self._roofline = points, main, roofline
        self.figure.assign(figure_state)
        # Outside the guard: observers of these traits (users' too) see a consistent widget.
        self.selected = selected
        self.set_trait("message", text.message_text(points, self.ranks == []))
        self._show_texts()

    def _refresh_roofline(self) -> None:
        """Peaks changed: move the ceilings and the ridge marker only."""
        points = self._points.points
        main, roofline = st.rooflines(self.peak_flops, self.peak_bandwidth, points, self._extra)
        self._update_layers(self._points, roofline)
        (x0, x1), (y0, y1) = st.axis_ranges(points, roofline, self._layer_extent(),
                                            bulk=self._points.flop_split[0])
        xs, ys = self.figure.x_scale, self.figure.y_scale
        x_range = (min(x0, xs.min or x0), max(x1, xs.max or 0))
        y_range = (min(y0, ys.min or y0), max(y1, ys.max or 0))
        self.figure.assign_roofline(roofline, x_range, y_range)
        self._main, self._roofline = main, roofline
        self.controls.status_html.value = self._status()
        self._show_peaks()

    def _update_layers(self, points: st.PointState, roofline: Roofline | None) -> None:
        """Hand the new selection to every layer (they assign their own marks)."""
        if not self.figure.layers:
            return
        data = LayerInput(sums=self.sums, selection=points.selection, points=points,
                          roofline=roofline, color_codes=self._color_codes,
                          options={name: getattr(self, name)
                                   for name in type(self).class_own_traits()})
        with self._guard.hold():
            for layer in self.figure.layers.values():
                layer.update(data)

    def _layer_extent(self) -> tuple[np.ndarray, np.ndarray]:
        """Every layer's (x, y) values, concatenated (the axes hold them too)."""
        extents = [layer.extent() for layer in self.figure.layers.values()]
        if not extents:
            return np.zeros(0), np.zeros(0)
        return (np.concatenate([np.asarray(x, dtype=float) for x, _ in extents]),
                np.concatenate([np.asarray(y, dtype=float) for _, y in extents]))

    def _restyle(self) -> None:
        self._update_layers(self._points, self._roofline)
        shown = self._points.shown
        self.figure.restyle(self._color_codes(shown),
                            st.marker_sizes(shown, self.size_by, self._size_range))
        self.controls.legend_html.value = self._legend()

    def _show_texts(self) -> None:
        points = self._points
        self.controls.show_texts(
            message_html=text.message_html(self.message,
                                           bool(points.error) or not len(points.points)),
            left_out_html=text.left_out_html(points.left_out),
            left_out_count=len(points.left_out),
            open_left_out=not len(points.points) and bool(len(points.left_out)),
            legend_html=self._legend(), status_html=self._status())
        self._show_peaks()

    def _show_peaks(self) -> None:
        self.controls.show_peaks({t: getattr(self, t) for t in PEAK_TRAITS}, self._main)

    def _status(self) -> str:
        points = self._points
        if self._ranks_layer.active:  # the spread view hides rank points on purpose
            points = replace(points, shown=points.points)
        status = text.status_html(points, self._roofline, max_points=self.max_points,
                                  combine_ranks=self.combine_ranks,
                                  n_selected=len(self.selected))
        notes = [layer.status() for layer in self.figure.layers.values()]
        notes.insert(0, text.no_flop_work_html(self._points.points,
                                               no_flop=self._points.flop_split[1]))
        return " ".join([status, *filter(None, notes)])

    def _color_codes(self, shown: pd.DataFrame) -> np.ndarray:
        categories = st.color_categories(self.sums, self.color_by, self.combine_ranks)
        return st.color_codes(shown, self.color_by, categories)

    def _legend(self) -> str:
        values = pd.unique(self._points.shown[st.COLOR_COLUMN[self.color_by]].astype(object))
        categories = st.color_categories(self.sums, self.color_by, self.combine_ranks)
        codes = pd.Index(categories, dtype=object).get_indexer(values[:text.LEGEND_ENTRIES_SHOWN])
        return text.legend_html(values, codes, self.color_by)

    def _selected_indices(self, keys: list | None = None, shown: pd.DataFrame | None = None):
        """Row indices of the drawn points whose keys are selected (None: no selection)."""
        keys = self.selected if keys is None else keys
        shown = self._points.shown if shown is None else shown
        if not keys:
            return None
        return np.flatnonzero(st.key_index(shown).isin(keys))

    def _select_indices(self, indices: np.ndarray) -> None:
        """The browser selected the drawn points ``indices``: set ``selected`` by key."""
        rows = self._points.shown.iloc[indices]
        keys = list(zip(rows["file"].astype(str), rows["rank"].astype(int),
                        rows["region"].astype(str)))
        self.selected = keys  # _on_trait mirrors the keys back onto the Scatter

    # ------------------------------------------------------------ ranks view
    @observe("rank_view", "expanded_regions")
    def _on_ranks_trait(self, change) -> None:
        self._on_trait(change)  # a full refresh (or a revert), as for the selection traits

    @validate("expanded_regions")
    def _validate_expanded_regions(self, proposal):
        regions = list(dict.fromkeys(str(r) for r in proposal.value))
        unknown = [r for r in regions if r not in set(self.sums.regions)]
        if unknown:
            raise TraitError(f"unknown region(s) {unknown}; valid: {self.sums.regions}")
        return regions

    def _ranks_points(self, points: st.PointState) -> st.PointState:
        """In the spread view the scatter shows only the expanded regions' ranks."""
        shown = self._ranks_layer.scatter_points(points, self.expanded_regions, self.max_points)
        return points if shown is None else replace(points, shown=shown)

    def toggle_region(self, region: str) -> None:
        """Show or hide the ranks of ``region`` in the spread view (a median point's click)."""
        expanded = list(self.expanded_regions)
        self.expanded_regions = ([r for r in expanded if r != region] if region in expanded
                                 else [*expanded, region])

    # ------------------------------------------------------------ public API
    def reset_view(self) -> None:
        """Fit the axes to the points and ceilings again (undo pan and zoom)."""
        x_range, y_range = st.axis_ranges(self._points.points, self._roofline,
                                          self._layer_extent(), bulk=self._points.flop_split[0])
        self.figure.assign_roofline(self._roofline, x_range, y_range)

    @property
    def roofline(self) -> Roofline | None:
        """The current ceilings (peaks or empirical, plus the extra ceilings)."""
        return self._roofline

    def to_dataframe(self) -> pd.DataFrame:
        """All current points (not only the drawn ones) with efficiency and bound.

        Columns: ``file, region, rank, performance_gflops, bandwidth_gbs,
        arithmetic_intensity_flops_per_byte, runtime_seconds, flops_metric,
        bandwidth_metric, device, n_threads, call_count, groups,
        attainable_gflops, efficiency_percent, bound, above_roof``.
        """
        return st.classify(self._points.points, self._roofline)

    def selection_dataframe(self) -> pd.DataFrame:
        """The selected points, with the same columns as :meth:`to_dataframe`.

        While memory levels are shown (``levels``), one row per selected point
        and shown level instead, with the ``level`` and ``bandwidth_metric``
        columns of :func:`~roofline_widget.hierarchical_points`.
        """
        layer = self.figure.layers.get("levels")
        if self.levels and layer is not None:
            rows = layer.frame
            return rows[st.key_index(rows).isin(self.selected)].reset_index(drop=True)
        points = self._points.points
        if not self.selected:
            return st.classify(points.iloc[:0], self._roofline)
        return st.classify(points[st.key_index(points).isin(self.selected)], self._roofline)

    def left_out_dataframe(self) -> pd.DataFrame:
        """The selected regions that could not be placed, with the reason."""
        return self._points.left_out.reset_index(drop=True)

    # ------------------------------------------------------------ baseline and saved views
    # (issue 13: RooflineWidget(after, baseline=before), comparison_dataframe, save/load_view)
    def _start_baseline(self) -> None:
        """Register the baseline layer when a baseline was given."""
        if self.baseline is not None and "baseline" not in self.figure.layers:
            self.figure.add_layer("baseline", CompareLayer(
                self.figure.x_scale, self.figure.y_scale, self.baseline, match=self._match,
                plot=self.figure.plot))

    @observe("baseline")
    def _on_baseline(self, change) -> None:
        if self._guard.active:
            return
        try:
            runs = baseline_runs(change.new) if change.new is not None else []
        except Exception:
            with self._guard.hold():
                self.set_trait("baseline", change.old)
            raise
        if "baseline" in self.figure.layers:
            self.figure.layers["baseline"].runs = runs
            self.figure.plot.marks = self.figure.marks  # a chain of another length: new marks
        else:
            self._start_baseline()
        self._refresh_points()

    @property
    def baseline_layer(self) -> CompareLayer | None:
        """The :class:`CompareLayer` drawing the baseline (None without a baseline)."""
        return self.figure.layers.get("baseline")

    def comparison_dataframe(self) -> pd.DataFrame:
        """The :func:`~roofline_widget.compare_points` rows of what the widget shows.

        The same metrics, ranks, include/exclude patterns and ``combine_ranks``
        as the points; the rows of regions drawn (within ``max_points``), of
        regions placed in the baseline only and of regions placed in neither.
        ``run_before`` is ``"baseline"`` (or the chain's labels), ``run_after``
        of the last step ``"current"``.

        Raises
        ------
        ValueError
            Without a baseline, or when the baseline cannot be compared
            (the message says why).
        """
        layer = self.baseline_layer
        if layer is None or not layer.runs:
            raise ValueError("this widget has no baseline: RooflineWidget(data, "
                             "baseline=before) or widget.baseline = before")
        if layer.error:
            raise ValueError(f"the baseline cannot be compared: {layer.error}")
        return layer.frame()

    def to_view(self) -> View:
        """The widget's choices as a :class:`~roofline_widget.views.View`."""
        layer = self.baseline_layer
        labels = None
        if layer is not None and layer.runs:
            labels = [label if len(layer.runs) > 1 else " + ".join(sums.files)
                      for label, sums in layer.runs]
        return View(flops_metric=self.flops_metric, bandwidth_metric=self.bandwidth_metric,
                    ranks=self.ranks, combine_ranks=self.combine_ranks, include=self.include,
                    exclude=self.exclude, peak_flops=self.peak_flops,
                    peak_bandwidth=self.peak_bandwidth, ceilings=list(self._extra),
                    color_by=self.color_by, size_by=self.size_by, max_points=self.max_points,
                    selected=list(self.selected), baseline=labels,
                    levels=self._shown_level_metrics())

    def _shown_level_metrics(self) -> dict[str, str] | None:
        """Level -> bandwidth metric of the levels shown, None when none are."""
        if not self.levels:
            return None
        chosen, _notes = detect_levels(self.sums.bandwidth_metrics)
        return {level: chosen[level] for level in self.levels}

    def save_view(self, path):
        """Write the widget's choices (never data) to ``path`` as a JSON view; returns the path."""
        return self.to_view().save(path)

    def load_view(self, view) -> list[str]:
        """Restore a saved view (a path or a :class:`~roofline_widget.views.View`), all at once.

        What the data lacks (metrics, ranks, regions of the selection, another
        baseline) is left out and named in ONE :class:`~roofline_widget.views.ViewWarning`;
        the rest is applied in one refresh.  If applying fails, every trait is
        put back.

        Returns
        -------
        list of str
            The problems found (empty when the view fits the data).

        Raises
        ------
        ViewError
            For a file that is not a valid view, or an include/exclude
            pattern that takes too long on the region names (nothing is changed).
        """
        source = "View" if isinstance(view, View) else str(view)
        view = view if isinstance(view, View) else View.load(view)
        problems = (view.check_against(self.sums, source) + self._baseline_problems(view)
                    + self._level_problems(view))
        values = self._applicable(view)
        selected = values.pop("selected")
        old = {name: getattr(self, name) for name in values}
        old_extra = self._extra
        try:
            with self._guard.hold(), self.hold_trait_notifications():
                for name, value in values.items():
                    setattr(self, name, value)
            self._extra = st.check_ceilings(view.ceilings)
            self._levels_layer()
            self._refresh_points()
        except Exception:
            with self._guard.hold(), self.hold_trait_notifications():
                for name, value in old.items():
                    self.set_trait(name, value)
            self._extra = old_extra
            self._refresh_points()
            raise
        self.selected = st.surviving_keys(selected, self._points.points)
        if problems:
            warnings.warn(f"{source}: view applied in part, left out: " + "; ".join(problems),
                          ViewWarning, stacklevel=2)
        return problems

    def _applicable(self, view: View) -> dict:
        """The view's trait values without the metrics and ranks the data lacks."""
        values = view.trait_values()
        if values["flops_metric"] not in (None, *self.sums.flop_metrics):
            del values["flops_metric"]
        if values["bandwidth_metric"] not in (None, *self.sums.bandwidth_metrics):
            del values["bandwidth_metric"]
        if values["ranks"]:
            known = [r for r in values["ranks"] if r in self.sums.ranks]
            if known:
                values["ranks"] = known
            else:  # none of the view's ranks: keep the widget's
                del values["ranks"]
        values["levels"] = [level for level in view.levels or {} if level in self.available_levels]
        return values

    def _level_problems(self, view: View) -> list[str]:
        """The view's memory levels this data does not measure, one sentence."""
        missing = [level for level in view.levels or {} if level not in self.available_levels]
        if not missing:
            return []
        return [f"memory level(s) {missing} are not measured in the data "
                f"(levels: {self.available_levels or 'none'})"]

    def _baseline_problems(self, view: View) -> list[str]:
        mine = self.to_view().baseline
        if view.baseline is None or view.baseline == mine:
            return []
        if mine is None:
            return [f"the view compared with the baseline {view.baseline}; this widget has "
                    "no baseline (pass baseline=)"]
        return [f"the view compared with the baseline {view.baseline}; this widget "
                f"compares with {mine}"]
