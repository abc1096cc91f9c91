"""The pieces of the HDF5 file format the direct reader decodes, and its two refusals.

Format reference: the HDF5 File Format Specification, sections II-IV
(superblock, B-trees, symbol table nodes and entries, local and global
heaps, object header messages).  Everything here decodes bytes already read
(no file access); :mod:`roofline_widget.io.scope.h5_raw` reads them.

A file the direct reader cannot read is refused in one of two ways:

* :class:`Damaged` (:class:`~roofline_widget.errors.HDF5DamagedError`): the
  bytes contradict the format (a wrong signature or version, an address past
  the end of the file, a size that does not match, a cycle, a name that is no
  UTF-8).  The caller reports the package's
  :class:`~roofline_widget.errors.LikwidFormatError` and never hands such a
  file to the HDF5 library, which may hang on it.
* :class:`NotSupported` (:class:`~roofline_widget.errors.HDF5NotSupportedError`):
  a valid part of the format outside the subset read here (newer superblocks
  and object headers, chunked or filtered datasets, dense attribute storage,
  ...).  The caller may read the file with h5py.
"""

from __future__ import annotations

import struct

import numpy as np

from roofline_widget.errors import HDF5DamagedError as Damaged
from roofline_widget.errors import HDF5NotSupportedError as NotSupported

__all__ = [
    "ATTRIBUTE",
    "ATTRIBUTE_INFO",
    "CONTINUATION",
    "DATASPACE",
    "DATATYPE",
    "EXTERNAL",
    "FILTERS",
    "LAYOUT",
    "LINK",
    "LINK_INFO",
    "NIL",
    "SYMBOL_TABLE",
    "UNDEFINED",
    "Damaged",
    "NotSupported",
    "dataspace_dims",
    "decode_datatype",
    "pad8",
]

#: The "undefined address" of the format (all bits set).
UNDEFINED = 0xFFFFFFFFFFFFFFFF
# object header message types (HDF5 File Format Specification, IV.A.2)
NIL, DATASPACE, LINK_INFO, DATATYPE = 0x00, 0x01, 0x02, 0x03
LINK, EXTERNAL, LAYOUT, FILTERS, ATTRIBUTE = 0x06, 0x07, 0x08, 0x0B, 0x0C
CONTINUATION, SYMBOL_TABLE, ATTRIBUTE_INFO = 0x10, 0x11, 0x15
#: The highest message type the specification defines.
LAST_MESSAGE_TYPE = 0x18
#: Float layouts h5py writes: size -> (offset, precision, exponent location and size,
#: mantissa location and size, exponent bias) of IEEE 754 binary32 / binary64.
_IEEE = {4: (0, 32, 23, 8, 0, 23, 127), 8: (0, 64, 52, 11, 0, 52, 1023)}
#: Datatype classes the format defines (fixed-point ... array).
_DATATYPE_CLASSES = range(11)
_MAX_RANK = 32


def pad8(n: int) -> int:
    """``n`` rounded up to a multiple of 8."""
    return (n + 7) & ~7


def dataspace_dims(data: bytes, start: int) -> tuple[int, ...]:
    """The dimensions of the dataspace message at ``data[start:]`` (``()`` for a scalar).

    Raises
    ------
    Damaged
        For an unknown version or more dimensions than HDF5 allows.
    NotSupported
        For a null dataspace or a permutation index.
    """
    version, rank, flags = data[start], data[start + 1], data[start + 2]
    if version == 1:
        dims_at = start + 8
    elif version == 2:
        if data[start + 3] == 2:
            raise NotSupported("null dataspace")
        dims_at = start + 4
    else:
        raise Damaged(f"dataspace message version {version}")
    if rank > _MAX_RANK:
        raise Damaged(f"dataspace of {rank} dimensions")
    if flags & ~0x01:
        raise NotSupported("dataspace with a permutation index")
    return struct.unpack_from(f"<{rank}Q", data, dims_at)


def decode_datatype(data: bytes, start: int = 0) -> np.dtype | str:
    """A numpy dtype for an IEEE float or integer type, ``"string"`` for a vlen string.

    Raises
    ------
    Damaged
        For a class or version the format does not define, or a string
        character set other than ASCII and UTF-8 (h5py: "Unknown string
        encoding").
    NotSupported
        For any other valid type (compound, enum, fixed-length strings,
        integers with padding bits, non-IEEE floats, ...).
    """
    head = data[start]
    kind, version = head & 0x0F, head >> 4
    bits = data[start + 1] | data[start + 2] << 8 | data[start + 3] << 16
    size = struct.unpack_from("<I", data, start + 4)[0]
    if kind not in _DATATYPE_CLASSES or version not in (1, 2, 3, 4, 5):
        raise Damaged(f"datatype class {kind}, version {version}")
    if version > 3:
        raise NotSupported(f"datatype version {version}")
    if kind == 0 and size in (1, 2, 4, 8):  # fixed-point
        offset, precision = struct.unpack_from("<HH", data, start + 8)
        if offset != 0 or precision != 8 * size or bits & ~0x0F:
            raise NotSupported("integer with padding bits")
        return np.dtype(f"{'>' if bits & 0x01 else '<'}{'i' if bits & 0x08 else 'u'}{size}")
    if kind == 1 and size in _IEEE:  # floating-point
        layout = struct.unpack_from("<HHBBBBI", data, start + 8)
        order = bits & 0x41
        if layout != _IEEE[size] or order not in (0, 1) or bits & 0x0E or \
                (bits >> 4) & 0x03 != 2 or (bits >> 8) & 0xFF != 8 * size - 1:
            raise NotSupported("floating-point type other than IEEE 754")
        return np.dtype(f"{'>' if order else '<'}f{size}")
    if kind == 9 and bits & 0x0F == 1:  # variable-length string
        if (bits >> 8) & 0x0F not in (0, 1):
            raise Damaged(f"string character set {(bits >> 8) & 0x0F} (neither ASCII nor UTF-8)")
        if size != 16:
            raise Damaged(f"variable-length string of size {size} (16 with 8-byte offsets)")
        return "string"
    raise NotSupported(f"datatype class {kind} of size {size}")
