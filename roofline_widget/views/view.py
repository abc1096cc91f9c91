"""Saved views: the state of a roofline widget as a small, versioned JSON document.

A :class:`View` holds what a user chose (metrics, filters, ranks, peaks,
ceilings with their provenance, memory levels, the selection, colour and size
choices, a sweep's ringed step and grouping), never data.  The JSON form::

    {"format": "roofline-widget view", "version": 1,
     "flops_metric": "DP [MFLOP/s]", "ranks": [0, 1], "peak_flops": 2048.0,
     "ceilings": [{"kind": "bandwidth", "name": "DRAM", "value": 105.0,
                   "source": "likwid-bench triad, 14 threads", "level": "MEM",
                   "provenance": {"file": "triad.txt", "threads": 14}}],
     "selected": [["run", 0, "Solve"]], ...}

Its selection fields (``flops_metric``, ``bandwidth_metric``, ``ranks``,
``combine_ranks``, ``include``, ``exclude`` and the ``levels``' metrics) are
those of a :class:`~roofline_widget.Selection`: :attr:`View.selection`.

A view file may come from someone else.  Reading checks everything and
reports every problem at once in a :class:`ViewError` naming the file and
each field: unknown keys, wrong types, values out of range (a peak of
``1e308``, a 5,000-digit integer), nesting deeper than a view needs, a view
written by a newer roofline-widget (:mod:`.fields`, :mod:`.json_text`).
:meth:`View.check_against` then names what the data lacks (metrics, ranks,
regions of the selection), so the widget can show a message instead of a
traceback; a pattern that takes too long on the data's region names (it
backtracks catastrophically) is a ``ViewError`` there.  Keys left out of a
hand-written view take the defaults below (a view written before ``sweep_step``
and ``group_runs_by`` existed loads with -1 and ``""``: the last step, the
default grouping).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from roofline_widget.errors import LikwidFormatError, SelectionError, ViewError
from roofline_widget.io.opener import read_bytes
from roofline_widget.points import RegionSums, Selection
from roofline_widget.points.rank_places import resolve_ranks
from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof
from roofline_widget.schema import ALL_RANKS
from roofline_widget.settings import compile_patterns, names_selected, shown
from roofline_widget.settings.rules import metric_in_data, ranks_in_data
from roofline_widget.static import output_files
from roofline_widget.views import json_text
from roofline_widget.views.fields import ceiling_document, checked

__all__ = ["MAX_VIEW_BYTES", "VIEW_FORMAT", "VIEW_VERSION", "View"]

#: The ``format`` value every view file carries.
VIEW_FORMAT = "roofline-widget view"
#: The format version written; views of a higher version are refused.
VIEW_VERSION = 1
#: The largest view file read (a view of 2,000 selected points is about 150 kB).
MAX_VIEW_BYTES = 8 * 2**20


@dataclass
class View:
    """The user's choices in a roofline widget (see the module docstring for the JSON).

    Parameters
    ----------
    flops_metric, bandwidth_metric : str or None
        Exact LIKWID metric names; None: detected from the data.
    ranks : list of int, str, or None
        Ranks shown (non-negative), or a text of them read against the data
        it is applied to (``"0-71,144"``, ``"f0702 socket 1"``); None: all.
    group_ranks : {"auto", "rank", "socket", "host", "all"}
        Which ranks a point sums (``"auto"``: by socket where memory is
        counted on one rank per socket).
    combine_ranks : bool
        One point per region with the ranks summed (``group_ranks="all"``).
    include, exclude : str
        Regular expressions on region names; ``""``: no filter.
    peak_flops, peak_bandwidth : float or None
        User ceilings in GFLOP/s and GB/s; None: empirical.
    ceilings : list of ComputeRoof / BandwidthRoof
        Extra roofs, each with its name and provenance (``source``, the
        ``provenance`` dict, a bandwidth roof's ``level``).
    levels : dict of str to str, or None
        Memory level (``"L2"``, ``"MEM"``, ...) -> bandwidth metric used for it.
    color_by : {"region", "run", "rank", "device"}
    size_by : {"none", "runtime"}
    max_points : int or None
        Most points drawn; None: the widget's default.
    selected : list of (file, rank, region) tuples
        The selected points, by key.
    baseline : list of str or None
        The run labels of the baseline a widget compared with (None: none).
    sweep_step : int
        A sweep's ringed step (-1: the last).
    group_runs_by : str
        What a sweep's runs are grouped by (``"threads"``, ``"case"``, ...; ``""``:
        as :func:`~roofline_widget.scaling_table` groups them).

    Raises
    ------
    ViewError
        Listing every field with a wrong type or value.
    """

    flops_metric: str | None = None
    bandwidth_metric: str | None = None
    ranks: list[int] | str | None = None
    group_ranks: str = "auto"
    combine_ranks: bool = False
    include: str = ""
    exclude: str = ""
    peak_flops: float | None = None
    peak_bandwidth: float | None = None
    ceilings: list[ComputeRoof | BandwidthRoof] = field(default_factory=list)
    levels: dict[str, str] | None = None
    color_by: str = "region"
    size_by: str = "none"
    max_points: int | None = None
    selected: list[tuple[str, int, str]] = field(default_factory=list)
    baseline: list[str] | None = None
    sweep_step: int = -1
    group_runs_by: str = ""

    def __post_init__(self) -> None:
        values, problems = checked({f.name: getattr(self, f.name) for f in fields(self)})
        if problems:
            raise ViewError("View", problems)
        for name, value in values.items():
            setattr(self, name, value)

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The JSON-ready dict: ``format``, ``version``, then every field."""
        document: dict[str, object] = {"format": VIEW_FORMAT, "version": VIEW_VERSION}
        for item in fields(self):
            document[item.name] = getattr(self, item.name)
        document["ceilings"] = [ceiling_document(c) for c in self.ceilings]
        document["selected"] = [list(key) for key in self.selected]
        return document

    def to_json(self, indent: int | None = 2) -> str:
        """The view as JSON text (strict JSON: no NaN)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, document: object, source: str = "<dict>") -> View:
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
        values, more = checked({k: v for k, v in given.items() if k in known})
        problems += more
        if problems:
            raise ViewError(source, problems)
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def from_json(cls, text: str, source: str = "<string>") -> View:
        """Parse JSON text (see :meth:`from_dict`).

        Invalid JSON, nesting deeper than a view needs and integers longer
        than 20 digits are a :class:`ViewError` too, naming the field.
        """
        return cls.from_dict(json_text.parse(text, source), source)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the view to ``path`` as JSON (UTF-8), atomically; returns the path.

        A path that cannot be written raises ``OutputPathError`` before anything is written.
        """
        target = output_files.OutputTarget(Path(path), "view", "json")
        document = self.to_json() + "\n"

        def write(name: str) -> None:
            Path(name).write_text(document, encoding="utf-8")

        output_files.check_targets([target])
        output_files.write_atomically([(target, write)])
        return target.path

    @classmethod
    def load(cls, path: str | os.PathLike) -> View:
        """Read a view file (UTF-8, at most :data:`MAX_VIEW_BYTES`); errors name the file.

        A directory, a FIFO or a device is refused without reading it.
        """
        name = os.fspath(path)
        try:
            text = read_bytes(path, limit=MAX_VIEW_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError, LikwidFormatError) as exc:
            raise ViewError(name, [f"cannot read the view file: {exc}"]) from None
        return cls.from_json(text, name)

    # ------------------------------------------------------------ use
    @property
    def selection(self) -> Selection:
        """The view's selection fields as a :class:`~roofline_widget.Selection`.

        ``include``/``exclude`` ``""`` is no filter; ``levels`` gives the
        level metrics.  Pass it to any public function (``selection=``) to
        select the points the view shows.
        """
        return Selection(flops_metric=self.flops_metric, bandwidth_metric=self.bandwidth_metric,
                         ranks=self.ranks, include=self.include or None,
                         exclude=self.exclude or None, group_ranks=self.group_ranks,
                         combine_ranks=self.combine_ranks, levels=self.levels)

    def trait_values(self) -> dict:
        """The widget trait values of the view (``max_points`` only when set)."""
        names = ("flops_metric", "bandwidth_metric", "ranks", "group_ranks", "combine_ranks",
                 "include", "exclude", "peak_flops", "peak_bandwidth", "color_by", "size_by",
                 "group_runs_by", "sweep_step")
        values = {name: getattr(self, name) for name in names}
        if self.max_points is not None:
            values["max_points"] = self.max_points
        values["selected"] = [tuple(key) for key in self.selected]
        return values

    def check_against(self, data: object, source: str = "View") -> list[str]:
        """What the view names that the data lacks, one sentence each (empty: usable).

        Parameters
        ----------
        data : RegionSums or anything RegionSums.from_runs accepts
        source : str
            Where the view came from, for the error.

        Returns
        -------
        list of str
            Missing or wrong-kind metrics, absent ranks, filters that match
            no region, selected points whose run, rank or region is absent.

        Raises
        ------
        ViewError
            Naming ``source`` and the field, for an ``include``/``exclude``
            pattern that takes too long on the region names.
        """
        sums = RegionSums.from_runs(data)
        metrics = [("flops_metric", self.flops_metric, sums.flop_metrics, "a FLOP rate"),
                   ("bandwidth_metric", self.bandwidth_metric, sums.bandwidth_metrics,
                    "a byte rate"),
                   *((f"levels[{level!r}]", metric, sums.bandwidth_metrics, "a byte rate")
                     for level, metric in (self.levels or {}).items())]
        found = [metric_in_data(name, metric, of_kind, sums.metrics, kind)
                 for name, metric, of_kind, kind in metrics]
        try:
            found.append(ranks_in_data(resolve_ranks(sums, self.ranks), sums.ranks))
        except SelectionError as exc:  # a host or socket name the data lacks
            found.append(str(exc))
        problems = [problem for problem in found if problem]
        for name in ("include", "exclude"):
            pattern = getattr(self, name)
            if pattern and not _matches_any(pattern, name, sums.regions, source):
                problems.append(f"{name} pattern {pattern!r} matches no region of the data "
                                f"(regions: {sums.regions})")
        # rank -1: every rank of a run summed, by the view's choice or where "auto" groups
        # this data (a socket's point has its lowest rank, a rank of the data)
        uncore = (self.bandwidth_metric or sums.detect_bandwidth_metric(),
                  *(self.levels or {}).values())
        ranks_summed = self.group_ranks in ("socket", "host", "all") or self.combine_ranks or (
            self.group_ranks == "auto" and sums.rank_grouping("auto", uncore) is not None)
        for run, rank, region in self.selected:
            where = f"selected point ({run!r}, {rank}, {region!r})"
            if run not in sums.files:
                problems.append(f"{where}: no run {run!r} in the data (runs: {sums.files})")
            elif region not in sums.regions:
                problems.append(f"{where}: no region {region!r} in the data")
            elif rank not in sums.ranks and not (rank == ALL_RANKS and ranks_summed):
                problems.append(f"{where}: no rank {rank} in the data")
        return problems


def _matches_any(pattern: str, name: str, regions: list[str], source: str) -> bool:
    """Whether the ``include``/``exclude`` ``pattern`` matches some region, in bounded time.

    A pattern that takes too long is a ViewError naming ``source`` and the field.
    """
    patterns = compile_patterns(pattern, name)
    try:
        if name == "include":
            return bool(names_selected(regions, patterns, None).any())
        return not names_selected(regions, None, patterns).all()
    except SelectionError as exc:
        raise ViewError(source, [str(exc)]) from None


def _header_problems(document: dict) -> list[str]:
    if document.get("format") != VIEW_FORMAT:
        return [f"not a roofline-widget view: expected \"format\": {VIEW_FORMAT!r}, "
                f"got {shown(document.get('format'))}"]
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return [f"'version' must be a positive integer, got {shown(version)}"]
    if version > VIEW_VERSION:
        return [f"written by a newer roofline-widget (view format version {version}); this "
                f"version reads up to version {VIEW_VERSION}: upgrade roofline-widget"]
    return []
