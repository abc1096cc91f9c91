"""Right notes: the working set against the cache of its level and scope, another machine on
every output.

The cache a likwid-bench kernel's working set must fit is counted with its scope: likwid-bench
spreads its threads over the cores first, so a per-core L2 holds its whole size for each
thread, while an L3 shared by a socket's cores is shared by the threads on them.  The sizes
come from likwid-topology (rendered by tests/likwid_render.py, here with two hardware threads
a core: the cache groups then name two threads per core), else from the table of cores.

* A Sapphire Rapids node (Xeon Gold 6430, 32 cores, 2 threads a core; L2 2 MB a core, L3 60
  MB shared by the 32 cores): the L2 kernel's 1.95 MiB a thread, on 32 threads, fits the 2 MiB
  L2 of its core; counted per hardware thread of a core (2 MiB / 2 = 1 MiB) it did not.
* Sample 22 (EPYC 7763, 16 threads; L2 512 KiB a core, L3 32 MiB per 8 cores, 2 threads a core):
  the L2 kernel's 512 KiB a thread fits its core's L2; the L3 is shared by 8 threads: 4 MiB a
  thread, which the memory kernel's 477 MiB does not fit.
* Without likwid-topology: the table's L2 of the CPU the log names (SPR: 2 MiB a core, Zen3
  512 KiB).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from likwid_render import bench, perfctr_header, perfctr_region, topology
from wild_samples import MILAN_LOGS

from roofline_widget import (
    CeilingWarning,
    machine_roofline,
    plot_roofline,
    sample_path,
    sanity_check,
)
from roofline_widget.analysis.bench_levels import cache_scopes
from roofline_widget.cpu_cores import find_core
from roofline_widget.io.topology import parse_topology

B = "[MBytes/s]"
SPR = ("Intel(R) Xeon(R) Gold 6430", "Intel SapphireRapids processor")
SPR_CACHES = ((1, "48 kB", 2), (2, "2 MB", 2), (3, "60 MB", 64))
GOLD_6132 = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
L2_SET = int(1.95 * 2**20)


def _spr_log(tmp_path: Path, per_thread: int = L2_SET, topology_in_log: bool = True) -> Path:
    """peakflops, an L2 load kernel of ``per_thread`` bytes a thread in -g L2 and a memory
    kernel in -g MEM on 32 threads of the SPR node."""
    parts = [topology(sockets=1, cores=32, caches=SPR_CACHES, cpu_name=SPR[0], cpu_type=SPR[1],
                      threads_per_core=2) if topology_in_log else "",
             perfctr_header(cpu_type=SPR[1], cpu_name=SPR[0]),
             bench("peakflops_avx512_fma", 32, mflops=2_339_000, mbytes=1000,
                   size_per_thread=16384),
             perfctr_header(cpu_type=SPR[1], cpu_name=SPR[0]),
             bench("load_avx512", 32, mflops=0, mbytes=4_200_000, size_per_thread=per_thread),
             perfctr_region("(whole run)", 1, "L2", list(range(32)), 1.0,
                            {f"L2 bandwidth {B}": [131_250] * 32}, marker=False),
             perfctr_header(cpu_type=SPR[1], cpu_name=SPR[0]),
             bench("stream_mem_avx512", 32, mflops=10_000, mbytes=188_600,
                   size_per_thread=500 * 2**20),
             perfctr_region("(whole run)", 1, "MEM", list(range(32)), 1.0,
                            {f"Memory bandwidth {B}": [188_600] + [0] * 31}, marker=False)]
    path = tmp_path / "spr-peaks.out"
    path.write_text("\n".join(parts))
    return path


def _roofs(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CeilingWarning)  # any level warning fails the test
        return machine_roofline(*args, **kwargs)


def test_cache_scopes_per_core_l2_and_shared_l3():
    spr = parse_topology(topology(sockets=1, cores=32, caches=SPR_CACHES, cpu_name=SPR[0],
                                  cpu_type=SPR[1], threads_per_core=2))
    scopes = cache_scopes(32, spr)
    # 48 KiB and 2 MiB a core for each of 32 threads; 60 MiB over 32 threads = 1.875 MiB
    assert [s.per_thread for s in scopes] == [48 * 1024, 2 * 2**20, 60 * 2**20 / 32]
    # 64 threads (both of every core): half of each core's caches
    assert [s.per_thread for s in cache_scopes(64, spr)] == [24 * 1024, 2**20, 60 * 2**20 / 64]
    # EPYC 7763, 16 threads on 16 cores: the L3 of 8 cores shared by 8 threads = 4 MiB each
    epyc = parse_topology(topology(sockets=1, cores=16, caches=(
        (1, "32 kB", 2), (2, "512 kB", 2), (3, "32 MB", 16)), threads_per_core=2))
    assert [s.per_thread for s in cache_scopes(16, epyc)] == [32 * 1024, 512 * 1024, 4 * 2**20]
    # no likwid-topology: the table's L1 and L2 of a core
    table = cache_scopes(32, None, find_core(SPR[1]))
    assert [(s.level, s.per_thread, s.source) for s in table] == [
        (1, 48 * 1024, "the table of cores"), (2, 2 * 2**20, "the table of cores")]


def test_an_spr_l2_kernel_of_195_mib_a_thread_is_not_reported_as_mem(tmp_path):
    roofs = _roofs(_spr_log(tmp_path))
    assert [r.provenance["level_check"] for r in roofs.bandwidth] == [None, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = sanity_check(GOLD_6132, ceilings=roofs)
    assert "ceiling level" not in set(findings["check"])
    # the table alone (no likwid-topology in the log) says the same
    assert [r.provenance["level_check"] for r in
            _roofs(_spr_log(tmp_path, topology_in_log=False)).bandwidth] == [None, None]


def test_an_l2_kernel_beyond_the_l2_is_told_with_its_scope(tmp_path):
    # 3 MiB a thread: more than a core's 2 MiB L2; the L3 holds 1.875 MiB a thread: memory
    with pytest.warns(CeilingWarning) as caught:
        roofs = machine_roofline(_spr_log(tmp_path, per_thread=3 * 2**20))
    text = str(caught[0].message)
    assert ("its working set of 3 MiB per thread (96 MiB in all on 32 threads) does not fit in "
            "the 2 MiB L2 (2 MiB per thread, likwid-topology): it measured MEM traffic, not L2"
            ) in text
    assert roofs.bandwidth[0].provenance["level_check"] == text
    # from the table (no likwid-topology): the L3 is not known, so L3 or MEM
    with pytest.warns(CeilingWarning, match="2 MiB per thread, the table of cores\\): it "
                                            "measured L3 or MEM traffic, not L2"):
        machine_roofline(_spr_log(tmp_path, per_thread=3 * 2**20, topology_in_log=False))


def test_sample_22_l2_kernel_with_the_real_smt_topology(tmp_path):
    epyc = tmp_path / "epyc.txt"
    epyc.write_text(topology(sockets=1, cores=16, caches=(
        (1, "32 kB", 2), (2, "512 kB", 2), (3, "32 MB", 16)), cpu_name="AMD EPYC 7763 64-Core "
        "Processor", cpu_type="AMD K19 (Zen3) architecture", threads_per_core=2))
    roofs = _roofs(MILAN_LOGS, topology=epyc)
    assert [(r.level, r.provenance["level_check"]) for r in roofs.bandwidth] == [
        ("L2", None), ("MEM", None)]
    # and from the table of cores alone (Zen3: 512 KiB of L2 a core)
    assert [r.provenance["level_check"] for r in _roofs(MILAN_LOGS).bandwidth] == [None, None]


# ---------------------------------------------------------------- another machine, everywhere
OTHER = ("run 'gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket' was measured on Intel(R) Xeon(R) "
         "Gold 6132 CPU @ 2.60GHz (Intel Skylake SP processor), the ceilings on Intel(R) Xeon(R) "
         "Gold 6430 (Intel SapphireRapids processor)")


def test_the_other_machine_note_on_the_static_plot(tmp_path):
    roofs = _roofs(_spr_log(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        payload = plot_roofline(GOLD_6132, ceilings=roofs, filepath=tmp_path / "p.png",
                                verbose=False)
    axes = payload["figure"].axes[0]
    # drawn under the axes, wrapped to their width
    assert any(OTHER in " ".join(text.get_text().split()) for text in axes.texts)


def test_the_other_machine_note_on_the_command_line_svg_and_check(tmp_path):
    log = _spr_log(tmp_path)
    command = [sys.executable, "-m", "roofline_widget"]
    svg = tmp_path / "p.svg"
    plotted = subprocess.run([*command, "plot", GOLD_6132, "-o", str(svg), "--ceilings", str(log)],
                             capture_output=True, text=True, check=False)
    assert plotted.returncode == 0
    assert OTHER in plotted.stdout
    assert OTHER in svg.read_text().replace("&#x27;", "'")  # the notes text's title
    checked = subprocess.run([*command, "check", GOLD_6132, "--ceilings", str(log)],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 1
    assert "other machine: " + OTHER in checked.stdout
