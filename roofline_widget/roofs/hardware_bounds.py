"""Rates no hardware reaches: the bounds beyond which a point is a broken measurement, not a ceiling.

A hardware performance counter that overflowed or counted a broken event
can make LIKWID print a rate no machine reaches (a 48-bit counter reading
about 2^47 gives some 19 million GFLOP/s on one hardware thread).  Such a
point is read faithfully and stays in every table, but it must not supply
an *empirical* ceiling (:func:`~roofline_widget.roofs.plot_roofs.empirical_roofs`)
nor stretch the axes; ``sanity_check`` reports it (``beyond hardware``).

**Per thread, before any sum.**  A point sums its threads (an MPI run's
host point sums 72 ranks), so one broken thread among many hides in a
point's average: 1,170 GFLOP/s on one rank of a 72-rank host is 16 GFLOP/s
a thread on average.  Every point therefore carries the largest rate of the
threads it sums (``thread_max_gflops``, ``thread_max_gbs``) and the bound of
one of its hardware threads (``thread_limit_gflops``), and
:func:`beyond_hardware` flags a point when one thread is beyond it -- or,
for points without per-thread rates (scope-profiler results), when the
point's rate is beyond ``n_threads`` times the bound.

CPU FLOP rate, per hardware thread (:func:`thread_bound`)
    The most FLOP per cycle the core does (:mod:`roofline_widget.cpu_cores`:
    SP, or HP where the vector units do half precision, FMA, the widest
    width, the larger choice where parts differ; a core whose type is
    unknown: the widest core of the table, 128) times a generous clock:

    * :data:`THREAD_CLOCK_MARGIN` (1.5) x the threads' measured clock (the
      median of LIKWID's ``Clock [MHz]`` metric in the run): a rate averaged
      over a runtime cannot exceed FLOP/cycle x the average clock of the
      same time, so 1.5 covers every rounding and a clock that varied;
    * else :data:`TURBO_MARGIN` (2.5) x the printed or stated base clock:
      no part turbos beyond 2.3x its base clock (a Core i7-1260P: 2.1 to
      4.7 GHz; server parts 1.3-1.6x);
    * else, the CPU known, :data:`MAX_CORE_GHZ` (6.5 GHz, above any core sold);

    never above :data:`MAX_CPU_GFLOPS_PER_THREAD` (1,000 GFLOP/s), which is
    the bound where neither the CPU nor a clock is known.  The widest core
    today retires two 512-bit FMA instructions per cycle: 2 x 16 SP lanes x
    2 FLOP = 64 FLOP/cycle (128 with AVX512-FP16's 32 lanes); at ~6 GHz
    that is 384 (768) GFLOP/s, below 1,000.  LIKWID's FLOP groups count
    vector instructions, not matrix engines (AMX, MMA).
CPU bandwidth, per hardware thread (:data:`MAX_CPU_GBS_PER_THREAD`)
    A thread moves at most its core's L1 traffic (~5 lines of 64 bytes a
    cycle: 320 B x 6 GHz ~ 2 TB/s), and the one thread per socket that
    counts the uncore reads its socket's memory traffic: the fastest socket
    memory (HBM3 of an AMD MI300A) gives ~5.3 TB/s.  20,000 GB/s per
    hardware thread bounds every level and every socket.
GPU, per device (:data:`MAX_GPU_GFLOPS`, :data:`MAX_GPU_GBS`)
    Tensor cores of the largest GPUs reach a few PFLOP/s (dense FP8/FP4 of
    an NVIDIA B200: ~4.5-9 PFLOP/s), their HBM ~8 TB/s and their aggregated
    L1/shared memory a few tens of TB/s: 50 PFLOP/s and 1 PB/s per GPU (a
    kernel is one GPU's).
GPU FLOP rate of a GPU the data names (:func:`gpu_bound`)
    Where the datasheet table (:mod:`roofline_widget.gpu_specs`) holds the
    GPU a run names and lists the peaks of all its FP units, vector and
    matrix (the AMD Instinct entries: an MI210's largest, the MFMA FP16
    peak, is 181,000 GFLOP/s), :data:`GPU_PEAK_MARGIN` (1.5) x the largest
    peak of the entry, any precision: no kernel beats its GPU's boost-clock
    peak, and 1.5 covers a part clocked above the datasheet's boost.  The
    NVIDIA entries list no tensor-core or half-precision peak (up to 16x
    their FP32 peak): a kernel on an NVIDIA GPU keeps :data:`MAX_GPU_GFLOPS`,
    as does a GPU the table does not hold.  Bandwidth keeps
    :data:`MAX_GPU_GBS` (the table has no cache bandwidths).

A counter reading within :data:`COUNTER_WRAP_TOLERANCE` of 2^47 or 2^48
(:func:`counters_near_wrap`) is what a 48-bit counter that wrapped or broke
shows: the usual cause.
"""

from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.cpu_cores import (
    base_clock_ghz,
    find_core,
    printed_clock_ghz,
    widest_flops_per_cycle,
)
from roofline_widget.gpu_specs import find_gpu

__all__ = [
    "BOUNDS", "COUNTER_WRAPS", "COUNTER_WRAP_TOLERANCE", "GPU_PEAK_MARGIN", "MAX_CORE_GHZ",
    "MAX_CPU_GBS_PER_THREAD", "MAX_CPU_GFLOPS_PER_THREAD", "MAX_GPU_GBS", "MAX_GPU_GFLOPS",
    "RATE_COLUMNS", "THREAD_CLOCK_MARGIN", "THREAD_COLUMNS", "THREAD_LIMIT_COLUMN", "TURBO_MARGIN",
    "HardwareBound", "ThreadBound", "beyond_hardware", "counters_near_wrap", "cpu_header_terms",
    "gpu_bound", "hardware_bound", "hardware_limits", "keep_flags", "largest_plausible",
    "measured_clock_ghz", "run_thread_bound", "thread_bound", "thread_limits",
]

#: GFLOP/s no CPU hardware thread reaches in any precision (see the module docstring).
MAX_CPU_GFLOPS_PER_THREAD = 1_000.0
#: GB/s per CPU hardware thread (any cache level) or socket (memory) that no machine reaches.
MAX_CPU_GBS_PER_THREAD = 20_000.0
#: GFLOP/s no GPU reaches (50 PFLOP/s, tensor cores included).
MAX_GPU_GFLOPS = 5e7
#: GB/s no GPU reaches at any level (1 PB/s).
MAX_GPU_GBS = 1e6
#: The counter values a wrapped or broken 48-bit counter shows: 2^47 and 2^48.
COUNTER_WRAPS = (47, 48)
#: How close (relative) to 2^47 or 2^48 a counter reading must be to look wrapped.
COUNTER_WRAP_TOLERANCE = 0.01
#: The rates judged: GFLOP/s and GB/s.
RATE_COLUMNS = (schema.PERFORMANCE, schema.BANDWIDTH)
#: Per rate column, the points' column of the largest rate among the threads they sum.
THREAD_COLUMNS = {schema.PERFORMANCE: "thread_max_gflops", schema.BANDWIDTH: "thread_max_gbs"}
#: The points' column of the FLOP-rate bound of one of their hardware threads.
THREAD_LIMIT_COLUMN = "thread_limit_gflops"
#: Over the threads' measured clock (see the module docstring).
THREAD_CLOCK_MARGIN = 1.5
#: Over a printed or stated base clock: more than any part's turbo.
TURBO_MARGIN = 2.5
#: The clock bound of a known core without any clock printed, GHz.
MAX_CORE_GHZ = 6.5
#: Over the largest datasheet peak of a GPU the data names (see the module docstring).
GPU_PEAK_MARGIN = 1.5


@dataclass(frozen=True)
class HardwareBound:
    """The most one unit of a device does: above it a rate is a broken measurement.

    Attributes
    ----------
    device : str
        How the device is named in a text (``"CPU"``, ``"GPU"``).
    unit : str
        What ``n_threads`` counts for the device (``"hardware thread"``, ``"GPU"``).
    gflops, gbs : float
        The bounds per unit in GFLOP/s and GB/s.
    """

    device: str
    unit: str
    gflops: float
    gbs: float

    def limit(self, column: str) -> float:
        """The bound per unit of ``column`` (:data:`RATE_COLUMNS`)."""
        return self.gflops if column == schema.PERFORMANCE else self.gbs


#: The bound of each device; a point of no known device is judged as a CPU point (LIKWID).
BOUNDS = {
    "cpu": HardwareBound("CPU", "hardware thread", MAX_CPU_GFLOPS_PER_THREAD,
                         MAX_CPU_GBS_PER_THREAD),
    "gpu": HardwareBound("GPU", "GPU", MAX_GPU_GFLOPS, MAX_GPU_GBS),
}


def hardware_bound(device) -> HardwareBound:
    """The bound of ``device`` (``"cpu"``, ``"gpu"``; anything else: the CPU's)."""
    return BOUNDS.get(str(device), BOUNDS["cpu"])


@dataclass(frozen=True)
class ThreadBound:
    """The most GFLOP/s one hardware thread of a run's CPU can do, and how it was worked out.

    Attributes
    ----------
    gflops : float
    basis : str
        ``"64 FLOP/cycle (Intel Ice Lake SP) x 1.5 x 2.394 GHz measured clock"``.
    """

    gflops: float
    basis: str


def thread_bound(cpu_name: str | None, cpu_type: str | None, cpu_clock: str | None = None,
                 measured_ghz: float | None = None) -> ThreadBound:
    """The FLOP-rate bound of one hardware thread of a CPU (see the module docstring).

    Parameters
    ----------
    cpu_name, cpu_type, cpu_clock : str or None
        What the run printed (``cpu_clock`` the text, ``"2.59 GHz"``).
    measured_ghz : float, optional
        The threads' measured clock (median of LIKWID's ``Clock [MHz]``).

    Examples
    --------
    >>> thread_bound(None, None).gflops
    1000.0
    >>> thread_bound(None, None, measured_ghz=2.4).basis
    '128 FLOP/cycle (the widest core of the table: the CPU type is not known) x 1.5 x 2.4 GHz measured clock'
    """
    known, per_cycle, what, stated = cpu_header_terms(cpu_name, cpu_type, cpu_clock)
    if measured_ghz is not None and 0 < measured_ghz < 100:
        clock, how = THREAD_CLOCK_MARGIN * measured_ghz, (f"{THREAD_CLOCK_MARGIN:g} x "
                                                          f"{measured_ghz:.4g} GHz measured clock")
    elif stated is not None:
        clock, how = TURBO_MARGIN * stated, f"{TURBO_MARGIN:g} x {stated:.4g} GHz base clock"
    elif known:
        clock, how = MAX_CORE_GHZ, f"{MAX_CORE_GHZ:g} GHz (no clock printed)"
    else:
        return ThreadBound(MAX_CPU_GFLOPS_PER_THREAD, "neither the CPU nor its clock is known")
    bound = per_cycle * clock
    if bound >= MAX_CPU_GFLOPS_PER_THREAD:
        return ThreadBound(MAX_CPU_GFLOPS_PER_THREAD, f"at most {MAX_CPU_GFLOPS_PER_THREAD:,.0f} "
                                                      "GFLOP/s a thread")
    return ThreadBound(float(bound), f"{per_cycle:g} FLOP/cycle ({what}) x {how}")


@functools.lru_cache(maxsize=256)  # the runs of a sweep print the same header: parsed once
def cpu_header_terms(cpu_name: str | None, cpu_type: str | None,
                     cpu_clock: str | None) -> tuple[bool, float, str, float | None]:
    """What :func:`thread_bound` reads of a CPU header: (core known, FLOP/cycle, the core, the
    stated clock in GHz or None), worked out once per header (the last 256 kept)."""
    core = find_core(cpu_type, cpu_name)
    what = core.row.name if core is not None else "the widest core of the table: the CPU type is not known"
    stated = max(filter(None, (printed_clock_ghz(cpu_clock), base_clock_ghz(cpu_name))), default=None)
    return (core is not None, core.max_flops_per_cycle() if core is not None
            else widest_flops_per_cycle(), what, stated)


def gpu_bound(gpu_name: str | None) -> ThreadBound:
    """The FLOP-rate bound of one GPU, named as the data names it (see the module docstring).

    Parameters
    ----------
    gpu_name : str or None
        The device's name (``"AMD MI200 (gfx90a, 104 CUs)"``, ``"Tesla V100-SXM2-16GB"``).

    Examples
    --------
    >>> gpu_bound("AMD MI200 (gfx90a, 104 CUs)").gflops  # MI210: 1.5 x 181,000 (MFMA F16)
    271500.0
    >>> gpu_bound("Tesla V100-SXM2-16GB").gflops == MAX_GPU_GFLOPS  # no tensor-core peak listed
    True
    """
    try:
        spec = find_gpu(gpu_name) if gpu_name else None
    except ValueError:  # not in the table, or several entries match
        spec = None
    if spec is None or not spec.matrix_gflops:
        why = (f"the table lists no tensor-core peak of the {spec.name}" if spec is not None
               else "the GPU is not in the table of datasheet peaks")
        return ThreadBound(MAX_GPU_GFLOPS, f"at most {MAX_GPU_GFLOPS:,.0f} GFLOP/s a GPU ({why})")
    precision, peak = max(((p, float(spec.gflops(p) or 0.0)) for p in spec.precisions),
                          key=lambda pair: pair[1])
    return ThreadBound(GPU_PEAK_MARGIN * peak, f"{GPU_PEAK_MARGIN:g} x {peak:,.0f} GFLOP/s, the "
                                               f"{spec.name}'s {precision} peak ({spec.datasheet})")



def _numbers(column: pd.Series) -> np.ndarray:
    """``column`` as floats (NaN where it holds no number); a numeric column without a copy's cost."""
    values = column.to_numpy()
    if values.dtype.kind in "fiu":  # numpy ints and floats: no NA but NaN
        return values.astype(float, copy=False)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _device_limits(points: pd.DataFrame, column: str) -> np.ndarray:
    """Each row's device bound in ``column`` (one lookup per category of a categorical column)."""
    cpu = BOUNDS["cpu"].limit(column)
    if "device" not in points.columns:
        return np.full(len(points), cpu)
    device = points["device"]
    if isinstance(device.dtype, pd.CategoricalDtype):
        per_code = np.array([hardware_bound(name).limit(column)
                             for name in device.cat.categories] + [cpu])
        return per_code[device.array.codes]  # code -1 (missing): the last, a CPU
    return np.array([hardware_bound(name).limit(column) for name in device], dtype=float)


def hardware_limits(points: pd.DataFrame, column: str) -> np.ndarray:
    """The most each point's hardware can do in ``column``: ``n_threads`` times its device's bound.

    Parameters
    ----------
    points : pandas.DataFrame
        Points with ``n_threads`` (units: hardware threads, GPUs) and
        ``device`` (default CPU).
    column : str
        One of :data:`RATE_COLUMNS`.

    Returns
    -------
    numpy.ndarray
        One float per row; NaN without ``n_threads`` or where it is NaN or not positive.
    """
    if "n_threads" not in points.columns:
        return np.full(len(points), np.nan)
    units = _numbers(points["n_threads"])
    limits = _device_limits(points, column)
    with np.errstate(invalid="ignore"):
        return np.where(units > 0, limits * units, np.nan)


#: The flags of the frames given to :func:`keep_flags`, by ``id``: (a weak reference to
#: the frame, {column or "either": read-only mask}, None or (a weak reference to the frame
#: it is part of, its rows' positions there)).
_KEPT: dict[int, tuple[weakref.ref, dict, tuple | None]] = {}


def keep_flags(frame: pd.DataFrame, within: pd.DataFrame | None = None) -> pd.DataFrame:
    """Remember :func:`beyond_hardware`'s flags of ``frame`` once worked out; returns ``frame``.

    Only for a frame never changed in place (the widget's points of one selection, which
    every refresh and peak change checks again): each rate is judged once per frame; the
    memory goes with the frame.  ``within``: a kept frame with the default index that
    ``frame`` is a part of (``within[mask]``, its index the rows' positions there): the
    flags are taken from ``within``'s (a point's flag depends on its own row only).
    """
    key = id(frame)
    entry = _KEPT.get(key)
    if entry is None or entry[0]() is not frame:
        def forget(_gone: weakref.ref) -> None:
            _KEPT.pop(key, None)

        whole = within is not None and _kept(within) is not None and within.index.equals(
            pd.RangeIndex(len(within)))
        _KEPT[key] = (weakref.ref(frame, forget), {},
                      (weakref.ref(within), frame.index.to_numpy()) if whole else None)
    return frame


def _kept(frame: pd.DataFrame) -> dict | None:
    entry = _KEPT.get(id(frame))
    return entry[1] if entry is not None and entry[0]() is frame else None


def _column_flags(points: pd.DataFrame, column: str) -> np.ndarray:
    """:func:`beyond_hardware` of one rate column; kept (read-only) for a kept frame."""
    kept = _kept(points)
    if kept is not None and column in kept:
        return kept[column]
    part = _KEPT[id(points)][2] if kept is not None else None
    whole = part[0]() if part is not None else None
    if whole is not None and _kept(whole) is not None:
        flagged = _column_flags(whole, column)[part[1]]  # type: ignore[index]
    else:
        flagged = np.zeros(len(points), dtype=bool)
        if column in points.columns and len(points):
            with np.errstate(invalid="ignore"):
                flagged |= _numbers(points[column]) > hardware_limits(points, column)
                if THREAD_COLUMNS[column] in points.columns:
                    flagged |= (_numbers(points[THREAD_COLUMNS[column]])
                                > thread_limits(points, column))
    if kept is not None:
        flagged.flags.writeable = False
        kept[column] = flagged
    return flagged


_CLOCK_METRIC = re.compile(r"^Clock \[(MHz|GHz)\]$")


def measured_clock_ghz(table: pd.DataFrame) -> float | None:
    """The median of LIKWID's ``Clock [MHz]`` metric over a run's threads, in GHz (None: none).

    Only readings between 1 MHz and 100 GHz count (a broken clock counter
    is no clock).
    """
    for name in table.columns:
        match = _CLOCK_METRIC.match(str(name))
        if match is None:
            continue
        values = _numbers(table[name]) / (1000.0 if match[1] == "MHz" else 1.0)
        values = values[np.isfinite(values) & (values > 1e-3) & (values < 100)]
        if values.size:
            return float(np.median(values))
    return None


def run_thread_bound(run, device: str = "cpu", device_name: str | None = None) -> ThreadBound:
    """The FLOP-rate bound of one unit of a :class:`~roofline_widget.model.LikwidRun`'s ``device``.

    A CPU's (:func:`thread_bound` of its CPU header and its threads' measured
    clock), or, for ``device="gpu"``, :func:`gpu_bound` of ``device_name`` (the
    GPU a point names, ``device_name`` column; ``""``: not named).
    """
    if str(device) == "gpu":
        return gpu_bound(device_name)
    return thread_bound(run.cpu_name, run.cpu_type, run.cpu_clock, measured_clock_ghz(run.table))


def thread_limits(points: pd.DataFrame, column: str) -> np.ndarray:
    """The most one hardware thread (a GPU) of each point can do in ``column``.

    A point's FLOP rate: its ``thread_limit_gflops`` (the bound of its run's
    CPU, :func:`thread_bound`, or of its GPU, :func:`gpu_bound`) where the
    points carry it, never above its device's bound; else
    :data:`MAX_CPU_GFLOPS_PER_THREAD` or :data:`MAX_GPU_GFLOPS`.  Bandwidth:
    :data:`MAX_CPU_GBS_PER_THREAD` or :data:`MAX_GPU_GBS`.
    """
    limits = _device_limits(points, column)
    if column == schema.PERFORMANCE and THREAD_LIMIT_COLUMN in points.columns:
        given = _numbers(points[THREAD_LIMIT_COLUMN])
        with np.errstate(invalid="ignore"):
            limits = np.where(np.isfinite(given) & (given > 0), np.fmin(given, limits), limits)
    return limits


def beyond_hardware(points: pd.DataFrame, column: str | None = None) -> np.ndarray:
    """Which points report a rate beyond what their hardware can do, or sum a thread that does.

    Parameters
    ----------
    points : pandas.DataFrame
        Points with ``n_threads``, ``device`` and the rate columns
        (:func:`hardware_limits`), and where known the largest rate of their
        threads (:data:`THREAD_COLUMNS`) and the bound of one thread
        (:data:`THREAD_LIMIT_COLUMN`).
    column : str, optional
        One of :data:`RATE_COLUMNS`; None: either rate.

    Returns
    -------
    numpy.ndarray
        Booleans, one per row: a thread's rate is above :func:`thread_limits`,
        or the point's rate above :func:`hardware_limits`.  False where the
        limits are NaN (no ``n_threads``, no thread rates) or the rates are NaN.
    """
    if column is not None:
        return _column_flags(points, column)
    kept = _kept(points)
    if kept is not None and "either" in kept:
        return kept["either"]
    flagged = np.zeros(len(points), dtype=bool)
    for name in RATE_COLUMNS:
        flagged |= _column_flags(points, name)
    if kept is not None:
        flagged.flags.writeable = False
        kept["either"] = flagged
    return flagged


def largest_plausible(points: pd.DataFrame, column: str,
                      rows: np.ndarray | None = None) -> float | None:
    """The largest positive finite ``column`` among the points within the hardware bound.

    The largest observation a roof or an axis may follow: points
    :func:`beyond_hardware` in either rate are passed over as a whole (a
    broken FLOP counter makes the point's bandwidth no ceiling either),
    unless no other point has a positive finite value (then the largest of
    all).  None when no point has one.  ``rows`` (booleans): only these rows, as
    ``largest_plausible(points[rows], column)`` but with the flags of a kept frame
    (:func:`keep_flags`) worked out once for all its rows.
    """
    values = _numbers(points[column])
    usable = np.isfinite(values) & (values > 0)
    if rows is not None:
        usable &= rows
    plausible = usable & ~beyond_hardware(points)
    values = values[plausible if plausible.any() else usable]
    return float(values.max()) if values.size else None


def counters_near_wrap(readings: pd.DataFrame) -> list[tuple[str, float, int]]:
    """The counters of ``readings`` with a reading near 2^47 or 2^48 (a wrapped 48-bit counter).

    Parameters
    ----------
    readings : pandas.DataFrame
        Raw counts: one column per counter (``"EVENT:COUNTER"``), one row per
        hardware thread (:attr:`LikwidRun.events <roofline_widget.model.LikwidRun>` rows).

    Returns
    -------
    list of (str, float, int)
        (counter, its first reading within :data:`COUNTER_WRAP_TOLERANCE` of
        a power in :data:`COUNTER_WRAPS`, that power), in column order.
    """
    found = []
    for name in readings.columns:
        values = pd.to_numeric(readings[name], errors="coerce").to_numpy(dtype=float)
        for bits in COUNTER_WRAPS:
            near = np.flatnonzero(np.abs(values / 2.0 ** bits - 1.0) <= COUNTER_WRAP_TOLERANCE)
            if near.size:
                found.append((str(name), float(values[near[0]]), bits))
                break
    return found
