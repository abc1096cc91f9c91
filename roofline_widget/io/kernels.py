"""GPU kernel launches of any profiler to the canonical run: counts, display names, combined launches.

The profilers' readers (:mod:`roofline_widget.io.ncu` for Nsight Compute,
:mod:`roofline_widget.io.rocprof` for rocprof-compute) read their files into
one row per kernel launch and the launches' FLOPs, seconds and bytes
(:class:`LaunchCounts`); :func:`kernel_run` makes the run of them, the same
way for every vendor.  A profiler counts every precision it can, whether the
program used it or not (an SGEMM export has double-precision counters that
read 0): :meth:`LaunchCounts.used` keeps the precisions some launch used, or
every one, each zero, when no launch did floating-point work (copies).

The run's metrics are named like LIKWID's, so that units and levels parse:
``DP [MFLOP/s]`` (``SP``, ``HP``, ``Tensor``, ``MFMA F64``, ...) per precision,
``Memory bandwidth [MBytes/s]`` (``L2``, ``L1``, ``LDS``) and ``... data volume
[GBytes]`` per level.  A region is a kernel, a rank a process, a "thread" the
GPU the kernel ran on (``GPU <device>``, or ``GPU`` when the file does not
say), the group the profiler's (``"NCU"``, ``"ROCPROF"``).  Per (rank, kernel,
GPU) the launches are combined as ``launches=`` says:

* ``"sum"`` (default): the kernel's aggregate point, the sum of FLOPs and
  bytes over its launches divided by their summed time; ``runtime_s`` is
  that summed time;
* ``"mean"``: the mean over launches of each launch's rate (every launch
  weighs the same, however long); ``runtime_s`` the mean time;
* ``"each"``: one region per launch, ``<kernel>, launch <ID>``.

``call_count`` is the number of launches, ``cpu_name`` the GPU's name as the
reader found it.  A launch without a value (``n/a``) makes its kernel's rate
NaN, which the selection leaves out with the reason; the notes say which
kernels and metrics.  The events are the profiler's counters summed over the
launches (those the reader names as ``largest``, clocks and peaks, their
largest value).

Kernels are shown under the function's own name (:func:`short_name`):
demangled names of templated code run to many kilobytes (``void
gt::detail::kernel_assign_6<gt::gview<...>, ...>(...)`` is ``kernel_assign_6``):
the return type, the namespaces, the template arguments and the parameter
list are dropped, and so is the code-object suffix AMD's tools add
(``vecCopy(double*, int) [clone .kd]``, ``k.kd``).  Kernels whose short names
coincide (instances of one template) are numbered ``#1``, ``#2``, ... in order
of first appearance; the full name stays in :attr:`LikwidRun.full_names
<roofline_widget.model.LikwidRun.full_names>`.  Every scan is one pass over the name.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.io.parsed import check_unique_rows, key_table
from roofline_widget.model import GPU, LikwidRun

__all__ = ["LAUNCH_KEYS", "LAUNCH_MODES", "LEVEL_NAMES", "MAX_SHORT", "LaunchCounts",
           "bandwidth_metric", "check_launch_mode", "display_names", "flop_metric", "kernel_run",
           "short_name", "volume_metric"]

#: How a level is called in metric and roof names.
LEVEL_NAMES = {"MEM": "Memory", "L2": "L2", "L1": "L1", "LDS": "LDS"}


def flop_metric(precision: str) -> str:
    """The run's FLOP-rate metric of a precision (``"DP"`` -> ``"DP [MFLOP/s]"``, ``"Tensor"``)."""
    return f"{precision} [MFLOP/s]"


def bandwidth_metric(level: str) -> str:
    """The run's bandwidth metric of a level (``"MEM"`` -> ``"Memory bandwidth [MBytes/s]"``)."""
    return f"{LEVEL_NAMES[level]} bandwidth [MBytes/s]"


def volume_metric(level: str) -> str:
    """The run's data-volume metric of a level (``"L2"`` -> ``"L2 data volume [GBytes]"``)."""
    return f"{LEVEL_NAMES[level]} data volume [GBytes]"


@dataclass
class LaunchCounts:
    """FLOPs per precision, seconds and bytes per level, one value per launch row.

    Attributes
    ----------
    flops : dict of str to numpy.ndarray
        Precision (``"DP"``, ``"SP"``, ``"HP"``, ``"Tensor"``, ``"MFMA F64"``, ...; see
        :data:`~roofline_widget.metric_names.PRECISIONS`) -> FLOPs: only those the
        profiler counted.
    seconds : numpy.ndarray
        NaN where the launch has no time.
    bytes : dict of str to numpy.ndarray
        Level (``"MEM"``, ``"L2"``, ``"L1"``, ``"LDS"``) -> bytes: only those counted.
    notes : list of str
        Counters that could not be used, and why.
    """

    flops: dict[str, np.ndarray]
    seconds: np.ndarray
    bytes: dict[str, np.ndarray]
    notes: list[str] = field(default_factory=list)

    def used(self) -> LaunchCounts:
        """A copy without the precisions whose FLOPs are zero in every launch (see the module).

        Examples
        --------
        >>> counts = LaunchCounts({"DP": np.zeros(2), "SP": np.ones(2)}, np.ones(2), {})
        >>> list(counts.used().flops), counts.used().notes
        (['SP'], ['no launch did DP work (its counters read 0): no DP FLOP rate in the run'])
        """
        done = {p: v for p, v in self.flops.items() if np.nan_to_num(v).any()}
        unused = [p for p in self.flops if p not in done]
        if not done or not unused:
            return self
        note = (f"no launch did {', '.join(unused)} work (its counters read 0): no "
                f"{', '.join(unused)} FLOP rate in the run")
        return dataclasses.replace(self, flops=done, notes=[*self.notes, note])


#: The longest short name; longer ones (mangled names, say) are cut with "...".
MAX_SHORT = 60
# AMD's kernel descriptor suffixes: "[clone .kd]" after the parameters, ".kd" after the name.
_CODE_OBJECT = re.compile(r"(?:\s*\[clone [^\]]*\])+\s*$|\.kd$")


def _drop_parameters(name: str) -> str:
    """``name`` without the parenthesised group that ends it (the parameter list)."""
    if not name.endswith(")"):
        return name
    depth = 0
    for index in range(len(name) - 1, -1, -1):
        char = name[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                return name[:index] if index else name
    return name


def _drop_templates(name: str) -> str:
    """``name`` without what its angle brackets enclose (outside parentheses too)."""
    kept, depth = [], 0
    for char in name:
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif not depth:
            kept.append(char)
    return "".join(kept)


def _last_word(name: str) -> str:
    """The last space-separated word outside parentheses (drops the return type)."""
    depth, start = 0, 0
    for index, char in enumerate(name):
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == " " and not depth:
            start = index + 1
    return name[start:]


def short_name(full: str) -> str:
    """The function name of a demangled kernel name.

    Examples
    --------
    >>> short_name("void gt::detail::kernel_assign_6<gt::gview<double, 6>, int>(gt::gview<double, 6>, int)")
    'kernel_assign_6'
    >>> short_name("void (anonymous namespace)::scale(double*, int)")
    'scale'
    >>> short_name("saxpy")
    'saxpy'
    >>> short_name("vecCopy(double*, double*, double*, int, int) [clone .kd]")
    'vecCopy'
    """
    text = _CODE_OBJECT.sub("", full.strip()).strip() or full.strip()
    base = _last_word(_drop_templates(_drop_parameters(text)).strip())
    short = base.rsplit("::", 1)[-1].strip() or text
    return short if len(short) <= MAX_SHORT else short[:MAX_SHORT - 3] + "..."


def display_names(full_names: Iterable[str]) -> dict[str, str]:
    """Full kernel name -> unique display name, in order of first appearance.

    Examples
    --------
    >>> display_names(["void k<int>(int)", "void k<double>(double)", "void j()"])
    {'void k<int>(int)': 'k #1', 'void k<double>(double)': 'k #2', 'void j()': 'j'}
    """
    fulls = list(dict.fromkeys(full_names))
    shorts = {full: short_name(full) for full in fulls}
    variants: dict[str, list[str]] = {}
    for full in fulls:
        variants.setdefault(shorts[full], []).append(full)
    names = {}
    for short, group in variants.items():
        if len(group) == 1:
            names[group[0]] = short
        else:
            names.update((full, f"{short} #{number}") for number, full in enumerate(group, 1))
    taken = set()
    for full, name in names.items():  # a kernel literally named "k #1" beside k<int>, k<double>
        while name in taken:
            name += "'"
        names[full] = name
        taken.add(name)
    return {full: names[full] for full in fulls}


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
