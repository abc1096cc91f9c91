"""A sweep's scaling as lines: speed-up (or GFLOP/s) against threads, per region, with the ideal line.

:func:`scaling_lines` turns the rows of :func:`~roofline_widget.scaling_table`
into what the widget's scaling panel draws (``widget.scaling_panel``), one
:class:`ScalingLine` per group of runs and region, in the colour and line
style of that region's path in the sweep (:class:`~roofline_widget.scene.sweep.SweepPart`):

- runs that vary in threads or ranks: x is the thread (rank) count, y the
  ``speedup`` column (the group's first run's runtime / the run's), the ideal
  line y = ``threads_ratio`` (dashed in the panel);
- runs that vary in problem size (or whose FLOPs differ from the baseline's
  beyond :data:`~roofline_widget.analysis.scaling.WORK_TOLERANCE`, said in the
  table's ``note``): the speed-up compares different work, so y is the
  ``performance_gflops`` column, no ideal line, and the title says why;
- runs that vary in anything else (case): x is the run's step (1, 2, ...).

Rows beyond what their hardware can do (a wrapped counter, ``beyond_hardware``)
are left out, as the sweep leaves them off its paths (``left_out`` counts them);
so are rows without a value (no FLOP metric) and, on logarithmic axes, rows of 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.scene.sweep import SweepPart

__all__ = ["GFLOPS", "SPEEDUP", "ScalingLine", "ScalingLines", "path_regions", "scaling_lines", "size_value"]

#: What the panel's y axis shows.
SPEEDUP, GFLOPS = "speedup", "gflops"
#: A span of x values above which the axes are logarithmic (1 ... 18 threads: linear).
_LOG_SPAN = 64.0
_POWER = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*\^\s*([0-9]+)\s*$")
_PRODUCT = re.compile(r"^\s*[0-9]+(?:\.[0-9]+)?(?:\s*[x*]\s*[0-9]+(?:\.[0-9]+)?)*\s*$")


def size_value(label: object) -> float:
    """A problem size's label as a number: ``"30^3"`` 27000, ``"1537x2048"`` 3147776; NaN otherwise."""
    text = str(label)
    power = _POWER.match(text)
    if power:
        return float(power.group(1)) ** int(power.group(2))
    if _PRODUCT.match(text):
        return float(np.prod([float(part) for part in re.split(r"[x*]", text)]))
    return float("nan")


@dataclass(frozen=True)
class ScalingLine:
    """One region's runs of one group, as the panel draws them.

    Attributes
    ----------
    group, region : str
        The group of runs (``"case=sedov"``; ``""`` for one group) and the region.
    color, style : str
        The region's path colour and the group's line style in the sweep.
    x, y : numpy.ndarray
        Threads (ranks, size, step) and speed-up (or GFLOP/s), runs in order.
    files : tuple of str
        The run label of each point (``scaling_table``'s ``file``).
    """

    group: str
    region: str
    color: str
    style: str
    x: np.ndarray
    y: np.ndarray
    files: tuple[str, ...]


@dataclass(frozen=True)
class ScalingLines:
    """The scaling panel's content: the lines, the ideal line, the axes' labels and the title.

    Attributes
    ----------
    lines : tuple of ScalingLine
    measure : {"speedup", "gflops"}
        What y is.
    ideal_x, ideal_y : numpy.ndarray
        The ideal speed-up (the threads ratio) at each x (empty for GFLOP/s).
    x_label, y_label, title : str
        Plain text (the panel escapes what goes into HTML).
    log : bool
        Logarithmic axes (x spans more than 64x).
    chosen : tuple of str
        The run labels of the sweep's chosen step (``sweep_step``), marked.
    left_out : int
        Rows beyond the hardware left out.
    """

    lines: tuple[ScalingLine, ...]
    measure: str
    ideal_x: np.ndarray
    ideal_y: np.ndarray
    x_label: str
    y_label: str
    title: str
    log: bool
    chosen: tuple[str, ...]
    left_out: int = 0

    @property
    def regions(self) -> list[str]:
        """The regions drawn, once each, in order."""
        return list(dict.fromkeys(line.region for line in self.lines))


def path_regions(part: SweepPart) -> list[list[str]]:
    """Per group of ``part``, the region of each of its path lines, in the lines' order."""
    drawn = part.drawn
    regions = []
    for group in part.groups:
        rows = drawn[drawn["sweep_group"] == group].sort_values("sweep_path", kind="stable")
        regions.append(list(rows.drop_duplicates("sweep_path")["region"].astype(str)))
    return regions


def _path_looks(part: SweepPart) -> dict[tuple[str, str], tuple[str, str]]:
    """(group, region) -> (colour, line style) of the region's path in ``part``."""
    looks = {}
    for group, lines, regions in zip(part.groups, part.paths, path_regions(part)):
        for region, color in zip(regions, lines.colors):
            looks[(group, region)] = (color, lines.style)
    return looks


def _x_values(table: pd.DataFrame, varies: str) -> tuple[np.ndarray, str]:
    """Each row's x and the axis label: the thread (rank) count, the size, else the step."""
    if varies in ("threads", "ranks"):
        label = "threads per rank" if varies == "threads" else "ranks"
        return table[varies].to_numpy(dtype=float), label
    if varies == "size":
        sizes = table["size"].map(size_value).to_numpy(dtype=float)
        if np.isfinite(sizes).all():
            return sizes, "problem size (elements)"
    column = varies or "file"
    labels = list(dict.fromkeys(str(value) for value in table[column]))
    steps = {label: n for n, label in enumerate(labels, 1)}
    named = ", ".join(f"{n} = {label}" for label, n in steps.items()) if varies else "in order"
    return table[column].astype(str).map(steps).to_numpy(dtype=float), f"{varies or 'run'} ({named})"


def _measure(table: pd.DataFrame, varies: str) -> tuple[str, str]:
    """(the measure, the title) the table's notes call for."""
    if varies in ("threads", "ranks"):
        different = table["note"].str.contains("different work", regex=False)
        if not different.any():
            return SPEEDUP, f"Speed-up against {varies} (first run's runtime / run's)"
        return GFLOPS, (f"GFLOP/s, not speed-up: {int(different.sum())} runs do other FLOPs "
                        "(different work)")
    if varies == "size":
        return GFLOPS, "GFLOP/s, not speed-up: the runs differ in size (different work)"
    return SPEEDUP, f"Speed-up against {varies or 'run'} (first run's runtime / run's)"


def scaling_lines(table: pd.DataFrame, part: SweepPart) -> ScalingLines:
    """The scaling panel's lines of ``table`` (:func:`~roofline_widget.scaling_table`'s rows).

    Parameters
    ----------
    table : pandas.DataFrame
        The rows of the sweep's runs, grouped as ``part`` groups them.
    part : SweepPart
        The sweep drawn: its regions (drawn ones only), their colours and line
        styles, its chosen step.
    """
    looks = _path_looks(part)
    beyond = table["beyond_hardware"].astype(bool)
    known = np.array([(str(g), str(r)) in looks for g, r in zip(table["group"], table["region"])],
                     dtype=bool)
    keep = ~beyond.to_numpy() & known
    rows = table[keep].reset_index(drop=True)
    varies = str(table["varies"].iloc[0]) if len(table) else ""
    measure, title = _measure(rows, varies)
    x, x_label = _x_values(rows, varies)
    column = "speedup" if measure == SPEEDUP else schema.PERFORMANCE
    span = np.nanmax(x) / np.nanmin(x) if len(x) and np.nanmin(x) > 0 else 1.0
    log = bool(span > _LOG_SPAN)
    y = rows[column].to_numpy(dtype=float)
    plotted = np.isfinite(x) & np.isfinite(y) & ((y > 0) | (not log))  # a log axis has no 0
    rows = rows.assign(_x=x, _y=y)[plotted]
    lines = []
    for (group, region), line in rows.groupby(["group", "region"], sort=False):
        color, style = looks[(str(group), str(region))]
        lines.append(ScalingLine(str(group), str(region), color, style, line["_x"].to_numpy(),
                                 line["_y"].to_numpy(), tuple(line["file"].astype(str))))
    ideal = rows.drop_duplicates("_x").sort_values("_x")
    ideal_x = ideal["_x"].to_numpy() if measure == SPEEDUP and varies in ("threads", "ranks") \
        else np.zeros(0)
    ideal_y = ideal["threads_ratio"].to_numpy(dtype=float) if len(ideal_x) else np.zeros(0)
    drawn = part.drawn
    chosen = tuple(drawn.loc[drawn["sweep_step"] == part.chosen, "file"].astype(str).unique())
    return ScalingLines(tuple(lines), measure, ideal_x, ideal_y, x_label,
                        "speed-up" if measure == SPEEDUP else "GFLOP/s", title,
                        log, chosen, int(beyond.sum()))
