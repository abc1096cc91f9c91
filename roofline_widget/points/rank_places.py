"""The host and socket names of a run's ranks, and the ranks a text names in the user's data.

:func:`rank_places_of` lists the places likwid-mpirun output names (hosts from
its ``host:rank:cpu`` columns, sockets from the log's likwid-topology block),
each with its ranks; :func:`ranks_of` reads a ranks text
(:func:`~roofline_widget.settings.rank_text.parse_rank_text`: ``"0-71,144"``,
``"f0702"``, ``"f07* socket 1"``) against them and the data's ranks.
"""

from __future__ import annotations

import pandas as pd

from roofline_widget.points.columns import RegionColumns
from roofline_widget.points.region_sums import RegionSums
from roofline_widget.settings.rank_text import parse_rank_text

__all__ = ["rank_places_of", "ranks_of"]


def rank_places_of(sums: RegionColumns) -> dict[str, list[int]]:
    """The host and socket names of the data, each with its ranks (sorted).

    Hosts as likwid-mpirun printed them; sockets as ``"<host> socket <n>"``
    (the names of the grouped points' ``rank_group``) where the log's
    likwid-topology block places the rank's cpus.  Empty for data without
    hosts (scope-profiler results, likwid-perfctr output).
    """
    places = sums.rank_places()
    frame = pd.DataFrame({"rank": sums.key_numbers("rank"), "host": places.hosts,
                          "socket": places.sockets}).drop_duplicates()
    named: dict[str, list[int]] = {}
    hosts = frame[frame["host"].astype(str) != ""]
    for host, ranks in hosts.groupby("host", sort=False)["rank"]:
        named[str(host)] = sorted(set(ranks.tolist()))
    sockets = frame[frame["socket"] >= 0]
    for (host, socket), ranks in sockets.groupby(["host", "socket"], sort=False)["rank"]:
        name = f"{host} socket {socket}" if host else f"socket {socket}"
        named[name] = sorted(set(ranks.tolist()))
    return named


def ranks_of(data: object, text: str) -> list[int]:
    """The ranks of ``data`` a text names (ranges cut to the data's ranks; host and socket names).

    Parameters
    ----------
    data : RegionSums or anything ``RegionSums.from_runs`` accepts
    text : str
        See :func:`parse_rank_text`.

    Returns
    -------
    list of int
        What ``ranks=`` of every function and the widget take.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> ranks_of(sample_path("mpirun_clx_sonata_48ranks_CACHES_marker.txt"), "sonata, 0-3")[-1]
    47
    """
    sums = RegionSums.from_runs(data)
    return parse_rank_text(text, rank_places_of(sums), known=sums.ranks)
