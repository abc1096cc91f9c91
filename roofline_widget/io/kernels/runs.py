"""Kernel launches to the canonical :class:`~roofline_widget.model.LikwidRun` (:func:`kernel_run`).

A region is a kernel, a rank a process, a "thread" the GPU the kernel ran
on (``GPU <device>``, or ``GPU`` when the file does not say), the group the
profiler's (``"NCU"``, ``"ROCPROF"``).  Per (rank, kernel, GPU) the launches
are combined as ``launches=`` says:

* ``"sum"`` (default): the kernel's aggregate point, the sum of FLOPs and
  bytes over its launches divided by their summed time; ``runtime_s`` is
  that summed time;
* ``"mean"``: the mean over launches of each launch's rate (every launch
  weighs the same, however long); ``runtime_s`` the mean time;
* ``"each"``: one region per launch, ``<kernel>, launch <ID>``.

``call_count`` is the number of launches, ``cpu_name`` the GPU's name as the
reader found it.  A launch without a value (``n/a``) makes its kernel's rate
NaN, which the selection leaves out with the reason; the notes say which
kernels and metrics.  The metrics are named as LIKWID's (:mod:`.metrics`),
the events are the profiler's counters summed over the launches (those the
reader names as ``largest``, clocks and peaks, their largest value).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.io.kernels.counts import LaunchCounts
from roofline_widget.io.kernels.metrics import bandwidth_metric, flop_metric, volume_metric
from roofline_widget.io.kernels.names import display_names
from roofline_widget.io.parsed import check_unique_rows, key_table
from roofline_widget.model import GPU, LikwidRun

__all__ = ["LAUNCH_KEYS", "LAUNCH_MODES", "check_launch_mode", "kernel_run"]

#: The ways launches of one kernel are combined (``launches=``).
LAUNCH_MODES = ("sum", "mean", "each")
#: The columns :func:`kernel_run` reads of each launch: the file and line it was read from, the
#: MPI rank (a process), the launch's number, the kernel's full name, the host, the GPU (-1: unknown).
LAUNCH_KEYS = ("source", "line", "rank", "launch", "kernel", "host", "device")
_LISTED = 5


def check_launch_mode(launches: str) -> str:
    """``launches`` if it is one of :data:`LAUNCH_MODES`, else ValueError naming them."""
    if launches not in LAUNCH_MODES:
        raise ValueError(f"launches must be one of {', '.join(map(repr, LAUNCH_MODES))}, "
                         f"got {launches!r}")
    return launches


def _quantities(counts: LaunchCounts) -> dict[str, tuple[np.ndarray, float, bool]]:
    """Metric name -> (per-launch amount, factor to the metric's unit, is a rate)."""
    out = {flop_metric(p): (flops, 1e-6, True) for p, flops in counts.flops.items()}
    for level, data in counts.bytes.items():
        out[bandwidth_metric(level)] = (data, 1e-6, True)
    for level, data in counts.bytes.items():
        out[volume_metric(level)] = (data, 1e-9, False)
    return out


def _group_ids(launches: pd.DataFrame, regions: np.ndarray) -> tuple[np.ndarray, int]:
    keys = pd.DataFrame({"rank": launches["rank"].to_numpy(), "region": regions,
                         "device": launches["device"].to_numpy()})
    ids = keys.groupby(["rank", "region", "device"], sort=False).ngroup().to_numpy()
    return ids, int(ids.max()) + 1 if len(ids) else 0


def _sum_by(ids: np.ndarray, n: int, values: np.ndarray) -> np.ndarray:
    """Per group the sum of ``values``; NaN if any value of the group is NaN."""
    total = np.bincount(ids, weights=np.nan_to_num(values, nan=0.0), minlength=n)
    missing = np.bincount(ids, weights=np.isnan(values).astype(float), minlength=n) > 0
    total[missing] = np.nan
    return total


def _max_by(ids: np.ndarray, n: int, values: np.ndarray) -> np.ndarray:
    out = np.full(n, -np.inf)
    np.fmax.at(out, ids, values)
    out[~np.isfinite(out)] = np.nan
    return out


def _missing_notes(launches, regions, counts: LaunchCounts, quantities) -> list[str]:
    """Which kernels lack a value (n/a) of which metric, in how many launches."""
    notes = []
    for name, (amount, _, rate) in quantities.items():
        if not rate:
            continue
        bad = np.isnan(amount) | np.isnan(counts.seconds)
        if not bad.any() or (bad.all() and np.isnan(counts.seconds).all()):
            continue
        frame = pd.DataFrame({"rank": launches["rank"].to_numpy()[bad], "region": regions[bad]})
        for (rank, region), size in frame.value_counts(sort=False).items():
            notes.append(f"kernel {region!r} (rank {rank}): {size} launch(es) without a value "
                         f"for {name} (n/a, or a pass without that launch); its {name} is NaN")
    if len(notes) > _LISTED:
        notes = [*notes[:_LISTED], f"and {len(notes) - _LISTED} more kernel(s) with launches "
                 "without values"]
    return notes


def _events(events: pd.DataFrame, largest: frozenset[str], ids: np.ndarray,
            n: int) -> pd.DataFrame:
    columns = {}
    for metric in events.columns:
        values = events[metric].to_numpy(dtype=float)
        columns[metric] = _max_by(ids, n, values) if metric in largest else _sum_by(ids, n, values)
    return pd.DataFrame(columns, index=range(n))


def kernel_run(launches: pd.DataFrame, counts: LaunchCounts, *, group: str,
               sources: tuple[str, ...], label: str | None, layout: str,
               events: pd.DataFrame | None = None, largest: frozenset[str] = frozenset(),
               device_name: str | None = None, launch_mode: str = "sum",
               notes: list[str] | None = None) -> LikwidRun:
    """The run of kernel launches and their counts.

    Parameters
    ----------
    launches : pandas.DataFrame
        One row per launch (per process), at least the :data:`LAUNCH_KEYS` columns.
    counts : LaunchCounts
        Their FLOPs, seconds and bytes (the precisions no launch used are left
        out, :meth:`LaunchCounts.used`).
    group : str
        The group name of every row (``"NCU"``, ``"ROCPROF"``).
    sources : tuple of str
        The files read.
    label : str or None
        The run's name (default: the first file's stem).
    layout : str
        The :class:`~roofline_widget.model.Layout` (or ``"a / b"``).
    events : pandas.DataFrame, optional
        The profiler's counters of each launch (same rows), for :attr:`LikwidRun.events`.
    largest : frozenset of str
        Columns of ``events`` combined by their largest value (clocks, peaks), not summed.
    device_name : str, optional
        The GPU's name (``cpu_name`` of the run).
    launch_mode : {"sum", "mean", "each"}
        How launches of one kernel are combined (see the module docstring).
    notes : list of str, optional
        Earlier notes, kept first in :attr:`LikwidRun.warnings`.
    """
    check_launch_mode(launch_mode)
    counts = counts.used()
    names = display_names(launches["kernel"])
    regions = launches["kernel"].map(names).to_numpy(dtype=object)
    if launch_mode == "each":
        regions = np.array([f"{r}, launch {i}" for r, i in zip(regions, launches["launch"])],
                           dtype=object)
    quantities = _quantities(counts)
    ids, n = _group_ids(launches, regions)
    first = np.unique(ids, return_index=True)[1]
    seconds = counts.seconds
    launches_per = np.bincount(ids, minlength=n).astype(float)
    metrics = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        if launch_mode == "mean":
            runtime = _sum_by(ids, n, seconds) / launches_per
            for name, (amount, factor, rate) in quantities.items():
                per_launch = amount / seconds if rate else amount
                metrics[name] = _sum_by(ids, n, per_launch * factor) / launches_per
        else:
            runtime = _sum_by(ids, n, seconds)
            for name, (amount, factor, rate) in quantities.items():
                total = _sum_by(ids, n, amount) * factor
                metrics[name] = total / runtime if rate else total
    device = launches["device"].to_numpy()[first]
    keys = key_table(
        source=str(sources[0]), total=n, line=launches["line"].to_numpy()[first],
        rank=launches["rank"].to_numpy()[first], region=regions[first],
        group_index=np.ones(n, dtype=np.int64), group=np.full(n, group, dtype=object),
        thread=[f"GPU {d}" if d >= 0 else "GPU" for d in device],
        host=launches["host"].to_numpy(dtype=object)[first], cpu=device,
        device=np.full(n, str(GPU), dtype=object), call_count=launches_per, runtime_s=runtime)
    keys["source"] = pd.Categorical(launches["source"].to_numpy(dtype=object)[first],
                                    categories=list(dict.fromkeys(sources)))
    table = pd.concat([keys, pd.DataFrame(metrics, index=range(n))], axis=1)
    check_unique_rows(table, ["rank", "region", "group", "thread"],
                      "each (rank, kernel, GPU) once", str(sources[0]))
    full_names = {region: full for full, region in names.items() if region != full}
    if launch_mode == "each":
        full_names = {region: launches["kernel"].iloc[i] for i, region in enumerate(regions)
                      if region.rsplit(", launch ", 1)[0] != launches["kernel"].iloc[i]}
    return LikwidRun(
        label=label or Path(str(sources[0])).stem, sources=tuple(str(s) for s in sources),
        table=table, events=_events(events if events is not None else pd.DataFrame(
            index=launches.index), largest, ids, n), cpu_name=device_name, layout=layout,
        warnings=[*(notes or []), *counts.notes,
                  *_missing_notes(launches, regions, counts, quantities)],
        full_names=full_names)
