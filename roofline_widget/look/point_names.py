"""What names a point in legends, labels and titles: its region, or the host or socket it sums.

A run without markers has one region, ``"(whole run)"``; grouped by host or
socket (``group_ranks``) it gives one point per host, each with the same
region.  Those points differ only by their rank group, so they are named by
the group's place (``"f0702"``, ``"f0703 socket 1"``), with the region in
front where the points have several regions (``"Solve · f0702"``).  The one
rule, :func:`point_names`, gives both the colour key of a point coloured by
region and its name in every output (the widget's legend and tooltips, the
static plot's legend and labels, the SVG titles, the HTML page);
:func:`name_categories` lists every name the data can give, so that each
keeps its colour whatever is selected.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

__all__ = [
    "NAME_SEPARATOR",
    "PointNaming",
    "group_place",
    "name_categories",
    "names_kind",
    "point_names",
    "point_naming",
]

#: Between a region and a place in a point's name (``"Solve · f0702"``).
NAME_SEPARATOR = " \N{MIDDLE DOT} "
#: A socket's place (``"f0472 socket 0"``, ``"socket 1"``; ``points.rank_places`` writes them).
_SOCKET = re.compile(r"(?:^| )socket \d+$")


def group_place(rank_group: object) -> str:
    """The place a ``rank_group`` label names, ``""`` for one rank or all ranks.

    Examples
    --------
    >>> group_place("f0702 (ranks 0-71)"), group_place("f0472 socket 0 (ranks 0-23)")
    ('f0702', 'f0472 socket 0')
    >>> group_place("rank 3"), group_place("all ranks (ranks 0-3)"), group_place(None)
    ('', '', '')
    """
    if not isinstance(rank_group, str) or not rank_group.endswith(")") or " (" not in rank_group:
        return ""
    place = rank_group.rsplit(" (", 1)[0]
    return "" if place == "all ranks" else place


def _texts(column: pd.Series) -> tuple[np.ndarray, np.ndarray | None]:
    """``(texts, codes)`` of a column as ``str`` objects (``astype(str)``): of a categorical
    column without missing values the text of each category (each read once) and each row's
    code, else each row's text and None."""
    if isinstance(column.dtype, pd.CategoricalDtype) and not column.hasnans:
        texts = np.array([str(value) for value in column.cat.categories], dtype=object)
        return texts, column.cat.codes.to_numpy()
    texts = (column.astype(str).to_numpy(dtype=object) if len(column)
             else np.zeros(0, dtype=object))
    return texts, None


def _label_places(points: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The place of each distinct ``rank_group`` label (each read once, ``""`` last: no label)
    and each point's label code (-1: none)."""
    if "rank_group" not in points:
        return np.full(1, "", dtype=object), np.full(len(points), -1, dtype=np.intp)
    column = points["rank_group"]
    if isinstance(column.dtype, pd.CategoricalDtype):  # each category read once
        codes, labels = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, labels = pd.factorize(column, use_na_sentinel=False)
    places = np.full(len(labels) + 1, "", dtype=object)  # a code -1 (no label): ""
    if labels.dtype == object or isinstance(labels.dtype, pd.StringDtype):
        # only a label ending in ")" names a place: "rank 3" is looked at no further
        ends = pd.Series(labels, copy=False).str.endswith(")")
        maybe = np.flatnonzero(ends.fillna(False).to_numpy(dtype=bool))
        places[maybe] = [group_place(label) for label in labels[maybe]]
    return places, codes


def _named(points: pd.DataFrame, regions: np.ndarray, places: np.ndarray) -> tuple[np.ndarray, bool]:
    """Which points are named by their place (``places``: one each, ``""`` for none), and
    whether the region stays in front (the points have several ``regions``)."""
    placed = places != ""
    keys = [points[c].astype(str).to_numpy(dtype=object) for c in ("file", "region") if c in points]
    owner = pd.MultiIndex.from_arrays(keys).factorize()[0] if keys else np.zeros(len(points), int)
    pairs = pd.DataFrame({"owner": owner[placed], "place": places[placed]}).drop_duplicates()
    split = pairs["owner"].value_counts()
    named = placed & np.isin(owner, split.index[split.to_numpy() > 1].to_numpy())
    return named, bool(named.any()) and len(pd.unique(regions)) > 1


@dataclass(frozen=True)
class PointNaming:
    """What names each point (:func:`point_naming`), and the names drawn in order.

    Attributes
    ----------
    kind : str
        What names the points: :func:`names_kind`.
    texts : numpy.ndarray
        The points' names (object array of ``str``), or with ``codes`` the name each code
        picks (the categories of a categorical ``region`` column).
    codes : numpy.ndarray or None
        Each point's code into ``texts`` (None: ``texts`` are the names); the names are then
        built only when read (:attr:`names`).
    """

    kind: str
    texts: np.ndarray
    codes: np.ndarray | None = None

    @cached_property
    def names(self) -> np.ndarray:
        """One ``str`` per point (object array): :func:`point_names`."""
        return self.texts if self.codes is None else self.texts[self.codes]

    def __len__(self) -> int:
        return len(self.texts if self.codes is None else self.codes)

    def name_of(self, index: int) -> str:
        """Point ``index``'s name."""
        return str(self.texts[index] if self.codes is None else self.texts[self.codes[index]])

    @cached_property
    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(the distinct names in order of first appearance (``pandas.unique``), each point's
        index among them); of points named by their categorical region, worked out on its codes."""
        if self.codes is not None and len(set(self.texts)) == len(self.texts):
            inverse, first = pd.factorize(self.codes)
            return self.texts[first], inverse
        inverse, found = pd.factorize(self.names)
        return np.asarray(found, dtype=object), inverse


def point_naming(points: pd.DataFrame) -> PointNaming:
    """The names of ``points`` (:func:`point_names`) and what names them (:func:`names_kind`),
    worked out together (one pass: the widget's dots and legend share it).

    ``points`` need a ``region`` column; ``file`` and ``rank_group`` are read
    where present.  Returns a :class:`PointNaming`.
    """
    texts, codes = _texts(points["region"])
    label_places, label_codes = _label_places(points)
    if not (label_places != "").any():  # no point names a place: named by their regions
        return PointNaming("region", texts, codes)
    regions = texts if codes is None else texts[codes]
    places = label_places[label_codes]
    named, several = _named(points, regions, places)
    if not named.any():
        return PointNaming("region", regions)
    names = regions.copy()
    names[named] = ([f"{r}{NAME_SEPARATOR}{p}" for r, p in zip(regions[named], places[named])]
                    if several else places[named])
    place = "socket" if any(_SOCKET.search(str(p)) for p in pd.unique(places[named])) else "host"
    return PointNaming(f"region{NAME_SEPARATOR}{place}" if several else place, names)


def point_names(points: pd.DataFrame) -> np.ndarray:
    """Per point its name: its region, or where its region has points of several places, the place.

    Points of one run and region that sum different hosts or sockets are named
    by their place; the region stays in front (``"Solve · f0702"``) when
    ``points`` have more than one region.

    Parameters
    ----------
    points : pandas.DataFrame
        Points (``region``; ``file`` and ``rank_group`` where there are).

    Returns
    -------
    numpy.ndarray
        One ``str`` per point (object array).

    Examples
    --------
    >>> frame = pd.DataFrame({"file": ["a"] * 3, "region": ["(whole run)"] * 3,
    ...                       "rank_group": ["f1 (ranks 0-1)", "f2 (ranks 2-3)", "f3 (rank 4)"]})
    >>> point_names(frame).tolist()
    ['f1', 'f2', 'f3']
    """
    return point_naming(points).names


def names_kind(points: pd.DataFrame) -> str:
    """What :func:`point_names` names ``points`` by: ``"region"``, ``"host"``, ``"socket"``,
    or ``"region · host"`` / ``"region · socket"`` (the region in front of the place).

    A legend's title says so (``"Hosts"``, not ``"Regions"``, for a run's hosts).

    Examples
    --------
    >>> frame = pd.DataFrame({"file": ["a"] * 2, "region": ["(whole run)"] * 2,
    ...                       "rank_group": ["f1 socket 0 (ranks 0-1)", "f1 socket 1 (ranks 2-3)"]})
    >>> names_kind(frame), names_kind(frame.assign(rank_group=["f1 (rank 0)", "f2 (rank 1)"]))
    ('socket', 'host')
    >>> names_kind(frame.assign(region=["Solve", "Init"], rank_group=["f1 (rank 0)", "f2 (rank 1)"]))
    'region'
    """
    return point_naming(points).kind


def name_categories(regions: Sequence[str], places: Sequence[str]) -> list[str]:
    """Every name :func:`point_names` can give points of ``regions`` and ``places``, in colour order.

    The regions, then the places, then each region with each place.
    """
    regions = [str(region) for region in regions]
    places = [str(place) for place in places]
    return [*regions, *places,
            *(f"{region}{NAME_SEPARATOR}{place}" for region in regions for place in places)]
