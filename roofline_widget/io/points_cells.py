"""The cells of a points table checked: numbers, integers, texts, metric names, and the rates.

:mod:`roofline_widget.io.points_table` reads a table of points through these;
each raises :class:`~roofline_widget.errors.PointsTableError` naming the
table, the line (a CSV's line, a DataFrame's row position + 2) and what was
expected there.  Column names are matched without regard to case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from roofline_widget import schema
from roofline_widget.errors import PointsTableError
from roofline_widget.io.key_codes import text_dtype
from roofline_widget.units import UnitKind, parse_unit

__all__ = [
    "COUNT_COLUMNS",
    "DEFAULT_BANDWIDTH_METRIC",
    "DEFAULT_FLOPS_METRIC",
    "NEEDED",
    "POINT_RATE_COLUMNS",
    "Rates",
    "column_named",
    "integer_cells",
    "number_cells",
    "point_rates",
    "relabeled",
    "text_cells",
]

#: The rate columns of a points table (points_dataframe's names).
POINT_RATE_COLUMNS = (schema.PERFORMANCE, schema.BANDWIDTH, schema.INTENSITY)
#: The count columns a table may give instead of rates: what -> the names it is read under.
COUNT_COLUMNS: dict[str, tuple[str, ...]] = {
    "flops": ("flops", "flop_count"),
    "bytes": ("bytes", "byte_count"),
    "runtime": (schema.RUNTIME, "runtime_s"),
}
#: The metric names of a table that names none (``flops_metric``/``bandwidth_metric`` columns).
DEFAULT_FLOPS_METRIC = "FLOP rate [GFLOP/s]"
DEFAULT_BANDWIDTH_METRIC = "Memory bandwidth [GBytes/s]"
#: What a points table needs, as the error messages say it.
NEEDED = (f"a points table: a 'region' column and '{schema.PERFORMANCE}' with "
           f"'{schema.BANDWIDTH}' (or '{schema.INTENSITY}'), or FLOP and byte counts "
           f"('flops', 'bytes') with '{schema.RUNTIME}'")


def column_named(frame: pd.DataFrame, names: Sequence[str]) -> str | None:
    """The first of ``names`` the frame has (matched without case), or None."""
    lower = {str(c).strip().lower(): c for c in frame.columns}
    return next((lower[n] for n in names if n in lower), None)


def number_cells(frame: pd.DataFrame, column: str | None, source: str, *, low: float = 0.0
             ) -> np.ndarray:
    """A numeric column (NaN where empty); an unreadable or too small value raises, naming its line."""
    if column is None:
        return np.full(len(frame), np.nan)
    raw = frame[column]
    if pd.api.types.is_numeric_dtype(raw.dtype):
        values = raw.to_numpy(dtype=float, na_value=np.nan)
        unread = np.zeros(0, dtype=np.intp)
    else:  # text (a CSV read as text): only the cells no number was read from are looked at
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        unread = np.flatnonzero(np.isnan(values) & raw.notna().to_numpy())
        texts = raw.iloc[unread].astype(str).str.strip().str.lower()
        unread = unread[~texts.isin(["", "nan", "<na>", "none"]).to_numpy()]
    with np.errstate(invalid="ignore"):
        bad = np.union1d(unread, np.flatnonzero(values < low))
    if len(bad):
        row = int(bad[0])
        raise PointsTableError(source, row + 2, f"a number of at least {low:g} in column "
                               f"{column!r}", str(raw.iloc[row]))
    return values


def text_cells(frame: pd.DataFrame, column: str | None, default: str) -> pd.Categorical:
    """A text column as a categorical of str (``default`` where missing or empty).

    The categories are in order of first appearance; each distinct cell is
    turned into text once (a column of 50,000 cells and 8 names builds 8
    strings, not 50,000).
    """
    if column is None:
        return pd.Categorical.from_codes(np.zeros(len(frame), dtype=np.int8),
                                         dtype=text_dtype((default,), as_objects=True))
    codes, uniques = pd.factorize(frame[column])
    if not all(isinstance(value, str) for value in uniques):
        # numbers (1 and 1.0 are one key to factorize, two texts): each cell as text
        values = frame[column].astype(object).to_numpy()
        codes, uniques = pd.factorize(np.array([None if v is None or v != v else str(v)
                                                for v in values], dtype=object))
    return relabeled(codes, [str(value) or default for value in uniques] + [default])


def relabeled(codes: np.ndarray, texts: list[str]) -> pd.Categorical:
    """Per row ``texts[code]`` (code -1: the last text) as a categorical, texts in order of
    first appearance (equal texts merged).

    ``codes`` are numbered in order of first appearance themselves (a factorize's).
    """
    merged, distinct = pd.factorize(np.array(texts, dtype=object))
    if len(distinct) == len(texts) and (not len(codes) or int(codes.min()) >= 0):
        # nothing merged, no default: the codes as they are, the texts used
        used = np.arange(int(codes.max()) + 1 if len(codes) else 0)
        return pd.Categorical.from_codes(codes, categories=pd.Index(distinct[used], dtype=object))
    row_codes, used = pd.factorize(merged[codes])
    return pd.Categorical.from_codes(row_codes, categories=pd.Index(distinct[used], dtype=object))


def integer_cells(frame: pd.DataFrame, column: str | None, source: str, default: int, low: int,
              high: int) -> np.ndarray:
    """An integer column from ``low`` to ``high`` (``default`` where missing)."""
    if column is None and low <= default <= high:
        return np.full(len(frame), default, dtype=np.int64)
    values = number_cells(frame, column, source, low=-np.inf)
    values = np.where(np.isnan(values), default, values)
    bad = np.flatnonzero((values != np.round(values)) | (values < low) | (values > high))
    if len(bad):
        row = int(bad[0])
        raise PointsTableError(source, row + 2, f"an integer from {low} to {high:,} in column "
                               f"{column!r}", str(frame[column].iloc[row]))
    return values.astype(np.int64)


def _metric_name(frame: pd.DataFrame, column: str | None, default: str, kind, source: str) -> str:
    """The one metric name of a ``flops_metric``/``bandwidth_metric`` column (``default`` without)."""
    names = [n for n in text_cells(frame, column, default).categories if n != default] or [default]
    if len(names) > 1:
        raise PointsTableError(source, None, f"one metric name in column {column!r} (a table "
                               "of one FLOP and one bandwidth metric)", ", ".join(names[:4]))
    if parse_unit(names[0]).kind != kind:
        raise PointsTableError(source, None, f"a {kind.replace('_', ' ')} metric name with its "
                               f"unit in column {column!r}, e.g. {default!r}", names[0])
    return names[0]


@dataclass(frozen=True)
class Rates:
    """Per point its GFLOP/s, GB/s and runtime, and the metric names the rates are given in.

    Attributes
    ----------
    performance, bandwidth, runtime : numpy.ndarray
        GFLOP/s, GB/s and seconds (NaN where not given).
    flops_metric, bandwidth_metric : str
        The metric names (``flops_metric``/``bandwidth_metric`` columns, or the defaults).
    """

    performance: np.ndarray
    bandwidth: np.ndarray
    runtime: np.ndarray
    flops_metric: str
    bandwidth_metric: str


def point_rates(frame: pd.DataFrame, source: str) -> Rates:
    """The points' rates from rate columns, or from counts and runtimes.

    Raises
    ------
    PointsTableError
        Naming the columns a table lacks, or a cell that is no number.
    """
    performance_column = column_named(frame, [schema.PERFORMANCE])
    bandwidth_column = column_named(frame, [schema.BANDWIDTH])
    intensity_column = column_named(frame, [schema.INTENSITY])
    counts = {what: column_named(frame, names) for what, names in COUNT_COLUMNS.items()}
    runtime = number_cells(frame, counts["runtime"], source)
    if performance_column is not None and (bandwidth_column or intensity_column) is not None:
        performance = number_cells(frame, performance_column, source)
        if bandwidth_column is not None:
            bandwidth = number_cells(frame, bandwidth_column, source)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                bandwidth = performance / number_cells(frame, intensity_column, source)
    elif counts["flops"] is not None and counts["bytes"] is not None \
            and counts["runtime"] is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            performance = number_cells(frame, counts["flops"], source) / runtime / 1e9
            bandwidth = number_cells(frame, counts["bytes"], source) / runtime / 1e9
    else:
        present = [str(c) for c in frame.columns][:12]
        missing = _missing(performance_column, bandwidth_column or intensity_column, counts)
        raise PointsTableError(source, 1, f"{NEEDED}; missing {missing}",
                               "columns " + ", ".join(present) if present else "no columns")
    return Rates(performance, bandwidth, runtime,
                  _metric_name(frame, column_named(frame, ["flops_metric"]), DEFAULT_FLOPS_METRIC,
                          UnitKind.FLOP_RATE, source),
                  _metric_name(frame, column_named(frame, ["bandwidth_metric"]), DEFAULT_BANDWIDTH_METRIC,
                          UnitKind.BYTE_RATE, source))


def _missing(performance: str | None, bandwidth: str | None, counts: dict) -> str:
    """What a table lacks, said against the nearer of the two ways of giving points."""
    if performance is not None or counts["flops"] is None:
        rates = [name for name, got in ((schema.PERFORMANCE, performance),
                                        (f"{schema.BANDWIDTH} (or {schema.INTENSITY})", bandwidth))
                 if got is None]
        return " and ".join(repr(n) for n in rates)
    return " and ".join(repr(names[0]) for what, names in COUNT_COLUMNS.items()
                        if counts[what] is None)
