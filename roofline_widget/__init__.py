"""roofline-widget: an interactive roofline model of LIKWID measurements.

Read LIKWID output with :func:`read_likwid` (or pass scope-profiler results),
compute points with :func:`collect_roofline_points`, draw a static figure with
:func:`plot_roofline` and explore interactively with :class:`RooflineWidget`.
"""

from importlib import resources as _resources

from .errors import LikwidFormatError
from .io import read_likwid
from .io.bench import read_likwid_bench
from .model import LikwidRun
from .points import collect_roofline_points, left_out_regions, points_dataframe
from .ceilings import BandwidthRoof, ComputeRoof, Roofline
from .static_plot import plot_roofline
from .widget import RooflineWidget

__version__ = "0.1.0"

__all__ = [
    "BandwidthRoof",
    "ComputeRoof",
    "LikwidFormatError",
    "LikwidRun",
    "Roofline",
    "RooflineWidget",
    "collect_roofline_points",
    "left_out_regions",
    "plot_roofline",
    "points_dataframe",
    "read_likwid",
    "read_likwid_bench",
    "sample_path",
    "sample_names",
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
