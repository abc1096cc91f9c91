"""Widgets made together, opened together: one comm message per widget, with its final state.

ipywidgets opens a widget's comm when the widget is made (a ``comm_open``
message holding its whole state) and sends each later change of a synced
trait as a message of its own.  A roofline widget makes some 80 widgets and
then draws its first refresh into them (points, ranges, texts, peaks): every
value set after an open would be one more message for the kernel to
serialize and sign, and for the browser to apply, before the first draw.

Inside :func:`opened_at_exit` a widget made gets a stand-in comm
(:class:`PendingComm`: the widget's id, no messages) before ipywidgets would
open it (``Widget.on_widget_constructed``, the hook ipywidgets calls then): its
state is not serialized, and the values set afterwards cost nothing
(ipywidgets sends nothing through a comm without a kernel).  At the exit each
widget still pending gets its comm from ``comm.create_comm`` (the kernel's, as
ipywidgets would have), under the same id, with the state it has then: one
``comm_open`` per widget.  A widget is opened after the widgets its state
refers to (a box after its children, a mark after its scales), so that the
browser knows every model before one names it.  If the block raises, the
pending widgets are closed unopened: nothing is sent for them.  Widgets made
later (made when first needed) are opened as ipywidgets does, when made.  A
widget opened before the block must not be given one made in it before the
block ends (the browser would be told of a model it does not know yet).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets
from comm.base_comm import BaseComm

__all__ = ["PendingComm", "opened_at_exit"]


class PendingComm(BaseComm):
    """A widget's stand-in comm until :func:`opened_at_exit` opens it: its id, no messages.

    Attributes
    ----------
    kernel : None
        No kernel: ipywidgets sends no state through this comm.
    """

    kernel = None

    def __init__(self, comm_id: str | None = None) -> None:
        super().__init__(target_name="jupyter.widget", comm_id=comm_id, primary=False)

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys) -> None:
        """Nothing is sent before the widget is opened."""

    def close(self, data=None, metadata=None, buffers=None, deleting: bool = False) -> None:
        """A widget closed before it was opened: nothing to tell the browser."""
        self._closed = True


#: The widgets made inside the outermost ``opened_at_exit`` (None outside one).
_pending: list[widgets.Widget] | None = None


@contextmanager
def opened_at_exit() -> Iterator[None]:
    """Open the widgets made in the block at its end, each with one message of its final state.

    Nested blocks open their widgets at the outermost block's end.  Not thread
    safe: the widgets made in other threads meanwhile wait too (a kernel runs
    one cell at a time).
    """
    global _pending
    if _pending is not None:
        yield
        return
    pending: list[widgets.Widget] = []
    # ipywidgets keeps one such hook, with no getter: it is called too, and put back
    previous: Callable | None = getattr(widgets.Widget, "_widget_construction_callback", None)

    def constructed(widget: widgets.Widget) -> None:
        if previous is not None:
            previous(widget)
        if widget.comm is None:
            widget.comm = PendingComm(comm_id=getattr(widget, "_model_id", None))
            pending.append(widget)

    _pending = pending
    widgets.Widget.on_widget_constructed(constructed)
    done = False
    try:
        yield
        done = True
    finally:
        _pending = None
        widgets.Widget.on_widget_constructed(previous)
        made = [widget for widget in pending if isinstance(widget.comm, PendingComm)]
        if done:
            opening: set[int] = set()
            for widget in made:
                _open(widget, opening)
        else:
            for widget in made:
                widget.close()


def _open(widget: widgets.Widget, opening: set[int]) -> None:
    """Open ``widget`` if it waits, after the waiting widgets its state refers to."""
    if not isinstance(widget.comm, PendingComm) or id(widget) in opening:
        return
    opening.add(id(widget))
    for name in _widget_traits(type(widget)):
        for referred in _widgets_in(getattr(widget, name)):
            _open(referred, opening)
    widget.comm = None  # its id stays (``model_id``): the comm opened now takes it
    widget.open()


#: Per widget class, its synced traits that hold widgets (serialized as references).
_REFERRING: dict[type, tuple[str, ...]] = {}


def _widget_traits(kind: type[widgets.Widget]) -> tuple[str, ...]:
    """The synced traits of ``kind`` serialized as widget references (``widget_serialization``)."""
    if kind not in _REFERRING:
        to_json = widgets.widget_serialization["to_json"]
        _REFERRING[kind] = tuple(name for name, trait in kind.class_traits(sync=True).items()
                                 if trait.metadata.get("to_json") is to_json)
    return _REFERRING[kind]


def _widgets_in(value: Any) -> list[widgets.Widget]:
    """The widgets in such a trait's value (a widget, or lists, tuples and dicts of them)."""
    if isinstance(value, widgets.Widget):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [found for item in value for found in _widgets_in(item)]
    return []
