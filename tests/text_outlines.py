"""The rectangle a matplotlib text covers as drawn, turned or not: what the static label tests measure."""

from __future__ import annotations


def text_outline(text, renderer, pad: float = 0.0):
    """The rectangle a matplotlib text covers, turned as drawn (a closed ``Path``, pixels).

    A turned text's window extent is the box around its turned rectangle, mostly
    empty; this is the rectangle itself (widened by ``pad`` pixels on every
    side), turned about the text's anchor (``rotation_mode="anchor"``) or its centre.
    """
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D

    angle = text.get_rotation()
    text.set_rotation(0)
    try:
        box = text.get_window_extent(renderer)
    finally:
        text.set_rotation(angle)
    if text.get_rotation_mode() == "anchor":
        x = {"left": box.x0, "center": (box.x0 + box.x1) / 2, "right": box.x1}[text.get_ha()]
        y = {"bottom": box.y0, "baseline": box.y0, "center": (box.y0 + box.y1) / 2,
             "center_baseline": (box.y0 + box.y1) / 2, "top": box.y1}[text.get_va()]
    else:
        x, y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    x0, y0, x1, y1 = box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad
    corners = Affine2D().rotate_deg_around(x, y, angle).transform(
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)])
    return Path(corners, closed=True)
