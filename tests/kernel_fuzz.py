"""What the GPU readers' fuzz tests check (test_fuzz_ncu, test_fuzz_gpu): damage, then the numbers.

A damaged file is read (:func:`mutations.read_quietly`): the reader raises ``LikwidFormatError``,
or for every (rank, kernel) of the intact reading that it returns with all of its launches
(``call_count`` as intact), every metric and the time are the intact ones or NaN.  A kernel with
fewer launches (a file cut at a line end: a shorter profile) is only checked for not having more.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from mutations import cut, delete_lines, replace_pieces

__all__ = ["MUTATIONS", "by_kernel", "check_kept", "damaged"]

MUTATIONS = {"cut": cut, "delete": delete_lines, "pieces": replace_pieces}


def damaged(text: str, data) -> str:
    """``text`` after one or two random :data:`MUTATIONS`."""
    for kind in data.draw(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=2),
                          label="mutations"):
        if text:
            text = MUTATIONS[kind](text, data)
    return text


def by_kernel(run) -> dict:
    """{(rank, full kernel name): numbers}: display names are numbered by order of appearance,
    which damage to another kernel's name can shift; the full name is the kernel's identity."""
    regions = [str(r) for r in run.table["region"]]
    frame = run.table.assign(region=[run.full_names.get(r, r) for r in regions])
    columns = ["call_count", "runtime_s", *run.metric_names]
    return {(row["rank"], row["region"]): row[columns].to_dict() for _, row in frame.iterrows()}


def check_kept(run, intact: dict, what: str) -> None:
    """Assert the invariant of the module docstring for ``run`` (None: a format error, fine)."""
    if run is None:
        return
    for key, values in by_kernel(run).items():
        if key not in intact:
            continue  # a kernel renamed or a pass split off by the damage
        assert values["call_count"] <= intact[key]["call_count"]
        if values["call_count"] < intact[key]["call_count"]:
            continue  # a shorter profile
        for name, value in values.items():
            if name in intact[key] and not math.isnan(value):
                assert np.isclose(value, intact[key][name], rtol=1e-12, atol=0), (
                    f"{what}: {key} {name} is {value}, intact {intact[key][name]}")
