"""Running h5py on an untrusted file where a hang can be stopped: worker processes with a timeout.

libhdf5 spins forever at 100 % CPU on some damaged files (one zeroed global
heap object header is enough), and Ctrl-C does not stop it: a notebook
kernel that called it is dead.  So the package never calls h5py on a file in
its own process: :func:`guarded_map` runs each call in a worker process (a
fresh ``python`` running :func:`serve`: no fork of a kernel with threads, no
re-import of the caller's ``__main__``), waits at most ``timeout`` seconds
per call, and kills a worker that does not answer (or dies).  Both end in the
package's :class:`~roofline_widget.errors.LikwidFormatError` naming the file.
Up to :data:`IDLE_WORKERS` idle workers are kept for the next calls
(starting one costs about half a second); a worker left idle for
:data:`IDLE_SECONDS` exits by itself.

The raw engine (:mod:`~roofline_widget.io.scope.h5_raw`) needs no guard: it
bounds everything a file controls, so it cannot hang.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO, cast

from roofline_widget.errors import LikwidFormatError

__all__ = ["IDLE_SECONDS", "IDLE_WORKERS", "SECONDS_BASE", "SECONDS_PER_RANK", "guarded_map",
           "h5py_missing", "serve", "timeout_for"]

#: How long one guarded call may take: this, plus :data:`SECONDS_PER_RANK` per rank it reads.
SECONDS_BASE = 60.0
SECONDS_PER_RANK = 30.0
#: Idle workers kept for the next call, and how long one waits before it exits.
IDLE_WORKERS = min(4, os.cpu_count() or 1)
IDLE_SECONDS = 120.0
_STARTUP_SECONDS = 120.0
_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def timeout_for(n_ranks: int) -> float:
    """Seconds a guarded call reading ``n_ranks`` ranks may take."""
    return SECONDS_BASE + SECONDS_PER_RANK * n_ranks


def h5py_missing(path: str, why: str) -> ImportError:
    """The error when a file needs h5py and it is not installed (with the install hint)."""
    return ImportError(f"{path}: {why}, which needs h5py: pip install h5py "
                       "(or pip install 'roofline-widget[hdf5]')")


def _send(stream, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def _read_exactly(stream, size: int) -> bytes:
    parts, done = [], 0
    while done < size:
        part = stream.read(size - done)
        if not part:
            raise EOFError
        parts.append(part)
        done += len(part)
    return b"".join(parts)


def _receive(stream) -> object:
    """One message, or EOFError when the other side is gone."""
    size = int.from_bytes(_read_exactly(stream, 8), "little")
    return pickle.loads(_read_exactly(stream, size))


def serve() -> None:
    """A worker's main loop: run every ``(function, args)`` received, send back ``(ok, value)``.

    The messages travel on stdin and on a copy of stdout; what the called
    code prints goes to stderr.  Idle for :data:`IDLE_SECONDS`, it exits.
    """
    incoming = os.fdopen(os.dup(0), "rb", buffering=0)  # unbuffered: select sees every byte
    outgoing = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    with contextlib.suppress(ImportError):
        import h5py  # noqa: F401  (loaded once, before the first call)
    _send(outgoing, "ready")
    while True:
        if os.name == "posix":
            import select

            if not select.select([incoming], [], [], IDLE_SECONDS)[0]:
                return
        try:
            function, args = cast(tuple[Callable, tuple], _receive(incoming))
        except EOFError:
            return
        try:
            result = (True, function(*args))
        except BaseException as exc:  # sent back and raised in the caller
            result = (False, exc)
        try:
            _send(outgoing, result)
        except Exception as exc:  # an unpicklable result or error
            _send(outgoing, (False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """One worker process; a thread reads its answers into a queue (so waiting can time out)."""

    def __init__(self):
        path = os.pathsep.join(entry or os.curdir for entry in sys.path)
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from roofline_widget.io.scope.guard import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": path})
        self.stdin = cast(IO[bytes], self.process.stdin)
        self.stdout = cast(IO[bytes], self.process.stdout)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            ready = self.answers.get(timeout=_STARTUP_SECONDS)
        except queue.Empty:
            ready = None
        if ready != "ready":
            self.kill()
            raise RuntimeError("the h5py worker process did not start")

    def _read(self) -> None:
        while True:
            try:
                self.answers.put(_receive(self.stdout))
            except Exception:  # EOF, or the pipe closed: the worker is gone
                self.answers.put(None)
                return

    def call(self, function: Callable, args: tuple, timeout: float, where: str):
        try:
            _send(self.stdin, (function, args))
            answer = self.answers.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise LikwidFormatError(where, None, f"h5py to finish reading within {timeout:g} s "
                                    "(libhdf5 hangs on some damaged files; it was stopped)",
                                    "no answer") from None
        except OSError:
            answer = None
        if answer is None:
            self.kill()
            raise LikwidFormatError(where, None, "h5py to read the file without crashing",
                                    f"its process died (exit code {self.process.returncode})")
        ok, value = answer
        if not ok:
            raise value
        return value

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


def _take() -> _Worker:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if worker.alive():
                return worker
    return _Worker()


def _give_back(worker: _Worker) -> None:
    if worker.alive():
        with _idle_lock:
            if len(_idle) < IDLE_WORKERS:
                _idle.append(worker)
                return
    worker.stop()


@atexit.register
def _stop_idle() -> None:
    with _idle_lock:
        while _idle:
            _idle.pop().stop()


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
        When a call does not finish in time or its worker dies (that worker
        is killed); any error a call raised is raised again.
    """
    results: list = [None] * len(calls)
    errors: list[BaseException] = []
    pending = iter(range(len(calls)))
    take = threading.Lock()

    def run() -> None:
        worker = _take()
        try:
            while not errors:
                with take:
                    index = next(pending, None)
                if index is None:
                    return
                try:
                    results[index] = worker.call(function, calls[index], timeouts[index], where)
                except BaseException as exc:
                    errors.append(exc)
        finally:
            _give_back(worker)

    if not calls:
        return []
    n = max(1, min(workers, len(calls), os.cpu_count() or 1))
    if n == 1:
        run()
    else:
        threads = [threading.Thread(target=run, daemon=True) for _ in range(n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return results
