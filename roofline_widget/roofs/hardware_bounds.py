"""Rates no hardware reaches: the bounds beyond which a point is a broken measurement, not a ceiling.

A hardware performance counter that overflowed or counted a broken event
can make LIKWID print a rate no machine reaches (a 48-bit counter reading
about 2^47 gives some 19 million GFLOP/s on one hardware thread).  Such a
point is read faithfully and stays in every table, but it must not supply
an *empirical* ceiling (:func:`~roofline_widget.roofs.plot_roofs.empirical_roofs`)
nor stretch the axes; ``sanity_check`` reports it (``beyond hardware``).

The bounds are deliberately generous: they only have to separate a broken
counter (off by many orders of magnitude) from any real measurement.

CPU, per hardware thread (:data:`MAX_CPU_GFLOPS_PER_THREAD`, :data:`MAX_CPU_GBS_PER_THREAD`)
    LIKWID sums the per-thread rates, so a point of ``n_threads`` threads may
    reach ``n_threads`` times the bound.  The widest core today retires two
    512-bit FMA instructions per cycle: 2 units x 16 SP lanes x 2 FLOP x at
    most ~6 GHz = 384 GFLOP/s SP (192 DP; 768 HP with AVX512-FP16's 32
    lanes).  LIKWID's FLOP groups count vector instructions, not matrix
    engines (AMX), so 1,000 GFLOP/s per hardware thread is above every
    precision.  Bandwidth: an L1 cache serves at most ~5 lines of 64 bytes
    per cycle (3 loads, 2 stores) = 320 B x 6 GHz ~ 2 TB/s per core; memory
    traffic is counted by uncore counters on one thread per socket, so the
    sum is per socket, and the fastest socket memory (HBM3 of an AMD MI300A)
    gives ~5.3 TB/s.  Sockets are never more than threads, so 20,000 GB/s per
    hardware thread bounds every level.
GPU, per device (:data:`MAX_GPU_GFLOPS`, :data:`MAX_GPU_GBS`)
    Tensor cores of the largest GPUs reach a few PFLOP/s (dense FP8/FP4 of
    an NVIDIA B200: ~4.5-9 PFLOP/s), their HBM ~8 TB/s and their aggregated
    L1/shared memory a few tens of TB/s: 50 PFLOP/s and 1 PB/s per GPU.

A point without ``n_threads`` (scope-profiler dicts) is not judged: the
bound scales with it.  A counter reading within :data:`COUNTER_WRAP_TOLERANCE`
of 2^47 or 2^48 (:func:`counters_near_wrap`) is what a 48-bit counter that
wrapped or broke shows: the usual cause.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema

__all__ = [
    "BOUNDS",
    "COUNTER_WRAPS",
    "COUNTER_WRAP_TOLERANCE",
    "MAX_CPU_GBS_PER_THREAD",
    "MAX_CPU_GFLOPS_PER_THREAD",
    "MAX_GPU_GBS",
    "MAX_GPU_GFLOPS",
    "RATE_COLUMNS",
    "HardwareBound",
    "beyond_hardware",
    "counters_near_wrap",
    "hardware_bound",
    "hardware_limits",
    "keep_flags",
    "largest_plausible",
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


#: The flags of the frames given to :func:`keep_flags`, by ``id``: (a weak
#: reference to the frame, {column or "either": read-only mask}).
_KEPT: dict[int, tuple[weakref.ref, dict]] = {}


def keep_flags(frame: pd.DataFrame) -> pd.DataFrame:
    """Remember :func:`beyond_hardware`'s flags of ``frame`` once worked out; returns ``frame``.

    Only for a frame that is never changed in place: the widget's points of
    one selection, which every peak change checks again (the axes, the
    empirical roofs, the status line).  The memory goes with the frame.
    """
    key = id(frame)
    entry = _KEPT.get(key)
    if entry is None or entry[0]() is not frame:
        def forget(_gone: weakref.ref) -> None:
            _KEPT.pop(key, None)

        _KEPT[key] = (weakref.ref(frame, forget), {})
    return frame


def _kept(frame: pd.DataFrame) -> dict | None:
    entry = _KEPT.get(id(frame))
    return entry[1] if entry is not None and entry[0]() is frame else None


def beyond_hardware(points: pd.DataFrame, column: str | None = None) -> np.ndarray:
    """Which points report a rate beyond what their hardware can do.

    Parameters
    ----------
    points : pandas.DataFrame
        Points with ``n_threads``, ``device`` and the rate columns
        (:func:`hardware_limits`).
    column : str, optional
        One of :data:`RATE_COLUMNS`; None: either rate.

    Returns
    -------
    numpy.ndarray
        Booleans, one per row: the rate is above :func:`hardware_limits`.
        False where the limit is NaN (no ``n_threads``) or the rate is NaN.
    """
    kept = _kept(points)
    if kept is not None and (column or "either") in kept:
        return kept[column or "either"]
    flagged = np.zeros(len(points), dtype=bool)
    for name in ((column,) if column is not None else RATE_COLUMNS):
        if name not in points.columns or not len(points):
            continue
        values = _numbers(points[name])
        with np.errstate(invalid="ignore"):
            flagged |= values > hardware_limits(points, name)
    if kept is not None:
        flagged.flags.writeable = False
        kept[column or "either"] = flagged
    return flagged


def largest_plausible(points: pd.DataFrame, column: str) -> float | None:
    """The largest positive finite ``column`` among the points within the hardware bound.

    The largest observation a roof or an axis may follow: points
    :func:`beyond_hardware` are passed over, unless no other point has a
    positive finite value (then the largest of all).  None when no point has one.
    """
    values = _numbers(points[column])
    usable = np.isfinite(values) & (values > 0)
    plausible = usable & ~beyond_hardware(points, column)
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
