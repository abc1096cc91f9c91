"""What the layers' bqplot marks share: arrays sent only when changed, the hovered element.

A layer's marks (``widget.layers``: the rank spread, the memory levels, a
baseline's arrows) draw one part of a :class:`~roofline_widget.scene.parts.Scene`
(``draw(part)``, None: hidden); the figure draws them between the ceilings
and the points (:attr:`RooflineFigure.layers <roofline_widget.widget.figure.RooflineFigure>`).
"""

from __future__ import annotations

import bqplot as bq
import numpy as np

__all__ = ["draw_mark", "hover_index", "set_if_changed"]

_EMPTY = np.zeros(0)


def set_if_changed(mark, name: str, value) -> None:
    """Assign an array trait of ``mark`` only when its value changed.

    traitlets cannot compare arrays, so every assignment is sent to the
    front end; the marks call this so that a peak change (which keeps the
    points) sends no point arrays.
    """
    old = getattr(mark, name)
    if old is None or np.shape(old) != np.shape(value) or not np.array_equal(old, value):
        setattr(mark, name, value)


def hover_index(content: dict, length: int) -> int | None:
    """The index of the element a bqplot hover (or click) message names, if in ``range(length)``."""
    point = content.get("point") or content.get("data") or {}
    index = point.get("index")
    return index if isinstance(index, int) and 0 <= index < length else None


def draw_mark(mark, drawn, visible: bool = True) -> None:
    """Draw a scene's :class:`~roofline_widget.scene.parts.Dots` or ``Polylines`` on ``mark``.

    Positions and colours (codes and shaded values through the mark's colour
    scale, else its ``colors``) are sent only when they changed.  None, empty or
    not ``visible``: the mark is hidden, a Scatter's points are emptied (none
    stay in the page).
    """
    with mark.hold_sync():
        if drawn is None or not len(drawn) or not visible:
            if isinstance(mark, bq.Scatter):
                for name in ("x", "y", *(("color",) if mark.color is not None else ())):
                    set_if_changed(mark, name, _EMPTY)
            mark.visible = False
            return
        set_if_changed(mark, "x", drawn.x)
        set_if_changed(mark, "y", drawn.y)
        codes = getattr(drawn, "codes", None)
        shaded = codes if codes is not None else drawn.values
        if shaded is not None:
            set_if_changed(mark, "color", shaded)
        elif drawn.colors:
            mark.colors = list(drawn.colors)
        mark.visible = True
