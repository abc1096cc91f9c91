"""A time limit for one call in a test: SIGALRM, so that a hang fails the test instead of the run."""

from __future__ import annotations

import signal
from contextlib import contextmanager


@contextmanager
def alarm(seconds: int):
    """Raise TimeoutError after ``seconds`` (main thread, POSIX)."""
    def ring(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
