"""Several runs as a chain: ``{label: run}`` in order, for comparing runs of one study.

A file of several runs (a scaling study or a sweep appended to one log,
:mod:`roofline_widget.io.runs`) and a list of files both become one chain,
which :func:`~roofline_widget.compare_points` and the widget's compare layer
draw as trajectories.

:func:`file_chain` says whether data is ONE file of several runs, the data
the widget and ``plot_roofline`` draw as a chain by default: the last run as
the points, the earlier runs as each region's trajectory
(:class:`FileChain`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roofline_widget.io import as_runs, run_of
from roofline_widget.io.inputs import run_inputs
from roofline_widget.io.runs import differing_words
from roofline_widget.model import LikwidRun

__all__ = ["CHAIN_LABELS_SHOWN", "FileChain", "file_chain", "run_chain"]

#: How many run labels a chain's summary names before it leaves out the middle ones.
CHAIN_LABELS_SHOWN = 4


@dataclass(frozen=True)
class FileChain:
    """The runs of one file of several, in file order: a chain ending at the last run.

    Attributes
    ----------
    file : str
        The file's name (``lulesh_....csv``; the files of one run joined by
        `` + ``), or the run's label when it was read from no file.
    labels : tuple of str
        Per run a short label: ``#<number>``, then the words of what sets it
        apart from the others (:func:`~roofline_widget.io.runs.differing_words`
        of the run details): ``#1 (size 30^3)``.
    runs : tuple of LikwidRun
        The runs, two or more.
    """

    file: str
    labels: tuple[str, ...]
    runs: tuple[LikwidRun, ...]

    @classmethod
    def of(cls, run: LikwidRun) -> FileChain:
        """The chain of a file's runs (``run.runs``, two or more)."""
        runs = tuple(run.runs)
        if len(runs) < 2:
            raise ValueError(f"{run.label!r} holds {len(runs) or 1} run(s); a chain needs two")
        details = [r.run_info.detail if r.run_info is not None else "" for r in runs]
        given = [detail for detail in details if detail]
        short = iter(differing_words(given))
        labels = [f"#{number}" + (f" ({next(short)})" if detail else "")
                  for number, detail in enumerate(details, start=1)]
        file = " + ".join(Path(str(source)).name for source in run.sources) or run.label
        return cls(file, tuple(labels), runs)

    @property
    def current(self) -> LikwidRun:
        """The last run: the points drawn."""
        return self.runs[-1]

    @property
    def baseline(self) -> dict[str, LikwidRun]:
        """The earlier runs by short label, in order: the chain's baseline (``baseline=``)."""
        return dict(zip(self.labels[:-1], self.runs[:-1]))

    def summary(self, shown: int = CHAIN_LABELS_SHOWN) -> str:
        """What is drawn, as plain text (the caller escapes it for HTML).

        The labels in order, the middle ones left out past ``shown``.

        Examples
        --------
        >>> run = LikwidRun.__new__(LikwidRun)
        >>> FileChain("log.txt", ("#1 (1 thread)", "#2 (2 threads)"), (run, run)).summary()
        '2 runs of log.txt drawn as a chain: #1 (1 thread) → #2 (2 threads)'
        """
        labels = list(self.labels)
        if len(labels) > shown:
            labels = [*labels[:max(shown - 1, 1)], "…", labels[-1]]
        return (f"{len(self.runs)} runs of {self.file} drawn as a chain: "
                + " → ".join(labels))


def file_chain(data, *, keep: tuple[type, ...] = (), engine: str = "auto"
               ) -> tuple[object, FileChain | None]:
    """``data`` read once, and the chain of its runs when it is ONE file of several runs.

    Parameters
    ----------
    data : run or list of runs
        Anything :func:`~roofline_widget.io.inputs.run_inputs` takes.
    keep : tuple of type
        Aggregates taken as they are (never a chain), as ``run_inputs(keep=)``.
    engine : {"auto", "h5py", "raw"}
        The reader of scope-profiler HDF5 files.

    Returns
    -------
    (object, FileChain or None)
        For one LIKWID run input (a ``LikwidRun``, a path, the files of one
        run) that holds several runs: its last run and the chain.  For one
        such input of one run: the run read, and None.  For anything else (a
        list of several runs, scope-profiler data, a kept aggregate):
        ``data`` itself, and None; a list of files each of several runs is
        no chain (their runs are points, one per region and run).
    """
    inputs = run_inputs(data, keep)
    if len(inputs) != 1 or inputs[0].engine != "per-thread":  # LIKWID output read per thread
        return data, None
    run = run_of(inputs[0], engine)
    if len(run.runs) < 2:
        return run, None
    chain = FileChain.of(run)
    return chain.current, chain


def run_chain(data) -> dict:
    """The runs of ``data`` in order, by label: the chain a run comparison takes.

    A file of several runs (a scaling study or a sweep appended to one log)
    becomes ``{"<file>#1 (...)": run1, "<file>#2 (...)": run2, ...}``, the
    mapping :func:`~roofline_widget.compare_points` and the widget's compare
    layer take as a chain, so each region's points form a trajectory over
    the runs.

    Parameters
    ----------
    data : LikwidRun, path, or a sequence of them
        Anything :func:`~roofline_widget.io.as_runs` accepts; each file of
        several runs gives each of its runs, in file order.

    Returns
    -------
    dict of str to LikwidRun
        In order; a repeated label is numbered (``label (2)``).

    Examples
    --------
    >>> from roofline_widget import sample_path
    >>> list(run_chain([sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact1t_1537x2048_give.txt"),
    ...                 sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact2t_1537x2048_give.txt")]))
    ['gmgpolar_skx4s_lw50_MEM_DP_compact1t_1537x2048_give', \
'gmgpolar_skx4s_lw50_MEM_DP_compact2t_1537x2048_give']
    """
    chain: dict = {}
    for run in as_runs(data):
        label, copy = run.label, 1
        while label in chain:
            copy += 1
            label = f"{run.label} ({copy})"
        chain[label] = run
    return chain
