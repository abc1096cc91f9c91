"""The one reduction over threads (points/engines/threads.py) and the engines that share it.

The rule: the sum over a region's threads skips a thread whose value is not
finite (LIKWID's ``-``, NaN, inf), all-non-finite stays NaN (never 0), the
skipped threads are counted where another thread measured; runtime and call
count are maxima, NaN ignored.  Every engine (LikwidRun, ProfilingResults,
HDF5 file) must give the same bits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from roofline_widget.points.engines.threads import (
    max_over_segments,
    max_over_threads,
    nonfinite_threads,
    sum_over_segments,
    sum_over_threads,
)

NAN, INF = np.nan, np.inf


def test_sums_by_hand():
    values = np.array([
        [1.5, 2.0, 4.0],        # 7.5, every thread measured
        [1.0, NAN, 3.0],        # 4.0, one thread not measured
        [NAN, INF, -INF],       # no thread measured: NaN, and no "unmeasured" count
        [0.0, 0.0, 0.0],        # 0 is a measurement
    ])
    reduced = sum_over_threads(values)
    np.testing.assert_array_equal(reduced.sums, [7.5, 4.0, NAN, 0.0])
    assert reduced.unmeasured.tolist() == [0, 1, 0, 0]
    assert reduced.unmeasured.dtype == np.int64


def test_no_threads_is_nan_not_zero():
    reduced = sum_over_threads(np.zeros((2, 0)))
    assert np.isnan(reduced.sums).all()
    assert reduced.unmeasured.tolist() == [0, 0]
    assert np.isnan(max_over_threads(np.zeros((3, 0)))).all()


def test_maxima_ignore_nan_but_keep_inf():
    np.testing.assert_array_equal(max_over_threads(np.array([[0.25, NAN, 0.5], [NAN, NAN, NAN],
                                                             [1.0, INF, 2.0]])),
                                  [0.5, NAN, INF])


def test_segments_by_hand():
    # regions of 2, 0, 3 and 1 threads, one after the other
    values = np.array([1.0, 2.0, 4.0, NAN, 8.0, NAN])
    reduced = sum_over_segments(values, [2, 0, 3, 1])
    np.testing.assert_array_equal(reduced.sums, [3.0, NAN, 12.0, NAN])
    assert reduced.unmeasured.tolist() == [0, 0, 1, 0]
    np.testing.assert_array_equal(max_over_segments(values, [2, 0, 3, 1]), [2.0, NAN, 8.0, NAN])
    # a leading axis (metrics) is kept
    two = sum_over_segments(np.vstack([values, 2 * values]), [2, 0, 3, 1])
    np.testing.assert_array_equal(two.sums[1], [6.0, NAN, 24.0, NAN])
    assert nonfinite_threads(values[2:5]).tolist() == [1]


@pytest.mark.parametrize("n_threads", [1, 2, 7, 8, 9, 16, 17, 31, 128, 129, 300])
def test_a_region_sums_to_the_same_bits_however_it_is_batched(n_threads):
    # numpy sums pairwise; each region's threads along a contiguous last axis give the
    # same bits alone, stacked with other regions, with a metric axis, or as segments
    rng = np.random.default_rng(n_threads)
    values = rng.uniform(-1e3, 1e6, (4, 5, n_threads)) * 10.0 ** rng.integers(-6, 6, (4, 5, n_threads))
    values[1, 2, 0] = NAN
    stacked = sum_over_threads(values).sums
    for i in range(4):
        np.testing.assert_array_equal(sum_over_threads(values[i]).sums, stacked[i])
        for j in range(5):
            np.testing.assert_array_equal(sum_over_threads(values[i, j]).sums, stacked[i, j])
    flat = values.reshape(20, n_threads).ravel()
    np.testing.assert_array_equal(sum_over_segments(flat, [n_threads] * 20).sums, stacked.ravel())
    # mixed lengths: the regions of this length still give their bits
    mixed = np.concatenate([flat, [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(sum_over_segments(mixed, [n_threads] * 20 + [3]).sums[:20],
                                  stacked.ravel())


def _engines(tmp_path):
    """The three engines on one file: LikwidRun (per-thread table), ProfilingResults, HDF5."""
    pytest.importorskip("scope_profiler")
    pytest.importorskip("h5py")
    from scope_fixtures import make_profiling_results, write_scope_h5

    from roofline_widget.io.scope.h5 import read_scope_h5
    from roofline_widget.points import RunSource, ScopeResultsSource, read_scope_sums

    results = make_profiling_results(n_ranks=3, n_regions=4, n_threads=12, seed=11)
    for regions in results.get_likwid_regions().values():  # threads LIKWID printed as '-'
        regions["region_001"].metrics[0, 3] = NAN
        regions["region_002"].metrics[:, 5] = INF
    path = write_scope_h5(tmp_path / "three.h5", results)
    return {"run": RunSource(read_scope_h5(path)), "results": ScopeResultsSource(results),
            "h5": read_scope_sums(path, cache=False)}


def test_the_three_engines_give_the_same_bits(tmp_path):
    engines = _engines(tmp_path)
    reference = engines.pop("results")
    for name, engine in engines.items():
        assert engine.metric_names == reference.metric_names, name
        for key in ("rank", "n_threads", "runtime_s", "call_count"):
            np.testing.assert_array_equal(np.asarray(engine.keys[key], dtype=float),
                                          np.asarray(reference.keys[key], dtype=float), err_msg=key)
        assert list(pd.Categorical(engine.keys["region"])) == list(reference.keys["region"])
        for metric in reference.metric_names:
            # exact: one reduction, not a tolerance
            np.testing.assert_array_equal(engine.sums(metric), reference.sums(metric),
                                          err_msg=f"{name}: {metric}")
            mine, theirs = engine.unmeasured(metric), reference.unmeasured(metric)
            assert mine.counts.tolist() == theirs.counts.tolist(), (name, metric)
            assert mine.threads == theirs.threads, (name, metric)
    # region_001 lost one thread of the first metric on every rank, region_002 one of each
    first = reference.metric_names[0]
    assert reference.unmeasured(first).counts.tolist() == [0, 1, 1, 0] * 3
    assert reference.unmeasured(first).threads[1] == ("HWThread 3",)
