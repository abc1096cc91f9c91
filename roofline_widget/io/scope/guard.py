"""Running h5py on an untrusted file where a hang can be stopped: worker processes with a timeout.

libhdf5 spins forever at 100 % CPU on some damaged files (one zeroed global
heap object header is enough), and Ctrl-C does not stop it: a notebook
kernel that called it is dead.  So the package never calls h5py on a file in
its own process: :func:`guarded_map` runs each call in a worker process
(``forkserver`` where there is one, else ``spawn``: never a fork of a kernel
with threads), waits at most ``timeout`` seconds per call, and kills the
workers when one does not answer (or dies).  Both end in the package's
:class:`~roofline_widget.errors.LikwidFormatError` naming the file.

The raw engine (:mod:`~roofline_widget.io.scope.h5_raw`) needs no guard: it
bounds everything a file controls, so it cannot hang.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence

from roofline_widget.errors import LikwidFormatError

__all__ = ["SECONDS_BASE", "SECONDS_PER_RANK", "guarded_map", "h5py_missing", "timeout_for"]

#: How long one guarded call may take: this, plus :data:`SECONDS_PER_RANK` per rank it reads.
SECONDS_BASE = 60.0
SECONDS_PER_RANK = 30.0
_PRELOAD = ["numpy", "h5py", "roofline_widget.io.scope.h5_engines"]
_lock = threading.Lock()


def timeout_for(n_ranks: int) -> float:
    """Seconds a guarded call reading ``n_ranks`` ranks may take."""
    return SECONDS_BASE + SECONDS_PER_RANK * n_ranks


def h5py_missing(path: str, why: str) -> ImportError:
    """The error when a file needs h5py and it is not installed (with the install hint)."""
    return ImportError(f"{path}: {why}, which needs h5py: pip install h5py "
                       "(or pip install 'roofline-widget[hdf5]')")


def _context():
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        with _lock:
            context.set_forkserver_preload(
                [name for name in _PRELOAD if importlib.util.find_spec(name.split(".")[0])])
        return context
    return multiprocessing.get_context("spawn")


def _serve(connection) -> None:
    """A worker: run every ``(function, args)`` received, send back ``(ok, value)``."""
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            result = (True, function(*args))
        except BaseException as exc:  # sent back and raised in the caller
            result = (False, exc)
        try:
            connection.send(result)
        except Exception as exc:  # an unpicklable result or error
            connection.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self, context):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True,
                                       name="roofline-widget h5py worker")
        self.process.start()
        child.close()

    def call(self, function: Callable, args: tuple, timeout: float, where: str):
        self.connection.send((function, args))
        if not self.connection.poll(timeout):
            raise LikwidFormatError(where, None, f"h5py to finish reading within {timeout:g} s "
                                    "(libhdf5 hangs on some damaged files; it was stopped)",
                                    "no answer")
        try:
            ok, value = self.connection.recv()
        except (EOFError, OSError):
            self.process.join(1)
            raise LikwidFormatError(where, None, "h5py to read the file without crashing",
                                    f"its process died (exit code {self.process.exitcode})") from None
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        self.connection.close()
        self.process.join(0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def guarded_map(function: Callable, calls: Sequence[tuple], *, timeouts: Sequence[float],
                where: str, workers: int = 1) -> list:
    """``function(*args)`` for every ``args`` of ``calls``, in worker processes, in order.

    Parameters
    ----------
    function : callable
        A module-level function (sent to the workers by reference).
    calls : sequence of tuple
        The arguments of each call (picklable).
    timeouts : sequence of float
        Seconds each call may take.
    where : str
        The file, for the errors.
    workers : int
        How many worker processes at most (each takes the next call when done).

    Raises
    ------
    LikwidFormatError
        When a call does not finish in time or its worker dies (every worker
        is then stopped); any error a call raised is raised again.
    """
    if not calls:
        return []
    context = _context()
    pool = [_Worker(context) for _ in range(max(1, min(workers, len(calls), os.cpu_count() or 1)))]
    results: list = [None] * len(calls)
    errors: list[BaseException] = []
    next_call = iter(range(len(calls)))
    take = threading.Lock()

    def run(worker: _Worker) -> None:
        while not errors:
            with take:
                index = next(next_call, None)
            if index is None:
                return
            try:
                results[index] = worker.call(function, calls[index], timeouts[index], where)
            except BaseException as exc:
                errors.append(exc)

    try:
        if len(pool) == 1:
            run(pool[0])
        else:
            threads = [threading.Thread(target=run, args=(worker,), daemon=True) for worker in pool]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        for worker in pool:
            worker.stop()
    if errors:
        raise errors[0]
    return results
