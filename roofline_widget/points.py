"""Roofline points: per-region sums over threads, metric detection, selection.

LIKWID prints derived metrics per hardware thread.  A region's roofline point
is the **sum** of the per-thread rates of one FLOP metric and one bandwidth
metric, converted to GFLOP/s and GB/s from the unit in the metric's name.

:class:`RegionSums` does the expensive part once, vectorised: per (run, rank,
region, device, group) the sum over threads of every metric, then per (run,
rank, region, device) the first group that has a value for each metric.  That
joins a FLOPS_DP run and a MEM_DP run of the same regions into one row and
never counts a metric twice when both groups print it (``DP [MFLOP/s]``).
:meth:`RegionSums.select` then picks metrics, ranks and regions with column
look-ups and boolean masks, cheap enough to run on every widget change.
With ``combine_ranks=True`` it also sums the selected ranks' rows per (run,
region, device): one point per region for the whole job, rank ``-1``.

Regions that cannot be placed (metric missing, zero, NaN or infinite sums, a
unit that is no rate, a GPU region under CPU metrics) are never dropped
silently: :attr:`PointSelection.left_out` lists them with the reason, and
:func:`collect_roofline_points` warns with :class:`RegionsLeftOutWarning`.
"""

from __future__ import annotations

import os
import re
import warnings
import weakref
from collections.abc import Iterable

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from .model import GPU, LikwidRun
from .units import BYTE_RATE, FLOP_RATE, UOP_RATE, parse_unit, split_metric_name

__all__ = [
    "RegionsLeftOutWarning",
    "MetricChoiceWarning",
    "RegionSums",
    "PointSelection",
    "collect_roofline_points",
    "points_dataframe",
    "left_out_regions",
    "detect_flops_metric",
    "detect_bandwidth_metric",
    "channel_totals",
    "normalize_ranks",
    "compile_patterns",
    "POINT_KEYS",
    "ALL_RANKS",
]

#: Keys of one point dict, exactly as scope-profiler 0.7.5 returns them.
POINT_KEYS = (
    "file", "region", "rank", "performance_gflops", "bandwidth_gbs",
    "arithmetic_intensity_flops_per_byte", "runtime_seconds", "flops_metric",
    "bandwidth_metric",
)
_POINT_EXTRA = ("device", "n_threads", "call_count", "groups")
_LEFT_OUT_COLUMNS = ("file", "region", "rank", "reason", "device", "groups")
_KEYS = ("file", "rank", "region", "device", "n_threads", "runtime_s", "call_count", "groups")
#: The ``rank`` of a point whose ranks were summed (``combine_ranks=True``): "all ranks combined".
ALL_RANKS = -1


class RegionsLeftOutWarning(UserWarning):
    """Some selected regions could not be placed on the roofline."""


class MetricChoiceWarning(UserWarning):
    """An automatically detected metric may not be the one meant."""


# --------------------------------------------------------------------------
# metric detection
# --------------------------------------------------------------------------
_SUB_RATE = re.compile(
    r"avx|sse|packed|scalar|neon|sve|fma|vector|\b(?:128|256|512)b?\b|\(fp\)", re.IGNORECASE)
_DIRECTIONAL = re.compile(
    r"\b(?:read|write|load|store|evict|victim|dropped|prefetch|fill|writeback)\b"
    r"|(?<!<)->|<-(?!>)|\bto\b(?!/)", re.IGNORECASE)
_OUTGOING = re.compile(r"\b(?:write|store|evict|victim|writeback)\b", re.IGNORECASE)
_MEMORY = re.compile(r"\b(?:memory|mem|dram|hbm|mcdram|nvm|pmm)\b", re.IGNORECASE)
_CACHE_LEVEL = re.compile(r"\bl([123])", re.IGNORECASE)
_BARE_BYTE_UNIT = re.compile(r"\s*\[?\s*[kKMGTPE]?i?bytes?/s\s*\]?\s*$", re.IGNORECASE)


def _precision(name: str) -> str:
    upper = name.upper()
    found = {p for p in ("DP", "SP", "HP") if re.search(rf"(?<![A-Z]){p}(?![A-Z])", upper)}
    return found.pop() if len(found) == 1 else "generic"


def _flops_tier(name: str) -> int:
    """Rank a FLOP-rate metric name: DP total first, sub-rates after totals."""
    kind = parse_unit(name).kind
    if kind == UOP_RATE:
        return 100
    precision = {"DP": 0, "SP": 1, "generic": 2, "HP": 3}[_precision(name)]
    return 2 * precision + (1 if _SUB_RATE.search(name) else 0)


def _bandwidth_stem(name: str) -> str:
    stem = split_metric_name(name)[0]
    return _BARE_BYTE_UNIT.sub("", stem).strip().lower()


def _bandwidth_tier(name: str) -> int:
    """Rank a bandwidth metric: total memory bandwidth first, directional last."""
    stem = _bandwidth_stem(name)
    memory = bool(_MEMORY.search(stem))
    if _DIRECTIONAL.search(stem):
        outgoing = 1 if _OUTGOING.search(stem) else 0
        return (7 if memory else 9) + outgoing
    if stem == "memory bandwidth":
        return 0
    if memory:
        return 1
    if "system" in stem:
        return 2
    levels = [int(level) for level in _CACHE_LEVEL.findall(stem)]
    if levels:
        return {3: 3, 2: 4, 1: 5}[max(levels)]
    return 6


def detect_flops_metric(names) -> tuple[str | None, list[str]]:
    """Pick the FLOP-rate metric to plot from the metric names of the data.

    A double-precision total (``DP [MFLOP/s]``) comes before its sub-rates
    (``AVX DP``, ``AVX512 DP``, ``Packed DP``), DP before SP, SP before
    precision-less rates (``MFLOP/s``) and half precision; uop rates
    (``Packed [MUOPS/s]``) only when no FLOP rate exists at all.

    Parameters
    ----------
    names : iterable of str
        Metric names, in the order LIKWID printed them.

    Returns
    -------
    name : str or None
        The chosen metric, None when the data has no FLOP or uop rate.
    notes : list of str
        Why the choice may not be the one meant (both DP and SP measured, a
        uop rate used as FLOP rate); empty when it is unambiguous.

    Examples
    --------
    >>> detect_flops_metric(["AVX DP [MFLOP/s]", "DP [MFLOP/s]", "Packed [MUOPS/s]"])
    ('DP [MFLOP/s]', [])
    """
    candidates = [n for n in names if parse_unit(n).kind in (FLOP_RATE, UOP_RATE)]
    if not candidates:
        return None, []
    chosen = min(candidates, key=lambda n: (_flops_tier(n), candidates.index(n)))
    notes = []
    flop_rates = [n for n in candidates if parse_unit(n).kind == FLOP_RATE]
    if parse_unit(chosen).kind == UOP_RATE:
        notes.append(f"no FLOP-rate metric measured; using the uop rate {chosen!r} "
                     "(uops are not FLOPs: pass flops_metric explicitly)")
    elif _precision(chosen) == "DP" and any(_precision(n) == "SP" for n in flop_rates):
        notes.append(f"both double- and single-precision FLOP rates measured; using {chosen!r}. "
                     "Pass flops_metric with the exact name to choose another")
    return chosen, notes


def detect_bandwidth_metric(names) -> tuple[str | None, list[str]]:
    """Pick the bandwidth metric to plot: the TOTAL memory bandwidth.

    ``Memory bandwidth [MBytes/s]`` comes first, then other memory totals
    (``HBM bandwidth``, per-channel totals), L3-to/from-system totals, then
    cache totals (L3, L2, L1, in that order).  Read, write, load, evict or
    other one-directional bandwidths come last (reads before writes): using the read bandwidth
    alone (as scope-profiler's detection does in MEM_DP) overstates the
    arithmetic intensity.

    Parameters
    ----------
    names : iterable of str
        Metric names.

    Returns
    -------
    name : str or None
        The chosen metric, None when the data has no byte rate.
    notes : list of str
        Set when the choice is not a total memory bandwidth.

    Examples
    --------
    >>> detect_bandwidth_metric(["Memory read bandwidth [MBytes/s]",
    ...                          "Memory bandwidth [MBytes/s]"])
    ('Memory bandwidth [MBytes/s]', [])
    """
    candidates = [n for n in names if parse_unit(n).kind == BYTE_RATE]
    if not candidates:
        return None, []
    chosen = min(candidates, key=lambda n: (_bandwidth_tier(n), candidates.index(n)))
    notes = []
    if _bandwidth_tier(chosen) > 1:
        notes.append(f"no total memory bandwidth measured; using {chosen!r} "
                     "(pass bandwidth_metric to choose another)")
    elif _is_channel_part(chosen, candidates):
        notes.append(f"{chosen!r} covers only some memory channels; measure the group(s) of "
                     "the other channels too (Zen 3: MEM1 and MEM2) for the total bandwidth")
    return chosen, notes


_CHANNELS = re.compile(
    r"^(?P<stem>.+?) \(channels (?P<first>\d+)-(?P<last>\d+)\) \[(?P<unit>[^\]]+)\]$")


def channel_totals(names) -> dict[str, list[str]]:
    """Totals of bandwidths that LIKWID splits over memory-channel groups.

    Zen 3 (and Zen 4 before 5.4) measure memory bandwidth in two groups,
    ``MEM1`` with ``Memory bandwidth (channels 0-3) [MBytes/s]`` and ``MEM2``
    with ``... (channels 4-7) ...``: each is half of the socket's traffic.
    When a region has every part, their sum is the total bandwidth, offered
    as a metric of its own (``Memory bandwidth (channels 0-7) [MBytes/s]``).

    Parameters
    ----------
    names : iterable of str
        Metric names.

    Returns
    -------
    dict
        Total name -> the part names it sums, for every set of two or more
        parts with the same stem and unit whose channel ranges follow each
        other without gap or overlap.

    Examples
    --------
    >>> channel_totals(["Memory bandwidth (channels 0-3) [MBytes/s]",
    ...                 "Memory bandwidth (channels 4-7) [MBytes/s]"])
    {'Memory bandwidth (channels 0-7) [MBytes/s]': ['Memory bandwidth (channels 0-3) [MBytes/s]', \
'Memory bandwidth (channels 4-7) [MBytes/s]']}
    """
    parts: dict[tuple, list] = {}
    for name in names:
        match = _CHANNELS.match(name)
        if match and parse_unit(name).kind == BYTE_RATE:
            key = (match["stem"], match["unit"])
            parts.setdefault(key, []).append((int(match["first"]), int(match["last"]), name))
    totals = {}
    for (stem, unit), ranges in parts.items():
        ranges.sort()
        contiguous = all(b[0] == a[1] + 1 for a, b in zip(ranges, ranges[1:]))
        if len(ranges) > 1 and contiguous:
            total = f"{stem} (channels {ranges[0][0]}-{ranges[-1][1]}) [{unit}]"
            if total not in names:
                totals[total] = [name for _, _, name in ranges]
    return totals


def _is_channel_part(name: str, names) -> bool:
    """Whether ``name`` is a bandwidth of some channels that no other name subdivides."""
    match = _CHANNELS.match(name)
    if match is None:
        return False
    first, last = int(match["first"]), int(match["last"])
    for other in names:
        part = _CHANNELS.match(other)
        if (other != name and part and (part["stem"], part["unit"]) == (match["stem"], match["unit"])
                and first <= int(part["first"]) and int(part["last"]) <= last):
            return False  # ``name`` is a total of parts
    return True



# --------------------------------------------------------------------------
# argument normalisation
# --------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def normalize_ranks(ranks) -> list[int] | None:
    """Turn the ``ranks`` argument into a sorted list of ints (None: all ranks).

    Parameters
    ----------
    ranks : int, iterable of int, or None
        Python or numpy integers.

    Raises
    ------
    ValueError
        For anything else (strings, floats, booleans, negative ranks).

    Examples
    --------
    >>> normalize_ranks(np.int64(1))
    [1]
    >>> normalize_ranks((3, 1, 3))
    [1, 3]
    """
    if ranks is None:
        return None
    if _is_int(ranks):
        items = [ranks]
    elif isinstance(ranks, (str, bytes)):
        raise ValueError(f"ranks must be an int, an iterable of ints or None, got {ranks!r}")
    else:
        try:
            items = list(ranks)
        except TypeError:
            raise ValueError("ranks must be an int, an iterable of ints or None, "
                             f"got {type(ranks).__name__} {ranks!r}") from None
    bad = [r for r in items if not _is_int(r) or r < 0]
    if bad:
        raise ValueError(f"ranks must be non-negative integers, got {bad[0]!r}")
    return sorted({int(r) for r in items})


def compile_patterns(patterns, what: str = "include") -> list[re.Pattern] | None:
    """Compile ``include``/``exclude`` regular expressions (a string or a list).

    Raises
    ------
    ValueError
        For an invalid regular expression or a pattern that is not a string.
    """
    if patterns is None:
        return None
    if isinstance(patterns, (str, re.Pattern)):
        patterns = [patterns]
    try:
        patterns = list(patterns)
    except TypeError:
        raise ValueError(f"{what} must be a string, a list of strings or None, "
                         f"got {patterns!r}") from None
    compiled = []
    for pattern in patterns:
        if isinstance(pattern, re.Pattern):
            compiled.append(pattern)
            continue
        if not isinstance(pattern, str):
            raise ValueError(f"{what} patterns must be strings, got {pattern!r}")
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ValueError(f"invalid {what} pattern {pattern!r}: {exc}") from None
    return compiled


def _names_selected(names, include, exclude) -> np.ndarray:
    """Boolean mask over unique region names (re.match at the name's start)."""
    keep = np.ones(len(names), dtype=bool)
    for index, name in enumerate(names):
        if include is not None and not any(p.match(name) for p in include):
            keep[index] = False
        elif exclude is not None and any(p.match(name) for p in exclude):
            keep[index] = False
    return keep


# --------------------------------------------------------------------------
# aggregation
# --------------------------------------------------------------------------
_RUN_CACHE: dict[int, tuple] = {}


def _group_labels(stage1: pd.DataFrame, group_id: np.ndarray, n_keys: int) -> np.ndarray:
    """'MEM_DP+FLOPS_DP' per (rank, region, device), without a loop per region."""
    names = pd.unique(stage1["group"].astype(object))
    codes = pd.Categorical(stage1["group"].astype(object), categories=names).codes
    present = np.zeros((n_keys, len(names)), dtype=bool)
    present[group_id, codes] = True
    patterns, inverse = np.unique(present, axis=0, return_inverse=True)
    labels = np.array(["+".join(names[row]) for row in patterns], dtype=object)
    return labels[np.asarray(inverse).ravel()]


def _aggregate_run(run: LikwidRun) -> pd.DataFrame:
    """Per (rank, region, device) sums over threads; see the module docstring."""
    table = run.table
    metrics = run.metric_names
    stage1_keys = ["rank", "region", "device", "group"]
    grouped = table.groupby(stage1_keys, observed=True, sort=False)
    stage1 = grouped[metrics].sum(min_count=1) if metrics else grouped.size().to_frame().iloc[:, :0]
    stage1["n_threads"] = grouped.size()
    stage1["runtime_s"] = grouped["runtime_s"].max()
    stage1["call_count"] = grouped["call_count"].max()
    stage1 = stage1.reset_index()
    grouped2 = stage1.groupby(["rank", "region", "device"], observed=True, sort=False)
    group_id = grouped2.ngroup().to_numpy()
    frame = grouped2[["runtime_s", "call_count", *metrics]].first()
    frame.insert(0, "n_threads", grouped2["n_threads"].max())
    frame = frame.reset_index()
    frame.insert(frame.columns.get_loc("call_count") + 1, "groups", _group_labels(stage1, group_id, len(frame)))
    frame["region"] = frame["region"].astype(object)
    frame["device"] = frame["device"].astype(object)
    frame["rank"] = frame["rank"].astype(np.int64)
    return frame


def _cached_run_frame(run: LikwidRun) -> pd.DataFrame:
    entry = _RUN_CACHE.get(id(run))
    if entry is not None:
        ref, table, shape, frame = entry
        if ref() is run and table is run.table and shape == run.table.shape:
            return frame
    frame = _aggregate_run(run)
    _RUN_CACHE[id(run)] = (weakref.ref(run), run.table, run.table.shape, frame)
    weakref.finalize(run, _RUN_CACHE.pop, id(run), None)
    return frame


def _unique_labels(runs) -> list[str]:
    labels, seen = [], {}
    for run in runs:
        label = str(run.label)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return labels


class _RunSums:
    """The per-region sums of one :class:`LikwidRun` (its cached groupby frame)."""

    def __init__(self, run: LikwidRun):
        self.run = run
        self.label = run.label
        self._frame = frame = _cached_run_frame(run)
        self.metric_names = list(frame.columns[len(_KEYS) - 1:])
        self.keys = {name: frame[name].to_numpy() for name in _KEYS[1:]}
        for name in ("region", "device", "groups"):
            self.keys[name] = pd.Categorical(self.keys[name])

    def __len__(self) -> int:
        return len(self._frame)

    def sums(self, metric: str) -> np.ndarray:
        return self._frame[metric].to_numpy(dtype=float)


def _sources(data) -> list:
    """Per-run sums of anything :func:`roofline_widget.io.as_runs` accepts.

    scope-profiler results are read directly (:class:`~roofline_widget.io.scope.ScopeSums`,
    one metric at a time); everything else becomes a :class:`LikwidRun` first.
    """
    from .io import _is_scope_results, as_runs

    if _is_scope_results(data):
        from .io.scope import ScopeSums
        return [ScopeSums(data)]
    if isinstance(data, (str, os.PathLike)):
        from .io.scope_h5 import is_hdf5, read_scope_sums
        if is_hdf5(data):
            return [read_scope_sums(data)]
    if isinstance(data, (LikwidRun, str, os.PathLike)) or not isinstance(data, Iterable):
        return [_RunSums(run) for run in as_runs(data)]
    parts = [part for item in data for part in _sources(item)]
    if not parts:
        raise ValueError("no runs given")
    return parts


def _combined(columns: list):
    """One key column of several runs (categoricals keep first-appearance order)."""
    if len(columns) == 1:
        return columns[0]
    if isinstance(columns[0], pd.Categorical):
        return union_categoricals(columns, ignore_order=True)
    return np.concatenate(columns)


class _RankGroups:
    """Selected rows grouped by (run, region, device): what ``combine_ranks`` sums over.

    Parameters
    ----------
    group_of_row : numpy.ndarray
        The group number of every row of the :class:`RegionSums` (groups numbered
        in order of first appearance, so a combined point keeps its place
        whatever ranks are selected).
    n_groups : int
        How many groups the whole data has.
    rows : numpy.ndarray
        The selected rows (ascending).

    Attributes
    ----------
    n : int
        Number of groups among the selected rows.
    first_rows : numpy.ndarray
        Per group, its first selected row: it gives the labels (run, region,
        device, groups) of the combined row.
    """

    def __init__(self, group_of_row: np.ndarray, n_groups: int, rows: np.ndarray):
        codes = group_of_row[rows]
        present = np.bincount(codes, minlength=n_groups) > 0
        self.codes = (np.cumsum(present) - 1)[codes]  # renumbered 0 .. n-1, order kept
        self.n = int(present.sum())
        self.rows = rows
        first = np.full(self.n, len(rows), dtype=np.intp)
        np.minimum.at(first, self.codes, np.arange(len(rows), dtype=np.intp))
        self.first_rows = rows[first]
        self._columns: dict[str, np.ndarray] = {}

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per group the sum of ``values`` (one per selected row); all-NaN stays NaN."""
        measured = ~np.isnan(values)
        total = np.bincount(self.codes, weights=np.where(measured, values, 0.0),
                            minlength=self.n).astype(float)  # int64 when empty
        count = np.bincount(self.codes[measured], minlength=self.n)
        total[count == 0] = np.nan
        return total

    def max(self, values: np.ndarray) -> np.ndarray:
        """Per group the largest of ``values``, ignoring NaN (all-NaN stays NaN)."""
        out = np.full(self.n, np.nan)
        np.fmax.at(out, self.codes, values)
        return out

    def column(self, sums: RegionSums, name: str) -> np.ndarray:
        """A numeric key column of the combined rows: rank -1, runtime and call count
        the max over ranks, n_threads the sum (computed once per name)."""
        column = self._columns.get(name)
        if column is None:
            if name == "rank":
                column = np.full(self.n, ALL_RANKS, dtype=np.int64)
            elif name == "n_threads":
                column = np.bincount(self.codes, weights=sums._column(name)[self.rows],
                                     minlength=self.n).astype(np.int64)
            else:
                column = self.max(sums._column(name)[self.rows])
            self._columns[name] = column
        return column


class RegionSums:
    """Per-(run, rank, region, device) sums over threads of every metric.

    Build it with :meth:`from_runs`; pick metrics, ranks and regions with
    :meth:`select`.  A metric's sums are computed when a selection first
    uses it (for scope-profiler results straight from the region arrays,
    see :class:`~roofline_widget.io.scope.ScopeSums`) and kept.

    Attributes
    ----------
    runs : list of LikwidRun
        Built on first access for scope-profiler results.
    frame : pandas.DataFrame
        One row per (run, rank, region, device): ``file`` (run label),
        ``rank``, ``region``, ``device``, ``n_threads``, ``runtime_s`` (max
        over threads), ``call_count`` (max), ``groups`` (``"MEM_DP+FLOPS_DP"``),
        then one column per metric (sum over threads, native unit); built on
        first access.
    flop_metrics : list of str
        FLOP-rate metrics present, then uop rates.
    bandwidth_metrics : list of str
        Byte-rate metrics present.
    ranks, regions, files : list
        Ranks (ascending), region names and run labels (order of appearance).
    """

    def __init__(self, parts: list, labels: list):
        self._parts = list(parts)
        self.files = list(labels)
        measured = list(dict.fromkeys(n for part in self._parts for n in part.metric_names))
        # Sums of channel-split bandwidths come first, so detection prefers them to a half.
        self._channel_totals = channel_totals(measured)
        self.metrics = list(self._channel_totals) + measured
        self.units = {name: parse_unit(name) for name in self.metrics}
        self.flop_metrics = ([m for m in self.metrics if self.units[m].kind == FLOP_RATE]
                             + [m for m in self.metrics if self.units[m].kind == UOP_RATE])
        self.bandwidth_metrics = [m for m in self.metrics if self.units[m].kind == BYTE_RATE]
        lengths = [len(part) for part in self._parts]
        file_codes = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        self._keys = {"file": pd.Categorical.from_codes(file_codes, categories=self.files)}
        self._frame = None
        self.ranks = np.unique(self._key("rank")).astype(int).tolist()
        self.regions = list(self._key("region").categories)
        self._region_codes = self._label_codes("region")[0]
        device_codes, devices = self._label_codes("device")
        self._gpu = np.asarray(devices == GPU)[device_codes] if len(devices) else \
            np.zeros(len(file_codes), dtype=bool)
        self._metric_values: dict[str, np.ndarray] = {}
        self._region_masks: dict[tuple, np.ndarray] = {}
        self._group_of_row: tuple | None = None

    def _key(self, name: str):
        """One key column (see ``_KEYS``) of all runs, combined on first use and kept.

        Columns a selection does not need (``call_count``, ``groups`` for point
        dicts) are then never read from scope-profiler results.
        """
        column = self._keys.get(name)
        if column is None:
            column = self._keys[name] = _combined([part.keys[name] for part in self._parts])
        return column

    def _column(self, name: str) -> np.ndarray:
        """A numeric key column as a plain array (rank and n_threads int64, else float)."""
        dtype = np.int64 if name in ("rank", "n_threads") else float
        return np.asarray(self._key(name), dtype=dtype)

    def _label_codes(self, name: str) -> tuple:
        """(codes, categories) of a categorical key column."""
        column = self._key(name)
        return np.asarray(column.codes), column.categories

    @classmethod
    def from_runs(cls, data) -> RegionSums:
        """Aggregate runs (anything :func:`roofline_widget.io.as_runs` accepts).

        Per-run sums of a :class:`LikwidRun` are cached on the run object, so
        building a ``RegionSums`` of runs seen before costs one concatenation.
        scope-profiler results are not converted to a per-thread table at all.
        """
        if isinstance(data, RegionSums):
            return data
        parts = _sources(data)
        return cls(parts, _unique_labels(parts))

    @property
    def runs(self) -> list:
        """The runs as :class:`LikwidRun` (scope-profiler results converted on first use)."""
        return [part.run for part in self._parts]

    @property
    def frame(self) -> pd.DataFrame:
        """Keys and every metric's sums as one DataFrame (built on first access)."""
        if self._frame is None:
            columns = {name: self._key(name) for name in _KEYS}
            columns.update((name, self._values(name)) for name in self.metrics)
            self._frame = pd.DataFrame(columns)
        return self._frame

    def __len__(self) -> int:
        return len(self._region_codes)

    def __repr__(self) -> str:
        return (f"<RegionSums: {len(self)} (run, rank, region, device) row(s), "
                f"{len(self.files)} run(s), FLOP metrics {self.flop_metrics}, "
                f"bandwidth metrics {self.bandwidth_metrics}>")

    # ------------------------------------------------------------ detection
    def detect_flops_metric(self) -> str | None:
        """The FLOP-rate metric :meth:`select` uses by default (see :func:`detect_flops_metric`)."""
        return detect_flops_metric(self.flop_metrics)[0]

    def detect_bandwidth_metric(self) -> str | None:
        """The bandwidth metric :meth:`select` uses by default (the total memory bandwidth)."""
        return detect_bandwidth_metric(self.bandwidth_metrics)[0]

    # ------------------------------------------------------------ selection
    def _values(self, metric: str) -> np.ndarray:
        """The sums of one metric over all runs (NaN for runs without it), kept."""
        values = self._metric_values.get(metric)
        if values is None:
            if metric in self._channel_totals:
                # NaN where a region lacks a part: half a socket's traffic is no total.
                values = np.sum([self._values(part) for part in self._channel_totals[metric]],
                                axis=0)
            else:
                pieces = [part.sums(metric) if metric in part.metric_names
                          else np.full(len(part), np.nan) for part in self._parts]
                values = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
            self._metric_values[metric] = values
        return values

    def _region_mask(self, include, exclude) -> np.ndarray:
        key = (tuple(p.pattern for p in include) if include is not None else None,
               tuple(p.pattern for p in exclude) if exclude is not None else None)
        mask = self._region_masks.get(key)
        if mask is None:
            keep = _names_selected(self.regions, include, exclude)
            mask = keep[self._region_codes]
            self._region_masks[key] = mask
        return mask

    def _rank_groups(self, rows: np.ndarray) -> _RankGroups:
        """The selected rows grouped by (run, region, device) (the numbering is kept)."""
        if self._group_of_row is None:
            file_codes = self._label_codes("file")[0].astype(np.int64)
            device_codes, devices = self._label_codes("device")
            key = ((file_codes * max(len(self.regions), 1) + self._region_codes)
                   * (len(devices) + 1) + device_codes + 1)
            codes, uniques = pd.factorize(key)
            self._group_of_row = (codes.astype(np.intp), len(uniques))
        return _RankGroups(*self._group_of_row, rows)

    def _rates(self, metric, role: str, expected_kind: str, rows: np.ndarray,
               groups: _RankGroups | None = None):
        """Values in giga units, a reason code per selected row, and the reason texts.

        With ``groups``, one value per group (the sum over its rows) instead.
        Code 0 (text ``""``) means usable; the texts are indexed by the codes.
        """
        n = len(rows) if groups is None else groups.n
        problem = None
        if metric is None:
            problem = f"no {role} metric in the data"
        elif metric not in self.units:
            problem = f"no metric {metric!r} in the data"
        else:
            unit = self.units[metric]
            kinds_ok = (FLOP_RATE, UOP_RATE) if expected_kind == FLOP_RATE else (BYTE_RATE,)
            if unit.kind not in kinds_ok:
                wanted = "a FLOP rate" if expected_kind == FLOP_RATE else "a byte rate"
                problem = f"unit of {metric!r} ({unit.text or 'none'}) is not {wanted}"
        if problem is not None:
            return np.full(n, np.nan), np.ones(n, dtype=np.intp), ["", problem]
        raw = self._values(metric)
        values = raw[rows] if groups is None else groups.sum(raw[rows])
        values = values * unit.to_giga
        gpu = self._gpu[rows if groups is None else groups.first_rows]
        gpu_metric = bool(np.isfinite(raw[self._gpu]).any())
        with np.errstate(invalid="ignore"):
            conditions = [
                np.isnan(values) & gpu & (not gpu_metric),
                np.isnan(values),
                np.isinf(values),
                values == 0,
                values < 0,
            ]
        texts = [
            "",
            f"GPU region: {metric!r} is measured on CPUs only",
            f"{metric!r} not measured in this region",
            f"{metric!r} is infinite",
            f"{metric!r} is zero on every thread",
            f"{metric!r} is negative",
        ]
        codes = np.select(conditions, np.arange(1, len(texts)), default=0)
        return values, codes, texts

    def select(self, flops_metric=None, bandwidth_metric=None, ranks=None, include=None,
               exclude=None, combine_ranks=False) -> PointSelection:
        """Pick metrics, ranks and regions; return the points and the left-out rows.

        Parameters
        ----------
        flops_metric, bandwidth_metric : str, optional
            Exact LIKWID metric names; detected when omitted (one choice for
            all regions and runs, see :func:`detect_flops_metric` and
            :func:`detect_bandwidth_metric`).
        ranks : int, iterable of int, or None
            Ranks to keep (numpy integers accepted); None keeps all.
        include, exclude : str or list of str, optional
            Regular expressions matched at the start of the region name.
        combine_ranks : bool, default False
            Sum the selected ranks' rows per (run, region, device): one point
            per region for the whole job.  Each metric is the sum over ranks
            of its per-rank sums (all-NaN stays NaN), the intensity the ratio
            of the totals; runtime and call count are the max over ranks,
            ``n_threads`` the sum.  ``ranks`` applies BEFORE combining (sum a
            subset), and the combined points and left-out rows have rank
            ``-1`` (:data:`ALL_RANKS`, "all ranks combined").  With likwid-mpirun
            this puts each socket's memory bandwidth (measured on one rank
            per socket, 0 on the others) together with every rank's FLOPs.

        Returns
        -------
        PointSelection

        Raises
        ------
        ValueError
            For invalid ranks or patterns, or a ``combine_ranks`` that is no bool.
        """
        if not isinstance(combine_ranks, (bool, np.bool_)):
            raise ValueError(f"combine_ranks must be True or False, got {combine_ranks!r}")
        rank_list = normalize_ranks(ranks)
        include = compile_patterns(include, "include")
        exclude = compile_patterns(exclude, "exclude")
        notes = []
        if flops_metric is None:
            flops_metric, more = detect_flops_metric(self.flop_metrics)
            notes += more
        if bandwidth_metric is None:
            bandwidth_metric, more = detect_bandwidth_metric(self.bandwidth_metrics)
            notes += more
        mask = self._region_mask(include, exclude)
        if rank_list is not None:
            mask = mask & np.isin(self._column("rank"), rank_list)
            missing = sorted(set(rank_list) - set(self.ranks))
            if missing:
                notes.append(f"rank(s) {missing} not in the data (ranks present: {self.ranks})")
        rows = np.flatnonzero(mask)
        groups = self._rank_groups(rows) if combine_ranks else None
        performance, flops_codes, flops_texts = self._rates(flops_metric, "FLOP-rate", FLOP_RATE,
                                                            rows, groups)
        bandwidth, bw_codes, bw_texts = self._rates(bandwidth_metric, "bandwidth", BYTE_RATE,
                                                    rows, groups)
        placed = (flops_codes == 0) & (bw_codes == 0)
        reasons = _reasons(flops_texts, bw_texts, flops_codes[~placed], bw_codes[~placed])
        shown = rows if groups is None else groups.first_rows
        return PointSelection(self, shown[placed], performance[placed], bandwidth[placed],
                              shown[~placed], reasons, flops_metric, bandwidth_metric, notes,
                              combined=None if groups is None else (groups, placed))

    def _label_column(self, name: str, rows: np.ndarray) -> pd.Categorical:
        codes, categories = self._label_codes(name)
        return pd.Categorical.from_codes(codes[rows], categories=categories)

    def _plain_labels(self, name: str, rows: np.ndarray) -> list[str]:
        """A categorical key column at ``rows`` as plain ``str`` (converted once per category)."""
        codes, categories = self._label_codes(name)
        plain = np.array([str(c) for c in categories] + [""], dtype=object)
        return plain[codes[rows]].tolist()

    def _points_frame(self, rows, numbers, performance, bandwidth, flops_metric,
                      bandwidth_metric):
        """The points frame; ``numbers(name)`` gives the numeric key columns of the rows."""
        n = len(rows)
        return pd.DataFrame({
            "file": self._label_column("file", rows),
            "region": self._label_column("region", rows),
            "rank": numbers("rank"),
            "performance_gflops": performance,
            "bandwidth_gbs": bandwidth,
            "arithmetic_intensity_flops_per_byte": performance / bandwidth,
            "runtime_seconds": numbers("runtime_s"),
            "flops_metric": _constant_column(flops_metric, n),
            "bandwidth_metric": _constant_column(bandwidth_metric, n),
            "device": self._label_column("device", rows),
            "n_threads": numbers("n_threads"),
            "call_count": numbers("call_count"),
            "groups": self._label_column("groups", rows),
        })

    def _left_out_frame(self, rows, numbers, reasons):
        return pd.DataFrame({
            "file": self._label_column("file", rows),
            "region": self._label_column("region", rows),
            "rank": numbers("rank"),
            "reason": reasons,
            "device": self._label_column("device", rows),
            "groups": self._label_column("groups", rows),
        })

    def _combined_frame(self, groups: _RankGroups) -> pd.DataFrame:
        """Like :attr:`frame`, one row per group of ``groups``: the ranks summed."""
        columns = {name: (self._label_column(name, groups.first_rows)
                          if name in ("file", "region", "device", "groups")
                          else groups.column(self, name)) for name in _KEYS}
        columns.update((name, groups.sum(self._values(name)[groups.rows]))
                       for name in self.metrics)
        return pd.DataFrame(columns)


def _constant_column(value, n: int) -> pd.Categorical:
    categories = [] if value is None else [value]
    return pd.Categorical.from_codes(np.full(n, 0 if categories else -1), categories=categories)


def _reasons(first: list[str], second: list[str], first_codes, second_codes) -> pd.Categorical:
    """Joined reason texts per row, from the reason codes of both metrics."""
    table = [f"{a}; {b}" if a and b else a + b for a in first for b in second]
    categories, inverse = np.unique(np.array(table, dtype=str), return_inverse=True)
    codes = np.asarray(inverse).ravel()[first_codes * len(second) + second_codes]
    return pd.Categorical.from_codes(codes, categories=categories)


class PointSelection:
    """The points of one selection and the regions that could not be placed.

    Built by :meth:`RegionSums.select`. The two DataFrames are built on
    first access; :meth:`to_dicts` reads the selected rows straight from the
    :class:`RegionSums` columns and needs neither.

    Attributes
    ----------
    points : pandas.DataFrame
        Columns ``file, region, rank, performance_gflops, bandwidth_gbs,
        arithmetic_intensity_flops_per_byte, runtime_seconds, flops_metric,
        bandwidth_metric, device, n_threads, call_count, groups``.
    left_out : pandas.DataFrame
        Columns ``file, region, rank, reason`` (then ``device, groups``).
    frame : pandas.DataFrame
        The selected rows of :attr:`RegionSums.frame` (placed and left out),
        every metric's sums included; with ``combine_ranks`` one row per
        (run, region, device) with the ranks summed and rank -1.
    combine_ranks : bool
        Whether the ranks were summed (the points' rank is then -1).
    flops_metric, bandwidth_metric : str or None
        The metrics used (given or detected).
    notes : list of str
        Remarks on the metric choice (ambiguous precision, fallbacks,
        requested ranks absent); :func:`collect_roofline_points` warns them.
    """

    def __init__(self, sums: RegionSums, rows, performance, bandwidth, left_out_rows, reasons,
                 flops_metric: str | None, bandwidth_metric: str | None, notes=None, *,
                 combined: tuple | None = None):
        self._sums = sums
        self._rows, self._performance, self._bandwidth = rows, performance, bandwidth
        self._left_out_rows, self._reasons = left_out_rows, reasons
        # (_RankGroups, placed mask over its groups) when the ranks were summed
        self._combined = combined
        self.combine_ranks = combined is not None
        self.flops_metric = flops_metric
        self.bandwidth_metric = bandwidth_metric
        self.notes = list(notes or [])
        self._points = self._left_out = self._frame = None

    def _numbers(self, name: str, placed: bool) -> np.ndarray:
        """A numeric key column (rank, runtime_s, n_threads, call_count) of the points
        (``placed``) or of the left-out rows."""
        if self._combined is None:
            return self._sums._column(name)[self._rows if placed else self._left_out_rows]
        groups, mask = self._combined
        return groups.column(self._sums, name)[mask if placed else ~mask]

    @property
    def points(self) -> pd.DataFrame:
        """The placed points, one row each (built on first access)."""
        if self._points is None:
            self._points = self._sums._points_frame(
                self._rows, lambda name: self._numbers(name, True), self._performance,
                self._bandwidth, self.flops_metric, self.bandwidth_metric)
        return self._points

    @property
    def left_out(self) -> pd.DataFrame:
        """The selected rows that could not be placed, with the reason (built on first access)."""
        if self._left_out is None:
            self._left_out = self._sums._left_out_frame(
                self._left_out_rows, lambda name: self._numbers(name, False), self._reasons)
        return self._left_out

    @property
    def frame(self) -> pd.DataFrame:
        """The selected sums, every metric (ranks summed with ``combine_ranks``); built on first access."""
        if self._frame is None:
            if self._combined is None:
                rows = np.sort(np.concatenate([self._rows, self._left_out_rows]))
                self._frame = self._sums.frame.iloc[rows].reset_index(drop=True)
            else:
                self._frame = self._sums._combined_frame(self._combined[0])
        return self._frame

    def to_dicts(self) -> list[dict]:
        """The points as scope-profiler 0.7.5 point dicts (plain Python values)."""
        sums, rows = self._sums, self._rows
        runtime = self._numbers("runtime_s", True)
        runtime_list = runtime.tolist()
        if np.isnan(runtime).any():
            runtime_list = [None if v != v else v for v in runtime_list]
        flops_metric, bandwidth_metric = self.flops_metric, self.bandwidth_metric
        columns = zip(sums._plain_labels("file", rows), sums._plain_labels("region", rows),
                      self._numbers("rank", True).tolist(), self._performance.tolist(),
                      self._bandwidth.tolist(), (self._performance / self._bandwidth).tolist(),
                      runtime_list)
        # a dict display per point: the fastest way CPython builds many small dicts
        return [{"file": f, "region": r, "rank": k, "performance_gflops": p, "bandwidth_gbs": b,
                 "arithmetic_intensity_flops_per_byte": a, "runtime_seconds": t,
                 "flops_metric": flops_metric, "bandwidth_metric": bandwidth_metric}
                for f, r, k, p, b, a, t in columns]

    def warn(self, stacklevel: int = 3) -> None:
        """Emit the notes and, if any region was left out, one RegionsLeftOutWarning."""
        for note in self.notes:
            warnings.warn(note, MetricChoiceWarning, stacklevel=stacklevel)
        if len(self._left_out_rows):
            warnings.warn(self.left_out_summary(), RegionsLeftOutWarning, stacklevel=stacklevel)

    def left_out_summary(self, limit: int = 5) -> str:
        """One sentence: how many region/rank rows were left out and why."""
        counts = pd.Series(self._reasons).value_counts(sort=True)
        counts = counts[counts > 0]
        reasons = "; ".join(f"{count} x {reason}" for reason, count in counts.head(limit).items())
        if len(counts) > limit:
            reasons += f"; and {len(counts) - limit} other reason(s)"
        return (f"{len(self._left_out_rows)} region/rank row(s) left out of the roofline "
                f"(FLOP metric {self.flops_metric!r}, bandwidth metric "
                f"{self.bandwidth_metric!r}): {reasons}. See left_out_regions() for the list.")


# --------------------------------------------------------------------------
# public functions (scope-profiler compatible)
# --------------------------------------------------------------------------
def _select(profiling_data, flops_metric, bandwidth_metric, ranks, include, exclude,
            combine_ranks=False):
    sums = RegionSums.from_runs(profiling_data)
    return sums.select(flops_metric=flops_metric, bandwidth_metric=bandwidth_metric,
                       ranks=ranks, include=include, exclude=exclude,
                       combine_ranks=combine_ranks)


def collect_roofline_points(profiling_data, *, flops_metric=None, bandwidth_metric=None,
                            ranks=None, include=None, exclude=None) -> list[dict]:
    """One roofline point per selected region and rank (and run).

    Parameters
    ----------
    profiling_data : LikwidRun, ProfilingResults, path, RegionSums, or a sequence of them
        LIKWID output files, runs read with :func:`~roofline_widget.read_likwid`,
        or scope-profiler results.
    flops_metric, bandwidth_metric : str, optional
        Exact LIKWID derived-metric names.  When omitted, ONE FLOP metric
        (double precision total preferred) and the TOTAL memory bandwidth
        are detected for the whole call.
    ranks : int, iterable of int, or None
        Ranks to keep; None keeps all.
    include, exclude : str or list of str, optional
        Regular expressions matched with :func:`re.match` on region names.

    Returns
    -------
    list of dict
        scope-profiler 0.7.5 point dicts: ``file, region, rank,
        performance_gflops`` (sum over threads, GFLOP/s), ``bandwidth_gbs``
        (GB/s), ``arithmetic_intensity_flops_per_byte``,
        ``runtime_seconds`` (max over threads), ``flops_metric``,
        ``bandwidth_metric``.

    Warns
    -----
    RegionsLeftOutWarning
        Once, with a count and the reasons, if selected regions could not be
        placed; :func:`left_out_regions` lists them.
    MetricChoiceWarning
        If the detected metric is ambiguous (DP and SP both measured).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> points = collect_roofline_points(
    ...     sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    >>> points[0]["region"], points[0]["bandwidth_metric"]
    ('Setup', 'Memory bandwidth [MBytes/s]')
    """
    selection = _select(profiling_data, flops_metric, bandwidth_metric, ranks, include, exclude)
    selection.warn()
    return selection.to_dicts()


def points_dataframe(profiling_data, **keywords) -> pd.DataFrame:
    """The points of :func:`collect_roofline_points` as a DataFrame.

    Takes the same keywords, and ``combine_ranks=False``: True sums the
    selected ranks into one point per (run, region, device), rank -1 (see
    :meth:`RegionSums.select`).  Adds the columns ``device, n_threads,
    call_count, groups``.  Warns like :func:`collect_roofline_points`.
    """
    selection = _select(profiling_data, **_keywords(keywords))
    selection.warn()
    return selection.points


def left_out_regions(profiling_data, **keywords) -> pd.DataFrame:
    """The selected regions that could not be placed, with the reason.

    Takes the same keywords as :func:`points_dataframe` (``combine_ranks``
    included: the left-out rows then have rank -1).

    Returns
    -------
    pandas.DataFrame
        Columns ``file, region, rank, reason, device, groups``.
    """
    return _select(profiling_data, **_keywords(keywords)).left_out


_DEFAULTS = {"flops_metric": None, "bandwidth_metric": None, "ranks": None, "include": None,
             "exclude": None, "combine_ranks": False}


def _keywords(keywords: dict) -> dict:
    unknown = set(keywords) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {sorted(unknown)}; "
                        f"allowed: {list(_DEFAULTS)}")
    return {**_DEFAULTS, **keywords}
