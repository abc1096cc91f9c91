"""Reading many files at once on an executor the caller gives.

:func:`~roofline_widget.io.read_likwid` reads a list of files (one per rank or
per job step) one after the other by default. With ``executor=`` it hands
each path to :func:`read_each`, which runs one read per file on

* any :class:`concurrent.futures.Executor` (``ThreadPoolExecutor``,
  ``ProcessPoolExecutor``), through ``submit`` and ``Future.result``;
* a dask ``distributed.Client`` (its ``submit`` returns futures with
  ``result()`` too) or ``Client.get_executor()``;
* any other object with ``submit(fn, item)`` returning something with
  ``result()``, or with ``map(fn, items)`` yielding the results in order.

The results come back in the order of the files, so the merged run is the
one the serial read gives. Open file objects are read in the calling process
(they cannot travel to another process). An error raised while reading a
file is raised again here; when its message does not name the file (a worker
that died, say) it is raised as a :class:`ParallelReadError` that does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from roofline_widget.errors import ParallelReadError

__all__ = [ "check_executor", "read_each"]


def check_executor(executor) -> None:
    """Refuse an ``executor`` that has neither ``submit`` nor ``map`` (TypeError naming it)."""
    if executor is not None and not (callable(getattr(executor, "submit", None))
                                     or callable(getattr(executor, "map", None))):
        raise TypeError("executor must be None (read one file after the other) or an object "
                        "with submit() or map(), such as a concurrent.futures Executor or a "
                        f"dask distributed Client; got {type(executor).__name__}")


def _name(item) -> str:
    """The file named in errors: the path, or a file object's ``name``."""
    if isinstance(item, (str, os.PathLike)):
        return os.fspath(item)
    return str(getattr(item, "name", "<stream>"))


def _raise_named(error: BaseException, item) -> None:
    """Raise ``error`` again, as a :class:`ParallelReadError` if it does not name the file."""
    name, message = _name(item), str(error)
    if name in message or name in str(getattr(error, "source", "")):
        raise error
    raise ParallelReadError(name, error) from error


def read_each(items: Sequence, read: Callable, executor=None) -> list:
    """``read(item)`` for every item, in the order of ``items``.

    Parameters
    ----------
    items : sequence
        Paths (sent to the executor) or open file objects (read here).
    read : callable
        A module-level function (it is pickled for process pools and dask).
    executor : optional
        None: one after the other in this process. Else an object with
        ``submit`` (preferred) or ``map`` (see the module docstring).

    Returns
    -------
    list
        One result per item, in order.

    Raises
    ------
    TypeError
        If ``executor`` has neither ``submit`` nor ``map``.
    ParallelReadError
        If reading a file failed with an error whose message does not name
        the file; other errors are raised as they are.
    """
    check_executor(executor)
    items = list(items)
    if executor is None:
        return [read(item) for item in items]
    remote = [i for i, item in enumerate(items) if isinstance(item, (str, os.PathLike))]
    local = sorted(set(range(len(items))) - set(remote))
    results: list = [None] * len(items)
    if callable(getattr(executor, "submit", None)):
        pending = [(i, executor.submit(read, items[i])) for i in remote]
        outcomes = ((i, future.result) for i, future in pending)
    else:
        mapped = executor.map(read, [items[i] for i in remote])
        outcomes = ((i, _next_of(mapped)) for i in remote)
    for i in local:  # file objects: read here, while the workers run
        results[i] = read(items[i])
    for i, outcome in outcomes:
        try:
            value = outcome()
            results[i] = value.result() if _is_future(value) else value
        except Exception as error:
            _raise_named(error, items[i])
    return results


def _next_of(iterator):
    """A callable returning the iterator's next value (the results of ``map``, in order)."""
    return lambda: next(iterator)


def _is_future(value) -> bool:
    """A dask future from ``Client.map`` (concurrent.futures ``map`` yields values)."""
    return type(value).__name__ == "Future" and callable(getattr(value, "result", None))
