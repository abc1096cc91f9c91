"""Calls of h5py on untrusted files run in worker processes that a hang or a crash cannot take down.

The targets (tests/guard_targets.py) stand in for libhdf5: one never
answers, one ends its process, one raises, one answers late.  Issue 37 added:
an interrupted call kills its worker (the next call got the interrupted call's
answer), a worker dies with its caller, one time limit for all the calls of a
file; those that start processes run in a limited subprocess (tests/isolated.py).
"""

from __future__ import annotations

import os
import time

import pytest
from guard_targets import die, echo, fail, hang, pid, slow_echo

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
    assert guard.guarded_map(echo, calls, seconds=30.0, where="x.h5", workers=3) == \
        list(range(7))
    assert guard.guarded_map(echo, [], seconds=30.0, where="x.h5") == []


def test_a_hang_is_stopped_and_its_worker_killed():
    worker_pid = guard.guarded_map(pid, [()], seconds=30.0, where="x.h5")[0]
    start = time.perf_counter()
    with pytest.raises(LikwidFormatError, match=r"x\.h5: expected h5py to finish reading within "
                                                r"1 s .*it was stopped"):
        guard.guarded_map(hang, [()], seconds=1.0, where="x.h5")
    assert time.perf_counter() - start < 15
    # the idle worker did the hanging call and is gone; the next call gets a new one
    assert not _running(worker_pid)
    assert guard.guarded_map(pid, [()], seconds=30.0, where="x.h5")[0] != worker_pid


def test_a_crash_is_the_package_error():
    with pytest.raises(LikwidFormatError, match=r"y\.h5: expected h5py to read the file without "
                                                r"crashing, found 'its process died \(exit code 3\)'"):
        guard.guarded_map(die, [()], seconds=30.0, where="y.h5")


def test_an_error_is_raised_again_and_the_worker_kept():
    first = guard.guarded_map(pid, [()], seconds=30.0, where="x.h5")[0]
    with pytest.raises(KeyError, match="no such object"):
        guard.guarded_map(fail, [("no such object",)], seconds=30.0, where="x.h5")
    assert guard.guarded_map(pid, [()], seconds=30.0, where="x.h5")[0] == first


# ---------------------------------------------------------------- issue 37: interrupts, a dead caller,
# one time limit per file.  Each runs in a fresh interpreter with a time limit and an address-space
# limit (tests/isolated.py): a regression fails the test and leaves no process behind.
_INTERRUPT = """
import signal, threading
from guard_targets import echo, slow_echo
from roofline_widget.io.scope import guard
print("warm", guard.guarded_map(echo, [(0,)], seconds=60.0, where="x.h5"), flush=True)
main = threading.main_thread().ident
threading.Timer(1.0, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
try:
    guard.guarded_map(slow_echo, [("old", 4.0)] * {calls}, seconds=60.0, where="x.h5",
                      workers={workers})
except KeyboardInterrupt:
    print("interrupted", flush=True)
print("next", guard.guarded_map(echo, [("new",)], seconds=60.0, where="x.h5"), flush=True)
"""


@pytest.mark.parametrize(("calls", "workers"), [(1, 1), (2, 2)])
def test_an_interrupted_call_kills_its_worker_and_the_next_call_gets_its_own_answer(calls, workers):
    # before the fix the busy worker went back to the pool: the next call got ['old']
    from isolated import run_python

    done = run_python(_INTERRUPT.format(calls=calls, workers=workers), timeout=90)
    assert done.stdout.splitlines() == ["warm [0]", "interrupted", "next ['new']"], done.stderr


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the worker in /proc")
def test_a_worker_dies_with_its_caller():
    # before the fix the worker outlived a killed caller (in libhdf5: spinning at 100 % CPU)
    from isolated import survivors_of_killed_caller

    assert survivors_of_killed_caller("from guard_targets import hang\n"
                                      "from roofline_widget.io.scope import guard\n"
                                      "guard.guarded_map(hang, [()], seconds=600.0, where='x.h5')\n",
                                      busy_seconds=1.0) == []


def test_the_time_limit_is_per_file_not_per_call():
    # three calls of 0.8 s each: 2.4 s in one worker, past the 1.5 s of the whole file
    with pytest.raises(LikwidFormatError, match=r"x\.h5: expected h5py to finish reading within "
                                                r"1\.5 s"):
        guard.guarded_map(slow_echo, [("a", 0.8)] * 3, seconds=1.5, where="x.h5")
    assert guard.file_seconds(0) == guard.SECONDS_BASE
    assert guard.file_seconds(10**7) == guard.SECONDS_BASE + 10 * guard.SECONDS_PER_MB
