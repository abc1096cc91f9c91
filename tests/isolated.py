"""Run test code that could hang or blow up memory in a fresh interpreter with limits.

A regression of a hang, a runaway allocation or a process left behind then
fails its test instead of taking the (shared) machine down::

    from isolated import run_python

    done = run_python("print(1 + 1)", timeout=30)
    assert done.stdout == "2\\n"

The child sees this package and the tests' helpers (``sys.path`` is passed on),
gets at most ``memory`` bytes of address space (``RLIMIT_AS``, inherited by
the processes it starts) and is killed, with its process group, after
``timeout`` seconds.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["MEMORY", "TESTS", "children", "run_python", "start_python", "survivors_of_killed_caller"]

#: Address space a child may map: 3 GiB (numpy, pandas, pyarrow and h5py map about 0.5 GiB).
MEMORY = 3 * 2**30
TESTS = Path(__file__).resolve().parent


def _limits(memory: int):
    def apply() -> None:
        os.setpgid(0, 0)  # its own process group: killed with everything it started
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _env() -> dict:
    path = os.pathsep.join([str(TESTS), *(entry or os.curdir for entry in sys.path)])
    return {**os.environ, "PYTHONPATH": path}


def start_python(code: str, memory: int = MEMORY) -> subprocess.Popen:
    """``code`` in a fresh interpreter under the limits, running (stdout and stderr piped, text)."""
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(),
                            preexec_fn=_limits(memory))


def run_python(code: str, timeout: float = 120, memory: int = MEMORY) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter under the limits; killed (its group too) after ``timeout`` s.

    Raises
    ------
    subprocess.TimeoutExpired
        If it did not finish in time (after killing it).
    """
    process = start_python(code, memory)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever it left behind
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid`` (read from ``/proc``)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def survivors_of_killed_caller(code: str, busy_seconds: float, grace: float = 10.0) -> list[int]:
    """Start ``code`` (which starts child processes), kill it ``busy_seconds`` after its first
    child appeared, and return the children still alive ``grace`` seconds later.

    Whatever is left is killed afterwards (the caller's process group).

    Raises
    ------
    AssertionError
        If no child appears within a minute.
    """
    caller = start_python(code)
    try:
        assert _wait_for(lambda: children(caller.pid), 60), "no child process started"
        time.sleep(busy_seconds)
        started = children(caller.pid)
        caller.kill()
        caller.wait()  # not communicate(): a surviving child holds the pipes open
        _wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in started), grace)
        return [pid for pid in started if os.path.exists(f"/proc/{pid}")]
    finally:
        try:
            os.killpg(caller.pid, signal.SIGKILL)  # its group: the children too, had they survived
        except ProcessLookupError:
            pass
        caller.communicate()
