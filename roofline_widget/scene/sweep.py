"""A chain of runs as a sweep: one path per region through its runs, the runs told apart by a shade.

A file of several runs (a thread or problem-size sweep appended to one log)
is compared run by run (:func:`~roofline_widget.compare_points` of the
chain); :func:`sweep_points` stacks every run's points out of those rows (run
1's from the first step's earlier side, run ``k``'s from step ``k - 1``'s
later side). :func:`sweep_shade` says what sets the runs apart
(:func:`~roofline_widget.analysis.study_keys.study_keys`: threads, ranks,
problem size, else the run's position) and gives each run its place on a
sequential shade, one step per distinct value, with the colour bar's ticks.
Runs that differ in more than that (threads x case) are grouped by the other
keys, so that each path varies in one thing. :func:`sweep_part` makes the
marks: a path per region (and group) in the region's colour through its
plausible points, and every run's dots on the shade; a dot the axes leave out
(a rate no hardware reaches, almost no FLOPs) is pinned to the axis edge,
hollow, and said so in a note. No marker shape stands for a run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.study_keys import StudyKeys, varying
from roofline_widget.look.colors import SWEEP_COLORS
from roofline_widget.look.markers import CIRCLE, SWEEP_DOT, SWEEP_STROKE
from roofline_widget.roofs.hardware_bounds import beyond_hardware
from roofline_widget.scene.parts import Coloring, Dots, Polylines, Shade, SweepPart

__all__ = ["MAX_TICKS", "SWEEP_DOTS_GID", "SWEEP_PATH_GID", "SweepShade", "sweep_part",
           "sweep_points", "sweep_shade"]

#: Name (matplotlib ``gid``) of the paths and of the dots.
SWEEP_PATH_GID = "roofline-sweep-path"
SWEEP_DOTS_GID = "roofline-sweep-dots"
#: At most this many labelled ticks on the colour bar (every k-th value past it).
MAX_TICKS = 12
#: The keys a shade may show, in the order they are preferred.
_SHADE_KEYS = ("threads", "ranks", "size")
_SIDE_COLUMNS = (schema.PERFORMANCE, schema.BANDWIDTH, schema.INTENSITY, schema.RUNTIME,
                 "n_threads")
_NUMBER = re.compile(r"^([0-9]+(?:\.[0-9]*)?)(?:\^([0-9]+)|((?:x[0-9]+)*))$")


def _side(rows: pd.DataFrame, side: str, run: int) -> pd.DataFrame:
    """One side (``"before"``/``"after"``) of comparison rows as point rows of run ``run``."""
    out = {name: rows[f"{name}_{side}"].to_numpy(dtype=float) for name in _SIDE_COLUMNS}
    out.update({"key": rows["region"].astype(object).to_numpy(),
                "region": rows[f"region_{side}"].astype(object).to_numpy(),
                "file": rows[f"file_{side}"].astype(object).to_numpy(),
                "rank": rows["rank"].to_numpy(), "device": rows["device"].astype(object).to_numpy()})
    frame = pd.DataFrame(out)
    frame.insert(0, "run", run)
    return frame[np.isfinite(frame[schema.PERFORMANCE].to_numpy())]


def sweep_points(frame: pd.DataFrame, n_runs: int) -> pd.DataFrame:
    """Every run's points out of a chain's comparison rows, run by run.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`~roofline_widget.compare_points` of a chain (``step`` 1 to ``n_runs - 1``).
    n_runs : int

    Returns
    -------
    pandas.DataFrame
        ``run`` (position, from 0), ``key`` (the matched region), ``region``
        (the run's own name), ``file``, ``rank``, ``device`` and the point
        columns; a row per run and placed point, in run order.
    """
    if frame.empty or n_runs < 2:
        return _side(frame.iloc[:0], "before", 0) if len(frame.columns) else pd.DataFrame()
    steps = frame["step"].to_numpy()
    parts = [_side(frame[steps == 1], "before", 0)]
    parts += [_side(frame[steps == run], "after", run) for run in range(1, n_runs)]
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class SweepShade:
    """What the shade shows: per run its place, the colour bar's ticks, the groups.

    Attributes
    ----------
    key : str
        ``"threads"``, ``"ranks"``, ``"size"`` or ``"run"`` (nothing else differs).
    values : numpy.ndarray
        Per run its place on the shade: the position of its value among the
        distinct values, in increasing order (0, 1, ...).
    ticks : tuple of (float, str)
    groups : tuple of str
        Per run its group (the other keys that differ, as text; "" for none).
    grouped_by : tuple of str
        Those other keys (``("case",)``; empty for none).
    """

    key: str
    values: np.ndarray
    ticks: tuple[tuple[float, str], ...]
    groups: tuple[str, ...]
    grouped_by: tuple[str, ...] = ()

    @property
    def shade(self) -> Shade:
        """The sequential scale from the first value's place to the last's."""
        return Shade(SWEEP_COLORS, 0.0, max(float(self.values.max(initial=0.0)), 1.0))


def _number(text: object) -> float:
    """The value a size or count stands for (``"30^3"``: 27,000; ``"1537x2048"``: 3,147,776)."""
    match = _NUMBER.match(str(text))
    if match is None:
        return np.nan
    base, power, factors = match.groups()
    value = float(base) ** (int(power) if power else 1)
    for factor in (factors or "").split("x")[1:]:
        value *= float(factor)
    return value


def _ticks(texts: list[str]) -> tuple[tuple[float, str], ...]:
    step = -(-len(texts) // MAX_TICKS)
    shown = list(range(0, len(texts), step))
    if shown[-1] != len(texts) - 1:
        shown[-1] = len(texts) - 1  # the last value is always named
    return tuple((float(i), texts[i]) for i in shown)


def sweep_shade(keys: Sequence[StudyKeys]) -> SweepShade:
    """What the shade of a sweep shows (see the module docstring).

    Parameters
    ----------
    keys : sequence of StudyKeys
        Per run what sets it apart (:func:`~roofline_widget.analysis.study_keys.study_keys`).

    Examples
    --------
    >>> keys = [StudyKeys(f"#{t}", t, 1, None, case) for case in ("a", "b") for t in (1, 2, 4)]
    >>> shade = sweep_shade(keys)
    >>> shade.key, shade.values.tolist(), shade.ticks, shade.grouped_by
    ('threads', [0.0, 1.0, 2.0, 0.0, 1.0, 2.0], ((0.0, '1'), (1.0, '2'), (2.0, '4')), ('case',))
    """
    differ = varying(keys)
    key = next((k for k in _SHADE_KEYS if k in differ), "run")
    if key == "run":
        texts = [str(number) for number in range(1, len(keys) + 1)]
        order = np.arange(len(keys), dtype=float)
    else:
        texts = [str(k.value(key)) for k in keys]
        numbers = np.array([_number(text) for text in texts])
        order = numbers if np.isfinite(numbers).all() else np.arange(len(keys), dtype=float)
    distinct, places = np.unique(order, return_inverse=True)
    names = [texts[int(np.argmax(places == i))] for i in range(len(distinct))]
    others = [k for k in differ if k != key]
    groups = tuple(" ".join(str(k.value(o)) for o in others) for k in keys)
    return SweepShade(key, places.astype(float), _ticks(names), groups, tuple(others))


def _paths(points: pd.DataFrame, colors: list[str], groups: Sequence[str]
           ) -> tuple[Polylines, tuple[str, ...], tuple[str, ...]]:
    """A polyline per (key, rank, device, group) through its points in run order."""
    group = np.asarray(groups, dtype=object)[points["run"].to_numpy()] if len(points) else []
    ids = pd.MultiIndex.from_arrays([points["key"], points["rank"], points["device"], group])
    codes, uniques = pd.factorize(ids)
    lengths = np.bincount(codes, minlength=len(uniques)) if len(codes) else np.zeros(0, int)
    width = max(int(lengths.max(initial=1)), 1)
    order = np.argsort(codes, kind="stable")  # runs in order within each path
    start = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(lengths) else np.zeros(0, int)
    column = np.arange(len(codes)) - np.repeat(start, lengths)
    column_full = np.minimum(np.arange(width)[None, :], np.maximum(lengths - 1, 0)[:, None])
    x = np.full((len(uniques), width), np.nan)
    y = np.full((len(uniques), width), np.nan)
    xs, ys = (points[c].to_numpy(dtype=float)[order] for c in (schema.INTENSITY, schema.PERFORMANCE))
    x[codes[order], column], y[codes[order], column] = xs, ys
    rows = np.arange(len(uniques))[:, None]
    x, y = x[rows, column_full], y[rows, column_full]  # a shorter path repeats its last vertex
    first = np.zeros(len(uniques), dtype=int)
    first[codes[order][::-1]] = order[::-1]
    path_colors = tuple(colors[i] for i in first)
    names = points["region"].astype(object).to_numpy()
    return (Polylines(SWEEP_PATH_GID, x, y, path_colors, stroke=SWEEP_STROKE, opacity=0.9, z=3),
            tuple(str(names[i]) for i in first), tuple(str(u[3]) for u in uniques))


def sweep_part(points: pd.DataFrame, frame: pd.DataFrame, labels: Sequence[str],
               shade: SweepShade, coloring: Coloring, ranges: tuple) -> SweepPart:
    """The sweep's marks (see the module docstring).

    Parameters
    ----------
    points : pandas.DataFrame
        :func:`sweep_points` of the chain.
    frame : pandas.DataFrame
        The chain's comparison rows (kept in the part).
    labels : sequence of str
        The runs' labels, in order.
    shade : SweepShade
    coloring : Coloring
        The regions' colours (the paths' colours).
    ranges : ((float, float), (float, float))
        The axis limits: dots outside are pinned to them.
    """
    (x_low, x_high), (y_low, y_high) = ranges
    x = points[schema.INTENSITY].to_numpy(dtype=float)
    y = points[schema.PERFORMANCE].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        outside = ~((x >= x_low) & (x <= x_high) & (y >= y_low) & (y <= y_high))
    broken = beyond_hardware(points) if len(points) else np.zeros(0, dtype=bool)
    off = outside | broken
    column = coloring.column if coloring.column in points else "region"
    codes = coloring.codes(points[column].astype(object).to_numpy() if coloring.column != "rank"
                           else points["rank"].to_numpy(dtype=np.int64))
    colors = coloring.colors(codes)
    paths, path_labels, path_groups = _paths(points[~off], [c for c, o in zip(colors, off) if not o],
                                shade.groups)
    run = points["run"].to_numpy(dtype=int)
    dots = Dots(SWEEP_DOTS_GID, np.clip(x, x_low, x_high), np.clip(y, y_low, y_high), CIRCLE,
                SWEEP_DOT, colors=tuple(colors), values=shade.values[run], shade=shade.shade,
                flagged=off if off.any() else None, stroke=SWEEP_STROKE, z=5,
                rows=points.assign(run_label=np.asarray(labels, dtype=object)[run]))
    notes = []
    if off.any():
        notes.append(f"{int(off.sum()):,} of the sweep's {len(points):,} points lie outside the "
                     "axes (a rate beyond any hardware, almost no FLOPs): drawn hollow at the "
                     "axis edge, their paths through the other points")
    if shade.grouped_by:
        values = ", ".join(dict.fromkeys(shade.groups))
        notes.append(f"runs grouped by {' and '.join(shade.grouped_by)} ({values}): a path per "
                     f"region and group, the shade showing {shade.key}")
    return SweepPart(paths, path_labels, path_groups, dots, tuple(labels), shade.key,
                     shade.ticks, frame, shade.grouped_by, tuple(notes))
