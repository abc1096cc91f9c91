"""roofline-widget: an interactive roofline model of LIKWID measurements.

Read LIKWID output with :func:`read_likwid` (or pass scope-profiler results),
compute points with :func:`collect_roofline_points`, draw a static figure with
:func:`plot_roofline` and explore interactively with :class:`RooflineWidget`.
"""

from importlib import resources as _resources

from roofline_widget.errors import (
    LikwidFormatError,
    LikwidReadWarning,
    MetricChoiceWarning,
    OutputPathError,
    ParallelReadError,
    RegionsLeftOutWarning,
    RooflineError,
    RooflineWarning,
    SelectionWarning,
    StatSumMismatchWarning,
    ViewError,
    ViewWarning,
)
from roofline_widget.model import LikwidRun

__version__ = "0.1.0"

# Everything else is imported on first use (PEP 562), so that reading files
# does not pay for ipywidgets, bqplot or matplotlib.
_LAZY = {
    "read_likwid": ".io",
    "read_likwid_bench": ".io.bench",
    "read_topology": ".io.topology",
    "run_chain": ".io.runs",
    "RegionSums": ".points",
    "collect_roofline_points": ".points",
    "left_out_regions": ".points",
    "points_dataframe": ".points",
    "BandwidthRoof": ".ceilings",
    "ComputeRoof": ".ceilings",
    "Roofline": ".ceilings",
    "compare_points": ".analysis.compare",
    "hierarchical_left_out": ".analysis.levels",
    "hierarchical_points": ".analysis.levels",
    "machine_roofline": ".analysis.machine",
    "rank_spread": ".analysis.spread",
    "sanity_check": ".analysis.sanity",
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
    "ComputeRoof",
    "LikwidFormatError",
    "LikwidReadWarning",
    "LikwidRun",
    "MetricChoiceWarning",
    "OutputPathError",
    "ParallelReadError",
    "RegionSums",
    "RegionsLeftOutWarning",
    "Roofline",
    "RooflineError",
    "RooflineWarning",
    "RooflineWidget",
    "SelectionWarning",
    "StatSumMismatchWarning",
    "View",
    "ViewError",
    "ViewWarning",
    "collect_roofline_points",
    "compare_points",
    "hierarchical_left_out",
    "hierarchical_points",
    "left_out_regions",
    "machine_roofline",
    "plot_roofline",
    "points_dataframe",
    "rank_spread",
    "read_likwid",
    "read_likwid_bench",
    "read_topology",
    "run_chain",
    "sample_names",
    "sample_path",
    "sanity_check",
]


def sample_names() -> list[str]:
    """Names of the real LIKWID outputs bundled with the package.

    Their provenance (repository, commit, path) is in ``SOURCES.md`` next to
    them: ``sample_path("SOURCES.md")``.
    """
    folder = _resources.files(__name__) / "data"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".txt", ".csv")))


def sample_path(name: str) -> str:
    """Path of a bundled real LIKWID output file (see :func:`sample_names`)."""
    path = _resources.files(__name__) / "data" / name
    if not path.is_file():
        raise FileNotFoundError(f"no bundled sample {name!r}; available: {sample_names()}")
    return str(path)
