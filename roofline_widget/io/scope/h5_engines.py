"""The two engines that read a scope-profiler HDF5 file: ``"raw"`` and ``"h5py"``.

Both offer the same four reads (:class:`ScopeFileReader`): the ranks with
LIKWID regions, the run label, the number of regions of a rank, and every
region of a rank as :class:`~roofline_widget.io.scope.regions_h5.RegionArrays`,
checked by the one :func:`~roofline_widget.io.scope.regions_h5.read_region`.

* :class:`RawReader` reads the layout h5py writes by default straight from
  the file (:mod:`~roofline_widget.io.scope.h5_raw`), about four times faster
  than h5py.  Damage is the package's :class:`LikwidFormatError`; a valid
  layout it does not read raises ``NotSupported``.
* :class:`H5pyReader` reads every HDF5 file through h5py's low-level API (no
  ``Group``/``Dataset`` wrappers).  libhdf5 may hang on a damaged file, so
  :mod:`~roofline_widget.io.scope.h5` runs it where a hang can be stopped.

h5py reports a truncated or damaged file as a bare ``OSError`` or ``KeyError``
(``wrong B-tree signature``, ``bad object header version number``) that names
neither the file nor the region; the raw engine finds the same damage itself.
:func:`open_h5`, :func:`unreadable` and :func:`damaged` turn either into one
:class:`LikwidFormatError` naming the file (and the rank and region).
"""

from __future__ import annotations

import itertools
import struct
from typing import Protocol

import numpy as np

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.scope.h5_format import Damaged
from roofline_widget.io.scope.h5_header import RawHeader
from roofline_widget.io.scope.h5_raw import RawH5
from roofline_widget.io.scope.regions_h5 import RegionArrays, check_unique_tags, read_region

__all__ = ["H5pyReader", "RawReader", "ScopeFileReader", "rank_number"]

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


#: What a parse of bytes that contradict each other may raise besides Damaged: all damage.
_RAW_SLIPS = (struct.error, IndexError, OverflowError, ValueError, KeyError, UnicodeDecodeError)


class ScopeFileReader(Protocol):
    """One open scope-profiler HDF5 file, read by one engine."""

    name: str

    def ranks(self) -> list[tuple[int, str]]:
        """(rank, group name) of every ``rank<r>`` group holding LIKWID regions, ranks ascending."""
        ...

    def label(self) -> str | None:
        """The ``metadata`` group's ``label`` attribute, None if absent."""
        ...

    def count_regions(self, group: str) -> int:
        """The number of region groups of one rank group."""
        ...

    def read_rank(self, rank: int, group: str, detail: bool) -> list[RegionArrays]:
        """Every region of one rank, in name order (``detail``: with cpus and events)."""
        ...

    def close(self) -> None:
        """Release the file."""
        ...


def _translated(where: str, errors: tuple[type[BaseException], ...], read, *args):
    """``read(*args)``; one of ``errors`` becomes :func:`damaged` naming ``where``."""
    try:
        return read(*args)
    except LikwidFormatError:
        raise
    except errors as exc:
        raise damaged(where, exc) from None


def rank_number(name: str) -> int | None:
    """The rank of a group named ``rank<digits>`` (ASCII digits), else None."""
    digits = name[4:]
    if name.startswith("rank") and digits.isascii() and digits.isdigit():
        return int(digits)
    return None


def _sorted_ranks(found: list[tuple[int, str]], path: str) -> list[tuple[int, str]]:
    found = sorted(found)
    for (rank, first), (other, second) in itertools.pairwise(found):
        if rank == other:
            raise LikwidFormatError(path, None, "one group per rank",
                                    f"groups {first!r} and {second!r} both for rank {rank}")
    return found


class RawReader:
    """The raw engine: :mod:`~roofline_widget.io.scope.h5_raw` on one file.

    Raises
    ------
    NotSupported
        If the file's superblock is outside what the raw engine reads.
    LikwidFormatError
        If the file is damaged (named: "cannot be opened").
    """

    name = "raw"

    def __init__(self, path):
        self.path = str(path)
        try:
            self.raw = RawH5(path)
        except (Damaged, *_RAW_SLIPS) as exc:
            raise unreadable(self.path, str(exc)) from None

    def close(self) -> None:
        self.raw.close()

    def _checked(self, where: str, read, *args):
        """``read(*args)``; damage becomes the package's error naming ``where``."""
        return _translated(where, (Damaged, *_RAW_SLIPS), read, *args)

    def _root(self) -> RawHeader:
        return self._checked(self.path, self.raw.header, self.raw.root)

    def ranks(self) -> list[tuple[int, str]]:
        found = []
        for name, address in self._checked(self.path, self.raw.links, self._root()):
            rank = rank_number(name)
            if rank is not None and self._checked(self.path, self._has_regions, address):
                found.append((rank, name))
        return _sorted_ranks(found, self.path)

    def _has_regions(self, address: int) -> bool:
        try:
            self.raw.member(self.raw.header(address), REGIONS_PATH)
        except KeyError:
            return False
        return True

    def label(self) -> str | None:
        def read():
            try:
                return self.raw.member(self._root(), "metadata").attribute("label")
            except KeyError:
                return None
        return self._checked(self.path, read)

    def count_regions(self, group: str) -> int:
        where = f"{self.path} (rank {rank_number(group)})"
        return self._checked(where, lambda: len(self.raw.links(self._regions(group))))

    def _regions(self, group: str) -> RawHeader:
        return self.raw.member(self._root(), f"{group}/{REGIONS_PATH}")

    def read_rank(self, rank: int, group: str, detail: bool) -> list[RegionArrays]:
        where_rank = f"{self.path} (rank {rank}"
        links = self._checked(f"{where_rank})", lambda: self.raw.links(self._regions(group)))
        regions = []
        for link, address in links:
            try:
                regions.append(read_region(_RawRegion(self.raw, address), link, where_rank, detail))
            except LikwidFormatError:
                raise
            except (Damaged, *_RAW_SLIPS) as exc:
                raise damaged(f"{where_rank}, region {link.replace('|', '/')!r})", exc) from None
        check_unique_tags(regions, where_rank)
        return regions


class _RawRegion:
    """A region group read by the raw engine (a :class:`RegionAccess`)."""

    def __init__(self, raw: RawH5, address: int):
        self.raw = raw
        self.header = raw.header(address)
        self._members = dict(raw.links(self.header))

    def attribute(self, name: str) -> object:
        return self.header.attribute(name)

    def members(self) -> list[str]:
        return list(self._members)

    def dataset(self, name: str) -> np.ndarray:
        return self.raw.values(self.raw.dataset(self._members[name]), np.float64)


class H5pyReader:
    """The h5py engine: h5py's low-level API on one file (reads every HDF5 layout).

    Raises
    ------
    LikwidFormatError
        If HDF5 cannot open the file.
    """

    name = "h5py"

    def __init__(self, path):
        self.path = str(path)
        self.handle = open_h5(path)

    def close(self) -> None:
        self.handle.close()

    def _checked(self, where: str, read, *args):
        """``read(*args)``; what h5py raises on damage becomes the package's error."""
        return _translated(where, (*H5_ERRORS, TypeError, ValueError), read, *args)

    def ranks(self) -> list[tuple[int, str]]:
        def read():
            return [(rank_number(name), name) for name in self.handle
                    if rank_number(name) is not None and f"{name}/{REGIONS_PATH}" in self.handle]
        return _sorted_ranks(self._checked(self.path, read), self.path)

    def label(self) -> str | None:
        def read():
            if "metadata" not in self.handle:
                return None
            return _attribute(self.handle["metadata"].id, "label")
        return self._checked(self.path, read)

    def count_regions(self, group: str) -> int:
        return self._checked(f"{self.path} (rank {rank_number(group)})",
                             lambda: len(self.handle[f"{group}/{REGIONS_PATH}"]))

    def read_rank(self, rank: int, group: str, detail: bool) -> list[RegionArrays]:
        where_rank = f"{self.path} (rank {rank}"
        regions_id = self._checked(f"{where_rank})",
                                   lambda: self.handle[f"{group}/{REGIONS_PATH}"].id)
        links = self._checked(f"{where_rank})", lambda: [_text(n) for n in regions_id])
        regions = [self._checked(f"{where_rank}, region {link.replace('|', '/')!r})",
                                 lambda link=link: read_region(_H5pyRegion(regions_id, link), link,
                                                               where_rank, detail))
                   for link in links]
        check_unique_tags(regions, where_rank)
        return regions


def _text(value) -> str:
    """A name or string value from HDF5, strictly UTF-8 (``UnicodeDecodeError`` otherwise)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _attribute(object_id, name: str) -> object:
    """An attribute read with h5py's low-level API, as str, int, float or a list of them."""
    import h5py

    key = name.encode()
    if not h5py.h5a.exists(object_id, key):
        return None
    attribute = h5py.h5a.open(object_id, key)
    dtype = attribute.dtype
    buffer = np.empty(attribute.shape or (), dtype=dtype)
    attribute.read(buffer, mtype=h5py.h5t.py_create(dtype))
    value = buffer.tolist()
    if isinstance(value, list):
        return [_text(v) if isinstance(v, bytes) else v for v in value]
    return _text(value) if isinstance(value, bytes) else value


class _H5pyRegion:
    """A region group read by the h5py engine (a :class:`RegionAccess`)."""

    def __init__(self, regions_id, link: str):
        import h5py

        self.id = h5py.h5o.open(regions_id, link.encode())
        if not isinstance(self.id, h5py.h5g.GroupID):
            raise TypeError("a dataset or other object where a region group belongs")
        self._members = [_text(n) for n in self.id]

    def attribute(self, name: str) -> object:
        return _attribute(self.id, name)

    def members(self) -> list[str]:
        return self._members

    def dataset(self, name: str) -> np.ndarray:
        import h5py

        dataset = h5py.h5d.open(self.id, name.encode())
        out = np.empty(dataset.shape, dtype=np.float64)
        if out.size:
            dataset.read(h5py.h5s.ALL, h5py.h5s.ALL, out)
        return out
