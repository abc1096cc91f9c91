"""Integer codes of key columns: the sums engines group, label and look up with them, not with texts.

A run's table has tens of thousands of rows but few distinct regions, devices,
groups and hosts.  Sorting or hashing the texts of every row (``np.unique`` of
strings, ``pd.Categorical`` of an object array) costs far more than the sums
themselves; these helpers work on each column's integer codes and turn only
the distinct values into texts:

* :func:`column_codes`: a column's codes and the values they stand for;
* :func:`first_appearance`: per row a code of its tuple of codes, numbered in
  order of first appearance (as ``groupby(sort=False).ngroup()``);
* :func:`first_rows`: where each such code first appears;
* :func:`first_valid`: per key the first value that is not NaN (as
  ``groupby(sort=False).first()``);
* :func:`sorted_categorical`: ``pd.Categorical(values)`` built from codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["column_codes", "first_appearance", "first_rows", "first_valid",
           "sorted_categorical"]


def column_codes(column: pd.Series | pd.Categorical | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(per row the code of its value, the values): -1 for a missing value.

    A categorical column gives its own codes and categories (nothing hashed);
    any other is factorized in order of first appearance.
    """
    values = column.array if isinstance(column, pd.Series) else column
    if isinstance(values, pd.Categorical):
        return np.asarray(values.codes, dtype=np.int64), np.asarray(values.categories, dtype=object)
    codes, uniques = pd.factorize(np.asarray(values))
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def first_appearance(columns: list[np.ndarray]) -> np.ndarray:
    """Per row a code of its tuple of ``columns`` codes, numbered in order of first appearance.

    -1 for a row with a missing code (-1) in any column, as a groupby drops it.
    """
    n = len(columns[0]) if columns else 0
    missing = np.zeros(n, dtype=bool)
    for codes in columns:
        missing |= codes < 0
    kept = np.flatnonzero(~missing)
    key = np.zeros(len(kept), dtype=np.int64)
    for codes in columns:  # each step keeps key < rows: no overflow however many columns
        part = codes[kept]
        key = pd.factorize(key * (int(part.max()) + 1 if len(part) else 1) + part)[0]
    out = np.full(n, -1, dtype=np.int64)
    out[kept] = key
    return out


def first_rows(codes: np.ndarray) -> np.ndarray:
    """Where each code of :func:`first_appearance` (no -1 among them) first appears, by code."""
    if not len(codes):
        return np.zeros(0, dtype=np.intp)
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.concatenate(([True], seen[1:] > seen[:-1])))


def first_valid(values: np.ndarray, keys: np.ndarray, n_keys: int) -> np.ndarray:
    """Per key (of ``n_keys``) the first value of ``values`` (rows in order) that is not NaN.

    Parameters
    ----------
    values : numpy.ndarray
        (columns, rows), float.
    keys : numpy.ndarray
        Per row its key, 0 to ``n_keys - 1``.

    Returns
    -------
    numpy.ndarray
        (columns, n_keys): NaN where a key has no value.
    """
    out = np.full((values.shape[0], n_keys), np.nan)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    for column, row in zip(values, out):
        ordered = column[order]
        valid = np.flatnonzero(~np.isnan(ordered))
        valid_keys = sorted_keys[valid]
        first = np.concatenate(([True], valid_keys[1:] != valid_keys[:-1])) if len(valid) else valid
        row[valid_keys[first]] = ordered[valid[first]]
    return out


def sorted_categorical(codes: np.ndarray, values: np.ndarray) -> pd.Categorical:
    """``pd.Categorical(values[codes])`` (the values present as sorted categories), from codes.

    Only the distinct values present are turned into a categorical (and
    sorted); no text is built per row.  ``codes`` has no -1.
    """
    present = np.zeros(len(values), dtype=bool)
    present[codes] = True
    kinds = pd.Categorical(np.asarray(values, dtype=object)[present])
    remap = np.zeros(len(values), dtype=np.int64)
    remap[present] = kinds.codes
    return pd.Categorical.from_codes(remap[codes], dtype=kinds.dtype)
