"""Saved views: the state of a roofline widget as a small, versioned JSON document.

A :class:`View` holds what a user chose (metrics, filters, ranks, peaks,
ceilings with their provenance, memory levels, the selection, colour and size
choices), never data.  The JSON form::

    {"format": "roofline-widget view", "version": 1,
     "flops_metric": "DP [MFLOP/s]", "ranks": [0, 1], "peak_flops": 2048.0,
     "ceilings": [{"kind": "bandwidth", "name": "DRAM", "value": 105.0,
                   "source": "likwid-bench triad, 14 threads", "level": "MEM",
                   "provenance": {"file": "triad.txt", "threads": 14}}],
     "selected": [["run", 0, "Solve"]], ...}

Reading checks everything and reports every problem at once in a
:class:`ViewError` (unknown keys, wrong types, a view written by a newer
roofline-widget); :meth:`View.check_against` then names what the data lacks
(metrics, ranks, regions of the selection), so the widget can show a message
instead of a traceback.  Keys left out of a hand-written view take the
defaults below.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from roofline_widget.ceilings import BandwidthRoof, ComputeRoof
from roofline_widget.errors import ViewError
from roofline_widget.static import output_files

__all__ = ["VIEW_FORMAT", "VIEW_VERSION", "View",]

#: The ``format`` value every view file carries.
VIEW_FORMAT = "roofline-widget view"
#: The format version written; views of a higher version are refused.
VIEW_VERSION = 1

COLOR_CHOICES = ("region", "run", "rank")
SIZE_CHOICES = ("none", "runtime")


@dataclass
class View:
    """The user's choices in a roofline widget (see the module docstring for the JSON).

    Parameters
    ----------
    flops_metric, bandwidth_metric : str or None
        Exact LIKWID metric names; None: detected from the data.
    ranks : list of int or None
        Ranks shown (non-negative); None: all.
    combine_ranks : bool
        One point per region with the ranks summed.
    include, exclude : str
        Regular expressions on region names; ``""``: no filter.
    peak_flops, peak_bandwidth : float or None
        User ceilings in GFLOP/s and GB/s; None: empirical.
    ceilings : list of ComputeRoof / BandwidthRoof
        Extra roofs, each with its name and provenance (``source``, the
        ``provenance`` dict, a bandwidth roof's ``level``).
    levels : dict of str to str, or None
        Memory level (``"L2"``, ``"MEM"``, ...) -> bandwidth metric used for it.
    color_by : {"region", "run", "rank"}
    size_by : {"none", "runtime"}
    max_points : int or None
        Most points drawn; None: the widget's default.
    selected : list of (file, rank, region) tuples
        The selected points, by key.
    baseline : list of str or None
        The run labels of the baseline a widget compared with (None: none).

    Raises
    ------
    ViewError
        Listing every field with a wrong type or value.
    """

    flops_metric: str | None = None
    bandwidth_metric: str | None = None
    ranks: list[int] | None = None
    combine_ranks: bool = False
    include: str = ""
    exclude: str = ""
    peak_flops: float | None = None
    peak_bandwidth: float | None = None
    ceilings: list = field(default_factory=list)
    levels: dict[str, str] | None = None
    color_by: str = "region"
    size_by: str = "none"
    max_points: int | None = None
    selected: list[tuple[str, int, str]] = field(default_factory=list)
    baseline: list[str] | None = None

    def __post_init__(self):
        values, problems = _checked({f.name: getattr(self, f.name) for f in fields(self)})
        if problems:
            raise ViewError("View", problems)
        for name, value in values.items():
            setattr(self, name, value)

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The JSON-ready dict: ``format``, ``version``, then every field."""
        document = {"format": VIEW_FORMAT, "version": VIEW_VERSION}
        for item in fields(self):
            document[item.name] = getattr(self, item.name)
        document["ceilings"] = [_ceiling_dict(c) for c in self.ceilings]
        document["selected"] = [list(key) for key in self.selected]
        return document

    def to_json(self, indent: int | None = 2) -> str:
        """The view as JSON text (strict JSON: no NaN)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, document, source: str = "<dict>") -> View:
        """Check a decoded view document and build the :class:`View`.

        Raises
        ------
        ViewError
            Naming ``source`` and every problem: not a view, a missing or
            future version, unknown keys, wrong types or values.
        """
        if not isinstance(document, dict):
            raise ViewError(source, [f"a view is a JSON object, got {type(document).__name__}"])
        header = _header_problems(document)
        if header:
            raise ViewError(source, header)
        known = {f.name for f in fields(cls)}
        given = {k: v for k, v in document.items() if k not in ("format", "version")}
        problems = []
        unknown = sorted(set(given) - known)
        if unknown:
            problems.append(f"unknown key(s) {unknown} (known keys: {sorted(known)})")
        values, more = _checked({k: v for k, v in given.items() if k in known})
        problems += more
        if problems:
            raise ViewError(source, problems)
        return cls(**values)

    @classmethod
    def from_json(cls, text: str, source: str = "<string>") -> View:
        """Parse JSON text (see :meth:`from_dict`); invalid JSON is a :class:`ViewError` too."""
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ViewError(source, [f"not valid JSON at line {exc.lineno}, column {exc.colno}: "
                                     f"{exc.msg}"]) from None
        return cls.from_dict(document, source)

    def save(self, path) -> Path:
        """Write the view to ``path`` as JSON (UTF-8), atomically; returns the path.

        A path that cannot be written raises ``OutputPathError`` before anything is written.
        """
        target = output_files.OutputTarget(Path(path), "view", "json")
        document = self.to_json() + "\n"
        output_files.check_targets([target])
        output_files.write_atomically(
            [(target, lambda name: Path(name).write_text(document, encoding="utf-8"))])
        return target.path

    @classmethod
    def load(cls, path) -> View:
        """Read a view file; errors name the file."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ViewError(os.fspath(path), [f"cannot read the view file: {exc}"]) from None
        return cls.from_json(text, os.fspath(path))

    # ------------------------------------------------------------ use
    def trait_values(self) -> dict:
        """The widget trait values of the view (``max_points`` only when set)."""
        names = ("flops_metric", "bandwidth_metric", "ranks", "combine_ranks", "include",
                 "exclude", "peak_flops", "peak_bandwidth", "color_by", "size_by")
        values = {name: getattr(self, name) for name in names}
        if self.max_points is not None:
            values["max_points"] = self.max_points
        values["selected"] = [tuple(key) for key in self.selected]
        return values

    def check_against(self, data) -> list[str]:
        """What the view names that the data lacks, one sentence each (empty: usable).

        Parameters
        ----------
        data : RegionSums or anything RegionSums.from_runs accepts

        Returns
        -------
        list of str
            Missing or wrong-kind metrics, absent ranks, filters that match
            no region, selected points whose run, rank or region is absent.
        """
        from roofline_widget.points import RegionSums
        from roofline_widget.schema import ALL_RANKS

        sums = RegionSums.from_runs(data)
        problems = []
        problems += _metric_problems(self.flops_metric, "flops_metric", sums.flop_metrics,
                                     sums.metrics, "a FLOP rate")
        problems += _metric_problems(self.bandwidth_metric, "bandwidth_metric",
                                     sums.bandwidth_metrics, sums.metrics, "a byte rate")
        for level, metric in (self.levels or {}).items():
            problems += _metric_problems(metric, f"levels[{level!r}]", sums.bandwidth_metrics,
                                         sums.metrics, "a byte rate")
        missing = sorted(set(self.ranks or ()) - set(sums.ranks))
        if missing:
            problems.append(f"ranks {missing} are not in the data (ranks: {sums.ranks})")
        for name in ("include", "exclude"):
            pattern = getattr(self, name)
            if pattern and not any(re.match(pattern, r) for r in sums.regions):
                problems.append(f"{name} pattern {pattern!r} matches no region of the data "
                                f"(regions: {sums.regions})")
        for run, rank, region in self.selected:
            where = f"selected point ({run!r}, {rank}, {region!r})"
            if run not in sums.files:
                problems.append(f"{where}: no run {run!r} in the data (runs: {sums.files})")
            elif region not in sums.regions:
                problems.append(f"{where}: no region {region!r} in the data")
            elif rank not in sums.ranks and not (rank == ALL_RANKS and self.combine_ranks):
                problems.append(f"{where}: no rank {rank} in the data")
        return problems


# --------------------------------------------------------------------------
# validation: each checker returns the normalised value or raises _Bad
# --------------------------------------------------------------------------
class _Bad(Exception):
    """One field's problem (the message completes "key ...")."""


def _optional_text(value):
    if value is not None and not isinstance(value, str):
        raise _Bad(f"must be a string or null, got {value!r}")
    return value


def _pattern(value):
    if not isinstance(value, str):
        raise _Bad(f"must be a string (\"\" for no filter), got {value!r}")
    try:
        re.compile(value)
    except re.error as exc:
        raise _Bad(f"is not a valid regular expression ({exc}): {value!r}") from None
    return value


def _flag(value):
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, got {value!r}")
    return value


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _ranks(value):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(_is_int(r) and r >= 0 for r in value):
        raise _Bad(f"must be a list of non-negative integers or null, got {value!r}")
    return sorted({int(r) for r in value})


def _positive(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise _Bad(f"must be a positive number or null, got {value!r}")
    return float(value)


def _choice(options):
    def check(value):
        if value not in options:
            raise _Bad(f"must be one of {list(options)}, got {value!r}")
        return value
    return check


def _max_points(value):
    if value is not None and not (_is_int(value) and value > 0):
        raise _Bad(f"must be a positive integer or null, got {value!r}")
    return value


def _levels(value):
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise _Bad(f"must be an object of level name -> metric name, or null, got {value!r}")
    return dict(value)


def _selected(value):
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be a list of [run, rank, region] keys, got {value!r}")
    keys = []
    for key in value:
        if not (isinstance(key, (list, tuple)) and len(key) == 3 and isinstance(key[0], str)
                and _is_int(key[1]) and isinstance(key[2], str)):
            raise _Bad(f"must hold [run, rank, region] keys (string, integer, string), "
                       f"got {key!r}")
        keys.append((key[0], int(key[1]), key[2]))
    return keys


def _labels(value):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise _Bad(f"must be a list of run labels (strings) or null, got {value!r}")
    return list(value)


_CEILING_KEYS = {"kind", "name", "value", "source"}
_CEILING_OPTIONAL = {"level", "provenance"}


def _ceiling(item):
    if isinstance(item, (ComputeRoof, BandwidthRoof)):
        return item
    if not isinstance(item, dict) or not _CEILING_KEYS <= set(item) \
            or not set(item) <= _CEILING_KEYS | _CEILING_OPTIONAL:
        raise _Bad(f"must hold objects with the keys {sorted(_CEILING_KEYS)} (and optionally "
                   f"{sorted(_CEILING_OPTIONAL)}), got {item!r}")
    kinds = {"compute": ComputeRoof, "bandwidth": BandwidthRoof}
    if item["kind"] not in kinds:
        raise _Bad(f"kind must be 'compute' or 'bandwidth', got {item['kind']!r}")
    if isinstance(item["value"], bool) or not isinstance(item["value"], (int, float)):
        raise _Bad(f"value must be a number, got {item['value']!r}")
    provenance = item.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        raise _Bad(f"provenance must be an object or null, got {provenance!r}")
    extra = {"provenance": provenance}
    level = item.get("level")
    if level is not None:
        if item["kind"] != "bandwidth" or not isinstance(level, str):
            raise _Bad(f"level must be a string on a bandwidth ceiling, got {level!r}")
        extra["level"] = level
    try:
        return kinds[item["kind"]](item["name"], item["value"], item["source"], **extra)
    except ValueError as exc:
        raise _Bad(str(exc)) from None


def _ceilings(value):
    if not isinstance(value, (list, tuple)):
        raise _Bad(f"must be a list of ceilings, got {value!r}")
    return [_ceiling(item) for item in value]


def _ceiling_dict(roof) -> dict:
    """A roof as JSON: provenance values that JSON lacks (paths, ...) written as text."""
    document = {"kind": roof.kind, "name": roof.name, "value": roof.value,
                "source": roof.source}
    if getattr(roof, "level", None) is not None:
        document["level"] = roof.level
    if roof.provenance is not None:
        document["provenance"] = json.loads(json.dumps(roof.provenance, default=str))
    return document


_CHECKERS = {
    "flops_metric": _optional_text, "bandwidth_metric": _optional_text, "ranks": _ranks,
    "combine_ranks": _flag, "include": _pattern, "exclude": _pattern,
    "peak_flops": _positive, "peak_bandwidth": _positive, "ceilings": _ceilings,
    "levels": _levels, "color_by": _choice(COLOR_CHOICES), "size_by": _choice(SIZE_CHOICES),
    "max_points": _max_points, "selected": _selected, "baseline": _labels,
}


def _checked(values: dict) -> tuple[dict, list[str]]:
    """The normalised values and one sentence per bad field."""
    result, problems = {}, []
    for name, value in values.items():
        try:
            result[name] = _CHECKERS[name](value)
        except _Bad as bad:
            problems.append(f"{name!r} {bad}")
    return result, problems


def _header_problems(document: dict) -> list[str]:
    if document.get("format") != VIEW_FORMAT:
        return [f"not a roofline-widget view: expected \"format\": {VIEW_FORMAT!r}, "
                f"got {document.get('format')!r}"]
    version = document.get("version")
    if not _is_int(version) or version < 1:
        return [f"'version' must be a positive integer, got {version!r}"]
    if version > VIEW_VERSION:
        return [f"written by a newer roofline-widget (view format version {version}); this "
                f"version reads up to version {VIEW_VERSION}: upgrade roofline-widget"]
    return []


def _metric_problems(metric, what: str, of_kind: list, every: list, kind_text: str) -> list:
    if metric is None or metric in of_kind:
        return []
    if metric in every:
        return [f"{what} {metric!r} is not {kind_text}"]
    return [f"{what} {metric!r} is not in the data (available: {of_kind or 'none'})"]
