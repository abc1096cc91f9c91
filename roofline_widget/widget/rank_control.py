"""The widget's Ranks field: a text of ranks, ranges, hosts and sockets, linked to ``ranks``.

A list of every rank (an ipywidgets ``SelectMultiple``) costs seconds to build
at thousands of ranks and is no way to pick them; :class:`RankControl` is a
text field read by the rule every ``ranks=`` follows
(:func:`~roofline_widget.settings.rank_text.parse_rank_text`: ``"0-71,144"``,
``"f0702"``, ``"f0702 socket 1"``, ``"f07*"``), a short hint of what the data
has (:func:`ranks_hint`), and a menu of the data's hosts and sockets that
fills the text.  Its size does not grow with the number of ranks: the menu
lists at most :data:`MAX_PLACE_CHOICES` names, the hint a few.

The widget's ``ranks`` trait stays the public state (a list of ints, None
for every rank).  A text that does not read (a typo, a host the data lacks)
shows its error beside the field and changes nothing: the trait, the points
and the figure keep their values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import ipywidgets as widgets
from traitlets import TraitError

from roofline_widget.errors import SelectionError
from roofline_widget.points import RegionSums
from roofline_widget.points.rank_places import rank_places_of, resolve_ranks
from roofline_widget.settings.rank_text import format_rank_text
from roofline_widget.widget.html.controls import ranks_hint_html
from roofline_widget.widget.lazy_section import LazyWidget
from roofline_widget.widget.shared_looks import SharedLooks
from roofline_widget.widget.state import UpdateGuard

if TYPE_CHECKING:
    from roofline_widget.widget.roofline_widget import RooflineWidget

__all__ = ["MAX_PLACE_CHOICES", "RankControl", "ranks_hint"]

#: The most host and socket names the menu lists (the text takes every name).
MAX_PLACE_CHOICES = 200
_HOSTS_SHOWN = 4
_MENU_PROMPT = "host / socket"
#: How ``rank_places_of`` names a socket: ``"f0702 socket 1"``, ``"socket 0"``.
_SOCKET_NAME = re.compile(r"(?:^| )socket [0-9]+$")


def ranks_hint(ranks: Sequence[int], places: Mapping[str, Sequence[int]]) -> str:
    """What ranks the data has, in one line of plain text.

    Examples
    --------
    >>> ranks_hint(range(216), {"f0702": range(72), "f0703": range(72, 144),
    ...                         "f0704": range(144, 216)})
    '216 ranks on 3 hosts: 0-215; hosts f0702, f0703, f0704'
    >>> ranks_hint([0, 1, 2, 5], {})
    '4 ranks: 0-2,5'
    """
    sockets = [name for name in places if _SOCKET_NAME.search(name)]
    hosts = [name for name in places if name not in set(sockets)]
    text = f"{len(ranks):,} rank{'' if len(ranks) == 1 else 's'}"
    if hosts:
        text += f" on {len(hosts):,} host{'' if len(hosts) == 1 else 's'}"
    if sockets:
        text += f" ({len(sockets):,} sockets)"
    numbers = format_rank_text(ranks)
    if numbers.count(",") >= 4:  # many gaps: the first ones
        numbers = ",".join(numbers.split(",")[:4]) + ", ..."
    text += f": {numbers}"
    if hosts:
        named = hosts if len(hosts) <= _HOSTS_SHOWN + 1 else [*hosts[:_HOSTS_SHOWN], "...",
                                                             hosts[-1]]
        text += f"; hosts {', '.join(named)}"
    return text


class RankControl:
    """The Ranks field, its hint and its menu of hosts and sockets.

    Parameters
    ----------
    sums : RegionSums
        The data (its ranks, hosts and sockets).
    guard : UpdateGuard
        The widget's re-entrancy guard: the kernel writes to the field under it.
    max_choices : int, default MAX_PLACE_CHOICES
        The most host and socket names the menu lists (the text takes every name).
    looks : SharedLooks, optional
        The roofline widget's shared layouts and styles (None: looks of its own).

    Attributes
    ----------
    text : ipywidgets.Text
        The ranks as text (DOM class ``roofline-ranks``); blank for every rank.
        Read when the user presses Enter or leaves the field.
    place_choice : ipywidgets.Dropdown
        The data's hosts and sockets (DOM class ``roofline-rank-places``): a
        pick writes its name into the text.  For data without hosts hidden, made only
        when read (not in the box, nothing sent for it).
    hint_html : ipywidgets.HTML
        What the data has (:func:`ranks_hint`), or the error of a text that
        does not read (DOM class ``roofline-ranks-hint``).
    box : ipywidgets.VBox
        The three, for the control panel (the field and its menu in a row; without hosts the
        field alone); hidden for data of one rank.
    """

    def __init__(self, sums: RegionSums, guard: UpdateGuard, *,
                 max_choices: int = MAX_PLACE_CHOICES, looks: SharedLooks | None = None) -> None:
        looks = looks or SharedLooks()
        self._sums = sums
        self._guard = guard
        self._all = list(sums.ranks)
        self._places = rank_places_of(sums)
        self._typing = False
        self.hint = ranks_hint(self._all, self._places)
        self.text = looks.make(
            widgets.Text, value="", description="Ranks", continuous_update=False,
            placeholder="all: e.g. 0-71,144" + (f" or {next(iter(self._places))}"
                                                if self._places else ""),
            style={"description_width": "50px"}, layout={"width": "240px"}, css="roofline-ranks")
        names = list(self._places)[:max_choices]
        self._menu_names = frozenset(names)
        # no hosts: never shown, made only when read
        self._place = LazyWidget(lambda: looks.make(
            widgets.Dropdown, options=[(_MENU_PROMPT, ""), *((name, name) for name in names)],
            value="", layout={"width": "150px", **({} if names else {"display": "none"})},
            css="roofline-rank-places"))
        shown = (self._place.widget,) if names else ()
        self.hint_html = looks.html(self._hint_html(), max_width="400px", margin="0 0 0 54px",
                                    css="roofline-ranks-hint")
        # the field beside its menu; without hosts the field alone (no row around it)
        field = widgets.HBox([self.text, *shown], layout=looks.layout()) if shown else self.text
        self.box = widgets.VBox(
            [field, self.hint_html],
            layout=looks.layout(**({} if len(self._all) > 1 else {"display": "none"})))

    @property
    def place_choice(self) -> widgets.Dropdown:
        """The menu of hosts and sockets; for data without hosts hidden, made when first read."""
        return self._place.widget

    # ------------------------------------------------------------ showing
    def _hint_html(self, error: str = "") -> str:
        return ranks_hint_html(self.hint, error)

    def text_of(self, ranks: Sequence[int] | None) -> str:
        """The shortest text of ``ranks``: blank for every rank, a host's or socket's name, ranges."""
        if ranks is None:
            return ""
        chosen = list(ranks)
        for name, of in self._places.items():
            if len(of) == len(chosen) and list(of) == chosen:
                return name
        return format_rank_text(chosen)

    def show(self, ranks: Sequence[int] | None, *, keep_text: bool = False) -> None:
        """Show the trait's value (the kernel's write: nothing is read back).

        ``keep_text``: the field keeps the user's text as typed.
        """
        with self._guard.hold():
            if not (keep_text or self._typing):
                self.text.value = self.text_of(ranks)
            if self._place.made:
                self.place_choice.value = (self.text.value if self.text.value in self._menu_names
                                           else "")
            self.hint_html.value = self._hint_html()

    # ------------------------------------------------------------ reading
    def read(self, owner: RooflineWidget, text: str) -> None:
        """Set ``owner.ranks`` from a text; a text that does not read shows its error only."""
        self._typing = True  # the trait's observer leaves the field as typed
        try:
            chosen = resolve_ranks(self._sums, text) if text.strip() else None
            owner.ranks = None if chosen == self._all else chosen
        except (SelectionError, TraitError) as exc:
            with self._guard.hold():
                self.hint_html.value = self._hint_html(str(exc))
            return
        finally:
            self._typing = False
        # every rank: the field shows it blank; else as typed
        self.show(owner.ranks, keep_text=owner.ranks is not None)

    def link(self, owner: RooflineWidget) -> None:
        """Link the field to ``owner.ranks`` both ways, and the menu to the field."""
        def typed(change):
            if not self._guard.active:
                self.read(owner, change.new)

        def picked(change):
            if not self._guard.active and change.new:
                self.text.value = change.new  # read by ``typed``

        owner.observe(lambda change: self.show(change.new), names="ranks")
        self.text.observe(typed, names="value")
        self._place.when_made(lambda choice: choice.observe(picked, names="value"))
        self.show(owner.ranks)
