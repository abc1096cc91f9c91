"""A chain of runs drawn as a sweep: per region one path through its runs, the runs told apart by a shade.

A sweep (a scaling study appended to one log, the runs of
:func:`~roofline_widget.run_chain`) is drawn so that what it was run for
reads off the plot: each region keeps its colour and gets ONE path through
its runs in order; the runs on a path are told apart by a sequential shade
(light for the first step, dark for the last: ``look.colors.SWEEP_COLORS``)
of the key they differ in (threads, ranks, size, case:
:func:`~roofline_widget.analysis.study_keys.study_keys`), which a colour bar
explains (:class:`SweepKey`); never a marker shape or a legend entry per run.

Runs that differ in more than one way (threads x case) are grouped
(:class:`SweepRuns`, grouped as :func:`~roofline_widget.scaling_table`
groups them) so that each path varies in one key: one path per group and
region, the groups told apart by the line style (``PATH_STYLES``).  A ring
marks each path's point of one chosen step (the widget's run slider).

Points beyond what their hardware can do (a wrapped counter) or doing almost
no FLOPs are left out of the paths (``SweepPart.left_out``, said in the
notes): every point drawn lies inside the axes, which hold :func:`sweep_extent`.

The part is renderer-neutral: the widget (``widget.layers.sweep``) and a
static figure draw the same :class:`SweepPart`; :func:`runs_sweep` makes it
from the runs (:func:`sweep_rows` and :func:`sweep_part` in steps, for a
caller that keeps the rows while the chosen step changes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.analysis.study_keys import StudyKeys, study_keys, varying
from roofline_widget.io.key_codes import column_codes, first_appearance
from roofline_widget.look.colors import SWEEP_COLORS
from roofline_widget.look.markers import (
    CIRCLE,
    OUTLINE,
    PATH_STROKE,
    RING_STROKE,
    SWEEP_DOT,
    SWEEP_RING,
)
from roofline_widget.look.no_flop import below_flop_work
from roofline_widget.points import RegionSums, Selection
from roofline_widget.roofs.hardware_bounds import beyond_hardware, largest_plausible
from roofline_widget.scene.parts import Coloring, Dots, Polylines, Shade

__all__ = [
    "PATH_GID",
    "PATH_STYLES",
    "RING_GID",
    "RUNS_GID",
    "SweepKey",
    "SweepPart",
    "SweepRuns",
    "ring_dots",
    "runs_sweep",
    "shade_colors",
    "sweep_extent",
    "sweep_part",
    "sweep_rows",
    "with_step",
]

#: Names (matplotlib ``gid``) of the paths, of every run's dots, of the chosen step's rings.
PATH_GID = "roofline-sweep-path"
RUNS_GID = "roofline-sweep-runs"
RING_GID = "roofline-sweep-ring"
#: The line style of each group's paths, cycled.
PATH_STYLES = ("solid", "dashed", "dotted")
#: The columns :func:`sweep_rows` adds to the points.
SWEEP_COLUMNS = ("sweep_run", "sweep_group", "sweep_step", "sweep_value", "sweep_path")
_X, _Y = schema.INTENSITY, schema.PERFORMANCE
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def shade_colors(shade: Shade, values) -> list[str]:
    """The hex colour of each value on ``shade`` (linear in RGB between its colours, clipped)."""
    stops = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in shade.colors], float)
    span = shade.high - shade.low
    where = np.clip((np.asarray(values, float) - shade.low) / (span or 1.0), 0.0, 1.0)
    position = where * (len(stops) - 1)
    below = np.minimum(position.astype(int), len(stops) - 2)
    part = (position - below)[:, None]
    rgb = np.rint(stops[below] * (1 - part) + stops[below + 1] * part).astype(int)
    return ["#{:02x}{:02x}{:02x}".format(*color) for color in rgb]


@dataclass(frozen=True)
class SweepKey:
    """What the shade of a sweep's runs shows: the key its paths vary in, one step per value.

    Attributes
    ----------
    name : str
        ``"threads"``, ``"ranks"``, ``"size"``, ``"case"``, or ``"run"`` when
        the runs differ in nothing named (the runs in order).
    labels : tuple of str
        Each step's value as text, in order (``"1"``, ..., ``"18"``; ``"30^3"``).
    values : tuple of float
        Each step's place on the shade: the thread or rank count itself, else
        the step's number from 1.
    shade : Shade
        From the first step's value (lightest) to the last's (darkest).
    """

    name: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    shade: Shade

    def __len__(self) -> int:
        return len(self.labels)

    def text(self) -> str:
        """The key in words: ``"threads 1 → 18"`` (one step: ``"threads 4"``)."""
        if len(self.labels) < 2:
            return f"{self.name} {self.labels[0]}" if self.labels else self.name
        return f"{self.name} {self.labels[0]} → {self.labels[-1]}"

    def colors(self) -> list[str]:
        """Each step's colour on the shade (the colour bar's stops)."""
        return shade_colors(self.shade, self.values)


def _order(values: list) -> list:
    """The distinct values in the order a sweep steps through them: by number where each
    value holds numbers (``"90^3"``: 729000; ``"1537x2048"``: their product), else as they
    first appear."""
    distinct = list(dict.fromkeys(values))
    numbers = [[float(n) for n in _NUMBER.findall(str(v))] for v in distinct]
    if not all(numbers):
        return distinct
    sizes = [n[0] ** n[1] if "^" in str(v) and len(n) == 2 else float(np.prod(n))
             for v, n in zip(distinct, numbers)]
    return [v for _, v in sorted(zip(sizes, distinct), key=lambda pair: pair[0])]


@dataclass(frozen=True)
class SweepRuns:
    """The runs of a sweep, how they are grouped into paths and each one's step on its path.

    Attributes
    ----------
    labels : tuple of str
        The runs' labels in order (the points' ``file`` values).
    keys : tuple of StudyKeys
        What sets each run apart.
    group_by : tuple of str
        The keys the runs are grouped by (empty: one group).
    varies : str
        The key each group's runs differ in (``""``: none named; the runs step in order).
    """

    labels: tuple[str, ...]
    keys: tuple[StudyKeys, ...]
    group_by: tuple[str, ...]
    varies: str

    @classmethod
    def of(cls, runs: Sequence, labels: Sequence[str], group_by: str | None = None) -> SweepRuns:
        """The runs (``LikwidRun``, in order, labelled ``labels``) grouped by ``group_by``.

        ``group_by``: one key of :meth:`choices` (the runs are grouped by it and by
        every other key they differ in but one, so each path varies in one key);
        None: as :func:`~roofline_widget.scaling_table` groups them by default.

        Raises
        ------
        ValueError
            For a ``group_by`` the runs do not differ in.
        """
        keys = study_keys(list(runs), list(labels))
        differ = varying(keys)
        if group_by is None:
            # scaling_table's grouping, imported here: a plot of one run (the command line's
            # plot) imports no scaling code
            from roofline_widget.analysis.scaling import group_keys

            chosen, varies = group_keys(keys, None)
        elif group_by not in differ or len(differ) < 2:
            raise ValueError(f"group the runs by one of {differ if len(differ) > 1 else []} "
                             f"(what they differ in, when more than one), not {group_by!r}")
        else:
            varies = next(key for key in differ if key != group_by)
            chosen = [key for key in differ if key != varies]
        return cls(tuple(labels), tuple(keys), tuple(chosen), varies)

    @property
    def choices(self) -> tuple[str, ...]:
        """The keys the runs may be grouped by: what they differ in, when more than one thing."""
        differ = varying(self.keys)
        return tuple(differ) if len(differ) > 1 else ()

    def groups(self) -> list[str]:
        """Each run's group (``"case=sedov"``; ``""`` for one group)."""
        return [", ".join(f"{name}={key.value(name)}" for name in self.group_by)
                for key in self.keys]

    def key(self) -> SweepKey:
        """The shade's key: the steps of ``varies`` in order."""
        if not self.varies:
            labels = [str(n) for n in range(1, len(self.labels) + 1)]
            return _sweep_key("run", labels, list(range(1, len(labels) + 1)))
        order = _order([key.value(self.varies) for key in self.keys])
        numeric = self.varies in ("threads", "ranks")
        values = [float(v) for v in order] if numeric else list(range(1, len(order) + 1))
        return _sweep_key(self.varies, [str(v) for v in order], values)

    def steps(self) -> list[int]:
        """Each run's step (0-based) on its path."""
        if not self.varies:
            return list(range(len(self.labels)))
        order = {value: n for n, value in
                 enumerate(_order([key.value(self.varies) for key in self.keys]))}
        return [order[key.value(self.varies)] for key in self.keys]


def _sweep_key(name: str, labels: list[str], values: list) -> SweepKey:
    low, high = float(min(values)), float(max(values))
    return SweepKey(name, tuple(labels), tuple(float(v) for v in values),
                    Shade(SWEEP_COLORS, low, high if high > low else low + 1.0))


def sweep_rows(points: pd.DataFrame, runs: SweepRuns) -> pd.DataFrame:
    """The points of every run with their place in the sweep, in path order.

    Parameters
    ----------
    points : pandas.DataFrame
        The selected points of the runs (``file`` one of ``runs.labels``).
    runs : SweepRuns

    Returns
    -------
    pandas.DataFrame
        ``points`` with ``sweep_run`` (the run's position, 0-based),
        ``sweep_group``, ``sweep_step``, ``sweep_value`` (its place on the
        shade), ``sweep_path`` (one number per group, region, rank and
        device, in the order they first appear) and ``drawn`` (False: beyond
        the hardware, no positive rates, or almost no FLOPs), sorted by path then step.
    """
    position = {label: n for n, label in enumerate(runs.labels)}
    run = points["file"].astype(object).map(position)
    rows = points[run.notna().to_numpy()].copy()
    run = run[run.notna()].astype(int).to_numpy()
    steps, groups, values = np.asarray(runs.steps()), np.asarray(runs.groups(), object), \
        np.asarray(runs.key().values)
    rows["sweep_run"], rows["sweep_group"] = run, groups[run]
    rows["sweep_step"] = steps[run]
    rows["sweep_value"] = values[steps[run]]
    keys = ["sweep_group", "region", "rank", "device"]
    paths = first_appearance([column_codes(rows[key])[0] for key in keys])  # groupby's numbers
    rows["sweep_path"] = paths if (paths >= 0).all() else \
        rows.groupby(keys, sort=False, observed=True).ngroup().to_numpy()  # a key missing: NaN
    x, y = rows[_X].to_numpy(float), rows[_Y].to_numpy(float)
    drawn = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0) & ~beyond_hardware(rows)
    largest = largest_plausible(rows, _Y)
    if largest is not None:
        drawn &= ~below_flop_work(y, largest)
    rows["drawn"] = drawn
    return rows.sort_values(["sweep_path", "sweep_step", "sweep_run"],
                            kind="stable").reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class SweepPart:
    """A sweep: per group and region a path through its runs, every run's dot, the chosen step's rings.

    Attributes
    ----------
    paths : tuple of Polylines
        Per group (in order) one line per region (rank, device) through its
        drawn runs in step order, in the region's colour, the group's line style.
    runs : Dots
        Every drawn run's point, circles shaded by ``key`` (``values`` on ``key.shade``).
    ring : Dots
        A hollow ring in the region's colour over each path's point of step ``chosen``.
    key : SweepKey
        What the shade shows (the colour bar).
    groups : tuple of str
        The groups, in order (``("",)`` for one).
    group_by : tuple of str
        The keys the runs are grouped by.
    chosen : int
        The step ringed (0-based).
    frame : pandas.DataFrame
        :func:`sweep_rows` of the runs (``drawn`` says which are drawn).
    notes : tuple of str
        What was left out of the paths.
    """

    paths: tuple[Polylines, ...]
    runs: Dots
    ring: Dots
    key: SweepKey
    groups: tuple[str, ...]
    group_by: tuple[str, ...]
    chosen: int
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()

    def marks(self) -> Iterator[Dots | Polylines]:
        yield from self.paths
        yield self.runs
        yield self.ring

    @property
    def left_out(self) -> pd.DataFrame:
        """The runs' points not drawn (beyond the hardware, no positive rates, almost no FLOPs)."""
        return self.frame[~self.frame["drawn"]]

    @property
    def drawn(self) -> pd.DataFrame:
        """The runs' points drawn (in :attr:`runs`' order)."""
        return self.frame[self.frame["drawn"]].reset_index(drop=True)

    def path_count(self) -> int:
        """How many paths are drawn (regions x groups, each with a drawn point)."""
        return sum(len(lines) for lines in self.paths)


def _codes(rows: pd.DataFrame, coloring: Coloring) -> np.ndarray:
    values = rows[coloring.column]
    if coloring.column == "rank":
        return coloring.codes(values.to_numpy(dtype=np.int64))
    return coloring.codes(values.astype(object).to_numpy())


def _paths(drawn: pd.DataFrame, groups: list[str], coloring: Coloring) -> tuple[Polylines, ...]:
    """Per group, its paths as lines of equal length (a shorter one repeats its last vertex).

    With arrays: a group's rows ordered by path (stable: a path's vertices in row order), each
    line's vertices taken through one index matrix.
    """
    group_of = drawn["sweep_group"].to_numpy(dtype=object)
    path_of = drawn["sweep_path"].to_numpy()
    xs, ys = drawn[_X].to_numpy(float), drawn[_Y].to_numpy(float)
    lines = []
    for number, group in enumerate(groups):
        rows = np.flatnonzero(group_of == group)
        order = rows[np.argsort(path_of[rows], kind="stable")]
        ids = path_of[order]
        starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1]))) if len(ids) else \
            np.zeros(0, dtype=np.intp)
        counts = np.diff(np.append(starts, len(order)))
        length = int(counts.max()) if len(counts) else 0
        vertex = np.minimum(np.arange(length)[None, :], counts[:, None] - 1)
        index = order[starts[:, None] + vertex].reshape(len(starts), length)
        firsts = drawn.iloc[order[starts]]
        colors = tuple(coloring.colors(_codes(firsts, coloring))) if len(starts) else ()
        lines.append(Polylines(PATH_GID, xs[index], ys[index], colors,
                               style=PATH_STYLES[number % len(PATH_STYLES)],
                               stroke=PATH_STROKE, opacity=0.75, z=3))
    return tuple(lines)


def sweep_part(rows: pd.DataFrame, runs: SweepRuns, coloring: Coloring,
               chosen: int | None = None) -> SweepPart:
    """The sweep of :func:`sweep_rows` ``rows``, step ``chosen`` ringed (None or -1: the last).

    Raises
    ------
    ValueError
        For a ``chosen`` step outside the key's steps.
    """
    key = runs.key()
    chosen = _checked_step(key, chosen)
    drawn = rows[rows["drawn"]].reset_index(drop=True)
    groups = list(dict.fromkeys(runs.groups()))
    dots = Dots(RUNS_GID, drawn[_X].to_numpy(float), drawn[_Y].to_numpy(float), CIRCLE,
                SWEEP_DOT, values=drawn["sweep_value"].to_numpy(float), shade=key.shade,
                stroke=OUTLINE, z=4, rows=drawn)
    return SweepPart(_paths(drawn, groups, coloring), dots, ring_dots(drawn, chosen, coloring),
                     key, tuple(groups), runs.group_by, chosen, rows, _notes(rows))


def _checked_step(key: SweepKey, chosen: int | None) -> int:
    """``chosen`` (None or -1: the last step), checked against the key's steps."""
    step = len(key) - 1 if chosen is None or chosen == -1 else int(chosen)
    if not 0 <= step < len(key):
        raise ValueError(f"the sweep has steps 0 to {len(key) - 1} ({key.text()}); got {chosen}")
    return step


def with_step(part: SweepPart, chosen: int | None, coloring: Coloring) -> SweepPart:
    """``part`` with step ``chosen`` ringed (None or -1: the last); its paths and dots kept.

    Raises
    ------
    ValueError
        For a step outside the key's steps.
    """
    step = _checked_step(part.key, chosen)
    return replace(part, ring=ring_dots(part.drawn, step, coloring), chosen=step)


def ring_dots(drawn: pd.DataFrame, chosen: int, coloring: Coloring) -> Dots:
    """The rings over the points of step ``chosen`` (of the drawn rows), in their regions' colours."""
    at = drawn[drawn["sweep_step"] == chosen].reset_index(drop=True)
    return Dots(RING_GID, at[_X].to_numpy(float), at[_Y].to_numpy(float), CIRCLE, SWEEP_RING,
                colors=tuple(coloring.colors(_codes(at, coloring))) if len(at) else (),
                hollow=True, stroke=RING_STROKE, z=6, rows=at)


def _notes(rows: pd.DataFrame) -> tuple[str, ...]:
    left = rows[~rows["drawn"]]
    if left.empty:
        return ()
    beyond = int(beyond_hardware(left).sum())
    return (f"{len(left):,} of the runs' {len(rows):,} points not on the paths "
            f"({beyond:,} beyond the hardware, {len(left) - beyond:,} without FLOP work)",)


def sweep_extent(part: SweepPart | None) -> tuple[np.ndarray, np.ndarray]:
    """What the axes must hold of a sweep: every run's point drawn."""
    if part is None:
        return np.zeros(0), np.zeros(0)
    return part.runs.x, part.runs.y


def runs_sweep(runs: Sequence, selection: Selection, coloring: Coloring, *,
               group_by: str | None = None, chosen: int | None = None) -> SweepPart:
    """The sweep of ``runs`` (``LikwidRun``, in order; ``FileChain.runs``), in one call.

    Parameters
    ----------
    runs : sequence of LikwidRun
    selection : Selection
        The points' selection (metrics, ranks, patterns, rank grouping).
    coloring : Coloring
        The paths' and rings' colours (the points').
    group_by : str, optional
        As for :meth:`SweepRuns.of`.
    chosen : int, optional
        The step ringed (default: the last).

    Examples
    --------
    >>> from roofline_widget import read_likwid, sample_path
    >>> from roofline_widget.look.colors import PALETTE
    >>> runs = [read_likwid(sample_path(f"gmgpolar_skx4s_lw50_MEM_DP_compact{t}t_1537x2048_give.txt"))
    ...         for t in (1, 2, 8)]
    >>> part = runs_sweep(runs, Selection(), Coloring("region", (), PALETTE))
    >>> part.key.text(), part.path_count(), len(part.runs), len(part.ring)
    ('threads 1 → 8', 2, 6, 2)
    """
    sums = RegionSums.from_runs(list(runs))
    sweep = SweepRuns.of(sums.runs, sums.files, group_by)
    return sweep_part(sweep_rows(sums.select(selection).points, sweep), sweep, coloring, chosen)
