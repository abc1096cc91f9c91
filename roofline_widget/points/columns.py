"""The columns of the per-region sums of several runs: keys, metric sums, unmeasured threads.

:class:`RegionColumns` concatenates the rows of its sources (one
:class:`~roofline_widget.points.engines.source.RegionSource` per run) and
asks a source for a metric's sums only when first needed.  It is what the
selection helpers (:mod:`.placement`, :mod:`.combined_ranks`,
:mod:`.selection`) read; :class:`~roofline_widget.points.RegionSums` adds
building from the user's data, metric detection and the selection itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from roofline_widget.io.key_codes import column_codes, sorted_categorical, text_dtype, unique_integers
from roofline_widget.model import GPU
from roofline_widget.points.detection import channel_totals
from roofline_widget.points.engines.run import RankPlaces
from roofline_widget.points.engines.source import RegionSource
from roofline_widget.points.unmeasured import (
    Unmeasured,
    joined_unmeasured,
    no_unmeasured,
    union_unmeasured,
)
from roofline_widget.schema import FRAME_KEYS
from roofline_widget.units import Unit, UnitKind, parse_unit

__all__ = ["RegionColumns"]


def _joined_labels(parts: list[tuple[np.ndarray, np.ndarray]]) -> pd.Categorical:
    """The (codes, values) of each source's labels as one categorical of the values present
    (sorted categories, as ``pd.Categorical`` of the labels makes them)."""
    if not parts:
        return pd.Categorical(np.zeros(0, dtype=object))
    offsets = np.cumsum([0] + [len(values) for _codes, values in parts])
    codes = np.concatenate([codes + offset for (codes, _values), offset in zip(parts, offsets)])
    return sorted_categorical(codes, np.concatenate([values for _codes, values in parts]))


def _combined(columns: list):
    """One key column of several runs (categoricals keep first-appearance order)."""
    if len(columns) == 1:
        return columns[0]
    if isinstance(columns[0], pd.Categorical):
        return union_categoricals(columns, ignore_order=True)
    return np.concatenate(columns)


class RegionColumns:
    """Per-(run, rank, region, device) key columns and sums over threads of every metric.

    Parameters
    ----------
    parts : list of RegionSource
        One source per run.
    labels : list of str
        The run labels, one per source, all different.

    Attributes
    ----------
    sources : list of RegionSource
        The sources, in order.
    frame : pandas.DataFrame
        One row per (run, rank, region, device): ``file`` (run label),
        ``rank``, ``region``, ``device``, ``n_threads``, ``runtime_s`` (max
        over threads), ``call_count`` (max), ``groups`` (``"MEM_DP+FLOPS_DP"``),
        then one column per metric (sum over threads, native unit); built on
        first access.
    metrics : list of str
        Every metric: channel totals first (see
        :func:`~roofline_widget.points.channel_totals`), then the measured ones.
    units : dict of str to Unit
        The unit of every metric, parsed from its name.
    flop_metrics : list of str
        FLOP-rate metrics present, then uop rates.
    bandwidth_metrics : list of str
        Byte-rate metrics present.
    ranks, regions, files : list
        Ranks (ascending), region names and run labels (order of appearance).
    gpu_rows : numpy.ndarray
        Per row, whether its device is a GPU.
    device_families, device_names : list of str
        The device families (``"cpu"``, ``"nvidia"``, ``"amd"``, ``"gpu"``) and device names of
        the rows, in order of appearance; :meth:`device_labels` gives each row's.
    region_codes : numpy.ndarray
        Per row, the index of its region in :attr:`regions`.
    """

    def __init__(self, parts: list[RegionSource], labels: list[str]):
        self.sources = list(parts)
        self.files = list(labels)
        measured = list(dict.fromkeys(n for part in self.sources for n in part.metric_names))
        # Sums of channel-split bandwidths come first, so detection prefers them to a half.
        self._channel_totals = channel_totals(measured)
        self.metrics = list(self._channel_totals) + measured
        self.units: dict[str, Unit] = {name: parse_unit(name) for name in self.metrics}
        self.flop_metrics = ([m for m in self.metrics if self.units[m].kind == UnitKind.FLOP_RATE]
                             + [m for m in self.metrics if self.units[m].kind == UnitKind.UOP_RATE])
        self.bandwidth_metrics = [m for m in self.metrics if self.units[m].kind == UnitKind.BYTE_RATE]
        lengths = [len(part) for part in self.sources]
        file_codes = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        self._keys = {"file": pd.Categorical.from_codes(file_codes,
                                                        dtype=text_dtype(tuple(self.files))),
                      "run": np.repeat(np.array([getattr(part, "run_number", 1) for part in
                                                 self.sources], dtype=np.int64), lengths)}
        self._frame = None
        self.ranks = unique_integers(self.key_numbers("rank"))[0].tolist()
        self.regions = list(self.label_codes("region")[1])
        self.region_codes = self.label_codes("region")[0]
        device_codes, devices = self.label_codes("device")
        self.gpu_rows = np.asarray(devices.to_numpy(dtype=object) == GPU)[device_codes] \
            if len(devices) else \
            np.zeros(len(file_codes), dtype=bool)
        self._metric_values: dict[str, np.ndarray] = {}
        self._unmeasured: dict[str, Unmeasured] = {}
        self._places: RankPlaces | None = None
        self._devices: dict[str, pd.Categorical] | None = None

    @property
    def frame(self) -> pd.DataFrame:
        """Keys and every metric's sums as one DataFrame (built on first access)."""
        if self._frame is None:
            columns = {name: self.key(name) for name in FRAME_KEYS}
            columns.update((name, self.sums(name)) for name in self.metrics)
            self._frame = pd.DataFrame(columns)
        return self._frame

    def __len__(self) -> int:
        """The number of (run, rank, region, device) rows."""
        return len(self.region_codes)

    # ------------------------------------------------------------ columns
    def key(self, name: str) -> np.ndarray | pd.Categorical:
        """One key column of all runs (a name of ``FRAME_KEYS``), combined on first use and kept.

        Columns a selection does not need (``call_count``, ``groups`` for point
        dicts) are then never read from scope-profiler results.
        """
        column = self._keys.get(name)
        if column is None:
            column = self._keys[name] = _combined([part.keys[name] for part in self.sources])
        return column

    def key_numbers(self, name: str) -> np.ndarray:
        """A numeric key column as a plain array (rank and n_threads int64, else float)."""
        dtype = np.int64 if name in ("rank", "n_threads", "run") else float
        return np.asarray(self.key(name), dtype=dtype)

    def _labels(self, name: str) -> pd.Categorical:
        column = self.key(name)
        if not isinstance(column, pd.Categorical):
            raise TypeError(f"key column {name!r} is not categorical")
        return column

    def label_codes(self, name: str) -> tuple[np.ndarray, pd.Index]:
        """(codes, categories) of a categorical key column (``file, region, device, groups``)."""
        column = self._labels(name)
        return np.asarray(column.codes), column.categories

    def label_column(self, name: str, rows: np.ndarray) -> pd.Categorical:
        """A categorical key column at ``rows`` (the categories of all rows kept)."""
        column = self._labels(name)
        return pd.Categorical.from_codes(np.asarray(column.codes)[rows], dtype=column.dtype)

    def plain_labels(self, name: str, rows: np.ndarray) -> list[str]:
        """A categorical key column at ``rows`` as plain ``str`` (converted once per category)."""
        codes, categories = self.label_codes(name)
        plain = np.array([str(c) for c in categories] + [""], dtype=object)
        return plain[codes[rows]].tolist()

    def device_labels(self, name: str, rows: np.ndarray) -> pd.Categorical:
        """Each row's ``"device_family"`` or ``"device_name"`` at ``rows`` (worked out once).

        A source may say what its rows' devices are (``device_labels()`` -> per row
        ``"device_family"`` and ``"device_name"``, as
        :class:`~roofline_widget.points.engines.run.RunSource` does from the rows' groups and
        the run's layout and ``cpu_name``); without it a CPU row is of family ``"cpu"``, a GPU
        row of family ``"gpu"``, its name ``""``.  A source's labels are categoricals of the
        values present, sorted (as ``pd.Categorical`` of the texts): one such source's are
        taken as they are.
        """
        if self._devices is None and len(self.sources) == 1 \
                and hasattr(self.sources[0], "device_labels"):
            given = self.sources[0].device_labels()
            self._devices = None if given is None else dict(given)
        if self._devices is None:
            parts: dict[str, list] = {"device_family": [], "device_name": []}
            for part in self.sources:
                given = part.device_labels() if hasattr(part, "device_labels") else None
                if given is None:
                    gpu = np.asarray(part.keys["device"], dtype=object) == GPU
                    given = {"device_family": pd.Categorical.from_codes(gpu.astype(np.int8),
                                                                        ["cpu", "gpu"]),
                             "device_name": np.full(len(part), "", dtype=object)}
                for key, values in parts.items():
                    values.append(column_codes(given[key]))
            self._devices = {key: _joined_labels(values) for key, values in parts.items()}
        column = self._devices[name]
        return pd.Categorical.from_codes(column.codes[rows], dtype=column.dtype)

    def sums(self, metric: str) -> np.ndarray:
        """The sums of one metric (a name of :attr:`metrics`) over all rows, kept.

        Native unit; NaN for the rows of runs without the metric.  A channel
        total is the sum of its parts (NaN where a region lacks a part).
        """
        values = self._metric_values.get(metric)
        if values is None:
            if metric in self._channel_totals:
                # NaN where a region lacks a part: half a socket's traffic is no total.
                values = np.sum([self.sums(part) for part in self._channel_totals[metric]],
                                axis=0)
            else:
                pieces = [part.sums(metric) if metric in part.metric_names
                          else np.full(len(part), np.nan) for part in self.sources]
                values = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
            self._metric_values[metric] = values
        return values

    def thread_maxima(self, metric: str) -> np.ndarray:
        """Per row the largest value of ``metric`` among the threads summed (native unit).

        NaN for the rows of a source that does not say (scope-profiler
        results) or lacks the metric; a channel total adds its parts' maxima
        (the thread that counts one socket's channels counts them all).
        """
        if metric in self._channel_totals:
            return np.sum([self.thread_maxima(part) for part in self._channel_totals[metric]],
                          axis=0)
        pieces = [part.thread_maxima(metric) if metric in part.metric_names
                  and hasattr(part, "thread_maxima") else np.full(len(part), np.nan)
                  for part in self.sources]
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def thread_limits(self) -> np.ndarray:
        """Per row the FLOP-rate bound of one unit (hardware thread, GPU) of its device, GFLOP/s
        (NaN: not known): each source's ``thread_limit``, one value or one per row."""
        pieces = [np.broadcast_to(np.asarray(getattr(part, "thread_limit", np.nan), dtype=float),
                                  (len(part),)) for part in self.sources]
        return np.concatenate(pieces) if pieces else np.zeros(0)

    def rank_places(self) -> RankPlaces:
        """Per row the host and socket of its rank (kept).

        From each source's ``rank_places()`` (likwid-mpirun output: the
        ``host:rank:cpu`` columns and the log's likwid-topology block); a
        source without it (scope-profiler results and HDF5 files) knows
        neither: host ``""``, socket -1.
        """
        if self._places is None:
            parts = [part.rank_places() if hasattr(part, "rank_places")
                     else RankPlaces(np.full(len(part), "", dtype=object),
                                     np.full(len(part), -1, dtype=np.int64))
                     for part in self.sources]
            self._places = RankPlaces(
                np.concatenate([p.hosts for p in parts]) if parts else np.zeros(0, dtype=object),
                np.concatenate([p.sockets for p in parts]) if parts else np.zeros(0, np.int64))
        return self._places

    def unmeasured(self, metric: str) -> Unmeasured:
        """Per row the threads whose ``metric`` is not finite (kept per metric).

        A source without an ``unmeasured`` method, or without the metric,
        counts as fully measured; a channel total's threads are those of
        any of its parts.
        """
        found = self._unmeasured.get(metric)
        if found is None:
            if metric in self._channel_totals:
                found = union_unmeasured([self.unmeasured(part)
                                          for part in self._channel_totals[metric]])
            else:
                found = joined_unmeasured([
                    Unmeasured(*part.unmeasured(metric)) if metric in part.metric_names
                    and hasattr(part, "unmeasured") else no_unmeasured(len(part))
                    for part in self.sources])
            self._unmeasured[metric] = found
        return found

