"""The sums the widget and ``plot_roofline`` draw, and the chain they draw them with.

One rule for both (:func:`chained_sums`): data that is ONE file of several runs
(a scaling study appended to one log, :class:`~roofline_widget.io.chain.FileChain`)
is drawn as a chain when no ``baseline=`` is given and ``chain`` is true: the
points are the last run's, the earlier runs are the baseline chain whose
trajectories the comparison draws.  Anything else is drawn as it is: a list
of runs (files each of several runs too) one point per region and run, and
an explicit ``baseline=`` wins over the chain (the data's runs are all points).
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline_widget.io.chain import FileChain, file_chain
from roofline_widget.points.region_sums import RegionSums

__all__ = ["ChainedSums", "chained_sums"]


@dataclass(frozen=True)
class ChainedSums:
    """What to draw: the points' sums, the baseline they are compared with, the chain.

    Attributes
    ----------
    sums : RegionSums
        The sums of the points drawn (of the last run for a chain).
    baseline : object
        The ``baseline=`` given, else the chain's earlier runs
        (:attr:`FileChain.baseline <roofline_widget.io.chain.FileChain.baseline>`),
        else None.
    chain : FileChain or None
        The runs drawn as a chain (None: no chain).
    """

    sums: RegionSums
    baseline: object
    chain: FileChain | None


def chained_sums(data, *, baseline=None, chain: bool = True,
                 engine: str = "auto") -> ChainedSums:
    """The sums to draw of ``data`` and the chain they are drawn with (see the module docstring).

    Parameters
    ----------
    data : run or list of runs
        Anything :meth:`RegionSums.from_runs` takes (read once here).
    baseline : run data, mapping or None
        An explicit baseline: no chain, ``data`` is drawn as it is.
    chain : bool
        False: no chain, every run of ``data`` is drawn as points.
    engine : {"auto", "h5py", "raw"}
        The reader of scope-profiler HDF5 files.

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> drawn = chained_sums(sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"))
    >>> drawn.chain is None, drawn.baseline is None, len(drawn.sums.files)
    (True, True, 1)
    """
    if baseline is not None or not chain:
        return ChainedSums(RegionSums.from_runs(data, engine=engine), baseline, None)
    read, runs = file_chain(data, keep=(RegionSums,), engine=engine)
    sums = RegionSums.from_runs(read, engine=engine)
    return ChainedSums(sums, None if runs is None else runs.baseline, runs)
