"""The drawable lines of a roofline: each ceiling up to its ridge, and the roofline polylines.

:func:`roof_lines` is :meth:`Roofline.lines <roofline_widget.ceilings.Roofline.lines>`:
every bandwidth slope runs from the left edge up to its ridge with its
device's main compute roof, every compute roof from its ridge with its
device's main bandwidth slope to the right edge; then one ``"roof"``
polyline per other device (``"GPU roofline"``) and, last, the main
roofline, which passes exactly through its ridge point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofline_widget.roofs.roof import DEVICE_NAMES, BandwidthRoof, ComputeRoof, positive_finite

if TYPE_CHECKING:
    from roofline_widget.ceilings import Roofline

__all__ = ["roof_lines", "roof_segment"]


def _segment(roof: ComputeRoof | BandwidthRoof, x, y) -> dict:
    return {"name": roof.name, "kind": roof.kind, "value": roof.value, "source": roof.source,
            "label": roof.label, "empirical": roof.empirical, "theoretical": roof.theoretical,
            "device": roof.device,
            "level": getattr(roof, "level", None),
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
            "level": bandwidth.level,
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
        top = roofline.top_compute(slope.device).gflops
        ridge = min(max(top / slope.gbs, x_min), x_max)
        y_end = top if ridge == top / slope.gbs else slope.gbs * ridge
        segments.append(_segment(slope, [x_min, ridge], [slope.gbs * x_min, y_end]))
    for roof in roofline.compute:
        start = min(max(roof.gflops / roofline.top_bandwidth(roof.device).gbs, x_min), x_max)
        segments.append(_segment(roof, [start, x_max], [roof.gflops] * 2))
    main = (roofline.main_compute, roofline.main_bandwidth)
    for device in roofline.devices:
        pair = (roofline.top_compute(device), roofline.top_bandwidth(device))
        if device != main[0].device and pair != main and device in (pair[0].device,
                                                                     pair[1].device):
            segments.append(roof_segment(*pair, x_min, x_max,
                                         f"{DEVICE_NAMES[device]} roofline"))
    name = "Empirical roofline" if any(r.empirical for r in main) else "Roofline"
    device = main[0].device or main[1].device
    if len(roofline.devices) > 1 and device is not None:  # CPU and GPU roofs: say whose
        name = f"{DEVICE_NAMES[device]} {name[0].lower()}{name[1:]}"
    segments.append(roof_segment(*main, x_min, x_max, name))
    return segments
