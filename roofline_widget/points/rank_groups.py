"""Which ranks a point sums: per rank, per socket, per host, or all (``group_ranks=``).

LIKWID counts uncore (memory) events on one hardware thread per socket and
prints 0 on the others.  Inside a rank the sum over threads takes care of
that; but likwid-mpirun runs each rank as a process on its own core, so the
memory traffic of a socket shows up on one rank (the socket leader) only.  A
point per rank would then pair one rank's FLOP/s with its whole socket's
bytes.  The rule, written once here:

* ``"auto"`` (the default): in a run where a point's bandwidth metric is
  non-zero on some ranks and zero on others (of one region), the ranks are
  grouped by socket (host and the socket of the rank's cpus, from the
  likwid-topology block of the log), or by host when the log has no
  likwid-topology block (sources without hosts, the scope-profiler readers:
  all ranks); every other run keeps one point per rank.
* ``"rank"``: one point per rank (the per-core view);
* ``"socket"``, ``"host"``: group every run so;
* ``"all"``: one point per region for the whole job (``combine_ranks=True``).

A group is summed by :class:`~roofline_widget.points.combined_ranks.CombinedRanks`
(the one summation over ranks), and its ``rank_group`` label names it:
``"f0472 socket 0 (ranks 0-23)"``.  Its rank, which keys the point with the
run and the region (the widget's selection, ``compare_points``' matching,
saved views), is

* :data:`~roofline_widget.schema.ALL_RANKS` (-1, "all ranks") when the point
  sums EVERY rank of its run, and always with ``group_ranks="all"``;
* else the lowest rank it sums (a socket's or host's leader, usually the rank
  that counted its memory): two sockets of one run are two keys, and socket 0
  of two runs of one job has the same key in both;
* a rank's own number when the point is one rank (a group of one).

:attr:`RankGrouping.notes` say per run what was grouped and why (the
widget's status line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import SupportsInt

import numpy as np
import pandas as pd

from roofline_widget.points.columns import RegionColumns
from roofline_widget.schema import ALL_RANKS, GROUP_RANKS_CHOICES
from roofline_widget.settings import SELECTION

__all__ = [
    "GROUP_RANKS_CHOICES",
    "RankGrouping",
    "check_group_ranks",
    "format_ranks",
    "rank_grouping",
    "rank_label",
    "rank_labels",
    "split_runs",
    "summed_ranks",
]

#: How many ranks of a group that is no range its label lists.
_LISTED_RANKS = 4
_RANK, _SOCKET, _HOST, _ALL = 0, 1, 2, 3
_PER = {_SOCKET: "one point per socket", _HOST: "one point per host",
        _ALL: "one point for all ranks"}


def check_group_ranks(group_ranks: object, combine_ranks: bool) -> str:
    """``group_ranks`` checked; ``combine_ranks=True`` is its alias ``"all"`` and wins.

    (``combine_ranks`` on top of any ``group_ranks``: clearing it gives that
    grouping back.  The widget's "Group ranks" menu shows this value.)

    Raises
    ------
    SelectionError
        For a value not in :data:`GROUP_RANKS_CHOICES`.
    """
    checked = SELECTION["group_ranks"].check(group_ranks)
    return "all" if combine_ranks else str(checked)


def format_ranks(ranks: Sequence[int]) -> str:
    """``"rank 3"``, ``"ranks 0-23"``, ``"ranks 0, 24"``, ``"24 ranks from 0 to 46"``.

    Examples
    --------
    >>> format_ranks([0]), format_ranks(range(24)), format_ranks([0, 24])
    ('rank 0', 'ranks 0-23', 'ranks 0, 24')
    >>> format_ranks(range(0, 48, 2)), format_ranks([-1])
    ('24 ranks from 0 to 46', 'all ranks')
    """
    ranks = sorted(set(int(r) for r in ranks))
    if len(ranks) == 1:
        return rank_label(ranks[0])
    if ranks and ranks[-1] - ranks[0] + 1 == len(ranks):
        return f"ranks {ranks[0]}-{ranks[-1]}"
    if len(ranks) <= _LISTED_RANKS:
        return "ranks " + ", ".join(str(r) for r in ranks)
    return f"{len(ranks)} ranks from {ranks[0]} to {ranks[-1]}"


def rank_label(rank: int) -> str:
    """``"rank 3"``: the label of one rank (``format_ranks([rank])``), ``"all ranks"`` for -1
    (a point that sums every rank, read back from a points table)."""
    return rank_labels([rank])[0]


def rank_labels(ranks: Sequence[int]) -> list[str]:
    """:func:`rank_label` of each of ``ranks`` (one pass over thousands of ranks).

    Examples
    --------
    >>> rank_labels([-1, 0, 7])
    ['all ranks', 'rank 0', 'rank 7']
    """
    return ["all ranks" if rank == ALL_RANKS else f"rank {rank}" for rank in ranks]


def summed_ranks(rank: SupportsInt, rank_group: object = None) -> str | None:
    """What a point sums when it sums several ranks, else None (a point of one rank).

    The one reading of a point's ``rank`` and ``rank_group`` for texts
    (tooltips, tables, SVG titles, the terminal): a sum of several ranks is
    its ``rank_group`` (``"f0472 socket 0 (ranks 0-23)"``), even where its
    rank is its lowest rank's number; the rank -1 without a group reads
    ``"all ranks"``.

    Examples
    --------
    >>> summed_ranks(24, "sonata socket 1 (ranks 24-47)")
    'sonata socket 1 (ranks 24-47)'
    >>> summed_ranks(3, "rank 3") is None, summed_ranks(3) is None, summed_ranks(-1)
    (True, True, 'all ranks')
    """
    number = int(rank)
    named = isinstance(rank_group, str) and bool(rank_group)
    if number == ALL_RANKS:
        return rank_group if named else "all ranks"  # type: ignore[return-value]
    if named:
        return None if rank_group == format_ranks([number]) else rank_group  # type: ignore[return-value]
    return None


@dataclass(frozen=True)
class RankGrouping:
    """The groups of ranks the points sum, over every row of the sums.

    Attributes
    ----------
    group_of_row : numpy.ndarray
        Per row of the sums its group (numbered in order of first appearance,
        so a point keeps its place whatever ranks are selected).
    grouped : numpy.ndarray
        Per group (bool): whether it sums ranks (a place name; rank -1 or
        its lowest rank) or is one rank's row of a run kept per rank.
    places : numpy.ndarray
        Per group the place it sums (``"f0472 socket 0"``, ``"sonata"``,
        ``"all ranks"``); ``""`` for a rank of its own.
    run_ranks : numpy.ndarray
        Per group how many ranks its run has (over all rows): a group that
        sums that many is the whole run (rank -1), a smaller one is keyed by
        its lowest rank.
    notes : tuple of str
        Per grouped run, what was grouped and why (``"24 ranks on 1 socket,
        memory counted on rank 0: one point per socket"``).
    whole_job : bool
        ``group_ranks="all"``: a group is a sum over ranks (rank -1) even
        when one rank of it is selected; otherwise one selected rank of a
        socket or host keeps its number.
    """

    group_of_row: np.ndarray
    grouped: np.ndarray
    places: np.ndarray
    run_ranks: np.ndarray
    notes: tuple[str, ...] = ()
    whole_job: bool = False

    @property
    def n_groups(self) -> int:
        """How many groups the whole data has."""
        return len(self.grouped)


def _region_keys(sums: RegionColumns) -> np.ndarray:
    """Per row a code of its (run, region, device)."""
    file_codes = sums.label_codes("file")[0].astype(np.int64)
    device_codes, devices = sums.label_codes("device")
    return ((file_codes * max(len(sums.regions), 1) + sums.region_codes)
            * (len(devices) + 1) + device_codes + 1)


def split_runs(sums: RegionColumns, metrics: Sequence[str | None]) -> np.ndarray:
    """Per run (file code), whether one of ``metrics`` counts on some ranks only.

    That is: in some (region, device) of the run, the metric's sum is
    positive on one rank and zero on another (LIKWID's uncore counters read
    on the socket leader, 0 elsewhere).
    """
    n_runs = len(sums.files)
    split = np.zeros(n_runs, dtype=bool)
    if not len(sums):
        return split
    keys = _region_keys(sums)  # dense: (runs x regions x devices) codes
    if keys.max() > 4 * len(keys) + 1024:  # sparse: numbered
        keys = pd.factorize(keys)[0]
    run_of_key = np.zeros(keys.max() + 1, dtype=np.int64)
    run_of_key[keys] = sums.label_codes("file")[0]
    for metric in metrics:
        if metric is None or metric not in sums.units:
            continue
        values = sums.sums(metric)
        positive = np.bincount(keys, weights=values > 0, minlength=len(run_of_key)) > 0
        zero = np.bincount(keys, weights=values == 0, minlength=len(run_of_key)) > 0
        split[run_of_key[positive & zero]] = True
    return split


def _levels(sums: RegionColumns, mode: str, split: np.ndarray) -> np.ndarray:
    """Per row how its ranks are grouped (_RANK, _SOCKET, _HOST, _ALL)."""
    file_codes = sums.label_codes("file")[0]
    places = sums.rank_places()
    if mode == "all":
        return np.full(len(sums), _ALL)
    if mode == "host":
        return np.full(len(sums), _HOST)
    # socket: per run, by socket where every rank's socket is known, else by host
    socket_known = np.ones(len(sums.files), dtype=bool)
    socket_known[file_codes[places.sockets < 0]] = False
    by_socket = np.where(socket_known[file_codes], _SOCKET, _HOST)
    if mode == "socket":
        return by_socket
    return np.where(split[file_codes], by_socket, _RANK)  # auto


def _place_name(level: int, host: str, socket: int) -> str:
    if level == _SOCKET:
        return f"{host} socket {socket}" if host else f"socket {socket}"
    if level == _HOST and host:
        return host
    return "" if level == _RANK else "all ranks"


def _note(sums: RegionColumns, run: int, level: int, metrics: Sequence[str | None],
          rows: np.ndarray) -> str:
    """What one run's grouping is, in one line."""
    places = sums.rank_places()
    ranks = sums.key_numbers("rank")[rows]
    n_ranks = len(np.unique(ranks))
    hosts = places.hosts[rows]
    if level == _SOCKET:
        n = len(set(zip(hosts.tolist(), places.sockets[rows].tolist())))
        where = f" on {n} socket{'s' if n != 1 else ''}"
    elif level == _HOST and any(hosts):
        n = len(set(hosts.tolist()))
        where = f" on {n} host{'s' if n != 1 else ''} (no likwid-topology in the log: sockets unknown)"
    else:
        where = " (no host or cpu in the data)" if level == _HOST else ""
    measuring = np.zeros(len(rows), dtype=bool)
    for metric in metrics:
        if metric is not None and metric in sums.units:
            measuring |= sums.sums(metric)[rows] > 0
    counted = ""
    if measuring.any() and not measuring.all():
        counted = f", memory counted on {format_ranks(ranks[measuring])}"
    per = _PER[_ALL] if level == _HOST and not any(hosts) else _PER[level]
    prefix = f"{sums.files[run]}: " if len(sums.files) > 1 else ""
    return f"{prefix}{n_ranks} rank{'s' if n_ranks != 1 else ''}{where}{counted}: {per}"


def rank_grouping(sums: RegionColumns, mode: str, metrics: Sequence[str | None]
                  ) -> RankGrouping | None:
    """The groups of ranks of ``mode`` (a :data:`GROUP_RANKS_CHOICES` value), or None.

    None means one point per rank everywhere: ``mode="rank"``, or
    ``"auto"`` when no run counts one of ``metrics`` (the bandwidth metrics
    of the points) on some ranks only.
    """
    if mode == "rank":
        return None
    split = split_runs(sums, metrics) if mode == "auto" else np.zeros(0, dtype=bool)
    if mode == "auto" and not split.any():
        return None
    levels = _levels(sums, mode, split)
    places = sums.rank_places()
    host_codes = pd.factorize(places.hosts)[0]
    place = np.select([levels == _RANK, levels == _SOCKET, levels == _HOST],
                      [sums.key_numbers("rank"), places.sockets, np.zeros(len(sums), np.int64)],
                      default=0)
    index = pd.MultiIndex.from_arrays([_region_keys(sums), levels, np.where(levels == _ALL, 0,
                                                                            host_codes), place])
    codes, _ = index.factorize()
    codes = np.asarray(codes, dtype=np.intp)
    n_groups = int(codes.max()) + 1 if len(codes) else 0
    first = np.full(n_groups, len(codes), dtype=np.intp)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.intp))
    group_levels = levels[first]
    names = np.array([_place_name(int(level), str(host), int(socket)) for level, host, socket
                      in zip(group_levels.tolist(), places.hosts[first].tolist(),
                             places.sockets[first].tolist())], dtype=object)
    notes = []
    if mode != "all":
        file_codes = sums.label_codes("file")[0]
        for run in np.unique(file_codes[levels != _RANK]).tolist():
            rows = np.flatnonzero(file_codes == run)
            notes.append(_note(sums, run, int(levels[rows[0]]), metrics, rows))
    return RankGrouping(codes, group_levels != _RANK, names, _run_ranks(sums)[first],
                        tuple(notes), mode == "all")


def _run_ranks(sums: RegionColumns) -> np.ndarray:
    """Per row how many distinct ranks its run has."""
    file_codes = sums.label_codes("file")[0].astype(np.int64)
    if not len(file_codes):
        return np.zeros(0, dtype=np.int64)
    pairs = pd.MultiIndex.from_arrays([file_codes, sums.key_numbers("rank")]).unique()
    counts = np.bincount(pairs.get_level_values(0).to_numpy(), minlength=len(sums.files))
    return counts[file_codes]
