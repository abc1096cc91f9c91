"""Point keys: the (file, rank, region) tuples ``RooflineWidget.selected`` holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
from traitlets import TraitError

__all__ = ["POINT_KEY", "key_index", "normalize_key", "surviving_keys", "with_keys"]

#: The columns that identify one point; ``RooflineWidget.selected`` holds such tuples.
POINT_KEY = ("file", "rank", "region")


def key_index(frame: pd.DataFrame) -> pd.MultiIndex:
    """The (file, rank, region) keys of a points frame as a MultiIndex."""
    return pd.MultiIndex.from_arrays(
        [frame["file"].astype(object).to_numpy(), frame["rank"].to_numpy(dtype=np.int64),
         frame["region"].astype(object).to_numpy()], names=POINT_KEY)


def normalize_key(key: tuple | list | dict) -> tuple:
    """``(file, rank, region)`` from a tuple/list or a dict with those keys.

    Raises
    ------
    traitlets.TraitError
        For anything else.
    """
    if isinstance(key, dict):
        try:
            key = tuple(key[name] for name in POINT_KEY)
        except KeyError as exc:
            raise TraitError(f"a selected point needs the keys {POINT_KEY}, got {key!r}") from exc
    if not isinstance(key, (tuple, list)) or len(key) != len(POINT_KEY):
        raise TraitError(f"a selected point is a (file, rank, region) tuple, got {key!r}")
    file, rank, region = key
    try:
        rank = int(rank)
    except (TypeError, ValueError):
        raise TraitError(f"the rank of a selected point must be an integer, got {rank!r}") from None
    return str(file), rank, str(region)


def surviving_keys(selected: list, points: pd.DataFrame | pd.MultiIndex) -> list:
    """The selected keys that are still among ``points`` (a points frame or its :func:`key_index`)."""
    if not selected:
        return []
    index = points if isinstance(points, pd.MultiIndex) else key_index(points)
    keep = pd.MultiIndex.from_tuples(selected).isin(index)
    return [key for key, ok in zip(selected, keep) if ok]


def with_keys(selected: list, keys: list, adding: bool) -> list:
    """The selection after a click or gesture picked ``keys``.

    Without ``adding`` the picked keys replace the selection.  With it (Ctrl,
    Shift or Cmd held) they are added, in order and once each; one picked key
    that is selected already is taken out instead (a Ctrl-click toggles).

    Examples
    --------
    >>> a, b, c = ("f", 0, "A"), ("f", 0, "B"), ("f", 0, "C")
    >>> with_keys([a], [b, c], adding=False)
    [('f', 0, 'B'), ('f', 0, 'C')]
    >>> with_keys([a, b], [b, c], adding=True)
    [('f', 0, 'A'), ('f', 0, 'B'), ('f', 0, 'C')]
    >>> with_keys([a, b], [b], adding=True)
    [('f', 0, 'A')]
    """
    if not adding:
        return list(keys)
    if len(keys) == 1 and keys[0] in selected:
        return [key for key in selected if key != keys[0]]
    return list(dict.fromkeys([*selected, *keys]))
