"""Which roofs judge each point, and the verdicts: attainable performance, ridge, bound.

Every point has *keys* (:func:`roof_keys`): its memory level (a ``level``
column, else its bandwidth metric's level: a DRAM metric is ``"MEM"``), its
device and its FLOP metric's precision.  :func:`judge` looks up the roofs of
each distinct key once (:meth:`Roofline.roofs_for
<roofline_widget.ceilings.Roofline.roofs_for>`) and gives per point the
compute roof ``P`` and bandwidth roof ``B`` (NaN where none serves), so that
the attainable performance is ``min(P, B * I)`` and the ridge ``P / B``, both
of the point's own roofs.  A point without a roof of its kind is not judged:
its :attr:`Judgement.missing` text (``"no MEM roof"``) is its bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.metric_names import flops_precision, metric_level
from roofline_widget.roofs import DEVICES, ROOF_TOLERANCE

if TYPE_CHECKING:
    from roofline_widget.ceilings import Roofline

__all__ = ["Judgement", "RoofKeys", "judge", "roof_keys", "unjudged_notes"]


@dataclass(frozen=True)
class RoofKeys:
    """What picks the roofs of each point: its memory level, device and precision (None: unknown).

    Attributes
    ----------
    level, device, precision : numpy.ndarray
        One entry per point (object arrays of str or None).
    """

    level: np.ndarray
    device: np.ndarray
    precision: np.ndarray

    def first(self) -> tuple:
        """(level, device, precision) of a plot's points: the first level and precision
        given, the CPU when any point is a CPU point (None: none known)."""
        level = next((v for v in self.level if v is not None), None)
        precision = next((v for v in self.precision if v is not None), None)
        devices = [v for v in self.device if v is not None]
        device = "cpu" if "cpu" in devices else next(iter(devices), None)
        return level, device, precision

    @property
    def devices(self) -> list:
        """The devices of the points, CPU first ([None] when no point has one)."""
        found = {v for v in self.device if v is not None}
        return [d for d in DEVICES if d in found] or [None]


def _known(value) -> str | None:
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def _level_of(name: str) -> str | None:
    found = metric_level(name)
    return None if found is None else found.level


def _keys_column(points: pd.DataFrame | None, name: str, convert) -> np.ndarray:
    """``convert`` of each value of column ``name`` (once per distinct value), None if missing."""
    n = 0 if points is None else len(points)
    if points is None or name not in points:
        return np.full(n, None, dtype=object)
    values = points[name].astype(object)
    converted = {value: None if _known(value) is None else convert(str(value))
                 for value in pd.unique(values)}
    return values.map(converted).astype(object).to_numpy()


def roof_keys(points: pd.DataFrame | None) -> RoofKeys:
    """Each point's level, device and precision (see the module docstring).

    Examples
    --------
    >>> points = pd.DataFrame({"bandwidth_metric": ["Memory bandwidth [MBytes/s]"],
    ...                        "flops_metric": ["DP [MFLOP/s]"], "device": ["cpu"]})
    >>> keys = roof_keys(points)
    >>> keys.level[0], keys.device[0], keys.precision[0]
    ('MEM', 'cpu', 'DP')
    """
    if points is not None and "level" in points:
        level = _keys_column(points, "level", str)
    else:
        level = _keys_column(points, "bandwidth_metric", _level_of)
    return RoofKeys(level, _keys_column(points, "device", str),
                    _keys_column(points, "flops_metric", flops_precision))


def _missing(what: str, device) -> str:
    return f"no {what} roof" + (f" ({device})" if device is not None else "")


@dataclass(frozen=True)
class Judgement:
    """The roofs of each point.

    Attributes
    ----------
    compute, bandwidth : numpy.ndarray
        The point's compute roof (GFLOP/s) and bandwidth roof (GB/s); NaN: none.
    compute_names, bandwidth_names : numpy.ndarray
        Their names (``""``: none).
    missing : numpy.ndarray
        ``""``, or which roof the point lacks (``"no MEM roof"``, ``"no DP
        compute roof (gpu)"``).
    """

    compute: np.ndarray
    bandwidth: np.ndarray
    compute_names: np.ndarray
    bandwidth_names: np.ndarray
    missing: np.ndarray

    @property
    def ridge(self) -> np.ndarray:
        """Each point's ridge ``P / B`` (FLOP/byte; NaN without both roofs)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.compute / self.bandwidth

    def attainable(self, intensity: np.ndarray) -> np.ndarray:
        """``min(P, B * intensity)`` (GFLOP/s; NaN without a roof)."""
        return np.minimum(self.compute, self.bandwidth * intensity)

    def bound(self, intensity: np.ndarray) -> np.ndarray:
        """``"memory"`` left of the point's ridge, ``"compute"`` from it on, ``"n/a"`` for a
        NaN intensity, :attr:`missing` where a roof is missing."""
        with np.errstate(invalid="ignore"):
            labels = np.where(intensity < self.ridge, "memory", "compute").astype(object)
        labels[~np.isfinite(intensity)] = "n/a"
        lacking = self.missing != ""
        labels[lacking] = self.missing[lacking]
        return labels


    def columns(self, intensity: np.ndarray, performance: np.ndarray) -> dict:
        """The verdicts of :meth:`Roofline.classify <roofline_widget.ceilings.Roofline.classify>`
        by column name (``attainable_gflops``, ``efficiency_percent``, ...)."""
        attainable = self.attainable(intensity)
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"attainable_gflops": attainable,
                    "efficiency_percent": 100.0 * performance / attainable,
                    "bound": self.bound(intensity),
                    "above_roof": performance > attainable * (1.0 + ROOF_TOLERANCE),
                    "ridge_flops_per_byte": self.ridge,
                    "compute_roof": self.compute_names,
                    "bandwidth_roof": self.bandwidth_names}


def judge(roofline: Roofline, n: int, level=None, device=None, precision=None) -> Judgement:
    """The roofs of ``n`` points of ``level``, ``device``, ``precision`` (one value or one each)."""
    keys = [np.broadcast_to(np.asarray(v, dtype=object), (n,)) for v in (level, device, precision)]
    values = {"compute": np.full(n, np.nan), "bandwidth": np.full(n, np.nan)}
    names = {"compute": np.full(n, "", dtype=object), "bandwidth": np.full(n, "", dtype=object)}
    missing = np.full(n, "", dtype=object)
    combos = pd.DataFrame(dict(zip("ldp", keys))).groupby(
        ["l", "d", "p"], dropna=False, sort=False).indices
    for key, rows in combos.items():
        lv, dev, prec = (_known(value) for value in key)
        found = dict(zip(("compute", "bandwidth"), roofline.roofs_for(lv, dev, prec)))
        for kind, roof in found.items():
            if roof is not None:
                values[kind][rows], names[kind][rows] = roof.value, roof.name
        devices = roofline.devices  # the device named where it matters: roofs of several
        named = dev if devices and (len(devices) > 1 or dev not in devices) else None
        lacking = [] if found["bandwidth"] is not None else [_missing(lv or "bandwidth", named)]
        if found["compute"] is None:
            lacking.append(_missing(f"{prec} compute" if prec else "compute", named))
        missing[rows] = ", ".join(lacking)
    return Judgement(values["compute"], values["bandwidth"], names["compute"],
                     names["bandwidth"], missing)


def unjudged_notes(table: pd.DataFrame) -> list[str]:
    """Sentences on classified points that have no roof of their kind (``[]``: all judged).

    Examples
    --------
    >>> unjudged_notes(pd.DataFrame({"bound": ["memory", "no MEM roof", "no MEM roof"]}))
    ["2 points have no MEM roof: not judged (another level's or device's roof is not used)"]
    """
    if "bound" not in table or not len(table):
        return []
    bound = table["bound"].astype(str)
    counts = bound[bound.str.startswith("no ")].value_counts(sort=False)
    return [f"{count:,} point{'s' if count != 1 else ''} ha{'ve' if count != 1 else 's'} "
            f"{what}: not judged (another level's or device's roof is not used)"
            for what, count in counts.items()]
