"""Ceilings that are not what their label says: a working set that missed its cache, another machine.

The job logs are rendered by tests/likwid_render.py (likwid-bench, likwid-perfctr and
likwid-topology output as ../shared/reference/likwid-formats.md lays them out), with the numbers
of the report this check was written for: a Sapphire Rapids node (Xeon Gold 6430, 32 cores,
a 60 MB L3 shared by the 32 cores, 2 MB of L2 per core) whose "L3" kernel ran with 58.6 MiB per
thread on 32 threads and whose L3 group counted twice the benchmark's figure.  The runs judged
are real: sample 2 (GMGPolar MEM_DP on a Xeon Gold 6132), sample 22 (an EPYC 7763's logs).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from likwid_render import bench, perfctr_header, perfctr_region, topology
from wild_samples import MILAN_LOGS

from roofline_widget import (
    CeilingWarning,
    RooflineWidget,
    machine_roofline,
    plot_roofline,
    sample_path,
    sanity_check,
)
from roofline_widget.analysis.ceiling_checks import machine_mismatches

B = "[MBytes/s]"
SPR = ("Intel(R) Xeon(R) Gold 6430", "Intel SapphireRapids processor")
GOLD_6132 = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")
WORKING_SET = int(58.6 * 2**20)  # per thread


def _spr_log(tmp_path, topology_in_log=True) -> Path:
    """likwid-topology (1 socket x 32 cores; L3 60 MB shared by 32, L2 2 MB per core), peakflops,
    load_avx512 in -g L3 with 58.6 MiB per thread (300 GB/s by the benchmark; the group counts
    32 x 18750 MB/s = 600 GB/s), and a memory kernel in -g MEM."""
    caches = ((1, "48 kB", 1), (2, "2 MB", 1), (3, "60 MB", 32))
    parts = [topology(sockets=1, cores=32, caches=caches, cpu_name=SPR[0], cpu_type=SPR[1])
             if topology_in_log else "",
             bench("peakflops_avx512_fma", 32, mflops=2_339_000, mbytes=1000,
                   size_per_thread=16384),
             perfctr_header(cpu_type=SPR[1], cpu_name=SPR[0]),
             bench("load_avx512", 32, mflops=0, mbytes=300_000, size_per_thread=WORKING_SET),
             perfctr_region("(whole run)", 1, "L3", list(range(32)), 1.0,
                            {f"L3 bandwidth {B}": [18750] * 32}, marker=False),
             perfctr_header(cpu_type=SPR[1], cpu_name=SPR[0]),
             bench("stream_mem_avx512", 32, mflops=10_000, mbytes=188_600,
                   size_per_thread=500 * 2**20),
             perfctr_region("(whole run)", 1, "MEM", list(range(32)), 1.0,
                            {f"Memory bandwidth {B}": [188_600] + [0] * 31}, marker=False)]
    path = tmp_path / "spr-peaks.out"
    path.write_text("\n".join(parts))
    return path


# the text names the kernel, its working set (58.6 MiB per thread, 58.6 x 32 = 1875 MiB =
# 1.83 GiB in all) and the cache (60 MiB / 32 threads = 1.88 MiB per thread)
LEVEL_TEXT = ("likwid-bench load_avx512 ({path}, line {line}) ran in likwid-perfctr -g L3 and "
              "gives the L3 roof, but its working set of 58.6 MiB per thread (1.83 GiB in all on "
              "32 threads) does not fit in the 60 MiB L3 (1.88 MiB per thread, likwid-topology): "
              "it measured MEM traffic, not L3; its L3 group counted 600 GB/s, 2x the "
              "benchmark's 300 GB/s")


def test_an_l3_kernel_whose_working_set_missed_the_l3_is_warned(tmp_path):
    path = _spr_log(tmp_path)
    with pytest.warns(CeilingWarning) as caught:
        roofs = machine_roofline(path)
    l3 = next(r for r in roofs.bandwidth if r.level == "L3")  # the level stays the group's
    expected = LEVEL_TEXT.format(path=path, line=l3.provenance["line"])
    assert [str(w.message) for w in caught] == [expected]
    assert l3.provenance["level_check"] == expected
    mem = next(r for r in roofs.bandwidth if r.level == "MEM")  # 500 MiB/thread: memory, agreed
    assert mem.provenance["level_check"] is None
    # sanity_check(..., ceilings=) reports it (and the 6132 run being another machine's)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = sanity_check(GOLD_6132, ceilings=roofs)
    level = findings[findings["check"] == "ceiling level"]
    assert level[["file", "rank", "region", "level"]].astype(str).values.tolist() == [
        [str(path), "-1", "likwid-bench load_avx512", "L3"]]
    assert level["detail"].iloc[0] == expected


def test_topology_given_for_logs_without_it(tmp_path):
    path = _spr_log(tmp_path, topology_in_log=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CeilingWarning)
        machine_roofline(path)  # no cache sizes known: nothing to check
    sizes = tmp_path / "topology.txt"
    sizes.write_text(topology(sockets=1, cores=32, caches=((1, "48 kB", 1), (2, "2 MB", 1),
                                                           (3, "60 MB", 32))))
    with pytest.warns(CeilingWarning, match="does not fit in the 60 MiB L3"):
        machine_roofline(path, topology=sizes)
    # sample 22 and the EPYC 7763's caches (32 kB L1, 512 kB L2 per core, 32 MB L3 per 8
    # cores): the L2 kernel's 512 KiB per thread fits the L2, the memory kernel's 477 MiB
    # nothing: both agree with their groups, no warning
    epyc = tmp_path / "epyc.txt"
    epyc.write_text(topology(sockets=1, cores=16, caches=((1, "32 kB", 1), (2, "512 kB", 1),
                                                          (3, "32 MB", 8))))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CeilingWarning)
        roofs = machine_roofline(MILAN_LOGS, topology=epyc)
    assert [r.provenance["level_check"] for r in roofs.bandwidth] == [None, None]


def test_a_run_of_another_machine_is_told(tmp_path):
    with pytest.warns(CeilingWarning):
        roofs = machine_roofline(_spr_log(tmp_path))
    assert roofs.compute[0].provenance["cpu_name"] == SPR[0]
    text = ("run 'gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket' was measured on Intel(R) "
            "Xeon(R) Gold 6132 CPU @ 2.60GHz (Intel Skylake SP processor), the ceilings on "
            f"{SPR[0]} ({SPR[1]}): DP AVX-512 FMA, L3, MEM: roofs of another machine are no "
            "limit of this run")
    assert machine_mismatches(GOLD_6132, roofs) == [
        ("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket", text)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        widget = RooflineWidget(GOLD_6132, ceilings=roofs)
        payload = plot_roofline(GOLD_6132, ceilings=roofs, filepath=tmp_path / "p.png",
                                verbose=False)
    assert [str(w.message) for w in caught if w.category is CeilingWarning] == [text, text]
    assert text.replace("'", "&#x27;") in widget.controls.status_html.value
    assert text in payload["ceiling_notes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        findings = sanity_check(GOLD_6132, ceilings=roofs)
    machine = findings[findings["check"] == "other machine"]
    assert machine["detail"].tolist() == [text]
    assert machine["region"].tolist() == ["(whole run)"]


def test_the_same_machine_gives_no_word(tmp_path):
    # sample 2 ran on a Xeon Gold 6132, as these rendered logs say (CPU name padded as LIKWID
    # pads it): no mismatch; ceilings that name no CPU (a user's) are not compared
    log = tmp_path / "skx.out"
    log.write_text("\n".join([perfctr_header(cpu_name="Intel(R) Xeon(R) Gold 6132 CPU @ 2.60GHz   "),
                              bench("peakflops_avx512_fma", 14, mflops=1_000_000, mbytes=1000,
                                    size_per_thread=16384),
                              bench("triad_avx512", 14, mflops=5000, mbytes=100_000,
                                    size_per_thread=500 * 2**20)]))
    roofs = machine_roofline(log, level="MEM")
    assert machine_mismatches(GOLD_6132, roofs) == []
    assert machine_mismatches(GOLD_6132, [r for r in roofs if r.provenance is None]) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", CeilingWarning)
        RooflineWidget(GOLD_6132, ceilings=roofs)
