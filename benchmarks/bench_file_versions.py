"""What one version per read costs: hashing every byte of a scope-profiler HDF5 file.

Run ``python benchmarks/bench_file_versions.py FILE [--repeat 5]`` (a file written by
``tests/scope_fixtures.write_scope_h5``, or ``bench_open.replicate``'s 64-rank copy).  Printed,
medians of ``--repeat`` runs in this one process: reading the file's bytes alone, reading them with
xxh3 and with CRC-32 (what ``io/scope/snapshot.file_version`` uses, and its fallback), a cached
reopen (``read_scope_sums`` from a fresh cache directory, each read asserted ``from_cache``) and an
uncached read (``cache=False``: the version taken before and after).  The load average is printed
before and after: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import zlib
from pathlib import Path

from _common import median, ms, print_table, quiet


def _read(path: Path, digest) -> None:
    buffer = bytearray(16 * 2**20)
    view = memoryview(buffer)
    descriptor = os.open(path, os.O_RDONLY)
    try:
        while count := os.readv(descriptor, [buffer]):
            if digest is not None:
                digest(view[:count])
    finally:
        os.close(descriptor)


def _timed(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    quiet()
    import xxhash

    from roofline_widget.points import read_scope_sums

    print(f"load before: {open('/proc/loadavg').read().strip()}")
    size = args.file.stat().st_size
    rows = [["bytes read", ms(_timed(lambda: _read(args.file, None), args.repeat))],
            ["bytes read + xxh3", ms(_timed(lambda: _read(args.file, xxhash.xxh3_64_hexdigest),
                                            args.repeat))],
            ["bytes read + CRC-32", ms(_timed(lambda: _read(args.file, zlib.crc32), args.repeat))]]
    with tempfile.TemporaryDirectory() as cache_dir:
        read_scope_sums(args.file, cache_dir=cache_dir, progress=False)

        def reopen():
            assert read_scope_sums(args.file, cache_dir=cache_dir, progress=False).from_cache

        rows.append(["cached reopen", ms(_timed(reopen, args.repeat))])
    rows.append(["uncached read", ms(_timed(lambda: read_scope_sums(args.file, cache=False,
                                                                    progress=False), 3))])
    print_table(f"{args.file.name}: {size / 1e6:.0f} MB, medians of {args.repeat} (uncached: 3)",
                ["what", "time"], rows)
    print(f"load after: {open('/proc/loadavg').read().strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
