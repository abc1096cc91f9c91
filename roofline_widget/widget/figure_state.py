"""``FigureState``: what :class:`~roofline_widget.widget.figure.RooflineFigure` draws, as one value."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.ceiling_labels import LogPoints
from roofline_widget.roofs.roofline import Roofline

__all__ = ["FigureState"]


@dataclass(frozen=True)
class FigureState:
    """What the figure draws.

    Attributes
    ----------
    points : pandas.DataFrame
        The points drawn (x: ``arithmetic_intensity_flops_per_byte``, y:
        ``performance_gflops``), one Scatter dot per row.
    colors : numpy.ndarray
        Colour code per point (index into the colour scale, ``look.colors.PALETTE`` in the widget).
    sizes : numpy.ndarray or None
        Marker size per point in [0, 1], None for the default size.
    selected : numpy.ndarray or None
        Row indices of ``points`` shown selected.
    roofline : Roofline or None
        The ceilings (None: no ceilings drawn).
    x_range, y_range : (float, float)
        Axis limits.
    title : str
        Figure title ("" when there are points).
    layer_points : (array-like, array-like)
        Intensities and GFLOP/s of what the layers draw as points (level dots,
        baseline points, rank medians): the ceiling labels keep clear of them
        as of ``points``.
    """

    points: pd.DataFrame
    colors: np.ndarray
    sizes: np.ndarray | None
    selected: np.ndarray | None
    roofline: Roofline | None
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    title: str = ""
    layer_points: tuple = ((), ())

    def drawn_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Intensities and GFLOP/s of every point drawn: the scatter's and the layers'."""
        x = np.concatenate([self.points[schema.INTENSITY].to_numpy(dtype=float),
                            np.asarray(self.layer_points[0], dtype=float)])
        y = np.concatenate([self.points[schema.PERFORMANCE].to_numpy(dtype=float),
                            np.asarray(self.layer_points[1], dtype=float)])
        return (x, y) if x.shape == y.shape else (x[:0], y[:0])

    @cached_property
    def label_points(self) -> LogPoints:
        """:meth:`drawn_points` as the ceiling labels keep clear of them (worked out once)."""
        return LogPoints.of(self.drawn_points())

    def changed(self, **changes) -> FigureState:
        """A copy with ``changes``; it keeps :attr:`label_points` while the points stay."""
        if "layer_points" in changes and all(
                np.array_equal(np.asarray(old, dtype=float), np.asarray(new, dtype=float))
                for old, new in zip(self.layer_points, changes["layer_points"])):
            del changes["layer_points"]  # the same dots: the labels' points stay
        state = replace(self, **changes)
        if "label_points" in self.__dict__ and not {"points", "layer_points"} & changes.keys():
            state.__dict__["label_points"] = self.label_points  # the cached property's value
        return state
