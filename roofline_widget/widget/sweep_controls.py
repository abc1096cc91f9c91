"""The controls of a sweep: the run slider with play, "Group runs by", the colour bar, the details.

:class:`SweepControls` is shown while a widget draws a chain of runs as a
sweep (``RooflineWidget.chain_shown``), and built when first needed.  The slider is linked to the widget's
``sweep_step`` (``traitlets.link``: a step moves each path's ring), the play
button to the slider in the browser (``ipywidgets.jslink``), the dropdown to
``group_runs_by`` (shown when the runs differ in more than one way).  The
status line keeps to two lines; the full status goes to the collapsed
"Sweep details" (``details_html``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bqplot as bq
import ipywidgets as widgets
import pandas as pd
import traitlets

from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.scene.sweep import SweepPart, SweepRuns
from roofline_widget.widget import html
from roofline_widget.widget.lazy_section import LazySection
from roofline_widget.widget.scaling_panel import ScalingPanel
from roofline_widget.widget.state import UpdateGuard

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["PLAY_INTERVAL_MS", "SweepControls"]

#: Milliseconds per step while the runs play.
PLAY_INTERVAL_MS = 700


class SweepControls:
    """The run slider, play button, "Group runs by" dropdown, colour bar and details of a sweep.

    Nothing is built until a sweep is first shown (:meth:`show`, :meth:`status`): a
    widget of data that is no chain sends none of these widgets to the browser.
    Once built they join the widget's children (the row and the scaling panel after
    the figure, the details after the status line) and stay, hidden while no sweep
    is drawn.

    Parameters
    ----------
    guard : UpdateGuard
        The widget's re-entrancy guard, held while :meth:`show` puts the step
        drawn on the slider (and so on ``sweep_step``: -1 becomes the last step).

    Attributes
    ----------
    built : bool
        Whether the widgets below exist (a sweep was shown).
    slider : ipywidgets.IntSlider
        The step ringed (DOM class ``roofline-sweep-step``), linked to ``sweep_step``.
    play : ipywidgets.Play
        Steps the slider through the runs in the browser (DOM class ``roofline-sweep-play``).
    step_html : ipywidgets.HTML
        The step's value (``threads = 4``).
    group_choice : ipywidgets.Dropdown
        "Group runs by" (DOM class ``roofline-sweep-group``): the keys the runs
        differ in; hidden when they differ in one.
    key_html : ipywidgets.HTML
        The colour bar of the shade and the groups' line styles (DOM class ``roofline-sweep-key``).
    details_html : ipywidgets.HTML
        The full status of the points (made when ``details`` is open).
    details : ipywidgets.Accordion
        "Sweep details", collapsed (DOM class ``roofline-sweep-details``).
    details_panel : LazySection
        ``details`` and ``details_html`` (:mod:`~roofline_widget.widget.lazy_section`).
    scaling : ScalingPanel
        Speed-up against threads of the same runs, in the collapsed "Scaling" accordion after the row.
    row : ipywidgets.HBox
        Slider, play, step, dropdown and colour bar (hidden while no sweep is drawn).
    """

    def __init__(self, guard: UpdateGuard) -> None:
        self._guard = guard
        self._owner: RooflineWidget | None = None
        self._last = 0
        self.built = False

    def _build(self) -> None:
        """Make the widgets, link them to the owner and join its children."""
        self.play = widgets.Play(min=0, max=0, step=1, interval=PLAY_INTERVAL_MS,
                                 description="Play the runs")
        self.play.add_class("roofline-sweep-play")
        self.slider = widgets.IntSlider(min=0, max=0, description="Run", readout=False,
                                        layout=widgets.Layout(width="260px"))
        self.slider.add_class("roofline-sweep-step")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.step_html = widgets.HTML()
        self.group_choice = widgets.Dropdown(description="Group runs by", options=[],
                                             style={"description_width": "initial"},
                                             layout=widgets.Layout(width="210px"))
        self.group_choice.add_class("roofline-sweep-group")
        self.key_html = widgets.HTML()
        # filled when opened (lazy_section); shown while a sweep is drawn
        self.details_panel = LazySection(widgets.HTML(), "Sweep details",
                                         widgets.Layout(display="none"), "roofline-sweep-details")
        self.details, self.details_html = self.details_panel.box, self.details_panel.content
        self.row = widgets.HBox([self.play, self.slider, self.step_html, self.group_choice,
                                 self.key_html], layout=widgets.Layout(
            flex_flow="row wrap", align_items="center", display="none"))
        self.row.add_class("roofline-sweep")
        self.scaling = ScalingPanel()
        self.built = True
        if self._owner is not None:
            self._link(self._owner)
            self._owner.children = self._placed(self._owner.children)

    def _placed(self, children) -> list:
        """``children`` with the row and the scaling panel after the figure and the details
        after the status line."""
        status = self._owner.controls.status_html if self._owner is not None else None
        placed: list = []
        for child in children:
            placed.append(child)
            placed += [self.row, self.scaling.box] if isinstance(child, bq.Figure) else []
            placed += [self.details] if child is status else []
        return placed

    def link(self, owner: RooflineWidget) -> None:
        """Link the slider to ``owner.sweep_step`` and the dropdown to ``owner.group_runs_by``
        (once built: :meth:`show` builds them for the first sweep)."""
        self._owner = owner
        if self.built:
            self._link(owner)

    def _link(self, owner: RooflineWidget) -> None:
        self.scaling.link(owner)
        traitlets.link((owner, "sweep_step"), (self.slider, "value"),
                       transform=(lambda step: step if step >= 0 else self._last, int))

        def pick(change) -> None:
            if not self._guard.active and change.new is not None \
                    and change.new != owner.group_runs_by:
                owner.group_runs_by = change.new
        self.group_choice.observe(pick, names="value")

    def show(self, part: SweepPart | None, runs: SweepRuns | None = None) -> None:
        """Show ``part``'s steps, key and grouping of ``runs`` (None: everything hidden)."""
        if part is None and not self.built:
            return
        if not self.built:
            self._build()
        choices = runs.choices if runs is not None else ()
        self.row.layout.display = "flex" if part is not None else "none"
        self.details.layout.display = "" if part is not None else "none"
        self.scaling.show(part)
        if part is None:
            return
        with self._guard.hold():
            self._last = len(part.key) - 1
            for control in (self.slider, self.play):
                control.max = self._last
            self.slider.value = self.play.value = part.chosen
            if list(self.group_choice.options) != list(choices):
                self.group_choice.options = list(choices)
            self.group_choice.value = part.group_by[0] if choices and part.group_by else None
        self.step_html.value = html.sweep_step_html(part.key, part.chosen)
        self.group_choice.layout.display = "" if choices else "none"
        self.key_html.value = html.sweep_key_html(part)

    def status(self, part: SweepPart | None, full: str, roofline: Roofline | None,
               basis: pd.DataFrame | None) -> str:
        """The status line: ``full`` without a sweep; of a sweep two lines, ``full`` in the
        details (``roofline``: the ceilings drawn; ``basis``: the points they come from)."""
        if part is not None and not self.built:
            self._build()
        if self.built:
            self.details_panel.show("Sweep details", lambda: html.sweep_details_html(part, full)
                                    if part is not None else "")
        chain = self._owner.file_chain if self._owner is not None else None
        if part is None or chain is None:
            return full
        beyond = int(beyond_hardware(basis).sum()) if basis is not None else 0
        return html.sweep_status_html(part, file=chain.file, runs=len(chain.runs),
                                      empirical=roofline.empirical_words if roofline is not None else "",
                                      beyond=beyond)
