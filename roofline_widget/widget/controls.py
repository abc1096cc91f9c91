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
import traitlets

from ..ceilings import Roofline
from ..points import RegionSums
from .figure import INTERACTIONS, RooflineFigure
from .state import UpdateGuard

__all__ = ["RooflineControls", "SLIDER_STEP", "PEAK_TRAITS"]

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


def _peak_controls(label: str, css: str) -> tuple[widgets.FloatLogSlider, widgets.Checkbox]:
    slider = widgets.FloatLogSlider(value=1.0, base=10, min=-2, max=4, step=SLIDER_STEP,
                                    description=label, readout_format=".4g",
                                    **_control_style("308px"))
    slider.add_class(css)
    empirical = widgets.Checkbox(value=True, description="empirical", indent=False,
                                 layout=widgets.Layout(width="92px"))
    return slider, empirical


def fit_slider(slider: widgets.FloatLogSlider, value: float) -> None:
    """Widen a log slider's exponent range (never narrow it) so that it holds ``value``."""
    exponent = math.log10(value)
    if exponent < slider.min:
        slider.min = math.floor(exponent) - 1
    if exponent > slider.max:
        slider.max = math.ceil(exponent) + 1


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
        Peaks (DOM classes ``roofline-peak-flops``, ``roofline-peak-bandwidth``).
    flops_empirical, bandwidth_empirical : ipywidgets.Checkbox
        Checked while the peak is empirical (None).
    color_choice, size_choice : ipywidgets.Dropdown
    interaction_choice : ipywidgets.ToggleButtons
        DOM class ``roofline-interaction``.
    reset_button : ipywidgets.Button
    message_html, status_html, legend_html, left_out_html : ipywidgets.HTML
        DOM classes ``roofline-message`` and ``roofline-status`` for the first two.
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
        self.flops_slider, self.flops_empirical = _peak_controls(
            "Peak [GFLOP/s]", "roofline-peak-flops")
        self.bandwidth_slider, self.bandwidth_empirical = _peak_controls(
            "Peak [GB/s]", "roofline-peak-bandwidth")
        self._build_texts()
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
            row(column(self.flops_slider, self.flops_empirical),
                column(self.bandwidth_slider, self.bandwidth_empirical)),
            row(self.color_choice, self.size_choice, self.interaction_choice,
                self.reset_button),
        ], layout=widgets.Layout(padding="6px 4px", margin="0 0 6px 0",
                                 border="1px solid #e0e0e0"))
        return [panel, self.message_html, figure.plot, self.legend_html, self.status_html,
                self.left_out]

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
        for trait, slider, box in self.peak_widgets():
            slider.observe(lambda change, t=trait: self._on_peak_slider(owner, t, change),
                           names="value")
            box.observe(lambda change, t=trait, s=slider: self._on_peak_box(owner, t, s, change),
                        names="value")
        self.reset_button.on_click(lambda _: owner.reset_view())

    def peak_widgets(self) -> tuple:
        """``(trait name, slider, empirical box)`` of each peak."""
        return (("peak_flops", self.flops_slider, self.flops_empirical),
                ("peak_bandwidth", self.bandwidth_slider, self.bandwidth_empirical))

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
            for trait, slider, box in self.peak_widgets():
                value = peaks[trait]
                if value is None:
                    value = _main_peak(main, trait)
                if value is not None:
                    fit_slider(slider, value)
                    slider.value = value
                    sent = self._sent[trait]
                    if not sent or sent[-1] != value:
                        sent.append(value)
                box.value = peaks[trait] is None

    def fit_sliders(self, main: Roofline | None) -> None:
        """Exponent ranges around the data and the peaks: 2 decades below to 2 above."""
        with self._guard.hold():
            for trait, slider, _box in self.peak_widgets():
                values = [slider.value]
                peak = _main_peak(main, trait)
                if peak is not None:
                    values.append(peak)
                low = math.floor(math.log10(min(values))) - 2
                high = math.ceil(math.log10(max(values))) + 2
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
