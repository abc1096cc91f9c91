"""Clear errors for scope-profiler HDF5 files that cannot be read, shared by both HDF5 engines.

h5py reports a truncated or damaged file as a bare ``OSError`` or
``KeyError`` (``wrong B-tree signature``, ``bad object header version
number``) that names neither the file nor the region; the raw engine finds
the same damage itself.  :func:`open_h5`, :func:`unreadable` and
:func:`damaged` turn either into one
:class:`~roofline_widget.errors.LikwidFormatError` naming the file (and the
rank and region).
"""

from __future__ import annotations

from roofline_widget.errors import LikwidFormatError

__all__ = ["H5_ERRORS", "REGIONS_PATH", "damaged", "open_h5", "unreadable"]

#: What h5py raises on damaged files (besides ValueError for some bad selections).
H5_ERRORS = (OSError, KeyError, RuntimeError)
#: Where the regions of one rank live, below its ``rank<r>`` group.
REGIONS_PATH = "likwid/regions"


def _message(exc: BaseException | str) -> str:
    """h5py's own words (a KeyError's message without the quotes of its repr)."""
    if isinstance(exc, str):
        return exc
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    return text.replace("Unable to synchronously ", "")


def unreadable(path: str, reason: BaseException | str) -> LikwidFormatError:
    """The error for a file HDF5 cannot open (truncated, damaged, not HDF5)."""
    return LikwidFormatError(str(path), None, "a readable HDF5 file (a truncated or damaged "
                             "file cannot be opened; was the run interrupted while writing?)",
                             _message(reason))


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
        raise unreadable(str(path), exc) from None


def damaged(where: str, exc: BaseException | str) -> LikwidFormatError:
    """The error for an HDF5 object that cannot be read (the file is damaged there)."""
    return LikwidFormatError(where, None, "readable HDF5 objects (the file is damaged here)",
                             _message(exc))
