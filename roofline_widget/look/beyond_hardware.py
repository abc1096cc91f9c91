"""Points beyond any hardware: named in one note, shared by the widget's status and the static plot.

A point whose rate no hardware reaches
(:func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`, a broken
counter) stays in the data and is drawn, but the empirical roofs
(:mod:`roofline_widget.roofs.plot_roofs`) and the axes
(:mod:`roofline_widget.look.axis_ranges`) follow the other points.
:func:`beyond_hardware_text` says so in one sentence, naming the worst point
(``sanity_check`` lists them all).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.look.point_names import point_names
from roofline_widget.roofs.hardware_bounds import (
    RATE_COLUMNS,
    THREAD_COLUMNS,
    beyond_hardware,
    hardware_bound,
    hardware_limits,
    thread_limits,
)
from roofline_widget.roofs.roofline import Roofline

__all__ = ["RATE_UNITS", "beyond_hardware_text", "point_flag_texts", "point_name", "rate_text",
           "run_text", "threads_text"]

#: The unit of each rate column.
RATE_UNITS = {schema.PERFORMANCE: "GFLOP/s", schema.BANDWIDTH: "GB/s"}


def rate_text(value: float, unit: str) -> str:
    """A rate as notes and findings print it: ``"19,514,360 GFLOP/s"``, ``"7.829 GFLOP/s"``."""
    return f"{value:,.0f} {unit}" if abs(value) >= 1000 else f"{value:.4g} {unit}"


def threads_text(count: int, unit: str = "thread") -> str:
    """``"1 thread"``, ``"48 hardware threads"``, ``"2 GPUs"``."""
    return f"{count:,} {unit}{'s' if count != 1 else ''}"


def point_name(row, points: pd.DataFrame) -> str:
    """A point's region, with its rank (or rank group) and run where ``points`` hold several.

    A host's or socket's point of a region measured on several is named by its
    place and ranks, ``"f0702 (ranks 0-71)"`` (:func:`~roofline_widget.look.point_names.point_names`).

    ``"CalcPressureForElems (run #1)"``: the run's number where the points
    have several, else its ``run_label`` (a baseline point's, e.g. ``"#1
    (size 30^3)"``), else its ``file`` (the run label).
    """
    details = []
    if "rank_group" in points.columns and points["rank_group"].nunique() > 1 \
            and isinstance(row.rank_group, str) and row.rank_group:
        details.append(row.rank_group)
    elif "rank" in points.columns and points["rank"].nunique() > 1 and int(row.rank) >= 0:
        details.append(f"rank {int(row.rank)}")
    run = run_text(row, points)
    if run:
        details.append(run)
    name = str(row.region)
    if details and details[0] == getattr(row, "rank_group", None):
        named = _named(row, points)
        if named != name:  # a host's point (look.point_names): "f0702 (ranks 0-71)"
            group = str(details.pop(0))
            name = f"{named}{group[group.rfind(' ('):]}"
    return name + (f" ({', '.join(details)})" if details else "")


def run_text(row, points: pd.DataFrame) -> str:
    """What names a point's run among ``points``: ``""`` where they are of one run.

    The run's number (``"run #1"``) where the points have several, else its
    ``run_label`` (a baseline point's, e.g. ``"#1 (size 30^3)"``), else its
    ``file`` (the run label, ``"gmgpolar_..._compact1t_1537x2048_give"``).
    """
    if "file" not in points.columns or points["file"].nunique() <= 1:
        return ""
    run, label = getattr(row, "run", None), getattr(row, "run_label", None)
    if "run" in points.columns and points["run"].nunique() > 1 and pd.notna(run):
        return f"run #{int(row.run)}"
    if isinstance(label, str) and label:
        return label
    return str(row.file)


def _named(row, points: pd.DataFrame) -> str:
    """``row``'s name among ``points`` (:func:`~roofline_widget.look.point_names.point_names`)."""
    same = (points["region"].astype(str) == str(row.region)).to_numpy() & (
        points["rank_group"].astype(str) == str(row.rank_group)).to_numpy()
    if "file" in points:
        same &= (points["file"].astype(str) == str(getattr(row, "file", ""))).to_numpy()
    found = np.flatnonzero(same)
    return str(point_names(points)[found[0]]) if len(found) else str(row.region)


def _ratios(points: pd.DataFrame, column: str, thread: bool) -> np.ndarray:
    """Per point how far its rate (a thread's, ``thread``) is beyond the limit (NaN: unknown)."""
    if thread:
        if THREAD_COLUMNS[column] not in points.columns:
            return np.full(len(points), np.nan)
        values = pd.to_numeric(points[THREAD_COLUMNS[column]], errors="coerce").to_numpy(float)
        return values / thread_limits(points, column)
    return pd.to_numeric(points[column], errors="coerce").to_numpy(float) / hardware_limits(
        points, column)


def _worst(points: pd.DataFrame, flagged: dict) -> tuple[int, str, bool]:
    """(row position, rate column, by a thread) of the rate furthest beyond its limit."""
    best, where = -np.inf, (0, schema.PERFORMANCE, False)
    for column, mask in flagged.items():
        if not mask.any():
            continue
        for thread in (False, True):
            ratios = np.where(mask, _ratios(points, column, thread), -np.inf)
            ratios = np.where(np.isnan(ratios), -np.inf, ratios)
            position = int(np.argmax(ratios))
            if ratios[position] > best:
                best, where = ratios[position], (position, column, thread)
    return where


def beyond_hardware_text(points: pd.DataFrame, roofline: Roofline | None) -> str:
    """The note on the points whose rates no hardware reaches ("" when there are none).

    Parameters
    ----------
    points : pandas.DataFrame
        The plotted points (``n_threads``, ``device``, the rates, ``region``).
    roofline : Roofline or None
        The plot's roofs: the note says which empirical roof the points did
        not supply.

    Returns
    -------
    str
        Plain text (not escaped), e.g. ``"CalcPressureForElems (run #1)
        reports 19,514,360 GFLOP/s on 1 hardware thread, beyond any CPU: not
        used for the empirical peak; the axes follow the other points (see
        sanity_check)"``.
    """
    flagged = {column: beyond_hardware(points, column) for column in RATE_COLUMNS}
    hit = flagged[schema.PERFORMANCE] | flagged[schema.BANDWIDTH]
    count = int(hit.sum())
    if not count:
        return ""
    position, column, thread = _worst(points, flagged)
    row = next(points.iloc[[position]].itertuples(index=False))
    bound = hardware_bound(row.device)
    rate = (f"{rate_text(getattr(row, column), RATE_UNITS[column])} on "
            f"{threads_text(int(row.n_threads), bound.unit)}")
    if thread and int(row.n_threads) > 1:  # one thread beyond its core, hidden in the sum
        limit = float(thread_limits(points.iloc[[position]], column)[0])
        rate += (f", one {bound.unit} of them "
                 f"{rate_text(getattr(row, THREAD_COLUMNS[column]), RATE_UNITS[column])} "
                 f"(at most {rate_text(limit, RATE_UNITS[column])} a {bound.unit})")
    devices = {hardware_bound(d).device for d in points[hit].get("device", ["cpu"])}
    beyond = f"beyond any {devices.pop() if len(devices) == 1 else 'hardware'}"
    if thread and int(row.n_threads) > 1:
        beyond = "beyond what one core can do" if count == 1 else f"{beyond} or core"
    name = point_name(row, points)
    head = (f"{name} reports {rate}, {beyond}" if count == 1 else
            f"{count:,} points report rates {beyond}, the largest {name}: {rate}")
    if hit.all():
        return (f"{head}: no other point to take the empirical ceilings and the axes from "
                "(see sanity_check)")
    unused = []  # a flagged point is left out as a whole (hardware_bounds.largest_plausible)
    if roofline is not None and roofline.empirical_flops:
        unused.append("the empirical peak")
    if roofline is not None and roofline.empirical_bandwidth:
        unused.append("the empirical bandwidth")
    used = f"not used for {' or '.join(unused)}; " if unused else ""
    return f"{head}: {used}the axes follow the other points (see sanity_check)"


def point_flag_texts(points: pd.DataFrame) -> list[str]:
    """Per point, why it is beyond the hardware ("" for a plausible point): a hover title's line.

    ``"beyond the hardware: one hardware thread reads 1,170 GFLOP/s (at most
    459.7 GFLOP/s a hardware thread); left out of the empirical roofs and the
    axes (see sanity_check)"``.
    """
    texts = [""] * len(points)
    for column in RATE_COLUMNS:
        flagged = beyond_hardware(points, column)
        if not flagged.any():
            continue
        thread = _ratios(points, column, True)
        limits = thread_limits(points, column)
        for position in np.flatnonzero(flagged):
            row = points.iloc[position]
            unit = hardware_bound(row.get("device")).unit
            if thread[position] > 1 and int(row["n_threads"]) > 1:
                what = (f"one {unit} reads "
                        f"{rate_text(row[THREAD_COLUMNS[column]], RATE_UNITS[column])} (at most "
                        f"{rate_text(limits[position], RATE_UNITS[column])} a {unit})")
            else:
                what = (f"{rate_text(row[column], RATE_UNITS[column])} on "
                        f"{threads_text(int(row['n_threads']), unit)}")
            texts[position] = (texts[position] + "; " if texts[position] else
                               "beyond the hardware: ") + what
    return [f"{text}; left out of the empirical roofs and the axes (see sanity_check)"
            if text else "" for text in texts]
