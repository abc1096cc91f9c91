"""The roofs of a plot from what the user gave: ceilings, peaks, and empirical roofs for the rest.

Measured ceilings replace the empirical ones: a kind of roof (compute,
bandwidth) is taken from the points (their largest observation, an
*empirical* roof) only for a device that neither the ceilings nor a peak
serve.  The largest observation is taken among the plausible points only:
a rate beyond what any hardware does
(:func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`, a broken
counter) supplies no empirical roof while another point can.
:func:`completed_roofs` is the rule,
:meth:`Roofline.from_ceilings <roofline_widget.roofs.roofline.Roofline.from_ceilings>` its user.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from roofline_widget import schema
from roofline_widget.roofs.hardware_bounds import largest_plausible
from roofline_widget.roofs.judging import RoofKeys, roof_keys
from roofline_widget.roofs.roof import (
    DEVICE_NAMES,
    EMPIRICAL,
    USER,
    BandwidthRoof,
    ComputeRoof,
)
from roofline_widget.settings import check

__all__ = ["PlotRoofs", "completed_roofs", "empirical_roofs", "peak_roof", "plot_roofs",
           "replaced_peak"]


def _roof(kind: str, name: str, value: float, source: str, device: str | None,
          family: str | None = None):
    if kind == "compute":
        return ComputeRoof(name, value, source, device=device, family=family)
    return BandwidthRoof(name, value, source, device=device, family=family)


_FAMILY_NAMES = {"nvidia": "NVIDIA GPU", "amd": "AMD GPU"}


def empirical_roofs(kind: str, points: pd.DataFrame | None, keys: RoofKeys, owners: list,
                    several: bool) -> list:
    """The empirical roofs of ``kind`` for ``owners`` ((device, family) pairs, :attr:`RoofKeys.owners`),
    one each from that device's (and family's) points.

    Named ``"Empirical peak"`` / ``"Empirical bandwidth"``, or per device
    (``"GPU empirical peak"``, bounding that device only) when ``several``
    devices are plotted, per GPU family (``"AMD GPU empirical peak"``) when points
    of two GPU families are.  Each is the largest value of the device's points
    that are within the hardware bound
    (:func:`~roofline_widget.roofs.hardware_bounds.beyond_hardware`); only
    when none is, the largest of them all.

    Raises
    ------
    ValueError
        Without points, or when no point has a positive finite value.
    """
    column = schema.PERFORMANCE if kind == "compute" else schema.BANDWIDTH
    if points is None or len(points) == 0:
        raise ValueError(f"no peak given and no points to take an empirical {column} ceiling from")
    by_family = len({family for device, family in owners if device == "gpu"}) > 1
    roofs = []
    for device, family in owners:
        rows = None if device is None else keys.rows_of(
            device, family, of_family=family is not None and keys.knows_family)
        value = largest_plausible(points, column, rows)  # the flags of all points, judged once
        if value is None:
            continue
        whose = _FAMILY_NAMES.get(family or "") if by_family else None
        prefix = f"{whose or DEVICE_NAMES[device]} empirical" if several and device else "Empirical"
        name = f"{prefix} {'peak' if kind == 'compute' else 'bandwidth'}"
        roofs.append(_roof(kind, name, value, EMPIRICAL, device if several else None,
                           family if several else None))
    if not roofs:
        raise ValueError(f"no positive finite {column} among the points for an empirical ceiling")
    return roofs


def completed_roofs(kind: str, given: list, peak: float | None, points: pd.DataFrame | None,
                    keys: RoofKeys) -> tuple[list, float | None]:
    """(the roofs of ``kind``, the peak still to apply).

    The ``given`` roofs; where there are none and a ``peak`` is given, a
    ``"Peak"`` (``"Peak bandwidth"``) user roof of the plot's main device
    (the peak is then used up); empirical roofs for the devices (and GPU
    families) that no roof serves.
    """
    owners = keys.owners
    several = len(owners) > 1
    roofs = list(given)
    if not roofs and peak is not None:
        roofs = [peak_roof(kind, peak, device=keys.first()[1] if several else None)]
        peak = None
    lacking = [(d, f) for d, f in owners if not any(r.serves(d, f) for r in roofs)]
    if lacking:
        roofs += empirical_roofs(kind, points, keys, lacking, several)
    return roofs, peak


#: Per kind of roof: the name of a user's peak roof, and the setting of its value.
_PEAK_NAMES = {"compute": ("Peak", "peak_flops"), "bandwidth": ("Peak bandwidth", "peak_bandwidth")}


def replaced_peak(roof: ComputeRoof | BandwidthRoof, peak) -> ComputeRoof | BandwidthRoof | None:
    """``roof`` with the user's ``peak`` as its value (None when ``peak`` is None).

    It keeps its name (``"Peak"`` / ``"Peak bandwidth"`` for an empirical
    roof), level, device and precision; its source is the user.
    """
    if peak is None:
        return None
    name, what = _PEAK_NAMES[roof.kind]
    value = check(what, peak)
    name = name if roof.empirical else roof.name
    if isinstance(roof, ComputeRoof):
        return dataclasses.replace(roof, name=name, source=USER, provenance=None, gflops=value)
    return dataclasses.replace(roof, name=name, source=USER, provenance=None, gbs=value)


def peak_roof(kind: str, peak, *, level=None, device=None,
              precision=None) -> ComputeRoof | BandwidthRoof | None:
    """A ``"Peak"`` (``"Peak bandwidth"``) user roof bounding points of ``level``, ``device``,
    ``precision`` (None when ``peak`` is None)."""
    if peak is None:
        return None
    name, what = _PEAK_NAMES[kind]
    value = check(what, peak)
    if kind == "compute":
        return ComputeRoof(name, value, USER, device=device, precision=precision)
    return BandwidthRoof(name, value, USER, level=level, device=device)


@dataclass(frozen=True)
class PlotRoofs:
    """The roofs of a plot before its main roofs are chosen.

    Attributes
    ----------
    compute, bandwidth : list
        The roofs (given, a peak's, empirical).
    keys : RoofKeys
        The points' levels, devices and precisions.
    peak_flops, peak_bandwidth : float or None
        The peaks still to apply to the main roofs (None: none, or used up).
    """

    compute: list
    bandwidth: list
    keys: RoofKeys
    peak_flops: float | None
    peak_bandwidth: float | None


def plot_roofs(ceilings, peak_flops, peak_bandwidth, points: pd.DataFrame | None,
               peaks: str, keys: RoofKeys | None = None) -> PlotRoofs:
    """The checked arguments of :meth:`Roofline.from_ceilings
    <roofline_widget.roofs.roofline.Roofline.from_ceilings>` made into roofs (:func:`completed_roofs`);
    ``keys``: the points' :func:`~roofline_widget.roofs.judging.roof_keys`, if known.

    Raises
    ------
    TypeError
        For an item of ``ceilings`` that is no roof.
    ValueError
        For invalid peaks or ``peaks``, or a missing roof without points to take it from.
    """
    if peaks not in ("replace", "add"):
        raise ValueError(f"peaks must be 'replace' or 'add', got {peaks!r}")
    checked = {kind: check(_PEAK_NAMES[kind][1], peak)
               for kind, peak in (("compute", peak_flops), ("bandwidth", peak_bandwidth))}
    roofs = list(ceilings) if ceilings is not None else []  # a Roofline iterates its roofs
    bad = [roof for roof in roofs if not isinstance(roof, (ComputeRoof, BandwidthRoof))]
    if bad:
        raise TypeError(f"ceilings must be a Roofline or ComputeRoof/BandwidthRoof objects, "
                        f"got {bad[0]!r:.80}")
    keys = roof_keys(points) if keys is None else keys
    built, rest = {}, {}
    for kind, peak in checked.items():
        given = [r for r in roofs if r.kind == kind]
        built[kind], rest[kind] = completed_roofs(kind, given, peak, points, keys)
    return PlotRoofs(built["compute"], built["bandwidth"], keys, rest["compute"],
                     rest["bandwidth"])
