"""Calls of h5py on untrusted files run in worker processes that a hang or a crash cannot take down.

The targets (tests/guard_targets.py) stand in for libhdf5: one never
answers, one ends its process, one raises.
"""

from __future__ import annotations

import os
import time

import pytest
from guard_targets import die, echo, fail, hang, pid

from roofline_widget.errors import LikwidFormatError
from roofline_widget.io.scope import guard


def _running(process_id: int) -> bool:
    try:
        os.kill(process_id, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours counts as gone
        return os.waitpid(process_id, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def test_results_come_back_in_order_from_several_workers():
    calls = [(k,) for k in range(7)]
    assert guard.guarded_map(echo, calls, timeouts=[30.0] * 7, where="x.h5", workers=3) == \
        list(range(7))
    assert guard.guarded_map(echo, [], timeouts=[], where="x.h5") == []


def test_a_hang_is_stopped_and_its_worker_killed():
    worker_pid = guard.guarded_map(pid, [()], timeouts=[30.0], where="x.h5")[0]
    start = time.perf_counter()
    with pytest.raises(LikwidFormatError, match=r"x\.h5: expected h5py to finish reading within "
                                                r"1 s .*it was stopped"):
        guard.guarded_map(hang, [()], timeouts=[1.0], where="x.h5")
    assert time.perf_counter() - start < 15
    # the idle worker did the hanging call and is gone; the next call gets a new one
    assert not _running(worker_pid)
    assert guard.guarded_map(pid, [()], timeouts=[30.0], where="x.h5")[0] != worker_pid


def test_a_crash_is_the_package_error():
    with pytest.raises(LikwidFormatError, match=r"y\.h5: expected h5py to read the file without "
                                                r"crashing, found 'its process died \(exit code 3\)'"):
        guard.guarded_map(die, [()], timeouts=[30.0], where="y.h5")


def test_an_error_is_raised_again_and_the_worker_kept():
    first = guard.guarded_map(pid, [()], timeouts=[30.0], where="x.h5")[0]
    with pytest.raises(KeyError, match="no such object"):
        guard.guarded_map(fail, [("no such object",)], timeouts=[30.0], where="x.h5")
    assert guard.guarded_map(pid, [()], timeouts=[30.0], where="x.h5")[0] == first
