"""likwid-topology output: sockets, cores, threads and cache sizes.

likwid-topology prints (tabs between key and value)::

    ********************************************************************************
    Hardware Thread Topology
    ********************************************************************************
    Sockets:                2
    Cores per socket:       64
    Threads per core:       2
    --------------------------------------------------------------------------------
    HWThread  Thread  Core  Die  Socket  Available
    0         0       0     0    0       *
    ...
    Socket 0:               ( 0 128 1 129 ... )
    ********************************************************************************
    Cache Topology
    ********************************************************************************
    Level:                  1
    Size:                   32 kB
    Cache groups:           ( 0 128 ) ( 1 129 ) ...
    --------------------------------------------------------------------------------
    Level:                  2
    ...

The block may sit anywhere in a longer job log.  Cache sizes are binary
(LIKWID prints ``size / 1024`` as kB and ``size / 1048576`` as MB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.opener import open_text

__all__ = ["TOPOLOGY_HEADER", "CacheLevel", "Topology", "find_topology", "parse_topology",
           "read_topology"]

#: The line that starts a likwid-topology block.
TOPOLOGY_HEADER = "Hardware Thread Topology"
_KEY_VALUE = re.compile(r"^([A-Za-z][A-Za-z0-9 ()]*?):\s+(\S.*?)\s*$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*(B|kB|KB|KiB|MB|MiB|GB|GiB)$", re.ASCII)
_FACTORS = {"B": 1, "kB": 2**10, "KB": 2**10, "KiB": 2**10, "MB": 2**20, "MiB": 2**20,
            "GB": 2**30, "GiB": 2**30}
_GROUP = re.compile(r"\(([\d\s]+)\)", re.ASCII)
_INTEGER = re.compile(r"[0-9]+", re.ASCII)


@dataclass(frozen=True)
class CacheLevel:
    """One data (or unified) cache level.

    Attributes
    ----------
    level : int
        1, 2, 3.
    size_bytes : int
        Size of one cache (binary units as LIKWID prints them).
    shared_by : int
        Hardware threads per cache (the size of a ``Cache groups`` entry;
        ``Shared by threads`` where printed).
    groups : tuple of tuple of int
        The hardware threads of each cache.
    """

    level: int
    size_bytes: int
    shared_by: int
    groups: tuple = ()

    def bytes_per_thread(self, threads: int) -> float:
        """Capacity one of ``threads`` threads (pinned compactly) gets from one cache."""
        return self.size_bytes / max(1, min(self.shared_by, threads))


@dataclass(frozen=True)
class Topology:
    """What likwid-topology printed about a machine.

    Attributes
    ----------
    sockets, cores_per_socket, threads_per_core : int
    caches : tuple of CacheLevel
        Inner to outer.
    socket_threads : dict
        Socket id -> hardware thread ids (``Socket N: ( ... )`` lines).
    cpu_name, cpu_type : str or None
        ``CPU name`` and ``CPU type`` as printed before the block.
    thread_cores : dict
        Hardware thread id -> (socket, core) from the ``HWThread Thread Core
        ... Socket`` table (empty when not printed).
    source : str
        The file (or ``"<string>"``) and ``line`` the block starts at.
    line : int
    """

    sockets: int
    cores_per_socket: int
    threads_per_core: int
    caches: tuple = ()
    socket_threads: dict = field(default_factory=dict, compare=False)
    cpu_name: str | None = None
    source: str = "<string>"
    line: int = 0
    cpu_type: str | None = None
    thread_cores: dict = field(default_factory=dict, compare=False)

    def cache(self, level: int) -> CacheLevel | None:
        """The cache of one level, or None."""
        return next((c for c in self.caches if c.level == level), None)

    @property
    def cores(self) -> int:
        """All cores of the machine: sockets x cores per socket."""
        return self.sockets * self.cores_per_socket

    def cores_of(self, hwthreads) -> int | None:
        """How many cores the hardware threads ``hwthreads`` are on (None: a thread not listed)."""
        found = set()
        for thread in hwthreads:
            core = self.thread_cores.get(int(thread))
            if core is None:
                return None
            found.add(core)
        return len(found)

    def socket_of(self, hwthread: int) -> int | None:
        """The socket of a hardware thread, or None if not listed."""
        for socket, threads in self.socket_threads.items():
            if hwthread in threads:
                return socket
        return None


def _threads(text: str) -> tuple:
    return tuple(tuple(int(t) for t in group.split()) for group in _GROUP.findall(text))


def _parse_size(text: str, source: str, line: int) -> int:
    match = _SIZE.match(text.strip())
    if match is None:
        raise LikwidFormatError(source, line, "a cache size such as '32 kB' or '8 MB'", text)
    return int(float(match[1]) * _FACTORS[match[2]])


def _integer(text: str, key: str, source: str, line: int) -> int:
    """An ASCII integer (``int`` alone would also read ``1_0`` and non-ASCII digits)."""
    if not _INTEGER.fullmatch(text):
        raise LikwidFormatError(source, line, f"an integer after '{key}:'", text)
    return int(text)


def _int(values: dict, key: str, source: str, line: int) -> int:
    if key not in values:
        raise LikwidFormatError(source, line, f"a '{key}:' line in the likwid-topology block")
    text, where = values[key]
    return _integer(text, key, source, where)


def _caches(lines, start: int, source: str) -> tuple:
    caches: list[dict] = []
    current: dict | None = None
    for number, line in enumerate(lines[start:], start=start + 1):
        if line.strip() in ("NUMA Topology", "Graphical Topology"):
            break
        match = _KEY_VALUE.match(line)
        if not match:
            continue
        key, value = match[1], match[2]
        if key == "Level":
            current = {"level": _integer(value, key, source, number), "line": number}
            caches.append(current)
        elif current is not None and key == "Size":
            current["size"] = _parse_size(value, source, number)
        elif current is not None and key == "Shared by threads":
            current["shared_by"] = _integer(value, key, source, number)
        elif current is not None and key == "Cache groups":
            current["groups"] = _threads(value)
    out = []
    for cache in caches:
        if "size" not in cache:
            raise LikwidFormatError(source, cache["line"], "a 'Size:' line for this cache level")
        groups = cache.get("groups", ())
        shared = cache.get("shared_by", len(groups[0]) if groups else 1)
        out.append(CacheLevel(cache["level"], cache["size"], shared, groups))
    return tuple(out)


def _thread_table(lines: list[str], start: int, end: int) -> dict:
    """Hardware thread -> (socket, core) from the ``HWThread ... Core ... Socket`` table."""
    header, columns = None, {}
    out: dict[int, tuple[int, int]] = {}
    for line in lines[start:end]:
        words = line.split()
        if header is None:
            if words[:1] == ["HWThread"] and "Core" in words and "Socket" in words:
                header = words
                columns = {name: words.index(name) for name in ("HWThread", "Core", "Socket")}
            continue
        if len(words) <= max(columns.values()) or not all(_INTEGER.fullmatch(words[i])
                                                           for i in columns.values()):
            if out:
                break  # the table ended
            continue
        out[int(words[columns["HWThread"]])] = (int(words[columns["Socket"]]),
                                                int(words[columns["Core"]]))
    return out


def parse_topology(text: str, source: str = "<string>") -> Topology | None:
    """The first likwid-topology block in ``text``, or None if there is none.

    Raises
    ------
    LikwidFormatError
        For a block with missing or malformed counts or cache sizes.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == TOPOLOGY_HEADER), None)
    if start is None:
        return None
    values: dict[str, tuple[str, int]] = {}
    sockets: dict[int, frozenset] = {}
    cpu: dict[str, str] = {}
    cache_start = None
    for index in range(start - 1, max(-1, start - 8), -1):
        match = _KEY_VALUE.match(lines[index])
        if match and match[1] in ("CPU name", "CPU type"):
            cpu.setdefault(match[1], match[2])
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        if line.strip() == "Cache Topology":
            cache_start = number
            break
        match = _KEY_VALUE.match(line)
        if match is None:
            continue
        socket = re.match(r"^Socket (\d+)$", match[1], re.ASCII)
        if socket:
            sockets[int(socket[1])] = frozenset(t for g in _threads(match[2]) for t in g)
        else:
            values.setdefault(match[1], (match[2], number))
    header = start + 1
    return Topology(
        sockets=_int(values, "Sockets", source, header),
        cores_per_socket=_int(values, "Cores per socket", source, header),
        threads_per_core=_int(values, "Threads per core", source, header),
        caches=() if cache_start is None else _caches(lines, cache_start, source),
        socket_threads=sockets, cpu_name=cpu.get("CPU name"), source=source, line=header,
        cpu_type=cpu.get("CPU type"),
        thread_cores=_thread_table(lines, start, cache_start or len(lines)))


def find_topology(path) -> Topology | None:
    """The likwid-topology block of a file (a job log), or None.

    The file is opened like every LIKWID file (:func:`~.opener.open_text`:
    compressed files, the size cap, FIFOs refused); a file that is no text
    (empty, binary, HDF5, a FIFO) holds no likwid-topology block: None.

    Raises
    ------
    LikwidFormatError
        For a likwid-topology block with missing or malformed counts or sizes.
    """
    try:
        source = open_text(path, "likwid-topology output")
    except LikwidFormatError:
        return None
    return parse_topology(source.text, source.name)


def read_topology(path) -> Topology:
    """Read a file holding likwid-topology output.

    Parameters
    ----------
    path : str or path-like
        The file (a job log with likwid-topology output in it is fine).

    Returns
    -------
    Topology
        Sockets, cores per socket, threads per core and cache sizes.

    Raises
    ------
    LikwidFormatError
        If the file cannot be opened as text (a directory, FIFO, empty or
        binary file) or holds no likwid-topology block.
    """
    source = open_text(path, "likwid-topology output")
    topology = parse_topology(source.text, source.name)
    if topology is None:
        raise LikwidFormatError(str(path), None,
                                f"likwid-topology output (a '{TOPOLOGY_HEADER}' block)",
                                "no likwid-topology block")
    return topology
