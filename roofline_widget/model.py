"""The canonical, columnar data model every reader produces.

A :class:`LikwidRun` holds what one LIKWID measurement (one file, or several
files of one job) reported, as one row per *(rank, region, group, hardware
thread)* in a pandas DataFrame.  Fixed key columns come first; every derived
metric follows as a float64 column named exactly as LIKWID printed it.  Raw
event counts live in a second frame with the same rows.

Code that aggregates (sums per region and rank, see :mod:`roofline_widget.points`)
works on these frames with vectorised groupby operations, never a Python loop
per region or thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from roofline_widget.enums import StrEnum
from roofline_widget.schema import KEY_COLUMNS
from roofline_widget.units import Unit, parse_unit

__all__ = ["CPU", "GPU", "GPU_PROFILER_GROUPS", "WHOLE_RUN_REGION", "Device", "DeviceFamily",
           "Layout", "LikwidRun", "device_family"]

#: Region name given to wrapper-mode output (likwid-perfctr without ``-m``),
#: which measures the whole program as one implicit region.
WHOLE_RUN_REGION = "(whole run)"



class Device(StrEnum):
    """What a thread column measured (a ``str``: ``Device.CPU == "cpu"``)."""

    CPU = "cpu"
    GPU = "gpu"


# Module-level names kept for the code that imports them.
CPU = Device.CPU
GPU = Device.GPU


class DeviceFamily(StrEnum):
    """Whose device a point ran on: the CPU, an NVIDIA or an AMD GPU (``GPU``: a GPU of a vendor
    the data does not tell).  Points are judged against the roofs of their own family
    (a roof's ``family``), and drawn in its colours."""

    CPU = "cpu"
    NVIDIA = "nvidia"
    AMD = "amd"
    GPU = "gpu"


class Layout(StrEnum):
    """The layout a run was read from (:attr:`LikwidRun.layout`)."""

    PERFCTR_TEXT = "perfctr-text"
    PERFCTR_CSV = "perfctr-csv"
    MPIRUN_TEXT = "mpirun-text"
    MPIRUN_CSV = "mpirun-csv"
    SCOPE_PROFILER = "scope-profiler"
    NCU_DETAILS = "ncu-details"
    NCU_RAW = "ncu-raw"
    POINTS_TABLE = "points-table"
    ROCPROF = "rocprof-compute"

#: The group of the rows each GPU profiler's reader gives, by the family of GPU it measures
#: (``run.groups``): a row's group says its family even in a run merged from several files.
GPU_PROFILER_GROUPS = {DeviceFamily.NVIDIA: "NCU", DeviceFamily.AMD: "ROCPROF"}
_GPU_LAYOUT_FAMILIES = {"ncu": DeviceFamily.NVIDIA, "rocprof": DeviceFamily.AMD}


def device_family(layout: str, device: str, groups: str = "") -> DeviceFamily:
    """The family of a ``device`` (``"cpu"``, ``"gpu"``) of rows of ``groups`` in a run of ``layout``.

    A GPU row of a GPU profiler's group (:data:`GPU_PROFILER_GROUPS`: ``"NCU"``, ``"ROCPROF"``,
    alone or joined, ``"FLOPS_DP+NCU"``) is of that profiler's family; else a GPU of an Nsight
    Compute run is NVIDIA's, of a rocprof-compute run AMD's; LIKWID's GPU groups (NVIDIA's or
    AMD's, LIKWID prints no vendor) are ``GPU``.

    Examples
    --------
    >>> str(device_family("ncu-details", "gpu")), str(device_family("perfctr-text", "cpu"))
    ('nvidia', 'cpu')
    >>> str(device_family("perfctr-text / ncu-details / rocprof-compute", "gpu", "ROCPROF"))
    'amd'
    """
    if str(device) != Device.GPU:
        return DeviceFamily.CPU
    named = set(str(groups).split("+"))
    found = {family for family, group in GPU_PROFILER_GROUPS.items() if group in named}
    if not found:
        found = {family for prefix, family in _GPU_LAYOUT_FAMILIES.items()
                 if prefix in str(layout)}
    return found.pop() if len(found) == 1 else DeviceFamily.GPU


@dataclass
class LikwidRun:
    """One LIKWID measurement, per hardware thread.

    The readers build it; each parameter is kept as the attribute of the same name.

    Parameters
    ----------
    label : str
        Name of the run in plots and tables (the file stem unless given).
    sources : tuple of str
        The file(s) the run was read from.
    table : pandas.DataFrame
        One row per (rank, region, group, thread): the :data:`KEY_COLUMNS`
        followed by one float64 column per derived metric (``NaN`` where
        LIKWID printed ``-`` or where the row's group has no such metric).
    events : pandas.DataFrame
        Raw event counts, same rows as :attr:`table`, one float64 column per
        ``"EVENT:COUNTER"`` pair.
    stats : pandas.DataFrame
        LIKWID's own STAT rows (``Sum``/``Min``/``Max``/``Avg``), kept only
        to cross-check sums (:mod:`roofline_widget.io.stat_check`); columns
        ``source, line`` (the region block's, as in :attr:`table`), ``rank,
        region, group_index, group, kind, name, Sum, Min, Max, Avg``.
    cpu_name, cpu_type, cpu_clock : str or None
        What the CPU header said, where printed.
    likwid_version : str or None
        Version range inferred from the layout (e.g. ``">= 5.1"``).
    layout : Layout or str
        Which layout the run came from (a :class:`Layout`: ``"perfctr-text"``,
        ``"perfctr-csv"``, ``"mpirun-text"``, ``"mpirun-csv"``,
        ``"scope-profiler"``, ``"ncu-details"``, ``"ncu-raw"``, ``"rocprof-compute"``;
        ``"a / b"`` for files of
        different layouts merged).
    warnings : list of str
        Things the reader noticed and passed over (interleaved lines are not
        warnings; ignored tables are).
    topology : roofline_widget.io.topology.Topology or None
        What likwid-topology printed in the same file (a job log that runs
        likwid-topology before the measurement): sockets, cores per socket,
        threads per core, cache sizes per level; None when the file holds
        none.
    runs : tuple of LikwidRun
        The runs of a file that holds several measurements one after another
        (a scaling study, a sweep, repetitions; see :mod:`roofline_widget.io.runs`),
        in file order, each with its own rows, label (``<file>#2 (8 threads)``)
        and :attr:`run_info`; empty for a file of one run.  :attr:`table`
        then holds the rows of all of them: every function that takes runs
        (``points_dataframe``, ``RegionSums.from_runs``, the widget) takes
        the runs apart, one point per region *and run*.
    run_info : roofline_widget.io.runs.RunInfo or None
        Where this run sits in a file of several (number, lines, what sets it
        apart); None for a whole file.
    full_names : dict of str to str
        The full name of each region shown under a shorter one: an Nsight
        Compute kernel's demangled (template) name under its short display
        name (:mod:`roofline_widget.io.ncu`); empty for LIKWID output.
    """

    label: str
    sources: tuple
    table: pd.DataFrame
    events: pd.DataFrame
    stats: pd.DataFrame = field(default_factory=pd.DataFrame)
    cpu_name: str | None = None
    cpu_type: str | None = None
    cpu_clock: str | None = None
    likwid_version: str | None = None
    layout: str = ""
    warnings: list = field(default_factory=list)
    topology: Any = None  # io.topology.Topology (not imported: model is below the readers)
    full_names: dict[str, str] = field(default_factory=dict)
    runs: tuple = ()
    run_info: Any = None  # io.runs.RunInfo

    def each_run(self) -> list[LikwidRun]:
        """The runs a consumer takes apart: :attr:`runs`, or ``[self]`` for a file of one run."""
        return list(self.runs) or [self]

    # ------------------------------------------------------------------ views
    @property
    def metric_names(self) -> list[str]:
        """Derived-metric names, in the order LIKWID first printed them."""
        return [c for c in self.table.columns[len(KEY_COLUMNS):]]

    @property
    def units(self) -> dict[str, Unit]:
        """Parsed :class:`~roofline_widget.units.Unit` of every metric."""
        return {name: parse_unit(name) for name in self.metric_names}

    @property
    def regions(self) -> list[str]:
        """Region tags in order of first appearance."""
        return list(pd.unique(self.table["region"].astype(object)))

    @property
    def ranks(self) -> list[int]:
        """MPI ranks present, ascending."""
        return sorted(int(r) for r in pd.unique(self.table["rank"]))

    @property
    def groups(self) -> list[str]:
        """Group names in order of first appearance."""
        return list(pd.unique(self.table["group"].astype(object)))

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        runs = f"{len(self.runs)} runs, " if self.runs else ""
        return (
            f"<LikwidRun {self.label!r}: {runs}{len(self.regions)} region(s), "
            f"{len(self.ranks)} rank(s), {len(self.table)} thread row(s), "
            f"groups {self.groups}, layout {self.layout!r}>"
        )

    def values(self, metric: str) -> np.ndarray:
        """Per-thread values of one metric as a float64 array."""
        if metric not in self.table.columns[len(KEY_COLUMNS):]:
            raise KeyError(f"no metric {metric!r} in run {self.label!r}; "
                           f"available: {self.metric_names}")
        return self.table[metric].to_numpy(dtype=float)
