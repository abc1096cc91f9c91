"""roofline-widget: an interactive roofline model of LIKWID measurements.

Read LIKWID output with :func:`read_likwid` (or pass scope-profiler results),
compute points with :func:`collect_roofline_points`, draw a static figure with
:func:`plot_roofline` and explore interactively with :class:`RooflineWidget`.
"""

from importlib import resources as _resources
from typing import TYPE_CHECKING

from roofline_widget.errors import (
    CeilingFileError,
    CeilingWarning,
    EngineFallbackWarning,
    LikwidFormatError,
    LikwidReadWarning,
    MachineError,
    MetricChoiceWarning,
    OutputPathError,
    ParallelReadError,
    PointsTableError,
    RegionsLeftOutWarning,
    RooflineError,
    RooflineWarning,
    SelectionError,
    SelectionWarning,
    SettingError,
    StatSumMismatchWarning,
    ViewError,
    ViewWarning,
)
from roofline_widget.model import LikwidRun

__version__ = "0.1.0"

if TYPE_CHECKING:  # what the lazy names below are, for type checkers (never run)
    from roofline_widget.analysis.compare import compare_points
    from roofline_widget.analysis.gpu import gpu_ceilings, machine_rooflines
    from roofline_widget.analysis.guidance import guidance
    from roofline_widget.analysis.levels import hierarchical_left_out, hierarchical_points
    from roofline_widget.analysis.machine import machine_roofline
    from roofline_widget.analysis.sanity import sanity_check
    from roofline_widget.analysis.scaling import scaling_table
    from roofline_widget.analysis.spread import rank_spread
    from roofline_widget.analysis.theoretical import theoretical_roofline
    from roofline_widget.io import read_likwid
    from roofline_widget.io.bench import read_likwid_bench
    from roofline_widget.io.chain import run_chain
    from roofline_widget.io.ncu import read_ncu
    from roofline_widget.io.rocprof import read_rocprof
    from roofline_widget.io.stat_check import stat_comparisons
    from roofline_widget.io.topology import read_topology
    from roofline_widget.points import (
        RegionSums,
        Selection,
        collect_roofline_points,
        left_out_regions,
        points_dataframe,
    )
    from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof, Roofline
    from roofline_widget.static.plot import plot_roofline
    from roofline_widget.views import View
    from roofline_widget.widget import RooflineWidget

# Everything else is imported on first use (PEP 562), so that reading files
# does not pay for ipywidgets, bqplot or matplotlib.
_LAZY = {
    "read_likwid": ".io",
    "read_likwid_bench": ".io.bench",
    "read_ncu": ".io.ncu",
    "read_rocprof": ".io.rocprof",
    "read_topology": ".io.topology",
    "run_chain": ".io.chain",
    "RegionSums": ".points",
    "Selection": ".points",
    "collect_roofline_points": ".points",
    "left_out_regions": ".points",
    "points_dataframe": ".points",
    "BandwidthRoof": ".roofs.roofline",
    "ComputeRoof": ".roofs.roofline",
    "Roofline": ".roofs.roofline",
    "compare_points": ".analysis.compare",
    "hierarchical_left_out": ".analysis.levels",
    "hierarchical_points": ".analysis.levels",
    "machine_roofline": ".analysis.machine",
    "gpu_ceilings": ".analysis.gpu",
    "machine_rooflines": ".analysis.gpu",
    "guidance": ".analysis.guidance",
    "rank_spread": ".analysis.spread",
    "sanity_check": ".analysis.sanity",
    "scaling_table": ".analysis.scaling",
    "theoretical_roofline": ".analysis.theoretical",
    "stat_comparisons": ".io.stat_check",
    "plot_roofline": ".static.plot",
    "RooflineWidget": ".widget",
    "View": ".views",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "BandwidthRoof",
    "CeilingFileError",
    "CeilingWarning",
    "ComputeRoof",
    "EngineFallbackWarning",
    "LikwidFormatError",
    "LikwidReadWarning",
    "LikwidRun",
    "MachineError",
    "MetricChoiceWarning",
    "OutputPathError",
    "ParallelReadError",
    "PointsTableError",
    "RegionSums",
    "RegionsLeftOutWarning",
    "Roofline",
    "RooflineError",
    "RooflineWarning",
    "RooflineWidget",
    "Selection",
    "SelectionError",
    "SelectionWarning",
    "SettingError",
    "StatSumMismatchWarning",
    "View",
    "ViewError",
    "ViewWarning",
    "collect_roofline_points",
    "compare_points",
    "gpu_ceilings",
    "guidance",
    "hierarchical_left_out",
    "hierarchical_points",
    "left_out_regions",
    "machine_roofline",
    "machine_rooflines",
    "plot_roofline",
    "points_dataframe",
    "rank_spread",
    "read_likwid",
    "read_likwid_bench",
    "read_ncu",
    "read_rocprof",
    "read_topology",
    "run_chain",
    "sample_names",
    "sample_path",
    "sanity_check",
    "scaling_table",
    "stat_comparisons",
    "theoretical_roofline",
]


def sample_names() -> list[str]:
    """List the real LIKWID outputs bundled with the package.

    Their provenance (repository, commit, path) is in ``SOURCES.md`` next to
    them: ``sample_path("SOURCES.md")``.

    Returns
    -------
    list of str
        The file names, for :func:`sample_path`.
    """
    folder = _resources.files(__name__) / "data"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".txt", ".csv")))


def sample_path(name: str) -> str:
    """Path of a bundled real LIKWID output file (see :func:`sample_names`).

    Parameters
    ----------
    name : str
        A file name of :func:`sample_names`, ``"SOURCES.md"`` or a path inside the samples'
        folder (``"machine_milan_epyc7763_16c/milan_l2_16c.log"``).

    Returns
    -------
    str
        The path.

    Raises
    ------
    FileNotFoundError
        If no such file is bundled.
    """
    path = _resources.files(__name__) / "data" / name
    if not path.is_file():
        raise FileNotFoundError(f"no bundled sample {name!r}; available: {sample_names()}")
    return str(path)
