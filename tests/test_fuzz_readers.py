"""Mutation fuzzing of the readers over every bundled real sample and the files from the wild.

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

The files from the wild (``tests/data``, samples 18-21: a ``nil`` STAT cell, seven runs in one
CSV log, twenty likwid-bench repetitions under likwid-perfctr CSV, blocks printed twice) are
damaged the same ways and two more: a cell replaced by a "no value" token (``nil``, ``-``,
``nan``, ``inf``), and a span of lines printed twice.  Their sums are compared run by run (with
the intact file's run of the same number, or, where the damage changed how many runs the file
holds, with any of its runs); a thread without a value makes its region's sum "not measured"
(NaN), as it leaves the point out.  The sums of the intact files equal LIKWID's STAT Sum rows
(``test_wild_samples_agree_with_their_stat_sums``).

``ROOFLINE_FUZZ_EXAMPLES`` sets the examples per file (30 by default, under a minute in all);
``benchmarks/fuzz_readers_long.py`` runs thousands.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mutations import cut, delete_lines, print_twice, read_quietly
from wild_samples import BENCH_REPS, WILD_FILES, wild_text

from roofline_widget import read_likwid, sample_names, sample_path
from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.bench import read_likwid_bench
from roofline_widget.io.stat_check import stat_mismatches

#: Texts that are no number and none of the NaN tokens ('-', 'nan', 'inf', 'N/A', ...).
GARBAGE = ["x", "?", "12a", "1.2.3", "0x1f", "#", "1e", "abc", "--", "+-1", "1..0", "e5",
           "1_0", "\uff11", "\u0661", "1e1_0"]
#: "No value" tokens LIKWID prints: a thread that did not measure.
NO_VALUE = ["nil", "-", "nan", "-nan", "inf"]
EXAMPLES = int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: The files from the wild are larger (up to 392 KB): fewer examples each in the normal run.
WILD_FUZZ = settings(FUZZ, max_examples=max(1, EXAMPLES // 2))


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
WILD = {path.name: wild_text(path) for path in WILD_FILES}


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


def _replace_cells(text: str, data, tokens=GARBAGE) -> str:
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3), label="cells replaced")):
        candidates = [k for k, line in enumerate(lines) if _cell_spans(line)]
        if not candidates:
            break
        k = data.draw(st.sampled_from(candidates), label="line")
        spans = _cell_spans(lines[k])
        a, b = data.draw(st.sampled_from(spans), label="cell")
        token = data.draw(st.sampled_from(tokens), label="token")
        if lines[k].startswith("|"):  # keep the table aligned: same width, centred
            token = token[:b - a - 2].center(b - a)
        lines[k] = lines[k][:a] + token + lines[k][b:]
    # a text cut off (no newline at its end) stays cut off: the damage is never repaired
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _no_value(text: str, data) -> str:
    return _replace_cells(text, data, NO_VALUE)


MUTATIONS = {"cut": cut, "delete": delete_lines, "cells": _replace_cells}
WILD_MUTATIONS = {**MUTATIONS, "no value": _no_value, "twice": print_twice}


def _mutated(text: str, data, mutations=MUTATIONS) -> str:
    kinds = data.draw(st.lists(st.sampled_from(sorted(mutations)), min_size=1, max_size=2),
                      label="mutations")
    for kind in kinds:
        if text:
            text = mutations[kind](text, data)
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


def _run_sums(run) -> list[dict]:
    """Per run of the file, {(rank, region, group, device): {metric: sum over threads}}: NaN
    where a thread has no value (the point of such a region is left out)."""
    out = []
    for part in run.each_run():
        metrics = part.metric_names
        keys = ["rank", "region", "group", "device"]
        frame = part.table[keys + metrics].copy()
        for column in ("region", "group", "device"):
            frame[column] = frame[column].astype(str)
        grouped = frame.groupby(keys, sort=False)[metrics]
        sums = grouped.sum(min_count=1).where(grouped.count() == grouped.size().to_numpy()[:, None])
        out.append({key: row.to_dict() for key, row in sums.iterrows()})
    return out


INTACT_RUNS = {name: _run_sums(read_quietly(read_likwid, text)) for name, text in WILD.items()}


def test_every_sample_is_fuzzed():
    assert len(PERFCTR) == len(sample_names()) - 1  # all but the bench-only README output
    assert len(BENCH) == 2
    assert set(PERFCTR) | set(BENCH) == set(sample_names())
    assert [len(runs) for runs in INTACT_RUNS.values()] == [1, 7, 20, 1]  # samples 18-21


@pytest.mark.parametrize("name", sorted(WILD))
def test_wild_samples_agree_with_their_stat_sums(name):
    # the reference of the fuzz test: the intact files' sums are LIKWID's own (STAT Sum rows;
    # samples 19 and 21 are one thread: no STAT rows, nothing to disagree with)
    run = read_quietly(read_likwid, WILD[name])
    assert stat_mismatches(run) == []


@pytest.mark.parametrize("name", sorted(WILD))
@WILD_FUZZ
@given(data=st.data())
def test_damaged_wild_output_raises_or_keeps_the_intact_sums(name, data):
    run = read_quietly(read_likwid, _mutated(WILD[name], data, WILD_MUTATIONS))
    if run is None:
        event("refused (LikwidFormatError)")
        return  # a clear LikwidFormatError
    intact = INTACT_RUNS[name]
    damaged = _run_sums(run)
    event("read, as many runs as intact" if len(damaged) == len(intact) else
          "read, the damage changed the runs")
    for number, sums in enumerate(damaged):
        # the run of the same number, unless the damage changed how many runs there are
        candidates = [intact[number]] if len(damaged) == len(intact) else intact
        for key, metrics in sums.items():
            for metric, value in metrics.items():
                if math.isnan(value):
                    continue  # not measured: the point is left out, with the reason
                expected = [c[key][metric] for c in candidates if key in c and metric in c[key]
                            and not math.isnan(c[key][metric])]
                if not expected:
                    continue  # a region, group or metric renamed by the damage
                assert any(np.isclose(value, e, rtol=1e-12, atol=0) for e in expected), (
                    f"{name}: run {number + 1} {key} {metric!r} is {value}, the intact file "
                    f"says {expected}")


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


BENCH_TEXTS = {**{name: TEXTS[name] for name in BENCH}, BENCH_REPS.name: WILD[BENCH_REPS.name]}


@pytest.mark.parametrize("name", sorted(BENCH_TEXTS))
@FUZZ
@given(data=st.data())
def test_damaged_bench_output_raises_or_keeps_the_intact_results(name, data):
    intact = read_quietly(read_likwid_bench, BENCH_TEXTS[name])
    results = read_quietly(read_likwid_bench, _mutated(BENCH_TEXTS[name], data))
    for result in results or []:
        assert any(_same_result(result, good) for good in intact), (
            f"{name}: {result} is none of the intact results {intact}")
