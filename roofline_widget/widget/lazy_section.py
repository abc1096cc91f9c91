"""``LazySection``: a collapsed accordion whose HTML is made when the user opens it.

A section the user must open (the "Ceilings" table, the "Left out" list)
shows its title at once (with a count) but its content only when opened: a
refresh hands :meth:`LazySection.show` the title and a function that makes
the content (escaped HTML) from that refresh's state.  The function runs when
the section is open, or later when it is opened, and never for a state that
is no longer current: the browser is sent the content the user sees, once per
opening or per refresh while open, and a closed section is never half updated.

:class:`LazyWidget` is the same rule for a widget not shown at the first draw
(a message box before the first message, a dropdown hidden for the data):
made when first read, so that nothing is sent for it until then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import ipywidgets as widgets

__all__ = ["LazySection", "LazyWidget"]

W = TypeVar("W", bound=widgets.Widget)


class LazyWidget(Generic[W]):
    """A widget made when first read (:attr:`widget`), and what to do with it then.

    Parameters
    ----------
    make : callable
        ``make()`` returns the widget (called once, at the first read).

    Attributes
    ----------
    made : bool
        Whether the widget was made (read) yet.
    """

    def __init__(self, make: Callable[[], W]) -> None:
        self._make = make
        self._widget: W | None = None
        self._then: list[Callable[[W], None]] = []

    @property
    def made(self) -> bool:
        return self._widget is not None

    @property
    def widget(self) -> W:
        """The widget, made now if it was not (then each :meth:`when_made` callback runs)."""
        if self._widget is None:
            self._widget = self._make()
            for then in self._then:
                then(self._widget)
        return self._widget

    def when_made(self, then: Callable[[W], None]) -> None:
        """Call ``then(widget)`` once the widget is made (now if it is)."""
        self._then.append(then)
        if self._widget is not None:
            then(self._widget)


class LazySection:
    """One collapsed ``Accordion`` with one HTML child, filled when opened.

    Parameters
    ----------
    content : ipywidgets.HTML or callable
        The section's content (empty until the section is first opened), or
        ``content(value)`` making it of the HTML ``value`` when first needed (opened,
        or :attr:`content` read): until then the accordion holds ``placeholder``.
    title : str
        The first title.
    layout : ipywidgets.Layout
        The accordion's layout.
    css : str
        The accordion's DOM class.
    placeholder : ipywidgets.Widget, optional
        The child of the closed accordion while ``content`` is not made (an
        accordion shows the titles of its children only; several sections may
        share one).  Required when ``content`` is a callable.

    Attributes
    ----------
    box : ipywidgets.Accordion
        The section (``box.selected_index = 0`` opens it, as the user's click does).
    content : ipywidgets.HTML
        Its content: the current state's HTML while the section is open (made now,
        and put in the accordion, if it was not).
    """

    def __init__(self, content: widgets.HTML | Callable[[str], widgets.HTML], title: str,
                 layout: widgets.Layout, css: str,
                 placeholder: widgets.Widget | None = None) -> None:
        if isinstance(content, widgets.Widget):
            made, given = True, content
            self._content = LazyWidget(lambda: given)
        elif placeholder is None:
            raise ValueError("a content made later needs a placeholder")
        else:
            made, make = False, content
            self._content = LazyWidget(lambda: make(self._value))
        self._value = ""  # the content's value, made or not
        self.box = widgets.Accordion(children=[self._content.widget if made else placeholder],
                                     titles=(title,), layout=layout, selected_index=None,
                                     _dom_classes=(css,))
        if not made:
            self._content.when_made(self._join)
        self._make: Callable[[], str] | None = None
        self.box.observe(lambda _change: self._fill_if_open(), names="selected_index")

    @property
    def content(self) -> widgets.HTML:
        return self._content.widget

    @property
    def is_open(self) -> bool:
        """Whether the user (or the code) opened the section."""
        return self.box.selected_index is not None

    def show(self, title: str, make: Callable[[], str]) -> None:
        """The new title now; the content ``make()`` (escaped HTML) now if open, else when opened.

        ``make`` must read a state that does not change after this call (the
        refresh's), so that a later opening shows what this refresh shows.
        """
        self.box.set_title(0, title)  # the same title: no message
        self._make = make
        self._fill_if_open()

    def html(self) -> str:
        """The content of the current state, made now if the section has not been opened since
        (what opening the section would show; the section stays closed)."""
        self._fill(shown=False)
        return self._value

    def _join(self, content: widgets.HTML) -> None:
        """The content, just made (of the current value), into the accordion."""
        self.box.children = [content]

    def _fill_if_open(self) -> None:
        if self.is_open:
            self._fill(shown=True)

    def _fill(self, shown: bool) -> None:
        """Make the current state's HTML (if not made yet); ``shown``: into the content,
        made now if need be (else only into a content made before)."""
        if self._make is not None:
            self._value, self._make = self._make(), None
        if shown or self._content.made:
            content = self.content
            if content.value != self._value:
                content.value = self._value
