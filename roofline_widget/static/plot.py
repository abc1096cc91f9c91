"""``plot_roofline``: a static roofline figure (matplotlib file or bqplot Figure) and its data.

The signature and the payload follow scope-profiler 0.7.5's
``plotting_scripts.roofline.plot_roofline``; the differences are fixes:
unknown backends, data formats and every bad output path raise before
anything is written (one :class:`~roofline_widget.static.output_files.OutputPathError`
naming each path), files are written atomically, JSON exports contain
``null`` instead of ``NaN``, hover text is HTML-escaped, regions that cannot
be placed are reported (``left_out``), regions doing almost no FLOPs do not
stretch the axes (drawn at the axis edge and named in a note), and the roof
is drawn through its exact ridge point with labelled, provenance-carrying
ceilings.

This module is the front end; the pieces are :mod:`~roofline_widget.static.exports`
(arguments and output), :mod:`~roofline_widget.static.payload` (the data),
:mod:`~roofline_widget.static.matplotlib_figure` (or the widget's figure, for
``backend="bqplot"``) drawing the plot's :class:`~roofline_widget.scene.parts.Scene`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from roofline_widget.analysis.theoretical import with_theoretical_ceilings
from roofline_widget.escaping import terminal_text
from roofline_widget.look.beyond_hardware import point_flag_texts
from roofline_widget.look.ceiling_labels import WIDGET_CANVAS
from roofline_widget.look.texts import X_LABEL
from roofline_widget.points import Selection, selection_parameters
from roofline_widget.points.chained import chained_sums
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline, unjudged_notes
from roofline_widget.scene.build import build_scene
from roofline_widget.scene.parts import Coloring
from roofline_widget.settings import check
from roofline_widget.static import matplotlib_figure, output_files
from roofline_widget.static.exports import (
    BACKENDS,
    DATA_FORMATS,
    check_arguments,
    data_writer,
    fit_to_drawing,
    image_writer,
    records,
    tight_box,
)
from roofline_widget.static.matplotlib_figure import STATIC_CANVAS
from roofline_widget.static.payload import (
    DEFAULT_CMAP,
    build_payload,
    colour_keys,
    no_points_error,
    sampled_colors,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from roofline_widget.points.selection import CommonSelectionKeywords

__all__ = ["BACKENDS", "DATA_FORMATS", "DEFAULT_CMAP", "NO_FLOP_WHERE", "plot_roofline"]

#: Where each backend shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = {"matplotlib": matplotlib_figure.NO_FLOP_WHERE,
                 "bqplot": "outside the axes (pan out to see them)"}
#: The bqplot legend's title key by the column the points are coloured by.
_LEGEND_KIND = {"region": "region", "file": "run"}


@selection_parameters("flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "group_ranks", "combine_ranks", "selection")
def plot_roofline(profiling_data: object, *, peak_flops: float | None = None,
                  peak_bandwidth: float | None = None, filepath: str | os.PathLike | None = None,
                  show: bool = False, verbose: bool = True, cmap: str = DEFAULT_CMAP,
                  data_filepath: str | os.PathLike | None = None, data_format: str = "csv",
                  backend: str = "matplotlib",
                  ceilings: Roofline | Sequence[ComputeRoof | BandwidthRoof] | None = None,
                  baseline: object = None,
                  match: Mapping[str, str] | Callable[[str], str | None] | None = None,
                  levels: Sequence[str] | str | None = None,
                  selection: Selection | None = None, chain: bool = True,
                  theoretical: bool = False,
                  **keywords: Unpack[CommonSelectionKeywords]) -> dict:
    """Plot attained performance against arithmetic intensity for LIKWID regions.

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        What :func:`~roofline_widget.collect_roofline_points` accepts.  ONE
        file of several runs (a scaling study appended to one log) is drawn
        as a chain: see ``chain``.
    {selection_parameters}
    peak_flops : float, optional
        Measured compute ceiling in GFLOP/s.  When omitted (and ``ceilings``
        has no compute roof), the largest selected performance is used and
        labelled *empirical*; with ``baseline=``, of both runs.
    peak_bandwidth : float, optional
        Measured bandwidth ceiling in GB/s; empirical when omitted.
    filepath : str or path, optional
        Image to write, in the format its suffix names (any matplotlib can
        write: ``.png``, ``.svg``, ``.pdf``, ...,
        :func:`~roofline_widget.static.output_files.image_formats`); matplotlib
        backend only.  Or ``.html``: one self-contained, interactive page that
        opens offline (either backend, no matplotlib needed): the
        :class:`~roofline_widget.RooflineWidget` of these arguments, written by
        its ``save_html``; the widget is then ``payload["widget"]`` and
        ``payload["figure"]`` its bqplot Figure.
    show : bool
        Display the figure (in a notebook).
    verbose : bool
        Print the number of points, the metrics and what was left out.
    cmap : str
        Matplotlib colormap for the points.
    data_filepath : str or path, optional
        Where to write the plotted data.
    data_format : {"csv", "json", "parquet"}
        Format of ``data_filepath``, whose suffix must match (``.csv``,
        ``.json``, ``.parquet``/``.pq``); JSON has ``null`` where a value is
        missing, never ``NaN``.  Both files are checked before anything is
        written and written atomically (a temporary file in the same
        directory, then renamed): a failure leaves no partial file.
    backend : {"matplotlib", "bqplot"}
        ``"matplotlib"`` draws with the Agg canvas (no GUI);  ``"bqplot"``
        draws the widget's figure (:class:`~roofline_widget.widget.figure.RooflineFigure`,
        its look, tooltip and axis ranges): its bqplot Figure is
        ``payload["figure"]``, the RooflineFigure ``payload["roofline_figure"]``
        and its legend (an ``ipywidgets.HTML``) ``payload["legend"]``;
        ``show=True`` displays the figure with the legend below.
    ceilings : Roofline or sequence of ComputeRoof / BandwidthRoof, optional
        Several roofs to draw (L1/L2/L3/DRAM slopes, scalar/AVX compute
        roofs); ``peak_flops``/``peak_bandwidth`` then replace its top roofs.
        A kind the roofs lack comes from the peak or the points
        (:meth:`~roofline_widget.Roofline.from_ceilings`).
    levels : sequence of str, optional
        Memory levels to draw as a hierarchical roofline (``["L2", "L3",
        "MEM"]``; matplotlib backend only): one marker per level, the dots of
        a region joined; ``payload["levels"]`` holds their rows, each judged
        against its level's roof.
    baseline : run data or mapping, optional
        A run to compare with (or an ordered ``{label: run}`` chain ending at
        ``profiling_data``): hollow baseline points and a dashed arrow to each
        matched point (matplotlib only); the rows are ``payload["comparison"]``.
    match
        As for :func:`~roofline_widget.compare_points`.
    chain : bool
        True (default): when ``profiling_data`` is ONE file of several runs,
        no ``baseline`` is given and the backend is matplotlib, the points
        are the last run's and the runs are drawn as a sweep (by short label,
        ``#1 (size 30^3)``; :mod:`~roofline_widget.scene.sweep`): each region's
        path through the runs in order, the runs shaded by what differs with a
        colour bar; ``payload["chain"]`` names the runs, ``payload["sweep"]``
        holds every run's points (no run comparison is built: see
        :func:`~roofline_widget.compare_points` of
        :func:`~roofline_widget.run_chain`).
        False (and ``backend="bqplot"``, which draws no baseline): every run
        as points, one per region and run.  An explicit ``baseline`` wins;
        a list of runs is never a chain (files each of several runs
        included: their runs are all points).
    theoretical : bool
        Where neither ``ceilings`` nor ``peak_flops`` gives a compute roof of
        the CPU and the CPU type LIKWID printed is in the table of cores: its
        theoretical SIMD FMA peak (:func:`~roofline_widget.theoretical_roofline`,
        the cores of the largest point, source ``"theoretical"``, drawn dashed)
        instead of the empirical compute roof; the note under the axes says
        at which clock.  An unknown CPU keeps the empirical roof, and the notes say why.

    Returns
    -------
    dict
        ``points`` (scope-profiler point dicts), ``rank_groups`` (per
        point the ranks it sums, its ``rank_group``), ``point_names`` (per point
        its name in legends, labels and titles: its region, a host's point its host,
        :func:`~roofline_widget.look.point_names.point_names`), ``colors`` ({run label:
        hex}), ``file_ranks`` ({run label: number of ranks}),
        ``peak_flops_gflops``, ``peak_bandwidth_gbs``, ``empirical_ceilings``,
        ``roofline`` (rows of ``arithmetic_intensity_flops_per_byte`` and
        ``performance_gflops``, the ridge point included), plus
        ``ridge_point``, ``ceilings``, ``lines``, ``analysis`` (per point,
        against the roofs of its level, device and precision: attainable
        performance, efficiency, bound, above_roof, ridge, the roofs' names;
        :meth:`~roofline_widget.Roofline.classify`), ``ceiling_notes`` (points
        without a roof of their kind, ceilings of another machine or level),
        ``left_out``, ``hover`` (escaped HTML), ``devices`` (per point the device its texts
        name: a GPU's, "" for a CPU's), ``flops_metric``,
        ``bandwidth_metric``, ``colour_by``, ``point_colors``,
        ``chain`` (the labels of the runs drawn as a chain, in order; ``[]``
        when there is none), ``no_flop_work`` (the points doing almost no FLOPs,
        :func:`~roofline_widget.look.no_flop.split_flop_work`: the axes follow the
        others; matplotlib draws them at the axis edge), ``no_flop_note`` (the
        note naming them, "" when there are none), ``beyond_hardware_note``
        (the note on points whose rates no hardware reaches: left out of the
        empirical ceilings and the axis ranges, drawn under the axes; ""
        when there are none, :func:`~roofline_widget.look.beyond_hardware.beyond_hardware_text`),
        ``above_roofs_note`` (the note on points above their roofs: a ceiling set
        too low or a FLOP metric of another precision; "" when there are none,
        :func:`~roofline_widget.look.above_roofs.above_roofs_text`),
        ``beyond_hardware`` (per point, why it is beyond the hardware, "" for
        a plausible one: the SVG hover titles of the command line) and ``figure`` (with
        matplotlib, the size of what it draws, legend and notes inside: its own ``savefig``
        writes the picture of the image file).  The axes
        show what the widget's would (:func:`~roofline_widget.look.axis_ranges.axis_ranges`):
        the points, level dots and baseline points, every ridge point.

    Raises
    ------
    OutputPathError
        (a ``ValueError``) Before anything is computed or written, naming every
        output path that cannot be written and why: its directory is missing
        or not writable, it is a directory, its suffix is not a format that can
        be written, the package writing it is not installed.
    ValueError
        For an unknown backend or data format, invalid peaks, ranks or
        patterns, and when no point can be placed (naming the metrics and the
        reasons).
    ImportError
        For the matplotlib backend without matplotlib.
    """
    targets = check_arguments(backend, filepath, data_filepath, data_format)
    page = targets.get(output_files.IMAGE)  # an .html file: the widget's page (html_export.py)
    page = page if page is not None and page.format in output_files.HTML_FORMATS else None
    if baseline is not None and backend != "matplotlib" and page is None:
        raise NotImplementedError("plot_roofline(baseline=...) draws with matplotlib only; "
                                  "use backend='matplotlib' or RooflineWidget(data, baseline=...)")
    levels = check("levels", levels) if levels else []  # named L1, L2, L3, MEM (settings)
    if levels and backend != "matplotlib" and page is None:
        raise ValueError(f"levels= is drawn by the matplotlib backend only, not {backend!r}; "
                         "use backend='matplotlib' or RooflineWidget(data, levels=...)")
    request = Selection.of(selection, **keywords)
    chained = chained_sums(profiling_data, baseline=baseline,
                           chain=chain and (backend == "matplotlib" or page is not None))
    sums = chained.sums
    selected = sums.select(request)
    selected.warn()
    if selected.points.empty:
        raise no_points_error(selected, request.flops_metric, request.bandwidth_metric)
    points = selected.points.reset_index(drop=True)
    missing: list[str] = []  # why there is no theoretical roof
    if theoretical and peak_flops is None:
        ceilings, missing = with_theoretical_ceilings(sums, points, ceilings)
    colour_column, keys = colour_keys(points, chained.chain is not None)
    coloring = Coloring(colour_column, tuple(keys), tuple(sampled_colors(cmap, len(keys))))
    drawn_by = "bqplot" if page is not None else backend  # a page is the widget's figure
    # a chain drawn by matplotlib is a sweep (scene.sweep): its runs, no comparison built
    swept = chained.chain if drawn_by == "matplotlib" else None
    scene = build_scene(
        sums, points, selection=selected.selection, coloring=coloring, ceilings=ceilings,
        peak_flops=peak_flops, peak_bandwidth=peak_bandwidth, levels=levels,
        baseline=chained.baseline if swept is None else None, match=match,
        canvas=STATIC_CANVAS if drawn_by == "matplotlib" else WIDGET_CANVAS,
        x_label=f"{X_LABEL}  ({selected.flops_metric} / {selected.bandwidth_metric})",
        no_flop_where=NO_FLOP_WHERE[drawn_by], notes=missing, strict=3,
        sweep=swept)
    roofline, table = scene.roofline, scene.point_rows
    if roofline is None:  # pragma: no cover - Roofline.from_ceilings raises instead
        raise ValueError("no ceilings")
    # the scene's notes: beyond the hardware, above the roofs, the ceilings', no FLOP work last
    notes = [*unjudged_notes(table), *scene.notes[2:-1]]
    payload = build_payload(sums, selected, roofline, table, table[scene.no_flop],
                            scene.notes[-1], scene.x_range, cmap, coloring)
    payload["ceiling_notes"] = notes
    payload["beyond_hardware_note"] = scene.notes[0]
    payload["above_roofs_note"] = scene.notes[1]
    payload["beyond_hardware"] = point_flag_texts(table)  # per point: an SVG title's line
    payload["chain"] = list(chained.chain.labels) if chained.chain is not None else []
    payload["scene"] = scene
    if scene.sweep is not None:
        payload["sweep"] = scene.sweep.frame
    if scene.comparison is not None:
        payload["comparison"] = scene.comparison.frame
    if scene.levels is not None:
        payload["levels"] = records(roofline.classify(scene.levels.frame))
        payload["level_findings"] = records(scene.levels.findings)
    page_writer: Callable[[str], None] | None = None
    if page is not None:  # the widget of these arguments draws the page (bqplot imported for it)
        from roofline_widget.static.html_export import write_html
        from roofline_widget.static.html_plot import plot_widget

        widget = plot_widget(profiling_data, selected.selection, ceilings=ceilings,
                             peak_flops=peak_flops, peak_bandwidth=peak_bandwidth, levels=levels,
                             baseline=chained.baseline, match=match, chain=chain)
        payload["widget"], figure, shown = widget, widget.figure.plot, widget
        page_writer = functools.partial(write_html, widget)
    elif backend == "matplotlib":
        figure = shown = matplotlib_figure.draw(scene)
    else:
        roofline_figure, legend = _bqplot_figure(scene)
        payload["roofline_figure"], payload["legend"] = roofline_figure, legend
        figure = roofline_figure.plot
        shown = _bqplot_view(figure, legend)
    payload["figure"] = figure
    # the box around what the matplotlib figure draws: its file's, then its own size
    box = tight_box(figure) if backend == "matplotlib" and page_writer is None else None
    writes = []
    if output_files.IMAGE in targets:
        image = targets[output_files.IMAGE]
        writes.append((image, image_writer(figure, image.format, box) if page_writer is None
                       else page_writer))
    if output_files.DATA in targets:
        data = targets[output_files.DATA]
        writes.append((data, data_writer(data.format, table, payload)))
    output_files.write_atomically(writes)
    if box is not None:  # after the file, cut from the canvas its texts were laid out on
        fit_to_drawing(figure, box)
    if verbose:
        _report(selected, roofline, [*scene.notes[:2], scene.notes[-1]], notes)
        if chained.chain is not None:
            _say(chained.chain.summary())
    if show:
        _show(shown)
    return payload


def _bqplot_figure(scene):
    """The widget's figure drawing ``scene`` (every point in its scatter: those doing almost no
    FLOPs outside the ranges), and its legend: the scene's colours in order, then its notes."""
    import ipywidgets as widgets

    from roofline_widget.widget.figure import RooflineFigure
    from roofline_widget.widget.html import legend_html
    from roofline_widget.widget.state import UpdateGuard

    figure = RooflineFigure(UpdateGuard())
    figure.draw(scene)
    coloring = scene.coloring
    legend = widgets.HTML(legend_html(list(coloring.categories), list(coloring.palette),
                                      _LEGEND_KIND[coloring.column],
                                      note=" ".join(filter(None, scene.notes)),
                                      points=scene.points.rows))
    legend.add_class("roofline-legend")
    return figure, legend


def _bqplot_view(figure, legend):
    """The bqplot figure with its legend below, as the notebook shows it (DOM class
    ``roofline-static``)."""
    import ipywidgets as widgets

    view = widgets.VBox([figure, legend])
    view.add_class("roofline-static")
    return view


def _show(figure) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the widget dependencies
        return
    display(figure)


def _report(selection, roofline: Roofline, point_notes: list[str], notes: list[str]) -> None:
    _say(f"Plotting roofline for {len(selection.points)} LIKWID region/rank point(s) "
         f"(FLOP metric {selection.flops_metric!r}, bandwidth metric "
         f"{selection.bandwidth_metric!r})")
    _say(f"Ceilings: {', '.join(r.label for r in roofline.compute + roofline.bandwidth)}; "
         f"ridge point {roofline.ridge_point():.4g} FLOP/byte")
    if len(selection.left_out):
        _say(selection.left_out_summary())
    for text in [*filter(None, point_notes), *notes]:
        _say(text)


def _say(text: str) -> None:
    """Print report lines for the terminal (names from files escaped, line by line)."""
    for line in str(text).split("\n"):
        print(terminal_text(line))
