"""Several runs as a chain: ``{label: run}`` in order, for comparing runs of one study.

A file of several runs (a scaling study or a sweep appended to one log,
:mod:`roofline_widget.io.runs`) and a list of files both become one chain,
which :func:`~roofline_widget.compare_points` and the widget's compare layer
draw as trajectories.
"""

from __future__ import annotations

from roofline_widget.io import as_runs

__all__ = ["run_chain"]


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
