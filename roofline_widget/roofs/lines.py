"""The drawable lines of a roofline: each ceiling up to its ridge, and the roofline polylines.

:func:`roof_lines` is :meth:`Roofline.lines <roofline_widget.roofs.roofline.Roofline.lines>`:
every bandwidth slope runs from the left edge up to its ridge with its
device's (and family's) main compute roof, every compute roof from its ridge
with its device's main bandwidth slope to the right edge; then one ``"roof"``
polyline per other device or device family (``"GPU roofline"``, ``"AMD GPU
roofline"``) and, last, the main roofline, which passes exactly through its
ridge point.  Every segment names the ``device`` and ``family`` of its roofs,
for the renderers' colours.  :func:`empirical_words` says which of the roofs
are empirical (the main roofline's name, the figure's title).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofline_widget.roofs.roof import DEVICE_NAMES, BandwidthRoof, ComputeRoof, positive_finite

_FAMILY_NAMES = {"nvidia": "NVIDIA GPU", "amd": "AMD GPU"}

if TYPE_CHECKING:
    from roofline_widget.roofs.roofline import Roofline

__all__ = ["empirical_words", "roof_lines", "roof_segment"]


def empirical_words(flops: bool, bandwidth: bool) -> str:
    """Which ceilings are empirical (the largest observation), in words; ``""`` for none.

    A roof from the points is named empirical, a machine limit (a peak, a
    benchmark, a theoretical roof) never is: the words name only the kind
    that is empirical.

    Parameters
    ----------
    flops, bandwidth : bool
        The compute roof, the bandwidth roof is empirical.

    Examples
    --------
    >>> empirical_words(True, True), empirical_words(False, True), empirical_words(True, False)
    ('empirical ceilings', 'empirical bandwidth', 'empirical peak')
    >>> empirical_words(False, False)
    ''
    """
    if flops and bandwidth:
        return "empirical ceilings"
    return "empirical peak" if flops else "empirical bandwidth" if bandwidth else ""


def _segment(roof: ComputeRoof | BandwidthRoof, x, y) -> dict:
    return {"name": roof.name, "kind": roof.kind, "value": roof.value, "source": roof.source,
            "label": roof.label, "empirical": roof.empirical, "theoretical": roof.theoretical,
            "device": roof.device, "family": roof.family, "level": getattr(roof, "level", None),
            "x": [float(v) for v in x], "y": [float(v) for v in y]}


def roof_segment(compute: ComputeRoof, bandwidth: BandwidthRoof, x_min: float, x_max: float,
                 name: str) -> dict:
    """The polyline ``min(P, B * x)`` of two roofs, through their exact ridge point."""
    ridge = compute.gflops / bandwidth.gbs
    x = [x_min] + ([ridge] if x_min < ridge < x_max else []) + [x_max]
    y = [min(compute.gflops, bandwidth.gbs * v) for v in x]
    if x_min < ridge < x_max:
        y[1] = compute.gflops
    sources = sorted({compute.source, bandwidth.source})
    level = f"{bandwidth.level}, " if bandwidth.level else ""
    return {"name": name, "kind": "roof", "value": float(ridge), "source": ", ".join(sources),
            "label": f"{name} ({level}ridge at {ridge:.4g} FLOP/byte)",
            "empirical": compute.empirical or bandwidth.empirical,
            "theoretical": compute.theoretical, "device": compute.device or bandwidth.device,
            "family": compute.family or bandwidth.family, "level": bandwidth.level,
            "x": [float(v) for v in x], "y": [float(v) for v in y]}


def roof_lines(roofline: Roofline, x_min, x_max) -> list[dict]:
    """The segments of ``roofline`` between intensities ``x_min`` and ``x_max`` (see the module).

    Returns
    -------
    list of dict
        ``{"name", "kind" ("bandwidth" | "compute" | "roof"), "value" (GB/s,
        GFLOP/s, or the ridge intensity for a roof), "source", "label",
        "empirical", "theoretical" (a roofline: its compute roof is; drawn
        dashed), "device", "level", "x", "y"}``, both ends clipped to the range.
    """
    x_min = positive_finite(x_min, "x_min")
    x_max = positive_finite(x_max, "x_max")
    if x_max <= x_min:
        raise ValueError(f"x_max ({x_max}) must be larger than x_min ({x_min})")
    segments = []
    for slope in roofline.bandwidth:
        top = roofline.top_compute(slope.device, slope.family).gflops
        ridge = min(max(top / slope.gbs, x_min), x_max)
        y_end = top if ridge == top / slope.gbs else slope.gbs * ridge
        segments.append(_segment(slope, [x_min, ridge], [slope.gbs * x_min, y_end]))
    for roof in roofline.compute:
        bandwidth = roofline.top_bandwidth(roof.device, roof.family).gbs
        start = min(max(roof.gflops / bandwidth, x_min), x_max)
        segments.append(_segment(roof, [start, x_max], [roof.gflops] * 2))
    main = (roofline.main_compute, roofline.main_bandwidth)
    owners = _owners(roofline)
    by_family = len({family for device, family in owners if device == "gpu"}) > 1
    drawn = {main}
    for device, family in owners:
        pair = (roofline.top_compute(device, family), roofline.top_bandwidth(device, family))
        own = (device, family) in ((r.device, r.family) for r in pair)
        if pair not in drawn and own and (device, family) != (main[0].device, main[0].family):
            drawn.add(pair)
            whose = _whose(device, family, by_family)
            segments.append(roof_segment(*pair, x_min, x_max, f"{whose} roofline"))
    words = empirical_words(main[0].empirical, main[1].empirical)
    name = ("Empirical roofline" if words == "empirical ceilings"
            else f"Roofline with {words}" if words else "Roofline")
    device = main[0].device or main[1].device
    if len(owners) > 1 and device is not None:  # CPU and GPU roofs, or two GPUs': say whose
        whose = _whose(device, main[0].family or main[1].family, by_family)
        name = f"{whose} {name[0].lower()}{name[1:]}"
    segments.append(roof_segment(*main, x_min, x_max, name))
    return segments


def _owners(roofline: Roofline) -> list[tuple]:
    """The (device, family) pairs the roofs name, CPU first, in order of appearance."""
    found = dict.fromkeys((r.device, r.family) for r in roofline if r.device is not None)
    return sorted(found, key=lambda key: key[0] != "cpu")


def _whose(device: str, family: str | None, by_family: bool) -> str:
    """How a line names its roofs' owner: ``"CPU"``, ``"GPU"``, or (``by_family``: the roofs
    of two GPU families) ``"NVIDIA GPU"``, ``"AMD GPU"``."""
    if by_family and device == "gpu" and family in _FAMILY_NAMES:
        return _FAMILY_NAMES[family]
    return DEVICE_NAMES[device]
