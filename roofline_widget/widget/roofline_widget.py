"""``RooflineWidget``: where each trait change goes (the traits and their checks: ``widget.traits``).

The widget is thin: the figure (:class:`~roofline_widget.widget.figure.RooflineFigure`,
which draws a :class:`~roofline_widget.scene.parts.Scene`), the controls
(:class:`~roofline_widget.widget.controls.RooflineControls`), the refresh pipeline
(:class:`~roofline_widget.widget.pipeline.RefreshPipeline`, which composes the scene)
and the saved views (:mod:`roofline_widget.widget.saved_views`) do the work.

Every trait change goes to the one refresh pipeline; if it raises, the trait
is put back.  One :class:`~roofline_widget.widget.state.UpdateGuard`, shared
by the widget, the figure, the controls and the pipeline, keeps the kernel's
own writes from echoing back.  The traits live in the kernel only (no
``sync=True``), and the widget builds HTML only in
:mod:`roofline_widget.widget.html`, where region names are escaped.
"""

from __future__ import annotations

import pandas as pd
from traitlets import observe

from roofline_widget.points.chained import chained_sums
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.scene.levels import available_levels
from roofline_widget.static import html_export
from roofline_widget.views import View
from roofline_widget.widget.advice import WidgetGuidance
from roofline_widget.widget.controls import RooflineControls
from roofline_widget.widget.figure import RooflineFigure
from roofline_widget.widget.layers.compare import CompareMarks
from roofline_widget.widget.opening import opened_at_exit
from roofline_widget.widget.peak_controls import PEAK_TRAITS
from roofline_widget.widget.pipeline import RefreshPipeline
from roofline_widget.widget.point_keys import with_keys
from roofline_widget.widget.roofs import classify, with_theoretical
from roofline_widget.widget.saved_views import apply_view, widget_view
from roofline_widget.widget.square_ranks import SquareRanks
from roofline_widget.widget.state import UpdateGuard
from roofline_widget.widget.sweep_controls import SweepControls
from roofline_widget.widget.traits import (
    DEFAULT_MAX_POINTS,
    SELECTION_TRAITS,
    SWEEP_TRAITS,
    RooflineTraits,
)

__all__ = ["DEFAULT_MAX_POINTS", "RooflineWidget"]


class RooflineWidget(RooflineTraits):
    """Interactive roofline of LIKWID measurements, updated in place.

    Parameters
    ----------
    data : LikwidRun, path, ProfilingResults, RegionSums, or a sequence of them
        Anything :func:`~roofline_widget.collect_roofline_points` accepts
        (a list inside the list: the files of one run, see
        :mod:`roofline_widget.io.inputs`).  The per-region sums are computed
        once, here.  ONE file of several runs (a scaling study appended to
        one log) is drawn as a chain: see ``chain``.
    ceilings : sequence of ComputeRoof / BandwidthRoof, optional
        Measured roofs (e.g. ``machine_roofline(...)``, ``gpu_ceilings(...)``):
        they replace the empirical roofs of their kind and device.  A peak
        trait set adds its own roof beside them, the main one.  Each point is
        judged against the roofs of its memory level, device and precision
        (:meth:`~roofline_widget.Roofline.classify`).
    theoretical : bool
        Without a compute roof in ``ceilings``: the CPU's theoretical peak (``plot_roofline``'s).
    match : dict or callable, optional
        Region renames for the baseline comparison (``compare_points(match=)``).
    view : path or View, optional
        A saved view restored after construction (:meth:`load_view`).
    engine : {"auto", "h5py", "raw"}
        Who reads scope-profiler HDF5 files (like pandas' ``read_csv(engine=)``):
        the package's own reader, h5py, or the own reader with h5py for the
        layouts it does not read (default); see
        :func:`~roofline_widget.points.read_scope_sums`.
    chain : bool
        True (default): when ``data`` is ONE file of several runs and no
        ``baseline`` is given, the points are the last run's and the runs are a
        sweep (:mod:`roofline_widget.scene.sweep`: per region a path through its runs,
        shaded by what differs, a colour bar, a ring on each path's ``sweep_step``);
        ``baseline`` holds the earlier runs (``#1 (size 30^3)``, :attr:`file_chain`).
        False: every run of ``data`` as points,
        one per region and run.  An explicit ``baseline`` wins (``data`` is
        drawn as it is); a list of runs is never a chain, files each of
        several runs included (their runs are all points).
    **options
        Initial values of the traits below and ipywidgets Box options (``layout``).

    Attributes
    ----------
    flops_metric, bandwidth_metric : str or None
        Exact LIKWID metric names (None: detected).  An unknown name raises
        ``TraitError`` naming the valid ones.
    ranks : list of int or None
        Ranks to show (None: all).  Unknown ranks raise ``TraitError``.
    group_ranks : {"auto", "rank", "socket", "host", "all"}
        Which ranks a point sums, as :func:`~roofline_widget.points_dataframe`'s
        (the "Group ranks" menu; its "all ranks" sets ``combine_ranks``).
    combine_ranks : bool
        Sum the shown ranks into one point per region and run (rank -1), as
        ``group_ranks="all"``, which it wins over.
    include, exclude : str
        Regular expressions matched at the start of region names (``""``: no
        filter).  An invalid pattern is shown as a message, no points drawn.
    peak_flops, peak_bandwidth : float or None
        The main roofs in GFLOP/s and GB/s (the sliders' roofs, the solid
        roofline, whatever other ceilings are higher); None: the measured
        ``ceilings`` of that kind, else the largest observation (an
        *empirical* ceiling; with a baseline, of both runs).
    color_by : {"region", "run", "rank", "device"}
    size_by : {"none", "runtime"}
    max_points : int
        Most points drawn (default ``DEFAULT_MAX_POINTS`` = 50,000, chosen from
        the browser figures in docs/performance.md); above it the
        longest-running are drawn.  Up to ``SVG_MAX_POINTS`` (2,000) points
        are drawn as SVG, more with WebGL (bqplot-gl); a browser without
        WebGL, memory levels and a baseline (SVG marks per point) cap it at
        ``SVG_MAX_POINTS``, and the status line says so.
    levels : list of str
        Memory levels drawn as a hierarchical roofline (``["L2", "MEM"]``; ``[]``:
        none); one of ``available_levels`` each, else ``TraitError``.
    selected : list of (file, rank, region) tuples
        The selected points, by key (set by click, brush and lasso too;
        with Ctrl, Shift or Cmd held they add to it, a Ctrl-click on a selected point
        takes it out).
    message : str
        The error or remark shown above the figure (read-only).
    rank_view : {"points", "spread", "auto"}
        "points": one point per rank; "spread": per region the rank median
        with min–max whiskers over the ranks, coloured by imbalance (the rank
        points hidden); "auto": "spread" while more points than
        ``max_points`` are selected from several ranks (the default).
    expanded_regions : list of str
        Regions whose ranks the spread view draws as points (a click on a
        median point, see :attr:`square_ranks`).
    square_ranks : SquareRanks
        A spread square's click: its ranks as points, or ``square_ranks.toggle_region(region)``.
    sweep_step, group_runs_by, highlight_region : int, str, str
        Of a sweep (``chain``): the step ringed (run slider; -1: the last); the key runs differing
        in more than one are grouped by (``"case"``; ``""``: as :func:`~roofline_widget.scaling_table`);
        the region lit up in the roofline and the scaling panel (``sweep_controls.scaling``).
    baseline : run data, mapping or None
        A run to compare with (anything ``data`` accepts), or an ordered
        ``{label: run}`` chain ending at ``data``: a dashed line from each
        baseline point (hollow) to the current point, the median speed-up
        in the status line (:meth:`comparison_dataframe`).  For ONE file of
        several runs not given one, the chain of its earlier runs (see
        ``chain``); replacing it ends the chain (:attr:`chain_shown`).
    figure : RooflineFigure
        The bqplot figure, its scales, marks and tooltip (``figure.plot``,
        ``figure.scatter``, ``figure.ceilings``, ...) and what it draws,
        ``figure.scene`` (:class:`~roofline_widget.scene.parts.Scene`).
    controls, sweep_controls : RooflineControls, SweepControls
        The child widgets (``controls.status_html``, ``sweep_controls.slider``, ...).
    sums : RegionSums
        The per-region sums the points are selected from (of the last run
        when ``data`` is drawn as a chain).
    file_chain : FileChain or None
        The runs of ``data`` drawn as a chain
        (:class:`~roofline_widget.io.chain.FileChain`); None when ``data`` is
        no chain (see ``chain``).

    Examples
    --------
    >>> from roofline_widget import RooflineWidget, read_likwid, sample_path
    >>> w = RooflineWidget(read_likwid(sample_path(
    ...     "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")))
    >>> len(w.to_dataframe())
    2
    """
    save_html = html_export.save_html  # save_html(path, title=None): a page needing no kernel

    def __init__(self, data, *, ceilings=(), match=None, view=None, engine: str = "auto",
                 chain: bool = True, theoretical: bool = False, **options) -> None:
        with opened_at_exit():  # each widget opened once, with the first draw in it
            self._guard = UpdateGuard()
            drawn = chained_sums(data, baseline=options.get("baseline"), chain=chain, engine=engine)
            self.sums, self.file_chain = drawn.sums, drawn.chain
            self._chain_baseline = drawn.baseline if drawn.chain is not None else None
            if drawn.chain is not None:
                options["baseline"] = drawn.baseline
            ceilings = with_theoretical(self.sums, ceilings, options) if theoretical else ceilings
            self.figure = RooflineFigure(self._guard)
            self._advice = WidgetGuidance(self.sums)  # the tooltip's last line, the panel's card
            self.figure.guidance_line = lambda row: self._advice.line(row, self._refresh.points, self.roofline)
            self.controls = RooflineControls(self.sums, self.figure, self._guard)
            self.sweep_controls = SweepControls(self._guard)
            self._refresh = RefreshPipeline(self, self._guard, ceilings)
            # WebGL missing in the browser (or back): the points are selected again for its budget.
            self.figure.points.on_fallback(self._refresh.refresh_points)
            with self._guard.hold():  # no refresh while the traits get their first values
                super().__init__(children=self.controls.children, _dom_classes=("roofline-widget",),
                                 **options)
                for name in ("flops_metric", "bandwidth_metric", "include", "exclude"):
                    if getattr(self, name) is None:
                        setattr(self, name, None)  # the validator maps None (detect / no pattern)
                self.controls.link(self)
                self.sweep_controls.link(self)
                self.controls.add_level_toggles(self, self.available_levels)
            self.square_ranks = SquareRanks(self, guard=self._guard, pipeline=self._refresh)
            self.figure.layers.when_made("ranks", lambda marks: setattr(marks, "on_click",
                                                                        self.square_ranks.click))
            # The browser selected drawn points: ``selected`` by key (_on_trait mirrors it back).
            self.figure.on_select(lambda rows, adding: setattr(
                self, "selected", with_keys(self.selected, self._refresh.keys_of(rows), adding)))
            self._refresh.parts.set_baseline(self.baseline, match)
            self._refresh.refresh_points()
            self.controls.peaks.fit(self._refresh.roofline, self._refresh.current.points)
            if view is not None:
                self.load_view(view)

    # ------------------------------------------------------------ where a change goes
    @observe(*SELECTION_TRAITS, *PEAK_TRAITS, *SWEEP_TRAITS, "color_by", "size_by", "selected",
             "levels")
    def _on_trait(self, change) -> None:
        """Every trait change goes through here: one refresh, or a revert if it fails."""
        if self._guard.active:
            return
        try:
            self._refresh.after_change(change.name)
        except Exception:
            with self._guard.hold():  # nothing was assigned: put the trait back
                self.set_trait(change.name, change.old)
            raise

    @observe("baseline")
    def _on_baseline(self, change) -> None:
        if self._guard.active:
            return
        try:
            self._refresh.parts.set_baseline(change.new, self._refresh.parts.match)
        except Exception:
            with self._guard.hold():
                self.set_trait("baseline", change.old)
            raise
        self._refresh.refresh_points()

    # ------------------------------------------------------------ public API
    @property
    def available_levels(self) -> list[str]:
        """The memory levels measured in the data (``levels`` takes these), inner to outer."""
        return available_levels(self.sums.bandwidth_metrics)

    @property
    def drawn_keys(self) -> pd.MultiIndex | None:
        """The keys of the points selected for drawing (None before the first selection)."""
        points = self._refresh.points
        return None if points is None else points.keys

    @property
    def chain_shown(self) -> bool:
        """Whether the runs of :attr:`file_chain` are drawn as a chain (``baseline`` not replaced)."""
        return self.file_chain is not None and self.baseline is self._chain_baseline

    @property
    def roofline(self) -> Roofline | None:
        """The current ceilings (peaks or empirical, plus the extra ceilings)."""
        return self._refresh.roofline

    def reset_view(self) -> None:
        """Fit the axes to the points and ceilings again (undo pan and zoom)."""
        self._refresh.reset_view()

    def to_dataframe(self) -> pd.DataFrame:
        """All current points (not only the drawn ones) with efficiency, bound and guidance.

        Columns: those of :func:`~roofline_widget.points_dataframe`, the judged ones of
        :meth:`Roofline.classify <roofline_widget.Roofline.classify>` (``efficiency_percent``,
        ``bound``, ...), then ``limiting_factor, guidance, guidance_metrics`` (see ``guidance``).
        """
        current = self._refresh.current
        return self._advice.add_columns(classify(current.points, self.roofline), current, self.roofline)

    def selection_dataframe(self, guidance: bool = True) -> pd.DataFrame:
        """The selected points, with the same columns as :meth:`to_dataframe`.

        While memory levels are shown (``levels``), one row per selected point and shown level,
        with the ``level`` and ``bandwidth_metric`` columns of :func:`~roofline_widget.hierarchical_points`,
        each row judged against its level's roof (NaN and ``"no L3 roof"`` where there is none).

        Parameters
        ----------
        guidance : bool
            False: without the guidance columns (the detail panel's table of many points).
        """
        frame = self._refresh.selection_frame()
        return self._advice.add_columns(frame, self._refresh.current, self.roofline) if guidance else frame

    def left_out_dataframe(self) -> pd.DataFrame:
        """The selected regions that could not be placed, with the reason."""
        return self._refresh.current.left_out.reset_index(drop=True)

    @property
    def baseline_runs(self) -> list:
        """The baseline as ``[(label, RegionSums), ...]`` in chain order (empty: no baseline)."""
        return list(self._refresh.parts.runs)

    @property
    def baseline_layer(self) -> CompareMarks | None:
        """The :class:`~roofline_widget.widget.layers.compare.CompareMarks` drawing a baseline (or None)."""
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
        return self._refresh.parts.comparison_rows(self._refresh.current)

    def to_view(self) -> View:
        """The widget's choices as a :class:`~roofline_widget.views.View`."""
        return widget_view(self, self._refresh.extra)

    def save_view(self, path):
        """Write the widget's choices (never data) to ``path`` as a JSON view; returns the path."""
        return self.to_view().save(path)

    def load_view(self, view) -> list[str]:
        """Restore a saved view (a path or a :class:`~roofline_widget.views.View`), all at once.

        What the data lacks (metrics, ranks, regions of the selection, another
        baseline) is left out and named in ONE :class:`~roofline_widget.ViewWarning`;
        the rest is applied in one refresh.  If applying fails, every trait is
        put back (:func:`~roofline_widget.widget.saved_views.apply_view`).

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
        return apply_view(self, view, pipeline=self._refresh, guard=self._guard)
