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
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.ceilings import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.look import style
from roofline_widget.points import RegionSums, Selection, selection_parameters
from roofline_widget.points.arguments import PatternsArgument, RanksArgument
from roofline_widget.static import compare as static_compare
from roofline_widget.static import output_files
from roofline_widget.static.levels import draw_levels, level_findings, level_points
from roofline_widget.static.region_labels import place_region_labels

__all__ = ["BACKENDS", "DATA_FORMATS", "DEFAULT_CMAP", "NO_FLOP_WHERE", "plot_roofline"]

DEFAULT_CMAP = "tab20"
BACKENDS = ("matplotlib", "bqplot")
DATA_FORMATS = tuple(output_files.DATA_SUFFIXES)
#: Where the static figure shows the regions that do almost no FLOPs.
NO_FLOP_WHERE = "drawn as hollow triangles at the axis edge"
PLOT_DATA_FORMAT = "scope-profiler-plot-data"
PLOT_DATA_FORMAT_VERSION = 1
#: At most this many regions get a colour (and legend entry) of their own.
MAX_LEGEND_ENTRIES = 20
_GRID_POINTS = 160
#: Factor between the data (points and ridge point) and the intensity range drawn.
_INTENSITY_MARGIN = 2.0


# --------------------------------------------------------------------------
# argument checks (all before anything is computed or written)
# --------------------------------------------------------------------------
def _import_matplotlib():
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "plot_roofline(backend='matplotlib') needs matplotlib, an optional extra: "
            "pip install 'roofline-widget[static]' (or use backend='bqplot')") from exc
    return matplotlib, Figure, FigureCanvasAgg


def _check_arguments(backend, filepath, data_filepath, data_format) -> dict:
    """Check the arguments and every output path; the targets by kind (image, data)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {list(BACKENDS)}")
    data_format = str(data_format).lower()
    if data_format not in DATA_FORMATS:
        raise ValueError(f"unknown data_format {data_format!r}; use one of {list(DATA_FORMATS)}")
    if filepath is not None and backend == "bqplot":
        raise ValueError("a bqplot Figure can only be saved from the browser; "
                         "use backend='matplotlib' to write an image file")
    targets = {}
    if filepath is not None:
        targets[output_files.IMAGE] = output_files.image_target(filepath)
    if data_filepath is not None:
        targets[output_files.DATA] = output_files.data_target(data_filepath, data_format)
    output_files.check_targets(list(targets.values()))
    if backend == "matplotlib":
        _import_matplotlib()
    return targets


# --------------------------------------------------------------------------
# payload pieces
# --------------------------------------------------------------------------
def _colors(cmap: str, count: int) -> list[str]:
    """``count`` hex colours sampled evenly from a matplotlib colormap."""
    try:
        import matplotlib
        from matplotlib.colors import to_hex
    except ImportError:
        return [style.STRONG_COLORS[i % len(style.STRONG_COLORS)] for i in range(count)]
    try:
        colormap = matplotlib.colormaps[cmap]
    except KeyError:
        raise ValueError(f"unknown colormap {cmap!r}") from None
    listed = getattr(colormap, "colors", None)
    if listed is not None and len(listed) <= 32:
        # A qualitative map (tab10, tab20, Set1, ...): its colours in order, so
        # two runs get two distinct strong colours rather than both ends.
        # tab20 pairs each colour with a light shade: the ten strong ones first
        # (as the widget does), so that neighbours differ in hue.
        listed = style.strong_first(listed) if cmap == "tab20" else list(listed)
        return [to_hex(listed[i % len(listed)]) for i in range(count)]
    return [to_hex(c) for c in colormap(np.linspace(0, 1, max(count, 1)))][:count]


def _intensity_range(points: pd.DataFrame, roofline: Roofline) -> tuple[float, float]:
    """From half the smallest to twice the largest intensity, ridge point included.

    ``points`` are the bulk (:func:`~roofline_widget.look.style.split_flop_work`).
    """
    ridge = roofline.ridge_point()
    intensity = np.append(points[schema.INTENSITY].to_numpy(dtype=float),
                          ridge)
    return style.padded_range(intensity, _INTENSITY_MARGIN, (ridge, ridge))


def _roofline_rows(roofline: Roofline, x_min: float, x_max: float) -> list[dict]:
    """The roof sampled on a log grid (scope-profiler's rows), the ridge point included."""
    grid = np.logspace(math.log10(x_min), math.log10(x_max), _GRID_POINTS)
    grid = np.unique(np.append(grid, roofline.ridge_point()))
    return [{schema.INTENSITY: float(x), schema.PERFORMANCE: float(y)}
            for x, y in zip(grid, roofline.attainable(grid))]


def _hover_texts(points: pd.DataFrame, file_ranks: dict) -> list[str]:
    """HTML hover text per point; region and file names are escaped."""
    texts = []
    for row in points.itertuples(index=False):
        rank = f" (rank {row.rank})" if file_ranks.get(row.file, 1) > 1 else ""
        texts.append("<br>".join((
            f"<b>{html.escape(str(row.region))}</b>{rank}",
            f"run: {html.escape(str(row.file))}",
            f"intensity: {row.arithmetic_intensity_flops_per_byte:.6g} FLOP/byte",
            f"performance: {row.performance_gflops:.6g} GFLOP/s",
            f"bandwidth: {row.bandwidth_gbs:.6g} GB/s",
            f"efficiency: {row.efficiency_percent:.3g} % of attainable ({row.bound} bound)",
        )))
    return texts


def _colour_keys(points: pd.DataFrame) -> tuple[str, list]:
    """Colour by region for one run with few regions, else by run."""
    files = list(dict.fromkeys(points["file"]))
    regions = list(dict.fromkeys(points["region"]))
    if len(files) == 1 and len(regions) <= MAX_LEGEND_ENTRIES:
        return "region", regions
    return "file", files


def _plain(value):
    """JSON-safe Python value: NaN and infinities become None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, pd.DataFrame):  # payload["comparison"] of a plot with a baseline
        return _records(value)
    if value is pd.NA:  # nullable integer columns (n_threads of a region found in one run)
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [_plain(row) for row in frame.to_dict(orient="records")]


def _no_points_error(selection, flops_metric, bandwidth_metric) -> ValueError:
    wanted = (f"FLOP metric {selection.flops_metric!r}"
              f"{'' if flops_metric else ' (detected)'} and bandwidth metric "
              f"{selection.bandwidth_metric!r}{'' if bandwidth_metric else ' (detected)'}")
    if len(selection.left_out):
        detail = selection.left_out_summary()
    else:
        detail = "no region matched the ranks/include/exclude selection"
    return ValueError(f"No LIKWID roofline points found for {wanted}: {detail}")


# --------------------------------------------------------------------------
# export
# --------------------------------------------------------------------------
def _data_writer(data_format: str, table: pd.DataFrame, payload: dict):
    """``write(path)`` for the data file (see :func:`output_files.write_atomically`)."""
    if data_format == "csv":  # text cells that start like a formula get a leading '
        return lambda path: output_files.spreadsheet_safe(table).to_csv(path, index=False)
    if data_format == "parquet":
        return lambda path: table.to_parquet(path, index=False)
    return lambda path: _write_json(path, payload)


def _write_json(path, payload: dict) -> None:
    document = {"format": PLOT_DATA_FORMAT, "format_version": PLOT_DATA_FORMAT_VERSION,
                "plot": "roofline", **_plain({k: v for k, v in payload.items() if k != "figure"})}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, allow_nan=False)
        handle.write("\n")


# --------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------
def _title(roofline: Roofline) -> str:
    return "Roofline analysis" + (" (empirical ceilings)" if roofline.empirical else "")


def _image_writer(figure, image_format: str):
    """``write(path)`` for the image file (see :func:`output_files.write_atomically`)."""
    return lambda path: figure.savefig(path, format=image_format, bbox_inches="tight")


def _pin_no_flop(axes, no_flop: pd.DataFrame, colour_column: str, colour_map: dict,
                 note: str) -> None:
    """Draw the no-FLOP points at the edge of the (frozen) axis limits, and the note."""
    if not len(no_flop):
        return
    axes.autoscale_view()
    x_limits, y_limits = axes.get_xlim(), axes.get_ylim()
    x = no_flop[schema.INTENSITY].to_numpy(dtype=float)
    y = no_flop[schema.PERFORMANCE].to_numpy(dtype=float)
    # Pinned left (the usual case: intensity = GFLOP/s / bandwidth is tiny too), else down.
    markers = np.where(x < x_limits[0], "<", np.where(y < y_limits[0], "v", "o"))
    labelled = set()
    for key, marker, px, py in zip(no_flop[colour_column], markers, style.pinned(x, x_limits),
                                   style.pinned(y, y_limits)):
        label = None if key in labelled else f"{key} (almost no FLOPs: at the axis edge)"
        labelled.add(key)
        axes.scatter([px], [py], marker=marker, s=60, facecolors="none",
                     edgecolors=[colour_map.get(key, "0.3")], linewidths=1.4, zorder=5,
                     clip_on=False, label=label)
    axes.set_xlim(x_limits)
    axes.set_ylim(y_limits)
    axes.text(0.0, -0.12, note, transform=axes.transAxes, ha="left", va="top", fontsize=8,
              color="0.2", wrap=True)


def _label_slopes(axes, lines) -> None:
    """Write each bandwidth ceiling's label along its slope, just above it, from its left end.

    Called once the axis limits are final: the angle on screen depends on them.
    A horizontal label at the foot of a rising line is crossed by that line.
    """
    for line in lines:
        inside = [(x, y) for x, y in zip(line["x"], line["y"])
                  if axes.get_xlim()[0] <= x <= axes.get_xlim()[1]]
        if len(inside) < 2:
            continue
        (x0, y0), (x1, y1) = axes.transData.transform([inside[0], inside[-1]])
        angle = float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))
        axes.annotate(line["label"], inside[0], textcoords="offset points", xytext=(6, 4),
                      rotation=angle, rotation_mode="anchor", ha="left", va="bottom",
                      fontsize=8, color="0.25")


def _matplotlib_figure(points, lines, colour_column, colour_map, roofline, flops_metric,
                       bandwidth_metric):
    bulk, no_flop = style.split_flop_work(points)
    _, Figure, FigureCanvasAgg = _import_matplotlib()
    figure = Figure(figsize=(10, 6.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for line in lines:
        if line["kind"] == "roof":
            axes.plot(line["x"], line["y"], color="black", linewidth=2.0, label=line["label"],
                      zorder=3)
            continue
        dashes = ":" if line["empirical"] else "--"
        axes.plot(line["x"], line["y"], color="0.45", linewidth=1.0, linestyle=dashes, zorder=2)
        if line["kind"] == "compute":
            axes.annotate(line["label"], (line["x"][-1], line["y"][-1]), textcoords="offset points",
                          xytext=(0, 4), ha="right", fontsize=8, color="0.25")
    for key, colour in colour_map.items():
        chosen = bulk[bulk[colour_column] == key]
        if chosen.empty:
            continue  # only points at the axis edge (_pin_no_flop labels them)
        axes.scatter(chosen[schema.INTENSITY], chosen[schema.PERFORMANCE],
                     color=colour, label=str(key), s=36, edgecolor="black", linewidth=0.4, zorder=4)
    axes.set_xscale("log")
    axes.set_yscale("log")
    _pin_no_flop(axes, no_flop, colour_column, colour_map,
                 style.no_flop_work_text(no_flop, NO_FLOP_WHERE))
    _label_slopes(axes, [line for line in lines if line["kind"] == "bandwidth"])
    axes.set_xlabel(f"{style.X_LABEL}  ({flops_metric} / {bandwidth_metric})")
    axes.set_ylabel(style.Y_LABEL)
    axes.set_title(_title(roofline))
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    place_region_labels(axes, points)  # last: everything drawn so far is an obstacle
    return figure


def _bqplot_tooltip():
    """bqplot's own tooltip with the region, intensity and performance fields of ``style``."""
    import bqplot

    by_column = {field.column: field for field in style.TOOLTIP_FIELDS}
    shown = [by_column[c] for c in ("region", schema.INTENSITY,
                                    schema.PERFORMANCE)]
    return bqplot.Tooltip(fields=["name", "x", "y"], formats=[f.spec for f in shown],
                          labels=[f.label for f in shown])


def _bqplot_ranges(bulk: pd.DataFrame, lines: list[dict]) -> tuple[tuple, tuple]:
    """Scale limits that follow the bulk of the points and the ceilings drawn."""
    x = np.concatenate([bulk[schema.INTENSITY].to_numpy(dtype=float),
                        *[np.asarray(line["x"], dtype=float) for line in lines]])
    y = np.concatenate([bulk[schema.PERFORMANCE].to_numpy(dtype=float),
                        *[np.asarray(line["y"], dtype=float) for line in lines]])
    return (style.padded_range(x, 1.0, (0.01, 100.0)),
            style.padded_range(y, _INTENSITY_MARGIN, (0.1, 1000.0)))


def _bqplot_figure(points, lines, colour_column, colour_map, roofline):
    import bqplot

    bulk, no_flop = style.split_flop_work(points)
    (x_min, x_max), (y_min, y_max) = _bqplot_ranges(bulk, lines)
    x_scale = bqplot.LogScale(min=x_min, max=x_max)
    y_scale = bqplot.LogScale(min=y_min, max=y_max)
    outside = set(no_flop[colour_column]) - set(bulk[colour_column])
    scales = {"x": x_scale, "y": y_scale}
    marks = []
    for line in lines:
        roof = line["kind"] == "roof"
        marks.append(bqplot.Lines(
            x=line["x"], y=line["y"], scales=scales, labels=[line["label"]],
            display_legend=roof, colors=["black" if roof else "gray"],
            stroke_width=2.5 if roof else 1.0,
            line_style="solid" if roof else ("dotted" if line["empirical"] else "dashed")))
    for key, colour in colour_map.items():
        chosen = (points[colour_column] == key).to_numpy()
        subset = points[chosen]
        marks.append(bqplot.Scatter(
            x=subset[schema.INTENSITY].to_numpy(),
            y=subset[schema.PERFORMANCE].to_numpy(), scales=scales, colors=[colour],
            names=[str(r) for r in subset["region"]], display_names=False,
            labels=[f"{key} (almost no FLOPs: outside the axes)" if key in outside
                    else str(key)], display_legend=True,
            tooltip=_bqplot_tooltip()))
    axes = [bqplot.Axis(scale=x_scale, label=style.X_LABEL),
            bqplot.Axis(scale=y_scale, side="left", label=style.Y_LABEL)]
    return bqplot.Figure(marks=marks, axes=axes, title=_title(roofline), legend_location="bottom-right")


def _show(figure) -> None:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the widget dependencies
        return
    display(figure)


# --------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------
@selection_parameters("flops_metric, bandwidth_metric", "ranks", "include, exclude",
                      "combine_ranks", "selection")
def plot_roofline(profiling_data: object, *, flops_metric: str | None = None,
                  bandwidth_metric: str | None = None, peak_flops: float | None = None,
                  peak_bandwidth: float | None = None, ranks: RanksArgument = None,
                  include: PatternsArgument = None, exclude: PatternsArgument = None,
                  filepath: str | os.PathLike | None = None, show: bool = False,
                  verbose: bool = True, cmap: str = DEFAULT_CMAP,
                  data_filepath: str | os.PathLike | None = None, data_format: str = "csv",
                  backend: str = "matplotlib",
                  ceilings: Roofline | Sequence[ComputeRoof | BandwidthRoof] | None = None,
                  baseline: object = None,
                  match: Mapping[str, str] | Callable[[str], str | None] | None = None,
                  combine_ranks: bool = False, levels: Sequence[str] | str | None = None,
                  selection: Selection | None = None) -> dict:
    """Plot attained performance against arithmetic intensity for LIKWID regions.

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        What :func:`~roofline_widget.collect_roofline_points` accepts.
    {selection_parameters}
    peak_flops : float, optional
        Measured compute ceiling in GFLOP/s.  When omitted, the largest
        selected performance is used and labelled *empirical*.
    peak_bandwidth : float, optional
        Measured bandwidth ceiling in GB/s; empirical when omitted.
    filepath : str or path, optional
        Image to write, in the format its suffix names (any matplotlib can
        write: ``.png``, ``.svg``, ``.pdf``, ...,
        :func:`~roofline_widget.static.output_files.image_formats`); matplotlib
        backend only.
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
        returns a bqplot Figure under ``payload["figure"]``.
    ceilings : Roofline or sequence of ComputeRoof / BandwidthRoof, optional
        Several roofs to draw (L1/L2/L3/DRAM slopes, scalar/AVX compute
        roofs); ``peak_flops``/``peak_bandwidth`` then replace its top roofs.
        A kind the roofs lack comes from the peak or the points
        (:meth:`~roofline_widget.Roofline.from_ceilings`).
    levels : sequence of str, optional
        Memory levels to draw as a hierarchical roofline (``["L2", "L3",
        "MEM"]``; matplotlib backend only): one marker per level, the dots of
        a region joined; ``payload["levels"]`` holds their rows.
    baseline : run data or mapping, optional
        A run to compare with (or an ordered ``{label: run}`` chain ending at
        ``profiling_data``): hollow baseline points and a dashed arrow to each
        matched point (matplotlib only); the rows are ``payload["comparison"]``.
    match
        As for :func:`~roofline_widget.compare_points`.

    Returns
    -------
    dict
        ``points`` (scope-profiler point dicts), ``colors`` ({run label:
        hex}), ``file_ranks`` ({run label: number of ranks}),
        ``peak_flops_gflops``, ``peak_bandwidth_gbs``, ``empirical_ceilings``,
        ``roofline`` (rows of ``arithmetic_intensity_flops_per_byte`` and
        ``performance_gflops``, the ridge point included), plus
        ``ridge_point``, ``ceilings``, ``lines``, ``analysis`` (per point:
        attainable performance, efficiency, bound, above_roof),
        ``left_out``, ``hover`` (escaped HTML), ``flops_metric``,
        ``bandwidth_metric``, ``colour_by``, ``point_colors``,
        ``no_flop_work`` (the points doing almost no FLOPs,
        :func:`~roofline_widget.look.style.split_flop_work`: the axes follow the
        others, and they are drawn at the axis edge), ``no_flop_note`` (the
        note naming them, "" when there are none) and ``figure``.

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
    targets = _check_arguments(backend, filepath, data_filepath, data_format)
    if baseline is not None and backend != "matplotlib":
        raise NotImplementedError("plot_roofline(baseline=...) draws with matplotlib only; "
                                  "use backend='matplotlib' or RooflineWidget(data, baseline=...)")
    request = Selection.of(selection, flops_metric=flops_metric,
                           bandwidth_metric=bandwidth_metric, ranks=ranks, include=include,
                           exclude=exclude, combine_ranks=combine_ranks)
    sums = RegionSums.from_runs(profiling_data)
    selected = sums.select(request)
    selected.warn()
    if selected.points.empty:
        raise _no_points_error(selected, request.flops_metric, request.bandwidth_metric)
    points = selected.points
    level_frame = level_points(sums, levels, backend=backend,
                               selection=selected.selection)  # memory levels (static_levels.py)
    roofline = Roofline.from_ceilings(ceilings, peak_flops, peak_bandwidth, points)
    table = roofline.classify(points)
    bulk, no_flop = style.split_flop_work(table)
    comparison = None if baseline is None else static_compare.comparison_frame(
        baseline, sums, selection=selected.selection, match=match)
    x_min, x_max = _intensity_range(
        static_compare.with_baseline(pd.concat([bulk, level_frame]), comparison), roofline)
    lines = roofline.lines(x_min, x_max)

    file_ranks = {label: len(run.ranks) for label, run in zip(sums.files, sums.runs)}
    files = list(dict.fromkeys(points["file"]))
    colors = dict(zip(files, _colors(cmap, len(files))))
    colour_column, keys = _colour_keys(points)
    colour_map = colors if colour_column == "file" else dict(zip(keys, _colors(cmap, len(keys))))
    hover = _hover_texts(table, file_ranks)

    no_flop_note = style.no_flop_work_text(no_flop, NO_FLOP_WHERE)
    payload = {
        "points": selected.to_dicts(),
        "colors": colors,
        "file_ranks": file_ranks,
        "peak_flops_gflops": roofline.peak_flops,
        "peak_bandwidth_gbs": roofline.peak_bandwidth,
        "empirical_ceilings": roofline.empirical,
        "roofline": _roofline_rows(roofline, x_min, x_max),
        "ridge_point": roofline.ridge_point(),
        "ceilings": roofline.to_dicts(),
        "lines": lines,
        "analysis": _records(table[["attainable_gflops", "efficiency_percent", "bound",
                                    "above_roof"]]),
        "left_out": _records(selected.left_out[["file", "region", "rank", "reason"]]),
        "hover": hover,
        "flops_metric": selected.flops_metric,
        "bandwidth_metric": selected.bandwidth_metric,
        "colour_by": colour_column,
        "point_colors": {str(k): v for k, v in colour_map.items()},
        "no_flop_work": _records(no_flop[["file", "region", "rank", schema.PERFORMANCE,
                                          schema.INTENSITY]]),
        "no_flop_note": no_flop_note,
    }
    if backend == "matplotlib":
        figure = _matplotlib_figure(table, lines, colour_column, colour_map, roofline,
                                    selected.flops_metric, selected.bandwidth_metric)
        if comparison is not None:  # arrows from the baseline (static_compare.py)
            payload["comparison"] = comparison
            static_compare.draw_comparison(figure.axes[0], comparison, static_compare.row_colours(
                comparison, colour_column, colour_map))
        if level_frame is not None:
            findings = level_findings(sums, level_frame, roofline, selection=selected.selection)
            draw_levels(figure.axes[0], level_frame, colour_column, colour_map, findings)
            payload["levels"] = _records(level_frame)
            payload["level_findings"] = _records(findings)
    else:
        figure = _bqplot_figure(table, lines, colour_column, colour_map, roofline)
    payload["figure"] = figure
    writes = []
    if output_files.IMAGE in targets:
        image = targets[output_files.IMAGE]
        writes.append((image, _image_writer(figure, image.format)))
    if output_files.DATA in targets:
        data = targets[output_files.DATA]
        writes.append((data, _data_writer(data.format, table, payload)))
    output_files.write_atomically(writes)
    if verbose:
        _report(selected, roofline, no_flop_note)
    if show:
        _show(figure)
    return payload


def _report(selection, roofline: Roofline, no_flop_note: str) -> None:
    print(f"Plotting roofline for {len(selection.points)} LIKWID region/rank point(s) "
          f"(FLOP metric {selection.flops_metric!r}, bandwidth metric "
          f"{selection.bandwidth_metric!r})")
    print(f"Ceilings: {', '.join(r.label for r in roofline.compute + roofline.bandwidth)}; "
          f"ridge point {roofline.ridge_point():.4g} FLOP/byte")
    if len(selection.left_out):
        print(selection.left_out_summary())
    if no_flop_note:
        print(no_flop_note)
