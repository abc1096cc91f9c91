"""The real LIKWID outputs "from the wild": samples 18-21 and 23 in ``tests/data`` (see its
SOURCES.md), sample 22 bundled with the package (``roofline_widget/data``).

Samples 18-21 and 23 are test data, not package data: the tests name them through the constants here.
"""

from __future__ import annotations

from pathlib import Path

from roofline_widget import sample_path

DATA = Path(__file__).parent / "data"

#: Sample 18: likwid-mpirun wrapper mode, 24 ranks on one Ice Lake socket, MEM_DP, a ``nil`` STAT cell.
MPIRUN_NIL = DATA / "mpirun_wrapper_icx8360y_lbm_24ranks_MEM_DP_nil.txt"
#: Sample 19: seven LULESH runs (problem sizes 30^3 ... 350^3) appended to one CSV log.
LULESH_SIZES = DATA / "lulesh_icx8360y_MEM_DP_O_7sizes_concatenated.csv"
#: Sample 20: twenty likwid-bench triad_avx runs under ``likwid-perfctr -O -g MEM`` in one log.
BENCH_REPS = DATA / "bench_in_perfctr_O_naples_epyc7451_MEM_triad_20reps.raw"
#: Sample 21: every region block printed twice, identically.
REGIONS_TWICE = DATA / "ufpr_coffeelake_i5-7500_L2CACHE_regions_twice.txt"
#: Sample 23: likwid-mpirun wrapper mode, 216 ranks on 3 Ice Lake hosts (72 each), MEM_DP, memory
#: counted on one rank per socket, rank 61's 512-bit packed DP counter wrapped (near 2^47).
SOMA_216 = DATA / "pmbs_soma_icx8360y_216ranks_MEM_DP_one_wrapped_counter.txt"
WRAPPED_RANK = SOMA_216
#: Sample 22: one Zen3 machine's likwid-bench ceiling set (a folder of five logs and the script).
MILAN = Path(sample_path("SOURCES.md")).parent / "machine_milan_epyc7763_16c"
#: Sample 22's likwid-bench logs (without the script that ran them), as path strings.
MILAN_LOGS = sorted(str(path) for path in MILAN.glob("*.log"))

#: The files of samples 18-21 (the new layouts the fuzz tests mutate).
WILD_FILES = (MPIRUN_NIL, LULESH_SIZES, BENCH_REPS, REGIONS_TWICE)


def wild_text(path: Path) -> str:
    """A sample's text, exactly as stored."""
    return path.read_text(encoding="utf-8")
