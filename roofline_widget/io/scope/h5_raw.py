"""Direct reads of the HDF5 files h5py writes by default, without the HDF5 library.

Opening an HDF5 object through h5py costs 100-300 us (the library parses and
caches its header, h5py wraps it in Python objects); a scope-profiler region
needs four such objects.  The files h5py writes with its default settings
(``libver="earliest"``) use the oldest, simplest parts of the format, which
this module reads straight from a memory map of the file with
:mod:`struct` and :func:`numpy.frombuffer`:

* superblock version 0 or 1, 8-byte offsets and lengths, no user block;
* groups as symbol tables (version-1 B-tree of symbol-table nodes, names in
  a local heap), listed in name order, as h5py lists them;
* version-1 object headers (with continuation blocks);
* datasets with contiguous or compact storage, no filters, no external
  files, of little- or big-endian IEEE floats or integers;
* attributes of integers or variable-length strings (in global heaps).

What costs is Python-level parsing, so what repeats is not parsed twice:
datatype messages are decoded once per distinct message, and a dataset
header equal byte for byte to one parsed before, but for the address of its
values, takes that header's result (:meth:`RawH5.dataset`).

Anything else, and anything inconsistent (a wrong signature or version, an
address beyond the end of the file, a message running over its header),
raises :class:`NotSupported`; the caller then reads that part with h5py,
which reads every HDF5 file and reports damage in its own words.  So this
module never has to be right about a file it does not fully understand: it
only has to refuse it.  Format reference: the HDF5 File Format
Specification, sections II-IV (superblock, B-trees, symbol table nodes and
entries, local and global heaps, object header messages).
"""

from __future__ import annotations

import math
import mmap
import struct
from typing import NamedTuple

import numpy as np

__all__ = ["PARSE_ERRORS", "NotSupported", "RawDataset", "RawH5", "RawHeader"]

_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_UNDEFINED = 0xFFFFFFFFFFFFFFFF
# object header message types (HDF5 File Format Specification, IV.A.2)
_NIL, _DATASPACE, _LINK_INFO, _DATATYPE = 0x00, 0x01, 0x02, 0x03
_EXTERNAL, _LAYOUT, _FILTERS, _ATTRIBUTE = 0x07, 0x08, 0x0B, 0x0C
_CONTINUATION, _SYMBOL_TABLE, _ATTRIBUTE_INFO = 0x10, 0x11, 0x15
_LINK = 0x06
_LAST_MESSAGE_TYPE = 0x18
_U16, _U32, _U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")
_TWO_U64 = struct.Struct("<QQ")
_MESSAGE = struct.Struct("<HHB3x")            # type, size, flags
_HEADER_PREFIX = struct.Struct("<BxHII")      # version, messages, references, size
_ENTRY = struct.Struct("<QQI4xQQ")            # name offset, header, cache type, scratch
_TREE_PREFIX = struct.Struct("<4sBBH")        # "TREE", node type, level, entries used
_HEAP = struct.Struct("<4sB3xQQQ")            # "HEAP", version, size, free list, data
_GLOBAL_OBJECT = struct.Struct("<HH4xQ")      # index, references, size
#: Float layouts h5py writes: size -> (offset, precision, exponent location and size,
#: mantissa location and size, exponent bias) of IEEE 754 binary32 / binary64.
_IEEE = {4: (0, 32, 23, 8, 0, 23, 127), 8: (0, 64, 52, 11, 0, 52, 1023)}


class NotSupported(Exception):
    """Outside the subset this module reads, or not consistent: read it with h5py."""


#: What a parse of a damaged file may raise besides NotSupported (all mean: use h5py).
PARSE_ERRORS = (NotSupported, struct.error, ValueError, IndexError, OverflowError,
                UnicodeDecodeError)


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


class _Template(NamedTuple):
    """A parsed dataset header, as bytes before and after the address of its values."""

    offset: int
    before: bytes
    after: bytes
    shape: tuple
    dtype: np.dtype
    nbytes: int


#: Dataset header templates kept per header size (a writer makes a few kinds).
_MAX_TEMPLATES = 8


class RawHeader:
    """The messages of one version-1 object header: ``{type: [(start, size), ...]}``.

    Parameters
    ----------
    raw : RawH5
        The file.
    address : int
        Address of the header (relative to the superblock's base address).
    """

    def __init__(self, raw: RawH5, address: int):
        self.raw = raw
        self.messages: dict[int, list[tuple[int, int]]] = {}
        self._attributes: dict[str, tuple[int, int]] | None = None
        buffer, start = raw.buffer, raw.base + address
        version, count, _, size = _HEADER_PREFIX.unpack_from(buffer, start)
        if version != 1:
            raise NotSupported(f"object header version {version} at {address}")
        blocks = [(start + 16, size)]
        seen, self.n_blocks = 0, 0
        while blocks:
            begin, length = blocks.pop()
            seen += self._read_block(begin, length, blocks)
            self.n_blocks += 1
        if seen != count:
            raise NotSupported(f"object header at {address}: {seen} messages, {count} expected")

    def _read_block(self, begin: int, length: int, blocks: list) -> int:
        """Index the messages of one header block; continuation blocks go to ``blocks``."""
        buffer, end, messages, pos, n = self.raw.buffer, begin + length, self.messages, begin, 0
        if end > self.raw.size:
            raise NotSupported("object header beyond the end of the file")
        unpack = _MESSAGE.unpack_from
        while pos + 8 <= end:
            kind, size, flags = unpack(buffer, pos)
            pos += 8
            if kind > _LAST_MESSAGE_TYPE or pos + size > end:
                raise NotSupported(f"object header message of type {kind} does not fit")
            if kind == _NIL:
                pass
            elif flags & 0x02:
                raise NotSupported("shared object header message")
            elif kind == _CONTINUATION:
                offset, more = _TWO_U64.unpack_from(buffer, pos)
                blocks.append((self.raw.base + offset, more))
            elif kind in messages:
                messages[kind].append((pos, size))
            else:
                messages[kind] = [(pos, size)]
            pos += size
            n += 1
        return n

    def attribute_names(self) -> dict[str, tuple[int, int]]:
        """{name: (start, size) of its attribute message}."""
        if self._attributes is None:
            if _ATTRIBUTE_INFO in self.messages:
                raise NotSupported("attributes in dense storage")
            self._attributes = {}
            buffer = self.raw.buffer
            for start, size in self.messages.get(_ATTRIBUTE, ()):
                version, name_size = buffer[start], _U16.unpack_from(buffer, start + 2)[0]
                if version not in (1, 3):
                    raise NotSupported(f"attribute message version {version}")
                begin = start + (8 if version == 1 else 9)
                name = buffer[begin:begin + name_size].rstrip(b"\0").decode("utf-8")
                self._attributes[name] = (start, size)
        return self._attributes

    def attribute(self, name: str):
        """The value of attribute ``name``: int, str, list of int/str; None if absent.

        Scalars come back as one value, one-dimensional attributes as a list.
        """
        where = self.attribute_names().get(name)
        if where is None:
            return None
        start, size = where
        buffer = self.raw.buffer
        version = buffer[start]
        if version == 3 and buffer[start + 1] & 0x03:
            raise NotSupported("attribute with a shared datatype or dataspace")
        name_size, type_size, space_size = struct.unpack_from("<HHH", buffer, start + 2)
        if version == 1:
            pos = start + 8 + _pad8(name_size)
            type_at, space_at = pos, pos + _pad8(type_size)
            data = space_at + _pad8(space_size)
        else:
            type_at = start + 9 + name_size
            space_at = type_at + type_size
            data = space_at + space_size
        shape = _dataspace(buffer, space_at)
        if len(shape) > 1:
            raise NotSupported("attribute of more than one dimension")
        count = shape[0] if shape else 1
        kind = self.raw.datatype(type_at, type_size)
        if kind == "string":
            if data + 16 * count > start + size:
                raise NotSupported("attribute data beyond its message")
            values = self.raw.vlen_strings(data, count)
        elif isinstance(kind, np.dtype) and kind.kind in "iu":
            if data + count * kind.itemsize > start + size:
                raise NotSupported("attribute data beyond its message")
            values = np.frombuffer(buffer, kind, count, data).tolist()
        else:
            raise NotSupported(f"attribute of type {kind}")
        return values if shape else values[0]

    def dataset(self) -> RawDataset:
        """Shape, type and storage of a dataset header (no filters, not chunked)."""
        messages, buffer = self.messages, self.raw.buffer
        if _FILTERS in messages or _EXTERNAL in messages:
            raise NotSupported("filtered or external dataset")
        try:
            (space, _), = messages[_DATASPACE]
            (kind, kind_size), = messages[_DATATYPE]
            (layout, layout_size), = messages[_LAYOUT]
        except (KeyError, ValueError):
            raise NotSupported("not one dataspace, datatype and layout message") from None
        shape = _dataspace(buffer, space)
        dtype = self.raw.datatype(kind, kind_size)
        if not isinstance(dtype, np.dtype):
            raise NotSupported("dataset of strings")
        version, storage = buffer[layout], buffer[layout + 1]
        if version not in (3, 4):
            raise NotSupported(f"layout message version {version}")
        nbytes = math.prod(shape) * dtype.itemsize
        if storage == 1:  # contiguous
            address, stored = struct.unpack_from("<QQ", buffer, layout + 2)
            if nbytes == 0:
                return RawDataset(shape, dtype, -1)
            if address == _UNDEFINED or stored != nbytes or \
                    self.raw.base + address + nbytes > self.raw.size:
                raise NotSupported("contiguous dataset not written or of another size")
            return RawDataset(shape, dtype, self.raw.base + address)
        if storage == 0:  # compact
            stored = _U16.unpack_from(buffer, layout + 2)[0]
            if stored != nbytes or 4 + stored > layout_size:
                raise NotSupported("compact dataset of another size")
            return RawDataset(shape, dtype, -1, buffer[layout + 4:layout + 4 + stored])
        raise NotSupported(f"dataset storage class {storage}")

    def symbol_table(self) -> tuple[int, int]:
        """(B-tree address, local heap address) of a group header."""
        if _LINK_INFO in self.messages or _LINK in self.messages:
            raise NotSupported("group with new-style link storage")
        try:
            (start, _), = self.messages[_SYMBOL_TABLE]
        except (KeyError, ValueError):
            raise NotSupported("not a group (no symbol table message)") from None
        return struct.unpack_from("<QQ", self.raw.buffer, start)


def _pad8(n: int) -> int:
    return (n + 7) & ~7


def _dataspace(buffer, start: int) -> tuple:
    """The dimensions of a dataspace message (``()`` for a scalar)."""
    version, rank, flags = buffer[start], buffer[start + 1], buffer[start + 2]
    if version == 1:
        dims_at = start + 8
    elif version == 2:
        if buffer[start + 3] == 2:
            raise NotSupported("null dataspace")
        dims_at = start + 4
    else:
        raise NotSupported(f"dataspace message version {version}")
    if flags & ~0x01 or rank > 32:
        raise NotSupported("dataspace with a permutation index")
    return struct.unpack_from(f"<{rank}Q", buffer, dims_at)


def _datatype(buffer, start: int):
    """A numpy dtype for an IEEE float or integer type, ``"string"`` for a vlen string."""
    head = buffer[start]
    kind, version = head & 0x0F, head >> 4
    bits = buffer[start + 1] | buffer[start + 2] << 8 | buffer[start + 3] << 16
    size = _U32.unpack_from(buffer, start + 4)[0]
    if version not in (1, 2, 3):
        raise NotSupported(f"datatype version {version}")
    if kind == 0 and size in (1, 2, 4, 8):  # fixed-point
        offset, precision = struct.unpack_from("<HH", buffer, start + 8)
        if offset != 0 or precision != 8 * size or bits & ~0x0F:
            raise NotSupported("integer with padding bits")
        order = ">" if bits & 0x01 else "<"
        return np.dtype(f"{order}{'i' if bits & 0x08 else 'u'}{size}")
    if kind == 1 and size in _IEEE:  # floating-point
        layout = struct.unpack_from("<HHBBBBI", buffer, start + 8)
        order = bits & 0x41
        if layout != _IEEE[size] or order not in (0, 1) or bits & 0x0E or \
                (bits >> 4) & 0x03 != 2 or (bits >> 8) & 0xFF != 8 * size - 1:
            raise NotSupported("floating-point type other than IEEE 754")
        return np.dtype(f"{'>' if order else '<'}f{size}")
    if kind == 9 and bits & 0x0F == 1 and size == 16:  # variable-length string
        return "string"
    raise NotSupported(f"datatype class {kind} of size {size}")


class RawH5:
    """A read-only memory map of an HDF5 file and the readers of its structures.

    Parameters
    ----------
    path : str or path-like

    Raises
    ------
    NotSupported
        If the superblock is not version 0 or 1 with 8-byte offsets and
        lengths at the start of the file.
    """

    def __init__(self, path):
        with open(path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.buffer = self._map
        self.size = len(self._map)
        self._collections: dict[int, _GlobalHeap] = {}
        self._types: dict[bytes, object] = {}
        self._templates: dict[int, list[_Template]] = {}
        try:
            self.base, self.root = self._superblock()
        except PARSE_ERRORS:
            self.close()
            raise

    def _superblock(self) -> tuple[int, int]:
        buffer = self.buffer
        if buffer[:8] != _SIGNATURE:
            raise NotSupported("no HDF5 signature at the start (user block?)")
        version, offsets, lengths = buffer[8], buffer[13], buffer[14]
        if version not in (0, 1) or offsets != 8 or lengths != 8:
            raise NotSupported(f"superblock version {version}, sizes {offsets}/{lengths}")
        start = 24 if version == 0 else 28
        base, _, end = struct.unpack_from("<QQQ", buffer, start)
        root = _ENTRY.unpack_from(buffer, start + 32)[1]
        if base != 0:
            raise NotSupported("base address other than 0")
        if end > self.size:
            raise NotSupported("file shorter than its end-of-file address (truncated)")
        return base, root

    def close(self) -> None:
        """Release the memory map (arrays read with :meth:`values` are copies)."""
        try:
            self._map.close()
        except BufferError:  # a view still referenced (in a traceback): unmapped with it
            pass

    def __enter__(self) -> RawH5:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def datatype(self, start: int, size: int):
        """The datatype message at ``start`` (``size`` bytes) as :func:`_datatype` reads it.

        The few distinct messages of a file are decoded once each.
        """
        key = self.buffer[start:start + size]
        kind = self._types.get(key)
        if kind is None:
            kind = self._types[key] = _datatype(self.buffer, start)
        return kind

    def dataset(self, address: int) -> RawDataset:
        """The dataset whose object header is at ``address`` (:meth:`RawHeader.dataset`).

        A writer writes the same header for the same kind of dataset in every
        region, but for the address of the values.  A header equal byte for
        byte to one parsed before, but for that address, is not parsed again:
        what parsing it would give is that header's result with this address.
        """
        buffer, start = self.buffer, self.base + address
        size = _HEADER_PREFIX.unpack_from(buffer, start)[3]
        for offset, before, after, shape, dtype, nbytes in self._templates.get(size, ()):
            if buffer[start:start + offset] == before and \
                    buffer[start + offset + 8:start + 16 + size] == after:
                data = _U64.unpack_from(buffer, start + offset)[0]
                if data == _UNDEFINED or self.base + data + nbytes > self.size:
                    raise NotSupported("contiguous dataset not written or beyond the file")
                return RawDataset(shape, dtype, self.base + data)
        header = RawHeader(self, address)
        found = header.dataset()
        templates = self._templates.setdefault(size, [])
        if header.n_blocks == 1 and found.offset >= 0 and len(templates) < _MAX_TEMPLATES:
            offset = header.messages[_LAYOUT][0][0] + 2 - start  # the address of the values
            templates.append(_Template(offset, buffer[start:start + offset],
                                       buffer[start + offset + 8:start + 16 + size],
                                       found.shape, found.dtype,
                                       math.prod(found.shape) * found.dtype.itemsize))
        return found

    def header(self, address: int) -> RawHeader:
        """The object header at ``address``."""
        return RawHeader(self, address)

    def links(self, header: RawHeader) -> list[tuple[str, int]]:
        """(name, object header address) of every member of a group, in name order."""
        tree, heap = header.symbol_table()
        signature, version, size, _, data = _HEAP.unpack_from(self.buffer, self.base + heap)
        if signature != b"HEAP" or version != 0 or data + size > self.size:
            raise NotSupported("bad local heap")
        names = self.buffer[self.base + data:self.base + data + size]
        out = []
        for node in self._leaves(tree, set()):
            out += self._symbols(node, names)
        return out

    def _leaves(self, address: int, seen: set) -> list[int]:
        """The symbol-table node addresses below a group B-tree node, left to right."""
        if address in seen:
            raise NotSupported("B-tree with a cycle")
        seen.add(address)
        start = self.base + address
        signature, node_type, level, used = _TREE_PREFIX.unpack_from(self.buffer, start)
        if signature != b"TREE" or node_type != 0:
            raise NotSupported("bad group B-tree node")
        children = [_U64.unpack_from(self.buffer, start + 32 + 16 * i)[0] for i in range(used)]
        if level == 0:
            return children
        return [leaf for child in children for leaf in self._leaves(child, seen)]

    def _symbols(self, address: int, names) -> list[tuple[str, int]]:
        buffer, start = self.buffer, self.base + address
        if buffer[start:start + 4] != b"SNOD" or buffer[start + 4] != 1:
            raise NotSupported("bad symbol table node")
        count = _U16.unpack_from(buffer, start + 6)[0]
        out = []
        for i in range(count):
            name_at, header, _, _, _ = _ENTRY.unpack_from(buffer, start + 8 + 40 * i)
            end = names.find(b"\0", name_at)
            if end < 0:
                raise NotSupported("link name not terminated in the local heap")
            out.append((names[name_at:end].decode("utf-8"), header))
        return out

    def member(self, header: RawHeader, path: str) -> RawHeader:
        """The header of the object at ``path`` (``"a/b/c"``) below a group."""
        for name in path.split("/"):
            found = dict(self.links(header)).get(name)
            if found is None:
                raise NotSupported(f"no member {name!r}")
            header = self.header(found)
        return header

    def values(self, dataset: RawDataset, dtype=None) -> np.ndarray:
        """A dataset's values as ``dtype`` (default: the stored type in native byte order).

        Always a copy, never a view of the file.
        """
        count = math.prod(dataset.shape)
        if dataset.compact:
            raw = np.frombuffer(dataset.compact, dataset.dtype, count)
        elif count == 0:
            raw = np.zeros(0, dataset.dtype)
        else:
            raw = np.frombuffer(self.buffer, dataset.dtype, count, dataset.offset)
        dtype = dataset.dtype.newbyteorder("=") if dtype is None else dtype
        return raw.astype(dtype, copy=True).reshape(dataset.shape)

    def vlen_strings(self, start: int, count: int) -> list[str]:
        """The ``count`` variable-length strings whose (length, global heap id) start at ``start``.

        Usually all of them are objects of one collection (written together):
        then they are looked up as one list; anything else one by one.
        """
        fields = struct.unpack_from("<" + "IQI" * count, self.buffer, start)
        lengths, collections, indices = fields[0::3], fields[1::3], fields[2::3]
        if count and min(lengths) > 0 and collections.count(collections[0]) == count:
            heap = self._heap(collections[0])
            heap.find(max(indices))
            spans = [heap.objects.get(i) for i in indices]
            if None not in spans:
                return self._strings(spans, lengths)
        return self._strings([self._heap(c).find(i) if n else (0, 0)
                              for n, c, i in zip(lengths, collections, indices)], lengths)

    def _heap(self, address: int) -> _GlobalHeap:
        heap = self._collections.get(address)
        if heap is None:
            heap = self._collections[address] = _GlobalHeap(self, address)
        return heap

    def _strings(self, spans: list, lengths: tuple) -> list[str]:
        """The strings of the given lengths at the given (offset, size) heap objects."""
        buffer = self.buffer
        data = [buffer[begin:begin + n] for (begin, _), n in zip(spans, lengths)]
        if any([n > size for (_, size), n in zip(spans, lengths)]) or b"\0" in b"".join(data):
            raise NotSupported("variable-length string not in its global heap")
        return [d.decode("utf-8") for d in data]


class _GlobalHeap:
    """One global heap collection, walked as far as the objects asked for."""

    def __init__(self, raw: RawH5, address: int):
        buffer, start = raw.buffer, raw.base + address
        if buffer[start:start + 4] != b"GCOL" or buffer[start + 4] != 1:
            raise NotSupported("bad global heap collection")
        self.buffer, self.pos = buffer, start + 16
        self.end = start + _U64.unpack_from(buffer, start + 8)[0]
        if self.end > raw.size:
            raise NotSupported("global heap collection beyond the end of the file")
        self.objects: dict[int, tuple[int, int]] = {}

    def find(self, index: int) -> tuple[int, int]:
        """(file offset, size) of object ``index``."""
        objects = self.objects
        found = objects.get(index)
        buffer, pos, end, unpack = self.buffer, self.pos, self.end, _GLOBAL_OBJECT.unpack_from
        while found is None and pos + 16 <= end:
            number, _, size = unpack(buffer, pos)
            if number == 0:
                break  # the free space, always last
            objects[number] = where = (pos + 16, size)
            pos += 16 + ((size + 7) & ~7)
            if number == index:
                found = where
        self.pos = pos
        if found is None or found[0] + found[1] > end:
            raise NotSupported(f"no object {index} in a global heap collection")
        return found
