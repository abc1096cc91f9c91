"""Roofline ceilings: compute and bandwidth roofs, ridge points, attainable performance.

A roofline has one or more *compute roofs* (horizontal lines in GFLOP/s:
scalar, AVX2, AVX-512 FMA peaks) and one or more *bandwidth roofs* (slopes in
GB/s: L1, L2, L3, DRAM).  The attainable performance at arithmetic intensity
``I`` is ``min(P, B * I)`` for the top compute roof ``P`` and the top
bandwidth roof ``B``; the ridge point ``P / B`` separates memory-bound from
compute-bound intensities.

Every roof records where its number came from (``source``): ``"user"``,
``"spec sheet"``, ``"likwid-bench <kernel>, <n> threads"`` or
``"empirical"`` -- the largest observation of the plotted data, useful to
compare regions but never a machine limit, and labelled as such everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from roofline_widget import schema

__all__ = ["EMPIRICAL", "PEAK_LIMITS", "USER", "BandwidthRoof", "ComputeRoof", "Roofline",
           "check_peak"]

EMPIRICAL = "empirical"
USER = "user"
#: Relative tolerance above which a point counts as above the roof.
ROOF_TOLERANCE = 1e-9
#: The range of a peak a user gives, in GFLOP/s or GB/s (1 kFLOP/s to 1 ZFLOP/s): every ridge
#: point and axis limit of two such peaks is a finite number.
PEAK_LIMITS = (1e-6, 1e9)


def _positive_finite(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a positive finite number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a positive finite number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{what} must be a positive finite number, got {value!r}")
    return number


def check_peak(value, what: str) -> float:
    """A user's peak or ceiling value as a float within :data:`PEAK_LIMITS`.

    Raises
    ------
    ValueError
        Naming ``what`` for anything but a number in that range.
    """
    number = _positive_finite(value, what)
    low, high = PEAK_LIMITS
    if not low <= number <= high:
        raise ValueError(f"{what} must be between {low:g} and {high:g}, got {value!r}")
    return number


def _check_text(value, what: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")


class _Roof:
    """What compute and bandwidth roofs share: validation, provenance, label."""

    _field = ""
    unit = ""
    kind = ""

    def __post_init__(self):
        _check_text(self.name, "roof name")
        _check_text(self.source, "roof source")
        value = _positive_finite(getattr(self, self._field), f"{self.kind} roof {self.name!r}")
        object.__setattr__(self, self._field, value)

    @property
    def value(self) -> float:
        """The ceiling, in :attr:`unit`."""
        return getattr(self, self._field)

    @property
    def empirical(self) -> bool:
        """Whether the roof is the largest observation rather than a machine limit."""
        return self.source == EMPIRICAL

    @property
    def label(self) -> str:
        """``"DRAM: 140 GB/s (likwid-bench triad, 64 threads)"``."""
        return f"{self.name}: {self.value:.4g} {self.unit} ({self.source})"


@dataclass(frozen=True)
class ComputeRoof(_Roof):
    """A horizontal compute ceiling.

    Parameters
    ----------
    name : str
        Label (``"AVX-512 FMA peak"``).
    gflops : float
        The ceiling in GFLOP/s; positive and finite.
    source : str
        Provenance: ``"user"``, ``"spec sheet"``, ``"likwid-bench <kernel>,
        <n> threads"`` or ``"empirical"``.
    provenance : dict, optional
        Where the number came from in detail (file, kernel, threads, precision, ISA).

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``gflops`` or an empty name/source.
    """

    name: str
    gflops: float
    source: str = USER
    #: Where the number came from in detail (file, kernel, threads, precision, ISA).
    provenance: dict | None = field(default=None, compare=False, repr=False)
    _field = "gflops"
    unit = "GFLOP/s"
    kind = "compute"


@dataclass(frozen=True)
class BandwidthRoof(_Roof):
    """A sloped bandwidth ceiling.

    Parameters
    ----------
    name : str
        Label (``"DRAM"``, ``"L3"``).
    gbs : float
        The bandwidth in GB/s (1e9 bytes per second); positive and finite.
    source : str
        Provenance, as for :class:`ComputeRoof`.
    level : str, optional
        The memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``) the roof bounds.
    provenance : dict, optional
        Where the number came from in detail (file, kernel, threads, how the level was decided).

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``gbs`` or an empty name/source.
    """

    name: str
    gbs: float
    source: str = USER
    #: The memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"MEM"``) the roof bounds, None if not known.
    level: str | None = None
    #: Where the number came from in detail (file, kernel, threads, how the level was decided);
    #: see :func:`roofline_widget.analysis.machine.machine_roofline`.
    provenance: dict | None = field(default=None, compare=False, repr=False)
    _field = "gbs"
    unit = "GB/s"
    kind = "bandwidth"


def _find(roofs, wanted, kind):
    if wanted is None:
        return roofs[0]
    if isinstance(wanted, (ComputeRoof, BandwidthRoof)):
        return wanted
    for roof in roofs:
        if roof.name == wanted:
            return roof
    raise ValueError(f"no {kind} roof named {wanted!r}; roofs: {[r.name for r in roofs]}")


class Roofline:
    """A set of compute and bandwidth roofs.

    Parameters
    ----------
    compute : sequence of ComputeRoof
        At least one; stored highest first.
    bandwidth : sequence of BandwidthRoof
        At least one; stored highest first.

    Attributes
    ----------
    compute, bandwidth : tuple
        The roofs, highest first.
    peak_flops : float
        The top compute roof (GFLOP/s).
    peak_bandwidth : float
        The top bandwidth roof (GB/s).
    empirical, empirical_flops, empirical_bandwidth : bool
        Whether any roof (any compute roof, any bandwidth roof) is empirical.

    Examples
    --------
    >>> roof = Roofline([ComputeRoof("peak", 100.0)], [BandwidthRoof("DRAM", 20.0)])
    >>> roof.ridge_point()
    5.0
    >>> roof.attainable([1.0, 10.0]).tolist()
    [20.0, 100.0]
    """

    def __init__(self, compute: Sequence[ComputeRoof], bandwidth: Sequence[BandwidthRoof]):
        compute, bandwidth = tuple(compute), tuple(bandwidth)
        if not compute or not all(isinstance(r, ComputeRoof) for r in compute):
            raise ValueError("a Roofline needs at least one ComputeRoof (and only ComputeRoofs)")
        if not bandwidth or not all(isinstance(r, BandwidthRoof) for r in bandwidth):
            raise ValueError("a Roofline needs at least one BandwidthRoof (and only BandwidthRoofs)")
        self.compute = tuple(sorted(compute, key=lambda r: -r.gflops))
        self.bandwidth = tuple(sorted(bandwidth, key=lambda r: -r.gbs))

    @classmethod
    def from_peaks(cls, peak_flops, peak_bandwidth, points: pd.DataFrame | None = None) -> Roofline:
        """One compute and one bandwidth roof, empirical where a peak is None.

        Parameters
        ----------
        peak_flops : float or None
            Measured peak in GFLOP/s; None: the largest ``performance_gflops``
            of ``points`` (an *empirical* roof).
        peak_bandwidth : float or None
            Measured peak in GB/s; None: the largest ``bandwidth_gbs``.
        points : pandas.DataFrame, optional
            The selected points (needed when a peak is None).

        Raises
        ------
        ValueError
            For non-positive or non-finite peaks, or a missing peak without
            points to take it from.
        """
        if peak_flops is None:
            compute = ComputeRoof("Empirical peak", _observed_max(points, schema.PERFORMANCE),
                                  EMPIRICAL)
        else:
            compute = ComputeRoof("Peak", check_peak(peak_flops, "peak_flops (GFLOP/s)"))
        if peak_bandwidth is None:
            bandwidth = BandwidthRoof("Empirical bandwidth", _observed_max(points, schema.BANDWIDTH),
                                      EMPIRICAL)
        else:
            bandwidth = BandwidthRoof("Peak bandwidth",
                                      check_peak(peak_bandwidth, "peak_bandwidth (GB/s)"))
        return cls([compute], [bandwidth])

    @classmethod
    def from_ceilings(cls, ceilings: Roofline | Sequence[ComputeRoof | BandwidthRoof] | None,
                      peak_flops=None, peak_bandwidth=None,
                      points: pd.DataFrame | None = None) -> Roofline:
        """The roofs of a plot: ``ceilings`` with the peaks as their top roofs.

        Parameters
        ----------
        ceilings : Roofline, sequence of ComputeRoof / BandwidthRoof, or None
            The roofs (a Roofline or the list ``RooflineWidget(ceilings=)``
            takes).  A kind the sequence lacks (no compute roof, say) comes
            from the peak or, without one, from ``points`` (empirical), as
            :meth:`from_peaks`.
        peak_flops, peak_bandwidth : float or None
            Replace the top roof of their kind (:meth:`with_peaks`).
        points : pandas.DataFrame, optional
            The selected points, for the empirical roofs.

        Raises
        ------
        TypeError
            For an item that is no roof.
        ValueError
            As :meth:`from_peaks`.
        """
        if ceilings is None:
            return cls.from_peaks(peak_flops, peak_bandwidth, points)
        roofs = list(ceilings)  # a Roofline iterates over its roofs
        bad = [roof for roof in roofs if not isinstance(roof, (ComputeRoof, BandwidthRoof))]
        if bad:
            raise TypeError(f"ceilings must be a Roofline or ComputeRoof/BandwidthRoof objects, "
                            f"got {bad[0]!r:.80}")
        compute = [roof for roof in roofs if isinstance(roof, ComputeRoof)]
        bandwidth = [roof for roof in roofs if isinstance(roof, BandwidthRoof)]
        if not compute or not bandwidth:
            main = cls.from_peaks(peak_flops, peak_bandwidth, points)
            if not compute:
                compute, peak_flops = list(main.compute), None
            if not bandwidth:
                bandwidth, peak_bandwidth = list(main.bandwidth), None
        return cls(compute, bandwidth).with_peaks(peak_flops, peak_bandwidth)

    # ------------------------------------------------------------ properties
    @property
    def peak_flops(self) -> float:
        return self.compute[0].gflops

    @property
    def peak_bandwidth(self) -> float:
        return self.bandwidth[0].gbs

    @property
    def empirical_flops(self) -> bool:
        return any(r.empirical for r in self.compute)

    @property
    def empirical_bandwidth(self) -> bool:
        return any(r.empirical for r in self.bandwidth)

    @property
    def empirical(self) -> bool:
        return self.empirical_flops or self.empirical_bandwidth

    def __iter__(self):
        """The compute roofs, then the bandwidth roofs: a Roofline is a sequence of roofs
        wherever one is accepted (``RooflineWidget(ceilings=...)``)."""
        return iter(self.compute + self.bandwidth)

    def __repr__(self) -> str:
        return (f"Roofline(compute={[r.label for r in self.compute]}, "
                f"bandwidth={[r.label for r in self.bandwidth]})")

    def _repr_html_(self) -> str:
        """The ceilings table (a notebook shows it): each roof's label, level, provenance in full."""
        from roofline_widget.look.ceiling_lines import ceiling_rows, ceilings_table_html

        return ceilings_table_html(ceiling_rows(self))

    # ------------------------------------------------------------ model
    def ridge_point(self, bandwidth=None, compute=None) -> float:
        """Intensity (FLOP/byte) where a bandwidth slope meets a compute roof.

        Parameters
        ----------
        bandwidth : BandwidthRoof or str, optional
            The slope (or its name); the top one by default.
        compute : ComputeRoof or str, optional
            The roof (or its name); the top one by default.
        """
        slope = _find(self.bandwidth, bandwidth, "bandwidth")
        roof = _find(self.compute, compute, "compute")
        return roof.gflops / slope.gbs

    def attainable(self, intensity) -> np.ndarray:
        """``min(top compute, top bandwidth * intensity)`` in GFLOP/s, element-wise."""
        intensity = np.asarray(intensity, dtype=float)
        return np.minimum(self.peak_flops, self.peak_bandwidth * intensity)

    def efficiency(self, intensity, performance) -> np.ndarray:
        """Performance as percent of the attainable performance at that intensity."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * np.asarray(performance, dtype=float) / self.attainable(intensity)

    def bound(self, intensity) -> np.ndarray:
        """``"memory"`` left of the ridge point, ``"compute"`` from it on (``"n/a"`` for NaN)."""
        intensity = np.asarray(intensity, dtype=float)
        labels = np.where(intensity < self.ridge_point(), "memory", "compute").astype(object)
        labels[~np.isfinite(intensity)] = "n/a"
        return labels

    def classify(self, points: pd.DataFrame) -> pd.DataFrame:
        """Add ``attainable_gflops, efficiency_percent, bound, above_roof`` to points.

        ``above_roof`` flags points whose performance exceeds the attainable
        performance (by more than a relative 1e-9): a roof set too low, or a
        FLOP metric that does not match the peak.  Only those points can have
        an efficiency above 100 %.
        """
        intensity = points[schema.INTENSITY].to_numpy(dtype=float)
        performance = points[schema.PERFORMANCE].to_numpy(dtype=float)
        attainable = self.attainable(intensity)
        out = points.copy()
        out["attainable_gflops"] = attainable
        out["efficiency_percent"] = self.efficiency(intensity, performance)
        out["bound"] = self.bound(intensity)
        out["above_roof"] = performance > attainable * (1.0 + ROOF_TOLERANCE)
        return out

    # ------------------------------------------------------------ drawing
    def lines(self, x_min, x_max) -> list[dict]:
        """Drawable segments between intensities ``x_min`` and ``x_max``.

        Each bandwidth slope runs from ``x_min`` up to its ridge with the top
        compute roof, each compute roof from its ridge with the top
        bandwidth slope to ``x_max`` (both clipped to the range).  The last
        entry, ``kind == "roof"``, is the main roofline polyline, which
        passes exactly through the ridge point.

        Returns
        -------
        list of dict
            ``{"name", "kind" ("bandwidth" | "compute" | "roof"), "value"
            (GB/s, GFLOP/s, or the ridge intensity for the roof), "source",
            "label", "empirical", "x", "y"}``.
        """
        x_min = _positive_finite(x_min, "x_min")
        x_max = _positive_finite(x_max, "x_max")
        if x_max <= x_min:
            raise ValueError(f"x_max ({x_max}) must be larger than x_min ({x_min})")
        top_compute, top_bandwidth = self.peak_flops, self.peak_bandwidth
        segments = []
        for slope in self.bandwidth:
            ridge = min(max(top_compute / slope.gbs, x_min), x_max)
            y_end = top_compute if ridge == top_compute / slope.gbs else slope.gbs * ridge
            segments.append(self._segment(slope, [x_min, ridge],
                                          [slope.gbs * x_min, y_end]))
        for roof in self.compute:
            start = min(max(roof.gflops / top_bandwidth, x_min), x_max)
            segments.append(self._segment(roof, [start, x_max], [roof.gflops] * 2))
        segments.append(self._main_roof(x_min, x_max))
        return segments

    @staticmethod
    def _segment(roof, x, y) -> dict:
        return {"name": roof.name, "kind": roof.kind, "value": roof.value, "source": roof.source,
                "label": roof.label, "empirical": roof.empirical,
                "x": [float(v) for v in x], "y": [float(v) for v in y]}

    def _main_roof(self, x_min: float, x_max: float) -> dict:
        ridge = self.ridge_point()
        x = [x_min] + ([ridge] if x_min < ridge < x_max else []) + [x_max]
        y = [float(self.attainable(v)) for v in x]
        if x_min < ridge < x_max:
            y[1] = self.peak_flops
        name = "Empirical roofline" if self.empirical else "Roofline"
        sources = sorted({self.compute[0].source, self.bandwidth[0].source})
        return {"name": name, "kind": "roof", "value": float(ridge), "source": ", ".join(sources),
                "label": f"{name} (ridge at {ridge:.4g} FLOP/byte)", "empirical": self.empirical,
                "x": [float(v) for v in x], "y": [float(v) for v in y]}

    def with_peaks(self, peak_flops=None, peak_bandwidth=None) -> Roofline:
        """A copy with the top compute and/or bandwidth roof replaced by a user value.

        The replaced roof keeps its name (``"Peak"`` if it was empirical).  If
        the new value is below another roof, that roof becomes the top one.
        """
        compute, bandwidth = list(self.compute), list(self.bandwidth)
        if peak_flops is not None:
            top = compute[0]
            compute[0] = ComputeRoof("Peak" if top.empirical else top.name,
                                     check_peak(peak_flops, "peak_flops (GFLOP/s)"), USER)
        if peak_bandwidth is not None:
            top = bandwidth[0]
            bandwidth[0] = BandwidthRoof("Peak bandwidth" if top.empirical else top.name,
                                         check_peak(peak_bandwidth, "peak_bandwidth (GB/s)"),
                                         USER, level=top.level)
        return Roofline(compute, bandwidth)

    def to_dicts(self) -> list[dict]:
        """The roofs as plain dicts (``name, kind, value, unit, source, empirical``)."""
        return [{"name": r.name, "kind": r.kind, "value": r.value, "unit": r.unit,
                 "source": r.source, "empirical": r.empirical}
                for r in self.compute + self.bandwidth]


def _observed_max(points, column: str) -> float:
    if points is None or len(points) == 0:
        raise ValueError(f"no peak given and no points to take an empirical {column} ceiling from")
    values = np.asarray(points[column], dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if values.size == 0:
        raise ValueError(f"no positive finite {column} among the points for an empirical ceiling")
    return float(values.max())
