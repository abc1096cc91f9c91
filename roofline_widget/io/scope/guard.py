"""Running h5py on an untrusted file where a hang can be stopped: worker processes with a time limit.

libhdf5 spins forever at 100 % CPU on some damaged files (one zeroed global
heap object header is enough), and Ctrl-C does not stop it: a notebook
kernel that called it is dead.  So the package never calls h5py on a file in
its own process: :func:`guarded_map` runs each call in a worker process (a
fresh ``python`` running :func:`serve`: no fork of a kernel with threads, no
re-import of the caller's ``__main__``).

* **A time limit per file**: every call of one :func:`guarded_map` (one
  file's ranks, in chunks) must be answered before one deadline,
  :func:`file_seconds` after the start (:data:`SECONDS_BASE` plus
  :data:`SECONDS_PER_MB` per MB of the file, whatever its number of ranks);
  a worker that does not answer in time, or dies, is killed: both end in the
  package's :class:`~roofline_widget.errors.LikwidFormatError` naming the file.
* **An interrupted call kills its worker**: Ctrl-C (a notebook's "interrupt
  kernel") while a worker is busy kills it; a worker goes back to the pool
  only after it answered.  Every request carries a number and an answer to
  another request is dropped, so a call never gets another call's answer.
* **Workers die with their caller**: on Linux the kernel kills a worker when
  the process that started it dies (``PR_SET_PDEATHSIG``; workers are
  started by one thread that lives as long as the process, since the
  signal follows the starting thread); elsewhere, and as a second line, a
  thread in the worker exits when the pipe its caller holds is closed.

Up to :data:`IDLE_WORKERS` idle workers are kept for the next calls
(starting one costs about half a second); a worker left idle for
:data:`IDLE_SECONDS` exits by itself.

The raw engine (:mod:`~roofline_widget.io.scope.h5_raw`) needs no guard: it
bounds everything a file controls, so it cannot hang.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import itertools
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, cast

from roofline_widget.errors import LikwidFormatError

__all__ = ["IDLE_SECONDS", "IDLE_WORKERS", "SECONDS_BASE", "SECONDS_PER_MB", "file_seconds",
           "guarded_map", "h5py_missing", "serve"]

#: How long the guarded reads of one file may take: this, plus :data:`SECONDS_PER_MB` per MB.
SECONDS_BASE = 30.0
#: h5py reads about 10 MB of a scope-profiler file per second: ten times the margin.
SECONDS_PER_MB = 1.0
#: Idle workers kept for the next call, and how long one waits before it exits.
IDLE_WORKERS = min(4, os.cpu_count() or 1)
IDLE_SECONDS = 120.0
_STARTUP_SECONDS = 120.0
_PR_SET_PDEATHSIG = 1
_idle: list[_Worker] = []
_idle_lock = threading.Lock()
_requests = itertools.count(1)


def file_seconds(size: int) -> float:
    """Seconds the guarded reads of a file of ``size`` bytes may take, all calls together."""
    return SECONDS_BASE + SECONDS_PER_MB * size / 1e6


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


def _die_with(parent: int, lifeline: int) -> None:
    """End this worker when its caller ends (see the module docstring)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the caller died before the line above
        os._exit(1)

    def watch() -> None:
        with contextlib.suppress(OSError):
            os.read(lifeline, 1)  # returns when the caller's end is closed
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def serve(parent: int | None = None, lifeline: int | None = None) -> None:
    """A worker's main loop: run every ``(number, function, args)`` received, send back
    ``(number, ok, value)``.

    The messages travel on stdin and on a copy of stdout; what the called
    code prints goes to stderr.  Idle for :data:`IDLE_SECONDS`, it exits;
    it dies with ``parent`` (whose end of the pipe ``lifeline`` is).
    """
    if parent is not None and lifeline is not None:
        _die_with(parent, lifeline)
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
            number, function, args = cast(tuple[int, Callable, tuple], _receive(incoming))
        except EOFError:
            return
        try:
            result = (number, True, function(*args))
        except BaseException as exc:  # sent back and raised in the caller
            result = (number, False, exc)
        try:
            _send(outgoing, result)
        except Exception as exc:  # an unpicklable result or error
            _send(outgoing, (number, False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Spawner:
    """Starts every worker from one thread that lives as long as the process.

    ``PR_SET_PDEATHSIG`` fires when the *thread* that started a process ends,
    so workers started by a short-lived thread of :func:`guarded_map` would die
    with it.
    """

    def __init__(self):
        self.jobs: queue.Queue = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def start(self, command: list[str], env: dict, lifeline: int) -> subprocess.Popen:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._serve, daemon=True,
                                               name="roofline-widget h5py workers")
                self.thread.start()
        done: queue.Queue = queue.Queue()
        self.jobs.put((command, env, lifeline, done))
        started = done.get()
        if isinstance(started, BaseException):
            raise started
        return started

    def _serve(self) -> None:
        while True:
            command, env, lifeline, done = self.jobs.get()
            try:
                done.put(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          env=env, pass_fds=(lifeline,)))
            except BaseException as exc:  # reported to the caller
                done.put(exc)


_spawner = _Spawner()


class _Worker:
    """One worker process; a thread reads its answers into a queue (so waiting can time out)."""

    def __init__(self):
        path = os.pathsep.join(entry or os.curdir for entry in sys.path)
        lifeline, self.lifeline = os.pipe()  # the worker reads EOF when our end closes
        try:
            self.process = _spawner.start(
                [sys.executable, "-c", "from roofline_widget.io.scope.guard import serve; "
                 f"serve({os.getpid()}, {lifeline})"],
                {**os.environ, "PYTHONPATH": path}, lifeline)
        except BaseException:
            os.close(self.lifeline)
            self.lifeline = -1
            raise
        finally:
            os.close(lifeline)
        self.stdin = cast(IO[bytes], self.process.stdin)
        self.stdout = cast(IO[bytes], self.process.stdout)
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            ready = self.answers.get(timeout=_STARTUP_SECONDS)
        except BaseException:  # Ctrl-C while it starts: no worker left behind
            self.kill()
            raise
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

    def _answer(self, number: int, deadline: float):
        """The answer to request ``number`` (None: the worker died); queue.Empty past the deadline."""
        while True:
            answer = self.answers.get(timeout=max(0.0, deadline - time.monotonic()))
            if answer is None or answer[0] == number:
                return answer
            # an answer to an earlier request: never another call's result

    def call(self, function: Callable, args: tuple, deadline: float, seconds: float, where: str):
        """``function(*args)`` in this worker, answered before ``deadline`` (``time.monotonic``).

        Whatever stops the wait (the deadline, Ctrl-C) kills the worker: it is
        never left busy.
        """
        number = next(_requests)
        try:
            _send(self.stdin, (number, function, args))
            answer = self._answer(number, deadline)
        except queue.Empty:
            self.kill()
            raise LikwidFormatError(where, None, f"h5py to finish reading within {seconds:g} s "
                                    "(libhdf5 hangs on some damaged files; it was stopped)",
                                    "no answer") from None
        except OSError:
            answer = None
        except BaseException:
            self.kill()
            raise
        if answer is None:
            self.kill()
            raise LikwidFormatError(where, None, "h5py to read the file without crashing",
                                    f"its process died (exit code {self.process.returncode})")
        _, ok, value = answer
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
        if self.lifeline >= 0:
            with contextlib.suppress(OSError):
                os.close(self.lifeline)
            self.lifeline = -1

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


def guarded_map(function: Callable, calls: Sequence[tuple], *, seconds: float, where: str,
                workers: int = 1) -> list:
    """``function(*args)`` for every ``args`` of ``calls``, in worker processes, in order.

    Parameters
    ----------
    function : callable
        A module-level function (sent to the workers by reference).
    calls : sequence of tuple
        The arguments of each call (picklable).
    seconds : float
        How long all calls together may take (:func:`file_seconds` of the file),
        from the moment the first worker is ready.
    where : str
        The file, for the errors.
    workers : int
        How many worker processes at most (each takes the next call when done).

    Raises
    ------
    LikwidFormatError
        When the calls do not finish in time or a worker dies (that worker is
        killed); any error a call raised is raised again.
    KeyboardInterrupt
        On Ctrl-C, after every busy worker was killed.
    """
    deadlines: list[float] = []  # one, set when the first worker is ready (starting one is not reading)
    results: list = [None] * len(calls)
    errors: list[BaseException] = []
    pending = iter(range(len(calls)))
    take = threading.Lock()
    busy: list[_Worker] = []

    def run() -> None:
        worker = _take()
        busy.append(worker)
        with take:
            if not deadlines:
                deadlines.append(time.monotonic() + seconds)
        deadline = deadlines[0]
        try:
            while not errors:
                with take:
                    index = next(pending, None)
                if index is None:
                    return
                try:
                    results[index] = worker.call(function, calls[index], deadline, seconds, where)
                except BaseException as exc:
                    errors.append(exc)
        finally:
            busy.remove(worker)
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
        try:
            for thread in threads:
                thread.join()
        except BaseException:  # Ctrl-C while the threads wait: stop their workers
            errors.append(KeyboardInterrupt())
            for worker in list(busy):
                worker.kill()
            raise
    if errors:
        raise errors[0]
    return results
