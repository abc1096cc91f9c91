"""``RooflineControls``: the widget's child widgets, their layout and links to the traits.

The controls own every ipywidget around the figure (dropdowns, text boxes,
peak sliders, the message, legend, status line and left-out list).  They are
linked to the traits of a :class:`~roofline_widget.RooflineWidget` by
:meth:`RooflineControls.link`; the kernel writes to them under the widget's
:class:`~roofline_widget.widget.state.UpdateGuard`, so nothing echoes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as widgets
import pandas as pd
import traitlets

from roofline_widget.points import RegionSums
from roofline_widget.points.rank_groups import check_group_ranks
from roofline_widget.settings import COLOR_CHOICES
from roofline_widget.widget.figure import INTERACTIONS, RooflineFigure
from roofline_widget.widget.html import details_html, heading_html
from roofline_widget.widget.lazy_section import LazySection, LazyWidget
from roofline_widget.widget.peak_controls import DESCRIPTION_WIDTH, PEAK_TRAITS, PeakControls
from roofline_widget.widget.rank_control import RankControl
from roofline_widget.widget.state import UpdateGuard

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["GROUP_CHOICE_LABELS", "RooflineControls"]

#: The "Group ranks" dropdown's (label, ``group_ranks`` value) pairs.
GROUP_CHOICE_LABELS = (("auto", "auto"), ("per rank", "rank"), ("per socket", "socket"),
                       ("per host", "host"), ("all ranks", "all"))

_COLUMN_WIDTH = "400px"
_INTERACTION_TIPS = ("hover for details, click to select", "pan and zoom",
                     "select with a rectangle", "select with a free shape")




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
    rank_control : RankControl
        The Ranks field (:mod:`~roofline_widget.widget.rank_control`): a text of
        ranks, ranges, hosts and sockets linked to ``ranks``, its hint and a menu
        of the hosts and sockets; its size does not grow with the number of ranks.
    group_choice : ipywidgets.Dropdown
        "Group ranks": auto / per rank / per socket / per host / all (DOM class
        ``roofline-group-ranks``): which ranks a point sums.  It shows the grouping in
        effect, ``check_group_ranks(group_ranks, combine_ranks)``: "all" is
        ``combine_ranks=True`` (the former "sum over ranks" box), any other choice
        sets ``group_ranks`` and clears ``combine_ranks``.  For data of one rank hidden, made
        only when read (not in the panel, nothing sent for it).
    include_text, exclude_text : ipywidgets.Text
        DOM classes ``roofline-include`` and ``roofline-exclude``.
    peaks : PeakControls
        The peak block (:mod:`~roofline_widget.widget.peak_controls`); its widgets are
        attributes here too:
    flops_slider, bandwidth_slider : ipywidgets.FloatLogSlider
        Peaks (DOM classes ``roofline-peak-flops``, ``roofline-peak-bandwidth``), for the
        sweep: 0.5x the smaller of the largest observation and the peak, up to 100x the
        largest observation or 2x the peak (``peak_controls.peak_range``).
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
        DOM classes ``roofline-message`` and ``roofline-status`` for the first two; the
        message box is made when first needed and joins :attr:`children` under the control
        panel with the first message; ``message_text`` is its text, "" while none was shown.
    detail_html : ipywidgets.HTML
        Below the figure (DOM class ``roofline-detail``): the full record of the one
        selected point (a click), or a table of the selected points, numbers rounded
        for display (``to_dataframe()`` / ``selection_dataframe()`` keep full precision).
    left_out : ipywidgets.Accordion
        Holds ``left_out_html`` (DOM class ``roofline-left-out``); collapsed until the
        user opens it, its title counts the rows left out.
    left_out_panel : LazySection
        ``left_out`` and ``left_out_html``: the list is made when the section is open
        (:mod:`~roofline_widget.widget.lazy_section`; ``left_out_panel.html()``
        makes it without opening).
    ceilings_html : ipywidgets.HTML
        The ceilings table: each roof's label, kind, what it bounds (level, device,
        precision), full name and where its number came from, in full (made when the
        section is open).
    ceilings_section : ipywidgets.Accordion
        Holds ``ceilings_html`` (DOM class ``roofline-ceilings``), collapsed, its
        title counts the ceilings.
    ceilings_panel : LazySection
        ``ceilings_section`` and ``ceilings_html``, filled when opened.
    children : list
        The widget's children, top to bottom (the figure among them; the message box once
        a message was shown).
    """

    def __init__(self, sums: RegionSums, figure: RooflineFigure, guard: UpdateGuard) -> None:
        self._guard = guard
        self._sums = sums
        self._figure = figure
        self._owner: RooflineWidget | None = None
        self._looks = figure.looks
        self._build_choices(sums)
        self.peaks = peaks = PeakControls(guard, looks=self._looks)
        self.flops_slider, self.flops_text, self.flops_empirical = (
            peaks.flops_slider, peaks.flops_text, peaks.flops_empirical)
        self.bandwidth_slider, self.bandwidth_text, self.bandwidth_empirical = (
            peaks.bandwidth_slider, peaks.bandwidth_text, peaks.bandwidth_empirical)
        self._build_texts()
        self._build_rank_view(sums)
        self._build_detail()
        self.interaction_choice.observe(lambda change: figure.set_interaction(change.new),
                                        names="value")
        self.children = self._layout(figure)

    def _control(self, control: type, width: str = _COLUMN_WIDTH, **options):
        """A control whose description has the common width (shared looks)."""
        return self._looks.make(control, layout={"width": width},
                                style={"description_width": DESCRIPTION_WIDTH}, **options)

    def _build_choices(self, sums: RegionSums) -> None:
        control, looks = self._control, self._looks
        self.flops_choice = control(widgets.Dropdown, options=sums.flop_metrics,
                                    description="FLOP rate", disabled=not sums.flop_metrics)
        self.bandwidth_choice = control(widgets.Dropdown, options=sums.bandwidth_metrics,
                                        description="Bandwidth",
                                        disabled=not sums.bandwidth_metrics)
        self.rank_control = RankControl(sums, self._guard, looks=looks)
        self._group = LazyWidget(self._new_group_choice)  # one rank: made only when read
        if len(sums.ranks) > 1:
            self._group.widget  # noqa: B018 (shown: made now)
        self.include_text = control(widgets.Text, description="Include",
                                    placeholder="regex, e.g. function_", css="roofline-include")
        self.exclude_text = control(widgets.Text, description="Exclude", placeholder="regex",
                                    css="roofline-exclude")
        self.color_choice = control(widgets.Dropdown, "200px", options=list(COLOR_CHOICES),
                                    description="Colour by")
        self.size_choice = control(widgets.Dropdown, "200px", options=["none", "runtime"],
                                   description="Size by")
        self.interaction_choice = looks.make(
            widgets.ToggleButtons, options=list(INTERACTIONS), value="inspect",
            tooltips=list(_INTERACTION_TIPS), style={"button_width": "96px"},
            css="roofline-interaction")
        self.reset_button = looks.make(widgets.Button, description="Reset view", icon="home",
                                       layout={"width": "110px"})

    @property
    def group_choice(self) -> widgets.Dropdown:
        """The "Group ranks" dropdown; for data of one rank hidden, and made when first read."""
        return self._group.widget

    def _new_group_choice(self) -> widgets.Dropdown:
        return self._looks.make(
            widgets.Dropdown, options=GROUP_CHOICE_LABELS, value="auto", description="Group ranks",
            tooltip="which ranks a point sums (auto: by socket where memory is "
                    "counted on some ranks only)",
            layout={"width": "250px", **({"display": "none"} if len(self._sums.ranks) < 2 else {})},
            style={"description_width": DESCRIPTION_WIDTH}, css="roofline-group-ranks")

    # ------------------------------------------------------------ ranks view
    def _build_rank_view(self, sums: RegionSums) -> None:
        """``rank_view_choice``: points / spread / auto (DOM class ``roofline-rank-view``)."""
        self.rank_view_choice = self._looks.make(
            widgets.ToggleButtons, options=["points", "spread", "auto"], value="points",
            tooltips=["one point per rank", "per region: rank median, min–max whiskers",
                      "spread while the points exceed max_points"],
            disabled=len(sums.ranks) < 2, style={"button_width": "76px"}, css="roofline-rank-view")

    def _build_texts(self) -> None:
        looks = self._looks
        # made for the first message; its own layout: shown and hidden (show_texts)
        self._message = LazyWidget(lambda: widgets.HTML(
            style=looks.style(widgets.HTML), layout=widgets.Layout(display="none"),
            _dom_classes=("roofline-message",)))
        self.status_html = looks.html(css="roofline-status")
        # under the plot area (70 px in); its width ends at the widget's edge, never past it
        self.legend_html = looks.html(width="calc(100% - 70px)", margin="0 0 0 70px")
        # collapsed, their content made when opened (lazy_section): till then one placeholder
        placeholder = looks.html()
        self.left_out_panel = LazySection(looks.html, "Left out", looks.layout(),
                                          "roofline-left-out", placeholder)
        self.ceilings_panel = LazySection(
            lambda value: looks.html(value, max_width="100%", overflow="auto"), "Ceilings",
            looks.layout(), "roofline-ceilings", placeholder)
        self.left_out, self.ceilings_section = self.left_out_panel.box, self.ceilings_panel.box

    left_out_html = property(lambda self: self.left_out_panel.content,
                             doc="The left-out list (made when opened or read).")
    ceilings_html = property(lambda self: self.ceilings_panel.content,
                             doc="The ceilings table (made when opened or read).")

    message_html = property(lambda self: self._message.widget, doc=(
        "The message box, made when first read; it joins the children under the control panel "
        "when a message is first shown (show_texts)."))
    message_text = property(lambda self: self._message.widget.value if self._message.made else "",
                            doc="The message shown, \"\" while none was (no box made for it).")

    def _place_message(self) -> None:
        """The message box under the control panel, in :attr:`children` and the owner's."""
        box, panel = self.message_html, self.children[0]
        if box not in self.children:
            self.children.insert(1, box)
            if self._owner is not None:
                children = list(self._owner.children)
                children.insert(children.index(panel) + 1, box)
                self._owner.children = children

    def _row(self, *children, width="100%", margin="0 0 2px 0", css="") -> widgets.HBox:
        """A row of the panel (DOM class ``css``; width 100 %: a line of its own), wrapping."""
        return widgets.HBox(list(children), layout=self._looks.layout(
            flex_flow="row wrap", align_items="center", width=width, margin=margin),
            _dom_classes=(css,) if css else ())

    def _layout(self, figure: RooflineFigure) -> list:
        row, looks = self._row, self._looks
        # Rows fill a line each, the peaks' groups (slider, text, button) share one if both fit
        panel = widgets.HBox([
            row(self.flops_choice, self.bandwidth_choice),
            row(self.include_text, self.exclude_text),
            row(self.rank_control.box, *((self.group_choice,) if self._group.made else ())),
            *(row(slider, text, box, width=None, margin="0 12px 1px 0")  # wrapped: 2 px in all
              for _t, slider, text, box in self.peaks.rows()),
            row(self.color_choice, self.size_choice, self.interaction_choice,
                self.reset_button, self.rank_view_choice),
        ], layout=looks.layout(flex_flow="row wrap", padding="6px 4px", margin="0 0 6px 0",
                               border="1px solid #e0e0e0"))
        # the message box joins them with the first message (message_html)
        return [panel, figure.plot, self.legend_html, self.detail_html, self.status_html,
                self.ceilings_section, self.left_out]

    # ------------------------------------------------------------ links
    def link(self, owner: RooflineWidget) -> None:
        """Link the controls to ``owner``'s traits (both ways) and the reset button."""
        self._owner = owner
        link = traitlets.link
        for trait, control in (("flops_metric", self.flops_choice),
                               ("bandwidth_metric", self.bandwidth_choice),
                               ("include", self.include_text), ("exclude", self.exclude_text),
                               ("color_by", self.color_choice), ("size_by", self.size_choice)):
            link((owner, trait), (control, "value"))
        self.rank_control.link(owner)
        self._link_grouping(owner)
        self.peaks.link(owner)
        _link_detail(self.detail_html, owner, self._guard)
        self.reset_button.on_click(lambda _: owner.reset_view())
        link((owner, "rank_view"), (self.rank_view_choice, "value"))

    def _link_grouping(self, owner: RooflineWidget) -> None:
        """``group_choice`` shows the grouping in effect and sets the two traits."""
        def show(_change=None):
            value = check_group_ranks(owner.group_ranks, owner.combine_ranks)
            if self._group.made and self.group_choice.value != value:
                with self._guard.hold():
                    self.group_choice.value = value

        def pick(change):
            if self._guard.active:
                return
            with owner.hold_trait_notifications():
                owner.combine_ranks = change.new == "all"
                if change.new != "all":
                    owner.group_ranks = change.new

        def linked(choice: widgets.Dropdown) -> None:
            choice.observe(pick, names="value")
            show()

        owner.observe(show, names=["group_ranks", "combine_ranks"])
        self._group.when_made(linked)

    # ------------------------------------------------------------ detail panel
    def _build_detail(self) -> None:
        self.detail_html = self._looks.html(details_html(pd.DataFrame()), margin="2px 0 2px 70px",
                                            max_width="100%", overflow="auto", css="roofline-detail")

    # ------------------------------------------------------------ showing state
    def show_texts(self, *, message_html: str, left_out_html: Callable[[], str],
                   left_out_count: int, legend_html: str, status_html: str) -> None:
        """Show the message, legend and status line (already escaped HTML), count the rows
        left out in their section's title; ``left_out_html()`` makes their list when the
        section is open (``left_out_panel``)."""
        if message_html or self._message.made:  # no box made for no message
            box = self.message_html
            box.value = message_html
            box.layout.display = "" if message_html else "none"
            if message_html:
                self._place_message()
        self.left_out_panel.show(f"Left out ({left_out_count:,})", left_out_html)
        self.legend_html.value = legend_html
        self.status_html.value = status_html

    def show_ceilings(self, table_html: Callable[[], str], count: int) -> None:
        """Count the ceilings in their section's title; ``table_html()`` makes their table
        (escaped HTML) when the section is open (``ceilings_panel``)."""
        self.ceilings_panel.show(f"Ceilings ({count:,})", table_html)

    # ------------------------------------------------------------ memory levels
    def add_level_toggles(self, owner: RooflineWidget, levels: list) -> None:
        """One checkbox per measured memory level, linked to ``owner.levels`` (``traitlets.link``).

        The boxes (``level_boxes``, level -> Checkbox, DOM class
        ``roofline-level-toggle``) join the control panel as one row; data
        without any level's bandwidth gets no row.
        """
        self.level_boxes = {level: self._looks.make(widgets.Checkbox, value=level in owner.levels,
                                                    description=level, indent=False,
                                                    layout={"width": "70px"},
                                                    css="roofline-level-toggle")
                            for level in levels}
        if not levels:
            return
        label = self._looks.html(heading_html("Memory levels"), width="110px")
        row = self._row(label, *self.level_boxes.values(), css="roofline-level-toggles")
        for level, box in self.level_boxes.items():
            traitlets.link((owner, "levels"), (box, "value"), transform=(
                lambda shown, lv=level: lv in shown,
                lambda checked, lv=level: [other for other in levels if other in (
                    {*owner.levels, lv} if checked else set(owner.levels) - {lv})]))
        panel = self.children[0]
        panel.children = (*panel.children, row)


def _link_detail(detail: widgets.HTML, owner: RooflineWidget, guard: UpdateGuard) -> None:
    """The panel follows the selection (and the traits that change its numbers)."""
    def show(_change=None):
        if not guard.active:
            # Nothing selected: the hint, without classifying an empty frame on every
            # peak drag (about 2 ms of pandas).
            # a card (and its guidance) for one point; the table of many needs none
            selected = (owner.selection_dataframe(guidance=len(owner.selected) == 1)
                        if owner.selected else pd.DataFrame())
            detail.value = details_html(selected)

    owner.observe(show, names=["selected", *PEAK_TRAITS, "flops_metric", "bandwidth_metric",
                               "group_ranks", "combine_ranks"])
