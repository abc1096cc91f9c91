"""One LIKWID region of a scope-profiler HDF5 file: its arrays, read and checked, nothing summed.

Both HDF5 engines (:mod:`~roofline_widget.io.scope.h5_engines`) hand each
region group to :func:`read_region` through a :class:`RegionAccess` (its
attributes, members and datasets); the rules of what a region must hold are
written here once, so both engines accept and refuse the same files:

* the group's name is the region's tag (scope-profiler names the group after
  the ``tag`` attribute, with ``"/"`` written as ``"|"``; the attribute,
  where there is one, must match the name: a cut name is refused); names are
  unique in a group, and a rank listing one tag twice (a damaged index) is refused;
* ``metric_names`` (and ``event_names``, ``counter_names``) are lists of
  strings, ``group_name`` a string, ``group_id`` an integer;
* ``metrics`` has one row per metric name and one column per cpu, ``times``
  and ``call_counts`` (and ``cpus``: integers from 0) one value per cpu;
  ``group_id`` fits 64 bits.

The result, :class:`RegionArrays`, has the attributes of scope-profiler's
``LikwidRegionResult`` that the readers use, so the per-thread table
(:func:`~roofline_widget.io.scope.objects.run_from_regions`) and the sums
engines take either.
"""

from __future__ import annotations

import operator
from collections import Counter
from typing import Protocol

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.scope.regions import checked_cpus, checked_group_id

__all__ = ["SUMS_DATASETS", "THREAD_DATASETS", "RegionAccess", "RegionArrays", "check_unique_tags",
           "read_region"]

#: The datasets the sums need; the per-thread run needs ``THREAD_DATASETS`` too.
SUMS_DATASETS = ("metrics", "times", "call_counts")
THREAD_DATASETS = ("cpus", "events")


class RegionAccess(Protocol):
    """What an HDF5 engine offers of one region group."""

    def attribute(self, name: str) -> object:
        """The attribute's value (str, int, or a list of them), None if absent."""
        ...

    def members(self) -> list[str]:
        """The names of the group's members."""
        ...

    def dataset(self, name: str) -> np.ndarray:
        """A member dataset's values as float64, in its stored shape."""
        ...


class RegionArrays:
    """The arrays of one region of one rank, as read (one value per thread).

    Attributes
    ----------
    tag, group_name : str
    group_id : int
        -1 when the file has none.
    metric_names, event_names, counter_names : list of str
    metrics : numpy.ndarray
        float64, (metric names x cpus).
    times, call_counts : numpy.ndarray
        float64, one per cpu.
    events : numpy.ndarray or None
        float64 (event names x cpus); None unless read for the per-thread run.
    cpus : list of int or None
        None when not read: the sums need the cpus only to name a thread
        that did not measure a metric, so they are read for a region with a
        value that is not finite, and for the per-thread run.
    """

    __slots__ = (
        "call_counts",
        "counter_names",
        "cpus",
        "event_names",
        "events",
        "group_id",
        "group_name",
        "metric_names",
        "metrics",
        "tag",
        "times",
    )

    def __init__(self, tag: str, group_id: int, group_name: str, metric_names: list[str],
                 metrics: np.ndarray, times: np.ndarray, call_counts: np.ndarray,
                 cpus: list[int] | None, events: np.ndarray | None = None,
                 event_names: list[str] | None = None, counter_names: list[str] | None = None):
        self.tag, self.group_id, self.group_name = tag, group_id, group_name
        self.metric_names, self.metrics = metric_names, metrics
        self.times, self.call_counts, self.cpus = times, call_counts, cpus
        self.events = events
        self.event_names, self.counter_names = event_names or [], counter_names or []

    @property
    def event_labels(self) -> list[str]:
        """One label per event: the name, or ``name:counter`` (``name#k``) where a name repeats."""
        repeats = Counter(self.event_names)
        return [name if repeats[name] == 1 else
                f"{name}:{self.counter_names[k]}" if k < len(self.counter_names) else f"{name}#{k}"
                for k, name in enumerate(self.event_names)]


def _string(value: object, what: str, where: str) -> str:
    if not isinstance(value, str):
        raise LikwidFormatError(where, None, f"{what} to be one string",
                                f"{type(value).__name__} {value!r}")
    return value


def _strings(value: object, what: str, where: str) -> list[str]:
    """A list-of-strings attribute (None: empty); one string or other types refused."""
    if value is None:
        return []
    if isinstance(value, str):
        raise LikwidFormatError(where, None, f"{what} to be a list of names",
                                f"one string {value!r}, not a list")
    if not isinstance(value, list) or not set(map(type, value)) <= {str}:
        raise LikwidFormatError(where, None, f"{what} to be a list of names",
                                f"{type(value).__name__} {str(value)[:60]}")
    return value


def _tag(access: RegionAccess, link: str, where_rank: str) -> str:
    """The region's tag: the group's name, where a ``"|"`` stands for a ``"/"`` of the tag.

    scope-profiler names the group after the tag (``"/"`` written as ``"|"``)
    and keeps the tag in the ``tag`` attribute, which must match the name
    (a name cut by damage, ``region_0000`` read as ``region_0``, would rename
    the region).  Names are unique in a group, so two regions never share a tag.
    """
    value = access.attribute("tag")
    if value is None:
        return link.replace("|", "/")
    tag = _string(value, "the tag attribute", f"{where_rank}, group {link!r})")
    if tag.replace("/", "|") != link:
        raise LikwidFormatError(f"{where_rank}, group {link!r})", None,
                                "the region group named after its tag ('/' written as '|'; "
                                "a damaged name?)", f"tag {tag!r}")
    return tag


def read_region(access: RegionAccess, link: str, where_rank: str, detail: bool) -> RegionArrays:
    """Read and check one region group.

    Parameters
    ----------
    access : RegionAccess
        The group, through one engine.
    link : str
        The group's name in its parent.
    where_rank : str
        ``"<file> (rank <r>"``: errors add ``", region '<tag>')"``.
    detail : bool
        Also read cpus, events and event names (for the per-thread run).

    Raises
    ------
    LikwidFormatError
        For a region that does not hold what scope-profiler writes.
    """
    tag = _tag(access, link, where_rank)
    where = f"{where_rank}, region {tag!r})"
    names = _strings(access.attribute("metric_names"), "metric_names", where)
    members = access.members()
    for name in SUMS_DATASETS + (THREAD_DATASETS if detail else ()):
        if name not in members:
            raise LikwidFormatError(where, None, f"a {name!r} dataset in every scope-profiler "
                                    "LIKWID region", f"only {', '.join(sorted(members)) or 'nothing'}")
    metrics = access.dataset("metrics")
    if metrics.ndim != 2 or metrics.shape[0] != len(names):
        raise LikwidFormatError(where, None, f"{len(names)} rows (one per metric name) and one "
                                "column per cpu in the metrics array", f"shape {metrics.shape}")
    n_cpus = metrics.shape[1]
    columns = {what: access.dataset(what).ravel() for what in ("times", "call_counts")}
    for what, column in columns.items():
        if len(column) != n_cpus:
            raise LikwidFormatError(where, None, f"one value per cpu in {what} and one column "
                                    "per cpu in metrics",
                                    f"{len(column)} {what} for {n_cpus} metrics columns")
    group_name = access.attribute("group_name")
    group_name = "" if group_name is None else _string(group_name, "group_name", where)
    # the sums name a group by its id only when it has no name
    group_id = access.attribute("group_id") if detail or not group_name else -1
    group_id = -1 if group_id is None else checked_group_id(group_id, where)

    def cpus() -> list[int]:
        if "cpus" not in members:
            raise LikwidFormatError(where, None, "a 'cpus' dataset in every scope-profiler LIKWID "
                                    "region", f"only {', '.join(sorted(members))}")
        values = access.dataset("cpus").ravel()
        if len(values) != n_cpus:
            raise LikwidFormatError(where, None, "one cpu number per metrics column",
                                    f"cpus {values.tolist()[:8]} for {n_cpus} columns")
        return checked_cpus(values, where)

    if not detail:
        return RegionArrays(tag, group_id, group_name, names, metrics, columns["times"],
                            columns["call_counts"],
                            None if np.isfinite(metrics).all() else cpus())
    events = access.dataset("events")
    event_names = _strings(access.attribute("event_names"), "event_names", where)
    counter_names = _strings(access.attribute("counter_names"), "counter_names", where)
    if events.size == 0 and not event_names:
        events = np.zeros((0, n_cpus))
    if events.shape != (len(event_names), n_cpus):
        raise LikwidFormatError(where, None, f"{len(event_names)} rows (one per event name) "
                                "and one column per cpu in the events array",
                                f"shape {events.shape}")
    return RegionArrays(tag, group_id, group_name, names, metrics, columns["times"],
                        columns["call_counts"], cpus(), events,
                        event_names, counter_names)


def check_unique_tags(regions: list[RegionArrays], where_rank: str) -> None:
    """Refuse a rank with two regions of one tag (one would hide the other)."""
    tags = list(map(operator.attrgetter("tag"), regions))
    if len(set(tags)) != len(tags):
        tag = next(t for t, n in Counter(tags).items() if n > 1)
        raise LikwidFormatError(f"{where_rank})", None, "one region group per tag",
                                f"two regions tagged {tag!r}")
