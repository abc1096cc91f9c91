"""Checking the selection arguments: ranks, include/exclude patterns, ``combine_ranks``.

Every function raises :class:`ValueError` with the offending value for
anything it cannot use, so a bad argument fails before any work is done.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["check_combine_ranks", "compile_patterns", "names_selected", "normalize_ranks"]


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def normalize_ranks(ranks: object) -> list[int] | None:
    """Turn the ``ranks`` argument into a sorted list of ints (None: all ranks).

    Parameters
    ----------
    ranks : int, iterable of int, or None
        Python or numpy integers.

    Raises
    ------
    ValueError
        For anything else (strings, floats, booleans, negative ranks).

    Examples
    --------
    >>> normalize_ranks(np.int64(1))
    [1]
    >>> normalize_ranks((3, 1, 3))
    [1, 3]
    """
    if ranks is None:
        return None
    if _is_int(ranks):
        items = [ranks]
    elif isinstance(ranks, (str, bytes)):
        raise ValueError(f"ranks must be an int, an iterable of ints or None, got {ranks!r}")
    else:
        try:
            items = list(ranks)
        except TypeError:
            raise ValueError("ranks must be an int, an iterable of ints or None, "
                             f"got {type(ranks).__name__} {ranks!r}") from None
    bad = [r for r in items if not _is_int(r) or r < 0]
    if bad:
        raise ValueError(f"ranks must be non-negative integers, got {bad[0]!r}")
    return sorted({int(r) for r in items})


def compile_patterns(patterns: object, what: str = "include") -> list[re.Pattern] | None:
    """Compile ``include``/``exclude`` regular expressions (a string or a list).

    Parameters
    ----------
    patterns : str, re.Pattern, iterable of them, or None
        None selects every region.
    what : str
        The argument's name, for the error message.

    Returns
    -------
    list of re.Pattern or None

    Raises
    ------
    ValueError
        For an invalid regular expression or a pattern that is not a string.
    """
    if patterns is None:
        return None
    if isinstance(patterns, (str, re.Pattern)):
        patterns = [patterns]
    try:
        patterns = list(patterns)
    except TypeError:
        raise ValueError(f"{what} must be a string, a list of strings or None, "
                         f"got {patterns!r}") from None
    compiled = []
    for pattern in patterns:
        if isinstance(pattern, re.Pattern):
            compiled.append(pattern)
            continue
        if not isinstance(pattern, str):
            raise ValueError(f"{what} patterns must be strings, got {pattern!r}")
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise ValueError(f"invalid {what} pattern {pattern!r}: {exc}") from None
    return compiled


def names_selected(names: list[str], include: list[re.Pattern] | None,
                   exclude: list[re.Pattern] | None) -> np.ndarray:
    """Boolean mask over unique region names (:meth:`re.Pattern.match`: at the name's start).

    Parameters
    ----------
    names : list of str
        Region names.
    include, exclude : list of re.Pattern or None
        As :func:`compile_patterns` returns them; a name is kept when it
        matches some ``include`` pattern (or ``include`` is None) and no
        ``exclude`` pattern.
    """
    keep = np.ones(len(names), dtype=bool)
    for index, name in enumerate(names):
        if include is not None and not any(p.match(name) for p in include):
            keep[index] = False
        elif exclude is not None and any(p.match(name) for p in exclude):
            keep[index] = False
    return keep


def check_combine_ranks(combine_ranks: object) -> bool:
    """``combine_ranks`` as a bool.

    Raises
    ------
    ValueError
        For anything but a Python or numpy bool.
    """
    if not isinstance(combine_ranks, (bool, np.bool_)):
        raise ValueError(f"combine_ranks must be True or False, got {combine_ranks!r}")
    return bool(combine_ranks)


def check_metric_argument(value, role: str) -> None:
    """Refuse a metric argument that is neither None nor one metric name.

    Raises
    ------
    TypeError
        Naming the argument (``role``, e.g. ``"flops_metric"``) and what it got.
    """
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{role} must be one metric name (str) or None, got "
                        f"{type(value).__name__} {value!r:.80}")
