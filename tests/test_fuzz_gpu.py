"""Mutation fuzzing of the GPU readers on the layouts of samples N2, N3 and R2 (the invariant of
``kernel_fuzz.py``: a clear ``LikwidFormatError``, or every kernel read with all its launches has
the intact numbers or NaN).

* ``n2``: sample N2's header and its first four launches, lines 1-248 (rule columns the metric
  rows leave out, rule rows of 15 cells, thousands separators, a date in ``"Kernel Time"``);
* ``n3``: sample N3 whole (``smsp__`` counters, ``Block Size``/``Grid Size``/``Device``/``CC``), after
  a preamble of ncu's ``==PROF==``/``==ERROR==`` lines;
* ``rocprof``: sample R2's ``pmc_perf.csv`` with two dispatches that do FP64 work
  (``render_rocprof.py``), about a thousand columns a row.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_fuzz import by_kernel, check_kept, damaged
from mutations import read_quietly
from render_rocprof import pmc_perf
from wild_samples import DATA

from roofline_widget import read_ncu, read_rocprof, sample_path

FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_N2_LINES = (DATA / "gpt2_ampere_ncu_old_header_thousands.csv").read_text(
    encoding="utf-8").splitlines(keepends=True)
_LATER = {"SQ_INSTS_VALU_FMA_F64": "16384", "Dispatch_ID": "1",
          "Start_Timestamp": "1411987252100000", "End_Timestamp": "1411987252140320"}
TEXTS = {
    "n2": "".join(_N2_LINES[:248]),  # launches 0-3: 62, 62, 61 and 62 rows
    "n3": ('==PROF== Connected to process 1984564\n==ERROR== Failed to profile "gemm_v1" in '
           'process 1984564\n' + open(sample_path("ncu/gemm_cc80_ncu_smsp_counters.csv"),
                                      encoding="utf-8").read()),
    "rocprof": pmc_perf({"SQ_INSTS_VALU_FMA_F64": "16384"}, _LATER),
}
READERS = {"n2": read_ncu, "n3": read_ncu, "rocprof": read_rocprof}
INTACT = {name: by_kernel(read_quietly(READERS[name], text)) for name, text in TEXTS.items()}


def test_every_layout_reads_intact():
    # n2: distribution_elementwise_grid_stride_kernel (launches 0-2), a vectorized_elementwise_kernel
    # (3); n3: randomInit (2 launches), gemm_v0; rocprof: vecCopy (2 dispatches)
    assert [len(INTACT[name]) for name in ("n2", "n3", "rocprof")] == [2, 2, 1]
    assert sorted(v["call_count"] for v in INTACT["n2"].values()) == [1, 3]
    assert [v["call_count"] for v in INTACT["rocprof"].values()] == [2]


@pytest.mark.parametrize("layout", sorted(TEXTS))
@FUZZ
@given(data=st.data())
def test_damaged_file_raises_or_keeps_the_intact_numbers(layout, data):
    run = read_quietly(READERS[layout], damaged(TEXTS[layout], data))
    check_kept(run, INTACT[layout], layout)
