"""``RooflineControls``: the widget's child widgets, their layout and links to the traits.

The controls own every ipywidget around the figure (dropdowns, text boxes,
peak sliders, the message, legend, status line and left-out list).  They are
linked to the traits of a :class:`~roofline_widget.RooflineWidget` by
:meth:`RooflineControls.link`; the kernel writes to them under the widget's
:class:`~roofline_widget.widget.state.UpdateGuard`, so nothing echoes back.
"""

from __future__ import annotations

import math
from collections import deque

import ipywidgets as widgets
import pandas as pd
import traitlets

from roofline_widget import schema
from roofline_widget.ceilings import Roofline
from roofline_widget.points import RegionSums
from roofline_widget.widget.figure import INTERACTIONS, RooflineFigure
from roofline_widget.widget.html import details_html
from roofline_widget.widget.state import UpdateGuard

__all__ = [
    "PEAK_HEADROOM",
    "PEAK_RANGE_ABOVE",
    "PEAK_RANGE_BELOW",
    "PEAK_TRAITS",
    "SLIDER_STEP",
    "RooflineControls",
    "fit_slider",
    "peak_range",
]

#: Peak sliders' step in decades (0.023 %).
SLIDER_STEP = 0.0001
PEAK_TRAITS = ("peak_flops", "peak_bandwidth")
_DESCRIPTION_WIDTH = "100px"
_COLUMN_WIDTH = "400px"
_INTERACTION_TIPS = ("hover for details, click to select", "pan and zoom",
                     "select with a rectangle", "select with a free shape")


def _control_style(width: str = _COLUMN_WIDTH) -> dict:
    """Keyword arguments of a control whose description has the common width."""
    return {"style": {"description_width": _DESCRIPTION_WIDTH},
            "layout": widgets.Layout(width=width)}


# ------------------------------------------------------------ peak block
#: A peak slider's range: from this fraction of the smallest value it holds ...
PEAK_RANGE_BELOW = 0.5
#: ... up to this multiple of the largest observation, and at least
PEAK_RANGE_ABOVE = 100.0
#: this multiple of the largest peak it holds (decades rounded out to tenths).
PEAK_HEADROOM = 2.0
_RANGE_ROUNDING = 10


def _peak_controls(label: str, css: str) -> tuple:
    """A peak's log slider (the sweep), its text box (an exact value) and 'empirical' button."""
    slider = widgets.FloatLogSlider(value=1.0, base=10, min=-2, max=4, step=SLIDER_STEP,
                                    description=label, readout_format=".4g",
                                    **_control_style("400px"))
    slider.add_class(css)
    text = widgets.FloatText(value=1.0, step=None, layout=widgets.Layout(width="96px"),
                             tooltip="type an exact value, e.g. from the spec sheet")
    text.add_class(f"{css}-text")
    empirical = widgets.ToggleButton(
        value=True, description="empirical", layout=widgets.Layout(width="100px"),
        tooltip="pressed: the largest observation is the peak; press to reset to it")
    empirical.add_class(f"{css}-empirical")
    return slider, text, empirical


def _positive(values) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v) and v > 0]


def peak_range(observed: float | None, *held: float | None) -> tuple[float, float]:
    """Exponent range ``(min, max)`` of a peak slider.

    From ``PEAK_RANGE_BELOW`` times the smallest of ``observed`` (the largest
    observation) and ``held`` (peaks the slider must hold) up to the larger of
    ``PEAK_RANGE_ABOVE`` times ``observed`` and ``PEAK_HEADROOM`` times the
    largest held value, rounded outwards to tenths of a decade.  Without an
    observation the largest held value stands in for it.
    """
    held = _positive(held)
    observed = (_positive([observed]) or [max(held, default=0.0)])[0]
    if observed <= 0:
        return -2.0, 4.0
    low = math.log10(PEAK_RANGE_BELOW * min([observed, *held]))
    high = math.log10(max([PEAK_RANGE_ABOVE * observed, *(PEAK_HEADROOM * v for v in held)]))
    return (math.floor(low * _RANGE_ROUNDING) / _RANGE_ROUNDING,
            math.ceil(high * _RANGE_ROUNDING) / _RANGE_ROUNDING)


def fit_slider(slider: widgets.FloatLogSlider, value: float) -> None:
    """Widen a log slider's exponent range (never narrow it) so that it holds ``value``."""
    low, high = peak_range(None, value)
    exponent = math.log10(value)
    if exponent < slider.min:
        slider.min = low
    if exponent > slider.max:
        slider.max = high


def _main_peak(main: Roofline | None, trait: str) -> float | None:
    if main is None:
        return None
    return main.peak_flops if trait == "peak_flops" else main.peak_bandwidth


class RooflineControls:
    """The controls of a roofline widget and their layout.

    Parameters
    ----------
    sums : RegionSums
        The data (metric and rank choices).
    figure : RooflineFigure
        The figure placed among the controls (and switched by the interaction buttons).
    guard : UpdateGuard
        The widget's re-entrancy guard.

    Attributes
    ----------
    flops_choice, bandwidth_choice : ipywidgets.Dropdown
        Metric choices (linked to ``flops_metric`` / ``bandwidth_metric``).
    rank_choice : ipywidgets.SelectMultiple
    combine_box : ipywidgets.Checkbox
        "sum over ranks" (DOM class ``roofline-combine-ranks``).
    include_text, exclude_text : ipywidgets.Text
        DOM classes ``roofline-include`` and ``roofline-exclude``.
    flops_slider, bandwidth_slider : ipywidgets.FloatLogSlider
        Peaks (DOM classes ``roofline-peak-flops``, ``roofline-peak-bandwidth``), for the
        sweep: 0.5x the smaller of the largest observation and the peak, up to 100x the
        largest observation or 2x the peak (:func:`peak_range`).
    flops_text, bandwidth_text : ipywidgets.FloatText
        The same peaks as numbers to type (DOM classes ``roofline-peak-flops-text``,
        ``roofline-peak-bandwidth-text``); a value outside the slider's range widens it.
    flops_empirical, bandwidth_empirical : ipywidgets.ToggleButton
        "empirical": pressed while the peak is empirical (None); pressing it resets the peak.
    color_choice, size_choice : ipywidgets.Dropdown
    interaction_choice : ipywidgets.ToggleButtons
        DOM class ``roofline-interaction``.
    reset_button : ipywidgets.Button
    rank_view_choice : ipywidgets.ToggleButtons
        points / spread / auto (linked to ``rank_view``; DOM class ``roofline-rank-view``).
    message_html, status_html, legend_html, left_out_html : ipywidgets.HTML
        DOM classes ``roofline-message`` and ``roofline-status`` for the first two.
    detail_html : ipywidgets.HTML
        Below the figure (DOM class ``roofline-detail``): the full record of the one
        selected point (a click), or a table of the selected points, numbers rounded
        for display (``to_dataframe()`` / ``selection_dataframe()`` keep full precision).
    left_out : ipywidgets.Accordion
        Holds ``left_out_html`` (DOM class ``roofline-left-out``).
    children : list
        The widget's children, top to bottom (the figure among them).
    """

    def __init__(self, sums: RegionSums, figure: RooflineFigure, guard: UpdateGuard) -> None:
        self._guard = guard
        self._sums = sums
        self._figure = figure
        # The last values the kernel put on each peak slider (see _on_peak_slider).
        self._sent = {name: deque(maxlen=8) for name in PEAK_TRAITS}
        self._build_choices(sums)
        self.flops_slider, self.flops_text, self.flops_empirical = _peak_controls(
            "Peak [GFLOP/s]", "roofline-peak-flops")
        self.bandwidth_slider, self.bandwidth_text, self.bandwidth_empirical = _peak_controls(
            "Peak [GB/s]", "roofline-peak-bandwidth")
        self._build_texts()
        self._build_rank_view(sums)
        self._build_detail()
        self.interaction_choice.observe(lambda change: figure.set_interaction(change.new),
                                        names="value")
        self.children = self._layout(figure)

    def _build_choices(self, sums: RegionSums) -> None:
        self.flops_choice = widgets.Dropdown(options=sums.flop_metrics, description="FLOP rate",
                                             disabled=not sums.flop_metrics, **_control_style())
        self.bandwidth_choice = widgets.Dropdown(
            options=sums.bandwidth_metrics, description="Bandwidth",
            disabled=not sums.bandwidth_metrics, **_control_style())
        self.rank_choice = widgets.SelectMultiple(
            options=[(str(r), r) for r in sums.ranks], description="Ranks",
            rows=min(max(len(sums.ranks), 1), 5),
            style={"description_width": "50px"}, layout=widgets.Layout(width="140px"))
        self.combine_box = widgets.Checkbox(description="sum over ranks", indent=False,
                                            layout=widgets.Layout(width="130px"))
        self.combine_box.add_class("roofline-combine-ranks")
        self.include_text = widgets.Text(description="Include", placeholder="regex, e.g. function_",
                                         **_control_style())
        self.include_text.add_class("roofline-include")
        self.exclude_text = widgets.Text(description="Exclude", placeholder="regex",
                                         **_control_style())
        self.exclude_text.add_class("roofline-exclude")
        self.color_choice = widgets.Dropdown(options=["region", "run", "rank"],
                                             description="Colour by", **_control_style("200px"))
        self.size_choice = widgets.Dropdown(options=["none", "runtime"], description="Size by",
                                            **_control_style("200px"))
        self.interaction_choice = widgets.ToggleButtons(
            options=list(INTERACTIONS), value="inspect", tooltips=list(_INTERACTION_TIPS),
            style={"button_width": "96px"})
        self.interaction_choice.add_class("roofline-interaction")
        self.reset_button = widgets.Button(description="Reset view", icon="home",
                                           layout=widgets.Layout(width="110px"))

    # ------------------------------------------------------------ ranks view
    def _build_rank_view(self, sums: RegionSums) -> None:
        """``rank_view_choice``: points / spread / auto (DOM class ``roofline-rank-view``)."""
        self.rank_view_choice = widgets.ToggleButtons(
            options=["points", "spread", "auto"], value="points",
            tooltips=["one point per rank", "per region: rank median, min–max whiskers",
                      "spread while the points exceed max_points"],
            disabled=len(sums.ranks) < 2, style={"button_width": "76px"})
        self.rank_view_choice.add_class("roofline-rank-view")

    def _build_texts(self) -> None:
        self.message_html = widgets.HTML()
        self.message_html.add_class("roofline-message")
        self.status_html = widgets.HTML()
        self.status_html.add_class("roofline-status")
        self.legend_html = widgets.HTML(layout=widgets.Layout(width="100%", margin="0 0 0 70px"))
        self.left_out_html = widgets.HTML()
        self.left_out = widgets.Accordion(children=[self.left_out_html])
        self.left_out.set_title(0, "Left out")
        self.left_out.add_class("roofline-left-out")

    def _layout(self, figure: RooflineFigure) -> list:
        def row(*children):
            # Rows wrap on narrow screens instead of overflowing.
            return widgets.HBox(list(children), layout=widgets.Layout(
                flex_flow="row wrap", align_items="center", margin="0 0 2px 0"))

        def column(*children):
            return widgets.HBox(list(children), layout=widgets.Layout(width=_COLUMN_WIDTH))

        panel = widgets.VBox([
            row(column(self.flops_choice), column(self.bandwidth_choice)),
            row(column(self.include_text), column(self.exclude_text), self.rank_choice,
                self.combine_box),
            row(*(widgets.HBox([slider, text, box], layout=widgets.Layout(
                flex_flow="row wrap", align_items="center", margin="0 12px 0 0"))
                  for _t, slider, text, box in self.peak_widgets(with_text=True))),
            row(self.color_choice, self.size_choice, self.interaction_choice,
                self.reset_button, self.rank_view_choice),
        ], layout=widgets.Layout(padding="6px 4px", margin="0 0 6px 0",
                                 border="1px solid #e0e0e0"))
        return [panel, self.message_html, figure.plot, self.legend_html, self.detail_html,
                self.status_html, self.left_out]

    # ------------------------------------------------------------ links
    def link(self, owner: traitlets.HasTraits) -> None:
        """Link the controls to ``owner``'s traits (both ways) and the reset button."""
        link = traitlets.link
        for trait, control in (("flops_metric", self.flops_choice),
                               ("bandwidth_metric", self.bandwidth_choice),
                               ("include", self.include_text), ("exclude", self.exclude_text),
                               ("combine_ranks", self.combine_box),
                               ("color_by", self.color_choice), ("size_by", self.size_choice)):
            link((owner, trait), (control, "value"))
        all_ranks = tuple(self._sums.ranks)
        link((owner, "ranks"), (self.rank_choice, "value"),
             transform=(lambda r: all_ranks if r is None else tuple(r),
                        lambda v: None if set(v) == set(all_ranks) else list(v)))
        self._link_peaks(owner)
        self._link_detail(owner)
        self.reset_button.on_click(lambda _: owner.reset_view())
        link((owner, "rank_view"), (self.rank_view_choice, "value"))

    # ------------------------------------------------------------ peak block
    def _link_peaks(self, owner: traitlets.HasTraits) -> None:
        """Slider (sweep), text box (exact value) and 'empirical' button of each peak."""
        for trait, slider, text, box in self.peak_widgets(with_text=True):
            slider.observe(lambda change, t=trait: self._on_peak_slider(owner, t, change),
                           names="value")
            text.observe(lambda change, t=trait: self._on_peak_text(owner, t, change),
                         names="value")
            box.observe(lambda change, t=trait, s=slider: self._on_peak_box(owner, t, s, change),
                        names="value")

    def peak_widgets(self, with_text: bool = False) -> tuple:
        """``(trait name, slider, empirical button)`` of each peak.

        With ``with_text``: ``(trait name, slider, text box, empirical button)``.
        """
        rows = (("peak_flops", self.flops_slider, self.flops_text, self.flops_empirical),
                ("peak_bandwidth", self.bandwidth_slider, self.bandwidth_text,
                 self.bandwidth_empirical))
        return rows if with_text else tuple((t, s, b) for t, s, _x, b in rows)

    def _on_peak_text(self, owner, trait: str, change) -> None:
        """A typed value: the trait takes it exactly (the slider's range widens to hold it)."""
        if self._guard.active:
            return
        try:
            setattr(owner, trait, change.new)
        except traitlets.TraitError:
            with self._guard.hold():  # not a valid peak: show the trait's value again
                change.owner.value = change.old
            raise

    def _on_peak_slider(self, owner, trait: str, change) -> None:
        if self._guard.active:
            return
        if any(abs(math.log10(change.new / value)) <= SLIDER_STEP / 2 + 1e-12
               for value in self._sent[trait]):
            # The browser put a value the kernel sent on its step grid and sent that back,
            # possibly after the kernel had moved on: not a drag.
            return
        setattr(owner, trait, change.new)

    def _on_peak_box(self, owner, trait: str, slider, change) -> None:
        if not self._guard.active:
            setattr(owner, trait, None if change.new else slider.value)

    # ------------------------------------------------------------ detail panel
    def _build_detail(self) -> None:
        self.detail_html = widgets.HTML(value=details_html(pd.DataFrame()), layout=widgets.Layout(
            margin="2px 0 2px 70px", max_width="100%", overflow="auto"))
        self.detail_html.add_class("roofline-detail")

    def _link_detail(self, owner) -> None:
        """The panel follows the selection (and the traits that change its numbers)."""
        def show(_change=None):
            if not self._guard.active:
                # Nothing selected: the hint, without classifying an empty frame on every
                # peak drag (about 2 ms of pandas).
                selected = owner.selection_dataframe() if owner.selected else pd.DataFrame()
                self.detail_html.value = details_html(selected)

        owner.observe(show, names=["selected", *PEAK_TRAITS, "flops_metric", "bandwidth_metric",
                                   "combine_ranks"])

    # ------------------------------------------------------------ showing state
    def show_peaks(self, peaks: dict, main: Roofline | None) -> None:
        """Put the peak sliders and 'empirical' boxes in step with the peak traits.

        Parameters
        ----------
        peaks : dict
            ``{"peak_flops": value or None, "peak_bandwidth": ...}``.
        main : Roofline or None
            The main roofline, whose (empirical) peaks a None value shows.
        """
        with self._guard.hold():
            for trait, slider, text, box in self.peak_widgets(with_text=True):
                value = peaks[trait]
                if value is None:
                    value = _main_peak(main, trait)
                if value is not None:
                    fit_slider(slider, value)
                    slider.value = value
                    text.value = value
                    sent = self._sent[trait]
                    if not sent or sent[-1] != value:
                        sent.append(value)
                box.value = peaks[trait] is None

    def fit_sliders(self, main: Roofline | None, points=None) -> None:
        """Exponent ranges around the data and the peaks (see :func:`peak_range`).

        Parameters
        ----------
        main : Roofline or None
            The main roofline (given or empirical peaks).
        points : pandas.DataFrame, optional
            The points; their largest performance and bandwidth (the largest
            observations) are held by the ranges too.
        """
        columns = {"peak_flops": schema.PERFORMANCE, "peak_bandwidth": schema.BANDWIDTH}
        with self._guard.hold():
            for trait, slider, _box in self.peak_widgets():
                observed = None
                if points is not None and len(points):
                    observed = float(points[columns[trait]].max())
                low, high = peak_range(observed, slider.value, _main_peak(main, trait))
                if low > slider.max:
                    slider.max = high
                slider.min, slider.max = low, high

    def show_texts(self, *, message_html: str, left_out_html: str, left_out_count: int,
                   open_left_out: bool, legend_html: str, status_html: str) -> None:
        """Show the message, left-out list, legend and status line (already escaped HTML)."""
        self.message_html.value = message_html
        self.message_html.layout.display = "" if message_html else "none"
        self.left_out_html.value = left_out_html
        self.left_out.set_title(0, f"Left out ({left_out_count:,})")
        if open_left_out:
            self.left_out.selected_index = 0
        self.legend_html.value = legend_html
        self.status_html.value = status_html

    # ------------------------------------------------------------ memory levels (issue 12)
    def add_level_toggles(self, owner: traitlets.HasTraits, levels: list) -> None:
        """One checkbox per measured memory level, linked to ``owner.levels``.

        The boxes (``level_boxes``, level -> Checkbox, DOM class
        ``roofline-level-toggle``) join the control panel as one row; data
        without any level's bandwidth gets no row.
        """
        self.level_boxes = {level: widgets.Checkbox(value=level in owner.levels,
                                                    description=level, indent=False,
                                                    layout=widgets.Layout(width="70px"))
                            for level in levels}
        if not levels:
            return
        label = widgets.HTML("<b>Memory levels</b>", layout=widgets.Layout(width="110px"))
        row = widgets.HBox([label, *self.level_boxes.values()], layout=widgets.Layout(
            flex_flow="row wrap", align_items="center", margin="0 0 2px 0"))
        row.add_class("roofline-level-toggles")
        for box in self.level_boxes.values():
            box.add_class("roofline-level-toggle")
            box.observe(lambda _change: self._on_level_box(owner), names="value")
        owner.observe(lambda change: self._show_levels(change.new), names="levels")
        panel = self.children[0]
        panel.children = (*panel.children, row)

    def _on_level_box(self, owner) -> None:
        if not self._guard.active:
            owner.levels = [level for level, box in self.level_boxes.items() if box.value]

    def _show_levels(self, levels: list) -> None:
        with self._guard.hold():
            for level, box in self.level_boxes.items():
                box.value = level in levels
