"""Every ceiling source, with provenance: ERT roofline.json, rocprof-compute roofline.csv,
likwid-bench logs in any mix (a triad alone), read_likwid_bench results.

* E1 (ERT, ``roofline_ert_example_no_metadata.json``): ``gbytes`` L1 8259.44, L2 3120.85,
  DRAM 200.3 GB/s; ``gflops`` FP64 GFLOPs 2772.78; each block's META_DATA says ``OPENMP_THREADS
  80``, ``ERT_VERSION  1.1.0`` and a CONFIG with ``'ERT_GPU': [False]`` (a CPU).  The ridge of
  DRAM: 2772.78 / 200.3 = 13.843 FLOP/byte.
* R1 (rocprof-compute, ``mi200_dispatch0_roofline.csv``): 4 GPUs, device 0: HBMBw 1388.7638
  (Low 1388.2611, High ``hbmBwHigh`` 1389.2665), L2Bw 5016.8418, L1Bw 9224.1777, LDSBw
  17710.416, FP32Flops 20937.773, FP64Flops 20269.176, MFMABF16 170438.3, MFMAF16 164898.08,
  MFMAF32 41427.383, MFMAF64 41485.637; MFMAI8Ops counts integer operations: no roof.
* Sample 11 (a likwid-bench triad on one Zen2 thread, -g MEM): MByte/s 7076.23 -> 7.07623 GB/s;
  no peakflops kernel: the compute roof is the EPYC 7702's theoretical peak, 16 DP FLOP/cycle
  x 2.00 GHz x 1 core = 32 GFLOP/s, and the roof's notes say so.
* Sample 20 (20 triad_avx runs on 24 Zen threads, -g MEM): the median of the 20 MByte/s
  figures is (100486.17 + 100486.39) / 2 = 100486.28 -> 100.48628 GB/s; Zen at 2.30 GHz: 8 x
  2.3 x 24 = 441.6 GFLOP/s.
* Sample 13 (likwid's README triad_avx) prints no CPU header: no theoretical peak.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from wild_samples import BENCH_REPS, MILAN_LOGS

from roofline_widget import (
    CeilingFileError,
    LikwidFormatError,
    MachineError,
    RooflineError,
    machine_roofline,
    plot_roofline,
    read_likwid_bench,
    sample_path,
)
from roofline_widget.analysis.machine import level_ridges
from roofline_widget.io.ceiling_files import (
    ceiling_file_kind,
    read_ert_roofline,
    read_rocprof_roofline,
)

ERT = Path(__file__).parent / "data" / "roofline_ert_example_no_metadata.json"
ROCPROF = Path(__file__).parent / "data" / "mi200_dispatch0_roofline.csv"
TRIAD_ZEN2 = sample_path("bench_in_perfctr_zen2_epyc7702_MEM_dash_values_wrapper.txt")
README_TRIAD = sample_path("likwid_readme_bench_triad_avx_skylake_i7-6700K.txt")
GOLD_4T = sample_path("gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt")


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------- ERT
def test_ert_e1_roofs_read_exactly_with_their_metadata():
    roofs = read_ert_roofline(ERT)
    assert [(r.name, r.value, r.kind) for r in roofs] == [
        ("FP64 GFLOPs (ERT)", 2772.78, "compute"), ("L1 (ERT)", 8259.44, "bandwidth"),
        ("L2 (ERT)", 3120.85, "bandwidth"), ("DRAM (ERT)", 200.3, "bandwidth")]
    assert [getattr(r, "level", None) for r in roofs] == [None, "L1", "L2", "MEM"]
    assert roofs[0].precision == "DP"
    assert {r.device for r in roofs} == {"cpu"}  # ERT_GPU: [False]
    provenance = roofs[3].provenance
    assert (provenance["openmp_threads"], provenance["ert_version"]) == (80, "1.1.0")
    assert provenance["hostname"].startswith("('apollo.cs.uoregon.edu'")
    assert "FLOPS          4" in provenance["metadata"]
    assert roofs[3].source == ("ERT empirical DRAM, 80 OpenMP threads "
                               "(roofline_ert_example_no_metadata.json)")
    roofline = machine_roofline(ERT)
    assert roofline.ridge_point(level="MEM") == pytest.approx(2772.78 / 200.3)
    assert level_ridges(roofline) == pytest.approx(
        {"L1": 2772.78 / 8259.44, "L2": 2772.78 / 3120.85, "MEM": 2772.78 / 200.3})


def test_damaged_ert_files_are_the_packages_errors(tmp_path):
    bad = tmp_path / "roofline.json"
    bad.write_text('{"empirical": {"gbytes": {"data": [["L1", 8259.44]\n  ,, ]}}}')
    with pytest.raises(CeilingFileError, match=r"roofline.json, line 2: expected an ERT") as err:
        read_ert_roofline(bad)
    assert isinstance(err.value, RooflineError)
    bad.write_text(json.dumps({"empirical": {"gbytes": {"data": [["L1", -3]]}}}))
    with pytest.raises(CeilingFileError, match="a positive number for gbytes 'L1'"):
        read_ert_roofline(bad)
    bad.write_text(json.dumps({"spec": {}}))
    with pytest.raises(CeilingFileError, match="'empirical' block"):
        machine_roofline(bad)


# ---------------------------------------------------------------- rocprof-compute
def test_rocprof_r1_roofs_per_gpu_with_their_range():
    roofs = read_rocprof_roofline(ROCPROF)
    assert len(roofs) == 4 * 10  # 4 GPUs x (HBM, L2, vL1D, LDS + 6 FLOP roofs), no I8
    gpu0 = {r.name: r for r in roofs if r.provenance["gpu"] == "0"}
    assert {name: roof.value for name, roof in gpu0.items()} == {
        "GPU 0 HBM": 1388.7638, "GPU 0 L2": 5016.8418, "GPU 0 vL1D": 9224.1777,
        "GPU 0 LDS": 17710.416, "GPU 0 FP64": 20269.176, "GPU 0 FP32": 20937.773,
        "GPU 0 MFMA FP64": 41485.637, "GPU 0 MFMA FP32": 41427.383,
        "GPU 0 MFMA FP16": 164898.08, "GPU 0 MFMA BF16": 170438.3}
    assert gpu0["GPU 0 HBM"].provenance["range"] == (1388.2611, 1389.2665)  # hbmBwHigh
    assert gpu0["GPU 0 HBM"].level == "MEM"
    assert gpu0["GPU 0 LDS"].level is None
    # the vector units' DP and SP, the matrix cores' own precisions (metric_names'
    # MATRIX_PRECISIONS, as read_rocprof names the kernels' metrics): never HP or DP for a matrix
    assert {name: roof.precision for name, roof in gpu0.items() if roof.kind == "compute"} == {
        "GPU 0 FP64": "DP", "GPU 0 FP32": "SP", "GPU 0 MFMA FP64": "MFMA F64",
        "GPU 0 MFMA FP32": "MFMA F32", "GPU 0 MFMA FP16": "MFMA F16",
        "GPU 0 MFMA BF16": "MFMA BF16"}
    assert {r.device for r in roofs} == {"gpu"}
    assert {r.family for r in roofs} == {"amd"}  # AMD's roofs judge AMD kernels only
    one = read_rocprof_roofline(ROCPROF, device=3)
    assert {r.provenance["gpu"] for r in one} == {"3"}
    assert next(r for r in one if r.name == "GPU 3 MFMA FP32").provenance["range"] == (
        41286.48, 41592.816)
    # machine_roofline gives one GPU's roofs: device 0, the row rocprof-compute's own roofline
    # plots (the four rows differ by < 1 %; all four would judge each kernel by the highest)
    roofline = machine_roofline(ROCPROF)
    assert roofline.devices == ["gpu"]
    assert {r.provenance["gpu"] for r in roofline} == {"0"}
    assert (roofline.peak_flops, roofline.peak_bandwidth) == (170438.3, 17710.416)
    assert roofline.ridge_point(level="MEM", device="gpu", precision="DP") == pytest.approx(
        20269.176 / 1388.7638)
    assert len(machine_roofline(ROCPROF, rocprof_device=None).compute) == 4 * 6
    assert {r.provenance["gpu"] for r in machine_roofline(ROCPROF, rocprof_device=2)} == {"2"}


def test_damaged_rocprof_files_are_the_packages_errors(tmp_path):
    bad = tmp_path / "roofline.csv"
    bad.write_text("device,HBMBw,L2Bw\n0,fast,5016.8\n")
    with pytest.raises(CeilingFileError, match="line 2: expected a number in column 'HBMBw'"):
        read_rocprof_roofline(bad)
    with pytest.raises(CeilingFileError, match="no row of device 7"):
        read_rocprof_roofline(ROCPROF, device=7)
    bad.write_text("gpu,bandwidth\n0,1\n")
    assert ceiling_file_kind(bad) is None  # not told as rocprof: read as a likwid-bench log
    with pytest.raises(LikwidFormatError):
        machine_roofline(bad)


# ---------------------------------------------------------------- likwid-bench, any mix
def test_a_triad_alone_gives_the_mem_roof_and_a_theoretical_compute_roof():
    roofline = _quiet(machine_roofline, TRIAD_ZEN2)
    (mem,) = roofline.bandwidth
    assert (mem.level, mem.gbs) == ("MEM", 7.07623)
    (compute,) = roofline.compute
    assert compute.theoretical
    assert compute.gflops == pytest.approx(32.0)
    assert compute.provenance["notes"][0].startswith(
        "no likwid-bench peakflops kernel of precision DP among the ceilings (kernels: triad): "
        "the compute roof is the theoretical peak of the CPU the logs name")
    user = _quiet(machine_roofline, TRIAD_ZEN2, peak_flops=100.0)
    assert (user.compute[0].gflops, user.compute[0].source) == (100.0, "user")


def test_twenty_triad_repetitions_and_their_cpu():
    roofline = _quiet(machine_roofline, BENCH_REPS)
    assert roofline.bandwidth[0].gbs == pytest.approx(100.48628)  # the median of 20
    assert roofline.compute[0].gflops == pytest.approx(441.6)      # 8 x 2.3 x 24 threads


def test_a_log_naming_no_cpu_needs_a_peak():
    with pytest.raises(MachineError, match=r"give peak_flops= \(--peak-flops\)") as err:
        _quiet(machine_roofline, README_TRIAD, level="MEM")
    assert isinstance(err.value, ValueError)
    roofline = _quiet(machine_roofline, README_TRIAD, level="MEM", peak_flops=250.0)
    assert roofline.ridge_point() == pytest.approx(250.0 / 11.16334)


def test_any_mix_of_sources():
    roofline = _quiet(machine_roofline, [*MILAN_LOGS, str(ERT), str(ROCPROF)], label="mix")
    names = [roof.name for roof in roofline]
    assert "mix DP AVX FMA peak" in names
    assert "mix FP64 GFLOPs (ERT)" in names
    assert "mix GPU 0 HBM" in names
    assert "mix MEM (stream_mem_avx_fma, likwid-bench)" in names
    assert roofline.devices == ["cpu", "gpu"]


def test_read_likwid_bench_results_give_roofs_like_machine_roofline():
    results = _quiet(read_likwid_bench, BENCH_REPS)
    assert len(results) == 20
    assert results[0].cpu["cpu_type"] == "AMD K17 (Zen) architecture"
    roof = results[0].bandwidth_roof(level="MEM")
    assert roof.level == "MEM"
    assert (roof.provenance["kernel"], roof.provenance["threads"]) == ("triad_avx", 24)
    assert roof.provenance["line"] == results[0].line
    roofline = _quiet(machine_roofline, results, level="MEM")
    (mem,) = roofline.bandwidth
    assert mem.gbs == pytest.approx(100.48628)   # the median of the 20 repetitions
    assert mem.provenance["repetitions"] == 20
    assert mem.provenance["level_decided_by"] == "level= given by the user"
    assert roofline.compute[0].gflops == pytest.approx(441.6)
    load = _quiet(read_likwid_bench, next(p for p in MILAN_LOGS if "l2" in p))[0]
    with pytest.raises(MachineError, match="reports 0 MFlops/s: it is no compute ceiling"):
        load.compute_roof()


def test_command_line_machine_and_plot_take_a_triad_alone(tmp_path):
    command = [sys.executable, "-m", "roofline_widget"]
    done = subprocess.run([*command, "machine", TRIAD_ZEN2], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0
    assert "Theoretical DP AVX2 FMA (1 core at 2 GHz): 32 GFLOP/s (theoretical)" in done.stdout
    assert "note: no likwid-bench peakflops kernel" in done.stdout
    failed = subprocess.run([*command, "machine", README_TRIAD, "--level", "MEM"],
                            capture_output=True, text=True, check=False)
    assert failed.returncode == 2
    assert "give peak_flops= (--peak-flops)" in failed.stderr
    plotted = subprocess.run([*command, "plot", GOLD_4T, "-o", str(tmp_path / "p.png"),
                              "--ceilings", README_TRIAD, "--peak-flops", "250"],
                             capture_output=True, text=True, check=False)
    # README_TRIAD has no group and no topology: its level is undecidable without --level
    assert plotted.returncode == 2
    assert "cannot tell which memory level" in plotted.stderr
    plotted = subprocess.run([*command, "plot", GOLD_4T, "-o", str(tmp_path / "p.png"),
                              "--ceilings", TRIAD_ZEN2, "--peak-flops", "250"],
                             capture_output=True, text=True, check=False)
    assert plotted.returncode == 0
    assert "compute   Peak: 250 GFLOP/s (user)" in plotted.stdout


def test_plot_roofline_takes_ert_roofs():
    payload = _quiet(plot_roofline, GOLD_4T, ceilings=machine_roofline(ERT), verbose=False)
    assert [c["value"] for c in payload["ceilings"]] == [2772.78, 8259.44, 3120.85, 200.3]


# ---------------------------------------------------------------- hostile ceiling files
def _mutations(data: bytes, seed: int, count: int):
    """``count`` seeded mutations of ``data``: flipped, deleted, inserted bytes, cuts."""
    import random

    rng = random.Random(seed)
    alphabet = b'{}[],:"0123456789.eE-+ \n\tabcdefLDRAMHBMdevice\x00\xff'
    for _ in range(count):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            where = rng.randrange(len(mutated) or 1)
            action = rng.randrange(4)
            if action == 0 and mutated:
                mutated[where % len(mutated)] = rng.choice(alphabet)
            elif action == 1 and mutated:
                del mutated[where % len(mutated)]
            elif action == 2:
                mutated.insert(where, rng.choice(alphabet))
            else:
                mutated = mutated[:where]
        yield bytes(mutated)


@pytest.mark.parametrize(("path", "reader"), [(ERT, read_ert_roofline),
                                              (ROCPROF, read_rocprof_roofline)])
def test_mutated_ceiling_files_give_roofs_or_the_packages_errors(path, reader):
    import io

    from roofline_widget.roofs.roofline import BandwidthRoof, ComputeRoof

    good = 0
    for data in _mutations(path.read_bytes(), seed=31, count=300):
        try:
            roofs = reader(io.BytesIO(data))
        except RooflineError:
            continue
        assert roofs
        assert all(isinstance(r, (ComputeRoof, BandwidthRoof)) and r.value > 0 for r in roofs)
        good += 1
    assert good > 0  # some mutations leave a readable file (a changed digit, a cut metadata line)
