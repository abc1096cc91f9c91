"""The roofline: the roofs of a plot, which roof judges which point, ridges, attainable performance.

A roofline has one or more *compute roofs* (horizontal lines in GFLOP/s:
scalar, AVX2, AVX-512 FMA peaks) and one or more *bandwidth roofs* (slopes in
GB/s: L1, L2, L3, DRAM), each saying what it bounds (:mod:`roofline_widget.roofs.roof`:
memory level, device, precision).  A point is judged against the roofs of
*its* level, device and precision (:meth:`Roofline.roofs_for`): a point whose
intensity is FLOP per DRAM byte against the MEM roof, an L2 point against the
L2 roof, a GPU point against the GPU's roofs, a DP point against a DP peak.
Where no roof of its kind exists the point is not judged (attainable and
efficiency NaN, bound ``"no MEM roof"``): another level's roof is never borrowed.
Its attainable performance at intensity ``I`` is ``min(P, B * I)`` for those
roofs; their ridge point ``P / B`` separates memory-bound from compute-bound
intensities, so each level has its own ridge.

One compute and one bandwidth roof are *the* roofs of a plot (``main_compute``,
``main_bandwidth``: drawn as the solid roofline, moved by the peak sliders);
the others are drawn as ceilings.  A roof a slider moves stays the main one
whatever its value (:meth:`Roofline.with_peaks`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.roofs.judging import RoofKeys, judge, judge_keys, roof_keys, unjudged_notes
from roofline_widget.roofs.lines import empirical_words, roof_lines
from roofline_widget.roofs.plot_roofs import peak_roof, plot_roofs, replaced_peak
from roofline_widget.roofs.roof import (
    DEVICES,
    ROOF_TOLERANCE,
    BandwidthRoof,
    ComputeRoof,
)

__all__ = ["JUDGED_COLUMNS", "ROOF_TOLERANCE", "BandwidthRoof",
           "ComputeRoof", "RoofKeys", "Roofline", "roof_keys", "unjudged_notes"]

#: The columns :meth:`Roofline.classify` adds to points.
JUDGED_COLUMNS = ("attainable_gflops", "efficiency_percent", "bound", "above_roof",
                  "ridge_flops_per_byte", "compute_roof", "bandwidth_roof")
Roof = ComputeRoof | BandwidthRoof


def _best(roofs: tuple, main, device, attribute: str, wanted, family=None):
    """The roof of ``roofs`` for points of ``device`` (and ``family``) whose ``attribute`` is
    ``wanted``.

    A roof serves when its device, family and attribute are the points' or None
    (any); an exact device, then an exact family, then an exact attribute, then
    the main roof, then the highest value is preferred; with ``main`` None the
    highest serving roof.  None when no roof serves.
    """
    candidates = [r for r in roofs if r.serves(device, family)
                  and (wanted is None or getattr(r, attribute) in (None, wanted))]
    if not candidates:
        return None
    if main is None:
        return max(candidates, key=lambda r: r.value)
    return min(candidates, key=lambda r: (not (device is not None and r.device == device),
                                          not (family is not None and r.family == family),
                                          not (wanted is not None
                                               and getattr(r, attribute) == wanted),
                                          r is not main, -r.value))


def _member(roofs: tuple, roof):
    return next((r for r in roofs if r is roof), None)


def _index(roofs: list, roof) -> int:
    return next(i for i, r in enumerate(roofs) if r is roof)


def _default_main(roofs: tuple):
    """The highest roof, a CPU (or any-device) one when there is one."""
    return next((r for r in roofs if r.device != "gpu"), roofs[0])


class Roofline:
    """A set of compute and bandwidth roofs.

    Parameters
    ----------
    compute : sequence of ComputeRoof
        At least one; stored highest first.
    bandwidth : sequence of BandwidthRoof
        At least one; stored highest first.
    main : (ComputeRoof, BandwidthRoof), optional
        The roofs drawn as the roofline (members of ``compute`` and
        ``bandwidth``; either may be None); default the highest of each kind
        (a CPU or any-device one when there is one).

    Attributes
    ----------
    compute, bandwidth : tuple
        The roofs, highest first.
    main_compute, main_bandwidth : ComputeRoof, BandwidthRoof
        *The* roofs: the solid roofline, the peak sliders' roofs.
    peak_flops : float
        The main compute roof (GFLOP/s).
    peak_bandwidth : float
        The main bandwidth roof (GB/s).
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

    def __init__(self, compute: Sequence[ComputeRoof], bandwidth: Sequence[BandwidthRoof], *,
                 main: tuple | None = None):
        compute, bandwidth = tuple(compute), tuple(bandwidth)
        if not compute or not all(isinstance(r, ComputeRoof) for r in compute):
            raise ValueError("a Roofline needs at least one ComputeRoof (and only ComputeRoofs)")
        if not bandwidth or not all(isinstance(r, BandwidthRoof) for r in bandwidth):
            raise ValueError("a Roofline needs at least one BandwidthRoof (and only BandwidthRoofs)")
        self.compute = tuple(sorted(compute, key=lambda r: -r.gflops))
        self.bandwidth = tuple(sorted(bandwidth, key=lambda r: -r.gbs))
        main_compute, main_bandwidth = main if main is not None else (None, None)
        self.main_compute: ComputeRoof = (_member(self.compute, main_compute)
                                          or _default_main(self.compute))
        self.main_bandwidth: BandwidthRoof = (_member(self.bandwidth, main_bandwidth)
                                              or _default_main(self.bandwidth))

    @classmethod
    def from_peaks(cls, peak_flops, peak_bandwidth, points: pd.DataFrame | None = None) -> Roofline:
        """``from_ceilings(None, peak_flops, peak_bandwidth, points)``: one compute and one
        bandwidth roof (per device), empirical (from the points) where a peak is None."""
        return cls.from_ceilings(None, peak_flops, peak_bandwidth, points)

    @classmethod
    def from_ceilings(cls, ceilings: Roofline | Sequence[Roof] | None,
                      peak_flops=None, peak_bandwidth=None,
                      points: pd.DataFrame | None = None, *, peaks: str = "replace",
                      keys: RoofKeys | None = None) -> Roofline:
        """The roofs of a plot: ``ceilings``, the peaks, and empirical roofs where nothing else is.

        Measured ceilings replace the empirical ones: a roof is taken from the
        points (the largest observation, *empirical*) only for a kind (compute,
        bandwidth) and device that neither ``ceilings`` nor a peak give.  The
        main roofs are those of the points' level, device and precision.

        Parameters
        ----------
        ceilings : Roofline, sequence of ComputeRoof / BandwidthRoof, or None
            The roofs (a Roofline or the list ``RooflineWidget(ceilings=)`` takes).
        peak_flops, peak_bandwidth : float or None
            The user's peaks.  A kind the ceilings lack gets a ``"Peak"`` roof;
            otherwise ``peaks="replace"`` replaces the main roof's value
            (:meth:`with_peaks`, ``plot_roofline``), ``peaks="add"`` adds a
            ``"Peak"`` roof of the points' level, device and precision as the
            main roof, the ceilings drawn beside it (the widget's sliders).
        points : pandas.DataFrame, optional
            The selected points, for the empirical roofs and the main roofs.
        peaks : {"replace", "add"}
        keys : RoofKeys, optional
            ``roof_keys(points)``, when the caller has it (the widget, once per selection).

        Raises
        ------
        TypeError
            For an item that is no roof.
        ValueError
            For invalid peaks, or a missing roof without points to take it from.
        """
        built = plot_roofs(ceilings, peak_flops, peak_bandwidth, points, peaks, keys)
        level, device, precision = built.keys.first()
        roofline = cls(built.compute, built.bandwidth).with_main(level, device, precision)
        if peaks == "add":
            return roofline.with_added_peaks(built.peak_flops, built.peak_bandwidth, level=level,
                                             device=device, precision=precision)
        return roofline.with_peaks(built.peak_flops, built.peak_bandwidth)

    @property
    def peak_flops(self) -> float:
        return self.main_compute.gflops

    @property
    def peak_bandwidth(self) -> float:
        return self.main_bandwidth.gbs

    @property
    def empirical_flops(self) -> bool:
        return any(r.empirical for r in self.compute)

    @property
    def empirical_bandwidth(self) -> bool:
        return any(r.empirical for r in self.bandwidth)

    @property
    def empirical(self) -> bool:
        return self.empirical_flops or self.empirical_bandwidth  # any roof

    @property
    def empirical_words(self) -> str:
        """Which ceilings are empirical, in words (:func:`~roofline_widget.roofs.lines.
        empirical_words`: ``"empirical bandwidth"``; ``""`` for none)."""
        return empirical_words(self.empirical_flops, self.empirical_bandwidth)

    @property
    def devices(self) -> list:
        """The devices the roofs name, CPU first (empty when none names one)."""
        named = {r.device for r in self}
        return [d for d in DEVICES if d in named]

    def __iter__(self) -> Iterator[Roof]:
        """The compute roofs, then the bandwidth roofs: a Roofline is a sequence of roofs
        wherever one is accepted (``RooflineWidget(ceilings=...)``)."""
        return iter(self.compute + self.bandwidth)

    def __repr__(self) -> str:
        compute, bandwidth = ([r.label for r in roofs] for roofs in (self.compute, self.bandwidth))
        return f"Roofline(compute={compute}, bandwidth={bandwidth})"

    def _repr_html_(self) -> str:
        """The ceilings table (a notebook shows it): each roof's label, what it bounds, provenance."""
        from roofline_widget.look.ceiling_lines import ceiling_rows, ceilings_table_html

        return ceilings_table_html(ceiling_rows(self))

    def roofs_for(self, level: str | None = None, device: str | None = None,
                  precision: str | None = None, family: str | None = None, *,
                  highest: bool = False) -> tuple[ComputeRoof | None, BandwidthRoof | None]:
        """The compute and bandwidth roof that judge points of a level, device and precision.

        A roof serves points whose device (and family, level, precision) it names,
        or any when it names none; the most specific serving roof is taken (the
        main roof among equals, then the highest; ``highest=True``: the highest
        serving roof, for a check of points above every roof).  None where no roof
        serves: a MEM point has no roof in a set of L2 and L3 roofs.

        Examples
        --------
        >>> roofs = Roofline([ComputeRoof("peak", 100.0)],
        ...                  [BandwidthRoof("L2", 80.0, level="L2"), BandwidthRoof("MEM", 20.0, level="MEM")])
        >>> [r.name for r in roofs.roofs_for("MEM")], roofs.roofs_for("L3")[1]
        (['peak', 'MEM'], None)
        """
        mains = (None, None) if highest else (self.main_compute, self.main_bandwidth)
        return (_best(self.compute, mains[0], device, "precision", precision, family),
                _best(self.bandwidth, mains[1], device, "level", level, family))

    def ridge_point(self, bandwidth=None, compute=None, *, level: str | None = None,
                    device: str | None = None, precision: str | None = None) -> float:
        """Intensity (FLOP/byte) where a bandwidth slope meets a compute roof.

        Parameters
        ----------
        bandwidth : BandwidthRoof or str, optional
            The slope (or its name); default the main one, or that of
            ``level``/``device`` when given.
        compute : ComputeRoof or str, optional
            The roof (or its name); default the main roof of the slope's
            device, or that of ``device``/``precision`` when given.
        level, device, precision : str, optional
            Whose roofs (:meth:`roofs_for`); NaN when there is none.
        """
        keyed = level is not None or device is not None or precision is not None
        roof, slope = self.roofs_for(level, device, precision) if keyed else (None,
                                                                             self.main_bandwidth)
        if bandwidth is not None:
            slope = _find(self.bandwidth, bandwidth, "bandwidth")
        if compute is not None:
            roof = _find(self.compute, compute, "compute")
        elif not keyed and slope is not None:
            roof = self.top_compute(slope.device)
        return float("nan") if roof is None or slope is None else roof.gflops / slope.gbs

    def top_compute(self, device: str | None = None, family: str | None = None) -> ComputeRoof:
        """The main compute roof of ``device`` (and ``family``: the one its slopes meet)."""
        found = self.roofs_for(device=device, family=family)[0]
        return self.main_compute if found is None else found

    def top_bandwidth(self, device: str | None = None, family: str | None = None) -> BandwidthRoof:
        """The main bandwidth roof of ``device`` (and ``family``: the one its compute roofs
        start from)."""
        found = self.roofs_for(level=self.main_bandwidth.level, device=device, family=family)[1]
        return self.main_bandwidth if found is None else found

    def attainable(self, intensity, *, level=None, device=None, precision=None,
                   family=None) -> np.ndarray:
        """``min(P, B * intensity)`` in GFLOP/s with each point's roofs (:meth:`roofs_for`).

        ``level``, ``device``, ``precision`` and ``family`` are one value for all points
        or one per point; NaN where a point has no roof.
        """
        intensity = np.asarray(intensity, dtype=float)
        flat = intensity.reshape(-1)
        attainable = judge(self, flat.size, level, device, precision, family).attainable(flat)
        return attainable.reshape(intensity.shape) if intensity.ndim else attainable[0]

    def efficiency(self, intensity, performance, **keys) -> np.ndarray:
        """Performance as percent of the attainable performance at that intensity (NaN: no roof)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * np.asarray(performance, dtype=float) / self.attainable(intensity, **keys)

    def bound(self, intensity, *, level=None, device=None, precision=None,
              family=None) -> np.ndarray:
        """``"memory"`` left of the point's ridge, ``"compute"`` from it on.

        ``"n/a"`` for a NaN intensity, ``"no MEM roof"`` (``"no DP compute roof
        (gpu)"``) where the point has no roof of its kind.
        """
        intensity = np.asarray(intensity, dtype=float).reshape(-1)
        return judge(self, intensity.size, level, device, precision, family).bound(intensity)

    def classify(self, points: pd.DataFrame) -> pd.DataFrame:
        """Add :data:`JUDGED_COLUMNS` to points, each judged against its own roofs.

        A point's roofs are those of its level (``level`` column, else its
        ``bandwidth_metric``'s), ``device`` (and ``device_family``) and FLOP
        metric's precision (:meth:`roofs_for`).  ``above_roof``: the performance exceeds the
        attainable one by more than a relative 1e-9 (a roof set too low, a FLOP
        metric not matching the peak); only then is the efficiency above 100 %.
        Without a roof of its kind a point has NaN attainable performance,
        efficiency and ridge, and ``bound`` names the missing roof (``"no MEM
        roof"``); ``compute_roof``/``bandwidth_roof`` name the roofs used.
        """
        judged = judge_keys(self, roof_keys(points))
        columns = judged.columns(points[schema.INTENSITY].to_numpy(dtype=float),
                                 points[schema.PERFORMANCE].to_numpy(dtype=float))
        out = points.copy()
        for name in JUDGED_COLUMNS:
            out[name] = columns[name]
        return out

    # ------------------------------------------------------------ drawing
    def lines(self, x_min, x_max) -> list[dict]:
        """Drawable segments between intensities ``x_min`` and ``x_max``: every ceiling, then
        each device's roofline, the main one last (:func:`~roofline_widget.roofs.lines.roof_lines`
        says what each dict holds)."""
        return roof_lines(self, x_min, x_max)

    def with_main(self, level: str | None = None, device: str | None = None,
                  precision: str | None = None) -> Roofline:
        """A copy whose main roofs are those judging points of ``level``, ``device``, ``precision``.

        A kind without such a roof keeps its main roof.
        """
        compute, bandwidth = self.roofs_for(level, device, precision)
        return Roofline(self.compute, self.bandwidth,
                        main=(compute or self.main_compute, bandwidth or self.main_bandwidth))

    def with_peaks(self, peak_flops=None, peak_bandwidth=None) -> Roofline:
        """A copy with the main compute and/or bandwidth roof replaced by a user value.

        The replaced roof keeps its name (``"Peak"`` if it was empirical),
        level, device and precision, and stays the main roof whatever its value.
        """
        return _with_main_roofs(self, replaced_peak(self.main_compute, peak_flops),
                                replaced_peak(self.main_bandwidth, peak_bandwidth), replace=True)

    def with_added_peaks(self, peak_flops=None, peak_bandwidth=None, *, level=None, device=None,
                         precision=None) -> Roofline:
        """A copy with a ``"Peak"`` / ``"Peak bandwidth"`` user roof added as the main roof.

        The new roofs bound points of ``level``, ``device`` and ``precision``
        (so they judge the plotted points); the other roofs stay as ceilings.
        """
        keys = {"level": level, "device": device, "precision": precision}
        return _with_main_roofs(self, peak_roof("compute", peak_flops, **keys),
                                peak_roof("bandwidth", peak_bandwidth, **keys), replace=False)

    def to_dicts(self) -> list[dict]:
        """The roofs as plain dicts (``name, kind, value, unit, source, empirical, level,
        device, precision, family``; None where the roof does not have one)."""
        return [{"name": r.name, "kind": r.kind, "value": r.value, "unit": r.unit,
                 "source": r.source, "empirical": r.empirical,
                 "level": getattr(r, "level", None), "device": r.device,
                 "precision": getattr(r, "precision", None), "family": r.family}
                for r in self.compute + self.bandwidth]


def _find(roofs, wanted, kind):
    if isinstance(wanted, (ComputeRoof, BandwidthRoof)):
        return wanted
    for roof in roofs:
        if roof.name == wanted:
            return roof
    raise ValueError(f"no {kind} roof named {wanted!r}; roofs: {[r.name for r in roofs]}")


def _with_main_roofs(roofline: Roofline, compute: Roof | None, bandwidth: Roof | None, *,
                     replace: bool) -> Roofline:
    """New main roofs (None: kept), replacing the old main ones or added beside them."""
    roofs: dict[str, list] = {"compute": list(roofline.compute),
                              "bandwidth": list(roofline.bandwidth)}
    main: dict[str, Roof] = {"compute": roofline.main_compute,
                             "bandwidth": roofline.main_bandwidth}
    for kind, new in (("compute", compute), ("bandwidth", bandwidth)):
        if new is None:
            continue
        if replace:
            roofs[kind][_index(roofs[kind], main[kind])] = new
        else:
            roofs[kind].append(new)
        main[kind] = new
    return Roofline(roofs["compute"], roofs["bandwidth"], main=(main["compute"], main["bandwidth"]))
