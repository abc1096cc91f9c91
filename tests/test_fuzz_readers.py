"""Mutation fuzzing of the readers over every bundled real sample (issue 9).

Each example damages one real file -- cut at a random offset, random lines deleted, random
cells replaced by garbage -- and reads it.  The invariant: the reader raises
``LikwidFormatError``, or every number it returns equals what the intact file says:

* likwid-perfctr / likwid-mpirun output: per (rank, region, group, device) the sum over threads
  of every metric, for the keys and metrics both readings have (a metric may be missing, NaN,
  never different);
* likwid-bench output: every result returned is one of the intact file's results (a field
  may be missing, NaN, never different).

Sums are compared per group, not through ``RegionSums`` (which takes a metric from the first
group that has it: with a row deleted in one group, the other group's equal-named metric would
be a legitimate, different value).
"""

from __future__ import annotations

import io
import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import cut, delete_lines, read_quietly

from roofline_widget import read_likwid, sample_names, sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.bench import read_likwid_bench

#: Texts that are no number and none of the NaN tokens ('-', 'nan', 'inf', 'N/A', ...).
GARBAGE = ["x", "?", "12a", "1.2.3", "0x1f", "#", "1e", "abc", "--", "+-1", "1..0", "e5"]
FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _texts() -> dict[str, str]:
    return {name: Path(sample_path(name)).read_text(encoding="utf-8") for name in sample_names()}


TEXTS = _texts()


def _perfctr_samples() -> list[str]:
    out = []
    for name, text in TEXTS.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read_likwid(io.BytesIO(text.encode()))
        except LikwidFormatError:
            continue
        out.append(name)
    return out


PERFCTR = _perfctr_samples()
BENCH = [name for name, text in TEXTS.items() if "LIKWID MICRO BENCHMARK" in text]


# ------------------------------------------------------------------ mutations
def _cell_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of a table row (``|``-framed) or CSV line or ``key:\\tvalue`` line."""
    if line.startswith("|"):
        bars = [k for k, c in enumerate(line) if c == "|"]
        return [(a + 1, b) for a, b in itertools.pairwise(bars) if b - a > 3]
    if "," in line:
        commas = [-1] + [k for k, c in enumerate(line) if c == ","] + [len(line)]
        return [(a + 1, b) for a, b in itertools.pairwise(commas) if b > a + 1]
    if ":\t" in line:
        start = line.index(":\t") + 1
        return [(start, len(line))]
    return []


def _replace_cells(text: str, data) -> str:
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3), label="cells replaced")):
        candidates = [k for k, line in enumerate(lines) if _cell_spans(line)]
        if not candidates:
            break
        k = data.draw(st.sampled_from(candidates), label="line")
        spans = _cell_spans(lines[k])
        a, b = data.draw(st.sampled_from(spans), label="cell")
        token = data.draw(st.sampled_from(GARBAGE), label="garbage")
        if lines[k].startswith("|"):  # keep the table aligned: same width, centred
            token = token[:b - a - 2].center(b - a)
        lines[k] = lines[k][:a] + token + lines[k][b:]
    return "\n".join(lines) + "\n"


MUTATIONS = {"cut": cut, "delete": delete_lines, "cells": _replace_cells}


def _mutated(text: str, data) -> str:
    kinds = data.draw(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=2),
                      label="mutations")
    for kind in kinds:
        if text:
            text = MUTATIONS[kind](text, data)
    return text


# ------------------------------------------------------------------ invariants
def _group_sums(run) -> dict:
    """{(rank, region, group, device): {metric: sum over threads}} (NaN where nothing measured)."""
    metrics = run.metric_names
    keys = ["rank", "region", "group", "device"]
    frame = run.table[keys + metrics].copy()
    for column in ("region", "group", "device"):
        frame[column] = frame[column].astype(str)
    sums = frame.groupby(keys, sort=False).sum(min_count=1)
    return {key: row.to_dict() for key, row in sums.iterrows()}


INTACT_SUMS = {name: _group_sums(read_quietly(read_likwid, TEXTS[name])) for name in PERFCTR}


def test_every_sample_is_fuzzed():
    assert len(PERFCTR) == len(sample_names()) - 1  # all but the bench-only README output
    assert len(BENCH) == 2
    assert set(PERFCTR) | set(BENCH) == set(sample_names())


@pytest.mark.parametrize("name", PERFCTR)
@FUZZ
@given(data=st.data())
def test_damaged_perfctr_output_raises_or_keeps_the_intact_sums(name, data):
    text = _mutated(TEXTS[name], data)
    run = read_quietly(read_likwid, text)
    if run is None:
        return  # a clear LikwidFormatError
    intact = INTACT_SUMS[name]
    for key, sums in _group_sums(run).items():
        if key not in intact:
            continue  # a region or group renamed by the damage: nothing to compare with
        for metric, value in sums.items():
            if metric not in intact[key] or math.isnan(value):
                continue
            expected = intact[key][metric]
            # the same thread values summed: equal up to the rounding of the summation order
            assert np.isclose(value, expected, rtol=1e-12, atol=0), (
                f"{name}: {key} {metric!r} is {value}, the intact file says {expected}")


_BENCH_FIELDS = ("gflops", "gbs", "time_s", "data_volume_bytes", "flops")


def _same_result(result, intact) -> bool:
    if (result.kernel, result.threads, result.work_groups) != (
            intact.kernel, intact.threads, intact.work_groups):
        return False
    return all(math.isnan(getattr(result, f)) or getattr(result, f) == getattr(intact, f)
               for f in _BENCH_FIELDS)


@pytest.mark.parametrize("name", BENCH)
@FUZZ
@given(data=st.data())
def test_damaged_bench_output_raises_or_keeps_the_intact_results(name, data):
    intact = read_quietly(read_likwid_bench, TEXTS[name])
    results = read_quietly(read_likwid_bench, _mutated(TEXTS[name], data))
    for result in results or []:
        assert any(_same_result(result, good) for good in intact), (
            f"{name}: {result} is none of the intact results {intact}")
