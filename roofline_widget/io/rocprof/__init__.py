"""rocprof-compute (formerly Omniperf) workloads to a :class:`~roofline_widget.model.LikwidRun` of AMD kernels.

``rocprof-compute profile -n <name> -- ./app`` writes a workload folder
(``workloads/<name>/<GPU>/``) with, among others,

* ``pmc_perf.csv``: one row per kernel dispatch, about a thousand counter
  columns (``SQ_INSTS_VALU_*``, ``TCC_EA_*``, ...) and the dispatch's
  ``Start_Timestamp``/``End_Timestamp`` in nanoseconds;
* ``sysinfo.csv``: the GPU (model, architecture, compute units, LDS banks) and
  the machine;
* ``roofline.csv``: the ceilings its micro-benchmark measured per GPU (read
  by :func:`~roofline_widget.io.ceiling_files.read_rocprof_roofline`, not
  here; :func:`workload_roofline` finds it beside the counters, and
  :func:`~roofline_widget.gpu_ceilings` of a run read here takes its roofs).

:func:`read_rocprof` reads the first two into the package's canonical run,
as :func:`~roofline_widget.read_ncu` does for Nsight Compute: a region is a
kernel, a "thread" the GPU it ran on (``GPU 2``), the group ``"ROCPROF"``,
the device ``"gpu"``; FLOPs, bytes and seconds by rocprof-compute's own
formulas (:mod:`.counters`), each vector and matrix precision its own metric
(``DP [MFLOP/s]``, ``MFMA F64 [MFLOP/s]``, ...), each memory level its own
bandwidth (``Memory``, ``L2``, ``L1``, ``LDS bandwidth [MBytes/s]``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.kernels import LAUNCH_MODES, check_launch_mode, kernel_run
from roofline_widget.io.opener import PathOrBuffer, is_file_like, open_text, peek
from roofline_widget.io.parsed import warn_passed_over
from roofline_widget.io.rocprof.counters import dispatch_counts, no_flop_notes, used_counters
from roofline_widget.io.rocprof.table import CsvTable, SysInfo, numbers, parse_sysinfo, read_table
from roofline_widget.model import GPU_PROFILER_GROUPS, DeviceFamily, Layout, LikwidRun

__all__ = ["GROUP", "LAUNCH_MODES", "PMC_PERF", "ROOFLINE", "SYSINFO", "SysInfo", "beside",
           "is_pmc_perf", "is_rocprof_path", "read_rocprof", "rocprof_run", "rocprof_workload",
           "workload_roofline"]

#: The group name of every row a rocprof-compute workload gives (``run.groups``).
GROUP = GPU_PROFILER_GROUPS[DeviceFamily.AMD]
#: The file names in a workload folder.
PMC_PERF = "pmc_perf.csv"
SYSINFO = "sysinfo.csv"
ROOFLINE = "roofline.csv"
_REQUIRED = ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_WHAT = "rocprof-compute pmc_perf.csv"


def is_pmc_perf(text: str) -> bool:
    """Whether ``text`` starts with the header of a rocprof-compute ``pmc_perf.csv``.

    Examples
    --------
    >>> is_pmc_perf("Dispatch_ID,Kernel_Name,GPU_ID,SQ_WAVES,Start_Timestamp,End_Timestamp\\n0,k,0,1,2,3")
    True
    >>> is_pmc_perf('"ID","Process ID","Kernel Name"')
    False
    """
    header = text[:200_000].split("\n", 1)[0]
    cells = {cell.strip().strip('"') for cell in header.split(",")}
    return "Dispatch_ID" in cells and all(name in cells for name in _REQUIRED)


def is_rocprof_path(path_or_buffer: PathOrBuffer) -> bool:
    """Whether a path is a rocprof-compute workload folder (with ``pmc_perf.csv``) or a plain
    ``pmc_perf.csv`` (its first bytes ``Dispatch_ID,``); False for file objects."""
    if is_file_like(path_or_buffer):
        return False
    path = Path(os.fspath(path_or_buffer))  # type: ignore[arg-type]
    if path.is_dir():
        return (path / PMC_PERF).is_file()
    return peek(path_or_buffer, 64).lstrip(b"\xef\xbb\xbf").startswith(b"Dispatch_ID,")


def _integers(table: CsvTable, name: str, missing: int) -> np.ndarray:
    if not table.has(name):
        return np.full(len(table.rows), missing, dtype=np.int64)
    values = numbers(table, name)
    bad = np.isfinite(values) & (values != np.round(values))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise LikwidFormatError(table.source, table.lines[at], f"an integer in column {name!r}",
                                table.cells(name)[at].strip())
    return np.where(np.isfinite(values), values, missing).astype(np.int64)


def _launches(table: CsvTable, sysinfo: SysInfo | None) -> pd.DataFrame:
    n = len(table.rows)
    dispatch = _integers(table, "Dispatch_ID", -1)
    return pd.DataFrame({
        "source": np.full(n, table.source, dtype=object),
        "line": np.asarray(table.lines, dtype=np.int64),
        "rank": np.zeros(n, dtype=np.int64),
        "launch": np.where(dispatch >= 0, dispatch, np.arange(n)),
        "kernel": np.asarray(table.cells("Kernel_Name"), dtype=object),
        "host": np.full(n, (sysinfo.hostname if sysinfo else None) or "", dtype=object),
        "device": _integers(table, "GPU_ID", -1),
    })


def rocprof_run(pmc_text: str, source: str, *, sysinfo: SysInfo | None = None,
                label: str | None = None, launches: str = "sum",
                notes: list[str] | None = None) -> LikwidRun:
    """The run of one ``pmc_perf.csv`` text, without warning (see :func:`read_rocprof`).

    Raises
    ------
    LikwidFormatError
        For a file that is no ``pmc_perf.csv`` (no ``Kernel_Name``, ``Start_Timestamp``
        or ``End_Timestamp`` column), has no dispatch row, a row of another width than
        the header, or a counter that is no number.
    """
    check_launch_mode(launches)
    table = read_table(pmc_text, source, _WHAT)
    missing = [name for name in _REQUIRED if not table.has(name)]
    if missing:
        raise LikwidFormatError(source, 1, f"{_WHAT}: a header with the columns "
                                f"{', '.join(_REQUIRED)}", f"no {', '.join(missing)}")
    if not table.rows:
        raise LikwidFormatError(source, 2, f"{_WHAT}: at least one kernel dispatch row", "none")
    counts = dispatch_counts(table, sysinfo)
    frame = _launches(table, sysinfo)
    events = pd.DataFrame({name: numbers(table, name) for name in used_counters()
                           if table.has(name)})
    return kernel_run(
        frame, counts, group=GROUP, sources=(source,), label=label, layout=str(Layout.ROCPROF),
        events=events, device_name=sysinfo.device_name if sysinfo else None,
        launch_mode=launches,
        notes=[*(notes or []), *no_flop_notes(frame["kernel"].to_numpy(), counts)])


def beside(pmc_perf: str | os.PathLike, name: str) -> Path:
    """The workload file ``name`` (``sysinfo.csv``, ``roofline.csv``) beside a ``pmc_perf.csv``.

    Beside ``<prefix>pmc_perf.csv`` (also compressed, ``<prefix>pmc_perf.csv.gz``) it is
    ``<prefix><name>`` (the bundled samples are ``mi200_dispatch0_pmc_perf.csv``,
    ``mi200_dispatch0_sysinfo.csv``, ...); beside any other name, ``<name>``.  Whether the
    file exists is the caller's question.

    Examples
    --------
    >>> beside("workloads/app/MI200/pmc_perf.csv", "roofline.csv").as_posix()
    'workloads/app/MI200/roofline.csv'
    >>> beside("data/mi200_dispatch0_pmc_perf.csv.gz", "sysinfo.csv").name
    'mi200_dispatch0_sysinfo.csv'
    """
    path = Path(os.fspath(pmc_perf))
    stem = _counters_name(path)
    prefix = stem[:-len(PMC_PERF)] if stem.endswith(PMC_PERF) else ""
    return path.parent / f"{prefix}{name}"


def _counters_name(path: Path) -> str:
    """A file's name without a compression suffix (``pmc_perf.csv.gz``: ``pmc_perf.csv``)."""
    return path.stem if path.suffix.lower() in _COMPRESSED_SUFFIXES else path.name


def workload_roofline(run: LikwidRun) -> list[Path]:
    """The ``roofline.csv`` files beside the ``pmc_perf.csv`` files a run was read from.

    rocprof-compute's micro-benchmark writes the ceilings it measured beside
    the counters of the workload (``workloads/<name>/<GPU>/roofline.csv``):
    the roofs that judge its kernels.  Empty for a run of no rocprof-compute
    file, or of one without a ``roofline.csv`` beside it (a file object, a
    workload profiled without the roofline benchmark).
    """
    found: dict[Path, None] = {}
    for source in run.sources:
        path = Path(str(source))
        if not path.is_file() or not (_counters_name(path).endswith(PMC_PERF)
                                      or is_rocprof_path(path)):
            continue
        ceilings = beside(path, ROOFLINE)
        if ceilings.is_file():
            found[ceilings] = None
    return list(found)


def _files(path_or_folder: PathOrBuffer) -> tuple[PathOrBuffer, str | None, list[str]]:
    """(pmc_perf.csv, sysinfo.csv beside it or None, notes) of a folder or a file.

    Beside ``<prefix>pmc_perf.csv`` the machine is ``<prefix>sysinfo.csv``.
    """
    if is_file_like(path_or_folder):
        return path_or_folder, None, [f"no {SYSINFO} given with the file object: no GPU "
                                      "name, no LDS bytes"]
    path = Path(os.fspath(path_or_folder))  # type: ignore[arg-type]
    if path.is_dir():
        pmc = path / PMC_PERF
        if not pmc.is_file():
            raise LikwidFormatError(str(path), None, f"a rocprof-compute workload folder with "
                                    f"{PMC_PERF}", f"no {PMC_PERF} in it")
        path = pmc
    sysinfo = beside(path, SYSINFO)
    if sysinfo.is_file():
        return path, str(sysinfo), []
    return path, None, [f"no {sysinfo.name} beside {path.name}: no GPU name, no LDS bytes"]


def read_rocprof(path_or_folder: PathOrBuffer, *, sysinfo: PathOrBuffer | None = None,
                 label: str | None = None, launches: str = "sum") -> LikwidRun:
    """Read a rocprof-compute workload (``pmc_perf.csv`` and ``sysinfo.csv``) into a run of AMD GPU kernels.

    Parameters
    ----------
    path_or_folder : str, path-like or file object
        The workload folder (``workloads/<name>/MI200``), or its ``pmc_perf.csv``
        (``sysinfo.csv`` is read from beside it; beside ``<prefix>pmc_perf.csv``,
        ``<prefix>sysinfo.csv``), plain or compressed.
    sysinfo : str, path-like or file object, optional
        The ``sysinfo.csv`` to read instead of the one beside the counters.
    label : str, optional
        Name of the run (default: the file's stem).
    launches : {"sum", "mean", "each"}
        How the dispatches of one kernel are combined, as in :func:`~roofline_widget.read_ncu`.

    Returns
    -------
    LikwidRun
        One row per (kernel, GPU): device ``"gpu"``, group ``"ROCPROF"``, layout
        ``"rocprof-compute"``; metrics ``DP/SP/HP [MFLOP/s]`` (vector) and ``MFMA
        F64/F32/F16/BF16 [MFLOP/s]`` (matrix) for the precisions the kernels used,
        ``Memory/L2/L1/LDS bandwidth [MBytes/s]`` and ``... data volume [GBytes]``;
        ``runtime_s`` the kernel's time, ``cpu_name`` the GPU (``"AMD MI200 (gfx90a,
        104 CUs)"``), ``events`` the counters the formulas read.

    Raises
    ------
    LikwidFormatError
        For a folder without ``pmc_perf.csv`` or a file that cannot be read (the
        message names the file, the line and what was expected).
    ValueError
        For an unknown ``launches``.

    Warns
    -----
    LikwidReadWarning
        Listing what was passed over (a missing ``sysinfo.csv``, counters
        missing for a level, kernels without FLOPs); also in ``run.warnings``.

    Examples
    --------
    >>> import warnings
    >>> from roofline_widget import read_rocprof, sample_path
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # vecCopy: a copy, no FLOPs
    ...     run = read_rocprof(sample_path("rocprof/mi200_dispatch0_pmc_perf.csv"))
    >>> run.regions, run.cpu_name
    (['vecCopy'], 'AMD MI200 (gfx90a, 104 CUs)')
    """
    run = rocprof_workload(path_or_folder, sysinfo=sysinfo, label=label, launches=launches)
    warn_passed_over(run.sources[0], run.warnings, stacklevel=2)
    return run


def rocprof_workload(path_or_folder: PathOrBuffer, *, sysinfo: PathOrBuffer | None = None,
                     label: str | None = None, launches: str = "sum") -> LikwidRun:
    """:func:`read_rocprof` without warning: what was passed over is in ``run.warnings``."""
    check_launch_mode(launches)
    pmc, found_sysinfo, notes = _files(path_or_folder)
    machine = None
    if sysinfo is not None or found_sysinfo is not None:
        source = open_text(sysinfo if sysinfo is not None else found_sysinfo,  # type: ignore[arg-type]
                           "rocprof-compute sysinfo.csv")
        machine, machine_notes = parse_sysinfo(source.text, source.name)
        notes = machine_notes if sysinfo is not None else notes + machine_notes
    source = open_text(pmc, _WHAT)
    return rocprof_run(source.text, source.name, sysinfo=machine, label=label, launches=launches,
                       notes=notes)
