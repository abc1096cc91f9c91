"""The numbers a point's guidance rests on, beyond its two coordinates: uop rates, clocks, thread runtimes.

A LIKWID group prints more than the FLOP and byte rates of a point: the
FLOPS and MEM groups print packed and scalar micro-op rates, every group the
``Clock [MHz]`` and each thread's runtime, the cache groups the traffic of
other memory levels.  :func:`point_facts` gathers them per point of a
selection (one row per row of its ``points``):

* sums over the point's threads of the uop rates and of each level's total
  traffic (the same sums as the point's coordinates);
* per thread, its region runtime (LIKWID's RDTSC time) and clock, reduced
  over the point's threads (every rank's threads of a point summing ranks):
  minimum, maximum, mean, the slowest and fastest thread;
* per run, the nominal clock (the CPU name's ``@ 2.60GHz``, else the ``CPU
  clock`` line LIKWID measured) and the widest SIMD instructions of its CPU
  (:func:`run_simd_width`: the table of cores where it holds the CPU type,
  else the instructions the group counts, :func:`simd_width`).

A column is NaN (or ``""``) where the data do not have the metric: the rule
that needs it then says nothing.  The per-thread table of a run is reduced
once and kept with the run.
"""

from __future__ import annotations

import re
import weakref
from typing import NamedTuple

import numpy as np
import pandas as pd

from roofline_widget.cpu_cores import find_core
from roofline_widget.metric_names import LEVELS, metric_level
from roofline_widget.model import LikwidRun
from roofline_widget.points.region_sums import RegionSums
from roofline_widget.points.selected_points import SelectedPoints
from roofline_widget.units import UnitKind, parse_unit, split_metric_name

__all__ = ["FACT_COLUMNS", "NominalClock", "SimdWidth", "level_metrics", "nominal_clock",
           "point_facts", "run_simd_width", "simd_width", "uop_metrics"]

#: The columns of :func:`point_facts`, after the points' own.
FACT_COLUMNS = ("scalar_uops", "packed_uops", "scalar_metric", "packed_metric", "simd_bits",
                "simd_name", "clock_mhz", "clock_min_mhz", "clock_max_mhz", "nominal_mhz",
                "nominal_from", "timed_threads", "runtime_min_s", "runtime_max_s",
                "runtime_mean_s", "fastest_thread", "slowest_thread",
                *(f"{level}_gbs" for level in LEVELS), *(f"{level}_metric" for level in LEVELS))

_CLOCK_STEM = "clock"


class SimdWidth(NamedTuple):
    """The widest SIMD instructions a run's group counts: their bits and name (``"AVX-512"``)."""

    bits: int
    name: str


#: Name patterns (metric or event names) of the vector instructions a LIKWID group counts,
#: widest first.  A group counts the widest instructions its CPU has (``FP_ARITH_INST_RETIRED_
#: 512B_PACKED_DOUBLE`` on AVX-512 CPUs, ``AVX512 DP [MFLOP/s]``): sample 17's Skylake MEM_DP
#: group prints only ``AVX DP`` but counts the 512-bit event.
_SIMD_PATTERNS = (
    (re.compile(r"512B_PACKED|^AVX512\b", re.IGNORECASE), SimdWidth(512, "AVX-512")),
    (re.compile(r"256B_PACKED|^AVX\b", re.IGNORECASE), SimdWidth(256, "AVX")),
    (re.compile(r"128B_PACKED|^Packed\b", re.IGNORECASE), SimdWidth(128, "SSE")),
)


def simd_width(metric_names, event_names=()) -> SimdWidth | None:
    """The widest SIMD instructions a run's groups count, from the names they print.

    The fallback of :func:`run_simd_width` for a CPU the table of cores does not hold:
    ``FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE`` or ``AVX512 DP [MFLOP/s]`` mean
    512-bit vectors, ``..._256B_PACKED_...`` or ``AVX DP [MFLOP/s]`` 256-bit,
    ``..._128B_PACKED_...`` or ``Packed [MUOPS/s]`` alone 128-bit.

    Parameters
    ----------
    metric_names, event_names : iterable of str
        The derived metrics and the raw events (``"EVENT:COUNTER"``) of a run.

    Returns
    -------
    SimdWidth or None
        None when no name tells (AMD's FLOPS groups count FLOPs, not instructions).

    Examples
    --------
    >>> simd_width(["DP [MFLOP/s]", "AVX DP [MFLOP/s]", "Packed [MUOPS/s]"],
    ...            ["FP_ARITH_INST_RETIRED_512B_PACKED_DOUBLE:PMC3"])
    SimdWidth(bits=512, name='AVX-512')
    >>> simd_width(["DP [MFLOP/s]"]) is None
    True
    """
    names = [str(n).strip() for n in (*metric_names, *event_names)]
    for pattern, width in _SIMD_PATTERNS:
        if any(pattern.search(name) for name in names):
            return width
    return None


def run_simd_width(run: LikwidRun) -> SimdWidth | None:
    """The widest SIMD instructions of a run's CPU: the table of cores first, else the names.

    Where :func:`~roofline_widget.cpu_cores.find_core` knows the run's ``CPU type``,
    the widest vector width of its row (a width whose throughput differs per part
    counts too: the lanes are the same) -- the one home of what a core can do,
    and the only source on CPUs whose groups name no width (Zen, Arm, POWER);
    else :func:`simd_width` of the names the groups print.

    Examples
    --------
    >>> from roofline_widget import read_likwid, sample_path
    >>> run_simd_width(read_likwid(sample_path("likwidjl_zen3_epyc7763_FLOPS_DP_1region_1t.txt")))
    SimdWidth(bits=256, name='AVX2')
    """
    core = find_core(run.cpu_type, run.cpu_name)
    if core is not None:
        vectors = [w for w in (*core.widths, *core.choices) if w.bits is not None]
        if vectors:
            widest = max(vectors, key=lambda w: w.bits or 0)
            return SimdWidth(int(widest.bits or 0), widest.isa)
    return simd_width(run.metric_names, getattr(run.events, "columns", ()))


class NominalClock(NamedTuple):
    """A run's nominal clock in MHz and where it was read (``"CPU name"``, ``"CPU clock"``)."""

    mhz: float
    source: str


_NAME_CLOCK = re.compile(r"@\s*(\d+(?:\.\d+)?)\s*GHz", re.IGNORECASE)
_HEADER_CLOCK = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(GHz|MHz)\b", re.IGNORECASE)


def nominal_clock(run: LikwidRun) -> NominalClock | None:
    """The base clock a run's CPU is rated at, from LIKWID's CPU header.

    Intel's CPU name carries it (``Xeon(R) Gold 6132 CPU @ 2.60GHz``); otherwise
    the ``CPU clock`` line, the time-stamp counter's frequency LIKWID measured
    (the base clock on CPUs with an invariant TSC: ``2.00 GHz`` on an EPYC 7702).
    None when the run has no header (likwid-mpirun prints none).
    """
    found = _NAME_CLOCK.search(run.cpu_name or "")
    if found:
        return NominalClock(float(found[1]) * 1000.0, "CPU name")
    found = _HEADER_CLOCK.match(run.cpu_clock or "")
    if found:
        scale = 1000.0 if found[2].lower() == "ghz" else 1.0
        return NominalClock(float(found[1]) * scale, "CPU clock")
    return None


def uop_metrics(names) -> dict[str, str]:
    """``{"scalar": name, "packed": name}`` of the uop-rate metrics among ``names`` (those found).

    Examples
    --------
    >>> uop_metrics(["Packed [MUOPS/s]", "Scalar [MUOPS/s]", "DP [MFLOP/s]"])
    {'packed': 'Packed [MUOPS/s]', 'scalar': 'Scalar [MUOPS/s]'}
    """
    found: dict[str, str] = {}
    for name in names:
        words = str(name).split()
        if words and parse_unit(name).kind == UnitKind.UOP_RATE and words[0].lower() in ("scalar", "packed"):
            found.setdefault(words[0].lower(), name)
    return found


def level_metrics(names) -> dict[str, str]:
    """Level -> the bandwidth metric of its total traffic (lowest tier of
    :func:`~roofline_widget.metric_names.metric_level`, the first such name)."""
    best: dict[str, tuple[int, str]] = {}
    for name in names:
        found = metric_level(name) if parse_unit(name).kind == UnitKind.BYTE_RATE else None
        if found is not None and (found.level not in best or found.tier < best[found.level][0]):
            best[found.level] = (found.tier, name)
    return {level: best[level][1] for level in LEVELS if level in best}


def _clock_metric(names) -> str | None:
    return next((n for n in names if split_metric_name(n)[0].strip().lower() == _CLOCK_STEM
                 and split_metric_name(n)[1].lower() == "mhz"), None)


# ---------------------------------------------------------------- per thread, per run
_THREAD_KEYS = ["rank", "region", "device"]
# id(run) -> (weak reference to the run, its table, the reduced frame)
_THREAD_CACHE: dict[int, tuple] = {}


def _per_group(table: pd.DataFrame, clock: str | None) -> pd.DataFrame:
    """Per (rank, region, device, group): runtime and clock statistics over its threads."""
    frame = pd.DataFrame({key: table[key].astype(object) for key in [*_THREAD_KEYS, "group"]})
    frame["runtime"] = pd.to_numeric(table["runtime_s"], errors="coerce").where(
        lambda v: np.isfinite(v) & (v > 0))
    frame["thread"] = table["thread"].astype(str).to_numpy()
    frame["clock"] = (pd.to_numeric(table[clock], errors="coerce").where(
        lambda v: np.isfinite(v) & (v > 0)) if clock else np.nan)
    grouped = frame.groupby([*_THREAD_KEYS, "group"], sort=False, dropna=False)
    out = grouped.agg(runtime_min=("runtime", "min"), runtime_max=("runtime", "max"),
                      runtime_sum=("runtime", "sum"), runtime_count=("runtime", "count"),
                      clock_min=("clock", "min"), clock_max=("clock", "max"),
                      clock_sum=("clock", "sum"), clock_count=("clock", "count"))
    timed = frame.dropna(subset=["runtime"])
    if len(timed):
        by_group = timed.groupby([*_THREAD_KEYS, "group"], sort=False)["runtime"]
        out["slowest"] = timed.loc[by_group.idxmax(), "thread"].set_axis(by_group.idxmax().index)
        out["fastest"] = timed.loc[by_group.idxmin(), "thread"].set_axis(by_group.idxmin().index)
    else:
        out["slowest"] = out["fastest"] = None
    out.loc[out["runtime_count"] == 0, "runtime_sum"] = np.nan
    out.loc[out["clock_count"] == 0, "clock_sum"] = np.nan
    return out


def _thread_stats(run: LikwidRun) -> pd.DataFrame:
    """Per (rank, region, device) of a run: runtime and clock statistics of its threads (kept).

    A region measured in several groups (a MEM_DP and a FLOPS_DP run joined)
    takes each statistic from its first group that has it, as the sums take
    each metric from the first group with a value.
    """
    key = id(run)
    cached = _THREAD_CACHE.get(key)
    if cached is not None and cached[0]() is run and cached[1] is run.table:
        return cached[2]
    per_group = _per_group(run.table, _clock_metric(run.metric_names))
    reduced = per_group.groupby(level=_THREAD_KEYS, sort=False, dropna=False).first()

    def forget(_gone: weakref.ref) -> None:
        _THREAD_CACHE.pop(key, None)

    _THREAD_CACHE[key] = (weakref.ref(run, forget), run.table, reduced)
    return reduced


def _row_thread_stats(sums: RegionSums) -> pd.DataFrame:
    """:func:`_thread_stats` of every row of ``sums`` (NaN where a run has no such rows)."""
    pieces = []
    for part, run in zip(sums.sources, sums.runs):
        keys = pd.MultiIndex.from_arrays([np.asarray(part.keys[k], dtype=object)
                                          for k in _THREAD_KEYS], names=_THREAD_KEYS)
        pieces.append(_thread_stats(run).reindex(keys).reset_index(drop=True))
    return pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame()


# ---------------------------------------------------------------- per point
def _point_sum(values: np.ndarray, point: np.ndarray, n: int) -> np.ndarray:
    """Per point the sum of its rows' ``values``; NaN where none has one."""
    measured = np.isfinite(values)
    total = np.bincount(point, weights=np.where(measured, values, 0.0), minlength=n)
    count = np.bincount(point[measured], minlength=n)
    return np.where(count > 0, total, np.nan)


def _point_extreme(values: np.ndarray, point: np.ndarray, n: int, reduce) -> np.ndarray:
    out = np.full(n, np.nan)
    finite = np.isfinite(values)
    reduce.at(out, point[finite], values[finite])
    return out


def _point_label(values: np.ndarray, labels: np.ndarray, point: np.ndarray, n: int,
                 largest: bool) -> np.ndarray:
    """Per point the label of its row with the largest (or smallest) finite value."""
    out = np.full(n, "", dtype=object)
    finite = np.flatnonzero(np.isfinite(values))
    order = finite[np.lexsort((-values[finite] if largest else values[finite], point[finite]))]
    first = order[np.r_[True, point[order][1:] != point[order][:-1]]] if len(order) else order
    out[point[first]] = labels[first]
    return out


def _run_facts(sums: RegionSums, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Per row: the nominal clock and the SIMD width of its run."""
    per_run = []
    for run in sums.runs:
        clock = nominal_clock(run)
        width = run_simd_width(run)
        per_run.append((np.nan if clock is None else clock.mhz, "" if clock is None else clock.source,
                        0 if width is None else width.bits, "" if width is None else width.name))
    codes = sums.label_codes("file")[0][rows]
    table = np.array(per_run, dtype=object).reshape(len(per_run), 4)
    return {"nominal_mhz": table[codes, 0].astype(float), "nominal_from": table[codes, 1],
            "simd_bits": table[codes, 2].astype(np.int64), "simd_name": table[codes, 3]}


def point_facts(sums: RegionSums, selected: SelectedPoints) -> pd.DataFrame:
    """The facts of every point of a selection, one row per row of ``selected.points``.

    Parameters
    ----------
    sums : RegionSums
        The sums the selection was made from.
    selected : SelectedPoints
        ``sums.select(...)``.

    Returns
    -------
    pandas.DataFrame
        :data:`FACT_COLUMNS`: ``scalar_uops``, ``packed_uops`` (MUOPS/s, sums;
        NaN without the metrics) and their metric names; ``simd_bits``,
        ``simd_name`` (0 and "" when unknown); ``clock_mhz`` (mean over the
        threads), ``clock_min_mhz``, ``clock_max_mhz``; ``nominal_mhz``,
        ``nominal_from``; ``timed_threads``, ``runtime_min_s``,
        ``runtime_max_s``, ``runtime_mean_s``, ``fastest_thread``,
        ``slowest_thread``; per level ``<level>_gbs`` (GB/s, sums) and
        ``<level>_metric``.
    """
    n = len(selected.points)
    rows, point = selected.member_rows()
    out: dict[str, object] = {}
    uops = uop_metrics(sums.metrics)
    for kind in ("scalar", "packed"):
        name = uops.get(kind)
        values = sums.sums(name)[rows] if name else np.full(len(rows), np.nan)
        out[f"{kind}_uops"] = _point_sum(values * 1000.0 * parse_unit(name).to_giga
                                         if name else values, point, n)
        out[f"{kind}_metric"] = name or ""
    one_row = np.zeros(n, dtype=np.intp)
    one_row[point] = rows  # a row of each point: all of a point's rows are of one run
    run_facts = _run_facts(sums, one_row) if n else {k: np.zeros(0) for k in
                                                   ("nominal_mhz", "nominal_from", "simd_bits",
                                                    "simd_name")}
    out["simd_bits"], out["simd_name"] = run_facts["simd_bits"], run_facts["simd_name"]
    out.update(_thread_facts(_row_thread_stats(sums), rows, point, n))
    out["nominal_mhz"], out["nominal_from"] = run_facts["nominal_mhz"], run_facts["nominal_from"]
    levels = level_metrics(sums.bandwidth_metrics)
    for level in LEVELS:
        name = levels.get(level)
        values = (sums.sums(name)[rows] * parse_unit(name).to_giga if name
                  else np.full(len(rows), np.nan))
        out[f"{level}_gbs"] = _point_sum(values, point, n)
        out[f"{level}_metric"] = name or ""
    return pd.DataFrame({name: out[name] for name in FACT_COLUMNS}, index=range(n))


def _thread_facts(stats: pd.DataFrame, rows: np.ndarray, point: np.ndarray,
                  n: int) -> dict[str, np.ndarray]:
    """The runtime and clock columns of :func:`point_facts` from the rows' thread statistics."""
    def column(name: str) -> np.ndarray:
        if name not in stats or not len(rows):
            return np.full(len(rows), np.nan)
        return pd.to_numeric(stats[name], errors="coerce").to_numpy(dtype=float)[rows]

    def labels(name: str) -> np.ndarray:
        if name not in stats or not len(rows):
            return np.full(len(rows), "", dtype=object)
        return stats[name].fillna("").astype(str).to_numpy(dtype=object)[rows]

    runtime_sum, count = _point_sum(column("runtime_sum"), point, n), _point_sum(
        column("runtime_count"), point, n)
    clock_sum, clock_count = _point_sum(column("clock_sum"), point, n), _point_sum(
        column("clock_count"), point, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "clock_mhz": np.where(clock_count > 0, clock_sum / clock_count, np.nan),
            "clock_min_mhz": _point_extreme(column("clock_min"), point, n, np.fmin),
            "clock_max_mhz": _point_extreme(column("clock_max"), point, n, np.fmax),
            "timed_threads": np.nan_to_num(count).astype(np.int64),
            "runtime_min_s": _point_extreme(column("runtime_min"), point, n, np.fmin),
            "runtime_max_s": _point_extreme(column("runtime_max"), point, n, np.fmax),
            "runtime_mean_s": np.where(count > 0, runtime_sum / count, np.nan),
            "fastest_thread": _point_label(column("runtime_min"), labels("fastest"), point, n,
                                           largest=False),
            "slowest_thread": _point_label(column("runtime_max"), labels("slowest"), point, n,
                                           largest=True),
        }
