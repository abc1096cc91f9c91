"""Functions the guarded worker runs in tests/test_guard.py (a worker imports them by name)."""

from __future__ import annotations

import os
import time


def echo(value):
    """Return ``value`` (a call that works)."""
    return value


def hang(seconds: float = 3600.0) -> None:
    """Never answer in time (what libhdf5 does on some damaged files)."""
    time.sleep(seconds)


def die() -> None:
    """End the worker process at once (what a crash in C does)."""
    os._exit(3)


def fail(message: str) -> None:
    """Raise an ordinary error."""
    raise KeyError(message)


def pid() -> int:
    """The worker's process id."""
    return os.getpid()


def slow_echo(value, seconds: float):
    """Return ``value`` after ``seconds`` (a call that is still busy when interrupted)."""
    time.sleep(seconds)
    return value
