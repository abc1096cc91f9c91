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

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import cut, delete_lines, read_quietly
from render_ncu import N1, n1_passes, n1_rows, render_raw

from roofline_widget import read_ncu, sample_path

GARBAGE = ["x", "?", "12a", "1.2.3", "0x1f", "#", "1e", "abc", "--", "+-1", "1..0", "e5", '"']
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TEXTS = {
    "details": open(sample_path(N1), encoding="utf-8").read(),
    "raw": "".join(render_raw(n1_rows(), pid) for pid in n1_passes()),
}


def _replace_pieces(text: str, data) -> str:
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3), label="pieces replaced")):
        k = data.draw(st.sampled_from(range(len(lines))), label="line")
        pieces = lines[k].split(",")
        at = data.draw(st.sampled_from(range(len(pieces))), label="piece")
        keep_quotes = data.draw(st.booleans(), label="keep quotes")
        token = data.draw(st.sampled_from(GARBAGE), label="garbage")
        piece = pieces[at]
        if keep_quotes:
            token = ('"' if piece.startswith('"') else "") + token + \
                ('"' if piece.endswith('"') and len(piece) > 1 else "")
        pieces[at] = token
        lines[k] = ",".join(pieces)
    return "\n".join(lines) + "\n"


MUTATIONS = {"cut": cut, "delete": delete_lines, "pieces": _replace_pieces}


def _read(text: str):
    return read_quietly(read_ncu, text)


def _by_kernel(run) -> dict:
    """{(rank, full kernel name): numbers}: display names are numbered by order of appearance,
    which damage to another kernel's name can shift; the full name is the kernel's identity."""
    regions = [str(r) for r in run.table["region"]]
    frame = run.table.assign(region=[run.full_names.get(r, r) for r in regions])
    columns = ["call_count", "runtime_s", *run.metric_names]
    return {(row["rank"], row["region"]): row[columns].to_dict() for _, row in frame.iterrows()}


INTACT = {layout: _by_kernel(_read(text)) for layout, text in TEXTS.items()}


def test_both_layouts_read_intact():
    assert INTACT["details"] == INTACT["raw"]
    assert len(INTACT["details"]) == 3


@pytest.mark.parametrize("layout", sorted(TEXTS))
@FUZZ
@given(data=st.data())
def test_damaged_export_raises_or_keeps_the_intact_numbers(layout, data):
    text = TEXTS[layout]
    for kind in data.draw(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=2),
                          label="mutations"):
        if text:
            text = MUTATIONS[kind](text, data)
    run = _read(text)
    if run is None:
        return  # a clear LikwidFormatError
    intact = INTACT[layout]
    for key, values in _by_kernel(run).items():
        if key not in intact:
            continue  # a kernel renamed or a pass split off by the damage
        assert values["call_count"] <= intact[key]["call_count"]
        if values["call_count"] < intact[key]["call_count"]:
            continue  # a shorter profile
        for name, value in values.items():
            if name in intact[key] and not math.isnan(value):
                assert np.isclose(value, intact[key][name], rtol=1e-12, atol=0), (
                    f"{layout}: {key} {name} is {value}, intact {intact[key][name]}")
