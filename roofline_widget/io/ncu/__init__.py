"""Nsight Compute CSV exports to :class:`~roofline_widget.model.LikwidRun`: GPU kernels as regions.

The standard way to a GPU roofline (NERSC's method) profiles the kernels
with ``ncu --csv --metrics`` the FLOP counters, ``dram__bytes.sum`` (and
``lts__t_bytes.sum``, ``l1tex__t_bytes.sum`` for the hierarchical
roofline) and ``sm__cycles_elapsed.avg[.per_second]``, often in two passes.
:func:`read_ncu` reads such exports (details or raw page, one file or
several) into the package's canonical run, so that points, comparison,
saved views, the spread over ranks and the widget work on GPU kernels as
on LIKWID regions:

* :mod:`.export` reads one file (:func:`parse_ncu`);
* :mod:`.join` joins the passes of one process and numbers the ranks;
* :mod:`.messages` keeps ncu's ``==ERROR==``/``==WARNING==`` lines as notes;
* :mod:`.counters` computes FLOPs, seconds and bytes per launch;
* :mod:`roofline_widget.io.kernels` combines the launches per kernel into the
  run (as for every profiler).

:func:`~roofline_widget.read_likwid` recognises the exports by their header
and reads all of those it is given together (their passes joined).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import cast

import pandas as pd

from roofline_widget.io.kernels import LAUNCH_MODES, check_launch_mode, kernel_run, short_name
from roofline_widget.io.ncu.counters import GROUP, PEAK_SUFFIX, launch_counts
from roofline_widget.io.ncu.export import (
    LAUNCH_COLUMNS,
    NcuExport,
    is_ncu_export,
    parse_ncu,
    rank_from_name,
)
from roofline_widget.io.ncu.join import join_passes
from roofline_widget.io.opener import PathOrBuffer, is_file_like, open_text
from roofline_widget.io.parsed import warn_passed_over
from roofline_widget.model import LikwidRun

__all__ = [
    "LAUNCH_MODES",
    "NcuExport",
    "is_ncu_export",
    "ncu_run",
    "parse_ncu",
    "rank_from_name",
    "read_ncu",
    "short_name",
]

_WHAT = "Nsight Compute CSV export (ncu --csv)"


def ncu_run(exports: Sequence[NcuExport], *, label: str | None = None, launches: str = "sum",
            tensor_flop_per_instruction: float | None = None) -> LikwidRun:
    """The run of parsed exports of one job (their passes joined), without warning.

    Parameters
    ----------
    exports : sequence of NcuExport
        What :func:`parse_ncu` returned for each file, in order.
    label, launches, tensor_flop_per_instruction
        As in :func:`read_ncu`.

    Returns
    -------
    LikwidRun
        Its :attr:`~roofline_widget.model.LikwidRun.warnings` hold what was
        passed over (:func:`read_ncu` and ``read_likwid`` warn them).
    """
    check_launch_mode(launches)
    exports = list(exports)
    joined, notes = join_passes(exports)
    counts = launch_counts(joined, tensor_flop_per_instruction)
    layouts = sorted({str(e.layout) for e in exports})
    events = joined[joined.columns[len(LAUNCH_COLUMNS):]]
    return kernel_run(joined, counts, group=GROUP,
                      sources=tuple(dict.fromkeys(e.source for e in exports)), label=label,
                      layout=" / ".join(layouts), events=events,
                      largest=frozenset(m for m in events.columns
                                        if m.endswith((PEAK_SUFFIX, ".per_second"))),
                      device_name=_device_name(joined), launch_mode=launches,
                      notes=[w for e in exports for w in e.warnings] + notes)


def _device_name(launches: pd.DataFrame) -> str | None:
    """The GPUs' names (``device__attribute_display_name``), else their compute capability."""
    names = sorted({str(d) for d in launches["device_name"].dropna()}) or [
        f"NVIDIA GPU (compute capability {cc})" for cc in sorted(set(launches["cc"]) - {""})]
    return " / ".join(names) or None


def read_ncu(path_or_paths: PathOrBuffer | Iterable[PathOrBuffer], *, label: str | None = None,
             launches: str = "sum", tensor_flop_per_instruction: float | None = None) -> LikwidRun:
    """Read Nsight Compute CSV exports of one job into a :class:`LikwidRun` of GPU kernels.

    Parameters
    ----------
    path_or_paths : str, path-like, file object or sequence of them
        ``ncu --csv`` output (details page, the default, or ``--page raw``),
        plain or compressed, possibly after the program's own output.  Several
        files (or one file holding both) may be passes of one run: their
        launches are joined by launch ID and kernel name (:mod:`.join`).
    label : str, optional
        Name of the run (default: the first file's stem).
    launches : {"sum", "mean", "each"}
        ``"sum"``: per kernel the sum of FLOPs and bytes over its launches
        divided by their summed time (the kernel's aggregate point);
        ``"mean"``: the mean of the launches' rates; ``"each"``: one region
        per launch.  ``call_count`` is the launch count.
    tensor_flop_per_instruction : float, optional
        FLOPs per tensor-pipe instruction (``sm__inst_executed_pipe_tensor.sum``),
        e.g. 512 on V100 (NERSC's method); without it that counter is noted, not used.

    Returns
    -------
    LikwidRun
        One row per (rank, kernel, GPU): device ``"gpu"``, group ``"NCU"``,
        metrics ``DP/SP/HP [MFLOP/s]`` (``Tensor [MFLOP/s]``), ``Memory/L2/L1
        bandwidth [MBytes/s]`` and ``... data volume [GBytes]`` as exported;
        ``runtime_s`` the kernel's time, ``full_names`` the template names
        behind the short region names, ``events`` the counters summed over
        launches, ``cpu_name`` the GPU's name where exported.

    Raises
    ------
    LikwidFormatError
        For an export that cannot be read (the message names the file, the
        line and what was expected).
    ValueError
        For an unknown ``launches`` or a non-positive ``tensor_flop_per_instruction``.

    Warns
    -----
    LikwidReadWarning
        Listing what was passed over (counters that cannot be used, kernels
        with ``n/a`` values, a metric taken from one of two passes, ranks
        numbered by order); also in ``run.warnings``.

    Examples
    --------
    >>> from roofline_widget import read_ncu, sample_path
    >>> run = read_ncu(sample_path("ncu/gene_v100_fused-roof2_dgdxy_ncu_details.csv"))
    >>> run.regions
    ['kernel_assign_6 #1', 'kernel_assign_6 #2', 'kernel_assign_6 #3']
    >>> run.table["call_count"].tolist()
    [4.0, 4.0, 4.0]
    """
    check_launch_mode(launches)
    items: list[PathOrBuffer]
    if isinstance(path_or_paths, (str, os.PathLike)) or is_file_like(path_or_paths):
        items = [cast(PathOrBuffer, path_or_paths)]
    else:
        items = list(cast(Iterable[PathOrBuffer], path_or_paths))
    if not items:
        raise ValueError("read_ncu needs at least one file")
    exports = []
    for item in items:
        source = open_text(item, _WHAT)
        exports.append(parse_ncu(source.text, source.name))
    run = ncu_run(exports, label=label, launches=launches,
                  tensor_flop_per_instruction=tensor_flop_per_instruction)
    warn_passed_over(run.sources[0], run.warnings, stacklevel=2)
    return run
