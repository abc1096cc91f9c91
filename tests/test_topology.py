"""likwid-topology output inside job logs."""

import pytest
from likwid_render import topology

from roofline_widget import read_topology
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.topology import find_topology, parse_topology

# likwid-topology of a Core i7-6700K (1 socket, 4 cores, 2 threads per core), the layout of
# LIKWID 5 (tabs between key and value); hardware threads 0-3 are the first threads of cores 0-3.
I7_6700K = """\
--------------------------------------------------------------------------------
CPU name:\tIntel(R) Core(TM) i7-6700K CPU @ 4.00GHz
CPU type:\tIntel Skylake processor
CPU stepping:\t3
********************************************************************************
Hardware Thread Topology
********************************************************************************
Sockets:\t\t1
Cores per socket:\t4
Threads per core:\t2
--------------------------------------------------------------------------------
HWThread        Thread        Core        Die        Socket        Available
0               0             0           0          0             *
1               0             1           0          0             *
2               0             2           0          0             *
3               0             3           0          0             *
4               1             0           0          0             *
5               1             1           0          0             *
6               1             2           0          0             *
7               1             3           0          0             *
--------------------------------------------------------------------------------
Socket 0:\t\t( 0 4 1 5 2 6 3 7 )
--------------------------------------------------------------------------------
********************************************************************************
Cache Topology
********************************************************************************
Level:\t\t\t1
Size:\t\t\t32 kB
Cache groups:\t\t( 0 4 ) ( 1 5 ) ( 2 6 ) ( 3 7 )
--------------------------------------------------------------------------------
Level:\t\t\t2
Size:\t\t\t256 kB
Cache groups:\t\t( 0 4 ) ( 1 5 ) ( 2 6 ) ( 3 7 )
--------------------------------------------------------------------------------
Level:\t\t\t3
Size:\t\t\t8 MB
Cache groups:\t\t( 0 4 1 5 2 6 3 7 )
--------------------------------------------------------------------------------
********************************************************************************
NUMA Topology
********************************************************************************
NUMA domains:\t\t1
--------------------------------------------------------------------------------
Domain:\t\t\t0
Processors:\t\t( 0 4 1 5 2 6 3 7 )
Distances:\t\t10
Free memory:\t\t1046.89 MB
Total memory:\t\t15934.2 MB
--------------------------------------------------------------------------------
"""


def test_counts_caches_and_sockets():
    topo = parse_topology(I7_6700K)
    assert (topo.sockets, topo.cores_per_socket, topo.threads_per_core) == (1, 4, 2)
    assert topo.cpu_name == "Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz"
    assert [(c.level, c.size_bytes, c.shared_by) for c in topo.caches] == [
        (1, 32 * 1024, 2), (2, 256 * 1024, 2), (3, 8 * 1024 * 1024, 8)]
    assert topo.cache(3).groups == ((0, 4, 1, 5, 2, 6, 3, 7),)
    assert topo.socket_of(5) == 0
    assert topo.socket_of(8) is None
    # 8 MB L3 over 4 compactly pinned threads: 2 MiB each; L2 shared by 2 hardware threads
    assert topo.cache(3).bytes_per_thread(4) == 2 * 2**20
    assert topo.cache(2).bytes_per_thread(4) == 128 * 1024


def test_block_inside_a_longer_job_log(tmp_path):
    log = tmp_path / "slurm-1.out"
    log.write_text("module load likwid\nstarting job\n" + topology(sockets=2, cores=4)
                   + "\nlikwid-bench output follows\n")
    topo = read_topology(log)
    assert topo.sockets == 2
    assert topo.line == 7
    assert topo.socket_threads == {0: frozenset({0, 1, 2, 3}), 1: frozenset({4, 5, 6, 7})}
    assert [c.shared_by for c in topo.caches] == [1, 1, 4]


def test_no_topology_and_bad_size(tmp_path):
    path = tmp_path / "none.txt"
    path.write_text("just application output\n")
    assert find_topology(path) is None
    with pytest.raises(LikwidFormatError, match="likwid-topology output"):
        read_topology(path)
    bad = I7_6700K.replace("Size:\t\t\t256 kB", "Size:\t\t\tlarge")
    with pytest.raises(LikwidFormatError, match=r"line 32.*cache size such as '32 kB'"):
        parse_topology(bad, "log.txt")
    with pytest.raises(LikwidFormatError, match="an integer after 'Sockets:'"):
        parse_topology(I7_6700K.replace("Sockets:\t\t1", "Sockets:\t\tone"))


def test_compressed_log_fifo_and_binary_file(tmp_path):
    """Opened like every LIKWID file: gzip read, a FIFO never opened."""
    import gzip
    import os
    log = tmp_path / "job.log.gz"
    log.write_bytes(gzip.compress(("x\n" + topology(sockets=2, cores=8)).encode()))
    assert read_topology(log).cores_per_socket == 8
    binary = tmp_path / "results.h5"
    binary.write_bytes(b"\x89HDF\r\n\x1a\n\x00\x00")
    assert find_topology(binary) is None
    with pytest.raises(LikwidFormatError, match="HDF5 file"):
        read_topology(binary)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        assert find_topology(fifo) is None  # returns at once: refused by stat, never opened
        with pytest.raises(LikwidFormatError, match="a regular file"):
            read_topology(fifo)
