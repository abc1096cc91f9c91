"""What the widget computes before it assigns anything: points, ceilings, axis ranges.

Pure functions and small dataclasses; nothing here touches a widget.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from traitlets import TraitError

from roofline_widget import schema
from roofline_widget.ceilings import BandwidthRoof, ComputeRoof, Roofline
from roofline_widget.errors import SelectionError
from roofline_widget.look import style
from roofline_widget.points import RegionSums, Selection
from roofline_widget.schema import ALL_RANKS

__all__ = [
    "COLOR_COLUMN",
    "POINT_KEY",
    "PointState",
    "UpdateGuard",
    "axis_ranges",
    "check_ceilings",
    "classify",
    "color_categories",
    "color_codes",
    "key_index",
    "marker_sizes",
    "normalize_key",
    "rooflines",
    "runtime_log_range",
    "select_points",
    "surviving_keys",
]

#: The columns that identify one point; ``RooflineWidget.selected`` holds such tuples.
POINT_KEY = ("file", "rank", "region")
#: Which points-frame column each ``color_by`` value colours by.
COLOR_COLUMN = {"region": "region", "run": "file", "rank": "rank"}
DEFAULT_X_RANGE = (0.01, 100.0)
DEFAULT_Y_RANGE = (0.1, 1000.0)
#: Factor between the data and the widget's axis limits.
AXIS_MARGIN = 3.0


@dataclass
class PointState:
    """One selection of points: computed first, then assigned.

    Attributes
    ----------
    points : pandas.DataFrame
        Every selected point (what the exports hold).
    shown : pandas.DataFrame
        The points drawn (at most ``max_points``).
    left_out : pandas.DataFrame
        Regions that could not be placed, with the reason.
    flops_metric, bandwidth_metric : str or None
        The metrics used.
    notes : list of str
        Remarks of the selection (shown as the message).
    error : str
        An invalid pattern's error ("" when the selection is valid).
    selection : Selection or None
        The selection that gave these points, its metrics resolved (None
        while the selection is invalid); layers select with it too.
    """

    points: pd.DataFrame
    shown: pd.DataFrame
    left_out: pd.DataFrame
    flops_metric: str | None
    bandwidth_metric: str | None
    notes: list = field(default_factory=list)
    error: str = ""
    selection: Selection | None = None

    @cached_property
    def flop_split(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``points`` split into the bulk and those doing almost no FLOPs, computed once.

        :func:`~roofline_widget.look.style.split_flop_work` of ``points``; the axis
        ranges and the status note of every peak change reuse it.
        """
        return style.split_flop_work(self.points)

    @property
    def over_budget(self) -> bool:
        """True when fewer points are drawn than selected."""
        return len(self.shown) < len(self.points)


class UpdateGuard:
    """The widget's one re-entrancy guard.

    While :meth:`hold` is active (construction, a refresh, a revert, the
    kernel writing to a control or a mark), observers of controls, marks and
    traits do not start another refresh or write traits back.
    """

    def __init__(self) -> None:
        self._depth = 0

    @property
    def active(self) -> bool:
        """True inside :meth:`hold`."""
        return self._depth > 0

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Mark an update as running (re-entrant)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1


def key_index(frame: pd.DataFrame) -> pd.MultiIndex:
    """The (file, rank, region) keys of a points frame as a MultiIndex."""
    return pd.MultiIndex.from_arrays(
        [frame["file"].astype(object).to_numpy(), frame["rank"].to_numpy(dtype=np.int64),
         frame["region"].astype(object).to_numpy()], names=POINT_KEY)


def normalize_key(key: tuple | list | dict) -> tuple:
    """``(file, rank, region)`` from a tuple/list or a dict with those keys.

    Raises
    ------
    traitlets.TraitError
        For anything else.
    """
    if isinstance(key, dict):
        try:
            key = tuple(key[name] for name in POINT_KEY)
        except KeyError as exc:
            raise TraitError(f"a selected point needs the keys {POINT_KEY}, got {key!r}") from exc
    if not isinstance(key, (tuple, list)) or len(key) != len(POINT_KEY):
        raise TraitError(f"a selected point is a (file, rank, region) tuple, got {key!r}")
    file, rank, region = key
    try:
        rank = int(rank)
    except (TypeError, ValueError):
        raise TraitError(f"the rank of a selected point must be an integer, got {rank!r}") from None
    return str(file), rank, str(region)


def surviving_keys(selected: list, points: pd.DataFrame) -> list:
    """The selected keys that are still among ``points`` (no stale keys)."""
    if not selected:
        return []
    keep = pd.MultiIndex.from_tuples(selected).isin(key_index(points))
    return [key for key, ok in zip(selected, keep) if ok]


def apply_budget(points: pd.DataFrame, max_points: int) -> pd.DataFrame:
    """The points to draw: all, or the ``max_points`` longest-running ones."""
    if len(points) <= max_points:
        return points
    order = points.sort_values(schema.RUNTIME, ascending=False, na_position="last",
                               kind="stable")
    return order.head(max_points).reset_index(drop=True)


def select_points(sums: RegionSums, *, flops_metric: str | None, bandwidth_metric: str | None,
                  ranks: list | None, include: str, exclude: str, combine_ranks: bool,
                  max_points: int) -> PointState:
    """Select the points for the given trait values from the sums.

    An invalid include/exclude pattern (or one that takes too long on the
    region names) gives an empty state with ``error`` set instead of raising.
    """
    try:
        request = Selection(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                            ranks=ranks, include=include or None, exclude=exclude or None,
                            combine_ranks=combine_ranks)
        selected = sums.select(request)
    except SelectionError as exc:
        empty = sums.select(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                            ranks=[])
        return PointState(empty.points, empty.points, empty.left_out, flops_metric,
                          bandwidth_metric, error=str(exc))
    points = selected.points.reset_index(drop=True)
    return PointState(points, apply_budget(points, max_points), selected.left_out,
                      selected.flops_metric, selected.bandwidth_metric,
                      list(selected.notes), selection=selected.selection)


def check_ceilings(ceilings: Sequence | None) -> tuple:
    """The extra ceilings as a tuple; anything but ComputeRoof/BandwidthRoof raises TypeError."""
    ceilings = tuple(ceilings or ())
    bad = [c for c in ceilings if not isinstance(c, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError(f"ceilings must be ComputeRoof or BandwidthRoof objects, got {bad[0]!r}")
    return ceilings


def rooflines(peak_flops: float | None, peak_bandwidth: float | None, points: pd.DataFrame,
              extra: Sequence = ()) -> tuple[Roofline | None, Roofline | None]:
    """(main roofline from the peaks, main plus extra ceilings), or (None, None)."""
    try:
        main = Roofline.from_peaks(peak_flops, peak_bandwidth, points)
    except ValueError:
        return None, None
    if not extra:
        return main, main
    compute = [c for c in extra if isinstance(c, ComputeRoof)]
    bandwidth = [c for c in extra if isinstance(c, BandwidthRoof)]
    return main, Roofline([*main.compute, *compute], [*main.bandwidth, *bandwidth])


def axis_ranges(points: pd.DataFrame, roofline: Roofline | None,
                extent: tuple = ((), ()), *, bulk: pd.DataFrame | None = None
                ) -> tuple[tuple[float, float], tuple[float, float]]:
    """Log-axis limits that hold the points, every ridge point, the roofs and the ridge label.

    ``extent`` holds more (x, y) values to keep inside, e.g. the layers' marks.
    Points doing almost no FLOPs (:func:`~roofline_widget.look.style.split_flop_work`)
    do not stretch the axes: the ranges follow the other points, and so do
    ``extent`` pairs (x and y of equal length) below the same threshold.
    ``bulk`` is the first part of that split when the caller has it already
    (:attr:`PointState.flop_split`).
    """
    if bulk is None:
        bulk, _ = style.split_flop_work(points)
    extent_x = np.asarray(extent[0], dtype=float)
    extent_y = np.asarray(extent[1], dtype=float)
    if len(bulk) < len(points) and extent_x.shape == extent_y.shape:
        keep = ~(extent_y < style.NO_FLOP_WORK_FRACTION * points[schema.PERFORMANCE].max())
        extent_x, extent_y = extent_x[keep], extent_y[keep]
    x = np.concatenate([style.positive(bulk[schema.INTENSITY]),
                        style.positive(extent_x)])
    y = np.concatenate([style.positive(bulk[schema.PERFORMANCE]),
                        style.positive(extent_y)])
    if roofline is not None:
        ridges = [roofline.ridge_point(bandwidth=b) for b in roofline.bandwidth]
        # Room right of the ridge points for the compute roofs (marks are clipped
        # to the plot area).
        ridges += [10 * r.gflops / roofline.peak_bandwidth for r in roofline.compute]
        x = np.concatenate([x, ridges])
        y = np.concatenate([y, [r.gflops for r in roofline.compute]])
    x_range = style.padded_range(x, AXIS_MARGIN, DEFAULT_X_RANGE)
    if roofline is not None:
        x_range = (x_range[0], max(x_range[1], style.ridge_label_end(roofline.ridge_point(),
                                                                     x_range[0])))
    y_range = style.padded_range(y, AXIS_MARGIN, DEFAULT_Y_RANGE)
    return tuple(map(float, x_range)), tuple(map(float, y_range))


def classify(points: pd.DataFrame, roofline: Roofline | None) -> pd.DataFrame:
    """Points with attainable performance, efficiency, bound and above_roof."""
    if roofline is not None:
        return roofline.classify(points).reset_index(drop=True)
    out = points.copy()
    out["attainable_gflops"] = np.nan
    out["efficiency_percent"] = np.nan
    out["bound"] = np.full(len(out), "n/a", dtype=object)
    out["above_roof"] = np.zeros(len(out), dtype=bool)
    return out.reset_index(drop=True)


def color_categories(sums: RegionSums, color_by: str, combine_ranks: bool) -> list:
    """Every value ``color_by`` can take in the data (fixes each one's colour)."""
    if color_by == "region":
        return sums.regions
    if color_by == "run":
        return sums.files
    return [ALL_RANKS] if combine_ranks else sums.ranks


def color_codes(shown: pd.DataFrame, color_by: str, categories: list) -> np.ndarray:
    """Colour codes fixed over the whole data, so a region keeps its colour.

    Past ``len(PALETTE)`` categories the colours repeat.
    """
    values = shown[COLOR_COLUMN[color_by]]
    values = values.astype(object) if color_by != "rank" else values
    codes = pd.Categorical(values, categories=categories).codes
    return (codes % len(style.PALETTE)).astype(float)


def runtime_log_range(sums: RegionSums) -> tuple[float, float]:
    """log10 of the smallest and largest runtime in the data (the size scale)."""
    runtime = style.positive(sums.frame["runtime_s"])
    if runtime.size == 0:
        return 0.0, 1.0
    low, high = math.log10(runtime.min()), math.log10(runtime.max())
    return float(low), float(max(high, low + 1e-12))


def marker_sizes(shown: pd.DataFrame, size_by: str,
                 log_range: tuple[float, float]) -> np.ndarray | None:
    """Marker sizes in [0.15, 1] from log runtime (fixed over all data), or None."""
    if size_by == "none":
        return None
    low, high = log_range
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log10(shown[schema.RUNTIME].to_numpy(dtype=float))
    scaled = 0.15 + 0.85 * np.clip((logs - low) / (high - low), 0.0, 1.0)
    return np.where(np.isfinite(scaled), scaled, 0.15)
