"""The widget's layers: the ranks view always, memory levels and a baseline when first needed.

:class:`LayerStack` registers the layers with the figure
(:meth:`~roofline_widget.widget.figure.RooflineFigure.add_layer`, whose
``layers`` dict stays the one registry), hands each refresh to all of them
and collects what the axes must hold and what the status line says.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from roofline_widget.widget.figure import RooflineFigure
from roofline_widget.widget.layers.base import LayerInput
from roofline_widget.widget.layers.compare import CompareLayer, baseline_runs
from roofline_widget.widget.layers.levels import LevelsLayer
from roofline_widget.widget.layers.ranks import RanksLayer

__all__ = ["LayerStack"]


class LayerStack:
    """The layers of one widget's figure.

    Parameters
    ----------
    figure : RooflineFigure
        The figure the layers draw in.
    on_region_click : callable
        ``on_region_click(region)`` when a median point of the spread view is clicked.

    Attributes
    ----------
    ranks : RanksLayer
        The ranks view (registered as ``"ranks"``).
    """

    def __init__(self, figure: RooflineFigure, on_region_click: Callable[[str], None]) -> None:
        self.figure = figure
        self.ranks = RanksLayer(figure, on_click=on_region_click)
        figure.add_layer("ranks", self.ranks)

    @property
    def levels(self) -> LevelsLayer | None:
        """The memory-level layer (None until levels are first shown)."""
        return self.figure.layers.get("levels")

    @property
    def baseline(self) -> CompareLayer | None:
        """The baseline layer (None until a baseline is first given)."""
        return self.figure.layers.get("baseline")

    def show_levels(self, levels: list) -> None:
        """Register the levels layer when ``levels`` are first shown (it stays registered)."""
        if self.levels is None and levels:
            self.figure.add_layer("levels", LevelsLayer(self.figure))

    def set_baseline(self, baseline, match=None) -> None:
        """The baseline (run data, ``{label: run}`` chain, or None) the arrows start from.

        The first baseline registers a :class:`CompareLayer`; later ones replace its
        runs (a chain of another length brings new marks, which the figure takes).

        Raises
        ------
        ValueError
            For a baseline :func:`baseline_runs` refuses (nothing is changed).
        """
        layer = self.baseline
        if layer is not None:
            layer.runs = baseline_runs(baseline) if baseline is not None else []
            self.figure.plot.marks = self.figure.marks
        elif baseline is not None:
            layer = CompareLayer(self.figure.x_scale, self.figure.y_scale, baseline, match=match,
                                 plot=self.figure.plot)
            self.figure.add_layer("baseline", layer)

    def update(self, data: LayerInput) -> None:
        """Hand a new selection (or new ceilings) to every layer; they assign their marks."""
        for layer in self.figure.layers.values():
            layer.update(data)

    def baseline_points(self, data: LayerInput) -> pd.DataFrame | None:
        """The baseline's points (:meth:`CompareLayer.baseline_rows`), None without a baseline."""
        layer = self.baseline
        if layer is None or not layer.runs:
            return None
        return layer.baseline_rows(data)

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """Every layer's (x, y) values, concatenated (the axes hold them too)."""
        extents = [layer.extent() for layer in self.figure.layers.values()]
        if not extents:
            return np.zeros(0), np.zeros(0)
        return (np.concatenate([np.asarray(x, dtype=float) for x, _ in extents]),
                np.concatenate([np.asarray(y, dtype=float) for _, y in extents]))

    def statuses(self) -> list[str]:
        """Each layer's note for the status line (escaped HTML; "" for nothing to say)."""
        return [layer.status() for layer in self.figure.layers.values()]
