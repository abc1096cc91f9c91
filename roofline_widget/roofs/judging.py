"""Which roofs judge each point, and the verdicts: attainable performance, ridge, bound.

Every point has *keys* (:func:`roof_keys`): its memory level (a ``level``
column, else its bandwidth metric's level: a DRAM metric is ``"MEM"``), its
device, its device family (``device_family``: NVIDIA's or AMD's GPU) and its
FLOP metric's precision.  :func:`judge` looks up the roofs of
each distinct key once (:meth:`Roofline.roofs_for
<roofline_widget.roofs.roofline.Roofline.roofs_for>`) and gives per point the
compute roof ``P`` and bandwidth roof ``B`` (NaN where none serves), so that
the attainable performance is ``min(P, B * I)`` and the ridge ``P / B``, both
of the point's own roofs.  A point without a roof of its kind is not judged:
its :attr:`Judgement.missing` text (``"no MEM roof"``) is its bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from roofline_widget.metric_names import flops_precision, metric_level
from roofline_widget.roofs.roof import DEVICE_FAMILIES, DEVICES, ROOF_TOLERANCE

#: The point families a roof can be of besides the CPU's: a GPU vendor's.
ROOF_FAMILIES = tuple(f for f in DEVICE_FAMILIES if f != "cpu")

if TYPE_CHECKING:
    from roofline_widget.roofs.roofline import Roofline

__all__ = ["Judgement", "RoofKeys", "judge", "judge_keys", "missing_notes", "roof_keys",
           "unjudged_notes", "unjudged_points_notes"]


class RoofKeys:
    """What picks the roofs of each point: its memory level, device, precision and device
    family (None: unknown).

    Made by :func:`roof_keys` from the columns' codes: the arrays are built only when read
    (:attr:`groups` and :meth:`rows_of` work on the codes).

    Parameters
    ----------
    level, device, precision : numpy.ndarray
        One entry per point (object arrays of str or None).
    family : numpy.ndarray or None
        One entry per point (``"cpu"``, ``"nvidia"``, ``"amd"``, ``"gpu"`` or None); None:
        no point's family is known.
    """

    def __init__(self, level, device, precision, family=None) -> None:
        self._coded: dict[str, tuple[np.ndarray, np.ndarray] | None] = {
            name: None if values is None else _coded(values)
            for name, values in zip(_KEY_NAMES, (level, device, precision, family))}

    @classmethod
    def coded(cls, columns: dict) -> RoofKeys:
        """Keys given per column as ``(values, codes)``: point ``i``'s key is
        ``values[codes[i]]`` (``codes`` -1 for the last of ``values``); a column None: unknown
        (the family only)."""
        keys = cls.__new__(cls)
        keys._coded = {name: columns.get(name) for name in _KEY_NAMES}
        return keys

    def _array(self, name: str) -> np.ndarray | None:
        coded = self._coded[name]
        return None if coded is None else coded[0][coded[1]]

    @cached_property
    def level(self) -> np.ndarray:
        """Each point's memory level (object array of str or None)."""
        return self._array("level")  # type: ignore[return-value]

    @cached_property
    def device(self) -> np.ndarray:
        """Each point's device (object array of str or None)."""
        return self._array("device")  # type: ignore[return-value]

    @cached_property
    def precision(self) -> np.ndarray:
        """Each point's FLOP metric's precision (object array of str or None)."""
        return self._array("precision")  # type: ignore[return-value]

    @cached_property
    def family(self) -> np.ndarray | None:
        """Each point's device family (object array), None when no point's is known."""
        return self._array("family")

    def __len__(self) -> int:
        return len(self._coded["level"][1])  # type: ignore[index]

    def take(self, rows: np.ndarray) -> RoofKeys:
        """The keys of the points ``rows`` (indices)."""
        return RoofKeys.coded({name: None if coded is None else (coded[0], coded[1][rows])
                               for name, coded in self._coded.items()})

    def first(self) -> tuple:
        """(level, device, precision) of a plot's points: the first level and precision
        given, the CPU when any point is a CPU point (None: none known)."""
        distinct = self.groups[0]
        level = next((key[0] for key in distinct if key[0] is not None), None)
        precision = next((key[2] for key in distinct if key[2] is not None), None)
        devices = self.devices
        return level, ("cpu" if "cpu" in devices else devices[0]), precision

    @property
    def devices(self) -> list:
        """The devices of the points, CPU first ([None] when no point has one)."""
        found = {key[1] for key in self.groups[0]}
        return [d for d in DEVICES if d in found] or [None]

    @property
    def owners(self) -> list[tuple]:
        """The (device, family) pairs of the points, CPU first ([(None, None)] when no point has a
        device): the family of GPU points of a known vendor (``"nvidia"``, ``"amd"``), else None."""
        found = dict.fromkeys((key[1], key[3] if key[3] in ROOF_FAMILIES else None)
                              for key in self.groups[0] if key[1] is not None)
        owners = sorted(found, key=lambda owner: DEVICES.index(owner[0])
                        if owner[0] in DEVICES else len(DEVICES))
        return owners or [(None, None)]

    @property
    def knows_family(self) -> bool:
        """Whether the points' device families are known (:attr:`family` is not None)."""
        return self._coded["family"] is not None

    def rows_of(self, device, family=None, *, of_family: bool = False) -> np.ndarray | None:
        """Which points are of ``device`` (and with ``of_family``, of ``family``; None: unknown):
        booleans, or None when every point is (worked out once per distinct key)."""
        distinct, inverse = self.groups
        picked = np.array([key[1] == device and (not of_family or key[3] == family)
                           for key in distinct], dtype=bool)
        return None if picked.all() else picked[inverse]

    @cached_property
    def groups(self) -> tuple[list[tuple], np.ndarray]:
        """(the distinct (level, device, precision, family) keys in order of appearance, each
        point's index among them), worked out once on the columns' codes."""
        n = len(self)
        combined, size = np.zeros(n, dtype=np.int64), 1
        columns: list[tuple[np.ndarray, int | None]] = []  # values; one code or None (varied)
        for name in _KEY_NAMES:
            values, codes = self._coded[name] or (np.full(1, None, dtype=object), np.zeros(n))
            if not n or codes.min() == codes.max():  # one code for every point
                columns.append((values, int(codes[0]) if n else 0))
                continue
            if size * len(values) > 2 ** 40:  # number the combinations found so far
                combined, found = pd.factorize(combined)
                combined, size = combined.astype(np.int64), len(found)
            combined = combined * len(values) + codes.astype(np.int64) % len(values)  # -1: last
            size *= len(values)
            columns.append((values, None))
        inverse, found = (pd.factorize(combined) if size > 1
                          else (np.zeros(n, dtype=np.intp), np.zeros(min(n, 1), dtype=np.int64)))
        decoded = []
        for code in found.tolist():
            key = []
            for values, fixed in reversed(columns):
                if fixed is None:
                    code, fixed = divmod(code, len(values))
                key.append(_known(values[fixed]))
            decoded.append(tuple(reversed(key)))
        # codes of equal values (two DRAM metrics: "MEM" both) make one key
        number: dict[tuple, int] = {}
        renumbered = np.array([number.setdefault(key, len(number)) for key in decoded], dtype=np.intp)
        if len(number) < len(decoded):
            inverse = renumbered[inverse]
        return list(number), inverse


#: The columns of the keys, in the order of a key.
_KEY_NAMES = ("level", "device", "precision", "family")


def _coded(values) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct values and None, codes)`` of one key per point (None and NaN: code -1)."""
    codes, found = pd.factorize(np.asarray(values, dtype=object))
    distinct = np.full(len(found) + 1, None, dtype=object)  # the last: code -1's
    distinct[:-1] = found
    return distinct, codes


def _known(value) -> str | None:
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def _level_of(name: str) -> str | None:
    found = metric_level(name)
    return None if found is None else found.level


def _keys_column(points: pd.DataFrame | None, name: str,
                 convert) -> tuple[np.ndarray, np.ndarray]:
    """``(values, codes)``: ``convert`` of each distinct value of column ``name`` (None for
    a missing one, the last of ``values``) and each row's code; all None if no such column."""
    n = 0 if points is None else len(points)
    if points is None or name not in points:
        return np.full(1, None, dtype=object), np.zeros(n, dtype=np.intp)
    column = points[name]
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, uniques = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, uniques = pd.factorize(column.to_numpy(dtype=object))
    converted = np.empty(len(uniques) + 1, dtype=object)  # the last: a missing value's (code -1)
    converted[:-1] = [None if _known(value) is None else convert(str(value)) for value in uniques]
    return converted, codes


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
    family = (_keys_column(points, "device_family", str)
              if points is not None and "device_family" in points else None)
    return RoofKeys.coded({"level": level, "device": _keys_column(points, "device", str),
                           "precision": _keys_column(points, "flops_metric", flops_precision),
                           "family": family})


def _missing(what: str, device, family=None) -> str:
    whose = device if family in (None, device) else f"{family} {device}"
    return f"no {what} roof" + (f" ({whose})" if device is not None else "")


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


    def above(self, intensity: np.ndarray, performance: np.ndarray) -> np.ndarray:
        """Which points are above their roofs: ``performance`` beyond :meth:`attainable` by more
        than ``ROOF_TOLERANCE`` (False without a roof or a number)."""
        with np.errstate(invalid="ignore"):
            return performance > self.attainable(intensity) * (1.0 + ROOF_TOLERANCE)

    def columns(self, intensity: np.ndarray, performance: np.ndarray) -> dict:
        """The verdicts of :meth:`Roofline.classify <roofline_widget.roofs.roofline.Roofline.classify>`
        by column name (``attainable_gflops``, ``efficiency_percent``, ...)."""
        attainable = self.attainable(intensity)
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"attainable_gflops": attainable,
                    "efficiency_percent": 100.0 * performance / attainable,
                    "bound": self.bound(intensity),
                    "above_roof": self.above(intensity, performance),
                    "ridge_flops_per_byte": self.ridge,
                    "compute_roof": self.compute_names,
                    "bandwidth_roof": self.bandwidth_names}


def judge(roofline: Roofline, n: int, level=None, device=None, precision=None,
          family=None) -> Judgement:
    """The roofs of ``n`` points of ``level``, ``device``, ``precision`` and ``family`` (one
    value or one each)."""
    keys = [np.broadcast_to(np.asarray(v, dtype=object), (n,))
            for v in (level, device, precision, family)]
    return judge_keys(roofline, RoofKeys(*keys))


def _group_verdicts(roofline: Roofline, distinct: list[tuple]) -> tuple:
    """Per distinct key: compute and bandwidth roof values and names, the missing roof's text."""
    m = len(distinct)
    values = {"compute": np.full(m, np.nan), "bandwidth": np.full(m, np.nan)}
    names = {"compute": np.full(m, "", dtype=object), "bandwidth": np.full(m, "", dtype=object)}
    missing = np.full(m, "", dtype=object)
    devices = roofline.devices  # a point's device is named where it matters: roofs of several
    families = {r.family for r in roofline} - {None}
    for k, (lv, dev, prec, fam) in enumerate(distinct):
        found = dict(zip(("compute", "bandwidth"), roofline.roofs_for(lv, dev, prec, fam)))
        for kind, roof in found.items():
            if roof is not None:
                values[kind][k], names[kind][k] = roof.value, roof.name
        named = dev if devices and (len(devices) > 1 or dev not in devices) else None
        whose = fam if families else None
        lacking = ([] if found["bandwidth"] is not None
                   else [_missing(lv or "bandwidth", named, whose)])
        if found["compute"] is None:
            lacking.append(_missing(f"{prec} compute" if prec else "compute", named, whose))
        missing[k] = ", ".join(lacking)
    return values, names, missing


def judge_keys(roofline: Roofline, keys: RoofKeys) -> Judgement:
    """The roofs of the points of ``keys``, looked up once per distinct key."""
    distinct, inverse = keys.groups
    values, names, missing = _group_verdicts(roofline, distinct)
    return Judgement(values["compute"][inverse], values["bandwidth"][inverse],
                     names["compute"][inverse], names["bandwidth"][inverse], missing[inverse])


def unjudged_points_notes(roofline: Roofline, points: pd.DataFrame,
                          keys: RoofKeys | None = None) -> list[str]:
    """:func:`unjudged_notes` of ``roofline.classify(points)`` without building that table
    (the widget's status line, on every peak change); ``keys``: the points' keys, if known."""
    distinct, inverse = (keys or roof_keys(points)).groups
    missing = _group_verdicts(roofline, distinct)[2]
    counts = np.bincount(inverse, minlength=len(distinct)) if len(inverse) else np.zeros(0)
    totals: dict[str, int] = {}
    for text, count in zip(missing, counts):
        if text:
            totals[text] = totals.get(text, 0) + int(count)
    return [_note(what, count) for what, count in totals.items()]


def _note(what: str, count: int) -> str:
    return (f"{count:,} point{'s' if count != 1 else ''} ha{'ve' if count != 1 else 's'} {what}: "
            "not judged (another level's or device's roof is not used)")


def unjudged_notes(table: pd.DataFrame) -> list[str]:
    """Sentences on classified points that have no roof of their kind (``[]``: all judged).

    Examples
    --------
    >>> unjudged_notes(pd.DataFrame({"bound": ["memory", "no MEM roof", "no MEM roof"]}))
    ["2 points have no MEM roof: not judged (another level's or device's roof is not used)"]
    """
    if "bound" not in table or not len(table):
        return []
    return missing_notes(table["bound"].astype(str).to_numpy())


def missing_notes(bounds: np.ndarray) -> list[str]:
    """The sentences of :func:`unjudged_notes` from the points' ``bound`` (or
    :attr:`Judgement.missing`) values: one per kind of missing roof, with its count."""
    labels = pd.Series(bounds, dtype=object)
    counts = labels[labels.str.startswith("no ", na=False)].value_counts(sort=False)
    return [_note(what, count) for what, count in counts.items()]
