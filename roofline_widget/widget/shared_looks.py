"""Layouts and styles shared by a widget's controls: one comm message per look, not per control.

Every ipywidgets ``Layout`` and ``*Style`` is a widget of its own, opened in the
browser with a comm message of its own (a ``Dropdown`` is three widgets: itself,
its layout and its style).  Most controls of a roofline widget look like others
(a column's width, a description's width, no look at all), so
:class:`SharedLooks` makes each distinct look once per roofline widget and hands
the same instance to every control that asks for it.

Controls of different kinds share a style where one kind's style is the
other's: a ``TextStyle`` is a ``DescriptionStyle`` (its colours unset), so the
dropdowns and number boxes take the text boxes' style of the same description
width (:data:`SHARED_STYLE_KINDS`).

A shared look is never changed after it is made: a control whose look changes
while the widget is shown (a message shown and hidden) gets a ``Layout`` of its
own, as ipywidgets makes by default.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import TextStyle

__all__ = ["SHARED_STYLE_KINDS", "SharedLooks"]

#: The style made for a control whose style is the key: one that controls of other kinds take
#: too (a ``Dropdown``'s ``DescriptionStyle`` is made as a ``TextStyle``, which a ``Text``
#: takes as well).
SHARED_STYLE_KINDS: dict[type, type] = {DescriptionStyle: TextStyle}


class SharedLooks:
    """The layouts and styles of one roofline widget's controls, each distinct one made once.

    Examples
    --------
    >>> looks = SharedLooks()
    >>> looks.layout(width="400px") is looks.layout(width="400px")
    True
    >>> looks.style(widgets.Dropdown, description_width="100px") is looks.style(
    ...     widgets.Text, description_width="100px")
    True
    """

    def __init__(self) -> None:
        self._made: dict[tuple, widgets.Widget] = {}
        self._styles: dict[tuple, list[widgets.Style]] = {}

    def layout(self, **traits: str | None) -> widgets.Layout:
        """The shared ``Layout`` of these CSS properties (none: the plain one; None: not set)."""
        key = ("layout", *sorted(traits.items()))
        if key not in self._made:
            self._made[key] = widgets.Layout(**traits)
        return self._made[key]

    def style(self, control: type[widgets.DOMWidget], **traits: str) -> widgets.Style:
        """The shared style of ``control``'s kind (``Dropdown``: a ``DescriptionStyle``) with ``traits``.

        A style made for another kind serves when it is one of ``control``'s kind
        (:data:`SHARED_STYLE_KINDS`).
        """
        kind = control.class_traits()["style"].klass
        key = ("style", *sorted(traits.items()))
        for made in self._styles.setdefault(key, []):
            if isinstance(made, kind):
                return made
        made = SHARED_STYLE_KINDS.get(kind, kind)(**traits)
        self._styles[key].append(made)
        return made

    def make(self, control: type[widgets.DOMWidget], *, layout: dict | None = None, style: dict | None = None,
             css: str = "", **options: Any):
        """A ``control(**options)`` with the shared layout of ``layout`` and the shared style of
        ``style`` (each: CSS properties or style traits; None: the plain one).

        ``css``: the control's DOM class, given when it is made (``add_class`` afterwards
        would send a message of its own).
        """
        extra = {"style": self.style(control, **(style or {}))} if "style" in \
            control.class_traits() else {}
        if css:
            extra["_dom_classes"] = (css,)
        return control(layout=self.layout(**(layout or {})), **extra, **options)

    def html(self, value: str = "", css: str = "", **layout: str) -> widgets.HTML:
        """An ``HTML`` widget of ``value`` with the shared plain style, the layout of ``layout``
        and the DOM class ``css``."""
        return self.make(widgets.HTML, layout=layout, css=css, value=value)
