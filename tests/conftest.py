"""Fixtures shared by the test modules: the bundled samples most tests draw, read once per module.

``tests/browser/conftest.py`` adds the browser tests' own (Jupyter servers, Chromium).
"""

from __future__ import annotations

import pytest

from roofline_widget import LikwidRun, read_likwid, sample_path

#: Sample 5: pmgpu on an EPYC 7702, MEM_DP and FLOPS_DP of 5 regions, 1 thread.
PMGPU = "pmgpu_zen2_epyc7702_MEM_DP+FLOPS_DP_5regions_1t.txt"
#: Sample 2: GMGPolar on a Skylake socket, MEM_DP of 2 regions, 4 threads.
GMGPOLAR = "gmgpolar_skx4s_lw50_MEM_DP_compact4t_1socket.txt"
#: Sample 10: likwid-mpirun, 48 ranks, the CACHES group.
MPIRUN = "mpirun_clx_sonata_48ranks_CACHES_marker.txt"


@pytest.fixture(scope="module")
def pmgpu() -> LikwidRun:
    return read_likwid(sample_path(PMGPU))


@pytest.fixture(scope="module")
def gmgpolar() -> LikwidRun:
    return read_likwid(sample_path(GMGPOLAR))


@pytest.fixture(scope="module")
def mpirun() -> LikwidRun:
    return read_likwid(sample_path(MPIRUN))


@pytest.fixture(scope="session")
def sweep_file(tmp_path_factory):
    """The generated 54-run sweep (``study_files.write_sweep``: 18 thread counts x 3 cases),
    written once per session."""
    from study_files import write_sweep

    return write_sweep(tmp_path_factory.mktemp("sweep"))
