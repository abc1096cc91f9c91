"""Layers: extra marks a :class:`RooflineWidget` draws with its points.

A layer (memory levels, a baseline run's arrows, rank whiskers) owns its
bqplot marks and computes their data from what the widget selected, handed
to it as a :class:`LayerInput` after every refresh.  The widget never looks
inside a layer: it calls the :class:`Layer` methods below, and the figure
draws the layer's marks between the ceilings and the points.

To add a layer: write a class with the :class:`Layer` methods in its own
module, create its marks with the figure's scales (``figure.x_scale``,
``figure.y_scale``), and register it with :meth:`RooflineFigure.add_layer`
(see ``RooflineWidget.__init__``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from roofline_widget.points import RegionSums, Selection
from roofline_widget.roofs.roofline import Roofline
from roofline_widget.widget.state import PointState

__all__ = ["Layer", "LayerInput", "set_if_changed"]


@dataclass(frozen=True)
class LayerInput:
    """What a layer is given after every refresh of the widget.

    Attributes
    ----------
    sums : RegionSums
        The widget's per-region sums.
    selection : Selection or None
        The selection of the current points (metrics resolved, patterns
        compiled, ranks, ``combine_ranks``): pass it on as ``selection=``;
        None while the selection is invalid (a bad pattern): draw nothing.
    points : PointState
        The current points (``points.points`` all, ``points.shown`` drawn).
    roofline : Roofline or None
        The current ceilings.
    color_codes : callable
        ``color_codes(frame)`` gives the widget's colour codes (indices into
        ``style.PALETTE``) for the rows of a points-like frame, so a layer
        colours a region as the points do.
    options : dict
        The widget's trait values by name (read-only view for the layer).
    """

    sums: RegionSums
    selection: Selection | None
    points: PointState
    roofline: Roofline | None
    color_codes: Callable[[pd.DataFrame], np.ndarray]
    options: dict


@runtime_checkable
class Layer(Protocol):
    """The interface between :class:`RooflineWidget` and a layer of marks."""

    @property
    def marks(self) -> tuple:
        """The layer's bqplot marks, created once, in drawing order."""
        ...

    def update(self, data: LayerInput) -> None:
        """Recompute and assign the marks' data for ``data`` (hide them if not needed)."""
        ...

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """x and y values (intensity, GFLOP/s) the axes must hold for this layer."""
        ...

    def status(self) -> str:
        """HTML (escaped) for the widget's status line, "" for nothing to say."""
        ...


def set_if_changed(mark, name: str, value) -> None:
    """Assign an array trait of ``mark`` only when its value changed.

    traitlets cannot compare arrays, so every assignment is sent to the
    front end; layers call this so that a peak change (which keeps the
    points) sends no point arrays.
    """
    old = getattr(mark, name)
    if old is None or np.shape(old) != np.shape(value) or not np.array_equal(old, value):
        setattr(mark, name, value)
