"""Integer codes of key columns: the sums engines group, label and look up with them, not with texts.

A run's table has tens of thousands of rows but few distinct regions, devices,
groups and hosts.  Sorting or hashing the texts of every row (``np.unique`` of
strings, ``pd.Categorical`` of an object array) costs far more than the sums
themselves; these helpers work on each column's integer codes and turn only
the distinct values into texts:

* :func:`column_codes`: a column's codes and the values they stand for;
  :func:`integer_codes` those of an integer column; :func:`unique_integers` an
  integer column's distinct values, ascending, and each row's index among them;
* :func:`first_appearance`: per row a code of its tuple of codes, numbered in
  order of first appearance (as ``groupby(sort=False).ngroup()``);
* :func:`first_rows`: where each such code first appears; :func:`duplicated`
  whether a row's codes appeared before;
* :func:`first_valid`: per key the first value that is not NaN (as
  ``groupby(sort=False).first()``);
* :func:`sorted_categorical`: ``pd.Categorical(values)`` built from codes;
  :func:`text_dtype` the dtype of a few texts, made once (a constant column).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

__all__ = ["column_codes", "duplicated", "first_appearance", "first_rows", "first_valid",
           "integer_codes", "sorted_categorical", "text_dtype", "unique_integers"]


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


def _countable(span: int, n: int) -> bool:
    """Whether ``n`` integers ``span`` apart at most are worked on in a table of their span
    (at most a few times ``n``: a run's ranks, its ranks x regions) rather than sorted or
    hashed."""
    return span <= 4 * n + 1024


def integer_codes(values: np.ndarray) -> np.ndarray:
    """Codes (0 or more) of an integer column to group by: ``values - min`` where the values
    span at most a few times the rows (no hashing), else factorized."""
    values = np.asarray(values, dtype=np.int64)
    if not len(values):
        return values
    low, high = int(values.min()), int(values.max())
    if _countable(high - low, len(values)):
        return values - low
    return pd.factorize(values)[0].astype(np.int64, copy=False)


def unique_integers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of an integer column (int64): the distinct
    values ascending, and per row the index of its value among them.

    Marked in a table of the values' span where it is at most a few times the
    rows (a run's ranks), so nothing is sorted; else ``np.unique``.

    Examples
    --------
    >>> values, codes = unique_integers(np.array([7, 3, 7, 5]))
    >>> values.tolist(), codes.tolist()
    ([3, 5, 7], [2, 0, 2, 1])
    """
    values = np.asarray(values, dtype=np.int64)
    if not len(values):
        return values, np.zeros(0, dtype=np.int64)
    low, high = int(values.min()), int(values.max())
    if not _countable(high - low, len(values)):
        distinct, codes = np.unique(values, return_inverse=True)
        return distinct, np.asarray(codes, dtype=np.int64).ravel()
    present = np.zeros(high - low + 1, dtype=bool)
    present[values - low] = True
    code_of = np.cumsum(present, dtype=np.int64) - 1
    return np.flatnonzero(present) + low, code_of[values - low]


def first_appearance(columns: list[np.ndarray]) -> np.ndarray:
    """Per row a code of its tuple of ``columns`` codes, numbered in order of first appearance.

    -1 for a row with a missing code (-1) in any column, as a groupby drops it.
    The codes are combined as the digits of one integer (renumbered only
    when it would not fit in 62 bits), then numbered once: counted where the
    integers span at most a few times the rows (a run's ranks x regions),
    else factorized.
    """
    n = len(columns[0]) if columns else 0
    missing = np.zeros(n, dtype=bool)
    for codes in columns:
        missing |= codes < 0
    kept = np.flatnonzero(~missing) if missing.any() else slice(None)
    key = np.zeros(n - int(missing.sum()), dtype=np.int64)
    span = 1
    for codes in columns:
        part = codes[kept]
        size = int(part.max()) + 1 if len(part) else 1
        if size == 1:  # one value (code 0) in every kept row: no digit to add
            continue
        if span * size >= 2**62:  # renumbered: key < rows again
            key = pd.factorize(key)[0].astype(np.int64, copy=False)
            span = int(key.max()) + 1 if len(key) else 1
        key = key * size + part
        span *= size
    out = np.full(n, -1, dtype=np.int64)
    out[kept] = 0 if span == 1 else _numbered(key, span)  # one key: code 0 in every kept row
    return out


def _numbered(key: np.ndarray, span: int) -> np.ndarray:
    """``pd.factorize(key)[0]`` of keys from 0 to ``span - 1``: counted, not hashed, where the
    span is at most a few times the keys (all distinct: numbered as the rows are)."""
    n = len(key)
    if not n or not _countable(span, n):
        return pd.factorize(key)[0].astype(np.int64, copy=False)
    counts = np.bincount(key, minlength=span)
    if int(counts.max()) <= 1:  # every key once: the n-th row is the n-th key
        return np.arange(n, dtype=np.int64)
    first = np.full(span, n, dtype=np.int64)
    np.minimum.at(first, key, np.arange(n, dtype=np.int64))
    present = np.flatnonzero(counts)
    code_of_key = np.zeros(span, dtype=np.int64)
    code_of_key[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present))
    return code_of_key[key]


def duplicated(columns: list[np.ndarray]) -> np.ndarray:
    """Per row whether an earlier row has the same codes in every column (``keep="first"``);
    the columns have no missing code."""
    codes = first_appearance(columns)
    if not len(codes) or int(codes.max()) == len(codes) - 1:
        return np.zeros(len(codes), dtype=bool)  # every row a new key: numbered as the rows are
    again = np.ones(len(codes), dtype=bool)
    again[first_rows(codes)] = False
    return again


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
    sorted); no text is built per row.  ``codes`` has no -1.  The dtype of a
    set of values seen before is reused (:func:`_sorted_dtype`): the runs of a
    sweep name the same regions, and pandas' inference of the categories
    costs more than the rest of a small run's sums.
    """
    present = np.zeros(len(values), dtype=bool)
    present[codes] = True
    dtype, kept_codes = _sorted_dtype(np.asarray(values, dtype=object)[present])
    remap = np.zeros(len(values), dtype=np.int64)
    remap[present] = kept_codes
    return pd.Categorical.from_codes(remap[codes], dtype=dtype)


@functools.lru_cache(maxsize=256)
def text_dtype(texts: tuple[str, ...], as_objects: bool = False) -> pd.CategoricalDtype:
    """``pd.CategoricalDtype(list(texts))``, made once per tuple of texts.

    For the few texts of a constant or nearly constant column (a metric's
    name, the run labels, ``"thread 0"``): pandas infers and checks the
    categories of every new dtype, which costs more than the column's codes.
    ``as_objects``: the categories an ``object`` Index (not inferred as ``str``).
    """
    return pd.CategoricalDtype(pd.Index(list(texts), dtype=object) if as_objects
                               else list(texts))


#: (the values present, each with its type) -> their sorted dtype and each value's code in it.
_SORTED_DTYPES: dict[tuple, tuple[pd.CategoricalDtype, np.ndarray]] = {}
_SORTED_DTYPES_KEPT = 256


def _sorted_dtype(kept: np.ndarray) -> tuple[pd.CategoricalDtype, np.ndarray]:
    """The dtype of ``pd.Categorical(kept)`` (distinct values) and the codes of ``kept`` in it,
    worked out once per tuple of values (their types part of the key: ``1`` is not ``"1"``)."""
    listed = kept.tolist()
    key = (tuple(listed), tuple(type(value) for value in listed))
    try:
        found = _SORTED_DTYPES.get(key)
    except TypeError:  # an unhashable value: nothing kept
        return _dtype_of(kept)
    if found is None:
        found = _dtype_of(kept)
        if len(_SORTED_DTYPES) >= _SORTED_DTYPES_KEPT:
            _SORTED_DTYPES.clear()
        _SORTED_DTYPES[key] = found
    return found


def _dtype_of(kept: np.ndarray) -> tuple[pd.CategoricalDtype, np.ndarray]:
    kinds = pd.Categorical(kept)
    return kinds.dtype, np.asarray(kinds.codes, dtype=np.int64)
