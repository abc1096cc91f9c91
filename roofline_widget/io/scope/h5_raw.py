"""Direct reads of the HDF5 files h5py writes by default, without the HDF5 library.

Opening an HDF5 object through h5py costs 100-300 us (the library parses and
caches its header, h5py wraps it in Python objects); a scope-profiler region
needs several such objects.  The files h5py writes with its default settings
(``libver="earliest"``) use the oldest, simplest parts of the format, which
this module reads with :func:`os.pread` (:class:`~roofline_widget.io.scope.h5_header.RawFile`),
:mod:`struct` and :func:`numpy.frombuffer`:

* superblock version 0 or 1, 8-byte offsets and lengths, no user block;
* groups as symbol tables (version-1 B-tree of symbol-table nodes, names in
  a local heap), listed in name order, as h5py lists them;
* version-1 object headers (with continuation blocks);
* datasets with contiguous or compact storage, no filters, no external
  files, of little- or big-endian IEEE floats or integers;
* attributes of integers or variable-length strings (in global heaps).

Files are untrusted, and everything a file controls is bounded: B-trees are
walked without recursion, with a visited set, each child one level below
its parent and no more entries per node than the superblock allows; heap
objects and names must lie inside their heap, a string must be exactly as
long as its heap object, names must be non-empty UTF-8 in ascending order
(as HDF5 keeps them).  What contradicts the format raises
:class:`~roofline_widget.io.scope.h5_format.Damaged`; valid parts of the
format outside the subset raise ``NotSupported``.

What costs is Python-level parsing, so what repeats is not parsed twice:
datatype messages are decoded once per distinct message, and a dataset
header equal byte for byte to one parsed before, but for the address of its
values, takes that header's result (:meth:`RawH5.dataset`).
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple

import numpy as np

from roofline_widget.io.opener import HDF5_MAGIC
from roofline_widget.io.scope.h5_format import LAYOUT, UNDEFINED, Damaged, NotSupported, decode_datatype
from roofline_widget.io.scope.h5_header import HEADER_PREFIX, RawDataset, RawFile, RawHeader, read_header_block

__all__ = ["RawH5"]

_U64 = struct.Struct("<Q")
_ENTRY = struct.Struct("<QQI4xQQ")            # name offset, header, cache type, scratch
_TREE_PREFIX = struct.Struct("<4sBBH")        # "TREE", node type, level, entries used
_HEAP = struct.Struct("<4sB3xQQQ")            # "HEAP", version, size, free list, data
_GLOBAL_OBJECT = struct.Struct("<HH4xQ")      # index, references, size
_NO_FREE_BLOCK = 1                            # HDF5's "no free block" in a local heap
_MAX_CACHED = 256                             # global heap collections, datatypes kept
#: Bytes of local heap data read with its header at once (a longer heap is read again).
_HEAP_GUESS = 256
#: Dataset header templates kept per header size (a writer makes a few kinds).
_MAX_TEMPLATES = 8


class _Template(NamedTuple):
    """A parsed dataset header, as bytes before and after the address of its values."""

    offset: int
    before: bytes
    after: bytes
    shape: tuple
    dtype: np.dtype
    nbytes: int


class RawH5:
    """An HDF5 file opened for direct reads, and the readers of its structures.

    Parameters
    ----------
    path : str or path-like

    Raises
    ------
    NotSupported
        If the superblock is not version 0 or 1 with 8-byte offsets and
        lengths at the start of the file.
    Damaged
        If the superblock contradicts the format or the file is shorter than
        its end-of-file address (truncated).
    """

    def __init__(self, path):
        self.file = RawFile(path)
        self._collections: dict[int, _GlobalHeap] = {}
        self._types: dict[bytes, np.dtype | str] = {}
        self._templates: dict[int, list[_Template]] = {}
        self.attribute_layouts: dict[bytes, tuple[str, int, int, int]] = {}
        try:
            self.base, self.root, self._leaf_k, self._node_k = self._superblock()
        except BaseException:
            self.close()
            raise

    def _superblock(self) -> tuple[int, int, int, int]:
        if self.file.size < 96:
            raise Damaged(f"{self.file.size} bytes: too short for an HDF5 superblock")
        head = self.file.read(0, 100 if self.file.size >= 100 else 96)
        if head[:8] != HDF5_MAGIC:
            raise NotSupported("no HDF5 signature at the start (user block?)")
        version, offsets, lengths = head[8], head[13], head[14]
        if version in (2, 3):
            raise NotSupported(f"superblock version {version}")
        if version in (0, 1) and (offsets, lengths) != (8, 8) and {offsets, lengths} <= {2, 4, 8}:
            raise NotSupported(f"superblock with {offsets}-byte offsets, {lengths}-byte lengths")
        if version not in (0, 1) or (offsets, lengths) != (8, 8):
            raise Damaged(f"superblock version {version}, sizes {offsets}/{lengths}")
        leaf_k, node_k = struct.unpack_from("<HH", head, 16)
        start = 24 if version == 0 else 28
        base, _, end = struct.unpack_from("<QQQ", head, start)
        root = _ENTRY.unpack_from(head, start + 32)[1]
        if base != 0:
            raise NotSupported("base address other than 0")
        if end > self.file.size:
            raise Damaged(f"file of {self.file.size} bytes, shorter than its end-of-file "
                          f"address {end} (truncated)")
        if not leaf_k or not node_k:
            raise Damaged("group B-tree sizes of 0 in the superblock")
        self.file.limit = end  # HDF5 reads nothing past its end-of-file address
        return base, root, leaf_k, node_k

    def close(self) -> None:
        """Close the file (arrays read with :meth:`values` are copies)."""
        self.file.close()

    def __enter__(self) -> RawH5:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def datatype(self, message: bytes) -> np.dtype | str:
        """A datatype message decoded (:func:`decode_datatype`), each distinct one once."""
        kind = self._types.get(message)
        if kind is None:
            kind = decode_datatype(message)
            if len(self._types) < _MAX_CACHED:
                self._types[message] = kind
        return kind

    def dataset(self, address: int) -> RawDataset:
        """The dataset whose object header is at ``address`` (:meth:`RawHeader.dataset`).

        A writer writes the same header for the same kind of dataset in every
        region, but for the address of the values.  A header equal byte for
        byte to one parsed before, but for that address, is not parsed again:
        what parsing it would give is that header's result with this address.
        """
        data = read_header_block(self.file, self.base + address)
        size = HEADER_PREFIX.unpack_from(data)[3]
        templates = self._templates.get(size, ())
        if templates:
            for offset, before, after, shape, dtype, nbytes in templates:
                if data[:offset] == before and data[offset + 8:] == after:
                    values = _U64.unpack_from(data, offset)[0]
                    if values == UNDEFINED:
                        raise NotSupported("dataset never written (h5py reads its fill value)")
                    if self.base + values + nbytes > self.file.limit:
                        raise Damaged("contiguous dataset past the end of the file")
                    return RawDataset(shape, dtype, self.base + values)
        header = RawHeader(self, address)
        found = header.dataset()
        if header.n_blocks == 1 and found.offset >= 0 and len(templates) < _MAX_TEMPLATES:
            _, body, _ = header.messages[LAYOUT][0]
            offset, data = body + 2, header.first_block  # the address of the values
            self._templates.setdefault(size, []).append(_Template(
                offset, data[:offset], data[offset + 8:], found.shape, found.dtype,
                math.prod(found.shape) * found.dtype.itemsize))
        return found

    def header(self, address: int) -> RawHeader:
        """The object header at ``address``."""
        return RawHeader(self, address)

    def links(self, header: RawHeader) -> list[tuple[str, int]]:
        """(name, object header address) of every member of a group, in name order."""
        tree, heap = header.symbol_table()
        block = self.file.read_upto(self.base + heap, 32 + _HEAP_GUESS)
        if len(block) < 32:
            raise Damaged("local heap cut by the end of the file")
        signature, version, size, free, data = _HEAP.unpack_from(block)
        if signature != b"HEAP" or version != 0:
            raise Damaged("bad local heap")
        # h5py writes the names right after the heap's header
        names = block[32:32 + size] if data == heap + 32 and 32 + size <= len(block) else \
            self.file.read(self.base + data, size)
        free_blocks = _free_blocks(names, free)
        entries = [entry for node in self._leaves(tree) for entry in self._symbols(node, names)]
        for begin, end in free_blocks:
            if any(begin <= name_at < end for _, _, name_at in entries):
                raise Damaged("a group member name in the free space of its local heap")
        raw_names = [name for name, _, _ in entries]
        if raw_names != sorted(set(raw_names)):
            raise Damaged("group member names out of order (a damaged name or B-tree)")
        try:
            return [(name.decode("utf-8"), address) for name, address, _ in entries]
        except UnicodeDecodeError:
            raise Damaged("a group member name is no UTF-8") from None

    def _leaves(self, root: int) -> list[int]:
        """The symbol-table node addresses below a group B-tree, left to right.

        Walked with an explicit stack: a file cannot make it recurse, loop
        (visited set) or go deeper than the root's level (each child one
        level below its parent); a node's siblings must be nodes of the tree.
        """
        leaves: list[int] = []
        seen: set[int] = set()
        siblings: set[int] = set()
        stack = [(root, -1)]
        while stack:
            address, level_wanted = stack.pop()
            if address in seen:
                raise Damaged("group B-tree with a cycle")
            seen.add(address)
            start = self.base + address
            node = self.file.read_upto(start, 32 + 32 * self._node_k)
            if len(node) < 8:
                raise Damaged("group B-tree node cut by the end of the file")
            signature, node_type, level, used = _TREE_PREFIX.unpack_from(node)
            if signature != b"TREE" or node_type != 0:
                raise Damaged("bad group B-tree node")
            if level_wanted >= 0 and level != level_wanted:
                raise Damaged(f"group B-tree node of level {level} below a node of level "
                              f"{level_wanted + 1}")
            if used > 2 * self._node_k:
                raise Damaged(f"group B-tree node with {used} entries (at most {2 * self._node_k})")
            if 32 + 16 * used > len(node):
                raise Damaged("group B-tree node cut by the end of the file")
            children = [_U64.unpack_from(node, 32 + 16 * i)[0] for i in range(used)]
            siblings.update(struct.unpack_from("<QQ", node, 8))
            if level == 0:
                leaves += children
            else:
                stack += [(child, level - 1) for child in reversed(children)]
        if not siblings <= seen | {UNDEFINED}:
            raise Damaged("group B-tree node whose sibling is outside its tree")
        return leaves

    def _symbols(self, address: int, names: bytes) -> list[tuple[bytes, int, int]]:
        """(name bytes, header address, name offset) of the entries of one symbol-table node."""
        node = self.file.read_upto(self.base + address, 8 + 80 * self._leaf_k)
        if node[:4] != b"SNOD" or len(node) < 8 or node[4] != 1:
            raise Damaged("bad symbol table node")
        count = struct.unpack_from("<H", node, 6)[0]
        if count > 2 * self._leaf_k or 8 + 40 * count > len(node):
            raise Damaged(f"symbol table node with {count} entries (at most {2 * self._leaf_k})")
        out = []
        for i in range(count):
            name_at, header, _, _, _ = _ENTRY.unpack_from(node, 8 + 40 * i)
            end = names.find(b"\0", name_at) if name_at < len(names) else -1
            if end <= name_at:
                raise Damaged("link name empty, outside its local heap or not terminated")
            out.append((names[name_at:end], header, name_at))
        return out

    def member(self, header: RawHeader, path: str) -> RawHeader:
        """The header of the object at ``path`` (``"a/b/c"``) below a group.

        Raises
        ------
        KeyError
            If a member on the way does not exist.
        """
        for name in path.split("/"):
            found = dict(self.links(header)).get(name)
            if found is None:
                raise KeyError(name)
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
            data = self.file.read(dataset.offset, count * dataset.dtype.itemsize)
            raw = np.frombuffer(data, dataset.dtype, count)
        dtype = dataset.dtype.newbyteorder("=") if dtype is None else dtype
        return raw.astype(dtype, copy=True).reshape(dataset.shape)

    def vlen_strings(self, data: bytes, start: int, count: int) -> list[str]:
        """The ``count`` variable-length strings whose (length, global heap id) start at ``data[start:]``.

        Each must be exactly as long as its heap object, hold no NUL and be
        UTF-8 (what h5py checks).  Usually all of them are objects of one
        collection (written together): then they are looked up as one list.
        """
        fields = struct.unpack_from("<" + "IQI" * count, data, start)
        lengths, collections, indices = fields[0::3], fields[1::3], fields[2::3]
        texts: list[bytes] | None = None
        if count and collections[0] and collections.count(collections[0]) == count:
            heap = self._heap(collections[0])
            heap.find(max(indices))
            spans = [heap.objects.get(i) for i in indices]
            if None not in spans:
                texts = [heap.data[span[0]:span[0] + span[1]] for span in spans if span]
        if texts is None:  # a zero heap address is an empty string (h5py writes one object per "")
            texts = [self._heap(c).find(i) if c else b"" for c, i in zip(collections, indices)]
        if tuple(map(len, texts)) != lengths or b"\0" in b"".join(texts):
            raise Damaged("variable-length string not exactly its global heap object")
        try:
            return [text.decode("utf-8") for text in texts]
        except UnicodeDecodeError:
            raise Damaged("variable-length string is no UTF-8") from None

    def _heap(self, address: int) -> _GlobalHeap:
        heap = self._collections.get(address)
        if heap is None:
            heap = _GlobalHeap(self, address)
            if len(self._collections) >= _MAX_CACHED:
                del self._collections[next(iter(self._collections))]
            self._collections[address] = heap
        return heap


def _free_blocks(names: bytes, offset: int) -> list[tuple[int, int]]:
    """The (start, end) of the free blocks of a local heap, checked as HDF5 checks them."""
    blocks: list[tuple[int, int]] = []
    while offset not in (_NO_FREE_BLOCK, UNDEFINED):
        if offset + 16 > len(names) or len(blocks) > len(names) // 16:
            raise Damaged("bad local heap free list")
        following, size = struct.unpack_from("<QQ", names, offset)
        if size == 0 or offset + size > len(names):
            raise Damaged(f"local heap free block of {size} bytes at {offset}")
        blocks.append((offset, offset + size))
        offset = following
    return blocks


class _GlobalHeap:
    """One global heap collection, read at once, walked as far as the objects asked for."""

    def __init__(self, raw: RawH5, address: int):
        start = raw.base + address
        head = raw.file.read(start, 16)
        if head[:4] != b"GCOL" or head[4] != 1:
            raise Damaged("bad global heap collection")
        size = _U64.unpack_from(head, 8)[0]
        if size < 16:
            raise Damaged(f"global heap collection of {size} bytes")
        self.data = raw.file.read(start, size)
        self.pos = 16
        self.objects: dict[int, tuple[int, int]] = {}

    def find(self, index: int) -> bytes:
        """The bytes of object ``index`` (the objects before it are indexed on the way)."""
        objects, data, pos = self.objects, self.data, self.pos
        found, end, unpack = objects.get(index), len(data), _GLOBAL_OBJECT.unpack_from
        while found is None and pos + 16 <= end:
            number, _, size = unpack(data, pos)
            if number == 0:
                break  # the free space, always last
            if number in objects or pos + 16 + size > end:
                raise Damaged("global heap object repeated or past its collection")
            objects[number] = where = (pos + 16, size)
            pos += 16 + ((size + 7) & ~7)
            if number == index:
                found = where
        self.pos = pos
        if found is None:
            raise Damaged(f"no object {index} in a global heap collection")
        return data[found[0]:found[0] + found[1]]
