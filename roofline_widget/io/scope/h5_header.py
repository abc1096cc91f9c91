"""The file and the object headers of the direct HDF5 reader (:mod:`~roofline_widget.io.scope.h5_raw`).

:class:`RawFile` reads bytes with :func:`os.pread` through a small page
cache; there is no memory map, which kills the process with SIGBUS when the
file is cut while it is read (HPC jobs rewrite their output while a notebook
reads it).  Every range is checked against the file's size, and a short read
(the file shrank) is :class:`~roofline_widget.io.scope.h5_format.Damaged`.

:class:`RawHeader` indexes the messages of one version-1 object header and
decodes its attributes and its dataset messages.  Continuation blocks are
visited once each (one pointing back at a block already read is damage, not
a loop), and no more messages are read than the header announces.
"""

from __future__ import annotations

import math
import os
import stat
import struct
from typing import NamedTuple, Protocol

import numpy as np

from roofline_widget.io.scope.h5_format import (
    ATTRIBUTE,
    ATTRIBUTE_INFO,
    CONTINUATION,
    DATASPACE,
    DATATYPE,
    EXTERNAL,
    FILTERS,
    LAST_MESSAGE_TYPE,
    LAYOUT,
    LINK,
    LINK_INFO,
    NIL,
    SYMBOL_TABLE,
    UNDEFINED,
    Damaged,
    NotSupported,
    dataspace_dims,
    pad8,
)

__all__ = ["HEADER_PREFIX", "HeaderContext", "RawDataset", "RawFile", "RawHeader", "decode_utf8",
           "read_header_block"]

_U16 = struct.Struct("<H")
_ATTRIBUTE_HEAD = struct.Struct("<BBHHH")     # version, flags, name, datatype, dataspace sizes
_MAX_LAYOUTS = 256
_MESSAGE = struct.Struct("<HHB3x")            # type, size, flags
#: The first 16 bytes of a version-1 object header: version, messages, references, size.
HEADER_PREFIX = struct.Struct("<BxHII")
_PAGE_BITS = 16                               # 64 KiB pages
_MAX_PAGES = 64


class RawDataset(NamedTuple):
    """Where and how a dataset's values are stored.

    Attributes
    ----------
    shape : tuple of int
    dtype : numpy.dtype
        The stored type (byte order included).
    offset : int
        File offset of the values (contiguous storage), or -1.
    compact : bytes
        The values themselves for compact storage, else ``b""``.
    """

    shape: tuple
    dtype: np.dtype
    offset: int
    compact: bytes = b""


class RawFile:
    """The bytes of a regular file, read with ``os.pread`` through a small page cache.

    Every range asked for is checked against the size the file had when it
    was opened; a read that comes back short (the file was cut since) raises
    :class:`Damaged`.

    Parameters
    ----------
    path : str or path-like
    """

    def __init__(self, path):
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        status = os.fstat(self._fd)
        if not stat.S_ISREG(status.st_mode):
            os.close(self._fd)
            raise NotSupported("not a regular file")
        self.size = status.st_size
        #: Reads must end before this address (HDF5's end of allocated space, at most the size).
        self.limit = self.size
        self._pages: dict[int, bytes] = {}
        self._last_index, self._last_page = -1, b""

    def close(self) -> None:
        """Close the file descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def read(self, offset: int, size: int) -> bytes:
        """``size`` bytes at ``offset``.

        Raises
        ------
        Damaged
            If the range is not inside the file, or the file is shorter now.
        """
        if offset < 0 or size < 0 or offset + size > self.limit:
            raise Damaged(f"{size} bytes at address {offset}: past the end of the file "
                          f"({self.limit} bytes)")
        first, last = offset >> _PAGE_BITS, (offset + size - 1) >> _PAGE_BITS
        if size and first == last:
            if first == self._last_index:
                inside = offset - (first << _PAGE_BITS)
                return self._last_page[inside:inside + size]
            page = self._pages.get(first)
            if page is None:
                if len(self._pages) >= _MAX_PAGES:
                    del self._pages[next(iter(self._pages))]
                begin = first << _PAGE_BITS
                page = self._pages[first] = self._pread(begin, min(1 << _PAGE_BITS,
                                                                   self.size - begin))
            self._last_index, self._last_page = first, page
            inside = offset - (first << _PAGE_BITS)
            return page[inside:inside + size]
        return self._pread(offset, size)

    def read_upto(self, offset: int, size: int) -> bytes:
        """At most ``size`` bytes at ``offset``: fewer at the end of the file (a guess read at once)."""
        if offset < 0 or offset >= self.limit:
            raise Damaged(f"address {offset}: past the end of the file ({self.limit} bytes)")
        return self.read(offset, min(size, self.limit - offset))

    def _pread(self, offset: int, size: int) -> bytes:
        parts, done = [], 0
        while done < size:
            part = os.pread(self._fd, size - done, offset + done)
            if not part:
                raise Damaged(f"the file was cut while it was read ({self.size} bytes when opened)")
            parts.append(part)
            done += len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)


#: Bytes read at once for an object header (most are shorter; a longer one is read again).
_HEADER_GUESS = 512


def read_header_block(file: RawFile, start: int) -> bytes:
    """The first block of the version-1 object header at ``start`` (its 16-byte prefix included).

    Raises
    ------
    NotSupported
        For a version-2 header (``OHDR``).
    Damaged
        For another version, or a block past the end of the file.
    """
    head = file.read_upto(start, _HEADER_GUESS)
    if len(head) < 16:
        raise Damaged(f"object header at {start} cut by the end of the file")
    version, _, _, size = HEADER_PREFIX.unpack_from(head)
    if version != 1:
        if head[:4] == b"OHDR":
            raise NotSupported(f"version-2 object header at {start}")
        raise Damaged(f"object header version {version} at {start}")
    return head[:16 + size] if 16 + size <= len(head) else file.read(start, 16 + size)


class HeaderContext(Protocol):
    """What a :class:`RawHeader` needs of the file it is in (a ``RawH5``)."""

    base: int
    file: RawFile
    #: Attribute messages checked before, up to their data: (name, offsets).
    attribute_layouts: dict[bytes, tuple[str, int, int, int]]

    def datatype(self, message: bytes) -> np.dtype | str:
        """The datatype message ``message`` decoded (numpy dtype or ``"string"``)."""
        ...

    def vlen_strings(self, data: bytes, start: int, count: int) -> list[str]:
        """The ``count`` variable-length strings whose heap ids start at ``data[start:]``."""
        ...


class RawHeader:
    """The messages of one version-1 object header: ``{type: [(block, start, size), ...]}``.

    ``block`` is the bytes of the header block holding the message, ``start``
    the offset of the message's body in it.

    Parameters
    ----------
    raw : HeaderContext
        The file (a ``RawH5``).
    address : int
        Address of the header (relative to the superblock's base address).
    """

    def __init__(self, raw: HeaderContext, address: int):
        self.raw, self.address = raw, address
        self.messages: dict[int, list[tuple[bytes, int, int]]] = {}
        self._attributes: dict[str, tuple[bytes, int, int]] | None = None
        start = raw.base + address
        self.first_block = read_header_block(raw.file, start)
        count = HEADER_PREFIX.unpack_from(self.first_block)[1]
        blocks, visited, seen = [(self.first_block, 16)], {start + 16}, 0
        while blocks:
            block, begin = blocks.pop()
            seen += self._read_block(block, begin, blocks, visited)
            if seen > count:
                break
        self.n_blocks = len(visited)
        if seen != count:
            raise Damaged(f"object header at {address}: {seen} messages, {count} expected")

    def _read_block(self, block: bytes, begin: int, blocks: list, visited: set) -> int:
        """Index the messages of one header block; continuation blocks go to ``blocks``."""
        messages, pos, n, end = self.messages, begin, 0, len(block)
        unpack = _MESSAGE.unpack_from
        while pos + 8 <= end:
            kind, size, flags = unpack(block, pos)
            pos += 8
            if kind > LAST_MESSAGE_TYPE or pos + size > end:
                raise Damaged(f"object header message of type {kind} does not fit its header")
            if kind == NIL:
                pass
            elif flags & 0x02:
                raise NotSupported("shared object header message")
            elif kind == CONTINUATION:
                offset, more = struct.unpack_from("<QQ", block, pos)
                address = self.raw.base + offset
                if address in visited:
                    raise Damaged("object header continuation pointing back at a block read")
                visited.add(address)
                blocks.append((self.raw.file.read(address, more), 0))
            else:
                messages.setdefault(kind, []).append((block, pos, size))
            pos += size
            n += 1
        return n

    def attribute_names(self) -> dict[str, tuple[bytes, int, int]]:
        """{name: (block, start, size) of its attribute message}.

        Every attribute message is checked as HDF5 checks it when it looks one
        up (:meth:`_parts`), also those never read.
        """
        if self._attributes is None:
            if ATTRIBUTE_INFO in self.messages:
                raise NotSupported("attributes in dense storage")
            found = {}
            for block, start, size in self.messages.get(ATTRIBUTE, ()):
                name = self._parts(block, start, size)[0]
                if name in found:
                    raise Damaged(f"attribute {name!r} twice in one object header")
                found[name] = (block, start, size)
            self._attributes = found
        return self._attributes

    def _parts(self, block: bytes, start: int, size: int) -> tuple[str, int, int, int, int]:
        """(name, datatype offset and size, dataspace offset, data offset) of an attribute message.

        Checked: the version, the name (as long as its stored length, UTF-8),
        the datatype and the dataspace (a valid type outside the subset read
        here is refused only when that attribute is read).  Messages alike up
        to their data (the same attribute of every region) are checked once.
        """
        version, _, name_size, type_size, space_size = _ATTRIBUTE_HEAD.unpack_from(block, start)
        if version == 1:
            length = 8 + pad8(name_size) + pad8(type_size) + pad8(space_size)
        else:
            length = 9 + name_size + type_size + space_size
        layout = block[start:start + length]
        known = self.raw.attribute_layouts.get(layout)
        if known is None:
            known = self._layout(block, start, size)
            if len(self.raw.attribute_layouts) < _MAX_LAYOUTS:
                self.raw.attribute_layouts[layout] = known
        name, type_at, space_at, data = known
        if start + data > start + size:
            raise Damaged(f"attribute {name!r}: its parts run past its message")
        return name, start + type_at, type_size, start + space_at, start + data

    def _layout(self, block: bytes, start: int, size: int) -> tuple[str, int, int, int]:
        """:meth:`_parts` of one message, offsets relative to its start (see there)."""
        version, name_size = block[start], _U16.unpack_from(block, start + 2)[0]
        if version == 2:
            raise NotSupported("attribute message version 2")
        if version not in (1, 3):
            raise Damaged(f"attribute message version {version}")
        if version == 3 and block[start + 1] & 0x03:
            raise NotSupported("attribute with a shared datatype or dataspace")
        type_size, space_size = struct.unpack_from("<HH", block, start + 4)
        begin = start + (8 if version == 1 else 9)
        end = block.find(b"\0", begin, min(begin + name_size, start + size))
        if end <= begin or end != begin + name_size - 1:
            raise Damaged("attribute name empty, or not as long as its stored length")
        name = decode_utf8(block[begin:end], "attribute name")
        if version == 1:
            type_at = begin + pad8(name_size)
            space_at = type_at + pad8(type_size)
            data = space_at + pad8(space_size)
        else:
            type_at = begin + name_size
            space_at = type_at + type_size
            data = space_at + space_size
        if data > start + size or type_size < 8:
            raise Damaged(f"attribute {name!r}: its parts run past its message")
        try:
            self.raw.datatype(block[type_at:type_at + type_size])
            dataspace_dims(block, space_at)
        except NotSupported:
            pass
        return name, type_at - start, space_at - start, data - start

    def attribute(self, name: str):
        """The value of attribute ``name``: int, str, list of int/str; None if absent.

        Scalars come back as one value, one-dimensional attributes as a list.
        """
        where = self.attribute_names().get(name)
        if where is None:
            return None
        block, start, size = where
        _, type_at, type_size, space_at, data = self._parts(block, start, size)
        end = start + size
        shape = dataspace_dims(block, space_at)
        if len(shape) > 1:
            raise NotSupported("attribute of more than one dimension")
        count = shape[0] if shape else 1
        kind = self.raw.datatype(block[type_at:type_at + type_size])
        if kind == "string":
            if data + 16 * count > end:
                raise Damaged(f"attribute {name!r}: data past the end of its message")
            values = self.raw.vlen_strings(block, data, count)
        elif isinstance(kind, np.dtype) and kind.kind in "iu":
            if data + count * kind.itemsize > end:
                raise Damaged(f"attribute {name!r}: data past the end of its message")
            values = np.frombuffer(block, kind, count, data).tolist()
        else:
            raise NotSupported(f"attribute of type {kind}")
        return values if shape else values[0]

    def _one(self, kind: int, what: str) -> tuple[bytes, int, int]:
        found = self.messages.get(kind, ())
        if len(found) != 1:
            raise Damaged(f"dataset header with {len(found)} {what} messages")
        return found[0]

    def dataset(self) -> RawDataset:
        """Shape, type and storage of a dataset header (no filters, not chunked)."""
        messages = self.messages
        if FILTERS in messages or EXTERNAL in messages:
            raise NotSupported("filtered or external dataset")
        if DATASPACE not in messages and SYMBOL_TABLE in messages:
            raise Damaged("a group where a dataset belongs")
        space_block, space, _ = self._one(DATASPACE, "dataspace")
        type_block, kind, kind_size = self._one(DATATYPE, "datatype")
        block, layout, layout_size = self._one(LAYOUT, "layout")
        shape = dataspace_dims(space_block, space)
        dtype = self.raw.datatype(type_block[kind:kind + kind_size])
        if not isinstance(dtype, np.dtype):
            raise NotSupported("dataset of strings")
        version, storage = block[layout], block[layout + 1]
        if version in (1, 2):
            raise NotSupported(f"layout message version {version}")
        if version not in (3, 4):
            raise Damaged(f"layout message version {version}")
        nbytes = math.prod(shape) * dtype.itemsize
        if storage == 1:  # contiguous
            address, stored = struct.unpack_from("<QQ", block, layout + 2)
            if nbytes == 0:
                return RawDataset(shape, dtype, -1)
            if address == UNDEFINED:
                raise NotSupported("dataset never written (h5py reads its fill value)")
            if stored != nbytes or self.raw.base + address + nbytes > self.raw.file.limit:
                raise Damaged(f"contiguous dataset of {stored} bytes for {nbytes}, "
                              f"or past the end of the file")
            return RawDataset(shape, dtype, self.raw.base + address)
        if storage == 0:  # compact
            stored = _U16.unpack_from(block, layout + 2)[0]
            if stored != nbytes or 4 + stored > layout_size:
                raise Damaged(f"compact dataset of {stored} bytes for {nbytes}")
            return RawDataset(shape, dtype, -1, block[layout + 4:layout + 4 + stored])
        if storage in (2, 3):
            raise NotSupported(f"dataset storage class {storage} (chunked or virtual)")
        raise Damaged(f"dataset storage class {storage}")

    def symbol_table(self) -> tuple[int, int]:
        """(B-tree address, local heap address) of a group header."""
        if LINK_INFO in self.messages or LINK in self.messages:
            raise NotSupported("group with new-style link storage")
        found = self.messages.get(SYMBOL_TABLE, ())
        if len(found) != 1:
            raise Damaged("a dataset or other object where a group belongs"
                          if not found else "group header with two symbol tables")
        block, start, _ = found[0]
        return struct.unpack_from("<QQ", block, start)


def decode_utf8(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8; :class:`Damaged` naming ``what`` if it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Damaged(f"{what} is no UTF-8: {data[:40]!r}") from None
