"""Widgets made together, opened together: one comm message per widget, with its final state.

ipywidgets opens a widget's comm when the widget is made (a ``comm_open``
message holding its whole state) and sends each later change of a synced
trait as a message of its own.  A roofline widget makes some 70 widgets and
then draws its first refresh into them (points, ranges, texts, peaks): every
value set after an open would be one more message for the kernel to
serialize and sign, and for the browser to apply, before the first draw.

Inside :func:`opened_at_exit` a widget made gets a stand-in comm
(:class:`PendingComm`: the widget's id, no messages; ipywidgets sends nothing
through a comm without a kernel), so the values set after it was made cost
nothing.  At the exit each widget still pending gets its comm from
``comm.create_comm`` (the kernel's, as ipywidgets would have), under the same
id, with the state it has then: one ``comm_open`` per widget.  A widget is
opened after the widgets its state refers to (a box after its children, a
mark after its scales), so that the browser knows every model before one
names it.  If the block raises, the pending widgets are closed unopened:
nothing is sent for them.  Widgets made later (made when first needed) are
opened as ipywidgets does, when made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import comm
import ipywidgets as widgets
from comm.base_comm import BaseComm

__all__ = ["PendingComm", "opened_at_exit"]


class PendingComm(BaseComm):
    """A widget's stand-in comm until :func:`opened_at_exit` opens it: its id, no messages.

    Attributes
    ----------
    kernel : None
        No kernel: ipywidgets sends no state through this comm.
    widget : ipywidgets.Widget or None
        The widget it stands in for (known once the widget took the comm and
        registered its message handler on it).
    """

    kernel = None

    def __init__(self, comm_id: str | None = None, target_name: str = "jupyter.widget",
                 **_opening: Any) -> None:
        super().__init__(target_name=target_name, comm_id=comm_id, primary=False)
        self.widget: widgets.Widget | None = None

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys) -> None:
        """Nothing is sent before the widget is opened."""

    def on_msg(self, callback: Callable | None) -> None:
        """The widget registers its handler here when it takes the comm: that is its widget."""
        super().on_msg(callback)
        self.widget = getattr(callback, "__self__", self.widget)

    def close(self, data=None, metadata=None, buffers=None, deleting: bool = False) -> None:
        """A widget closed before it was opened: nothing to tell the browser."""
        self._closed = True


#: The stand-in comms of the widgets made inside the outermost ``opened_at_exit``.
_pending: list[PendingComm] | None = None


@contextmanager
def opened_at_exit() -> Iterator[None]:
    """Open the widgets made in the block at its end, each with one message of its final state.

    Nested blocks open their widgets at the outermost block's end.  Not thread
    safe: ``comm.create_comm`` is replaced while the block runs (a kernel runs
    one cell at a time).
    """
    global _pending
    if _pending is not None:
        yield
        return
    pending: list[PendingComm] = []
    create = comm.create_comm

    def stand_in(*args: Any, **keys: Any) -> PendingComm:
        made = PendingComm(*args, **keys)
        pending.append(made)
        return made

    _pending, comm.create_comm = pending, stand_in
    done = False
    try:
        yield
        done = True
    finally:
        _pending, comm.create_comm = None, create
        made = [stand.widget for stand in pending
                if stand.widget is not None and stand.widget.comm is stand]
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
    for name in widget.keys:
        for referred in _widgets_in(getattr(widget, name, None)):
            _open(referred, opening)
    widget.comm = None  # its id stays (``model_id``): the comm opened now takes it
    widget.open()


def _widgets_in(value: Any) -> Iterator[widgets.Widget]:
    """The widgets in a trait's value (a widget, or lists, tuples and dicts of them)."""
    if isinstance(value, widgets.Widget):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _widgets_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _widgets_in(item)
