"""``RooflineWidget``: an interactive roofline of LIKWID measurements (ipywidgets + bqplot).

The widget aggregates the runs ONCE (:class:`~roofline_widget.points.RegionSums`)
and keeps one bqplot figure whose marks are updated in place:

* a change of metric, ranks, "sum over ranks", include/exclude pattern or point budget selects
  new points from the pre-aggregated sums and replaces the Scatter's data in
  one ``hold_sync``;
* a change of a peak only moves the ceiling lines and the ridge marker (the
  efficiency and bound columns are derived from the current ceilings when
  they are asked for); the point arrays are not sent again.

Everything new is computed before anything is assigned, so an exception
never leaves the widget half-updated.  Region names come from users' code
and are HTML-escaped wherever they reach HTML (tooltip, legend, left-out
table, status line).
"""

from __future__ import annotations

import html
import math
from collections import deque
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import bqplot as bq
from bqplot.interacts import BrushSelector, LassoSelector, PanZoom
import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets
from traitlets import Any, Bool, CFloat, Enum, Int, List, TraitError, Unicode, observe, validate

from .ceilings import BandwidthRoof, ComputeRoof, Roofline
from .points import ALL_RANKS, RegionSums, compile_patterns, normalize_ranks

__all__ = ["RooflineWidget", "POINT_KEY"]

#: The columns that identify one point; ``RooflineWidget.selected`` holds such tuples.
POINT_KEY = ("file", "rank", "region")
X_LABEL = "Arithmetic intensity [FLOP/byte]"
Y_LABEL = "Performance [GFLOP/s]"
DEFAULT_MAX_POINTS = 5000
#: matplotlib's "tab20", the reference implementation's default colour map: a dark
#: and a light shade of each of the ten "tab10" colours.
TAB20 = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
         "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
         "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")
#: Point colours: the strong shades first (tab10's order), then the light ones.
PALETTE = TAB20[0::2] + TAB20[1::2]
LEFT_OUT_ROWS_SHOWN = 500
LEGEND_ENTRIES_SHOWN = 20
_COLOR_COLUMN = {"region": "region", "run": "file", "rank": "rank"}
_LINE_COLORS = {"bandwidth": "#3d5a80", "compute": "#9b3d2a"}
_RIDGE_COLOR = "#6b6b6b"
_LABEL_SIZE = 12              # px, ceiling and ridge labels
_LABEL_OFFSET = (-5, -9)      # px: ceiling labels end left of and sit above their anchor
#: Plots at least this wide (px, inside the axes) keep every label inside (estimated).
_MIN_PLOT_PX = 700
#: A bandwidth label's right end sits at least this far (a fraction of the decades)
#: along the part of its slope inside the axes.
_SLOPE_LABEL_ALONG = 0.2
#: Axis limits inside which ticks read best as plain numbers; outside, as powers of ten.
_PLAIN_TICKS = (1e-3, 1e4)
_DESCRIPTION_WIDTH = "100px"
_COLUMN_WIDTH = "400px"
_POINTS_PER_LINE = 3          # every ceiling line is padded to this many vertices
_DEFAULT_X_RANGE = (0.01, 100.0)
_DEFAULT_Y_RANGE = (0.1, 1000.0)
_MARGIN = 3.0                 # factor between the data and the axis limits
_SLIDER_STEP = 0.0001         # peak sliders' step in decades (0.023 %)


# --------------------------------------------------------------------------
# pure helpers (no widget state)
# --------------------------------------------------------------------------
@dataclass
class _PointState:
    """What one selection of points looks like: computed first, then assigned."""

    points: pd.DataFrame
    shown: pd.DataFrame
    left_out: pd.DataFrame
    flops_metric: str | None
    bandwidth_metric: str | None
    notes: list = field(default_factory=list)
    error: str = ""

    @property
    def over_budget(self) -> bool:
        return len(self.shown) < len(self.points)


def _key_index(frame: pd.DataFrame) -> pd.MultiIndex:
    """The (file, rank, region) keys of a points frame as a MultiIndex."""
    return pd.MultiIndex.from_arrays(
        [frame["file"].astype(object).to_numpy(), frame["rank"].to_numpy(dtype=np.int64),
         frame["region"].astype(object).to_numpy()], names=POINT_KEY)


def _normalize_key(key) -> tuple:
    """``(file, rank, region)`` from a tuple/list or a dict with those keys."""
    if isinstance(key, dict):
        try:
            key = tuple(key[name] for name in POINT_KEY)
        except KeyError as exc:
            raise TraitError(f"a selected point needs the keys {POINT_KEY}, got {key!r}") from exc
    if not isinstance(key, (tuple, list)) or len(key) != len(POINT_KEY):
        raise TraitError(f"a selected point is a (file, rank, region) tuple, got {key!r}")
    file, rank, region = key
    try:
        rank = int(rank)
    except (TypeError, ValueError):
        raise TraitError(f"the rank of a selected point must be an integer, got {rank!r}") from None
    return str(file), rank, str(region)


def _apply_budget(points: pd.DataFrame, max_points: int) -> pd.DataFrame:
    """The points to draw: all, or the ``max_points`` longest-running ones."""
    if len(points) <= max_points:
        return points
    order = points.sort_values("runtime_seconds", ascending=False, na_position="last",
                               kind="stable")
    return order.head(max_points).reset_index(drop=True)


def _positive(values) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return values[np.isfinite(values) & (values > 0)]


def _axis_ranges(points: pd.DataFrame, roofline: Roofline | None):
    """Log-axis limits that hold every point, every ridge point and the roofs."""
    x = _positive(points["arithmetic_intensity_flops_per_byte"])
    y = _positive(points["performance_gflops"])
    if roofline is not None:
        ridges = [roofline.ridge_point(bandwidth=b) for b in roofline.bandwidth]
        # Room right of the ridge points for the compute roofs (marks are clipped
        # to the plot area).
        ridges += [10 * r.gflops / roofline.peak_bandwidth for r in roofline.compute]
        x = np.concatenate([x, ridges])
        y = np.concatenate([y, [r.gflops for r in roofline.compute]])
    x_range = (x.min() / _MARGIN, x.max() * _MARGIN) if x.size else _DEFAULT_X_RANGE
    if roofline is not None:
        x_range = (x_range[0], max(x_range[1], _ridge_label_end(roofline.ridge_point(),
                                                                x_range[0])))
    y_range = (y.min() / _MARGIN, y.max() * _MARGIN) if y.size else _DEFAULT_Y_RANGE
    return tuple(map(float, x_range)), tuple(map(float, y_range))


def _text_px(text: str) -> float:
    """Rough width in pixels of a label (``_LABEL_SIZE`` px sans-serif) with its offset."""
    return 0.55 * _LABEL_SIZE * len(text) + 10


def _ridge_text(ridge: float) -> str:
    return f"ridge {ridge:.3g} FLOP/byte"


def _ridge_label_end(ridge: float, x_low: float) -> float:
    """The intensity up to which the x axis must reach for the ridge label to fit.

    The label starts at the ridge; in a plot ``_MIN_PLOT_PX`` wide whose
    axis starts at ``x_low`` it takes ``width / (_MIN_PLOT_PX - width)`` of
    the decades left of the ridge.
    """
    width = _text_px(_ridge_text(ridge))
    decades = max(math.log10(ridge / x_low), 1.0) * width / (_MIN_PLOT_PX - width)
    return ridge * 10 ** decades


def _pad(values) -> list:
    return list(values) + [values[-1]] * (_POINTS_PER_LINE - len(values))


def _roof_marks_data(roofline: Roofline | None, x_range, y_range) -> dict:
    """Arrays for the ceiling Lines and labels, the main roof and the ridge marks."""
    if roofline is None:
        return {}
    segments = roofline.lines(*x_range)
    ceilings = [s for s in segments if s["kind"] != "roof"]
    roof = segments[-1]
    ridge_x = roofline.ridge_point()
    label_x, label_y = _label_anchors(ceilings, x_range, y_range)
    return {
        "ceiling_x": np.array([_pad(s["x"]) for s in ceilings]),
        "ceiling_y": np.array([_pad(s["y"]) for s in ceilings]),
        "ceiling_labels": [_line_label(s) for s in ceilings],
        "ceiling_colors": [_LINE_COLORS[s["kind"]] for s in ceilings],
        "label_x": label_x,
        "label_y": label_y,
        "roof_x": np.array(roof["x"]),
        "roof_y": np.array(roof["y"]),
        "roof_labels": [roof["label"]],
        "ridge_x": np.array([ridge_x]),
        "ridge_y": np.array([roofline.peak_flops]),
        "ridge_text": [_ridge_text(ridge_x)],
    }


def _label_anchors(ceilings: list[dict], x_range, y_range):
    """Where each ceiling label ends (right-aligned text, drawn just above the point).

    A compute roof's label ends at the right edge of the plot, on its line; a
    bandwidth slope's label sits on the lower-left part of the slope that is
    inside the axes, far enough from the left edge for the text.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        x and y of the anchors, in data units, one per ceiling.
    """
    lx0, lx1 = np.log10(x_range)
    ly0, ly1 = np.log10(y_range)
    values = np.array([s["value"] for s in ceilings], dtype=float)
    bandwidth = np.array([s["kind"] == "bandwidth" for s in ceilings])
    slope_end = np.log10([s["x"][-1] for s in ceilings])
    log_b = np.log10(values)
    start = np.maximum(lx0, ly0 - log_b)              # the slope enters the axes here
    end = np.minimum.reduce([slope_end, np.full_like(log_b, lx1), ly1 - log_b])
    # Room for the text left of the anchor, in a plot _MIN_PLOT_PX wide.
    room = np.array([_text_px(_line_label(s)) for s in ceilings]) / _MIN_PLOT_PX
    anchor = np.maximum(start + _SLOPE_LABEL_ALONG * (end - start), lx0 + room * (lx1 - lx0))
    anchor = np.minimum(anchor, np.maximum(end, start))
    x = np.where(bandwidth, 10.0 ** anchor, x_range[1])
    y = np.where(bandwidth, values * x, values)
    return x, y


def _tick_format(low: float, high: float) -> str:
    """d3 format of a log axis' ticks: plain numbers, or powers of ten over a wide range."""
    if _PLAIN_TICKS[0] <= low and high <= _PLAIN_TICKS[1]:
        return "~g"
    return ".0e"


def _line_label(segment: dict) -> str:
    """Name and value of a ceiling, short enough to sit at the line's end."""
    unit = "GB/s" if segment["kind"] == "bandwidth" else "GFLOP/s"
    empirical = " (empirical)" if segment["empirical"] else ""
    return f"{segment['name']}: {segment['value']:.4g} {unit}{empirical}"


_LEGEND_STYLE = ("display:flex;flex-wrap:wrap;align-items:center;column-gap:18px;"
                 "row-gap:2px;line-height:1.5")


def _legend_entry(color: str, name: str) -> str:
    """One legend entry: a dot in the points' style and the escaped full name."""
    dot = (f"<span style='display:inline-block;width:10px;height:10px;border-radius:50%;"
           f"background:{color};border:1px solid #222;margin-right:6px'></span>")
    return (f"<span title='{html.escape(name, quote=True)}' style='white-space:nowrap'>"
            f"{dot}{html.escape(name)}</span>")


def _control_style(width: str = _COLUMN_WIDTH) -> dict:
    """Keyword arguments of a control whose description has the common width."""
    return {"style": {"description_width": _DESCRIPTION_WIDTH},
            "layout": widgets.Layout(width=width)}


def _rank_text(rank) -> str:
    """A rank as shown to users: ``"all ranks"`` for the combined rank -1."""
    return "all ranks" if rank == ALL_RANKS else str(rank)


def _left_out_html(left_out: pd.DataFrame) -> str:
    """The left-out rows as an escaped HTML table (at most LEFT_OUT_ROWS_SHOWN rows)."""
    if len(left_out) == 0:
        return "<p>No region left out.</p>"
    table = left_out.head(LEFT_OUT_ROWS_SHOWN)[["file", "region", "rank", "reason"]]
    table = table.assign(rank=table["rank"].map(_rank_text))
    text = table.to_html(index=False, escape=True, border=0, classes="roofline-left-out")
    if len(left_out) > LEFT_OUT_ROWS_SHOWN:
        text += (f"<p>... and {len(left_out) - LEFT_OUT_ROWS_SHOWN:,} more row(s): "
                 "see <code>left_out_dataframe()</code>.</p>")
    return text


def _tooltip_html(row: pd.Series) -> str:
    """Hover text of one classified point; every value escaped."""
    def fmt(value, spec=".4g"):
        return "n/a" if value is None or value != value else format(value, spec)

    fields = [
        ("region", row["region"]), ("run", row["file"]), ("rank", _rank_text(row["rank"])),
        ("GFLOP/s", fmt(row["performance_gflops"])), ("GB/s", fmt(row["bandwidth_gbs"])),
        ("FLOP/byte", fmt(row["arithmetic_intensity_flops_per_byte"])),
        ("efficiency %", fmt(row["efficiency_percent"], ".1f")), ("bound", row["bound"]),
    ]
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
                    f"<td>{html.escape(str(value))}</td></tr>" for name, value in fields)
    return f"<table>{cells}</table>"


def _classify(points: pd.DataFrame, roofline: Roofline | None) -> pd.DataFrame:
    """Points with attainable performance, efficiency, bound and above_roof."""
    if roofline is not None:
        return roofline.classify(points).reset_index(drop=True)
    out = points.copy()
    out["attainable_gflops"] = np.nan
    out["efficiency_percent"] = np.nan
    out["bound"] = np.full(len(out), "n/a", dtype=object)
    out["above_roof"] = np.zeros(len(out), dtype=bool)
    return out.reset_index(drop=True)


def _check_ceilings(ceilings) -> tuple:
    ceilings = tuple(ceilings or ())
    bad = [c for c in ceilings if not isinstance(c, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError(f"ceilings must be ComputeRoof or BandwidthRoof objects, got {bad[0]!r}")
    return ceilings


def _fit_slider(slider: widgets.FloatLogSlider, value: float) -> None:
    """Widen a log slider's exponent range (never narrow it) so that it holds ``value``."""
    exponent = math.log10(value)
    if exponent < slider.min:
        slider.min = math.floor(exponent) - 1
    if exponent > slider.max:
        slider.max = math.ceil(exponent) + 1


class _OptionalUnicode(Unicode):
    """Unicode that passes None on to the widget's ``@validate`` (which maps it).

    traitlets skips cross-validation for None when ``allow_none`` is set, so
    None is let through here instead.
    """

    def validate(self, obj, value):
        return None if value is None else super().validate(obj, value)


@contextmanager
def _holding(*items):
    """``hold_sync`` on several widgets at once: one message per widget."""
    with ExitStack() as stack:
        for item in items:
            stack.enter_context(item.hold_sync())
        yield


# --------------------------------------------------------------------------
# the widget
# --------------------------------------------------------------------------
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
        Initial values of the traits below (``flops_metric="DP [MFLOP/s]"``,
        ``peak_flops=2048``, ...) and ipywidgets Box options (``layout``).

    Attributes
    ----------
    flops_metric, bandwidth_metric : str or None
        Exact LIKWID metric names (None: detected).  An unknown name raises
        ``TraitError`` naming the valid ones.
    ranks : list of int or None
        Ranks to show (None: all).  Unknown ranks raise ``TraitError``.
    combine_ranks : bool
        Sum the shown ranks into one point per region and run ("sum over
        ranks": every rank's FLOPs over the bandwidth of the ranks that
        measured it, as likwid-mpirun measures memory on one rank per
        socket).  The combined points have rank -1, shown as "all ranks";
        ``ranks`` chooses which ranks are summed.
    include, exclude : str
        Regular expressions matched at the start of region names (``""``: no
        filter).  An invalid pattern is shown as a message and no points are
        drawn until it is fixed.
    peak_flops, peak_bandwidth : float or None
        Ceilings in GFLOP/s and GB/s; None: the largest observation (an
        *empirical* ceiling).  Non-positive values raise ``TraitError``.
    color_by : {"region", "run", "rank"}
    size_by : {"none", "runtime"}
    max_points : int
        Most points drawn (SVG); above it the longest-running are drawn and
        the status line says so.  The DataFrame exports hold all points.
    selected : list of (file, rank, region) tuples
        The selected points, by key (set by click, brush and lasso too); rank
        -1 with ``combine_ranks``.
    message : str
        The error or remark shown above the figure (read-only).

    Examples
    --------
    >>> from roofline_widget import RooflineWidget, read_likwid, sample_path
    >>> w = RooflineWidget(read_likwid(sample_path(
    ...     "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")))
    >>> len(w.to_dataframe())
    2
    """

    flops_metric = _OptionalUnicode(None, help="FLOP-rate metric name").tag(sync=True)
    bandwidth_metric = _OptionalUnicode(None, help="bandwidth metric name").tag(sync=True)
    ranks = Any(None, allow_none=True, help="ranks to show, None for all").tag(sync=True)
    combine_ranks = Bool(False, help="one point per region: the ranks summed").tag(sync=True)
    include = _OptionalUnicode("", help="regex of regions to show").tag(sync=True)
    exclude = _OptionalUnicode("", help="regex of regions to hide").tag(sync=True)
    peak_flops = CFloat(None, allow_none=True, help="GFLOP/s, None: empirical").tag(sync=True)
    peak_bandwidth = CFloat(None, allow_none=True, help="GB/s, None: empirical").tag(sync=True)
    color_by = Enum(("region", "run", "rank"), "region").tag(sync=True)
    size_by = Enum(("none", "runtime"), "none").tag(sync=True)
    max_points = Int(DEFAULT_MAX_POINTS, help="most points drawn").tag(sync=True)
    selected = List(help="selected points as (file, rank, region) tuples")
    message = Unicode("", read_only=True, help="error or remark shown with the plot")

    def __init__(self, data, *, ceilings=(), **options):
        self._ready = False
        self._reverting = False
        self._quiet = 0
        # The last values the kernel put on each peak slider (see _on_peak_slider).
        self._slider_values = {name: deque(maxlen=8) for name in ("peak_flops", "peak_bandwidth")}
        self._sums = RegionSums.from_runs(data)
        self._extra_ceilings = _check_ceilings(ceilings)
        self._state: _PointState | None = None
        self._roofline: Roofline | None = None
        self._main_roofline: Roofline | None = None
        self._size_range = self._runtime_log_range()
        self._build_figure()
        self._build_controls()
        super().__init__(children=self._layout_children(), **options)
        self.add_class("roofline-widget")
        for name in ("flops_metric", "bandwidth_metric", "include", "exclude"):
            if getattr(self, name) is None:
                setattr(self, name, None)  # the validator maps None (detect / no pattern)
        self._link_controls()
        self._ready = True
        self._apply_colors()
        self._refresh_points()
        self._fit_sliders_to_data()

    # ------------------------------------------------------------ building
    def _build_figure(self) -> None:
        self._xs = bq.LogScale()
        self._ys = bq.LogScale()
        # A fixed scale (code i is PALETTE[i]): only the points' codes change with
        # ``color_by``, in one message, so the browser never mixes old codes and new colours.
        self._cs = bq.ColorScale(colors=list(PALETTE), min=0, max=len(PALETTE) - 1)
        self._ss = bq.LinearScale(min=0, max=1)
        self._tooltip = widgets.HTML()
        self._tooltip.add_class("roofline-tooltip")
        self._scatter = bq.Scatter(
            x=np.zeros(0), y=np.zeros(0), color=np.zeros(0),
            scales={"x": self._xs, "y": self._ys, "color": self._cs, "size": self._ss},
            default_size=90, stroke="#222222", stroke_width=0.8, tooltip=self._tooltip,
            interactions={"click": "select", "hover": "tooltip"},
            # bqplot applies these only while a selection exists.
            selected_style={"opacity": 1.0, "stroke": "black", "stroke-width": 2.5},
            unselected_style={"opacity": 0.45})
        self._scatter.on_hover(self._on_hover)
        self._scatter.observe(self._on_scatter_selected, names="selected")
        lines_scales = {"x": self._xs, "y": self._ys}
        # The ceilings' labels are drawn by ``_ceiling_text``, on the lines inside the
        # plot (the Lines' own labels sit at the line ends, clipped at the right edge).
        self._ceilings = bq.Lines(
            x=np.ones((1, _POINTS_PER_LINE)), y=np.ones((1, _POINTS_PER_LINE)),
            scales=lines_scales, line_style="dashed", stroke_width=1.5,
            labels_visibility="none", visible=False)
        self._roof = bq.Lines(
            x=np.ones(2), y=np.ones(2), scales=lines_scales, colors=["black"],
            stroke_width=3, visible=False)
        # Labels, not Scatters: the browser tests count the points' ``.dot`` elements.
        self._ceiling_text = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=lines_scales,
            default_size=_LABEL_SIZE, font_weight="normal", align="end",
            x_offset=_LABEL_OFFSET[0], y_offset=_LABEL_OFFSET[1], visible=False)
        self._ridge = bq.Label(
            x=np.ones(1), y=np.ones(1), text=[""], scales=lines_scales, colors=[_RIDGE_COLOR],
            default_size=_LABEL_SIZE, font_weight="normal", align="start", x_offset=6,
            y_offset=12, visible=False)
        self._x_axis = bq.Axis(scale=self._xs, label=X_LABEL, tick_format="~g",
                               grid_color="#e6e6e6", label_offset="36px")
        self._y_axis = bq.Axis(scale=self._ys, label=Y_LABEL, side="left", tick_format="~g",
                               grid_color="#e6e6e6", label_offset="52px")
        # bqplot's PanZoom swallows hover and click (bqplot issue #1352): "inspect"
        # (no figure interaction) gives tooltips and click selection.
        self._interactions = {
            "inspect": None,
            "pan-zoom": PanZoom(scales={"x": [self._xs], "y": [self._ys]}),
            "brush": BrushSelector(x_scale=self._xs, y_scale=self._ys,
                                      marks=[self._scatter], color="steelblue"),
            "lasso": LassoSelector(x_scale=self._xs, y_scale=self._ys,
                                      marks=[self._scatter]),
        }
        self._figure = bq.Figure(
            marks=[self._ceilings, self._roof, self._ceiling_text, self._ridge,
                   self._scatter],
            axes=[self._x_axis, self._y_axis], interaction=None,
            fig_margin={"top": 24, "bottom": 50, "left": 70, "right": 16},
            layout=widgets.Layout(width="100%", min_width="520px", height="500px"))
        self._figure.add_class("roofline-figure")
        for scale in (self._xs, self._ys):
            scale.observe(self._on_zoom, names=["min", "max"])

    def _peak_controls(self, label: str, css: str):
        slider = widgets.FloatLogSlider(
            value=1.0, base=10, min=-2, max=4, step=_SLIDER_STEP, description=label,
            readout_format=".4g", **_control_style("308px"))
        slider.add_class(css)
        empirical = widgets.Checkbox(value=True, description="empirical", indent=False,
                                     layout=widgets.Layout(width="92px"))
        return slider, empirical

    def _build_controls(self) -> None:
        sums = self._sums
        self._flops_choice = widgets.Dropdown(options=sums.flop_metrics, description="FLOP rate",
                                              disabled=not sums.flop_metrics, **_control_style())
        self._bandwidth_choice = widgets.Dropdown(options=sums.bandwidth_metrics,
                                                  description="Bandwidth",
                                                  disabled=not sums.bandwidth_metrics,
                                                  **_control_style())
        self._rank_choice = widgets.SelectMultiple(
            options=[(str(r), r) for r in sums.ranks], description="Ranks",
            rows=min(max(len(sums.ranks), 1), 5),
            style={"description_width": "50px"}, layout=widgets.Layout(width="140px"))
        self._combine_box = widgets.Checkbox(description="sum over ranks", indent=False,
                                             layout=widgets.Layout(width="130px"))
        self._combine_box.add_class("roofline-combine-ranks")
        self._include_text = widgets.Text(description="Include",
                                          placeholder="regex, e.g. function_",
                                          **_control_style())
        self._include_text.add_class("roofline-include")
        self._exclude_text = widgets.Text(description="Exclude", placeholder="regex",
                                          **_control_style())
        self._exclude_text.add_class("roofline-exclude")
        self._flops_slider, self._flops_empirical = self._peak_controls(
            "Peak [GFLOP/s]", "roofline-peak-flops")
        self._bandwidth_slider, self._bandwidth_empirical = self._peak_controls(
            "Peak [GB/s]", "roofline-peak-bandwidth")
        self._color_choice = widgets.Dropdown(options=["region", "run", "rank"],
                                              description="Colour by", **_control_style("200px"))
        self._size_choice = widgets.Dropdown(options=["none", "runtime"], description="Size by",
                                             **_control_style("200px"))
        self._interaction_choice = widgets.ToggleButtons(
            options=list(self._interactions), value="inspect",
            tooltips=["hover for details, click to select", "pan and zoom",
                      "select with a rectangle", "select with a free shape"],
            style={"button_width": "96px"})
        self._interaction_choice.add_class("roofline-interaction")
        self._interaction_choice.observe(self._on_interaction, names="value")
        self._reset_button = widgets.Button(description="Reset view", icon="home",
                                            layout=widgets.Layout(width="110px"))
        self._reset_button.on_click(lambda _: self.reset_view())
        self._message_html = widgets.HTML()
        self._message_html.add_class("roofline-message")
        self._status_html = widgets.HTML()
        self._status_html.add_class("roofline-status")
        self._legend_html = widgets.HTML(layout=widgets.Layout(width="100%",
                                                               margin="0 0 0 70px"))
        self._left_out_html = widgets.HTML()
        self._left_out = widgets.Accordion(children=[self._left_out_html])
        self._left_out.set_title(0, "Left out")
        self._left_out.add_class("roofline-left-out")

    def _layout_children(self) -> list:
        def row(*children):
            # Rows wrap on narrow screens instead of overflowing.
            return widgets.HBox(list(children), layout=widgets.Layout(
                flex_flow="row wrap", align_items="center", margin="0 0 2px 0"))

        def column(*children):
            return widgets.HBox(list(children), layout=widgets.Layout(width=_COLUMN_WIDTH))

        controls = widgets.VBox([
            row(column(self._flops_choice), column(self._bandwidth_choice)),
            row(column(self._include_text), column(self._exclude_text), self._rank_choice,
                self._combine_box),
            row(column(self._flops_slider, self._flops_empirical),
                column(self._bandwidth_slider, self._bandwidth_empirical)),
            row(self._color_choice, self._size_choice, self._interaction_choice,
                self._reset_button),
        ], layout=widgets.Layout(padding="6px 4px", margin="0 0 6px 0",
                                 border="1px solid #e0e0e0"))
        return [
            controls,
            self._message_html,
            self._figure,
            self._legend_html,
            self._status_html,
            self._left_out,
        ]

    def _link_controls(self) -> None:
        link = traitlets.link
        link((self, "flops_metric"), (self._flops_choice, "value"))
        link((self, "bandwidth_metric"), (self._bandwidth_choice, "value"))
        link((self, "include"), (self._include_text, "value"))
        link((self, "exclude"), (self._exclude_text, "value"))
        link((self, "combine_ranks"), (self._combine_box, "value"))
        link((self, "color_by"), (self._color_choice, "value"))
        link((self, "size_by"), (self._size_choice, "value"))
        all_ranks = tuple(self._sums.ranks)
        link((self, "ranks"), (self._rank_choice, "value"),
             transform=(lambda r: all_ranks if r is None else tuple(r),
                        lambda v: None if set(v) == set(all_ranks) else list(v)))
        for trait, slider, box in self._peak_widgets():
            slider.observe(lambda change, t=trait: self._on_peak_slider(t, change),
                           names="value")
            box.observe(lambda change, t=trait, s=slider: self._on_peak_box(t, s, change),
                        names="value")

    def _peak_widgets(self):
        return (("peak_flops", self._flops_slider, self._flops_empirical),
                ("peak_bandwidth", self._bandwidth_slider, self._bandwidth_empirical))

    @contextmanager
    def _quietly(self):
        """While active, control and Scatter observers do not write traits back."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

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
        return self._valid_metric(proposal.value, self._sums.flop_metrics,
                                  self._sums.detect_flops_metric, "FLOP-rate")

    @validate("bandwidth_metric")
    def _validate_bandwidth_metric(self, proposal):
        return self._valid_metric(proposal.value, self._sums.bandwidth_metrics,
                                  self._sums.detect_bandwidth_metric, "bandwidth")

    @validate("ranks")
    def _validate_ranks(self, proposal):
        try:
            ranks = normalize_ranks(proposal.value)
        except ValueError as exc:
            raise TraitError(str(exc)) from None
        if ranks is None:
            return None
        unknown = sorted(set(ranks) - set(self._sums.ranks))
        if unknown:
            raise TraitError(f"unknown rank(s) {unknown}; valid ranks: {self._sums.ranks}")
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
        keys = list(dict.fromkeys(_normalize_key(k) for k in proposal.value))
        if keys and self._state is not None:
            known = pd.MultiIndex.from_tuples(keys).isin(_key_index(self._state.points))
            if not known.all():
                unknown = [k for k, ok in zip(keys, known) if not ok]
                raise TraitError(f"{len(unknown)} selected key(s) are not among the current "
                                 f"points, e.g. {unknown[0]!r}; keys are (file, rank, region)")
        return keys

    # ------------------------------------------------------------ observers
    @observe("flops_metric", "bandwidth_metric", "ranks", "combine_ranks", "include", "exclude",
             "max_points")
    def _on_selection_traits(self, change):
        self._refresh_or_revert(self._refresh_points, change)

    @observe("peak_flops", "peak_bandwidth")
    def _on_peak_traits(self, change):
        self._refresh_or_revert(self._refresh_roofline, change)

    def _refresh_or_revert(self, refresh, change) -> None:
        """Run ``refresh``; if it raises, put the trait back (nothing was assigned yet)."""
        if not self._ready or self._reverting:
            return
        try:
            refresh()
        except Exception:
            self._reverting = True
            try:
                self.set_trait(change.name, change.old)
            finally:
                self._reverting = False
            raise

    @observe("color_by", "size_by")
    def _on_style_traits(self, change):
        if self._ready:
            with self._scatter.hold_sync():
                self._apply_colors()
                self._apply_sizes()

    @observe("selected")
    def _on_selected(self, change):
        if self._ready:
            self._show_selection()

    def _on_peak_slider(self, trait, change):
        if self._quiet:
            return
        sent = self._slider_values[trait]
        if any(abs(math.log10(change.new / value)) <= _SLIDER_STEP / 2 + 1e-12 for value in sent):
            # The browser put a value the kernel sent on its step grid and sent that back,
            # possibly after the kernel had moved on: not a drag.
            return
        setattr(self, trait, change.new)

    def _on_peak_box(self, trait, slider, change):
        if not self._quiet:
            setattr(self, trait, None if change.new else slider.value)

    def _on_scatter_selected(self, change):
        if self._quiet or self._state is None:
            return
        indices = np.asarray(change.new if change.new is not None else [], dtype=np.intp)
        shown = self._state.shown
        indices = indices[(indices >= 0) & (indices < len(shown))]
        rows = shown.iloc[indices]
        keys = list(zip(rows["file"].astype(str), rows["rank"].astype(int),
                        rows["region"].astype(str)))
        with self._quietly():
            self.selected = keys

    def _on_hover(self, mark, content):
        point = content.get("point") or content.get("data") or {}
        index = point.get("index")
        shown = self._state.shown if self._state is not None else None
        if shown is None or not isinstance(index, int) or not 0 <= index < len(shown):
            return
        row = _classify(shown.iloc[[index]], self._roofline).iloc[0]
        self._tooltip.value = _tooltip_html(row)

    def _on_interaction(self, change):
        self._figure.interaction = self._interactions[change.new]

    def _on_zoom(self, change):
        """A scale's range changed (pan/zoom in the browser): new ticks, ceilings redrawn."""
        ranges = self._scale_ranges()
        if ranges is None:
            return
        self._set_tick_formats(*ranges)
        if self._quiet or self._roofline is None:
            return
        data = _roof_marks_data(self._roofline, *ranges)
        with self._quietly(), _holding(*self._roof_marks()):
            self._assign_roof_marks(data)

    def _scale_ranges(self):
        """The (x, y) ranges of the scales, or None while one is not a valid log range."""
        ranges = ((self._xs.min, self._xs.max), (self._ys.min, self._ys.max))
        if all(low is not None and high is not None and 0 < low < high for low, high in ranges):
            return ranges
        return None

    # ------------------------------------------------------------ computing
    def _compute_state(self) -> _PointState:
        """Select the points for the current traits; touches no widget."""
        try:
            include = compile_patterns(self.include or None, "include")
            exclude = compile_patterns(self.exclude or None, "exclude")
        except ValueError as exc:
            empty = self._sums.select(flops_metric=self.flops_metric,
                                      bandwidth_metric=self.bandwidth_metric, ranks=[])
            return _PointState(empty.points, empty.points, empty.left_out, self.flops_metric,
                               self.bandwidth_metric, error=str(exc))
        selection = self._sums.select(flops_metric=self.flops_metric,
                                      bandwidth_metric=self.bandwidth_metric, ranks=self.ranks,
                                      include=include, exclude=exclude,
                                      combine_ranks=self.combine_ranks)
        points = selection.points.reset_index(drop=True)
        return _PointState(points, _apply_budget(points, self.max_points), selection.left_out,
                           selection.flops_metric, selection.bandwidth_metric,
                           list(selection.notes))

    def _rooflines(self, points: pd.DataFrame):
        """(main roofline from the peaks, main plus extra ceilings), or (None, None)."""
        try:
            main = Roofline.from_peaks(self.peak_flops, self.peak_bandwidth, points)
        except ValueError:
            return None, None
        if not self._extra_ceilings:
            return main, main
        compute = [c for c in self._extra_ceilings if isinstance(c, ComputeRoof)]
        bandwidth = [c for c in self._extra_ceilings if isinstance(c, BandwidthRoof)]
        return main, Roofline([*main.compute, *compute], [*main.bandwidth, *bandwidth])

    def _runtime_log_range(self):
        runtime = _positive(self._sums.frame["runtime_s"])
        if runtime.size == 0:
            return 0.0, 1.0
        low, high = np.log10(runtime.min()), np.log10(runtime.max())
        return float(low), float(max(high, low + 1e-12))

    def _sizes(self, shown: pd.DataFrame):
        """Marker sizes in [0.15, 1] from log runtime (fixed over all data), or None."""
        if self.size_by == "none":
            return None
        low, high = self._size_range
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log10(shown["runtime_seconds"].to_numpy(dtype=float))
        scaled = 0.15 + 0.85 * np.clip((logs - low) / (high - low), 0.0, 1.0)
        return np.where(np.isfinite(scaled), scaled, 0.15)

    def _categories(self) -> list:
        ranks = [ALL_RANKS] if self.combine_ranks else self._sums.ranks
        return {"region": self._sums.regions, "run": self._sums.files,
                "rank": ranks}[self.color_by]

    def _color_codes(self, shown: pd.DataFrame) -> np.ndarray:
        """Colour codes fixed over the whole data, so a region keeps its colour.

        Past ``len(PALETTE)`` categories the colours repeat.
        """
        values = shown[_COLOR_COLUMN[self.color_by]]
        values = values.astype(object) if self.color_by != "rank" else values
        codes = pd.Categorical(values, categories=self._categories()).codes
        return (codes % len(PALETTE)).astype(float)

    # ------------------------------------------------------------ assigning
    def _refresh_points(self) -> None:
        """Recompute the points from the sums and replace the marks' data in place."""
        state = self._compute_state()
        main, roofline = self._rooflines(state.points)
        x_range, y_range = _axis_ranges(state.points, roofline)
        roof_data = _roof_marks_data(roofline, x_range, y_range)
        selected = self._surviving_selection(state)
        shown = state.shown
        x = shown["arithmetic_intensity_flops_per_byte"].to_numpy(dtype=float)
        y = shown["performance_gflops"].to_numpy(dtype=float)
        colors, sizes = self._color_codes(shown), self._sizes(shown)
        with self._quietly(), _holding(self._scatter, self._xs, self._ys, *self._roof_marks()):
            self._state, self._main_roofline, self._roofline = state, main, roofline
            self._scatter.x, self._scatter.y = x, y
            self._scatter.color, self._scatter.size = colors, sizes
            self._set_ranges(x_range, y_range)
            self._assign_roof_marks(roof_data)
            self.selected = selected
            self._show_selection()
        self._figure.title = "" if len(state.points) else self._empty_title(state)
        self._update_texts()
        self._sync_peak_controls()

    def _refresh_roofline(self) -> None:
        """Peaks changed: move the ceilings and the ridge marker only."""
        points = self._state.points
        main, roofline = self._rooflines(points)
        x_range, y_range = _axis_ranges(points, roofline)
        x_range = (min(x_range[0], self._xs.min or x_range[0]), max(x_range[1], self._xs.max or 0))
        y_range = (min(y_range[0], self._ys.min or y_range[0]), max(y_range[1], self._ys.max or 0))
        roof_data = _roof_marks_data(roofline, x_range, y_range)
        with self._quietly(), _holding(self._xs, self._ys, *self._roof_marks()):
            self._main_roofline, self._roofline = main, roofline
            self._set_ranges(x_range, y_range)
            self._assign_roof_marks(roof_data)
        self._update_status()
        self._sync_peak_controls()

    def _set_ranges(self, x_range, y_range) -> None:
        self._xs.min, self._xs.max = x_range
        self._ys.min, self._ys.max = y_range
        self._set_tick_formats(x_range, y_range)

    def _set_tick_formats(self, x_range, y_range) -> None:
        self._x_axis.tick_format = _tick_format(*x_range)
        self._y_axis.tick_format = _tick_format(*y_range)

    def _roof_marks(self) -> tuple:
        """The marks drawn from the ceilings."""
        return self._ceilings, self._roof, self._ceiling_text, self._ridge

    def _assign_roof_marks(self, data: dict) -> None:
        visible = bool(data)
        for mark in self._roof_marks():
            mark.visible = visible
        if not visible:
            return
        self._ceilings.x, self._ceilings.y = data["ceiling_x"], data["ceiling_y"]
        self._ceilings.labels = data["ceiling_labels"]
        self._ceilings.colors = data["ceiling_colors"]
        self._ceiling_text.x, self._ceiling_text.y = data["label_x"], data["label_y"]
        self._ceiling_text.text = data["ceiling_labels"]
        self._ceiling_text.colors = data["ceiling_colors"]
        self._roof.x, self._roof.y = data["roof_x"], data["roof_y"]
        self._roof.labels = data["roof_labels"]
        self._ridge.x, self._ridge.y = data["ridge_x"], data["ridge_y"]
        self._ridge.text = data["ridge_text"]

    def _apply_colors(self) -> None:
        if self._state is not None:
            self._scatter.color = self._color_codes(self._state.shown)
            self._legend_html.value = self._legend()

    def _apply_sizes(self) -> None:
        if self._state is not None:
            self._scatter.size = self._sizes(self._state.shown)

    def _surviving_selection(self, state: _PointState) -> list:
        """The selected keys that are still among the new points (no stale keys)."""
        if not self.selected:
            return []
        keys = pd.MultiIndex.from_tuples(self.selected)
        keep = keys.isin(_key_index(state.points))
        return [key for key, ok in zip(self.selected, keep) if ok]

    def _show_selection(self) -> None:
        """Mirror ``selected`` (keys) onto the Scatter's ``selected`` (indices)."""
        if not self.selected:
            indices = None
        else:
            indices = np.flatnonzero(_key_index(self._state.shown).isin(self.selected))
        with self._quietly():
            self._scatter.selected = indices

    def _sync_peak_controls(self) -> None:
        """Put the peak sliders and 'empirical' boxes in step with the traits."""
        main = self._main_roofline
        with self._quietly():
            for trait, slider, box in self._peak_widgets():
                value = getattr(self, trait)
                if value is None and main is not None:
                    value = main.peak_flops if trait == "peak_flops" else main.peak_bandwidth
                if value is not None:
                    _fit_slider(slider, value)
                    slider.value = value
                    sent = self._slider_values[trait]
                    if not sent or sent[-1] != value:
                        sent.append(value)
                box.value = getattr(self, trait) is None

    def _fit_sliders_to_data(self) -> None:
        """Exponent ranges around the data and the peaks: 2 decades below to 2 above."""
        main = self._main_roofline
        with self._quietly():
            for trait, slider, _box in self._peak_widgets():
                values = [slider.value]
                if main is not None:
                    values.append(main.peak_flops if trait == "peak_flops" else main.peak_bandwidth)
                low = math.floor(math.log10(min(values))) - 2
                high = math.ceil(math.log10(max(values))) + 2
                if low > slider.max:
                    slider.max = high
                slider.min, slider.max = low, high

    # ------------------------------------------------------------ texts
    def _empty_title(self, state: _PointState) -> str:
        if state.error:
            return "No points: invalid pattern"
        if self.ranks == []:
            return "No points: no rank selected"
        return "No plottable region"

    def _update_texts(self) -> None:
        state = self._state
        message = self._message(state)
        self.set_trait("message", message)
        style = "color:#b00020" if state.error or not len(state.points) else "color:#555"
        self._message_html.value = (f"<div style='{style}'>{html.escape(message)}</div>"
                                    if message else "")
        self._message_html.layout.display = "" if message else "none"
        self._left_out_html.value = _left_out_html(state.left_out)
        self._left_out.set_title(0, f"Left out ({len(state.left_out):,})")
        if not len(state.points) and len(state.left_out):
            self._left_out.selected_index = 0
        self._legend_html.value = self._legend()
        self._update_status()

    def _message(self, state: _PointState) -> str:
        if state.error:
            return f"{state.error}. No points are drawn until it is fixed."
        if not len(state.points):
            if self.ranks == []:
                return "No rank selected."
            if len(state.left_out):
                reason = state.left_out["reason"].value_counts().index[0]
                return (f"No plottable region: {len(state.left_out):,} region/rank row(s) "
                        f"left out (most often: {reason}). See the list below.")
            return "No region matches the include/exclude patterns."
        return " ".join(state.notes)

    def _legend(self) -> str:
        state = self._state
        values = pd.unique(state.shown[_COLOR_COLUMN[self.color_by]].astype(object))
        listed = values[:LEGEND_ENTRIES_SHOWN]
        codes = pd.Index(self._categories(), dtype=object).get_indexer(listed)
        name = _rank_text if self.color_by == "rank" else str
        entries = [_legend_entry(PALETTE[c % len(PALETTE)], name(v)) for c, v in zip(codes, listed)]
        if len(values) > LEGEND_ENTRIES_SHOWN:
            entries.append(f"<span>... and {len(values) - LEGEND_ENTRIES_SHOWN:,} more</span>")
        if not entries:
            return ""
        title = {"region": "Regions", "run": "Runs", "rank": "Ranks"}[self.color_by]
        return f"<div style='{_LEGEND_STYLE}'><b>{title}</b>{''.join(entries)}</div>"

    def _update_status(self) -> None:
        state, roofline = self._state, self._roofline
        n = len(state.points)
        count = f"<b>{n:,} point{'s' if n != 1 else ''}</b>"
        if state.over_budget:
            count += (f" (drawing the {len(state.shown):,} longest-running; the budget is "
                      f"max_points={self.max_points:,}; exports hold all)")
        metrics = (f"FLOP rate <code>{html.escape(str(state.flops_metric))}</code>, bandwidth "
                   f"<code>{html.escape(str(state.bandwidth_metric))}</code>")
        if roofline is None:
            ceilings = "ceilings: none (no points to take empirical ones from)"
        else:
            ceilings = "ceilings: " + ", ".join(html.escape(r.label) for r in
                                                (*roofline.compute, *roofline.bandwidth))
            if roofline.empirical:
                ceilings += (" <b>&mdash; empirical ceilings are the largest observation, "
                             "not machine limits</b>")
        left_out = f"{len(state.left_out):,} left out"
        parts = [count, metrics, ceilings, left_out]
        if self.combine_ranks:
            parts.insert(1, "ranks summed")
        self._status_html.value = " &middot; ".join(parts)

    # ------------------------------------------------------------ public API
    def reset_view(self) -> None:
        """Fit the axes to the points and ceilings again (undo pan and zoom)."""
        x_range, y_range = _axis_ranges(self._state.points, self._roofline)
        roof_data = _roof_marks_data(self._roofline, x_range, y_range)
        with self._quietly(), _holding(self._xs, self._ys, *self._roof_marks()):
            self._set_ranges(x_range, y_range)
            self._assign_roof_marks(roof_data)

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
        return _classify(self._state.points, self._roofline)

    def selection_dataframe(self) -> pd.DataFrame:
        """The selected points, with the same columns as :meth:`to_dataframe`."""
        points = self._state.points
        if not self.selected:
            return _classify(points.iloc[:0], self._roofline)
        mask = _key_index(points).isin(self.selected)
        return _classify(points[mask], self._roofline)

    def left_out_dataframe(self) -> pd.DataFrame:
        """The selected regions that could not be placed, with the reason."""
        return self._state.left_out.reset_index(drop=True)
