"""``RooflineWidget``: traits, their validators and the one refresh pipeline."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
import pandas as pd
from traitlets import Any, Bool, CFloat, Enum, Int, List, TraitError, Unicode, observe, validate

from ..ceilings import Roofline
from ..points import RegionSums, normalize_ranks
from . import state as st
from . import text
from .controls import PEAK_TRAITS, RooflineControls
from .figure import FigureState, RooflineFigure
from .layers import LayerInput
from .levels_layer import LevelsLayer, available_levels

__all__ = ["RooflineWidget", "DEFAULT_MAX_POINTS"]

DEFAULT_MAX_POINTS = 5000
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
        Most points drawn (SVG); above it the longest-running are drawn.
    levels : list of str
        Memory levels drawn as a hierarchical roofline (``["L2", "MEM"]``; ``[]``:
        none); one of ``available_levels`` each, else ``TraitError``.
    selected : list of (file, rank, region) tuples
        The selected points, by key (set by click, brush and lasso too).
    message : str
        The error or remark shown above the figure (read-only).
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

    def __init__(self, data, *, ceilings=(), **options) -> None:
        self._guard = st.UpdateGuard()
        self._points: st.PointState | None = None
        self._main: Roofline | None = None
        self._roofline: Roofline | None = None
        self.sums = RegionSums.from_runs(data)
        self._extra = st.check_ceilings(ceilings)
        self._size_range = st.runtime_log_range(self.sums)
        self.figure = RooflineFigure(self._guard)
        self.controls = RooflineControls(self.sums, self.figure, self._guard)
        with self._guard.hold():  # no refresh while the traits get their first values
            super().__init__(children=self.controls.children, **options)
            for name in ("flops_metric", "bandwidth_metric", "include", "exclude"):
                if getattr(self, name) is None:
                    setattr(self, name, None)  # the validator maps None (detect / no pattern)
            self.controls.link(self)
            self.controls.add_level_toggles(self, self.available_levels)
        self.add_class("roofline-widget")
        self.figure.on_select(self._select_indices)
        self._levels_layer()
        self._refresh_points()
        self.controls.fit_sliders(self._main)

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
                                              self._layer_extent())
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
        x_range, y_range = st.axis_ranges(points.points, roofline, self._layer_extent())
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
        (x0, x1), (y0, y1) = st.axis_ranges(points, roofline, self._layer_extent())
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
        data = LayerInput(sums=self.sums, select_options=points.select_options, points=points,
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
        status = text.status_html(self._points, self._roofline, max_points=self.max_points,
                                  combine_ranks=self.combine_ranks,
                                  n_selected=len(self.selected))
        notes = [layer.status() for layer in self.figure.layers.values()]
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

    # ------------------------------------------------------------ public API
    def reset_view(self) -> None:
        """Fit the axes to the points and ceilings again (undo pan and zoom)."""
        x_range, y_range = st.axis_ranges(self._points.points, self._roofline,
                                          self._layer_extent())
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
        """The selected points, with the same columns as :meth:`to_dataframe`."""
        points = self._points.points
        if not self.selected:
            return st.classify(points.iloc[:0], self._roofline)
        return st.classify(points[st.key_index(points).isin(self.selected)], self._roofline)

    def left_out_dataframe(self) -> pd.DataFrame:
        """The selected regions that could not be placed, with the reason."""
        return self._points.left_out.reset_index(drop=True)
