"""The host and socket names of a run's ranks, and the ranks a ``ranks`` value names in the data.

:func:`rank_places_of` lists the places likwid-mpirun output names (hosts from
its ``host:rank:cpu`` columns, sockets from the log's likwid-topology block),
each with its ranks; :func:`resolve_ranks` reads the value of the ``ranks``
setting (numbers, or a text such as ``"0-71,144"``, ``"f0702"``,
``"f07* socket 1"``: :func:`~roofline_widget.settings.rank_text.parse_rank_text`)
against them and the data's ranks; :func:`ranks_of` is the same for a text.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from roofline_widget.points.columns import RegionColumns
from roofline_widget.settings.rank_text import parse_rank_text

__all__ = ["rank_places_of", "ranks_of", "resolve_ranks"]


def rank_places_of(sums: RegionColumns) -> dict[str, list[int]]:
    """The host and socket names of the data, each with its ranks (sorted).

    Hosts as likwid-mpirun printed them; sockets as ``"<host> socket <n>"``
    (the names of the grouped points' ``rank_group``) where the log's
    likwid-topology block places the rank's cpus.  Empty for data without
    hosts (scope-profiler results, likwid-perfctr output).
    """
    places = sums.rank_places()
    named_rows = (places.hosts != "") | (places.sockets >= 0)
    if not named_rows.any():  # no host, no socket: nothing to name (and no table to build)
        return {}
    frame = pd.DataFrame({"rank": sums.key_numbers("rank")[named_rows],
                          "host": places.hosts[named_rows],
                          "socket": places.sockets[named_rows]}).drop_duplicates()
    named: dict[str, list[int]] = {}
    hosts = frame[frame["host"].astype(str) != ""]
    for host, ranks in hosts.groupby("host", sort=False)["rank"]:
        named[str(host)] = sorted(set(ranks.tolist()))
    sockets = frame[frame["socket"] >= 0]
    for (host, socket), ranks in sockets.groupby(["host", "socket"], sort=False)["rank"]:
        name = f"{host} socket {socket}" if host else f"socket {socket}"
        named[name] = sorted(set(ranks.tolist()))
    return named


def resolve_ranks(sums: RegionColumns, value: str | Iterable[int] | None) -> list[int] | None:
    """The ranks a value of the ``ranks`` setting names in ``sums``.

    Parameters
    ----------
    sums : RegionColumns
        The data (a :class:`~roofline_widget.points.RegionSums`).
    value : str, iterable of int, or None
        As the ``ranks`` rule keeps it
        (:func:`~roofline_widget.settings.rank_text.ranks`): a text is read
        against the data's host and socket names, its ranges cut to the
        data's ranks; numbers are kept as they are (the selection names those
        the data lacks).

    Returns
    -------
    list of int or None
        None for None (every rank).

    Raises
    ------
    SelectionError
        For a name the data does not have (naming those it has), or a text
        of the wrong shape.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return parse_rank_text(value, rank_places_of(sums), known=sums.ranks)
    return list(value)


def ranks_of(sums: RegionColumns, text: str) -> list[int]:
    """The ranks of ``sums`` a text names (ranges cut to the data's ranks; host and socket names).

    Parameters
    ----------
    sums : RegionColumns
        The data (``RegionSums.from_runs(data)``).
    text : str
        See :func:`~roofline_widget.settings.rank_text.parse_rank_text`.

    Returns
    -------
    list of int
        The ranks, sorted (every ``ranks=`` also takes the text itself).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> from roofline_widget.points import RegionSums
    >>> sums = RegionSums.from_runs(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt"))
    >>> ranks_of(sums, "sonata, 0-3")[-1]
    47
    """
    return parse_rank_text(text, rank_places_of(sums), known=sums.ranks)
