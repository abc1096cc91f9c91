"""What the layers' bqplot marks share: arrays sent only when changed, the hovered element.

A layer's marks (``widget.layers``: the rank spread, the memory levels, a
baseline's arrows) draw one part of a :class:`~roofline_widget.scene.parts.Scene`
(``draw(part)``, None: hidden); the figure draws them between the ceilings
and the points (:attr:`RooflineFigure.layers <roofline_widget.widget.figure.RooflineFigure>`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["hover_index", "set_if_changed"]


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
