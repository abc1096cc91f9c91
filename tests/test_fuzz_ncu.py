"""Mutation fuzzing of the Nsight Compute reader on sample N1, its details page and its raw page.

Each example damages the file -- cut at a random offset, random lines deleted, random
comma-separated pieces replaced by garbage (inside quoted numbers too) -- and reads it.  The
invariant: the reader raises ``LikwidFormatError``, or for every (rank, kernel) of the intact
reading that it returns with all of its launches (``call_count`` as intact), every metric and
the time are the intact ones or NaN (a launch without a value makes the kernel's rate NaN).  A
file cut at a line end is a shorter profile (fewer launches): its kernels are only checked for
not having more launches than the intact file.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_fuzz import by_kernel, check_kept, damaged
from mutations import read_quietly
from render_ncu import N1, n1_passes, n1_rows, render_raw

from roofline_widget import read_ncu, sample_path

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TEXTS = {
    "details": open(sample_path(N1), encoding="utf-8").read(),
    "raw": "".join(render_raw(n1_rows(), pid) for pid in n1_passes()),
}


def _read(text: str):
    return read_quietly(read_ncu, text)


INTACT = {layout: by_kernel(_read(text)) for layout, text in TEXTS.items()}


def test_both_layouts_read_intact():
    assert INTACT["details"] == INTACT["raw"]
    assert len(INTACT["details"]) == 3


@pytest.mark.parametrize("layout", sorted(TEXTS))
@FUZZ
@given(data=st.data())
def test_damaged_export_raises_or_keeps_the_intact_numbers(layout, data):
    check_kept(_read(damaged(TEXTS[layout], data)), INTACT[layout], layout)
