"""Clear errors for damaged scope-profiler HDF5 files, shared by both HDF5 readers.

h5py reports a truncated or damaged file as a bare ``OSError`` or
``KeyError`` (``wrong B-tree signature``, ``bad object header version
number``) that names neither the file nor the region, and scope-profiler's
``ProfilingResults.from_h5`` lets a missing dataset through as ``KeyError``.
:func:`open_h5` and :func:`damaged` turn those into one
:class:`~roofline_widget.errors.LikwidFormatError` naming the file (and the
rank and region); :func:`check_scope_file` walks a whole file and raises the
first such problem, which :func:`~roofline_widget.io.scope.objects.read_scope_h5`
uses to explain a failure of ``from_h5``.
"""

from __future__ import annotations

from roofline_widget.errors import LikwidFormatError

__all__ = [
    "H5_ERRORS",
    "REGIONS_PATH",
    "REGION_DATASETS",
    "check_metric_names_value",
    "check_scope_file",
    "damaged",
    "missing_dataset",
    "open_h5",
]

#: What h5py raises on damaged files (besides ValueError for some bad selections).
H5_ERRORS = (OSError, KeyError, RuntimeError)
#: The datasets scope-profiler writes into every LIKWID region group.
REGION_DATASETS = ("cpus", "times", "call_counts", "events", "metrics")
#: Where the regions of one rank live, below its ``rank<r>`` group.
REGIONS_PATH = "likwid/regions"


def _h5_message(exc: BaseException) -> str:
    """h5py's own words (a KeyError's message without the quotes of its repr)."""
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    return text.replace("Unable to synchronously ", "")


def open_h5(path):
    """``h5py.File(path, "r")``; a file HDF5 cannot open is a :class:`LikwidFormatError`.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    LikwidFormatError
        If HDF5 cannot open it (truncated, damaged, not HDF5), naming the file.
    """
    import h5py

    try:
        return h5py.File(path, "r")
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise LikwidFormatError(str(path), None, "a readable HDF5 file (a truncated or damaged "
                                "file cannot be opened; was the run interrupted while writing?)",
                                _h5_message(exc)) from None


def damaged(where: str, exc: BaseException) -> LikwidFormatError:
    """The error for an HDF5 object that cannot be read (the file is damaged there)."""
    return LikwidFormatError(where, None, "readable HDF5 objects (the file is damaged here)",
                             _h5_message(exc))


def missing_dataset(group, where: str, names=REGION_DATASETS) -> LikwidFormatError | None:
    """The error for the first of ``names`` missing from the h5py ``group``, or None."""
    for name in names:
        if name not in group:
            return LikwidFormatError(where, None, f"a {name!r} dataset in every scope-profiler "
                                     "LIKWID region", f"only {', '.join(sorted(group)) or 'nothing'}")
    return None


def check_metric_names_value(value, where: str) -> None:
    """Refuse a ``metric_names`` attribute that is one string instead of a list of names."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        raise LikwidFormatError(where, None, "metric_names to be a list of metric names",
                                f"one string {value!r}, not a list")


def _rank_groups(handle) -> list[tuple[int, str]]:
    names = [name for name in handle if name.startswith("rank") and name[4:].isdigit()]
    return sorted((int(name[4:]), name) for name in names)


def _group_on_path(handle, names):
    """The group at the end of ``names``, listing every group on the way (None if absent).

    Listing a group reads its own index (a B-tree): a damaged one is found even
    where a lookup by path would pass it by.
    """
    group = handle
    for name in names:
        members = list(group)
        if name not in members:
            return None
        group = group[name]
    list(group.attrs)
    return group


def check_scope_file(path, datasets=REGION_DATASETS) -> None:
    """Read every LIKWID region of a scope-profiler file; raise the first problem found.

    Checked per region: the group opens, ``metric_names`` is a list, every one
    of ``datasets`` exists and reads. Used after a faster reader failed, to
    say where and why.

    Raises
    ------
    LikwidFormatError
        Naming the file, and the rank and region where there is one.
    """
    import h5py

    source = str(path)
    with open_h5(path) as handle:
        try:
            ranks = _rank_groups(handle)
        except H5_ERRORS as exc:
            raise damaged(source, exc) from None
        for rank, name in ranks:
            where = f"{source} (rank {rank})"
            try:
                regions = _group_on_path(handle, (name, *REGIONS_PATH.split("/")))
                links = list(regions) if regions is not None else []
            except H5_ERRORS as exc:
                raise damaged(where, exc) from None
            for link in links:
                where = f"{source} (rank {rank}, region {link.replace('|', '/')!r})"
                try:
                    region = regions[link]
                    if not isinstance(region, h5py.Group):
                        continue
                    check_metric_names_value(region.attrs.get("metric_names", []), where)
                    error = missing_dataset(region, where, datasets)
                    if error is not None:
                        raise error
                    for dataset in datasets:
                        region[dataset][()]
                except H5_ERRORS as exc:
                    raise damaged(where, exc) from None
